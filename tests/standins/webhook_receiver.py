#!/usr/bin/python3
# The customers' webhook receiver stand-in of the tests and the demo: an
# HTTPS server (CERT and KEY, a self-signed certificate the harness makes
# with openssl) that appends every request to FILE as one JSON line
# (path, headers, the body's exact bytes in base64, the time) and answers
# by its path: /gone 410, /fail 500, /redirect 302 to /ok, anything else
# 200.  Connections it accepts are counted in FILE.conns (the canary of
# the address-rule tests: a refused send never connects).
#   webhook_receiver.py PORT CERT KEY FILE
import base64
import json
import ssl
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, cert, key, path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
conns = [0]


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def setup(self):
        conns[0] += 1
        with open(path + ".conns", "w") as f:
            f.write(str(conns[0]))
        super().setup()

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        with open(path, "a") as f:
            f.write(json.dumps({
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": base64.b64encode(body).decode(),
                "at": time.time(),
            }) + "\n")
        status = {"/gone": 410, "/fail": 500, "/redirect": 302}.get(
            self.path.split("?")[0], 200)
        self.send_response(status)
        if status == 302:
            self.send_header("Location", "/ok")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


srv = ThreadingHTTPServer(("127.0.0.1", port), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
