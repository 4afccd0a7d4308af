/*
 * The dispatcher: every route's policy, applied once, in this order --
 * route and method, content type and body size, authentication (contract:
 * Authentication) and rate limit (contract: Limits) by auth.c, a
 * session's second factor when its tenant requires one (R_ENROL), scopes,
 * path and query parameters, JSON body, idempotency (contract:
 * Idempotency), then the handler inside one transaction (db_tx()) with
 * its audit row, rolled back for a test key's dry run (design 6).
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
#include "auth.h"
#include "cond.h"
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
		/*
		 * most templates part from the path at a segment's first byte
		 */
		if (*t != '{' && *t != '\0' && *t != *p)
			return false;
		te = strchr(t, '/');
		pe = strchr(p, '/');
		if (te == NULL)
			te = t + strlen(t);
		if (pe == NULL)
			pe = p + strlen(p);
		if (*t == '{') {
			if (pe == p || pe - p > SEG_MAX ||
			    nv == REQ_MAX_PATHVARS)
				return false;
			if (fill) {
				r->pathvar[nv] = strndup(p, (size_t)(pe - p));
				snprintf(r->pathvar_name[nv],
				    sizeof(r->pathvar_name[nv]),
				    "%.*s", (int)(te - t - 2), t + 1);
			}
			nv++;
		} else if (te - t != pe - p || strncmp(t, p,
		    (size_t)(te - t)) != 0)
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
			o += (size_t)snprintf(allow + o,
			    o < allowsz ? allowsz - o : 0,
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
		return utf8_len(v) >= 0 && (d->max == 0 ||
		    (long)strlen(v) <= d->max);
	case PT_ENUM:
		return enum_has(d->enums, v);
	case PT_BOOL:
		return strcmp(v, "true") == 0 || strcmp(v, "false") == 0 ||
		    strcmp(v, "1") == 0 || strcmp(v, "0") == 0;
	case PT_INT:
	case PT_LIMIT:
		if (*v == '\0' || strlen(v) > 9 ||
		    strspn(v, "0123456789") != strlen(v))
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
					(void)api_error(r, AC_QUERY_INVALID,
					    d->name);
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
	return strcmp(r->method, "POST") == 0 || strcmp(r->method,
	    "PUT") == 0 ||
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
	    ((r->route->flags & R_INTERNAL) == 0 ||
	    r->route->body_schema != NULL);
}

/* Parse the body as one JSON object, capped in depth (STYLE 9). */
static bool
parse_body(struct req *r)
{
	size_t	 i;

	for (i = 0; i < r->body.len &&
	    isspace((unsigned char)r->body.data[i]); i++)
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

/* Answer an internal error, nothing of the handler's kept. */
static void
internal(struct req *r, enum fb_err e)
{
	publish_abort(r);
	api_internal(r, e);
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
	    "contact", "code", "recovery_code", "challenge_token", NULL };
	json_object	*d = json_object_new_object(), *sent = NULL;
	const char	*text;
	size_t		 i;
	enum fb_err	 e;

	jadd_str(d, "method", r->method);
	jadd_int(d, "status", r->status);
	/* a data-subject request's contact, by its blind index only */
	if (r->audit_bidx[0] != '\0')
		jadd_str(d, "contact_bidx", r->audit_bidx);
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
		text = json_object_to_json_string_ext(d,
		    JSON_C_TO_STRING_PLAIN);
	}
	e = db_audit_add(r->db, r->auth.tenant_id, req_actor_type(r),
	    req_actor_id(r), r->request_id, r->route->operation_id,
	    r->audit_type, r->audit_id[0] != '\0' ? r->audit_id : NULL, text);
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
			(void)api_error(r, AC_IDEMPOTENCY_KEY_IN_PROGRESS,
			    NULL);
			return FB_UNDONE;
		}
		if (e != FB_EDUP)
			return e;
		/* an expired row removed (FB_ENOTFOUND): claimed again */
		if ((e = idem_existing(r, t->endpoint,
		    t->hash)) != FB_ENOTFOUND)
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
	bool		 go;
	enum fb_err	 e = FB_OK;

	reset(r);
	if (t->idem && ((e = idem_claim(t)) != FB_OK ||
	    (e = db_savepoint(db, "handler")) != FB_OK))
		return e;
	/* If-Match first (cond.h): a write of another version is refused */
	if ((e = cond_write_check(r, &go)) == FB_OK && go &&
	    (e = r->route->fn(r)) == FB_OK && r->status == 0)
		e = FB_EINVAL;
	if (e != FB_OK)
		return e;
	if (r->status >= 400 && (r->route->flags & R_KEEP) == 0) {
		if (!t->idem)
			return FB_UNDONE;
		e = db_rollback_to(db, "handler");
	} else if (r->status < 400 && (r->route->flags & R_WRITE) != 0 &&
	    (e = audit(r)) == FB_OK)
		e = cond_write_tag(r);
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
	if (strcmp(r->method, "GET") == 0) {
		if ((e = db_retry(r->db, handler_read, r)) == FB_OK)
			cond_read(r);
	}
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
	/* the blind index keys, read again at most every BIDX_TTL s */
	if ((e = bidx_refresh(r->db, r->conf)) != FB_OK) {
		internal(r, e);
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
	/* a member the tenant requires a second factor of, without one */
	if (r->auth.enrol_only && (r->route->flags & R_ENROL) == 0) {
		(void)api_error(r, AC_TWO_FACTOR_REQUIRED, NULL);
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
	r->route = route_match(r, r->method, r->path, &known, allow,
	    sizeof(allow));
	if (r->route == NULL) {
		/*
		 * With a key that authenticates, the 404 or 405 is counted
		 * and carries the rate headers like any authenticated
		 * answer (contract: Limits); with a bad key or none it is
		 * the 404 or 405 alone, never a 401.
		 */
		if (r->authorization == NULL || *r->authorization == '\0' ||
		    strncmp(r->path, "/api/",
		    5) != 0 || db_ensure(r->db) != FB_OK) {
			no_route(r, known, allow);
			return DISPATCH_DONE;
		}
		e = auth_request(r);
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
	if ((e = bidx_refresh(r->db, r->conf)) != FB_OK ||
	    (e = auth_request(r)) != FB_OK) {
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

void
dispatch_end(struct req *r)
{
	char		 allow[128];
	bool		 known;

	log_set_request_id(r->request_id);
	if (r->status != 0)
		return;
	if (r->route == NULL) {
		(void)route_match(r, r->method, r->path, &known, allow,
		    sizeof(allow));
		no_route(r, known, allow);
	} else
		dispatch_admitted(r);
}
