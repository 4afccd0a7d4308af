/*
 * The admin API (issue 16; outside the public contract, Conventions 6):
 * sign-in and sign-out, one-time links for a first password or a reset,
 * members, API keys and the audit log.  Which role may call what is in
 * the route table (ROLE_ADMIN, ROLE_OWNER, R_SESSION); the session
 * itself is checked by the dispatcher (dispatch.c).  Passwords, tokens
 * and keys are never logged, audited or answered twice.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../api.h"
#include "../ops/apikey.h"
#include "../ops/member.h"
#include "../rowjson.h"
#include "../session.h"
#include "../totp.h"
#include "../db/store.h"

static enum fb_err
member_answer(struct req *r, const char *tenant, const char *id, int status)
{
	struct dbrows	 m;
	enum fb_err	 e;

	if ((e = db_member_get(r->db, tenant, id, &m)) != FB_OK)
		return e;
	e = req_row(r, status, member_json, m.row);
	dbrows_free(&m);
	return e;
}

/* The other tenants where the member's address is an active member. */
static void
session_tenants(struct jgen *j, const struct dbrows *t)
{
	const struct member_tenant_row *o = t->row;
	size_t		 i;

	jg_arr(j, "tenants");
	for (i = 0; i < t->n; i++) {
		jg_obj(j, NULL);
		jg_str(j, "id", o[i].id);
		jg_str(j, "name", o[i].name);
		jg_str(j, "role", o[i].role);
		jg_obj_end(j);
	}
	jg_arr_end(j);
}

/*
 * The session's answer (sign-in, GET): who is signed in, in which tenant
 * and which others the address may sign in to (the admin UI's switcher;
 * issue 42), the CSRF token unsafe requests must send, when the session
 * ends at the latest, and the member's second factor.
 */
static enum fb_err
session_answer(struct req *r, const char *token, int status)
{
	unsigned char	 hash[SECRET_HASH_LEN];
	char		 csrf[CSRF_TOKEN_LEN + 1];
	struct dbrows	 s, t;
	const struct session_auth_row *a;
	struct jgen	 j;
	enum fb_err	 e;

	secret_hash(token, hash);
	if ((e = db_session_lookup(r->db, hash, SESSION_IDLE_SECONDS,
	    &s)) != FB_OK)
		return e;
	a = s.row;
	if ((e = db_member_tenants(r->db, a->email, a->tenant_id,
	    &t)) != FB_OK) {
		dbrows_free(&s);
		return e;
	}
	session_csrf(token, csrf);
	req_gen_begin(r, &j);
	jg_str(&j, "id", a->id);
	jg_str(&j, "object", "session");
	jg_str(&j, "tenant_id", a->tenant_id);
	jg_obj(&j, "tenant");
	jg_str(&j, "id", a->tenant_id);
	jg_str(&j, "name", a->tenant_name);
	jg_obj_end(&j);
	session_tenants(&j, &t);
	dbrows_free(&t);
	jg_obj(&j, "member");
	jg_str(&j, "id", a->member_id);
	jg_str(&j, "email", a->email);
	jg_str(&j, "role", a->role);
	jg_obj_end(&j);
	/* enrol_only: the routes a member must enrol through (issue 43) */
	jg_obj(&j, "two_factor");
	jg_bool(&j, "enabled", a->totp);
	jg_bool(&j, "required", a->two_factor_required);
	jg_bool(&j, "enrol_only", a->two_factor_required && !a->totp);
	jg_obj_end(&j);
	jg_str(&j, "csrf_token", csrf);
	jg_time(&j, "expires_at", a->expires_at);
	jg_int(&j, "idle_timeout_seconds", SESSION_IDLE_SECONDS);
	dbrows_free(&s);
	return req_gen_end(r, &j, status);
}

/* A sign-in from a page of another origin is refused (login CSRF). */
static bool
foreign_page(struct req *r)
{
	if (r->origin == NULL || session_origin_ok(r->conf, r->origin))
		return false;
	(void)api_error(r, AC_SESSION_ORIGIN, "Origin");
	return true;
}

/* The tenants of a sign-in that the address and password open. */
struct signin_tenants {
	const struct signin_row	*m;
	const bool		*ok;
	size_t			 n;
};

