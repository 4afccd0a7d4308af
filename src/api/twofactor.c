/*
 * A member's second factor (issue 43, item 4; outside the contract,
 * Conventions 6): TOTP enrolment begun, confirmed with a first code (then
 * 10 recovery codes, shown once), disabled with the password or a code,
 * new recovery codes; the tenant's requirement, which an owner sets.
 * Session only (R_SESSION); the routes a member who must enrol first may
 * reach carry R_ENROL.  The secret is sealed like a contact (pii.h) and
 * leaves the server once, in the answer that begins the enrolment; an
 * idempotent replay answers it null (contract: Idempotency 6).  The
 * sign-in's second step is api_session_two_factor() (admin.c).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../api.h"
#include "../ops/member.h"
#include "../pii.h"
#include "../session.h"
#include "../totp.h"
#include "../db/store.h"

#define SECRET_FIELD	"totp_secret"	/* the sealed secret's field (AD) */
#define CODE_FIELD	"recovery_code"	/* a sealed recovery code's (AD) */

_Static_assert(PII_SEALED_MAX(RECOVERY_CODE_CHARS) <=
    sizeof(((struct recovery_code_in *)0)->sealed), "code_sealed's size");

/*
 * The key of a sealed secret (its base32 opened, decoded) into key;
 * FB_ECRYPTO when no key of the configuration opens it.
 */
static enum fb_err
totp_key(const struct req *r, const char *tenant, const char *member,
    const struct totp_row *t, unsigned char key[TOTP_SECRET_BYTES])
{
	char		 b32[TOTP_SECRET_B32_LEN + 1];
	long		 n = -1;

	if (pii_open_any(r->conf, t->secret_key_id, tenant, member,
	    SECRET_FIELD, t->secret_sealed.p, t->secret_sealed.n, b32,
	    sizeof(b32), NULL))
		n = base32_decode(b32, key, TOTP_SECRET_BYTES);
	sodium_memzero(b32, sizeof(b32));
	if (n != TOTP_SECRET_BYTES) {
		logx(LOG_ERR, "member '%s': the TOTP secret does not open",
		    member);
		return FB_ECRYPTO;
	}
	return FB_OK;
}

/*
 * Use the member's recovery code `norm` (normalised) if it is one of the
 * unused: each opened (pii_open_any()) and compared in constant time.
 * Errors: the database's.
 */
static enum fb_err
recovery_code_use(struct req *r, const char *tenant, const char *member,
    const char *norm, bool *ok)
{
	const struct recovery_code_row *c;
	struct dbrows	 rows;
	char		 plain[RECOVERY_CODE_CHARS + 1];
	const char	*hit = NULL;
	size_t		 i;
	enum fb_err	 e;

	*ok = false;
	if ((e = db_recovery_codes(r->db, tenant, member, &rows)) != FB_OK)
		return e;
	for (i = 0, c = rows.row; i < rows.n; i++) {
		if (pii_open_any(r->conf, c[i].code_key_id, tenant, c[i].id,
		    CODE_FIELD, c[i].code_sealed.p, c[i].code_sealed.n, plain,
		    sizeof(plain), NULL) && strlen(plain) == strlen(norm) &&
		    sodium_memcmp(plain, norm, strlen(norm)) == 0)
			hit = c[i].id;
	}
	sodium_memzero(plain, sizeof(plain));
	if (hit != NULL)
		e = db_recovery_code_use(r->db, tenant, hit, ok);
	dbrows_free(&rows);
	return e;
}

