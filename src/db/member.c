/*
 * SQL of members' sign-in, sessions, one-time links, the admin API's
 * lists of members and keys, and the audit log (store.h; migration 0020).
 */
#include <stdio.h>
#include <string.h>

#include "store.h"

enum {
	MB_SIGNIN, MB_THROTTLE_WAIT, MB_THROTTLE_FAIL, MB_THROTTLE_CLEAR,
	MB_SESSION_LOOKUP, MB_MEMBER_TENANTS,
	MB_SESSION_CREATE, MB_SESSION_TOUCH, MB_SESSION_END,
	MB_SESSIONS_END, MB_LIST, MB_GET, MB_BY_EMAIL, MB_SET_ROLE,
	MB_SET_PASSWORD, MB_OWNERS, MB_INV_EXPIRE, MB_INV_ADD, MB_INV_RECENT,
	MB_INV_CLAIM, MB_INV_SENT, MB_INV_TOKEN, MB_INV_USE, MB_KEY_LIST,
	MB_KEY_GET, MB_KEY_NAME, MB_KEY_USED, MB_KEY_OF_MEMBER, MB_KEY_SCOPES,
	MB_AUDIT_LIST, MB_PURGE_SESSIONS,
	MB_PURGE_INVITATIONS, MB_PURGE_THROTTLE,
	MB__MAX
};
_Static_assert(MB__MAX <= DBSET_STMT_MAX, "raise DBSET_STMT_MAX");

