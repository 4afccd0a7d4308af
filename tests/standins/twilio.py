#!/usr/bin/python3
# The Twilio stand-in of the tests (issue 44): Programmable Messaging's
# "Create a Message" as Twilio documents it.
#
#   POST /2010-04-01/Accounts/{AccountSid}/Messages.json
#
# HTTP basic auth AccountSid:AuthToken (else 401, Twilio's code 20003),
# the account of the path the same (else 404, 20404), a form body with
# To (E.164, else 400 21211; none: 21604), Body (none: 21602), From or
# MessagingServiceSid (none: 21603); StatusCallback kept when given.
# Answers 201 with the Message resource as JSON ("sid": "SM" and 32 hex
# digits, "status": "queued", ...); errors as Twilio's JSON {"code",
# "message", "more_info", "status"}.  Every request is appended to FILE as
# one JSON line: the path, the basic-auth user and whether the password
# was right, the content type, the raw body, the form, and the answer's
# status and sid.  On demand, as sms_gateway.py: when FILE.fail exists,
# every send is answered with the HTTP status it holds (e.g. 503, 429);
# the To numbers listed in FILE.invalid (one a line) are refused 21211.
#
# The tests' side door, not Twilio's: POST /_test/callback with the form
# MessageSid, MessageStatus, [ErrorCode], [sign=good|bad|none] posts the
# status callback Twilio would to the message's StatusCallback, signed
# (X-Twilio-Signature: base64 HMAC-SHA1 under the auth token of the URL
# and the sorted fields, each name then value) with the auth token
# ("good"), another one ("bad") or not at all ("none"), and answers with
# the callback's answer: {"status": N, "body": "..."}.
#   twilio.py PORT FILE ACCOUNT_SID AUTH_TOKEN
import base64
import hashlib
import hmac
import json
import re
import secrets
import sys
import urllib.error
import urllib.parse
import urllib.request
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, path, account, token = int(sys.argv[1]), sys.argv[2], sys.argv[3], \
    sys.argv[4]
messages = {}
E164 = re.compile(r"^\+[1-9][0-9]{1,14}$")
MSG = re.compile(r"^/2010-04-01/Accounts/([^/]+)/Messages\.json$")


def signature(key, url, fields):
    s = url + "".join(k + v for k, v in sorted(fields))
    mac = hmac.new(key.encode(), s.encode(), hashlib.sha1).digest()
    return base64.b64encode(mac).decode()


def knob(name):
    try:
        with open(path + "." + name) as f:
            return f.read()
    except OSError:
        return ""


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def answer(self, status, obj):
        reply = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def error(self, status, code, message):
        self.answer(status, {"code": code, "message": message,
                             "more_info": "https://www.twilio.com/docs/"
                             "errors/%d" % code, "status": status})

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n).decode("utf-8", "replace")
        form = urllib.parse.parse_qsl(raw, keep_blank_values=True)
        if self.path == "/_test/callback":
            return self.callback(dict(form))
        user, good = None, False
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Basic "):
            try:
                u, _, p = base64.b64decode(auth[6:]).decode().partition(":")
                user, good = u, u == account and p == token
            except ValueError:
                pass
        rec = {"path": self.path, "user": user, "auth_ok": good,
               "content_type": self.headers.get("Content-Type"),
               "raw": raw, "form": dict(form)}
        status, sid = self.create(rec, dict(form), good)
        rec["answer"], rec["sid"] = status, sid
        with open(path, "a") as f:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")

    def create(self, rec, f, good):
        m = MSG.match(self.path)
        if not good:
            self.error(401, 20003, "Authenticate")
            return 401, None
        if m is None or m.group(1) != account:
            self.error(404, 20404, "The requested resource %s was not "
                       "found" % self.path)
            return 404, None
        fail = knob("fail").strip()
        if fail:
            self.error(int(fail), 20500 if int(fail) >= 500 else 20429,
                       "failing on demand")
            return int(fail), None
        to = f.get("To", "")
        if not to:
            self.error(400, 21604, "A 'To' phone number is required.")
            return 400, None
        if not E164.match(to) or to in knob("invalid").split():
            self.error(400, 21211, "Invalid 'To' Phone Number: %s" % to)
            return 400, None
        if not f.get("From") and not f.get("MessagingServiceSid"):
            self.error(400, 21603, "A 'From' phone number is required.")
            return 400, None
        if not f.get("Body"):
            self.error(400, 21602, "Message body is required.")
            return 400, None
        sid = "SM" + secrets.token_hex(16)
        now = formatdate(usegmt=True)
        msg = {"sid": sid, "account_sid": account, "to": to,
               "from": f.get("From"),
               "messaging_service_sid": f.get("MessagingServiceSid"),
               "body": f["Body"], "status": "queued", "num_segments": "1",
               "num_media": "0", "direction": "outbound-api",
               "api_version": "2010-04-01", "price": None,
               "price_unit": "USD", "error_code": None,
               "error_message": None, "date_created": now,
               "date_updated": now, "date_sent": None,
               "uri": "/2010-04-01/Accounts/%s/Messages/%s.json" %
               (account, sid), "subresource_uris": {}}
        messages[sid] = dict(msg, status_callback=f.get("StatusCallback"))
        self.answer(201, msg)
        return 201, sid

    def callback(self, f):
        m = messages.get(f.get("MessageSid", ""))
        if m is None or not m.get("status_callback"):
            return self.answer(404, {"error": "no such message"})
        st = f.get("MessageStatus", "delivered")
        fields = [("AccountSid", account), ("ApiVersion", "2010-04-01"),
                  ("From", m["from"] or ""), ("To", m["to"]),
                  ("MessageSid", m["sid"]), ("SmsSid", m["sid"]),
                  ("MessageStatus", st), ("SmsStatus", st)]
        if m["messaging_service_sid"]:
            fields.append(("MessagingServiceSid",
                           m["messaging_service_sid"]))
        if f.get("ErrorCode"):
            fields.append(("ErrorCode", f["ErrorCode"]))
        url = m["status_callback"]
        hdr = {"Content-Type": "application/x-www-form-urlencoded"}
        sign = f.get("sign", "good")
        if sign != "none":
            hdr["X-Twilio-Signature"] = signature(
                token if sign == "good" else token + "x", url, fields)
        req = urllib.request.Request(url, urllib.parse.urlencode(
            fields).encode(), hdr, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                got = {"status": r.status, "body": r.read().decode()}
        except urllib.error.HTTPError as e:
            got = {"status": e.code, "body": e.read().decode()}
        self.answer(200, got)

    def log_message(self, *a):
        pass


ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
