/*
 * Integration-test helpers.  harness.sh starts MariaDB and lighttpd (or,
 * with FB_HTTPD=apache, Apache httpd and mod_fcgid) with formback.fcgi on
 * loopback ports of its own and exports:
 *   FB_TEST_URL   base URL (http://127.0.0.1:PORT)
 *   FB_CTL        path of formbackctl; FORMBACK_CONF its configuration
 *   FB_DB_SOCKET  the MariaDB socket, for checks the API cannot make
 */
#ifndef FB_HARNESS_H
#define FB_HARNESS_H

#include <stdbool.h>
#include <sys/types.h>

#include <json-c/json.h>

struct resp {
	long		 status;
	char		*body;
	char		*headers;	/* raw header block */
	json_object	*json;		/* NULL when the body is not JSON */
};

/* One HTTP request; `key` adds "Authorization: Bearer key"; `hdr` is
 * extra "Name: value" headers, one per line, or NULL.  Aborts the test on
 * failure.
 * A 204 from POST /tag/v1/events returns once tag_settle() does. */
struct resp	*http(const char *method, const char *path, const char *key,
		    const char *body, const char *hdr);
/* Header value (case-insensitive name) or NULL; static storage. */
/* Wait (15 s at most, else fail) until the collector's intake queue is
 * applied: the workers apply it between requests, a moment after the 204. */
void		 tag_settle(void);
/* false: http() does not call tag_settle() (a test of the queue itself). */
extern bool	 tag_autosettle;
/*
 * Hold every applier turn of the intake queue (its tag_ingest_applier
 * rows locked by another session) for `secs` seconds, returning once
 * none can be had: events filed meanwhile stay queued.  appliers_release()
 * ends the hold at once (nothing when it is over).
 */
void		 appliers_hold(int secs);
void		 appliers_release(void);
/*
 * Every INSERT into `table` fails with MariaDB error `err` (a trigger
 * signals it) until inserts_allowed(table): a database refusing a write
 * where the test wants it.
 */
void		 inserts_refused(const char *table, int err);
void		 inserts_allowed(const char *table);
/*
 * The next n updates of `table` where `when` holds (a condition on OLD
 * and NEW) fail as a deadlock would (1213, SQLSTATE 40001), as when
 * another pass's statement crossed them, until deadlocks_removed(table);
 * deadlocks_left(table): how many have not struck yet.
 */
void		 deadlocks_planted(const char *table, const char *when, int n);
int		 deadlocks_left(const char *table);
void		 deadlocks_removed(const char *table);
/* Is the web server Apache httpd (FB_HTTPD=apache), not lighttpd? */
bool		 apache(void);
/*
 * And does it reach formback.fcgi's own socket through mod_proxy_fcgi
 * (FB_APACHE_FCGI=proxy), rather than start it with mod_fcgid?
 */
bool		 apache_proxy(void);
/* The loopback address http() sends from ("127.0.0.2"; NULL: any). */
extern const char *http_source;
/* The base URL http() sends to; NULL: FB_TEST_URL (scripts/cluster's
 * tests switch between its two web hosts). */
extern const char *http_base;
const char	*resp_header(const struct resp *, const char *name);
void		 resp_free(struct resp *);
/* Value at a dotted path ("error.code", "data.0.id") as a string, or NULL. */
const char	*jget(json_object *, const char *path);
json_object	*jobj(json_object *, const char *path);
/* Assert the contract's error envelope. */
void		 expect_error(const struct resp *, long status,
    const char *type,
		    const char *code, const char *param);

/*
 * Start a printf-formatted shell command in the background, its input and
 * output /dev/null; returns the shell's pid ("exec prog ..." makes it the
 * program's).  reap() waits for it `secs` seconds at most and returns its
 * wait status (waitpid(2)), or -1 after killing it when it outlived them.
 */
pid_t		 spawn(const char *fmt,
    ...) __attribute__((format(printf, 1, 2)));