static void
tenants_gen(struct jgen *j, const void *arg)
{
	const struct signin_tenants *st = arg;
	size_t		 i;

	jg_arr(j, "tenants");
	for (i = 0; i < st->n; i++) {
		if (!st->ok[i])
			continue;
		jg_obj(j, NULL);
		jg_str(j, "id", st->m[i].tenant_id);
		jg_str(j, "name", st->m[i].tenant_name);
		jg_obj_end(j);
	}
	jg_arr_end(j);
}

/* 409 tenant_required, with the tenants the address and password open. */
static enum fb_err
tenant_required(struct req *r, const struct signin_row *m, const bool *ok,
    size_t n)
{
	struct signin_tenants st = { m, ok, n };

	return api_error_with(r, AC_TENANT_REQUIRED, "tenant_id", tenants_gen,
	    &st);
}

static enum fb_err
signin_audit(struct db *db, const struct req *r, const char *tenant,
    const char *member, const char *action)
{
	char	 detail[128];

	snprintf(detail, sizeof(detail), "{\"client_addr\":\"%s\"}",
	    r->client_addr != NULL && strspn(r->client_addr,
	    "0123456789abcdefABCDEF.:") == strlen(r->client_addr) &&
	    strlen(r->client_addr) <= 45 ? r->client_addr : "");
	return db_audit_add(db, tenant, "session", member, r->request_id,
	    action, "member", member, detail);
}

/*
 * The sign-in completed (the password, and the second factor when the
 * member has one): a new session of member `member`, the account's
 * failures forgotten, audited, the session and device cookies set, and
 * the session's answer.
 */
static enum fb_err
session_start(struct req *r, const char *tenant, const char *member,
    const char *email, const unsigned char *acct)
{
	char		 token[TOKEN_LEN + 1], sid[UUID_STRLEN + 1];
	unsigned char	 hash[SECRET_HASH_LEN];
	enum fb_err	 e;

	token_generate("fbs_", token);
	secret_hash(token, hash);
	uuid_v7(sid);
	if ((e = db_session_create(r->db, sid, tenant, member, hash,
	    r->client_addr, SESSION_MAX_SECONDS)) != FB_OK ||
	    (e = db_throttle_clear(r->db, acct)) != FB_OK ||
	    (e = signin_audit(r->db, r, tenant, member, "signin")) != FB_OK) {
		sodium_memzero(token, sizeof(token));
		return e;
	}
	if ((e = session_cookie_set(r, token)) == FB_OK &&
	    (e = device_cookie_set(r, email)) == FB_OK)
		e = session_answer(r, token, 200);
	sodium_memzero(token, sizeof(token));
	return e;
}

/*
 * The password of a member with a second factor was right: no session
 * yet, but a challenge (totp.h: CHALLENGE_SECONDS, CHALLENGE_TRIES, used
 * once, only its hash kept) that POST /admin/session/two_factor takes
 * with a code.  The account's failures are not forgotten until then.
 */
static enum fb_err
challenge_start(struct req *r, const char *tenant, const char *member)
{
	char		 token[TOKEN_LEN + 1], id[UUID_STRLEN + 1];
	unsigned char	 hash[SECRET_HASH_LEN];
	struct jgen	 j;
	enum fb_err	 e;

	token_generate("fbc_", token);
	secret_hash(token, hash);
	uuid_v7(id);
	if ((e = db_challenge_add(r->db, id, tenant, member, hash,
	    CHALLENGE_SECONDS)) != FB_OK ||
	    (e = signin_audit(r->db, r, tenant, member,
	    "signin.password")) != FB_OK) {
		sodium_memzero(token, sizeof(token));
		return e;
	}
	req_gen_begin(r, &j);
	jg_str(&j, "object", "two_factor_challenge");
	jg_str(&j, "challenge_token", token);
	jg_int(&j, "expires_in_seconds", CHALLENGE_SECONDS);
	jg_arr(&j, "methods");
	jg_str(&j, NULL, "totp");
	jg_str(&j, NULL, "recovery_code");
	jg_arr_end(&j);
	sodium_memzero(token, sizeof(token));
	return req_gen_end(r, &j, 200);
}

/* The members the address and password open; their number into *n. */
static void
signin_check(const struct signin_row *m, size_t nm, const char *pw,
    bool *ok, size_t *n, size_t *hit)
{
	size_t	 i;

	*n = 0;
	for (i = 0; i < nm && i < 10; i++) {
		/* the Argon2id work first, whatever the status (issue 43) */
		ok[i] = password_verify(m[i].password_hash, pw);
		ok[i] = ok[i] && strcmp(m[i].status, "active") == 0;
		if (ok[i])
			*hit = i, (*n)++;
	}
	if (nm == 0)
		(void)password_verify(NULL, pw);
}

