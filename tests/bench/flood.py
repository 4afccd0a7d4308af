#!/usr/bin/python3
# tests/bench/flood.py URL SITE_PK N CONNS [SOURCE]: a burst of N captures
# (each a new visitor with its own made-up number) to the collector at URL
# (POST /tag/v1/events), spread over CONNS keep-alive connections that
# are all opened first and then let go at once, from the loopback address
# SOURCE (default 127.0.0.1).  Prints "admitted refused other": the 204s,
# the 429s and any other answer.  tests/bench/flood.sh runs it against a
# per-address capture limit to measure how far a burst gets past it.
import http.client
import sys
import threading
from urllib.parse import urlsplit

url, site, n, conns = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
source = sys.argv[5] if len(sys.argv) > 5 else "127.0.0.1"
u = urlsplit(url)
start = threading.Barrier(conns)
lock = threading.Lock()
counts = {"admitted": 0, "refused": 0, "other": 0}


def capture(c, i):
    v = "%08x-0000-4000-9000-%012d" % (i, i)
    body = ('{"v":1,"site":"%s","visitor":"%s","session":"%s","type":"capture",'
            '"url":"https://shop.example.jp/form","campaign":"flood","role":"form",'
            '"contact":{"tel":"0901%07d"},"consent":true}') % (site, v, v, i)
    c.request("POST", "/tag/v1/events", body, {"Content-Type": "text/plain"})
    r = c.getresponse()
    r.read()
    return r.status


def worker(k):
    c = http.client.HTTPConnection(u.hostname, u.port, source_address=(source, 0))
    c.connect()
    got = []
    start.wait()
    for i in range(k, n, conns):
        got.append(capture(c, i))
    c.close()
    with lock:
        for s in got:
            key = "admitted" if s == 204 else "refused" if s == 429 else "other"
            counts[key] += 1


ts = [threading.Thread(target=worker, args=(k,)) for k in range(conns)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print(counts["admitted"], counts["refused"], counts["other"])
