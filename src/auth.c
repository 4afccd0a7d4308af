/*
 * Authentication (contract: Authentication; issue 16 for sessions): an
 * API key by its hash, from the worker's cache (authcache.c) or the
 * database; a member's session from its cookie, with the admin UI's
 * Origin and CSRF token for an unsafe method; then the rate admission
 * (contract: Limits), one statement for the requests of a tenant that
 * wait together.  The dispatcher calls auth_request() and auth_admit().
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "auth.h"
#include "authcache.h"
#include "session.h"
#include "db/store.h"

static bool
query_has_key(const struct req *r)
{
	static const char *const names[] = { "api_key", "apikey", "key",
	    "access_token", "token", "authorization" };
	size_t	 i, j;

	for (i = 0; i < r->nq; i++) {
		if (strncmp(r->q[i].value, "fb_live_", 8) == 0 ||
		    strncmp(r->q[i].value, "fb_test_", 8) == 0)
			return true;
		for (j = 0; j < NELEM(names); j++)
			if (strcasecmp(r->q[i].name, names[j]) == 0)
				return true;
	}
	return false;
}

/* 401 with the Bearer challenge (RFC 6750 section 3). */
static enum fb_err
unauthorized(struct req *r, enum api_code code)
{
	req_header(r, "WWW-Authenticate", code == AC_API_KEY_MISSING ||
	    code == AC_API_KEY_IN_QUERY ? "Bearer realm=\"formback\"" :
	    "Bearer realm=\"formback\", error=\"invalid_token\"");
	return api_error(r, code, NULL);
}

/* The request admitted or refused by the limiter: its rate headers. */
static enum fb_err
admitted(struct req *r, const struct rate_result *rr)
{
	r->authed = true;
	/* a test key's write is a dry run, refused or not (design 6) */
	r->dry_run = r->auth.test && strcmp(r->method, "GET") != 0;
	r->rate.set = true;
	r->rate.limit = r->auth.rate_limit;
	r->rate.remaining = rr->remaining;
	r->rate.reset = rr->reset;
	r->rate.retry_after = rr->retry_after;
	r->rate.data_epoch = rr->data_epoch;
	if (!rr->admitted)
		return api_error(r, AC_RATE_LIMIT, NULL);
	return FB_OK;
}

/*
 * The key of hash r->auth.hash read from the database (contract:
 * Authentication 5, 6), kept in the worker's cache, and the request
 * admitted.  Returns FB_OK with r->authed set, FB_OK with an error
 * response written (401, 429), or an internal error.
 */
static enum fb_err
authenticate_fresh(struct req *r)
{
	struct dbrows	 res;
	const struct auth_key_row *k;
	enum fb_err	 e;
	struct rate_result rr;
	struct authcache_entry fresh;
	bool		 revoked, inactive;
	enum plan	 plan;
	long long	 epoch;

	r->auth.cached = false;
	e = db_auth_lookup(r->db, r->auth.hash, sizeof(r->auth.hash), &res);
	if (e == FB_ENOTFOUND)
		return unauthorized(r, AC_API_KEY_INVALID);
	if (e != FB_OK)
		return e;
	k = res.row;
	revoked = k->revoked;
	inactive = strcmp(k->member_status, "active") != 0;
	memset(&fresh, 0, sizeof(fresh));
	memcpy(fresh.hash, r->auth.hash, sizeof(fresh.hash));
	snprintf(fresh.key_id, sizeof(fresh.key_id), "%s", k->key_id);
	snprintf(fresh.tenant_id, sizeof(fresh.tenant_id), "%s", k->tenant_id);
	snprintf(fresh.member_id, sizeof(fresh.member_id), "%s", k->member_id);
	fresh.test = strcmp(k->kind, "test") == 0;
	/* never more than its issuer's role allows now (issue 43) */
	if (!scope_parse(k->scopes, &fresh.scopes))
		fresh.scopes = 0;
	fresh.scopes &= role_scopes(k->member_role);
	if (!plan_parse(k->plan, &plan))
		plan = PLAN_FREE;
	fresh.rate_limit = k->rate_limit >= 0 ? (int)k->rate_limit :
	    plans[plan].rate_limit;
	fresh.epoch = k->auth_epoch;
	dbrows_free(&res);
	if (revoked)
		return unauthorized(r, AC_API_KEY_REVOKED);
	if (inactive)
		return unauthorized(r, AC_API_KEY_CREATOR_INACTIVE);
	e = db_rate_admit(r->db, fresh.tenant_id, fresh.rate_limit, -1,
	    fresh.epoch, false, &rr, &epoch);
	if (e != FB_OK)
		return e;
	/* a look-up older than the tenant's epoch is used once, not kept */
	if (epoch == fresh.epoch)
		authcache_put(&fresh);
	memcpy(r->auth.key_id, fresh.key_id, sizeof(r->auth.key_id));
	memcpy(r->auth.tenant_id, fresh.tenant_id, sizeof(r->auth.tenant_id));
	memcpy(r->auth.member_id, fresh.member_id, sizeof(r->auth.member_id));
	/* the key's last use, to the minute (the admin API's key list) */
	if ((e = db_apikey_used(r->db, fresh.key_id)) != FB_OK)
		return e;
	r->auth.test = fresh.test;
	r->auth.scopes = fresh.scopes;
	r->auth.rate_limit = fresh.rate_limit;
	r->auth.epoch = fresh.epoch;
	return admitted(r, &rr);
}

