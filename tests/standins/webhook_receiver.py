#!/usr/bin/python3
# The customers' webhook receiver stand-in of the tests and the demo: an
# HTTPS server (CERT and KEY, a self-signed certificate the harness makes
# with openssl) that appends every request to FILE as one JSON line
# (path, headers, the body's exact bytes in base64, the time) and answers
# by its path: /gone 410, /fail 500, /redirect 302 to /ok, anything else
# 200; a path starting /slow answers after 0.3 s, /sleep/<ms>/... after
# <ms> milliseconds; a path (without its query) listed in FILE.down, one
# a line, is down: its requests are logged, then their connections
# closed without an answer (an outage, issue 40).  Connections it accepts
# are counted in FILE.conns (the canary of the address-rule tests: a
# refused send never connects).
#   webhook_receiver.py PORT CERT KEY FILE
import base64
import json
import ssl
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, cert, key, path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
conns = [0]


def down():
    try:
        with open(path + ".down") as f:
            return set(line.strip() for line in f)
    except OSError:
        return set()


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
        if self.path.split("?")[0] in down():
            self.close_connection = True
            return
        if self.path.startswith("/slow"):
            time.sleep(0.3)
        if self.path.startswith("/sleep/"):
            time.sleep(int(self.path.split("/")[2]) / 1000)
        status = {"/gone": 410, "/fail": 500, "/redirect": 302}.get(
            self.path.split("?")[0], 200)
        self.send_response(status)
        if status == 302:
            self.send_header("Location", "/ok")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def do_GET(self):
        pages = {
            "/policy-good": "<html><body><h1>プライバシーポリシー</h1><p>当店は、"
            "お申し込みフォームに入力された情報(電話番号・メールアドレス)を、"
            "送信前の入力途中であっても取得し、お手続きのご案内を SMS またはメールで"
            "お送りすることがあります。ご案内が不要な場合は、メッセージ内のリンクから"
            "配信停止できます。</p></body></html>",
            "/policy-bad": "<html><body><h1>プライバシーポリシー</h1><p>当店は"
            "お問い合わせへの返信のためにメールアドレスを利用します。</p></body></html>",
        }
        page = pages.get(self.path)
        body = (page or "not found").encode()
        self.send_response(200 if page else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(ThreadingHTTPServer):
    # a receiver's backlog, not socketserver's 5: a sender opening 8
    # connections at once would wait out SYN retransmissions
    request_queue_size = 256
    daemon_threads = True


srv = Server(("127.0.0.1", port), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
# the handshake in each connection's thread, not in the accepting one
srv.socket = ctx.wrap_socket(srv.socket, server_side=True,
                             do_handshake_on_connect=False)
srv.serve_forever()
