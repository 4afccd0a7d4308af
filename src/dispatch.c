/*
 * The dispatcher: every route's policy, applied once, in this order --
 * route and method, content type and body size, authentication (contract:
 * Authentication), rate limit (contract: Limits), scopes, path and query
 * parameters, JSON body, idempotency (contract: Idempotency), then the
 * handler inside one transaction with its audit row, rolled back for a
 * test key's dry run (design 6).
 */
#include <ctype.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

#include "api.h"
#include "links.h"
#include "authcache.h"
#include "publish.h"
#include "session.h"
#include "db/store.h"

#define SEG_MAX		128

/* Match one template against a path; fills the path variables. */
static bool
template_match(struct req *r, const char *tpl, const char *path, bool fill)
{
	const char	*t = tpl, *p = path, *te, *pe;
	size_t		 nv = 0;

	while (*t != '\0' && *p != '\0') {
		if (*t != '/' || *p != '/')
			return false;
		t++, p++;
		/* most templates part from the path at a segment's first byte */
		if (*t != '{' && *t != '\0' && *t != *p)
			return false;
		te = strchr(t, '/');
		pe = strchr(p, '/');
		if (te == NULL)
			te = t + strlen(t);
		if (pe == NULL)
			pe = p + strlen(p);
		if (*t == '{') {
			if (pe == p || pe - p > SEG_MAX || nv == REQ_MAX_PATHVARS)
				return false;
			if (fill) {
				r->pathvar[nv] = strndup(p, (size_t)(pe - p));
				snprintf(r->pathvar_name[nv], sizeof(r->pathvar_name[nv]),
				    "%.*s", (int)(te - t - 2), t + 1);
			}
			nv++;
		} else if (te - t != pe - p || strncmp(t, p, (size_t)(te - t)) != 0)
			return false;
		t = te, p = pe;
	}
	if (*t != '\0' || *p != '\0')
		return false;
	if (fill)
		r->npathvars = nv;
	return true;
}

const struct route *
route_match(struct req *r, const char *method, const char *path,
    bool *path_known, char *allow, size_t allowsz)
{
	size_t	 i, o = 0;
	const struct route *found = NULL;

	*path_known = false;
	allow[0] = '\0';
	/* HEAD is GET without the body (respond() leaves it out) */
	if (strcmp(method, "HEAD") == 0)
		method = "GET";
	for (i = 0; i < routes_len; i++) {
		if (!template_match(r, routes[i].path, path, false))
			continue;
		*path_known = true;
		if (strstr(allow, routes[i].method) == NULL)
			o += (size_t)snprintf(allow + o, o < allowsz ? allowsz - o : 0,
			    "%s%s", o ? ", " : "", routes[i].method);
		if (found == NULL && strcmp(routes[i].method, method) == 0)
			found = &routes[i];
	}
	if (found != NULL)
		(void)template_match(r, found->path, path, true);
	return found;
}

static bool
enum_has(const char *enums, const char *v)
{
	size_t	 n = strlen(v);
	const char *p = enums, *e;

	if (n == 0)
		return false;
	for (;;) {
		e = strchr(p, '|');
		if ((size_t)((e != NULL ? e : p + strlen(p)) - p) == n &&
		    strncmp(p, v, n) == 0)
			return true;
		if (e == NULL)
			return false;
		p = e + 1;
	}
}

static bool
param_ok(const struct param_def *d, char *v)
{
	char		*end;
	long		 n;
	int64_t		 t;

	switch (d->type) {
	case PT_UUID:
		if (!uuid_valid(v))
			return false;
		uuid_lower(v);
		return true;
	case PT_STRING:
		return utf8_len(v) >= 0 && (d->max == 0 || (long)strlen(v) <= d->max);
	case PT_ENUM:
		return enum_has(d->enums, v);
	case PT_BOOL:
		return strcmp(v, "true") == 0 || strcmp(v, "false") == 0 ||
		    strcmp(v, "1") == 0 || strcmp(v, "0") == 0;
	case PT_INT:
	case PT_LIMIT:
		if (*v == '\0' || strlen(v) > 9 || strspn(v, "0123456789") != strlen(v))
			return false;
		n = strtol(v, &end, 10);
		return n >= d->min && n <= d->max;
	case PT_CURSOR:
		return *v != '\0' && strlen(v) <= 256;
	case PT_DATETIME:
		return time_parse_iso8601(v, &t);
	}
	return false;
}