static const struct dbstmt mb_sql[MB__MAX] = {
	{ "signin_members",
	  "SELECT " DB_SELECT(SIGNIN_COLS) " FROM members m JOIN tenants t "
	  "ON t.id = m.tenant_id WHERE m.email = ? AND (? IS NULL OR "
	  "m.tenant_id = ?) AND m.status <> 'deleted' ORDER BY m.id LIMIT 10" },
	{ "throttle_wait",
	  "SELECT COALESCE(MAX(CEIL(TIMESTAMPDIFF(MICROSECOND, NOW(6), "
	  "blocked_until) / 1000000)), 0) FROM signin_throttle "
	  "WHERE subject_hash IN (?, ?) AND blocked_until > NOW(6)" },
	/*
	 * the assignments run left to right: blocked_until sees the new count
	 */
	{ "throttle_fail",
	  "INSERT INTO signin_throttle (subject_hash, failures, "
	  "last_failure_at, blocked_until) VALUES (?, 1, NOW(6), IF(1 >= ?, "
	  "NOW(6) + INTERVAL 30 SECOND, NULL)) ON DUPLICATE KEY UPDATE "
	  "failures = IF(last_failure_at < NOW(6) - INTERVAL 1 DAY, 1, "
	  "failures + 1), last_failure_at = NOW(6), "
	  "blocked_until = IF(failures >= ?, NOW(6) + INTERVAL "
	  "LEAST(30 * POW(2, LEAST(failures - ?, 10)), 900) SECOND, NULL)" },
	{ "throttle_clear",
	    "DELETE FROM signin_throttle WHERE subject_hash = ?" },
	{ "session_lookup",
	  "SELECT " DB_SELECT(SESSION_AUTH_COLS) " FROM sessions s "
	  "JOIN members m ON m.id = s.member_id JOIN tenants t ON t.id = "
	  "s.tenant_id WHERE s.token_hash = ?" },
	{ "member_tenants",
	  "SELECT " DB_SELECT(MEMBER_TENANT_COLS) " FROM members m "
	  "JOIN tenants t ON t.id = m.tenant_id WHERE m.email = ? "
	  "AND m.tenant_id <> ? AND m.status = 'active' "
	  "AND m.password_hash IS NOT NULL ORDER BY t.name, t.id LIMIT 50" },
	{ "session_create",
	  "INSERT INTO sessions (id, tenant_id, member_id, token_hash, "
	  "client_addr, expires_at) VALUES (?, ?, ?, ?, ?, NOW(6) + INTERVAL ? "
	  "SECOND)" },
	{ "session_touch",
	    "UPDATE sessions SET last_seen_at = NOW(6) WHERE id = ?" },
	{ "session_end",
	  "UPDATE sessions SET ended_at = COALESCE(ended_at, NOW(6)) WHERE id "
	  "= ?" },
	{ "member_sessions_end",
	  "UPDATE sessions SET ended_at = NOW(6) WHERE member_id = ? "
	  "AND ended_at IS NULL AND (? IS NULL OR id <> ?)" },
	{ "member_list",
	  "SELECT " DB_SELECT(MEMBER_COLS) " FROM members m WHERE m.tenant_id "
	  "= ? AND m.status <> 'deleted' AND m.id < ? ORDER BY m.id DESC "
	  "LIMIT ?" },
	{ "member_get",
	  "SELECT " DB_SELECT(MEMBER_COLS) " FROM members m WHERE m.tenant_id "
	  "= ? AND m.id = ?" },
	{ "member_by_email",
	  "SELECT " DB_SELECT(MEMBER_COLS) " FROM members m WHERE m.tenant_id "
	  "= ? AND m.email = ?" },
	{ "member_set_role",
	  "UPDATE members SET role = ?, updated_at = NOW(6) WHERE tenant_id = "
	  "? AND id = ?" },
	{ "member_set_password",
	  "UPDATE members SET password_hash = ?, password_changed_at = NOW(6), "
	  "updated_at = NOW(6) WHERE id = ?" },
	{ "owners_locked",
	  "SELECT (SELECT id FROM tenants WHERE id = ? FOR UPDATE) "
	  "IS NOT NULL, (SELECT COUNT(*) FROM members WHERE tenant_id = ? AND "
	  "role = 'owner' AND status = 'active')" },
	{ "invitation_expire",
	  "UPDATE invitations SET expires_at = LEAST(expires_at, NOW(6)) "
	  "WHERE member_id = ? AND used_at IS NULL" },
	{ "invitation_add",
	  "INSERT INTO invitations (id, tenant_id, member_id, purpose, "
	  "expires_at) VALUES (?, ?, ?, ?, NOW(6) + INTERVAL ? SECOND)" },
	{ "invitation_recent",
	  "SELECT COUNT(*) FROM invitations WHERE member_id = ? AND purpose = "
	  "? AND created_at > NOW(6) - INTERVAL 5 MINUTE" },
	{ "invitation_claim",
	  "SELECT " DB_SELECT(INVITE_SEND_COLS) " FROM invitations i "
	  "JOIN members m ON m.id = i.member_id JOIN tenants t ON t.id = "
	  "i.tenant_id WHERE i.sent_at IS NULL AND i.expires_at > NOW(6) AND "
	  "i.used_at IS NULL ORDER BY i.created_at LIMIT 20 FOR UPDATE SKIP "
	  "LOCKED" },
	{ "invitation_sent",
	  "UPDATE invitations SET token_hash = ?, sent_at = NOW(6) WHERE id = "
	  "?" },
	{ "invitation_by_token",
	  "SELECT " DB_SELECT(INVITE_COLS) " FROM invitations i "
	  "JOIN members m ON m.id = i.member_id WHERE i.token_hash = ? "
	  "FOR UPDATE" },
	{ "invitation_use",
	    "UPDATE invitations SET used_at = NOW(6) WHERE id = ?" },
	{ "apikey_list",
	  "SELECT " DB_SELECT(APIKEY_COLS) " FROM api_keys k WHERE k.tenant_id "
	  "= ? AND k.id < ? ORDER BY k.id DESC LIMIT ?" },
	{ "apikey_get",
	  "SELECT " DB_SELECT(APIKEY_COLS) " FROM api_keys k WHERE k.tenant_id "
	  "= ? AND k.id = ?" },
	{ "apikey_name", "UPDATE api_keys SET name = ? WHERE id = ?" },
	{ "apikey_used",
	  "UPDATE api_keys SET last_used_at = NOW(6) WHERE id = ? AND "
	  "(last_used_at IS NULL OR last_used_at < NOW(6) - INTERVAL 60 "
	  "SECOND)" },
	{ "apikey_of_member",
	  "SELECT " DB_SELECT(APIKEY_COLS) " FROM api_keys k WHERE "
	  "k.tenant_id = ? AND k.member_id = ? AND k.revoked_at IS NULL "
	  "ORDER BY k.id FOR UPDATE" },
	{ "apikey_scopes", "UPDATE api_keys SET scopes = ? WHERE id = ?" },
	{ "audit_list",
	  "SELECT " DB_SELECT(AUDIT_COLS) " FROM audit_log WHERE tenant_id = ? "
	  "AND id < ? ORDER BY id DESC LIMIT ?" },
	{ "purge_sessions",
	  "DELETE FROM sessions WHERE expires_at < NOW(6) - INTERVAL 30 DAY "
	  "LIMIT 10000" },
	{ "purge_invitations",
	  "DELETE FROM invitations WHERE expires_at < NOW(6) - INTERVAL 30 DAY "
	  "LIMIT 10000" },
	{ "purge_throttle",
	  "DELETE FROM signin_throttle WHERE last_failure_at < NOW(6) - "
	  "INTERVAL 1 DAY AND (blocked_until IS NULL OR blocked_until < "
	  "NOW(6)) LIMIT 10000" },
};