enum fb_err
two_factor_check(struct req *r, const char *tenant, const char *member,
    const char *code, const char *recovery, bool *ok)
{
	struct dbrows	 t;
	const struct totp_row *row = NULL;
	unsigned char	 key[TOTP_SECRET_BYTES];
	char		 norm[RECOVERY_CODE_CHARS + 1];
	int64_t		 step;
	bool		 hit, found;
	enum fb_err	 e;

	*ok = false;
	memset(key, 0, sizeof(key));
	e = db_totp_get(r->db, tenant, member, &t);
	if (e != FB_OK && e != FB_ENOTFOUND)
		return e;
	found = e == FB_OK;
	if (found && ((const struct totp_row *)t.row)->enabled)
		row = t.row;
	e = FB_OK;
	if (row != NULL && (e = totp_key(r, tenant, member, row, key)) != FB_OK)
		goto out;
	/* the same work for a member without TOTP: a key of zeros */
	if (code != NULL) {
		hit = totp_check(key, sizeof(key), code, (int64_t)time(NULL),
		    row != NULL ? row->last_step : -1, &step);
		if (hit && row != NULL)
			e = db_totp_step(r->db, tenant, member, step, ok);
	} else if (recovery != NULL) {
		if (recovery_code_norm(recovery, norm) && row != NULL)
			e = recovery_code_use(r, tenant, member, norm, ok);
		sodium_memzero(norm, sizeof(norm));
	}
out:
	sodium_memzero(key, sizeof(key));
	if (found)
		dbrows_free(&t);
	return e;
}

/* TotpOut: the member's TOTP (row NULL: none), the tenant's rule. */
static void
totp_gen(struct jgen *j, const struct totp_row *t, bool required)
{
	jg_str(j, "object", "totp");
	jg_str(j, "status", t == NULL ? "disabled" : t->enabled ? "enabled" :
	    "pending");
	jg_time(j, "enabled_at", t != NULL ? t->enabled_at : NULL);
	jg_int(j, "recovery_codes_left", t != NULL && t->enabled ?
	    t->recovery_codes_left : 0);
	jg_bool(j, "required", required);
}

/* Is a second factor required of the tenant's members? */
static enum fb_err
tenant_requires(struct req *r, bool *required)
{
	struct dbrows	 p;
	enum fb_err	 e;

	*required = false;
	if ((e = db_two_factor_policy(r->db, r->auth.tenant_id, &p)) != FB_OK)
		return e;
	*required = ((const struct two_factor_policy_row *)p.row)->
	    two_factor_required;
	dbrows_free(&p);
	return FB_OK;
}

/*
 * The member's TOTP as TotpOut, with the recovery codes `codes` (n of
 * them; NULL: none) when given: then a replay answers them null.
 */
static enum fb_err
totp_answer(struct req *r, int status, char (*codes)[RECOVERY_CODE_LEN + 1],
    size_t n)
{
	struct dbrows	 t;
	const struct totp_row *row = NULL;
	struct jgen	 j;
	bool		 required;
	size_t		 i;
	enum fb_err	 e;

	if ((e = tenant_requires(r, &required)) != FB_OK)
		return e;
	e = db_totp_get(r->db, r->auth.tenant_id, r->auth.member_id, &t);
	if (e == FB_OK)
		row = t.row;
	else if (e != FB_ENOTFOUND)
		return e;
	req_gen_begin(r, &j);
	totp_gen(&j, row, required);
	if (codes != NULL) {
		jg_str(&j, "recovery_codes", NULL);
		if ((e = req_gen_end(r, &j, status)) != FB_OK ||
		    (e = req_keep_for_replay(r)) != FB_OK)
			goto out;
		req_gen_begin(r, &j);
		totp_gen(&j, row, required);
		jg_arr(&j, "recovery_codes");
		for (i = 0; i < n; i++)
			jg_str(&j, NULL, codes[i]);
		jg_arr_end(&j);
	}
	e = req_gen_end(r, &j, status);
out:
	if (row != NULL)
		dbrows_free(&t);
	return e;
}

/* GET /api/v1/admin/me/totp: the member's own second factor. */
enum fb_err
api_totp_get(struct req *r)
{
	return totp_answer(r, 200, NULL, 0);
}

/* The audit row's target: the member's own record. */
static void
audit_self(struct req *r)
{
	r->audit_type = "member";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", r->auth.member_id);
}