/* Check path and query parameters against the route row. */
static bool
check_params(struct req *r)
{
	const struct param_def *d;
	size_t		 i;
	char		*v;

	for (d = r->route->params; d != NULL && d->name != NULL; d++) {
		v = NULL;
		if (d->in == IN_PATH) {
			for (i = 0; i < r->npathvars; i++)
				if (strcmp(r->pathvar_name[i], d->name) == 0)
					v = r->pathvar[i];
			if (v == NULL || !param_ok(d, v)) {
				(void)api_error(r, AC_PATH_INVALID, d->name);
				return false;
			}
			continue;
		}
		for (i = 0; i < r->nq; i++)
			if (strcmp(r->q[i].name, d->name) == 0) {
				v = r->q[i].value;
				if (!param_ok(d, v)) {
					(void)api_error(r, AC_QUERY_INVALID, d->name);
					return false;
				}
			}
		if (v == NULL && d->required) {
			(void)api_error(r, AC_QUERY_INVALID, d->name);
			return false;
		}
	}
	return true;
}

static bool
has_body(const struct req *r)
{
	return strcmp(r->method, "POST") == 0 || strcmp(r->method, "PUT") == 0 ||
	    strcmp(r->method, "PATCH") == 0;
}

/*
 * Is the body the route's JSON?  The API's writes always (contract:
 * conventions 2); a route outside the contract when its row names a body.
 */
static bool
wants_json(const struct req *r)
{
	return has_body(r) && (r->route->flags & R_RAW) == 0 &&
	    ((r->route->flags & R_INTERNAL) == 0 || r->route->body_schema != NULL);
}

/* Parse the body as one JSON object, capped in depth (STYLE 9). */
static bool
parse_body(struct req *r)
{
	size_t	 i;

	for (i = 0; i < r->body.len && isspace((unsigned char)r->body.data[i]); i++)
		continue;
	if (i == r->body.len)
		r->json = json_object_new_object();
	else if ((r->json = json_parse_object(r->body.data, r->body.len,
	    r->conf->max_json_depth)) == NULL) {
		(void)api_error(r, AC_INVALID_JSON, "body");
		return false;
	}
	return true;
}

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
	if (!scope_parse(k->scopes, &fresh.scopes))
		fresh.scopes = 0;
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

/* Is this method unsafe (RFC 9110 section 9.2.1): a write a page could forge? */
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
	snprintf(r->auth.tenant_id, sizeof(r->auth.tenant_id), "%s", s->tenant_id);
	snprintf(r->auth.member_id, sizeof(r->auth.member_id), "%s", s->member_id);
	snprintf(r->auth.role, sizeof(r->auth.role), "%s", s->role);
	r->auth.scopes = role_scopes(s->role);
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
 * Authenticate (contract: Authentication 1, 5, 6).  Returns FB_OK with
 * an error response written (401); FB_OK with r->auth.cached set: the
 * worker's cached look-up of the key is in r->auth and the request waits
 * for its admission (dispatch_admit()); or authenticate_fresh()'s answer.
 */
static enum fb_err
authenticate(struct req *r)
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

static bool
idem_key_ok(const char *k)
{
	size_t	 n = strlen(k), i;

	if (n == 0 || n > 255)
		return false;
	for (i = 0; i < n; i++)
		if (k[i] < 0x21 || k[i] > 0x7e)
			return false;
	return true;
}

/*
 * A new start for the handler (a retried transaction): no answer, and no
 * file an earlier try published.
 */
static void
reset(struct req *r)
{
	req_reset_response(r);
	publish_abort(r);
}