/*
 * POST /api/v1/admin/session: sign in.  Throttled per account (per
 * device cookie for a browser that signed in as the address before:
 * session.h) and per client address (db_throttle_fail()); a success
 * sets a new device cookie.  A wrong password, an unknown
 * address, a suspended member and one without a password all answer the
 * same 401 after the same Argon2id work.  A member with a second factor
 * gets a challenge instead of a session (challenge_start()).  Its route
 * keeps its refusals (R_KEEP): a failure is counted though the answer is
 * an error.
 */
enum fb_err
api_session_create(struct req *r)
{
	const char	*in, *pw, *tenant = NULL;
	char		 email[255];
	unsigned char	 acct[SECRET_HASH_LEN], addr[SECRET_HASH_LEN];
	struct dbrows	 ms;
	const struct signin_row *m;
	bool		 ok[10], held;
	size_t		 i, n = 0, hit = 0;
	enum fb_err	 e;

	if (foreign_page(r) || body_str(r, "email", true, 254, &in) < 0 ||
	    body_str(r, "password", true, PASSWORD_MAX_BYTES, &pw) < 0 ||
	    body_str(r, "tenant_id", false, UUID_STRLEN, &tenant) < 0)
		return FB_OK;
	if (tenant != NULL && !uuid_valid(tenant))
		return api_error(r, AC_PARAMETER_INVALID, "tenant_id");
	if (!member_email(in, email))
		snprintf(email, sizeof(email), "%s", "invalid");
	if ((e = db_ensure(r->db)) != FB_OK)
		return FB_EGONE;
	signin_subjects(r, email, acct, addr);
	if ((e = signin_wait(r, acct, addr, &held)) != FB_OK || held)
		return e;
	if ((e = db_signin_members(r->db, email, tenant, &ms)) != FB_OK)
		return e;
	m = ms.row;
	signin_check(m, ms.n, pw, ok, &n, &hit);
	if (n == 0) {
		e = signin_fail(r, acct, addr);
		for (i = 0; e == FB_OK && i < ms.n; i++)
			e = signin_audit(r->db, r, m[i].tenant_id, m[i].id,
			    "signin.failed");
		dbrows_free(&ms);
		if (ms.n == 0)
			logx(LOG_INFO, "sign-in failed: no such account");
		return e != FB_OK ? e : api_error(r, AC_SIGNIN_FAILED, NULL);
	}
	if (n > 1)
		e = tenant_required(r, m, ok, ms.n);
	else if (m[hit].totp)
		e = challenge_start(r, m[hit].tenant_id, m[hit].id);
	else
		e = session_start(r, m[hit].tenant_id, m[hit].id, email, acct);
	dbrows_free(&ms);
	return e;
}

/*
 * POST /api/v1/admin/session/two_factor: the sign-in's second step, the
 * challenge and a TOTP code or a recovery code (two_factor_check()).  A
 * wrong code counts against the same subjects as a wrong password
 * (signin_subjects()), and against the challenge (CHALLENGE_TRIES);
 * R_KEEP commits the count with the 401.  An unknown, used or expired
 * challenge is 401 two_factor_challenge_invalid.
 */