/*
 * POST /api/v1/admin/me/totp: begin (or begin again) the enrolment: a
 * new secret, sealed, pending until confirmed; answered once as base32
 * and as an otpauth:// URI.  409 totp_already_enabled when active.
 */
enum fb_err
api_totp_begin(struct req *r)
{
	const char	*tenant = r->auth.tenant_id;
	const char	*member = r->auth.member_id;
	char		 b32[TOTP_SECRET_B32_LEN + 1], uri[TOTP_URI_MAX];
	unsigned char	 sealed[PII_SEALED_MAX(TOTP_SECRET_B32_LEN)];
	struct dbrows	 t, m;
	struct jgen	 j;
	size_t		 n;
	bool		 on;
	enum fb_err	 e;

	e = db_totp_get(r->db, tenant, member, &t);
	if (e == FB_OK) {
		on = ((const struct totp_row *)t.row)->enabled;
		dbrows_free(&t);
		if (on)
			return api_error(r, AC_TOTP_ALREADY_ENABLED, NULL);
	} else if (e != FB_ENOTFOUND)
		return e;
	if ((e = db_member_get(r->db, tenant, member, &m)) != FB_OK)
		return e;
	totp_secret_new(b32);
	if (!totp_uri(((const struct member_row *)m.row)->email, b32, uri)) {
		dbrows_free(&m);
		sodium_memzero(b32, sizeof(b32));
		return FB_EINVAL;
	}
	dbrows_free(&m);
	n = pii_seal(r->conf->master_key, tenant, member, SECRET_FIELD, b32,
	    sealed);
	if ((e = db_totp_begin(r->db, tenant, member, sealed, n,
	    r->conf->master_key_id)) != FB_OK)
		goto out;
	audit_self(r);
	req_gen_begin(r, &j);
	jg_str(&j, "object", "totp_enrolment");
	jg_str(&j, "status", "pending");
	jg_str(&j, "secret", NULL);
	jg_str(&j, "otpauth_uri", NULL);
	if ((e = req_gen_end(r, &j, 201)) != FB_OK ||
	    (e = req_keep_for_replay(r)) != FB_OK)
		goto out;
	req_gen_begin(r, &j);
	jg_str(&j, "object", "totp_enrolment");
	jg_str(&j, "status", "pending");
	jg_str(&j, "secret", b32);
	jg_str(&j, "otpauth_uri", uri);
	e = req_gen_end(r, &j, 201);
out:
	sodium_memzero(b32, sizeof(b32));
	sodium_memzero(uri, sizeof(uri));
	return e;
}

/*
 * New recovery codes of the signed-in member, the old ones gone: into
 * codes in clear (for the answer alone), each stored sealed under the
 * newest master key.
 */
static enum fb_err
recovery_codes_new(struct req *r,
    char codes[RECOVERY_CODES][RECOVERY_CODE_LEN + 1])
{
	struct recovery_code_in c[RECOVERY_CODES];
	char		 norm[RECOVERY_CODE_CHARS + 1];
	size_t		 i;
	enum fb_err	 e = FB_OK;

	for (i = 0; i < RECOVERY_CODES; i++) {
		recovery_code_new(codes[i]);
		if (!recovery_code_norm(codes[i], norm)) {
			e = FB_EINVAL;
			break;
		}
		uuid_v7(c[i].id);
		c[i].key_id = r->conf->master_key_id;
		c[i].n = pii_seal(r->conf->master_key, r->auth.tenant_id,
		    c[i].id, CODE_FIELD, norm, c[i].sealed);
	}
	sodium_memzero(norm, sizeof(norm));
	if (e == FB_OK)
		e = db_recovery_codes_set(r->db, r->auth.tenant_id,
		    r->auth.member_id, c, RECOVERY_CODES);
	return e;
}

/*
 * POST /api/v1/admin/me/totp/confirm: the first code of the pending
 * secret makes it active; 10 recovery codes, shown once; the member's
 * other sessions (signed in with the password alone) end.  409
 * totp_not_started without a pending enrolment, 409
 * totp_already_enabled when active, 422 totp_code_invalid.
 */