/* Answer an internal error as the contract's api_error. */
static void
internal(struct req *r, enum fb_err e)
{
	reset(r);
	logx(LOG_ERR, "request failed: %s", fb_strerror(e));
	(void)api_error(r, e == FB_EGONE || e == FB_ERETRY ? AC_UNAVAILABLE :
	    AC_INTERNAL, NULL);
}

/*
 * Replay or refuse when the idempotency row already exists, in the
 * claim's transaction.  Returns FB_OK with a response written,
 * FB_ENOTFOUND when the expired row was removed and the claim should be
 * made again, FB_ERETRY when the holder rolled back in between (the
 * transaction is run again), or an internal error.
 */
static enum fb_err
idem_existing(struct req *r, const char *endpoint, const unsigned char hash[32])
{
	struct dbrows	 res;
	const struct idem_row *k;
	enum fb_err	 e;

	e = db_idem_get(r->db, r->auth.tenant_id, endpoint, r->idem_key, &res);
	if (e == FB_ENOTFOUND)
		return FB_ERETRY;
	if (e != FB_OK)
		return e;
	k = res.row;
	if (k->expired) {
		dbrows_free(&res);
		return (e = db_idem_delete_expired(r->db, r->auth.tenant_id,
		    endpoint, r->idem_key)) != FB_OK ? e : FB_ENOTFOUND;
	}
	if (k->request_hash.n != 32 ||
	    sodium_memcmp(k->request_hash.p, hash, 32) != 0) {
		dbrows_free(&res);
		return api_error(r, AC_IDEMPOTENCY_KEY_REUSED, NULL);
	}
	if (k->status == 0) {
		dbrows_free(&res);
		return api_error(r, AC_IDEMPOTENCY_KEY_IN_PROGRESS, NULL);
	}
	r->status = (int)k->status;
	buf_reset(&r->out);
	if (k->body != NULL && buf_addstr(&r->out, k->body) != FB_OK) {
		dbrows_free(&res);
		return FB_ENOMEM;
	}
	dbrows_free(&res);
	r->replayed = true;
	logx(LOG_INFO, "replayed %d for idempotency key", r->status);
	return FB_OK;
}

/*
 * The audit row of a write: the operation, its target and, for a
 * member's session, the member and the fields sent (issue 16), secrets
 * and contacts left out.
 */
static enum fb_err
audit(struct req *r)
{
	/*
	 * Left out: secrets, and the fields that carry a visitor's contact
	 * (a suppression's value, a test recipient's contact): those are
	 * kept sealed or as a blind index only (design 6).
	 */
	static const char *const secret[] = { "password", "token", "value",
	    "contact", NULL };
	json_object	*d = json_object_new_object(), *sent = NULL;
	const char	*text;
	size_t		 i;
	enum fb_err	 e;

	jadd_str(d, "method", r->method);
	jadd_int(d, "status", r->status);
	if (r->auth.session) {
		jadd_str(d, "role", r->auth.role);
		if (r->json != NULL && json_object_deep_copy(r->json, &sent,
		    NULL) == 0) {
			for (i = 0; secret[i] != NULL; i++)
				json_object_object_del(sent, secret[i]);
			json_object_object_add(d, "sent", sent);
		}
	} else
		jadd_bool(d, "test_key", r->auth.test);
	text = json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN);
	/* a body is at most 1 MiB; the audit keeps the first 16 KiB of it */
	if (strlen(text) > 16384) {
		json_object_object_del(d, "sent");
		jadd_bool(d, "sent_truncated", true);
		text = json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN);
	}
	e = db_audit_add(r->db, r->auth.tenant_id, req_actor_type(r),
	    req_actor_id(r), r->request_id, r->route->operation_id, r->audit_type,
	    r->audit_id[0] != '\0' ? r->audit_id : NULL, text);
	json_object_put(d);
	return e;
}

