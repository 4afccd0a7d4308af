/*
 * The request core of formback.fcgi: the request, the route table's
 * types, responses and errors, request bodies, paging and the dispatcher
 * (req.c, body.c, page.c, dispatch.c, route.c).  The dispatcher applies
 * the route row's policy -- authentication, rate limit, scopes,
 * parameter checks, idempotency, the transaction, dry runs and the audit
 * row -- so handlers only do their resource's work.  Handlers are
 * declared in api.h.
 */
#ifndef FORMBACK_REQ_H
#define FORMBACK_REQ_H

#include "formback.h"
#include "db/db.h"

#define REQ_MAX_QUERY	32
#define REQ_MAX_PATHVARS 4
#define REQ_MAX_HEADERS	16
#define REQ_MAX_PUBLISH	4

/* Kinds of request parameter (path and query), checked by the dispatcher. */
enum ptype {
	PT_UUID,	/* canonical UUID, lower-cased */
	PT_STRING,	/* free text, at most `max` bytes */
	PT_ENUM,	/* one of `enums` ("a|b|c") */
	PT_BOOL,	/* true|false (also 1|0) */
	PT_INT,		/* integer in [min, max] */
	/* page size, 1..200, default `def` (contract: conventions 5) */
	PT_LIMIT,
	PT_CURSOR,	/* an opaque cursor issued by this list */
	PT_DATETIME,	/* ISO 8601 date-time with offset */
};

enum pin { IN_PATH, IN_QUERY };

struct param_def {
	const char	*name;
	enum pin	 in;
	enum ptype	 type;
	bool		 required;
	const char	*enums;
	long		 min, max, def;
	const char	*desc;		/* English, for openapi.json */
};

/* Route flags. */
#define R_PUBLIC	0x01	/* no API key (openapi.json, the tag, links,
				   receipts) */
#define R_WRITE		0x02	/* changes data: audit row, dry run for
				   test keys */
#define R_INTERNAL	0x04	/* outside the public contract: not in
				   openapi.json */
#define R_TX		0x08	/* a public route that writes: one
				   transaction */
#define R_COLLECT	0x10	/* the tag's events: filed in batches
				   (main loop) */
#define R_RAW		0x40	/* the body is the handler's to read (CSV),
				   not JSON */
#define R_SESSION	0x20	/* a member's session only: an API key gets 403
				   session_required (issue 16) */
#define R_KEEP		0x80	/* a refusal (4xx) is committed too: what it
				   counts (a sign-in's failure, a code's try) */
#define R_ENROL		0x100	/* reachable by a member who must enrol a
				   second factor first (issue 43): others
				   answer 403 two_factor_required */

struct req;
typedef enum fb_err (*handler_fn)(struct req *);

/*
 * One row of the route table (route.c).  The dispatcher applies every
 * column; openapi.c describes the same rows.
 */
struct route {
	const char		*method;
	const char		*path;		/* "/api/v1/sites/{site_id}" */
	handler_fn		 fn;
	const char		*operation_id;	/* contract: Authentication 7 */
	uint32_t		 scopes;	/* all are required */
	unsigned		 flags;
	const struct param_def	*params;	/* NULL-terminated by name */
	/* components/schemas name or NULL */
	const char		*body_schema;
	int			 status;	/* success status */
	const char		*resp_schema;	/* NULL: no body (204) */
	const char		*media;		/* a body not JSON: its type */
	const char		*summary;
};

extern const struct route routes[];
extern const size_t routes_len;

struct qparam {
	char	*name;
	char	*value;
};

struct auth {
	/* a member's session (issue 16): no key_id, the member's role */
	bool		 session;
	char		 session_id[UUID_STRLEN + 1];
	char		 session_token[TOKEN_LEN + 1];
	char		 role[16];
	/*
	 * the tenant requires a second factor and the member has none:
	 * only R_ENROL routes (issue 43, item 4)
	 */
	bool		 enrol_only;
	char		 key_id[UUID_STRLEN + 1];
	char		 tenant_id[UUID_STRLEN + 1];
	char		 member_id[UUID_STRLEN + 1];
	bool		 test;
	uint32_t	 scopes;
	int		 rate_limit;	/* effective: custom or plan */
	/* a cached look-up (authcache.c) waiting for auth_admit() */
	bool		 cached;
	long long	 epoch;
	unsigned char	 hash[SECRET_HASH_LEN];
};