enum fb_err
api_session_two_factor(struct req *r)
{
	const char	*tok, *code = NULL, *rec = NULL;
	char		 tenant[UUID_STRLEN + 1], member[UUID_STRLEN + 1];
	char		 cid[UUID_STRLEN + 1], email[MEMBER_EMAIL_MAX + 1];
	unsigned char	 hash[SECRET_HASH_LEN], acct[SECRET_HASH_LEN];
	unsigned char	 addr[SECRET_HASH_LEN];
	struct dbrows	 ch;
	const struct challenge_row *c;
	bool		 usable, held, ok;
	enum fb_err	 e;

	if (foreign_page(r) ||
	    body_str(r, "challenge_token", true, TOKEN_LEN, &tok) < 0 ||
	    body_str(r, "code", false, 16, &code) < 0 ||
	    body_str(r, "recovery_code", false, 32, &rec) < 0)
		return FB_OK;
	if (code == NULL && rec == NULL)
		return api_error(r, AC_PARAMETER_MISSING, "code");
	if (code != NULL && rec != NULL)
		return api_error(r, AC_PARAMETER_INVALID, "recovery_code");
	if (!token_shape_ok(tok, "fbc_"))
		return api_error(r, AC_CHALLENGE_INVALID, "challenge_token");
	secret_hash(tok, hash);
	e = db_challenge_by_token(r->db, hash, &ch);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_CHALLENGE_INVALID, "challenge_token");
	if (e != FB_OK)
		return e;
	c = ch.row;
	usable = c->usable && strcmp(c->member_status, "active") == 0;
	snprintf(cid, sizeof(cid), "%s", c->id);
	snprintf(tenant, sizeof(tenant), "%s", c->tenant_id);
	snprintf(member, sizeof(member), "%s", c->member_id);
	snprintf(email, sizeof(email), "%s", c->email);
	dbrows_free(&ch);
	if (!usable)
		return api_error(r, AC_CHALLENGE_INVALID, "challenge_token");
	signin_subjects(r, email, acct, addr);
	if ((e = signin_wait(r, acct, addr, &held)) != FB_OK || held)
		return e;
	if ((e = two_factor_check(r, tenant, member, code, rec, &ok)) != FB_OK)
		return e;
	if (!ok) {
		if ((e = db_challenge_fail(r->db, cid,
		    CHALLENGE_TRIES)) == FB_OK &&
		    (e = signin_fail(r, acct, addr)) == FB_OK)
			e = signin_audit(r->db, r, tenant, member,
			    "signin.two_factor_failed");
		return e != FB_OK ? e : api_error(r, AC_TWO_FACTOR_FAILED,
		    code != NULL ? "code" : "recovery_code");
	}
	if ((e = db_challenge_use(r->db, cid)) != FB_OK ||
	    (rec != NULL && (e = signin_audit(r->db, r, tenant, member,
	    "recovery_code.used")) != FB_OK))
		return e;
	return session_start(r, tenant, member, email, acct);
}

/* GET /api/v1/admin/session: who is signed in, and the CSRF token. */
enum fb_err
api_session_get(struct req *r)
{
	return session_answer(r, r->auth.session_token, 200);
}

/* DELETE /api/v1/admin/session: sign out; the cookie is cleared. */
enum fb_err
api_session_delete(struct req *r)
{
	enum fb_err	 e;

	if ((e = db_session_end(r->db, r->auth.session_id)) != FB_OK)
		return e;
	r->audit_type = "member";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", r->auth.member_id);
	if ((e = session_cookie_set(r, NULL)) != FB_OK)
		return e;
	req_empty(r, 204);
	return FB_OK;
}

/*
 * POST /api/v1/admin/password_resets: a reset link for the active
 * members with this address, mailed by formback-deliver; one per member
 * every 5 minutes.  The answer is the same 202 whoever asks.
 */
enum fb_err
api_password_reset(struct req *r)
{
	const char	*in;
	char		 email[255], id[UUID_STRLEN + 1];
	struct dbrows	 ms;
	const struct signin_row *m;
	struct jgen	 j;
	bool		 recent;
	size_t		 i;
	enum fb_err	 e = FB_OK;

	if (foreign_page(r) || body_str(r, "email", true, 254, &in) < 0)
		return FB_OK;
	if (member_email(in, email)) {
		if ((e = db_signin_members(r->db, email, NULL, &ms)) != FB_OK)
			return e;
		for (i = 0, m = ms.row; e == FB_OK && i < ms.n; i++) {
			if (strcmp(m[i].status, "active") != 0)
				continue;
			if ((e = db_invitation_recent(r->db, m[i].id, "reset",
			    &recent)) != FB_OK || recent)
				continue;
			uuid_v7(id);
			e = db_invitation_add(r->db, id, m[i].tenant_id,
			    m[i].id,
			    "reset", RESET_SECONDS);
			if (e == FB_OK)
				e = db_audit_add(r->db, m[i].tenant_id,
				    "system", NULL, r->request_id,
				    "password_reset.requested", "member",
				    m[i].id, NULL);
		}
		dbrows_free(&ms);
		if (e != FB_OK)
			return e;
	}
	req_gen_begin(r, &j);
	jg_str(&j, "object", "password_reset");
	jg_str(&j, "status", "accepted");
	return req_gen_end(r, &j, 202);
}

/*
 * POST /api/v1/admin/invitations/accept: the one-time link's token and
 * the member's new password.  The link is used up, the member's other
 * sessions end; the member then signs in.
 */