/* A write's transaction (run_handler_tx()): its request, its key's claim. */
struct handler_tx {
	struct req	*r;
	bool		 idem;		/* an Idempotency-Key to claim */
	char		 endpoint[300];
	unsigned char	 hash[32];	/* of the endpoint, query and body */
};

/*
 * The Idempotency-Key's claim row, made first in the write's
 * transaction (contract: Idempotency).  FB_OK when claimed; FB_UNDONE
 * with the answer written when the key is held, in progress or used
 * (a replay); else an error for db_tx().
 */
static enum fb_err
idem_claim(struct handler_tx *t)
{
	struct req	*r = t->r;
	enum fb_err	 e;
	int		 try;

	for (try = 0; try < 2; try++) {
		e = db_idem_claim(r->db, r->auth.tenant_id, t->endpoint,
		    r->idem_key, t->hash);
		if (e == FB_ERETRY) {
			/* the holder's transaction is still open */
			reset(r);
			(void)api_error(r, AC_IDEMPOTENCY_KEY_IN_PROGRESS, NULL);
			return FB_UNDONE;
		}
		if (e != FB_EDUP)
			return e;
		/* an expired row removed (FB_ENOTFOUND): claimed again */
		if ((e = idem_existing(r, t->endpoint, t->hash)) != FB_ENOTFOUND)
			return e == FB_OK ? FB_UNDONE : e;
	}
	return FB_ERETRY;
}

/*
 * One try of a write (db_tx()): the key's claim, the handler, its audit
 * row and the key's answer.  A refusal (4xx) and a dry run are undone,
 * but for the key's claim (savepoint) and for a route that keeps its
 * refusals (R_KEEP: a sign-in's failure counted).
 */
static enum fb_err
handler_tx(struct db *db, void *arg)
{
	struct handler_tx *t = arg;
	struct req	*r = t->r;
	enum fb_err	 e = FB_OK;

	reset(r);
	if (t->idem && ((e = idem_claim(t)) != FB_OK ||
	    (e = db_savepoint(db, "handler")) != FB_OK))
		return e;
	if ((e = r->route->fn(r)) == FB_OK && r->status == 0)
		e = FB_EINVAL;
	if (e != FB_OK)
		return e;
	if (r->status >= 400 && (r->route->flags & R_KEEP) == 0) {
		if (!t->idem)
			return FB_UNDONE;
		e = db_rollback_to(db, "handler");
	} else if (r->status < 400 && (r->route->flags & R_WRITE) != 0)
		e = audit(r);
	if (e == FB_OK && t->idem)
		e = db_idem_finish(db, r->auth.tenant_id, t->endpoint,
		    r->idem_key, r->status, r->idem_body != NULL ?
		    r->idem_body : r->out.data);
	return e == FB_OK && r->dry_run ? FB_UNDONE : e;
}

/* One try of a read, in autocommit (db_retry()). */
static enum fb_err
handler_read(struct db *db, void *arg)
{
	struct req	*r = arg;
	enum fb_err	 e;

	(void)db;
	req_reset_response(r);
	if ((e = r->route->fn(r)) == FB_OK && r->status == 0)
		e = FB_EINVAL;
	return e;
}

/*
 * Run the handler (design 6): a read in autocommit, a write in one
 * transaction (db_tx()), retried as a whole on deadlock, committed with
 * its audit row on success, rolled back for 4xx, 5xx and dry runs.
 * With an Idempotency-Key the claim row is inserted first in the same
 * transaction, and a 4xx keeps only that row.
 */