#define COLS(name, COLSET) \
	static const struct dbcol name[] = { DB_COLUMNS(COLSET) }
#define DB_ROW struct signin_row
COLS(signin_cols, SIGNIN_COLS);
#undef DB_ROW
#define DB_ROW struct session_auth_row
COLS(session_cols, SESSION_AUTH_COLS);
#undef DB_ROW
#define DB_ROW struct member_tenant_row
COLS(member_tenant_cols, MEMBER_TENANT_COLS);
#undef DB_ROW
#define DB_ROW struct member_row
COLS(member_cols, MEMBER_COLS);
#undef DB_ROW
#define DB_ROW struct invite_send_row
COLS(invite_send_cols, INVITE_SEND_COLS);
#undef DB_ROW
#define DB_ROW struct invite_row
COLS(invite_cols, INVITE_COLS);
#undef DB_ROW
#define DB_ROW struct apikey_row
COLS(apikey_cols, APIKEY_COLS);
#undef DB_ROW
#define DB_ROW struct audit_row
COLS(audit_cols, AUDIT_COLS);
#undef DB_ROW
#undef COLS

static enum fb_err
run(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	return db_run(db, DBSET_MEMBER, id, &mb_sql[id], p, n, r);
}

static enum fb_err
rows(struct db *db, int id, const struct dbp *p, size_t n,
    const struct dbcol *cols,
    size_t ncols, size_t rowsize, bool one, struct dbrows *out)
{
	return db_rows(db, DBSET_MEMBER, id, &mb_sql[id], p, n, cols, ncols,
	    rowsize, one, out);
}

static enum fb_err
value(struct db *db, int id, const struct dbp *p, size_t n, long long *v)
{
	bool	 found;

	return db_value(db, DBSET_MEMBER, id, &mb_sql[id], p, n, v, &found);
}

#define H(p)	P_BIN(p, SECRET_HASH_LEN)

enum fb_err
db_signin_members(struct db *db, const char *email, const char *tenant,
    struct dbrows *out)
{
	return rows(db, MB_SIGNIN, DBPARAMS(P_STR(email), P_STR(tenant),
	    P_STR(tenant)), signin_cols, NELEM(signin_cols),
	    sizeof(struct signin_row), false, out);
}

enum fb_err
db_throttle_wait(struct db *db, const unsigned char *account,
    const unsigned char *address, long long *wait)
{
	return value(db, MB_THROTTLE_WAIT, DBPARAMS(H(account), H(address)),
	    wait);
}

enum fb_err
db_throttle_fail(struct db *db, const unsigned char *hash, int free)
{
	return run(db, MB_THROTTLE_FAIL, DBPARAMS(H(hash), P_INT(free),
	    P_INT(free), P_INT(free)), NULL);
}