/* The window a tenant's rate limit counts requests over (contract: Limits). */
#define RATE_WINDOW_SECONDS	60

struct rate {
	bool		 set;
	int		 limit, remaining;
	long long	 reset;		/* unix seconds */
	long long	 retry_after;	/* seconds, when rejected */
	long long	 data_epoch;	/* rate_result's, when set */
};

struct req {
	/* input */
	const char		*method;
	char			*path;		/* decoded path, no query */
	char			*query;		/* raw query string */
	struct qparam		 q[REQ_MAX_QUERY];
	size_t			 nq;
	const char		*authorization;
	const char		*idem_key;
	const char		*if_match;	/* If-Match header */
	const char		*if_none_match;	/* If-None-Match header */
	const char		*content_type;
	const char		*origin;	/* Origin header */
	const char		*cookie;	/* Cookie header */
	const char		*csrf_token;	/* X-CSRF-Token header */
	/* X-Twilio-Signature (twilio.c) */
	const char		*twilio_signature;
	/* REMOTE_ADDR, as the web server saw it */
	const char		*client_addr;
	/*
	 * X-Formback-Fault: a fault asked for; builds with FB_FAULT_POINTS only
	 */
	const char		*fault;
	long			 content_length;
	struct buf		 body;
	bool			 body_too_large;
	json_object		*json;		/* parsed body, or NULL */
	char			 request_id[UUID_STRLEN + 1];

	/* routing */
	const struct route	*route;
	char			 pathvar_name[REQ_MAX_PATHVARS][64];
	char			*pathvar[REQ_MAX_PATHVARS];
	size_t			 npathvars;

	/* context */
	struct db		*db;
	const struct conf	*conf;
	struct auth		 auth;
	bool			 authed;
	bool			 dry_run;
	bool			 replayed;	/* Idempotency-Replayed: true */
	/* the write transaction committed */
	bool			 committed;
	struct rate		 rate;

	/* tag configurations written for this request (publish.c) */
	char			 publish_site[REQ_MAX_PUBLISH][UUID_STRLEN + 1];
	char			*publish_tmp[REQ_MAX_PUBLISH];
	char			*publish_final[REQ_MAX_PUBLISH];
	size_t			 npublish;

	/* audit (set by write handlers) */
	const char		*audit_type;
	char			 audit_id[UUID_STRLEN + 1];
	/* a contact's blind index, hex, when the write names one (issue 43) */
	char			 audit_bidx[65];

	/* output */
	int			 status;
	struct buf		 out;
	const char		*out_type;	/* NULL: JSON */
	/* replays answer this, not out */
	char			*idem_body;
	char			*hdr_name[REQ_MAX_HEADERS];
	char			*hdr_value[REQ_MAX_HEADERS];
	size_t			 nhdr;
};

/* req.c */

/* Prepare r for a new request; req_release() frees what it gathered. */
void		 req_init(struct req *, struct db *, const struct conf *);
void		 req_release(struct req *);
/*
 * Split the raw query string into r->q with percent-decoding.  Returns
 * FB_EINVAL on bad escapes (with the parameter's name, as sent, in
 * bad[0..badsz-1]) or too many parameters (bad empty).
 */
enum fb_err	 req_parse_query(struct req *, const char *query, char *bad,
		    size_t badsz) FB_WUR;
/* Value of the first query parameter `name`, or NULL. */
const char	*req_query(const struct req *, const char *name);
/* Value of path variable `name` ("site_id"), or NULL. */
const char	*req_pathvar(const struct req *, const char *name);
/*
 * Add a response header; both strings are copied.  FB_EINVAL (logged,
 * nothing added) when header_ok() refuses it; FB_ENOMEM when full.
 */
enum fb_err	 req_header(struct req *, const char *name, const char *value);
/* Drop headers and body, for a retried transaction. */
void		 req_reset_response(struct req *);

