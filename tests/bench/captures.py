#!/usr/bin/python3
# tests/bench/captures.py URL SITE_PK N START: posts N captures to the
# collector at URL (POST /tag/v1/events) as the page tag sends them, new
# visitors numbered from START, over 4 keep-alive connections; exits 1
# when any answer is not 204.  scripts/bench tops the deliveries backlog
# up with it.
import http.client
import sys
import threading
from urllib.parse import urlsplit

url, site, n, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
u = urlsplit(url)
bad = []


def worker(k):
    c = http.client.HTTPConnection(u.hostname, u.port)
    for i in range(start + k, start + n, 4):
        v = "%08x-0000-4000-9000-%012d" % (k, i)
        body = ('{"v":1,"site":"%s","visitor":"%s","session":"%s","type":"capture",'
                '"url":"http://127.0.0.1/form","referrer":"","campaign":"bench",'
                '"role":"form","contact":{"tel":"0901%07d","email":"t%d@bench.example"},'
                '"consent":true,"ts":1}') % (site, v, v, i % 10000000, i)
        c.request("POST", "/tag/v1/events", body, {"Content-Type": "text/plain"})
        r = c.getresponse()
        r.read()
        if r.status != 204:
            bad.append(r.status)


ts = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
for t in ts:
    t.start()
for t in ts:
    t.join()
sys.exit(1 if bad else 0)
