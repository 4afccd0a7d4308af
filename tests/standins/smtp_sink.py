#!/usr/bin/python3
# The SMTP sink of the tests and the demo: accepts every message on
# 127.0.0.1:PORT and writes it to DIR/NNNNNN.eml, the envelope recipients
# first as "X-Envelope-To:" lines.  Debian's python3-aiosmtpd.  When
# DIR.fail exists, every message is refused with the SMTP reply it holds
# (e.g. "451 4.3.0 try again later"), and nothing is written: a failing
# provider, on demand.
#   smtp_sink.py PORT DIR
import itertools
import os
import signal
import sys

from aiosmtpd.controller import Controller

out = sys.argv[2]
os.makedirs(out, exist_ok=True)
# numbered on from what the directory holds (listing it per message would
# make a large run quadratic)
seq = itertools.count(len(os.listdir(out)))


class Sink:
    async def handle_DATA(self, server, session, envelope):
        try:
            with open(out.rstrip("/") + ".fail") as f:
                reply = f.read().strip()
            if reply:
                return reply
        except OSError:
            pass
        n = next(seq)
        with open(os.path.join(out, "%06d.eml" % n), "wb") as f:
            for r in envelope.rcpt_tos:
                f.write(b"X-Envelope-To: " + r.encode() + b"\r\n")
            f.write(envelope.original_content or envelope.content)
        return "250 OK"


c = Controller(Sink(), hostname="127.0.0.1", port=int(sys.argv[1]))
c.start()
signal.signal(signal.SIGTERM, lambda *a: (c.stop(), sys.exit(0)))
signal.pause()