/*
 * Is this method unsafe (RFC 9110 section 9.2.1): a write a page could forge?
 */
static bool
unsafe_method(const char *m)
{
	return strcmp(m, "GET") != 0 && strcmp(m, "HEAD") != 0 &&
	    strcmp(m, "OPTIONS") != 0;
}

/*
 * A member's session from the cookie (issue 16; its token already in
 * r->auth.session_token): looked up by its hash,
 * ended when dead or its member is no longer active; an unsafe method
 * also needs the admin UI's Origin and the session's CSRF token; then
 * admitted by the tenant's rate limit like a key.  Returns as
 * authenticate_fresh().
 */
static enum fb_err
authenticate_session(struct req *r)
{
	const char	*token = r->auth.session_token;
	struct dbrows	 res;
	const struct session_auth_row *s;
	struct rate_result rr;
	enum plan	 plan;
	long long	 epoch;
	enum fb_err	 e;
	bool		 dead, stale;

	secret_hash(token, r->auth.hash);
	e = db_session_lookup(r->db, r->auth.hash, SESSION_IDLE_SECONDS, &res);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_SESSION_INVALID, NULL);
	if (e != FB_OK)
		return e;
	s = res.row;
	dead = s->dead || strcmp(s->member_status, "active") != 0;
	stale = s->stale;
	r->auth.session = true;
	snprintf(r->auth.session_id, sizeof(r->auth.session_id), "%s", s->id);
	snprintf(r->auth.tenant_id, sizeof(r->auth.tenant_id), "%s",
	    s->tenant_id);
	snprintf(r->auth.member_id, sizeof(r->auth.member_id), "%s",
	    s->member_id);
	snprintf(r->auth.role, sizeof(r->auth.role), "%s", s->role);
	r->auth.scopes = role_scopes(s->role);
	r->auth.enrol_only = s->two_factor_required && !s->totp;
	if (!plan_parse(s->plan, &plan))
		plan = PLAN_FREE;
	r->auth.rate_limit = s->rate_limit >= 0 ? (int)s->rate_limit :
	    plans[plan].rate_limit;
	r->auth.epoch = s->auth_epoch;
	dbrows_free(&res);
	if (dead) {
		/* a suspended member's session ends on its next request */
		if ((e = db_session_end(r->db, r->auth.session_id)) != FB_OK)
			return e;
		(void)session_cookie_set(r, NULL);
		return api_error(r, AC_SESSION_INVALID, NULL);
	}
	if (unsafe_method(r->method)) {
		if (!session_origin_ok(r->conf, r->origin))
			return api_error(r, AC_SESSION_ORIGIN, "Origin");
		if (!session_csrf_ok(token, r->csrf_token))
			return api_error(r, AC_CSRF_TOKEN_INVALID, CSRF_HEADER);
	}
	if (stale && (e = db_session_touch(r->db, r->auth.session_id)) != FB_OK)
		return e;
	if ((e = db_rate_admit(r->db, r->auth.tenant_id, r->auth.rate_limit, -1,
	    r->auth.epoch, false, &rr, &epoch)) != FB_OK)
		return e;
	return admitted(r, &rr);
}

