/*
 * The database layer.  All SQL lives in src/db/<resource>.c: each file has
 * an enum of statements, a table of {name, sql} rows indexed by it, and
 * typed functions.  Statements are prepared once per connection and
 * cached by (set, index).  Nothing here calls exit(): errors are returned
 * so the caller rolls back and answers.
 */
#ifndef FORMBACK_DB_H
#define FORMBACK_DB_H

#include <stddef.h>
#include <stdint.h>

#include <mysql.h>

#include "../formback.h"
#include "../pii.h"

/* One set per src/db/<resource>.c. */
enum db_set {
	/* db/core.c: auth, rate limit, idempotency, audit */
	DBSET_CORE = 0,
	DBSET_TENANT,		/* db/tenant.c: tenants, members, keys, sites */
	DBSET_CAMPAIGN,		/* db/campaign.c */
	DBSET_MIGRATE,		/* db/migrate.c */
	DBSET_CAPTURE,		/* db/capture.c */
	DBSET_LEAD,		/* db/lead.c */
	DBSET_SCENARIO,		/* db/scenario.c */
	DBSET_SENDING,		/* db/sending.c */
	DBSET_MULTI,		/* multi-row INSERTs (db_run_multi()) */
	DBSET_FLOOD,		/* db/flood.c: the collector's abuse limits */
	DBSET_WEBHOOK,		/* db/webhook.c */
	DBSET_PPCHECK,		/* db/ppcheck.c */
	DBSET_REPORT,		/* db/report.c */
	/* db/member.c: sign-in, sessions, invitations */
	DBSET_MEMBER,
	/* db/testsend.c: test recipients and test sends */
	DBSET_TESTSEND,
	DBSET_OPS,		/* db/ops.c: queues and cron passes */
	DBSET_TWOFACTOR,	/* db/twofactor.c: TOTP, recovery codes */
	DBSET_ROTATION,		/* db/rotation.c: master key rotations */
	DBSET_PERSONAL,		/* db/personal.c: data-subject requests */
	DBSET__MAX
};
#define DBSET_STMT_MAX 112

struct dbstmt {
	const char	*name;	/* for logs: "campaign_get" */
	const char	*sql;	/* '?' placeholders only */
};

/*
 * What a statement's last result took, where the next one's buffers
 * start (kept per connection, capped): a list of a page fetched again
 * fills the same sizes without growing them row by row.
 */
struct dbhint {
	uint32_t	 bytes;		/* its cells' text, NULs included */
	uint32_t	 rows;
};

struct db {
	MYSQL		*my;
	MYSQL_STMT	*cache[DBSET__MAX][DBSET_STMT_MAX];
	struct dbhint	 hint[DBSET__MAX][DBSET_STMT_MAX];
	bool		 broken;	/* connection lost: reopen before use */
	const struct conf *conf;
};

enum dbp_kind { DBP_NULL = 0, DBP_STR, DBP_INT, DBP_BIN };

/* One bound parameter.  Strings and blobs are borrowed, not copied. */
struct dbp {
	enum dbp_kind	 kind;
	const void	*p;
	size_t		 n;
	long long	 i;
};

#define P_STR(s)	db_p_str(s)
#define P_INT(v)	((struct dbp){ .kind = DBP_INT, .i = (v) })
#define P_BIN(b, len)	((struct dbp){ .kind = DBP_BIN, .p = (b), .n = (len) })
#define P_NULL		((struct dbp){ .kind = DBP_NULL })
/*
 * Slot s (0: bidx, 1: bidx2) of a contact's blind indexes (pii.h struct
 * bidx, or NULL) and its key id: NULL when the slot has no key.
 */
#define P_BIDX(b, s)	((b) != NULL && (b)->has[s] ? \
	P_BIN((b)->v[s], PII_BIDXBYTES) : P_NULL)
#define P_BKEY(b, s)	((b) != NULL && (b)->has[s] && (b)->key[s] >= 0 ? \
	P_INT((b)->key[s]) : P_NULL)
