/*
 * Formback: shared types and prototypes, grouped by the file that
 * implements them.  See docs/internals/ for a note per module.
 */
#ifndef FORMBACK_H
#define FORMBACK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <json-c/json.h>

#include "cdefs.h"
#include "err.h"
#include "buf.h"

#define UUID_STRLEN 36

/* log.c */

enum log_level { LOG_ERR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

/*
 * Logging to stderr, one line per call:
 * "2026-11-22T01:02:03Z formback.fcgi[pid] level rid=<request id> text".
 * Non-printable bytes are written as \xNN.  The request id is the one last
 * set with log_set_request_id(), or "-".
 */
void	log_init(const char *progname, enum log_level);
void	log_set_level(enum log_level);
void	log_set_request_id(const char *);
void	logx(enum log_level, const char *, ...) FB_PRINTF(2, 3);
int	log_level_parse(const char *, enum log_level *);

/* jsonw.c */

/*
 * A DATETIME as the client library writes it, "YYYY-MM-DD HH:MM:SS[.f]",
 * as the contract writes it, "YYYY-MM-DDTHH:MM:SSZ" (into t, returned);
 * anything else, and NULL, as it is.
 */
const char *time_out(const char *v, char t[32]);

/*
 * One-line builders over json-c that accept NULL as null.  The
 * key must outlive the object (a string literal): it is not copied.
 * Adding a key again replaces its value.
 */
void	jadd_str(json_object *, const char *key, const char *val);
void	jadd_int(json_object *, const char *key, long long val);
void	jadd_bool(json_object *, const char *key, bool val);
/*
 * Add a datetime: "YYYY-MM-DD HH:MM:SS[.ffffff]" as the client library
 * writes a DATETIME column (UTC) becomes "YYYY-MM-DDTHH:MM:SSZ"
 * (contract: conventions); anything else, and NULL, as it is.
 */
void	jadd_time(json_object *, const char *key, const char *val);
/* Serialize without escaping '/' (json-c's default). Borrowed string. */
const char *json_text(json_object *);

/*
 * A JSON document written as it is produced, value by value, straight
 * into a struct buf (RFC 8259; no object per value; strings escaped as
 * RFC 8259 7 says, '/' and non-ASCII as they are), for every answer
 * built from typed rows (issue 13).  Inside an object every value is
 * given with its key; inside an array, and for the one top-level value,
 * the key is NULL.  A string NULL is null.  Objects and arrays nest at
 * most JGEN_DEPTH_MAX deep.  The first error (FB_ENOMEM: the buffer's
 * cap; FB_EINVAL: a call out of place) sticks and later calls do
 * nothing; jgen_end() returns it, or FB_EINVAL when the document is not
 * complete.  Nothing to free.
 */
#define JGEN_DEPTH_MAX	32
struct jgen {
	struct buf	*out;
	enum fb_err	 err;
	unsigned	 depth;		/* objects and arrays open */
	uint32_t	 arrays;	/* bit d: level d + 1 is an array */
	uint32_t	 members;	/* bit d: level d + 1 has a value */
	bool		 done;		/* the top-level value is begun */
};
void	jgen_begin(struct jgen *, struct buf *out);
enum fb_err jgen_end(struct jgen *) FB_WUR;
void	jg_obj(struct jgen *, const char *key);
void	jg_obj_end(struct jgen *);
void	jg_arr(struct jgen *, const char *key);
void	jg_arr_end(struct jgen *);
void	jg_str(struct jgen *, const char *key, const char *val);
/* A string of n bytes that need not end with a NUL (val NULL: null). */
void	jg_text(struct jgen *, const char *key, const char *val, size_t n);
void	jg_int(struct jgen *, const char *key, long long val);
void	jg_bool(struct jgen *, const char *key, bool val);
/* A number given as its JSON text ("0.1250"), written as it is. */
void	jg_number(struct jgen *, const char *key, const char *text);
/*
 * A JSON value given as its text, written as it is, NULL as null: a
 * document Formback wrote and stored itself (a JSON column), never one
 * from outside.
 */
void	jg_raw(struct jgen *, const char *key, const char *text);
/* A datetime as jadd_time() writes it. */
void	jg_time(struct jgen *, const char *key, const char *val);
/* A json-c value (borrowed), for the few parts built as objects. */
void	jg_json(struct jgen *, const char *key, json_object *val);
/*
 * Parse s[0..n) from outside as one JSON object (RFC 8259, strict, valid
 * UTF-8 with no escaped surrogate outside a pair, every number finite: no
 * NaN or Infinity, none past a double's range; nested at most `depth`
 * deep, white space only after it).
 * Returns it (the caller puts it) or NULL for anything else.  The one
 * parser of request bodies: the API, the collector, provider receipts.
 */
json_object *json_parse_object(const char *s, size_t n, int depth);

/* text.c: text from outside, checked and cut as it may be kept. */

/* Length of a UTF-8 string in code points; -1 when not valid UTF-8. */
long	utf8_len(const char *);
/*
 * Text from outside (a provider's error, say) as it may be stored: at
 * most `maxchars` characters, cut at a character boundary, an invalid
 * byte or a control character written as '?', into out (outsz bytes,
 * NUL-terminated, cut shorter when full).  Never fails: a value is
 * never refused for its length (issue 11).
 */
void	text_clip(const char *in, size_t maxchars, char *out, size_t outsz);
/*
 * An identifier of ours (campaign key, preset key, site public key): 1 to
 * max characters of [A-Za-z0-9_-].  Every identifier a client or visitor
 * sends is checked with it before it reaches SQL, so a character the
 * column's character set cannot hold is a clear 4xx, never a database
 * error (issue 11).
 */
bool	ident_ok(const char *, size_t max);
#define CAMPAIGN_KEY_MAX	64	/* a campaign key's characters */
#define SITE_KEY_MAX		32	/* a site public key's ("pk_" + 24) */
/* Empty or nothing but white space (ASCII, or the ideographic U+3000)? */
bool	text_blank(const char *);
/*
 * One line of text: no control character (U+0000-U+001F, a line break
 * among them, or U+007F)?  Names and subjects are (body_line()).
 */
bool	text_line(const char *);
/*
 * FNV-1a (32 bits) of string s, continuing from h (FNV1A_INIT for a
 * first string): a slot or a partition, never a secret.
 */
#define FNV1A_INIT	2166136261u
uint32_t fnv1a(uint32_t h, const char *s);
/* Is s one of the strings of `set` (NULL-terminated)? */
bool	one_of(const char *s, const char *const *set);
/*
 * Whether a header may be written, in an HTTP response or an email: the
 * name a token, the value visible ASCII with spaces and tabs (RFC 9110
 * 5.1, 5.5; RFC 5322 2.2), never CR, LF, NUL or another control
 * character, never a byte past 0x7e.  Every header Formback writes passes
 * it (response splitting, CWE-113; header injection, CWE-93).
 */
bool	header_ok(const char *name, const char *value);

/* The token of a short link, /r/, /o/ or /u/ (links.c): base62. */
#define LINK_TOKEN_LEN	10

/* conf.c */

/*
 * The configuration (design 5), loaded from $FORMBACK_CONF or
 * SYSCONFDIR/formback/formback.conf.  Keys, types, bounds and defaults are
 * the rows of conf_keys[] in conf.c, which formback.conf(5) follows.
 */
#define CONF_KEYS_MAX	8	/* earlier master keys kept for opening */

struct conf {
	char		*db_host;
	int		 db_port;
	char		*db_socket;
	char		*db_user;
	char		*db_password;
	char		*db_password_file;	/* db_password read from it */
	char		*db_name;
	int		 db_connect_timeout;	/* seconds, every connection */
	/* seconds a statement's answer may take */
	int		 db_read_timeout;
	/* seconds a statement's sending may take */
	int		 db_write_timeout;
	char		*base_url;
	char		*publish_dir;
	char		*pii_key_file;
	char		*smtp_url;
	int		 smtp_starttls;	/* smtp://: require STARTTLS */
	/* GET /api/v1/metrics answers (issue 18) */
	int		 metrics;
	char		*smtp_from;
	char		*sms_gateway_url;
	char		*sms_gateway_token;
	char		*sms_from;
	int		 sms_provider;	/* enum sms_provider (sms.h) */
	char		*twilio_account_sid;
	char		*twilio_auth_token;
	char		*twilio_messaging_service_sid;
	/* https://api.twilio.com; tests */
	char		*twilio_api_base;
	char		*hook_token;
	char		*webhook_ca_file;
	char		*webhook_allow_hosts;	/* test deployments: "h1,h2" */
	/* tests: "host:port:addr,..." */
	char		*webhook_resolve;
	int		 log_level;
	int		 max_body_bytes;
	int		 max_json_depth;
	/* abuse limits of the public collector (issue 11; formback.conf(5)) */
	/* per site and client address */
	int		 tag_events_per_hour;
	/* with a contact, per site and address */
	int		 tag_captures_per_hour;
	int		 tag_network_captures_per_hour;	/* per its /24, /48 */
	/* with a contact, per visitor's lead */
	int		 tag_visitor_captures;
	/* new leads an hour a site may always have */
	int		 site_new_leads_floor;
	/* times its busiest hour of the week before */
	int		 site_new_leads_factor;
	/* days kept, 0: for ever (formback.fcgi(8) "Retention") */
	int		 tag_event_retention_days;
	int		 audit_retention_days;
	int		 link_retention_days;
	/*
	 * derived from pii_key_file (sodium_malloc'd, 32 bytes each): the
	 * current master key and its id (first line) seal new contacts; the
	 * keys of the lines after it open what was sealed under them
	 * (conf_master_key()); the index key, the file's lowest id, keys
	 * the blind indexes, cursors and device cookies until a rotation
	 * records another in the database (bidx_cur(), pii.h)
	 */
	unsigned char	*master_key;
	unsigned	 master_key_id;
	unsigned char	*index_key;
	unsigned	 index_key_id;
	unsigned char	*old_keys[CONF_KEYS_MAX];
	unsigned	 old_key_ids[CONF_KEYS_MAX];
	size_t		 nold_keys;
};

/*
 * The master key of id `id` from pii_key_file (the current one or an
 * earlier one), or NULL when the file no longer holds it.  Owned by c.
 */
const unsigned char *conf_master_key(const struct conf *c, unsigned id);

/*
 * Load the file at `path` (NULL: $FORMBACK_CONF, then the default path)
 * into `c`, which conf_free() releases.  On failure returns FB_ECONF and
 * writes a message naming the key and line into err.
 */
enum fb_err	 conf_load(struct conf *c, const char *path, char *err,
    size_t errsz) FB_WUR;
void		 conf_free(struct conf *);
const char	*conf_default_path(void);

/* uuid.c */

/*
 * Write a new UUIDv7, lower case (RFC 9562: ms Unix time, its fraction in
 * 4096ths, then 62 random bits): in the order made on one host, strictly
 * increasing within a process.
 */
void	uuid_v7(char out[UUID_STRLEN + 1]);
/* True when s is a canonical 8-4-4-4-12 hex UUID (either case). */
bool	uuid_valid(const char *s);
/* Lower-case a valid UUID in place. */
void	uuid_lower(char *s);
/* Write the 16 octets b (RFC 9562 section 4) as a lower-case UUID. */
void	uuid_from_bytes(const unsigned char b[16], char out[UUID_STRLEN + 1]);
/* The 16 octets of the canonical UUID s into b; false when s is not one. */
bool	uuid_to_bytes(const char *s, unsigned char b[16]);

/* time.c */

/* Format UTC seconds as "YYYY-MM-DDTHH:MM:SSZ" (contract: conventions 3). */
void	time_iso8601(int64_t secs, char out[32]);
/* Format UTC seconds as a MariaDB DATETIME literal "YYYY-MM-DD HH:MM:SS". */
void	time_sql(int64_t secs, char out[32]);
/* Japan Standard Time, UTC+9 all year: the customers' days and months. */
#define TIME_JST	(9 * 3600)
/*
 * Seconds on the monotonic clock (CLOCK_MONOTONIC): for measuring
 * durations only, never a date.
 */
int64_t	time_mono(void);
/*
 * A JST date "YYYY-MM-DD" (contract: Reports, daily) as the UTC seconds
 * of its midnight; -1 when it is not one (2030-02-30 included).
 */
int64_t	time_jst_date(const char *);
/* UTC seconds of the JST midnight that began the JST day holding `secs`. */
int64_t	time_jst_midnight(int64_t secs);
/* The JST month holding UTC seconds `secs`, as "YYYY-MM". */
void	time_jst_month(int64_t secs, char out[8]);
/*
 * Parse an ISO 8601 date-time that carries "Z" or a +hh:mm offset into
 * UTC seconds.  Returns false on anything else.
 */
bool	time_parse_iso8601(const char *s, int64_t *secs);

/* b64.c */

/* base64url without padding.  `out` needs b64url_len(n)+1 bytes. */
size_t	b64url_len(size_t n);
void	b64url_encode(const unsigned char *in, size_t n, char *out);
/* Decode; returns the decoded length or -1 on bad input or overflow. */
long	b64url_decode(const char *in, unsigned char *out, size_t outmax);

/* keys.c */

/*
 * API keys (design 1): "fb_live_" or "fb_test_" then 32 base62 chars.
 * Only the keyed hash is stored (design 6).
 */
#define APIKEY_RANDOM_LEN	32
#define APIKEY_MAX_LEN		64
#define SECRET_HASH_LEN		32

/*
 * Write n characters drawn uniformly from [0-9A-Za-z] by the system's
 * CSPRNG (libsodium's randombytes_buf(), one call per 64 bytes, bytes
 * of 248 and above dropped so that each is uniform modulo 62), then a
 * NUL: out has room for n + 1 bytes.  Tokens, keys and public site keys.
 */
void	random_b62(char *out, size_t n);

/* Whether s is exactly n characters of [0-9A-Za-z]. */
bool	b62_is(const char *s, size_t n);

/* Write a new key of the kind ("live" or "test") into out. */
void	apikey_generate(bool test, char out[APIKEY_MAX_LEN + 1]);
/* True when s has the shape of a Formback key (prefix and alphabet). */
bool	apikey_shape_ok(const char *s, bool *test);
/*
 * BLAKE2b-256 of a secret string -- an API key, a session token, an
 * invitation token -- the only form of it that is stored (design 6).
 */
void	secret_hash(const char *secret, unsigned char out[SECRET_HASH_LEN]);

/*
 * Session and one-time link tokens (issue 16): a 4-character prefix
 * ("fbs_" session, "fbi_" invitation or reset) then base64url of 32
 * random bytes (256 bits), 47 characters in all.
 */
#define TOKEN_LEN		47
/* Write a new token with `prefix` (4 characters) into out. */
void	token_generate(const char *prefix, char out[TOKEN_LEN + 1]);
/* True when s is a token of that prefix: length and alphabet. */
bool	token_shape_ok(const char *s, const char *prefix);

/* scope.c */

/* Scopes (contract: Authentication 7) as bits. */
enum scope {
	SC_CAMPAIGNS_READ = 0,
	SC_CAMPAIGNS_WRITE,
	SC_DELIVERIES_READ,
	SC_LEADS_READ,
	SC_MESSAGES_READ,
	SC_MESSAGES_WRITE,
	SC_REPORTS_READ,
	SC_SCENARIOS_READ,
	SC_SCENARIOS_WRITE,
	SC_SITES_READ,
	SC_SUPPRESSIONS_READ,
	SC_SUPPRESSIONS_WRITE,
	SC_WEBHOOKS_WRITE,
	SCOPE__MAX
};
#define SCOPE_BIT(s)	(1u << (s))
#define SCOPES_ALL	((1u << SCOPE__MAX) - 1)
#define SCOPES_READ	(SCOPE_BIT(SC_CAMPAIGNS_READ) | \
			 SCOPE_BIT(SC_DELIVERIES_READ) | \
			 SCOPE_BIT(SC_LEADS_READ) | \
			 SCOPE_BIT(SC_MESSAGES_READ) | \
			 SCOPE_BIT(SC_REPORTS_READ) | \
			 SCOPE_BIT(SC_SCENARIOS_READ) | \
			 SCOPE_BIT(SC_SITES_READ) | \
			 SCOPE_BIT(SC_SUPPRESSIONS_READ))