enum fb_err
api_totp_confirm(struct req *r)
{
	const char	*tenant = r->auth.tenant_id;
	const char	*member = r->auth.member_id;
	const char	*code;
	char		 codes[RECOVERY_CODES][RECOVERY_CODE_LEN + 1];
	unsigned char	 key[TOTP_SECRET_BYTES];
	struct dbrows	 t;
	const struct totp_row *row;
	int64_t		 step;
	bool		 hit;
	enum fb_err	 e;

	if (body_str(r, "code", true, 16, &code) < 0)
		return FB_OK;
	e = db_totp_get(r->db, tenant, member, &t);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_TOTP_NOT_STARTED, NULL);
	if (e != FB_OK)
		return e;
	row = t.row;
	if (row->enabled) {
		dbrows_free(&t);
		return api_error(r, AC_TOTP_ALREADY_ENABLED, NULL);
	}
	e = totp_key(r, tenant, member, row, key);
	dbrows_free(&t);
	if (e != FB_OK)
		return e;
	hit = totp_check(key, sizeof(key), code, (int64_t)time(NULL), -1,
	    &step);
	sodium_memzero(key, sizeof(key));
	if (!hit)
		return api_error(r, AC_TOTP_CODE_INVALID, "code");
	if ((e = db_totp_confirm(r->db, tenant, member, step)) != FB_OK ||
	    (e = recovery_codes_new(r, codes)) != FB_OK ||
	    (e = db_member_sessions_end(r->db, member,
	    r->auth.session_id)) != FB_OK)
		goto out;
	audit_self(r);
	e = totp_answer(r, 200, codes, RECOVERY_CODES);
out:
	sodium_memzero(codes, sizeof(codes));
	return e;
}

/*
 * The signed-in member proves it again (disable, new recovery codes):
 * the password or a current code, throttled and counted as a sign-in
 * (signin_wait(), signin_fail()).  *ok false with the refusal written
 * (429, 422 password_invalid or totp_code_invalid); a code only when
 * `code_only`.
 */
static enum fb_err
reauthenticate(struct req *r, bool code_only, bool *ok)
{
	const char	*pw = NULL, *code = NULL;
	unsigned char	 acct[SECRET_HASH_LEN], addr[SECRET_HASH_LEN];
	struct dbrows	 m, ms;
	bool		 held;
	enum fb_err	 e;

	*ok = false;
	if ((!code_only && body_str(r, "password", false, PASSWORD_MAX_BYTES,
	    &pw) < 0) || body_str(r, "code", code_only, 16, &code) < 0)
		return FB_OK;
	if (pw == NULL && code == NULL)
		return api_error(r, AC_PARAMETER_MISSING, "code");
	if ((e = db_member_get(r->db, r->auth.tenant_id, r->auth.member_id,
	    &m)) != FB_OK)
		return e;
	signin_subjects(r, ((const struct member_row *)m.row)->email, acct,
	    addr);
	if ((e = signin_wait(r, acct, addr, &held)) != FB_OK || held) {
		dbrows_free(&m);
		return e;
	}
	if (code != NULL)
		e = two_factor_check(r, r->auth.tenant_id, r->auth.member_id,
		    code, NULL, ok);
	else if ((e = db_signin_members(r->db, ((const struct member_row *)
	    m.row)->email, r->auth.tenant_id, &ms)) == FB_OK) {
		*ok = ms.n == 1 && password_verify(((const struct signin_row *)
		    ms.row)->password_hash, pw);
		dbrows_free(&ms);
	}
	dbrows_free(&m);
	if (e != FB_OK || *ok)
		return e;
	if ((e = signin_fail(r, acct, addr)) != FB_OK)
		return e;
	return code != NULL ? api_error(r, AC_TOTP_CODE_INVALID, "code") :
	    api_error(r, AC_PASSWORD_INVALID, "password");
}