enum fb_err
db_throttle_clear(struct db *db, const unsigned char *hash)
{
	return run(db, MB_THROTTLE_CLEAR, DBPARAMS(H(hash)), NULL);
}

enum fb_err
db_session_lookup(struct db *db, const unsigned char *hash, int idle,
    struct dbrows *out)
{
	return rows(db, MB_SESSION_LOOKUP, DBPARAMS(P_INT(idle), H(hash)),
	    session_cols, NELEM(session_cols), sizeof(struct session_auth_row),
	    true, out);
}

enum fb_err
db_member_tenants(struct db *db, const char *email, const char *tenant,
    struct dbrows *out)
{
	return rows(db, MB_MEMBER_TENANTS,
	    DBPARAMS(P_STR(email), P_STR(tenant)),
	    member_tenant_cols, NELEM(member_tenant_cols),
	    sizeof(struct member_tenant_row), false, out);
}

enum fb_err
db_session_create(struct db *db, const char *id, const char *tenant,
    const char *member, const unsigned char *hash, const char *client_addr,
    int max_seconds)
{
	return run(db, MB_SESSION_CREATE, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(member), H(hash), P_STR(client_addr),
	    P_INT(max_seconds)), NULL);
}

enum fb_err
db_session_touch(struct db *db, const char *id)
{
	return run(db, MB_SESSION_TOUCH, DBPARAMS(P_STR(id)), NULL);
}

enum fb_err
db_session_end(struct db *db, const char *id)
{
	return run(db, MB_SESSION_END, DBPARAMS(P_STR(id)), NULL);
}

enum fb_err
db_member_sessions_end(struct db *db, const char *member, const char *keep)
{
	return run(db, MB_SESSIONS_END, DBPARAMS(P_STR(member), P_STR(keep),
	    P_STR(keep)), NULL);
}

enum fb_err
db_member_list(struct db *db, const char *tenant, const char *before, int n,
    struct dbrows *out)
{
	return rows(db, MB_LIST, DBPARAMS(P_STR(tenant),
	    P_STR(before != NULL ? before : DB_MAX_ID), P_INT(n)), member_cols,
	    NELEM(member_cols), sizeof(struct member_row), false, out);
}

enum fb_err
db_member_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, MB_GET, DBPARAMS(P_STR(tenant), P_STR(id)), member_cols,
	    NELEM(member_cols), sizeof(struct member_row), true, out);
}

enum fb_err
db_member_by_email(struct db *db, const char *tenant, const char *email,
    struct dbrows *out)
{
	return rows(db, MB_BY_EMAIL, DBPARAMS(P_STR(tenant), P_STR(email)),
	    member_cols, NELEM(member_cols), sizeof(struct member_row),
	    true, out);
}

enum fb_err
db_member_set_role(struct db *db, const char *tenant, const char *id,
    const char *role)
{
	return run(db, MB_SET_ROLE, DBPARAMS(P_STR(role), P_STR(tenant),
	    P_STR(id)), NULL);
}

enum fb_err
db_member_set_password(struct db *db, const char *id, const char *hash)
{
	unsigned long long n;
	enum fb_err	 e;

	if ((e = db_changed(db, DBSET_MEMBER, MB_SET_PASSWORD,
	    &mb_sql[MB_SET_PASSWORD], DBPARAMS(P_STR(hash),
	    P_STR(id)), &n)) != FB_OK)
		return e;
	return n == 0 ? FB_ENOTFOUND : FB_OK;
}

enum fb_err
db_owners_locked(struct db *db, const char *tenant, long long *n)
{
	struct dbres	 r;
	enum fb_err	 e;

	if ((e = run(db, MB_OWNERS, DBPARAMS(P_STR(tenant), P_STR(tenant)),
	    &r)) != FB_OK)
		return e;
	*n = r.nrows > 0 ? dbres_int(&r, 0, 1) : 0;
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_invitation_add(struct db *db, const char *id, const char *tenant,
    const char *member, const char *purpose, int seconds)
{
	enum fb_err	 e;

	if ((e = run(db, MB_INV_EXPIRE, DBPARAMS(P_STR(member)),
	    NULL)) != FB_OK)
		return e;
	return run(db, MB_INV_ADD, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(member), P_STR(purpose), P_INT(seconds)), NULL);
}