/*
 * The `slots` parameters of an IN list from strings v[0 .. n-1]
 * (borrowed, 1 <= n <= slots), the last repeated to fill: one prepared
 * statement serves every count.
 */
void	db_params_in(struct dbp *p, size_t slots, const char *const *v,
    size_t n);
/* 10, 16 and 100 placeholders, for IN lists of that many slots */
#define DB_Q10	"?, ?, ?, ?, ?, ?, ?, ?, ?, ?"
#define DB_Q16	DB_Q10 ", ?, ?, ?, ?, ?, ?"
#define DB_Q100	DB_Q10 ", " DB_Q10 ", " DB_Q10 ", " DB_Q10 ", " DB_Q10 ", " \
	DB_Q10 ", " DB_Q10 ", " DB_Q10 ", " DB_Q10 ", " DB_Q10
/* Parameter list for db_run: DBPARAMS(P_STR(a), P_INT(b)). */
#define DBPARAMS(...)	(const struct dbp[]){ __VA_ARGS__ }, \
	(sizeof((const struct dbp[]){ __VA_ARGS__ }) / sizeof(struct dbp))
#define DBNOPARAMS	NULL, 0

/*
 * A list's date filter (contract: Endpoints, the lead and delivery lists'
 * date_field, from and to): the date column by its index in the list's
 * date fields (0: created_at, the default) and the half-open range
 * [from, to) in unix seconds, each bound only when given.
 */
struct date_range {
	int		 field;
	bool		 has_from, has_to;
	long long	 from, to;
};

/*
 * The two parameters of r written "col >= ? AND col < ?": each bound
 * given, written into fs or ts (32 bytes, which must outlive the
 * statement's run), or, left out, the end of DATETIME's range
 * (DB_TIME_MIN, DB_TIME_MAX): plain bounds, a range the optimizer reads
 * as written, whatever it folds.  Returns 2, the count.
 */
size_t	db_params_range(struct dbp p[2], const struct date_range *r,
	    char fs[32], char ts[32]);

static inline struct dbp
db_p_str(const char *s)
{
	struct dbp p = { .kind = DBP_NULL };

	if (s != NULL) {
		p.kind = DBP_STR;
		p.p = s;
		p.n = __builtin_strlen(s);
	}
	return p;
}

/*
 * A result: every cell as a NUL-terminated string (NULL for SQL NULL),
 * row-major, the strings in one block (`arena`) rather than one
 * allocation each.  Owned by the caller; dbres_free() releases it.
 */
struct dbres {
	unsigned	 nrows;
	unsigned	 ncols;
	char		**cell;
	unsigned long	*len;
	char		*arena;
	unsigned long long affected;
};

/* Cell (row, col) of a result as a binary parameter; SQL NULL stays NULL. */
static inline struct dbp
dbres_param(const struct dbres *r, unsigned row, unsigned col)
{
	size_t	 at = (size_t)row * r->ncols + col;

	return r->cell[at] != NULL ? P_BIN(r->cell[at], r->len[at]) : P_NULL;
}

/*
 * Connect with the configuration's db_* keys; the session time zone is
 * UTC, the character set utf8mb4 and the isolation READ COMMITTED (no gap
 * locks between concurrent captures).  Autocommit stays on: reads cost no
 * COMMIT round trip, and every write starts its transaction with
 * db_begin() and ends it with db_commit() or db_rollback().  Returns
 * FB_EDB (logged) on failure.
 */
enum fb_err	db_open(struct db *, const struct conf *) FB_WUR;
void		db_close(struct db *);
/*
 * How many times in all a transaction that ended FB_ERETRY is run: a
 * deadlock or a lock wait timeout, which InnoDB rolled back whole, so
 * running it again is safe.  For the request core, the queue's applier
 * and the cron jobs' claims (db_tx()).
 */
#define DB_TX_TRIES	3

/* Reopen a connection marked broken; FB_OK when usable. */
enum fb_err	db_ensure(struct db *) FB_WUR;