/* 409 totp_not_enabled unless the member's TOTP is active. */
static enum fb_err
need_enabled(struct req *r, bool *on)
{
	struct dbrows	 t;
	enum fb_err	 e;

	*on = false;
	e = db_totp_get(r->db, r->auth.tenant_id, r->auth.member_id, &t);
	if (e == FB_OK) {
		*on = ((const struct totp_row *)t.row)->enabled;
		dbrows_free(&t);
	} else if (e != FB_ENOTFOUND)
		return e;
	return *on ? FB_OK : api_error(r, AC_TOTP_NOT_ENABLED, NULL);
}

/*
 * POST /api/v1/admin/me/totp/disable: with the password or a current
 * code; the secret and the recovery codes are removed.  In a tenant
 * that requires a second factor the member can then reach only the
 * enrolment again.
 */
enum fb_err
api_totp_disable(struct req *r)
{
	bool		 on, ok;
	enum fb_err	 e;

	if ((e = need_enabled(r, &on)) != FB_OK || !on)
		return e;
	if ((e = reauthenticate(r, false, &ok)) != FB_OK || !ok)
		return e;
	if ((e = member_totp_reset(r->db, r->auth.tenant_id,
	    r->auth.member_id)) != FB_OK)
		return e;
	audit_self(r);
	req_empty(r, 204);
	return FB_OK;
}

/*
 * POST /api/v1/admin/me/totp/recovery_codes: 10 new recovery codes for
 * a current code, shown once; the earlier ones stop working.
 */
enum fb_err
api_recovery_codes_create(struct req *r)
{
	char		 codes[RECOVERY_CODES][RECOVERY_CODE_LEN + 1];
	bool		 on, ok;
	enum fb_err	 e;

	if ((e = need_enabled(r, &on)) != FB_OK || !on)
		return e;
	if ((e = reauthenticate(r, true, &ok)) != FB_OK || !ok)
		return e;
	if ((e = recovery_codes_new(r, codes)) == FB_OK) {
		audit_self(r);
		e = totp_answer(r, 201, codes, RECOVERY_CODES);
	}
	sodium_memzero(codes, sizeof(codes));
	return e;
}

static void
policy_gen(struct jgen *j, const void *row)
{
	const struct two_factor_policy_row *p = row;

	jg_str(j, "object", "two_factor_policy");
	jg_bool(j, "required", p->two_factor_required);
	jg_int(j, "members_without_two_factor", p->members_without_two_factor);
}

/* GET /api/v1/admin/two_factor_policy: any member of the tenant. */
enum fb_err
api_two_factor_policy_get(struct req *r)
{
	struct dbrows	 p;
	enum fb_err	 e;

	e = db_two_factor_policy(r->db, r->auth.tenant_id, &p);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, NULL);
	if (e != FB_OK)
		return e;
	e = req_row(r, 200, policy_gen, p.row);
	dbrows_free(&p);
	return e;
}

/*
 * PUT /api/v1/admin/two_factor_policy (owners): require a second factor
 * of every member, or no longer.  The owner turning it on has one
 * already (409 two_factor_enrol_first): the switch never shuts its
 * owner out of the settings.
 */
enum fb_err
api_two_factor_policy_set(struct req *r)
{
	struct dbrows	 t;
	bool		 required, on = false;
	enum fb_err	 e;

	if (body_bool(r, "required", true, &required) < 0)
		return FB_OK;
	if (required) {
		e = db_totp_get(r->db, r->auth.tenant_id, r->auth.member_id,
		    &t);
		if (e == FB_OK) {
			on = ((const struct totp_row *)t.row)->enabled;
			dbrows_free(&t);
		} else if (e != FB_ENOTFOUND)
			return e;
		if (!on)
			return api_error(r, AC_TWO_FACTOR_ENROL_FIRST,
			    "required");
	}
	if ((e = db_two_factor_require(r->db, r->auth.tenant_id,
	    required)) != FB_OK)
		return e;
	r->audit_type = "tenant";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", r->auth.tenant_id);
	return api_two_factor_policy_get(r);
}