static void
run_handler_tx(struct req *r)
{
	struct handler_tx t = { .r = r };
	crypto_generichash_state st;
	enum fb_err	 e;

	if (r->idem_key != NULL && strcmp(r->method, "POST") == 0) {
		/* checked for a dry run too: it answers as a live key would */
		if (!idem_key_ok(r->idem_key)) {
			(void)api_error(r, AC_IDEMPOTENCY_KEY_INVALID,
			    "Idempotency-Key");
			return;
		}
		/* a dry run records nothing (contract: Authentication 3) */
		t.idem = !r->dry_run;
	}
	if (t.idem) {
		snprintf(t.endpoint, sizeof(t.endpoint), "%s %s", r->method,
		    r->path);
		crypto_generichash_init(&st, NULL, 0, sizeof(t.hash));
		crypto_generichash_update(&st, (const unsigned char *)
		    t.endpoint, strlen(t.endpoint) + 1);
		crypto_generichash_update(&st, (const unsigned char *)
		    (r->query != NULL ? r->query : ""), r->query != NULL ?
		    strlen(r->query) + 1 : 1);
		crypto_generichash_update(&st, (const unsigned char *)
		    r->body.data, r->body.len);
		crypto_generichash_final(&st, t.hash, sizeof(t.hash));
	}
	if (strcmp(r->method, "GET") == 0)
		e = db_retry(r->db, handler_read, r);
	else if ((e = db_tx(r->db, handler_tx, &t)) == FB_OK)
		r->committed = true;
	if (e != FB_OK && e != FB_UNDONE)
		internal(r, e);
}

/* One try of a public write (db_tx()): undone when it refuses. */
static enum fb_err
public_tx(struct db *db, void *arg)
{
	struct req	*r = arg;
	enum fb_err	 e;

	(void)db;
	reset(r);
	if ((e = r->route->fn(r)) == FB_OK && r->status == 0)
		e = FB_EINVAL;
	if (e == FB_OK && r->status >= 400 && (r->route->flags & R_KEEP) == 0)
		return FB_UNDONE;
	return e;
}

/*
 * A public route that writes (R_TX: an opt-out, a provider's receipt, a
 * sign-in): the handler in one transaction (db_tx()), committed when it
 * answers below 400 or keeps its refusals (R_KEEP), else rolled back.
 */
static void
run_public_tx(struct req *r)
{
	enum fb_err	 e;

	if ((e = db_ensure(r->db)) != FB_OK) {
		internal(r, FB_EGONE);
		return;
	}
	if ((e = db_tx(r->db, public_tx, r)) != FB_OK && e != FB_UNDONE)
		internal(r, e);
}

/* The transaction, then the files it published: renamed in on commit. */
static void
run_handler(struct req *r)
{
	run_handler_tx(r);
	if (r->committed)
		publish_commit(r);
	else
		publish_abort(r);
#ifdef FB_FAULT_POINTS
	/*
	 * A test build's fault (configure --enable-fault-points; the fault
	 * tests of issue 18): the worker dies with the write committed and
	 * not a byte answered, as a SIGKILL between the two would leave it.
	 */
	if (r->committed && r->fault != NULL &&
	    strcmp(r->fault, "kill-after-commit") == 0)
		(void)raise(SIGKILL);
#endif
}

/* 404 for a path no route has, 405 with Allow for a known path. */
static void
no_route(struct req *r, bool known, const char *allow)
{
	if (known) {
		req_header(r, "Allow", allow);
		(void)api_error(r, AC_METHOD_NOT_ALLOWED, NULL);
	} else
		(void)api_error(r, AC_NOT_FOUND, NULL);
}

/* After authentication and admission: scopes, parameters, the handler. */
static void
dispatch_admitted(struct req *r)
{
	/*
	 * A body over the cap is answered once the key is admitted, so it
	 * carries the rate headers as every authenticated answer (contract:
	 * Limits).  Bodies are JSON whatever Content-Type says (contract:
	 * conventions 2): a client that forgets the header still gets a
	 * precise answer.
	 */
	if (has_body(r) && r->body_too_large) {
		(void)api_error(r, AC_BODY_TOO_LARGE, NULL);
		return;
	}
	if ((r->route->flags & R_SESSION) != 0 && !r->auth.session) {
		(void)api_error(r, AC_SESSION_REQUIRED, NULL);
		return;
	}
	if (!scope_covers(r->auth.scopes, r->route->scopes)) {
		(void)api_error(r, r->auth.session ? AC_ROLE_INSUFFICIENT :
		    AC_SCOPE_INSUFFICIENT, NULL);
		return;
	}
	if (!check_params(r))
		return;
	if (wants_json(r) && !parse_body(r))
		return;
	run_handler(r);
}