/*
 * What a member's role adds (issue 16): bits no API key holds, required
 * by the route table's rows for owners and admins only, or owners only.
 */
#define ROLE_ADMIN	(1u << 30)
#define ROLE_OWNER	(1u << 31)

extern const char *const scope_names[SCOPE__MAX];

/*
 * Parse "all" or a comma-separated list of scope names into bits.
 * Returns false on an unknown or empty name.
 */
bool	 scope_parse(const char *s, uint32_t *bits);
/*
 * True when `have` holds every scope of `need`: operations with several
 * scopes require all of them (contract: Authentication 8).
 */
bool	 scope_covers(uint32_t have, uint32_t need);
/*
 * What a member of `role` may do, as bits (the table in formback.fcgi(8),
 * ROLES): viewer reads; member reads and writes all but webhook
 * endpoints; admin adds webhooks, API keys, settings (ROLE_ADMIN); owner
 * adds members (ROLE_OWNER).  An unknown role gets nothing (0).
 */
uint32_t role_scopes(const char *role);
/* Write the names of bits, comma-separated, into b. */
enum fb_err scope_format(uint32_t bits, struct buf *b) FB_WUR;

/* scope.c: the plans */

enum plan { PLAN_FREE = 0, PLAN_STARTER, PLAN_GROWTH, PLAN_PRO, PLAN__MAX };

/* Plan table (contract: Limits; README "Plans"). */
struct plan_def {
	const char	*name;
	int		 rate_limit;	/* requests per 60 s, per tenant */
	int		 steps_per_scenario;
	int		 webhook_endpoints;
	int		 monthly_sends;
};
extern const struct plan_def plans[PLAN__MAX];
/* Look a plan up by name; returns false when unknown. */
bool	plan_parse(const char *, enum plan *);

#endif /* FORMBACK_H */