enum fb_err
api_invitation_accept(struct req *r)
{
	const char	*token, *pw;
	char		 ph[PASSWORD_HASH_MAX], tenant[UUID_STRLEN + 1];
	char		 member[UUID_STRLEN + 1];
	unsigned char	 hash[SECRET_HASH_LEN];
	struct dbrows	 iv;
	const struct invite_row *i;
	bool		 usable, weak;
	char		 action[32];
	enum fb_err	 e;

	if (foreign_page(r) ||
	    body_str(r, "token", true, TOKEN_LEN, &token) < 0 ||
	    body_str(r, "password", true, PASSWORD_MAX_BYTES, &pw) < 0)
		return FB_OK;
	if (!token_shape_ok(token, "fbi_"))
		return api_error(r, AC_INVITATION_INVALID, "token");
	secret_hash(token, hash);
	e = db_invitation_by_token(r->db, hash, &iv);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_INVITATION_INVALID, "token");
	if (e != FB_OK)
		return e;
	i = iv.row;
	usable = i->usable && strcmp(i->member_status, "active") == 0;
	weak = !password_acceptable(pw, i->email);
	snprintf(tenant, sizeof(tenant), "%s", i->tenant_id);
	snprintf(member, sizeof(member), "%s", i->member_id);
	snprintf(action, sizeof(action), "%s.accepted", strcmp(i->purpose,
	    "invite") == 0 ? "invitation" : "password_reset");
	if (!usable) {
		dbrows_free(&iv);
		return api_error(r, AC_INVITATION_INVALID, "token");
	}
	if (weak) {
		dbrows_free(&iv);
		return api_error(r, AC_PASSWORD_TOO_WEAK, "password");
	}
	e = db_invitation_use(r->db, i->id);
	dbrows_free(&iv);
	if (e != FB_OK || (e = password_hash(pw, ph)) != FB_OK ||
	    (e = db_member_set_password(r->db, member, ph)) != FB_OK ||
	    (e = db_member_sessions_end(r->db, member, NULL)) != FB_OK ||
	    (e = db_audit_add(r->db, tenant, "session", member, r->request_id,
	    action, "member", member, NULL)) != FB_OK)
		return e;
	return member_answer(r, tenant, member, 200);
}