enum dispatch_next
dispatch_begin(struct req *r)
{
	char		 allow[128];
	bool		 known;
	enum fb_err	 e;

	log_set_request_id(r->request_id);
	/*
	 * What lighttpd refuses before a worker sees it, refused alike
	 * behind any web server (Apache hands both on): a write without
	 * Content-Length (RFC 9112 6.3: no length, no body; 411) and a
	 * GET or HEAD with a body (RFC 9110 9.3.1, 9.3.2: no meaning).
	 */
	if (has_body(r) && r->content_length < 0) {
		(void)api_error(r, AC_LENGTH_REQUIRED, NULL);
		return DISPATCH_DONE;
	}
	if (r->content_length > 0 && (strcmp(r->method, "GET") == 0 ||
	    strcmp(r->method, "HEAD") == 0)) {
		(void)api_error(r, AC_BAD_REQUEST, NULL);
		return DISPATCH_DONE;
	}
	r->route = route_match(r, r->method, r->path, &known, allow, sizeof(allow));
	if (r->route == NULL) {
		/*
		 * With a key that authenticates, the 404 or 405 is counted
		 * and carries the rate headers like any authenticated
		 * answer (contract: Limits); with a bad key or none it is
		 * the 404 or 405 alone, never a 401.
		 */
		if (r->authorization == NULL || *r->authorization == '\0' ||
		    strncmp(r->path, "/api/", 5) != 0 || db_ensure(r->db) != FB_OK) {
			no_route(r, known, allow);
			return DISPATCH_DONE;
		}
		e = authenticate(r);
		if (e == FB_OK && r->status == 0 && r->auth.cached)
			return DISPATCH_ADMIT;
		if (e != FB_OK || r->status != 429) {
			req_reset_response(r);
			no_route(r, known, allow);
		}
		return DISPATCH_DONE;
	}
	/* the tag's events are filed in batches by the main loop */
	if ((r->route->flags & R_COLLECT) != 0)
		return DISPATCH_COLLECT;
	if ((r->route->flags & R_PUBLIC) != 0) {
		if (has_body(r) && r->body_too_large) {
			(void)api_error(r, AC_BODY_TOO_LARGE, NULL);
			return DISPATCH_DONE;
		}
		if (!check_params(r) || (wants_json(r) && !parse_body(r)))
			return DISPATCH_DONE;
		if ((r->route->flags & R_TX) != 0)
			run_public_tx(r);
		else if ((e = r->route->fn(r)) != FB_OK)
			internal(r, e);
		return DISPATCH_DONE;
	}
	if ((e = db_ensure(r->db)) != FB_OK) {
		internal(r, FB_EGONE);
		return DISPATCH_DONE;
	}
	if ((e = authenticate(r)) != FB_OK) {
		internal(r, e);
		return DISPATCH_DONE;
	}
	if (r->status != 0)
		return DISPATCH_DONE;
	if (r->auth.cached)
		return DISPATCH_ADMIT;
	dispatch_admitted(r);
	return DISPATCH_DONE;
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
dispatch_admit(struct req **rs, size_t n)
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
			if (rs[j]->auth.cached && same_admission(rs[i], rs[j])) {
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
					internal(g[k], e);
				e = FB_OK;
				continue;
			}
			if (e != FB_OK)
				internal(g[k], e);
			else if (admitted(g[k], &rr[k]) != FB_OK)
				internal(g[k], FB_ENOMEM);
		}
	}
	log_set_request_id(NULL);
}

void
dispatch_end(struct req *r)
{
	char		 allow[128];
	bool		 known;

	log_set_request_id(r->request_id);
	if (r->status != 0)
		return;
	if (r->route == NULL) {
		(void)route_match(r, r->method, r->path, &known, allow, sizeof(allow));
		no_route(r, known, allow);
	} else
		dispatch_admitted(r);
}