/*
 * Set a success response: status and the JSON object, which this takes
 * over (json_object_put).  Returns FB_OK or FB_ENOMEM.
 */
enum fb_err	 req_json(struct req *, int status, json_object *) FB_WUR;
/*
 * A row's writer for the streamed answers: the members of one object
 * (jgen, formback.h), without its braces.
 */
typedef void (*row_gen)(struct jgen *, const void *row);
/*
 * Set a success response: status and the object whose members gen writes
 * of row, written as it is produced.  Returns FB_OK or FB_ENOMEM.
 */
enum fb_err	 req_row(struct req *, int status, row_gen gen,
    const void *row) FB_WUR;
/*
 * The same for an answer written by the caller: req_gen_begin() opens the
 * object; req_gen_end() closes it, sets the status and returns the
 * generator's error.
 */
void		 req_gen_begin(struct req *, struct jgen *);
enum fb_err	 req_gen_end(struct req *, struct jgen *, int status) FB_WUR;
/*
 * Keep the body written so far as the one an idempotent replay answers
 * (contract: Idempotency 6: a secret only in the first response); the
 * handler then writes the real one.  FB_ENOMEM when out of memory.
 */
enum fb_err	 req_keep_for_replay(struct req *) FB_WUR;
/* Who made the request, as the audit log names it: "api_key" or "session". */
const char	*req_actor_type(const struct req *);
/* The key's id, or the signed-in member's. */
const char	*req_actor_id(const struct req *);
/* A response without a body (204). */
void		 req_empty(struct req *, int status);

/*
 * Write the contract's error envelope (contract: Errors) for `code`, with
 * `param` naming the offending field (NULL: none) and the request id.
 * Always returns FB_OK so handlers can `return api_error(...)`.
 */
enum fb_err	 api_error(struct req *, enum api_code, const char *param);
/*
 * The same, with more members in the error object after request_id,
 * written by more(j, arg) (contract: Errors; 409 tenant_required lists
 * the tenants).
 */
enum fb_err	 api_error_with(struct req *, enum api_code, const char *param,
		    void (*more)(struct jgen *, const void *), const void *arg);
/*
 * Answer an internal error e in the same envelope, the answer so far
 * dropped: 503 unavailable for a database away or a deadlock that
 * outlasted its tries (FB_EGONE, FB_ERETRY), else 500 internal.  Logged.
 */
void		 api_internal(struct req *, enum fb_err e);

/*
 * body.c: reading JSON body fields with the contract's errors.  Each
 * returns 1 when the field holds a value, 0 when it is absent or null
 * (allowed only when not required), and -1 after writing a 422 naming the
 * field (parameter_missing or parameter_invalid).
 */
int	body_str(struct req *, const char *name, bool required, size_t maxchars,
	    const char **out);
/*
 * body_str() for a one-line text (a name, a subject): one that is not
 * text_line() is 422 parameter_invalid too.
 */
int	body_line(struct req *, const char *name, bool required,
	    size_t maxchars, const char **out);
int	body_int(struct req *, const char *name, bool required, long long min,
	    long long max, long long *out);
int	body_bool(struct req *, const char *name, bool required, bool *out);
/* True when the body has `name` at all (even null). */
bool	body_has(struct req *, const char *name);
/* page.c: cursor paging (contract: conventions 5; design 6). */

struct page {
	int	 limit;
	bool	 has_after;
	/* last id of the previous page */
	char	 after[UUID_STRLEN + 1];
};

/*
 * Read `limit` and `cursor` (already shape-checked by the dispatcher) for
 * the current route.  A cursor is base64url of (version, list tag, last id)
 * plus a MAC under a key derived from the master key over it and its
 * scope (the list, the tenant, the path, the filters), so a cursor never
 * issued by this list for this tenant and these filters is refused: 400
 * cursor_invalid, param "cursor".
 * Returns 0, or -1 after writing the error.
 */
int	page_from_req(struct req *, struct page *);