/*
 * auth_request(): authenticate (contract: Authentication 1, 5, 6).  Returns
 * FB_OK with
 * an error response written (401); FB_OK with r->auth.cached set: the
 * worker's cached look-up of the key is in r->auth and the request waits
 * for its admission (auth_admit()); or authenticate_fresh()'s answer.
 */
enum fb_err
auth_request(struct req *r)
{
	const char	*a = r->authorization, *tok;
	bool		 test;
	const struct authcache_entry *c;

	if (a == NULL || *a == '\0') {
		/* no key: a member's session, when the cookie holds one */
		if (r->cookie != NULL && session_cookie_get(r->cookie,
		    session_cookie_name(r->conf), r->auth.session_token))
			return authenticate_session(r);
		return unauthorized(r, query_has_key(r) ? AC_API_KEY_IN_QUERY :
		    AC_API_KEY_MISSING);
	}
	if (strncasecmp(a, "Bearer ", 7) != 0) {
		return unauthorized(r, AC_API_KEY_INVALID);
	}
	for (tok = a + 7; *tok == ' '; tok++)
		continue;
	if (!apikey_shape_ok(tok, &test)) {
		return unauthorized(r, AC_API_KEY_INVALID);
	}
	secret_hash(tok, r->auth.hash);
	if ((c = authcache_get(r->auth.hash)) == NULL)
		return authenticate_fresh(r);
	memcpy(r->auth.key_id, c->key_id, sizeof(r->auth.key_id));
	memcpy(r->auth.tenant_id, c->tenant_id, sizeof(r->auth.tenant_id));
	memcpy(r->auth.member_id, c->member_id, sizeof(r->auth.member_id));
	r->auth.test = c->test;
	r->auth.scopes = c->scopes;
	r->auth.rate_limit = c->rate_limit;
	r->auth.epoch = c->epoch;
	r->auth.cached = true;
	return FB_OK;
}

/* Do a and b wait for the same admission (tenant, look-up, limit)? */
static bool
same_admission(const struct req *a, const struct req *b)
{
	return strcmp(a->auth.tenant_id, b->auth.tenant_id) == 0 &&
	    a->auth.epoch == b->auth.epoch &&
	    a->auth.rate_limit == b->auth.rate_limit;
}

void
auth_admit(struct req **rs, size_t n)
{
	struct req	*g[RATE_ADMIT_MAX];
	struct rate_result rr[RATE_ADMIT_MAX];
	size_t		 i, j, k, ng;
	long long	 epoch;
	enum fb_err	 e;

	for (i = 0; i < n; i++) {
		if (!rs[i]->auth.cached)
			continue;
		/* the waiting requests of i's tenant, in arrival order */
		for (ng = 0, j = i; j < n && ng < NELEM(g); j++)
			if (rs[j]->auth.cached &&
			    same_admission(rs[i], rs[j])) {
				g[ng++] = rs[j];
				rs[j]->auth.cached = false;
			}
		e = db_rate_admit_n(rs[i]->db, rs[i]->auth.tenant_id,
		    rs[i]->auth.rate_limit, -1, rs[i]->auth.epoch, true,
		    (int)ng, rr, &epoch);
		for (k = 0; k < ng; k++) {
			log_set_request_id(g[k]->request_id);
			if (e == FB_OK && epoch != g[k]->auth.epoch) {
				/* stale: read the key again, admitted alone */
				authcache_drop(g[k]->auth.hash);
				e = authenticate_fresh(g[k]);
				if (e != FB_OK)
					api_internal(g[k], e);
				e = FB_OK;
				continue;
			}
			if (e != FB_OK)
				api_internal(g[k], e);
			else if (admitted(g[k], &rr[k]) != FB_OK)
				api_internal(g[k], FB_ENOMEM);
		}
	}
	log_set_request_id(NULL);
}