/* GET /api/v1/admin/members */
enum fb_err
api_members_list(struct req *r)
{
	struct page	 pg;
	struct dbrows	 rows;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	if ((e = db_member_list(r->db, r->auth.tenant_id,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct member_row),
	    offsetof(struct member_row, id), member_json, NULL);
}

static const char *const member_roles[] = { "owner", "admin", "member",
	"viewer", NULL };

/*
 * POST /api/v1/admin/members: invite a member by address (owners only):
 * the member is created without a password and mailed a link.  An
 * address the tenant has, not deleted: 409 member_exists.
 */
enum fb_err
api_members_invite(struct req *r)
{
	const char	*in, *role = "member";
	char		 email[255], id[UUID_STRLEN + 1];
	struct dbrows	 m;
	enum fb_err	 e;

	if (body_str(r, "email", true, 254, &in) < 0 ||
	    body_str(r, "role", false, 16, &role) < 0)
		return FB_OK;
	if (role == NULL)
		role = "member";
	if (!member_email(in, email))
		return api_error(r, AC_PARAMETER_INVALID, "email");
	if (!one_of(role, member_roles))
		return api_error(r, AC_PARAMETER_INVALID, "role");
	e = db_member_by_email(r->db, r->auth.tenant_id, email, &m);
	if (e == FB_OK) {
		dbrows_free(&m);
		return api_error(r, AC_MEMBER_EXISTS, "email");
	}
	if (e != FB_ENOTFOUND)
		return e;
	if ((e = member_create(r->db, r->auth.tenant_id, email, role,
	    id)) != FB_OK)
		return e == FB_EDUP ? api_error(r, AC_MEMBER_EXISTS,
		    "email") : e;
	if ((e = member_invite(r->db, r->auth.tenant_id, id)) != FB_OK)
		return e;
	r->audit_type = "member";
	memcpy(r->audit_id, id, sizeof(id));
	return member_answer(r, r->auth.tenant_id, id, 201);
}

/*
 * PATCH /api/v1/admin/members/{member_id}: role and status (owners
 * only).  The tenant keeps an active owner: the last one cannot be
 * demoted, suspended or deleted (409 last_owner, counted under the
 * tenant's row lock).  Suspending or deleting ends the member's sessions
 * and stops the keys the member issued (contract: Authentication 5); a
 * new role narrows them to what it may do (apikey_follow_role()).
 */
enum fb_err
api_members_update(struct req *r)
{
	static const char *const statuses[] = { "active", "suspended",
	    "deleted",
	    NULL };
	const char	*id = req_pathvar(r,
	    "member_id"), *role = NULL, *status = NULL;
	char		 tenant[UUID_STRLEN + 1], was_role[16], was_status[16];
	struct dbrows	 m;
	const struct member_row *row;
	long long	 owners;
	struct key_changes keys;
	bool		 leaves;
	enum fb_err	 e;

	if (body_str(r, "role", false, 16, &role) < 0 ||
	    body_str(r, "status", false, 16, &status) < 0)
		return FB_OK;
	if (role != NULL && !one_of(role, member_roles))
		return api_error(r, AC_PARAMETER_INVALID, "role");
	if (status != NULL && !one_of(status, statuses))
		return api_error(r, AC_PARAMETER_INVALID, "status");
	e = db_member_get(r->db, r->auth.tenant_id, id, &m);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "member_id");
	if (e != FB_OK)
		return e;
	row = m.row;
	snprintf(was_role, sizeof(was_role), "%s", row->role);
	snprintf(was_status, sizeof(was_status), "%s", row->status);
	dbrows_free(&m);
	if (strcmp(was_status, "deleted") == 0)
		return api_error(r, AC_NOT_FOUND, "member_id");
	leaves = strcmp(was_role, "owner") == 0 && strcmp(was_status,
	    "active") == 0 &&
	    ((role != NULL && strcmp(role, "owner") != 0) ||
	    (status != NULL && strcmp(status, "active") != 0));
	if (leaves) {
		if ((e = db_owners_locked(r->db, r->auth.tenant_id,
		    &owners)) != FB_OK)
			return e;
		if (owners <= 1)
			return api_error(r, AC_LAST_OWNER, role != NULL &&
			    strcmp(role, "owner") != 0 ? "role" : "status");
	}
	if (role != NULL && ((e = db_member_set_role(r->db, r->auth.tenant_id,
	    id, role)) != FB_OK || (e = apikey_follow_role(r->db,
	    r->auth.tenant_id, id, role, &keys)) != FB_OK))
		return e;
	if (status != NULL && strcmp(status, was_status) != 0) {
		if ((e = db_member_set_status(r->db, id, status,
		    tenant)) != FB_OK)
			return e;
		if (strcmp(status, "active") != 0 &&
		    (e = db_member_sessions_end(r->db, id, NULL)) != FB_OK)
			return e;
	}
	/* keys and cached look-ups follow the member's new standing */
	if ((role != NULL || status != NULL) &&
	    (e = db_auth_epoch_bump(r->db, r->auth.tenant_id)) != FB_OK)
		return e;
	r->audit_type = "member";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	return member_answer(r, r->auth.tenant_id, id, 200);
}

/* The writer of an API key: never the key or its hash. */
static void
apikey_gen(struct jgen *j, const void *row)
{
	const struct apikey_row *k = row;
	const char	*p, *c;

	jg_str(j, "id", k->id);
	jg_str(j, "object", "api_key");
	jg_str(j, "name", k->name);
	jg_str(j, "kind", k->kind);
	jg_str(j, "prefix", k->prefix);
	/* stored as a comma-separated SET */
	jg_arr(j, "scopes");
	for (p = k->scopes; p != NULL && *p != '\0';
	    p = *c != '\0' ? c + 1 : c) {
		c = p + strcspn(p, ",");
		jg_text(j, NULL, p, (size_t)(c - p));
	}
	jg_arr_end(j);
	jg_str(j, "member_id", k->member_id);
	jg_str(j, "status", k->revoked_at != NULL ? "revoked" : "active");
	jg_time(j, "last_used_at", k->last_used_at);
	jg_time(j, "revoked_at", k->revoked_at);
	jg_time(j, "created_at", k->created_at);
}

