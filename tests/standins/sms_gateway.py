#!/usr/bin/python3
# The SMS gateway stand-in of the tests and the demo: the request of
# Formback's generic driver (design 5) is POST with a Bearer token and a
# JSON body; each accepted one is appended to FILE as one JSON line and
# answered 200 {"id": "sms-N"}.  A wrong token is 401.  When FILE.delay
# exists, each answer waits the seconds it holds first (a slow gateway,
# on demand: tests kill a pass while a send is in flight).  When FILE.fail
# exists, each request is refused with the HTTP status it holds (e.g. 503)
# and nothing is recorded: a failing provider, on demand.
#   sms_gateway.py PORT FILE TOKEN
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, path, token = int(sys.argv[1]), sys.argv[2], sys.argv[3]
count = [0]


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real gateway
    # headers and body go out in two writes: without TCP_NODELAY each
    # answer waits out the client's delayed ACK (about 40 ms)
    disable_nagle_algorithm = True

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        if self.headers.get("Authorization") != "Bearer " + token:
            self.send_response(401)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        msg = json.loads(body)
        try:
            with open(path + ".fail") as f:
                status = int(f.read().strip() or "0")
        except (OSError, ValueError):
            status = 0
        if status:
            reply = json.dumps({"error": "failing on demand"}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)
            return
        try:
            with open(path + ".delay") as f:
                time.sleep(float(f.read().strip() or "0"))
        except (OSError, ValueError):
            pass
        count[0] += 1
        with open(path, "a") as f:
            f.write(json.dumps(msg, ensure_ascii=False) + "\n")
        reply = json.dumps({"id": "sms-%d" % count[0]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *a):
        pass


ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