enum fb_err
db_invitation_recent(struct db *db, const char *member, const char *purpose,
    bool *recent)
{
	long long	 n = 0;
	enum fb_err	 e;

	e = value(db, MB_INV_RECENT, DBPARAMS(P_STR(member), P_STR(purpose)),
	    &n);
	*recent = n > 0;
	return e;
}

enum fb_err
db_invitation_claim(struct db *db, struct dbrows *out)
{
	return rows(db, MB_INV_CLAIM, DBNOPARAMS, invite_send_cols,
	    NELEM(invite_send_cols), sizeof(struct invite_send_row),
	    false, out);
}

enum fb_err
db_invitation_sent(struct db *db, const char *id, const unsigned char *hash)
{
	return run(db, MB_INV_SENT, DBPARAMS(H(hash), P_STR(id)), NULL);
}

enum fb_err
db_invitation_by_token(struct db *db, const unsigned char *hash,
    struct dbrows *out)
{
	return rows(db, MB_INV_TOKEN, DBPARAMS(H(hash)), invite_cols,
	    NELEM(invite_cols), sizeof(struct invite_row), true, out);
}

enum fb_err
db_invitation_use(struct db *db, const char *id)
{
	return run(db, MB_INV_USE, DBPARAMS(P_STR(id)), NULL);
}

enum fb_err
db_apikey_list(struct db *db, const char *tenant, const char *before, int n,
    struct dbrows *out)
{
	return rows(db, MB_KEY_LIST, DBPARAMS(P_STR(tenant),
	    P_STR(before != NULL ? before : DB_MAX_ID), P_INT(n)), apikey_cols,
	    NELEM(apikey_cols), sizeof(struct apikey_row), false, out);
}

enum fb_err
db_apikey_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, MB_KEY_GET, DBPARAMS(P_STR(tenant), P_STR(id)),
	    apikey_cols, NELEM(apikey_cols), sizeof(struct apikey_row),
	    true, out);
}

enum fb_err
db_apikey_name(struct db *db, const char *id, const char *name)
{
	return run(db, MB_KEY_NAME, DBPARAMS(P_STR(name), P_STR(id)), NULL);
}

enum fb_err
db_apikey_used(struct db *db, const char *id)
{
	return run(db, MB_KEY_USED, DBPARAMS(P_STR(id)), NULL);
}

enum fb_err
db_apikey_of_member(struct db *db, const char *tenant, const char *member,
    struct dbrows *out)
{
	return rows(db, MB_KEY_OF_MEMBER, DBPARAMS(P_STR(tenant),
	    P_STR(member)), apikey_cols, NELEM(apikey_cols),
	    sizeof(struct apikey_row), false, out);
}

enum fb_err
db_apikey_scopes(struct db *db, const char *id, const char *scopes)
{
	return run(db, MB_KEY_SCOPES, DBPARAMS(P_STR(scopes), P_STR(id)), NULL);
}

enum fb_err
db_audit_list(struct db *db, const char *tenant, const char *before, int n,
    struct dbrows *out)
{
	return rows(db, MB_AUDIT_LIST, DBPARAMS(P_STR(tenant),
	    P_STR(before != NULL ? before : DB_MAX_ID), P_INT(n)), audit_cols,
	    NELEM(audit_cols), sizeof(struct audit_row), false, out);
}

enum fb_err
db_member_purge(struct db *db)
{
	enum fb_err	 e;

	if ((e = run(db, MB_PURGE_SESSIONS, DBNOPARAMS, NULL)) == FB_OK &&
	    (e = run(db, MB_PURGE_INVITATIONS, DBNOPARAMS, NULL)) == FB_OK)
		e = run(db, MB_PURGE_THROTTLE, DBNOPARAMS, NULL);
	if (e == FB_OK)
		e = db_challenge_purge(db);
	return e;
}
