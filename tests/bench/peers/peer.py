"""The FastAPI service a user might write instead of Formback, for
scripts/bench (issue 13): FastAPI on uvicorn (uvloop, httptools), async
handlers calling Debian's MySQLdb directly on one connection per worker,
ujson bodies, over Formback's own tables.  It answers GET
/api/v1/sites/{id} and GET /api/v1/leads?limit=N with the bodies
formback.fcgi writes (the bench compares them byte for byte); each
request looks the API key up by its hash, then reads the page, and the
list's next_cursor is signed as Formback signs it (src/page.c).  The
list's SQL is Formback's (the nested names joined by primary key, the leads
walked by leads_tenant: without FORCE INDEX MariaDB sorted the tenant's
leads).

Run: uvicorn --app-dir tests/bench/peers peer:app --workers 2 --loop uvloop
--http httptools, with PEER_SOCKET (MariaDB's socket), PEER_BASE_URL
(Formback's base_url) and PEER_CURSOR_KEY (hex of the cursor subkey).
"""
import base64
import hashlib
import os

import MySQLdb
import ujson
from fastapi import FastAPI, Header, Response

app = FastAPI()
BASE_URL = os.environ["PEER_BASE_URL"]
CURSOR_KEY = bytes.fromhex(os.environ["PEER_CURSOR_KEY"])
conn = None

AUTH = """SELECT k.tenant_id, k.revoked_at IS NOT NULL, m.status
FROM api_keys k JOIN members m ON m.id = k.member_id WHERE k.key_hash = %s"""
SITE = """SELECT id, name, domain, public_key, created_at, updated_at,
sending_held_at, snippet_campaigns FROM sites WHERE tenant_id = %s AND id = %s"""
LEADS = """SELECT l.id, l.site_id, s.name, s.domain, l.campaign_id,
c.campaign_key, c.name, l.status, l.consent_state, l.email_masked,
l.tel_masked, l.pii_state, l.tel_kind, l.sms_capable, l.created_at,
l.captured_at, l.abandoned_at, l.converted_at, l.conversion_source,
l.suppress_reason FROM leads l FORCE INDEX (leads_tenant)
LEFT JOIN sites s ON s.id = l.site_id
LEFT JOIN campaigns c ON c.id = l.campaign_id
WHERE l.tenant_id = %s ORDER BY l.id DESC LIMIT %s"""


@app.on_event("startup")
async def connect():
    global conn
    conn = MySQLdb.connect(unix_socket=os.environ["PEER_SOCKET"],
                           user="formback", password="formback",
                           database="formback", charset="utf8mb4",
                           autocommit=True)
    conn.cursor().execute("SET time_zone = '+00:00'")


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ") if t is not None else None


def dumps(obj):
    return ujson.dumps(obj, ensure_ascii=False, escape_forward_slashes=False)


def error(status, code):
    return Response(dumps({"error": {"code": code}}), status,
                    media_type="application/json")


def tenant(authorization):
    token = (authorization or "").removeprefix("Bearer ")
    cur = conn.cursor()
    cur.execute(AUTH, (hashlib.blake2b(token.encode(), digest_size=32).digest(),))
    row = cur.fetchone()
    if row is None or row[1] or row[2] != "active":
        return None
    return row[0]


@app.get("/api/v1/sites/{site_id}")
async def site(site_id: str, authorization: str = Header(None)):
    t = tenant(authorization)
    if t is None:
        return error(401, "api_key_invalid")
    cur = conn.cursor()
    cur.execute(SITE, (t, site_id))
    row = cur.fetchone()
    if row is None:
        return error(404, "not_found")
    sid, name, domain, pk, created, updated, held, snippets = row
    campaigns = ujson.loads(snippets) if snippets else []
    return Response(dumps({
        "id": sid, "object": "site", "name": name, "domain": domain,
        "public_key": pk, "created_at": iso(created),
        "updated_at": iso(updated), "sending_held_at": iso(held),
        "tag_url": BASE_URL + "/tag.js",
        "snippets": [{
            "campaign_id": c["id"], "campaign_key": c["key"],
            "campaign_name": c["name"],
            "html": f'<script async src="{BASE_URL}/tag.js" data-site="{pk}" '
                    f'data-campaign="{c["key"]}"></script>',
        } for c in campaigns],
    }), media_type="application/json")


def cursor(tenant_id, last):
    """The last id shown, signed as src/page.c signs an unfiltered list."""
    scope = (f"listLeads\n{tenant_id}\nsite_id!\ncampaign_id!\nstatus!\n"
             "date_field!\nfrom!\nto!").encode()
    raw = (b"\x02" + hashlib.blake2b(scope, digest_size=4).digest() +
           bytes.fromhex(last.replace("-", "")))
    mac = hashlib.blake2b(raw + scope, digest_size=16, key=CURSOR_KEY).digest()
    return base64.urlsafe_b64encode(raw + mac).rstrip(b"=").decode()


@app.get("/api/v1/leads")
async def leads(limit: int = 50, authorization: str = Header(None)):
    t = tenant(authorization)
    if t is None:
        return error(401, "api_key_invalid")
    if not 1 <= limit <= 200:
        return error(400, "parameter_invalid")
    cur = conn.cursor()
    cur.execute(LEADS, (t, limit + 1))
    rows = cur.fetchall()
    data = [{
        "id": r[0], "object": "lead",
        "site": {"id": r[1], "name": r[2], "domain": r[3]},
        "campaign": {"id": r[4], "key": r[5], "name": r[6]},
        "status": r[7], "consent_state": r[8], "email_masked": r[9],
        "tel_masked": r[10], "pii_state": r[11], "tel_kind": r[12],
        "sms_capable": bool(r[13]), "created_at": iso(r[14]),
        "captured_at": iso(r[15]), "abandoned_at": iso(r[16]),
        "converted_at": iso(r[17]), "conversion_source": r[18],
        "suppress_reason": r[19],
    } for r in rows[:limit]]
    more = len(rows) > limit
    return Response(dumps({
        "object": "list", "data": data, "date_field": "created_at",
        "next_cursor": cursor(t, data[-1]["id"]) if more else None,
        "has_more": more,
    }), media_type="application/json")