int		 reap(pid_t, int secs);
/* Run formbackctl with a printf-formatted argument string; returns its
 * exit status and, when out is not NULL, the parsed stdout JSON (NULL
 * when it printed none, as a failing command but check-db does). */
int		 ctl(json_object **out, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
/* Set member `id`'s password through formbackctl (on its standard input). */
int		 set_password(const char *id, const char *pw);
/* A member's session: what the admin API wants with each request. */
struct sess {
	char	 cookie[128];	/* "Cookie: fb_session=..." */
	char	 csrf[64];
	/* cookie, CSRF token and Origin, one per line */
	char	 hdr[512];
};
/* POST /api/v1/admin/session with email and password (and `extra`
 * members of the body, ",\"a\":1", or NULL). */
struct resp	*signin(const char *email, const char *pw, const char *extra);
/* Sign in and keep the cookie and CSRF token in s; asserts success. */
void		 session_of(const char *email, const char *pw, struct sess *s);
/* Run SQL as root on the test database; returns the first cell of the
 * first row (static storage) or "" when none. */
const char	*sql(const char *fmt,
    ...) __attribute__((format(printf, 1, 2)));
/* The whole first row, cells separated by tabs (static storage). */
const char	*sql_row(const char *fmt,
    ...) __attribute__((format(printf, 1, 2)));

/*
 * The SMS gateway stand-in's behaviour (tests/standins/sms_gateway.py):
 * knob "delay" answers each send after `value` seconds ("0.05"), knob
 * "fail" answers every send with HTTP status `value` ("503"); NULL puts
 * the knob back.  sms_gateway_normal() puts both back (a .fini).
 */
void		 sms_gateway(const char *knob, const char *value);
void		 sms_gateway_normal(void);
/* Run cron binary `bin` ("formback-deliver") with `args`; its exit status. */
int		 cron(const char *bin, const char *args);
/* How many messages to `intl` (digits after +81) reached the SMS stand-in. */
int		 sms_to(const char *intl);
/*
 * The last MiB of a file, or "" (static storage): the stand-ins' files
 * hold the current test's messages after those of earlier tests.
 */
const char	*file_tail(const char *path);
/*
 * The decoded subject, then the text part, then the HTML part of the
 * `nth` (0-based) mail in the sink to `to`; "" when there is none
 * (static storage).
 */
const char	*mail_to(const char *to, int nth);

struct fx {
	char	 tenant[40];
	char	 member[40];
	char	 site[40];
	char	 site_pk[40];
	char	 live[80];
	char	 test[80];
};

/* A fresh tenant (plan; rate_limit <= 0: plan value, else custom) with an
 * owner, a site and live and test keys with every scope. */
void	fx_new(struct fx *, const char *plan, int rate_limit);
/* A key of the fixture's tenant and owner with the given scopes. */
void	fx_key(const struct fx *, const char *kind, const char *scopes,
	    char out[80], char id_out[40]);
/* Create a campaign through the API; returns its id in out. */
void	fx_campaign(const struct fx *, const char *key, char out[40]);
/*
 * Every page of GET /api/v1/{list}?{query} with limit=25, walked with
 * its cursor: the rows' ids joined by commas into out (n bytes).
 * Returns the index entries MariaDB read meanwhile (index_reads()).
 */
long long	 list_ids(const struct fx *, const char *list,
    const char *query,
		    char *out, size_t n);
/*
 * One page, GET `path` (200 asserted): its rows' ids joined by commas
 * into out (n bytes), its next_cursor into next (nn bytes, "" for none;
 * next may be NULL).  Returns the index entries read meanwhile.
 */
long long	 page_ids(const struct fx *, const char *path, char *out,
		    size_t n, char *next, size_t nn);
/*
 * Rows seq (a seq_1_to_N table of MariaDB's) a second apart from
 * 2030-01-01: an id whose UUIDv7 time is the row's, for rows inserted
 * with created_at '2030-01-01' + INTERVAL seq SECOND.
 */
#define SEQ_ID_SQL "CAST(CONCAT(LPAD(HEX(1893456000000 + seq * 1000), 12, " \
	"'0'), '7000', '8000', LPAD(HEX(seq), 12, '0')) AS UUID)"
/*
 * The first page of GET /api/v1/{list}?limit=50&{query} asserted equal to
 * the 50 newest ids of `table`'s rows of the fixture's tenant that SQL
 * condition `cond` keeps, and the index entries it read (page_ids())
 * asserted under 15,000: a date range of old rows read on its date's
 * index, not through every newer row (db_list_walk()).
 */
void		 old_range_page(const struct fx *, const char *list,
		    const char *query, const char *table, const char *cond);
/*
 * A filter of a list: its query parameter, the column of the list's
 * table it names, and the values to try (up to 3; unused ones NULL).
 */
struct list_filter {
	const char	*param;
	const char	*column;
	const char	*values[3];
};
/* A date range: its query parameters and the condition on the table. */
struct list_range {
	const char	*query;
	const char	*where;
};
/*
 * Every combination of the filters (each left out or set to each of its
 * values) and the ranges (none or each): list_ids() of GET
 * /api/v1/{list} asserted equal to the ids of `table`'s rows of the
 * fixture's tenant that the same conditions keep, newest first.
 */
void		 list_filters_match(const struct fx *, const char *list,
		    const char *table, const struct list_filter *,
		    size_t nfilters, const struct list_range *, size_t nranges);
/*
 * The index entries MariaDB has read one after another so far (its
 * Handler_read_next and Handler_read_prev): how many rows a request
 * walked, as the difference around it.
 */
long long	 index_reads(void);
/*
 * An active campaign `key` (a form rule "/form") whose active scenario
 * has one step on `channel` ("sms", "email"), due 5 minutes after
 * abandonment, its message's link_url `link_url` (NULL: none, so the
 * click link leads to the lead's landing page); the delivery switch
 * `mode` ("off", "test_only", "live").
 */
void	fx_one_step(const struct fx *, const char *key, const char *channel,
	    const char *mode, const char *link_url);

/*
 * One event of the page tag, POST /tag/v1/events unauthenticated: what a
 * test sets, the rest as below.  A NULL string leaves its member out of
 * the body (the collector reads an absent member as a null one).
 */
enum tag_consent {
	TAG_CONSENT_TRUE,	/* "consent":true, the default */
	TAG_CONSENT_FALSE,
	TAG_CONSENT_ABSENT	/* no "consent" member */
};
struct tag_ev {
	const char	*type;		/* "page_view", ...; NULL: "capture" */
	/* a UUID, or a printf pattern of n ("%08d-5555-4555-8555-...") */
	const char	*visitor;	/* the session is the visitor's */
	int		 n;
	const char	*url;		/* NULL: https://shop.example.jp/form */
	const char	*referrer;
	const char	*campaign;	/* its key */
	const char	*role;		/* "form", "thanks", ... */
	const char	*tel, *email;	/* "contact": those set; or none */
	enum tag_consent consent;
	long long	 ts;		/* ms; 0: no "ts" member */
	const char	*site;		/* public key; NULL: the fixture's */
	const char	*origin;	/* an Origin header; NULL: none */
};
/*
 * The JSON body of the event into b (n bytes; f may be NULL when
 * ev->site is set).  tag_ev_send() posts it (through http(), so a 204
 * waits for tag_settle() unless tag_autosettle is false) and returns the
 * response; tag_ev_post() returns its status, logging the body of any
 * but 204, and frees it.
 */
void		 tag_ev_body(const struct fx *f, const struct tag_ev *ev,
		    char *b, size_t n);
struct resp	*tag_ev_send(const struct fx *, const struct tag_ev *);
long		 tag_ev_post(const struct fx *, const struct tag_ev *);

#endif