/*
 * Read a list's date filter (contract: Endpoints, the lead and delivery
 * lists) into *out: `date_field`, one of the nfields names of `fields`
 * (the dispatcher has checked it against the route's values; absent, the
 * first), and `from` and `to` (ISO 8601, shape-checked there too).  A
 * range that does not end after it begins is 400 parameter_invalid,
 * param "to".  Returns 0, or -1 after writing the error.
 */
int	page_range_from_req(struct req *, const char *const *fields,
	    size_t nfields, struct date_range *out);

/* A string member a list answer adds after "data" (page_answer()). */
struct page_member {
	const char	*key;
	const char	*value;
};

/*
 * Answer a list page (contract: conventions 5), written as it is
 * produced (issue 13): "object", "data" with an object of gen(row) for
 * the first pg->limit of the structs of `rowsize` bytes in `rows` (up to
 * limit+1, typed rows, db.h), the members of `extra` (may be NULL; ended
 * by a NULL key), then "next_cursor" (signed with the id of the last row
 * shown, a string field at `id_off`, offsetof) and "has_more".  `rows`
 * is freed here.
 */
enum fb_err page_answer(struct req *, const struct page *, struct dbrows *rows,
	    size_t rowsize, size_t id_off, row_gen gen,
	    const struct page_member *extra) FB_WUR;
/*
 * A list's rows from the database for export_answer(): those after id
 * `after` (NULL: from the newest), n at most, of the filter `filter`.
 */
typedef enum fb_err (*page_fetch)(struct req *, const void *filter,
	    const char *after, int n, struct dbrows *out);
struct csvw;
/*
 * Answer a CSV export (issue 43; RFC 4180, UTF-8 with a byte-order mark
 * so that Excel reads it as UTF-8): head() writes the header record,
 * then row() one record per row of the structs of `rowsize` bytes that
 * fetch() gives, page after page (EXPORT_PAGE rows, the next after the
 * id at `id_off` of the last), EXPORT_MAX_ROWS at most: an export cut
 * there says Formback-Export-Truncated: true.  The file is named
 * `name`-YYYYMMDD.csv (the JST day).  Errors: fetch()'s, FB_ENOMEM.
 */
#define EXPORT_PAGE	1000
#define EXPORT_MAX_ROWS	100000
enum fb_err export_answer(struct req *, const char *name, page_fetch fetch,
	    const void *filter, size_t rowsize, size_t id_off,
	    void (*head)(struct csvw *),
	    void (*row)(struct csvw *, const void *)) FB_WUR;
/* Encode and decode cursors for list `tag` (unit-tested). */
void	cursor_encode(const unsigned char *mk, const char *tag, const char *id,
	    char *out, size_t outsz);
bool	cursor_decode(const unsigned char *mk, const char *tag, const char *cur,
	    char id[UUID_STRLEN + 1]);

/* dispatch.c */

/*
 * Every path formback.fcgi answers is a row of the one route table
 * (route.c); the dispatcher applies the row's policy and is the one place
 * that begins and ends transactions.  Requests are handled in three
 * steps, so that the rate admissions (contract: Limits) of those that
 * arrived together are made with one statement per tenant
 * (db_rate_admit_n()) instead of one each, and the tag's events that
 * arrived together are filed with one INSERT.
 * dispatch_begin() answers r (DISPATCH_DONE), or says that r,
 * authenticated by a cached key look-up, waits for its admission
 * (DISPATCH_ADMIT), or that r is one of the tag's events
 * (DISPATCH_COLLECT: tag_collect_begin() takes it over);
 * auth_admit() (auth.h) admits the waiting ones among rs[0..n-1] (or answers
 * them: 401 after a stale look-up, 429); dispatch_end() then answers a
 * request dispatch_begin() left waiting.
 */
enum dispatch_next { DISPATCH_DONE, DISPATCH_ADMIT, DISPATCH_COLLECT };
enum dispatch_next dispatch_begin(struct req *r);
void	dispatch_end(struct req *r);
/*
 * Find the route for (method, path); HEAD takes the GET row.  Returns it
 * and fills the path variables; NULL with *path_known set when the path
 * exists for another method (then `allow` holds "GET, POST").
 */
const struct route *route_match(struct req *, const char *method,
	    const char *path, bool *path_known, char *allow, size_t allowsz);

#endif