/* GET /api/v1/admin/api_keys: prefix, scopes and last use; never the key. */
enum fb_err
api_keys_list(struct req *r)
{
	struct page	 pg;
	struct dbrows	 rows;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	if ((e = db_apikey_list(r->db, r->auth.tenant_id,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct apikey_row),
	    offsetof(struct apikey_row, id), apikey_gen, NULL);
}

/* The scopes of the body: "all" or an array of the contract's names. */
static int
scopes_from_body(struct req *r, uint32_t *bits)
{
	json_object	*v, *s;
	uint32_t	 one;
	size_t		 i;

	*bits = 0;
	if (!json_object_object_get_ex(r->json, "scopes", &v) || v == NULL) {
		(void)api_error(r, AC_PARAMETER_MISSING, "scopes");
		return -1;
	}
	if (json_object_is_type(v, json_type_string) &&
	    strcmp(json_object_get_string(v), "all") == 0) {
		*bits = SCOPES_ALL;
		return 0;
	}
	if (!json_object_is_type(v, json_type_array) ||
	    json_object_array_length(v) == 0 ||
	    json_object_array_length(v) > SCOPE__MAX) {
		(void)api_error(r, AC_PARAMETER_INVALID, "scopes");
		return -1;
	}
	for (i = 0; i < json_object_array_length(v); i++) {
		s = json_object_array_get_idx(v, i);
		if (!json_object_is_type(s, json_type_string) ||
		    strcmp(json_object_get_string(s), "all") == 0 ||
		    !scope_parse(json_object_get_string(s), &one)) {
			(void)api_error(r, AC_PARAMETER_INVALID, "scopes");
			return -1;
		}
		*bits |= one;
	}
	return 0;
}

/*
 * POST /api/v1/admin/api_keys: a key issued by the signed-in owner or
 * admin (contract: Authentication 4), shown once: an idempotent replay
 * answers "key": null (Idempotency 6).
 */
enum fb_err
api_keys_create(struct req *r)
{
	const char	*kind = "live", *name = NULL;
	char		 id[UUID_STRLEN + 1], key[APIKEY_MAX_LEN + 1];
	uint32_t	 bits;
	struct dbrows	 k;
	struct jgen	 j;
	enum fb_err	 e;

	if (body_str(r, "kind", false, 8, &kind) < 0 ||
	    body_line(r, "name", false, 100, &name) < 0 || scopes_from_body(r,
	    &bits) < 0)
		return FB_OK;
	if (kind == NULL)
		kind = "live";
	if (strcmp(kind, "live") != 0 && strcmp(kind, "test") != 0)
		return api_error(r, AC_PARAMETER_INVALID, "kind");
	if ((e = apikey_issue(r->db, r->auth.tenant_id, r->auth.member_id,
	    strcmp(kind, "test") == 0, bits, id, key)) != FB_OK)
		return e;
	if ((name != NULL && (e = db_apikey_name(r->db, id, name)) != FB_OK) ||
	    (e = db_apikey_get(r->db, r->auth.tenant_id, id, &k)) != FB_OK) {
		sodium_memzero(key, sizeof(key));
		return e;
	}
	r->audit_type = "api_key";
	memcpy(r->audit_id, id, sizeof(id));
	req_gen_begin(r, &j);
	apikey_gen(&j, k.row);
	jg_str(&j, "key", NULL);
	if ((e = req_gen_end(r, &j, 201)) == FB_OK)
		e = req_keep_for_replay(r);
	if (e == FB_OK) {
		req_gen_begin(r, &j);
		apikey_gen(&j, k.row);
		jg_str(&j, "key", key);
		e = req_gen_end(r, &j, 201);
	}
	sodium_memzero(key, sizeof(key));
	dbrows_free(&k);
	return e;
}

/* DELETE /api/v1/admin/api_keys/{key_id}: revoked at once on every host. */
enum fb_err
api_keys_revoke(struct req *r)
{
	const char	*id = req_pathvar(r, "key_id");
	char		 tenant[UUID_STRLEN + 1];
	struct dbrows	 k;
	enum fb_err	 e;

	e = db_apikey_get(r->db, r->auth.tenant_id, id, &k);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "key_id");
	if (e != FB_OK)
		return e;
	dbrows_free(&k);
	if ((e = apikey_revoke(r->db, id, tenant)) != FB_OK)
		return e;
	r->audit_type = "api_key";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	req_empty(r, 204);
	return FB_OK;
}

/* GET /api/v1/admin/audit_log: newest first. */
enum fb_err
api_audit_list(struct req *r)
{
	struct page	 pg;
	struct dbrows	 rows;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	if ((e = db_audit_list(r->db, r->auth.tenant_id,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct audit_row),
	    offsetof(struct audit_row, id), audit_json, NULL);
}