/*
 * Run statement `idx` of `set` (prepared on first use) with the given
 * parameters.  When `res` is not NULL it receives the rows (a statement
 * without a result set gives zero rows and `affected`).  Errors:
 * FB_EDUP (1062), FB_ERETRY (1213 deadlock, 1205 lock wait timeout),
 * FB_EGONE (connection lost or killed, server shutting down, a Galera
 * node out of the primary component, 1180 a commit given up by the
 * server, 1317/1969 a statement interrupted: nothing kept, marks the db
 * broken so the next use reconnects), FB_EDB otherwise; all logged with
 * the statement's name.
 */
enum fb_err	db_run(struct db *, enum db_set set, int idx,
		    const struct dbstmt *st, const struct dbp *p, size_t np,
		    struct dbres *res) FB_WUR;
/*
 * db_run() of a read of one value: *v the first column of the first row
 * as an integer; 0 and *found false when there is no row or it is NULL.
 */
enum fb_err	db_value(struct db *, enum db_set set, int idx,
		    const struct dbstmt *st, const struct dbp *p, size_t np,
		    long long *v, bool *found) FB_WUR;
/*
 * db_run() of the look-up of one row's tenant by the row's id (the
 * operator's paths name a row by its id alone): the first column into
 * tenant_out; FB_ENOTFOUND when there is no row.
 */
enum fb_err	db_tenant_of(struct db *, enum db_set set, int idx,
		    const struct dbstmt *st, const char *id,
		    char tenant_out[UUID_STRLEN + 1]) FB_WUR;
/* db_run() of a write: *n the rows it changed. */
enum fb_err	db_changed(struct db *, enum db_set set, int idx,
		    const struct dbstmt *st, const struct dbp *p, size_t np,
		    unsigned long long *n) FB_WUR;
/*
 * Multi-row INSERTs: `head` ("INSERT INTO t (a, b) VALUES ") followed by
 * n copies of `row` ("(?, ?)"), ", " between them.  Each kind's text for
 * n rows is written on first use and prepared in the set DBSET_MULTI at
 * kind * DB_MULTI_MAX + n - 1.
 */
enum db_multi {
	DBM_INGEST = 0,		/* db/lead.c: the collector's queued events */
	DBM_TAG_EVENTS,		/* db/lead.c: the applier's tag_events rows */
	DBM_LEADS,		/* db/lead.c: new leads, started */
	DBM_LEADS_CAPTURED,	/* db/lead.c: new leads, captured */
	DBM_OUTBOX,		/* db/core.c: outbox rows */
	DBM_DELIVERIES,		/* db/sending.c: deliveries scheduled */
	DBM_WEBHOOK_DELIVERIES,	/* db/webhook.c: records of a fan-out */
	DBM__MAX
};
#define DB_MULTI_MAX	16
_Static_assert(DBM__MAX * DB_MULTI_MAX <= DBSET_STMT_MAX,
    "DBSET_MULTI holds every kind's DB_MULTI_MAX statements");

/* The most parameters a statement takes: 16 captured leads of 29 */
#define DB_PARAMS_MAX	(DB_MULTI_MAX * 29)

struct dbmulti {
	enum db_multi	 kind;
	const char	*name;	/* for logs */
	const char	*head;
	const char	*row;
};

/*
 * db_run() of kind m's statement for n rows (1 .. DB_MULTI_MAX), their
 * np parameters p in row order.  FB_EINVAL for n out of range, FB_ENOMEM
 * when its text cannot be written; otherwise as db_run().
 */
enum fb_err	db_run_multi(struct db *, const struct dbmulti *m, size_t n,
		    const struct dbp *p, size_t np) FB_WUR;
/* Run a statement without parameters that is not cached (SET, DDL). */
enum fb_err	db_exec_raw(struct db *, const char *sql) FB_WUR;
/* START TRANSACTION. */
enum fb_err	db_begin(struct db *) FB_WUR;
enum fb_err	db_commit(struct db *) FB_WUR;
void		db_rollback(struct db *);
/*
 * SAVEPOINT name, and ROLLBACK TO SAVEPOINT name, in the transaction
 * db_tx() runs: what a part of it undoes while the rest is kept (an
 * idempotency key's claim kept with its refusal, a batch's event
 * applied alone).  name is an SQL identifier of the caller's text,
 * never input.  Errors as db_run().
 */
enum fb_err	db_savepoint(struct db *, const char *name) FB_WUR;
enum fb_err	db_rollback_to(struct db *, const char *name) FB_WUR;
/*
 * fn(db, arg) in a transaction of its own, committed when it returns
 * FB_OK, rolled back otherwise; run again while it (or the commit) ends
 * FB_ERETRY, DB_TX_TRIES times in all, so fn must start from scratch
 * each time.  fn returns FB_UNDONE to have its work rolled back without
 * an error (a refusal, a dry run).  Returns FB_OK when committed,
 * FB_UNDONE, or the last error.  The one owner of formback.fcgi's
 * transactions (the dispatcher's, the queue applier's) and of the cron
 * jobs' claims.
 */
enum fb_err	db_tx(struct db *, enum fb_err (*fn)(struct db *, void *),
		    void *arg) FB_WUR;
/*
 * fn(db, arg) outside a transaction (reads in autocommit), run again
 * while it ends FB_ERETRY, DB_TX_TRIES times in all.  Returns fn's last
 * result.
 */
enum fb_err	db_retry(struct db *, enum fb_err (*fn)(struct db *, void *),
		    void *arg) FB_WUR;

/*
 * Typed rows (STYLE 21).  A resource's columns are written once, as an
 * X-macro of (field, type, SQL expression) rows, the first with F and
 * the others with N:
 *
 *   #define SITE_COLS(F, N) F(id, TEXT, "id") N(name, TEXT, "name") ...
 *
 * It gives the row's struct (DB_FIELDS), the SELECT's column text
 * (DB_SELECT) and the table that db_rows() fills the structs by
 * (DB_COLUMNS).  Callers get structs, never a result cell or a column
 * number.  Types: TEXT and TIME (a DATETIME as the client writes it,
 * "YYYY-MM-DD HH:MM:SS[.ffffff]", UTC) are strings, NULL for SQL NULL;
 * INT is a long long and BOOL a bool (0 for NULL); BIN a struct dbbin.
 */
enum dbt { DBT_TEXT, DBT_TIME, DBT_INT, DBT_BOOL, DBT_BIN };

struct dbbin {
	const unsigned char	*p;	/* NULL for SQL NULL */
	size_t			 n;
};

struct dbcol {
	const char	*name;
	enum dbt	 type;
	size_t		 off;	/* offsetof() the field in the row's struct */
};

#define DB_CTYPE_TEXT	const char *
#define DB_CTYPE_TIME	const char *
#define DB_CTYPE_INT	long long
#define DB_CTYPE_BOOL	bool
#define DB_CTYPE_BIN	struct dbbin
/*
 * A column's name is its JSON name (rowjson.h writes a row's JSON from
 * its list).  An X type is read as its type but never written to JSON
 * (openradtool's noexport); BIN is never written either: sealed
 * contacts and hashes stay out of every answer by construction.
 */
#define DBT_XTEXT	DBT_TEXT
#define DBT_XTIME	DBT_TIME
#define DBT_XINT	DBT_INT
#define DBT_XBOOL	DBT_BOOL
/*
 * Read as TEXT, written to JSON as what they hold: JSON a document
 * Formback stored (jg_raw()), NINT an integer or NULL (a number or
 * null).
 */
#define DBT_JSON	DBT_TEXT
#define DBT_NINT	DBT_TEXT
#define DB_CTYPE_JSON	DB_CTYPE_TEXT
#define DB_CTYPE_NINT	DB_CTYPE_TEXT
#define DB_CTYPE_XTEXT	DB_CTYPE_TEXT
#define DB_CTYPE_XTIME	DB_CTYPE_TIME
#define DB_CTYPE_XINT	DB_CTYPE_INT
#define DB_CTYPE_XBOOL	DB_CTYPE_BOOL
#define DB_FIELD_(f, t, sql)	DB_CTYPE_##t f;
#define DB_FIELDS(COLS)		COLS(DB_FIELD_, DB_FIELD_)
#define DB_SQL_F_(f, t, sql)	sql
#define DB_SQL_N_(f, t, sql)	", " sql
#define DB_SELECT(COLS)		COLS(DB_SQL_F_, DB_SQL_N_)
#define DB_COL_(f, t, sql)	{ #f, DBT_##t, offsetof(DB_ROW, f) },
/* The table of a row struct: #define DB_ROW struct site_row first. */
#define DB_COLUMNS(COLS)	COLS(DB_COL_, DB_COL_)

/*
 * The rows of a typed read: `row` is an array of n structs, whose strings
 * point into `res`; dbrows_free() releases both.
 */
struct dbrows {
	void		*row;
	size_t		 n;
	struct dbres	 res;
};

/*
 * Run statement `idx` of `set` (as db_run()) and read its rows into
 * structs of `rowsize` bytes by the ncols columns `cols`, which must be
 * the statement's, in order (FB_EDB, logged, when they are not).  With
 * `one`, no row is FB_ENOTFOUND (and `out` holds nothing to free).
 */
enum fb_err	db_rows(struct db *, enum db_set set, int idx,
		    const struct dbstmt *st, const struct dbp *p, size_t np,
		    const struct dbcol *cols, size_t ncols, size_t rowsize,
		    bool one, struct dbrows *out) FB_WUR;
void		dbrows_free(struct dbrows *);

/* Above every id: the cursor of a list's first page. */
#define DB_MAX_ID	"ffffffff-ffff-ffff-ffff-ffffffffffff"
/* Below every id (the nil UUID): a read on from the start, or no row. */
#define DB_MIN_ID	"00000000-0000-0000-0000-000000000000"
/* The ends of DATETIME (MariaDB's range): a date range's missing bound. */
#define DB_TIME_MIN	"1000-01-01 00:00:00"
#define DB_TIME_MAX	"9999-12-31 23:59:59"

/*
 * The rows a list statement examines before a page is given up on as a
 * walk in id order (db_list_walk()).
 */
#define DB_WALK_EXAMINED	5000

/*
 * A filtered list page, newest first (issue 13).  With a date range
 * (`ranged`), the optimizer reckons ids and dates independent, so for a
 * range whose rows are older than most of the tenant's (ids and dates go
 * together) it walks the list's index in id order from the cursor
 * through every newer row: 100,000 rows, 270 ms, for the first page of
 * last month.  So the page statement `list` runs with DB_WALK_EXAMINED
 * rows examined at most ("LIMIT ? ROWS EXAMINED ?"); when that cuts the
 * page short (a short page with a warning, 1931: asked in one more round
 * trip), statement `sorted` (the same, on the date's index: the range's
 * rows, sorted) answers instead.  Without a range, `list` runs once,
 * unbounded.
 *
 * p[0 .. np): the statements' parameters, the page's LIMIT (an integer)
 * next to last, and last the rows examined (set here).  Rows as
 * db_rows(); statements of `set` in `sql`.
 */
enum fb_err	db_list_walk(struct db *, enum db_set set,
		    const struct dbstmt *sql, int list, int sorted,
		    struct dbp *p, size_t np, bool ranged,
		    const struct dbcol *cols, size_t ncols, size_t rowsize,
		    struct dbrows *out) FB_WUR;

void		dbres_init(struct dbres *);
void		dbres_free(struct dbres *);
/* Cell (r, c); NULL for SQL NULL or out of range. */
const char	*dbres_get(const struct dbres *, unsigned r, unsigned c);
long long	 dbres_int(const struct dbres *, unsigned r, unsigned c);

#endif
