/*
 * Connection, statement cache and the generic runner over the MariaDB
 * Connector/C prepared-statement API.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errmsg.h>
#include <mysqld_error.h>

#include "db.h"

static enum fb_err
db_classify(struct db *db, unsigned int e)
{
	switch (e) {
	case ER_DUP_ENTRY:
		return FB_EDUP;
	case ER_LOCK_DEADLOCK:
	case ER_LOCK_WAIT_TIMEOUT:
		return FB_ERETRY;
	case CR_SERVER_GONE_ERROR:
	case CR_SERVER_LOST:
	case CR_CONNECTION_ERROR:
	case ER_CONNECTION_KILLED:
	case ER_SERVER_SHUTDOWN:
	/* a Galera node out of the primary component: another may serve */
	case ER_UNKNOWN_COM_ERROR:
	/*
	 * The server gave the statement or its transaction up for a state
	 * of its own, nothing of it kept: a Galera view change under a
	 * commit (wsrep's "error during commit"), a statement interrupted
	 * or over the server's max_statement_time.  A new connection,
	 * maybe to another node, may serve.
	 */
	case ER_ERROR_DURING_COMMIT:
	case ER_QUERY_INTERRUPTED:
	case ER_STATEMENT_TIMEOUT:
		db->broken = true;
		return FB_EGONE;
	default:
		return FB_EDB;
	}
}

/*
 * A statement's failure, classified: one that gives no code of its own
 * (a fetch cut off when its server died said nothing, and was answered
 * 500 in the cluster suite) leaves the connection in no known state, so
 * it is taken as lost.
 */
static enum fb_err
db_stmt_failed(struct db *db, MYSQL_STMT *s)
{
	unsigned int	 e = mysql_stmt_errno(s);

	return db_classify(db, e != 0 ? e : CR_SERVER_LOST);
}

/*
 * The next server of db_host's list at *list: "host" or "host:port" (an
 * IPv6 address in brackets), items separated by commas; no port of its
 * own, db_port.  Advances *list; false at the end or on an item too long.
 */
static bool
next_server(const char **list, char *host, size_t hostsz, unsigned *port,
    unsigned defport)
{
	const char	*p = *list, *end, *colon;
	size_t		 n;

	p += strspn(p, " \t,");
	if (*p == '\0')
		return false;
	end = p + strcspn(p, ",");
	*list = end;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*port = defport;
	if (*p == '[' && (colon = memchr(p, ']', (size_t)(end - p))) != NULL) {
		n = (size_t)(colon - p - 1);
		p++;
		colon = colon[1] == ':' ? colon + 1 : NULL;
	} else {
		colon = memchr(p, ':', (size_t)(end - p));
		n = (size_t)((colon != NULL ? colon : end) - p);
	}
	if (n == 0 || n >= hostsz)
		return false;
	memcpy(host, p, n);
	host[n] = '\0';
	if (colon != NULL)
		*port = (unsigned)strtoul(colon + 1, NULL, 10);
	return *port > 0 && *port <= 65535;
}

/*
 * Connect: the socket when db_socket is set, else each server of db_host
 * in its order until one answers, each for db_connect_timeout at most
 * (formback.conf(5); issue 19: the cluster's node written through, then
 * the next when it is gone).  Every worker tries the same order, so they
 * all write through the first node that answers.
 */
static bool
connect_any(MYSQL *my, const struct conf *c)
{
	const char	*list = c->db_host != NULL ? c->db_host : "127.0.0.1";
	char		 host[256];
	unsigned	 port;

	if (c->db_socket != NULL)
		return mysql_real_connect(my, NULL, c->db_user, c->db_password,
		    c->db_name, 0, c->db_socket, CLIENT_MULTI_RESULTS) != NULL;
	while (next_server(&list, host, sizeof(host), &port,
	    (unsigned)c->db_port)) {
		if (mysql_real_connect(my, host, c->db_user, c->db_password,
		    c->db_name, port, NULL, CLIENT_MULTI_RESULTS) != NULL)
			return true;
		logx(LOG_WARN, "cannot connect to %s:%u: %s", host, port,
		    mysql_error(my));
	}
	return false;
}

enum fb_err
db_open(struct db *db, const struct conf *c)
{
	unsigned int	 ctmo = (unsigned)c->db_connect_timeout;
	unsigned int	 rtmo = (unsigned)c->db_read_timeout;
	unsigned int	 wtmo = (unsigned)c->db_write_timeout;
	my_bool		 off = 0;
	char		 init[256];

	memset(db, 0, sizeof(*db));
	db->conf = c;
	if ((db->my = mysql_init(NULL)) == NULL)
		return FB_ENOMEM;
	/*
	 * A database that stops answering (frozen, a network gone quiet)
	 * costs a request these many seconds, then the connection is
	 * dropped and the request answered 503 (formback.conf(5)).
	 */
	mysql_options(db->my, MYSQL_OPT_CONNECT_TIMEOUT, &ctmo);
	mysql_options(db->my, MYSQL_OPT_READ_TIMEOUT, &rtmo);
	mysql_options(db->my, MYSQL_OPT_WRITE_TIMEOUT, &wtmo);
	mysql_options(db->my, MYSQL_SET_CHARSET_NAME, "utf8mb4");
	/*
	 * A lock wait ends well inside the read timeout, so that it is seen
	 * as what it is (retried, design 6), not as a database gone away.
	 */
	snprintf(init, sizeof(init), "SET time_zone = '+00:00', sql_mode = "
	    "'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ENGINE_SUBSTITUTION,"
	    "ERROR_FOR_DIVISION_BY_ZERO', innodb_lock_wait_timeout = %u, "
	    "tx_isolation = 'READ-COMMITTED'", rtmo > 2 ? rtmo / 2 : 1);
	mysql_options(db->my, MYSQL_INIT_COMMAND, init);
	mysql_options(db->my, MYSQL_REPORT_DATA_TRUNCATION, &off);
	if (!connect_any(db->my, c)) {
		logx(LOG_ERR, "cannot connect to database '%s': %s",
		    c->db_name, mysql_error(db->my));
		mysql_close(db->my);
		db->my = NULL;
		return FB_EDB;
	}
	return FB_OK;
}

enum fb_err
db_begin(struct db *db)
{
	if (mysql_real_query(db->my, "START TRANSACTION", 17) != 0) {
		logx(LOG_ERR, "cannot start a transaction: %s",
		    mysql_error(db->my));
		return db_classify(db, mysql_errno(db->my));
	}
	return FB_OK;
}

void
db_close(struct db *db)
{
	size_t	 s, i;

	for (s = 0; s < DBSET__MAX; s++)
		for (i = 0; i < DBSET_STMT_MAX; i++)
			if (db->cache[s][i] != NULL) {
				mysql_stmt_close(db->cache[s][i]);
				db->cache[s][i] = NULL;
			}
	if (db->my != NULL)
		mysql_close(db->my);
	db->my = NULL;
}

enum fb_err
db_ensure(struct db *db)
{
	const struct conf *c = db->conf;

	if (db->my != NULL && !db->broken)
		return FB_OK;
	db_close(db);
	return db_open(db, c);
}

enum fb_err
db_exec_raw(struct db *db, const char *sql)
{
	MYSQL_RES	*r;

	if (mysql_real_query(db->my, sql, strlen(sql)) != 0) {
		logx(LOG_ERR, "cannot run '%.60s': %s", sql,
		    mysql_error(db->my));
		return db_classify(db, mysql_errno(db->my));
	}
	/* Drain every result so the connection stays usable. */
	do {
		if ((r = mysql_store_result(db->my)) != NULL)
			mysql_free_result(r);
	} while (mysql_next_result(db->my) == 0);
	if (mysql_errno(db->my) != 0) {
		logx(LOG_ERR, "cannot run '%.60s': %s", sql,
		    mysql_error(db->my));
		return db_classify(db, mysql_errno(db->my));
	}
	return FB_OK;
}

enum fb_err
db_commit(struct db *db)
{
	if (mysql_commit(db->my) != 0) {
		logx(LOG_ERR, "cannot commit: %s", mysql_error(db->my));
		return db_classify(db, mysql_errno(db->my));
	}
	return FB_OK;
}

enum fb_err
db_tx(struct db *db, enum fb_err (*fn)(struct db *, void *), void *arg)
{
	enum fb_err	 e = FB_OK;
	int		 try;

	for (try = 0; try < DB_TX_TRIES; try++) {
		if ((e = db_begin(db)) != FB_OK)
			return e;
		if ((e = fn(db, arg)) == FB_OK && (e = db_commit(db)) == FB_OK)
			return FB_OK;
		db_rollback(db);
		if (e != FB_ERETRY)
			return e;
	}
	return e;
}

enum fb_err
db_retry(struct db *db, enum fb_err (*fn)(struct db *, void *), void *arg)
{
	enum fb_err	 e = FB_OK;
	int		 try;

	for (try = 0; try < DB_TX_TRIES; try++)
		if ((e = fn(db, arg)) != FB_ERETRY)
			break;
	return e;
}

enum fb_err
db_savepoint(struct db *db, const char *name)
{
	char	 q[96];

	snprintf(q, sizeof(q), "SAVEPOINT %s", name);
	return db_exec_raw(db, q);
}

enum fb_err
db_rollback_to(struct db *db, const char *name)
{
	char	 q[96];

	snprintf(q, sizeof(q), "ROLLBACK TO SAVEPOINT %s", name);
	return db_exec_raw(db, q);
}

void
db_rollback(struct db *db)
{
	if (db->my != NULL && !db->broken && mysql_rollback(db->my) != 0) {
		logx(LOG_ERR, "cannot roll back: %s", mysql_error(db->my));
		(void)db_classify(db, mysql_errno(db->my));
	}
}

void
db_params_in(struct dbp *p, size_t slots, const char *const *v, size_t n)
{
	size_t	 i;

	for (i = 0; i < slots; i++)
		p[i] = P_STR(v[i < n ? i : n - 1]);
}

void
dbres_init(struct dbres *r)
{
	memset(r, 0, sizeof(*r));
}

void
dbres_free(struct dbres *r)
{
	free(r->arena);
	free(r->cell);
	free(r->len);
	memset(r, 0, sizeof(*r));
}

const char *
dbres_get(const struct dbres *r, unsigned row, unsigned col)
{
	if (row >= r->nrows || col >= r->ncols)
		return NULL;
	return r->cell[(size_t)row * r->ncols + col];
}

long long
dbres_int(const struct dbres *r, unsigned row, unsigned col)
{
	const char	*s = dbres_get(r, row, col);

	return s != NULL ? strtoll(s, NULL, 10) : 0;
}

static MYSQL_STMT *
db_prepare(struct db *db, enum db_set set, int idx, const struct dbstmt *st)
{
	MYSQL_STMT	*s;

	if (set >= DBSET__MAX || idx < 0 || idx >= DBSET_STMT_MAX)
		abort();
	if ((s = db->cache[set][idx]) != NULL)
		return s;
	if ((s = mysql_stmt_init(db->my)) == NULL)
		return NULL;
	if (mysql_stmt_prepare(s, st->sql, strlen(st->sql)) != 0) {
		logx(LOG_ERR, "cannot prepare statement '%s': %s", st->name,
		    mysql_stmt_error(s));
		(void)db_stmt_failed(db, s);
		mysql_stmt_close(s);
		return NULL;
	}
	db->cache[set][idx] = s;
	return s;
}

/*
 * A DATETIME or TIMESTAMP as the connector writes one into a string
 * buffer: "YYYY-MM-DD HH:MM:SS", then the fraction to the column's
 * decimals (1 to 6), without its sprintf per cell.  Answers the length.
 */
static size_t
time_text(const MYSQL_TIME *t, unsigned decimals, char out[32])
{
	unsigned long	 v[6] = { t->year, t->month, t->day, t->hour, t->minute,
			    t->second };
	static const char sep[6] = { '-', '-', ' ', ':', ':', '\0' };
	unsigned long	 f;
	size_t		 o = 0, i, w, d;

	for (i = 0; i < 6; i++) {
		for (w = i == 0 ? 4 : 2, d = w; d > 0; d--) {
			out[o + d - 1] = (char)('0' + v[i] % 10);
			v[i] /= 10;
		}
		o += w;
		if (sep[i] != '\0')
			out[o++] = sep[i];
	}
	if (decimals > 0 && decimals < 7) {
		out[o++] = '.';
		for (f = t->second_part, d = 6; d > 0; d--) {
			if (d <= decimals)
				out[o + d - 1] = (char)('0' + f % 10);
			f /= 10;
		}
		o += decimals;
	}
	out[o] = '\0';
	return o;
}

size_t
db_params_range(struct dbp p[2], const struct date_range *r, char fs[32],
    char ts[32])
{
	if (r->has_from)
		time_sql(r->from, fs);
	if (r->has_to)
		time_sql(r->to, ts);
	p[0] = P_STR(r->has_from ? fs : DB_TIME_MIN);
	p[1] = P_STR(r->has_to ? ts : DB_TIME_MAX);
	return 2;
}

/* The largest start db_fetch() takes from a statement's last result. */
#define HINT_BYTES_MAX	(256u * 1024)
#define HINT_ROWS_MAX	1024u

/* One column's place to fetch into, beside its MYSQL_BIND. */
struct fetchcol {
	MYSQL_TIME	 time;		/* a DATETIME or TIMESTAMP */
	unsigned long	 len;
	unsigned	 decimals;
	bool		 is_time;
	my_bool		 null, err;
	char		 buf[64];	/* a longer value: fetched again */
};

/*
 * Grow the row arrays of `res` (and the offsets beside them) to `cap`
 * rows of `nc` cells.
 */
static bool
fetch_rows_grow(struct dbres *res, size_t **off, size_t cap, unsigned nc)
{
	char		**cell;
	unsigned long	*len;
	size_t		*o;

	if ((cell = realloc(res->cell, cap * nc * sizeof(*cell))) == NULL)
		return false;
	res->cell = cell;
	if ((len = realloc(res->len, cap * nc * sizeof(*len))) == NULL)
		return false;
	res->len = len;
	if ((o = realloc(*off, cap * nc * sizeof(*o))) == NULL)
		return false;
	*off = o;
	return true;
}

/* The cells' block (db_fetch()): end to end, each NUL-terminated. */
struct fetch_arena {
	char	*p;
	size_t	 size, used;
};

/* Room for n more bytes in a, its first size what the hint says. */
static bool
arena_room(struct fetch_arena *a, size_t n, uint32_t hint)
{
	size_t	 sz;
	char	*np;

	if (a->used + n <= a->size)
		return true;
	sz = a->size != 0 ? a->size : hint > 4096 ? hint : 4096;
	while (sz < a->used + n)
		sz *= 2;
	if ((np = realloc(a->p, sz)) == NULL)
		return false;
	a->p = np;
	a->size = sz;
	return true;
}

/*
 * Column c of the row just fetched into a: *off its offset (SIZE_MAX for
 * NULL) and *lenp its length.  A datetime is written by time_text(); a
 * value longer than its bind's buffer is fetched again whole.
 */
static enum fb_err
fetch_cell(MYSQL_STMT *s, const struct fetchcol *k, unsigned c,
    struct fetch_arena *a, uint32_t hint, size_t *off, unsigned long *lenp)
{
	char		 tt[32];
	const char	*from = k->buf;
	unsigned long	 len = k->len;
	MYSQL_BIND	 one;

	*off = SIZE_MAX;
	*lenp = 0;
	if (k->null)
		return FB_OK;
	if (k->is_time) {
		len = (unsigned long)time_text(&k->time, k->decimals, tt);
		from = tt;
	}
	if (!arena_room(a, len + 1, hint))
		return FB_ENOMEM;
	if (len <= sizeof(k->buf) || k->is_time)
		memcpy(a->p + a->used, from, len);
	else {
		memset(&one, 0, sizeof(one));
		one.buffer_type = MYSQL_TYPE_STRING;
		one.buffer = a->p + a->used;
		one.buffer_length = len + 1;
		if (mysql_stmt_fetch_column(s, &one, c, 0) != 0)
			return FB_EDB;
	}
	a->p[a->used + len] = '\0';
	*off = a->used;
	*lenp = len;
	a->used += len + 1;
	return FB_OK;
}

/*
 * The result binds of a statement's nc columns (fields) and the places
 * they fill (*colp), in one block: datetimes as numbers, the rest as
 * text.  NULL when out of memory; the caller frees the binds.
 */
static MYSQL_BIND *
fetch_binds(const MYSQL_FIELD *fields, unsigned nc, struct fetchcol **colp)
{
	MYSQL_BIND	*b;
	struct fetchcol	*col, *k;
	unsigned	 c;

	if ((b = calloc(nc, sizeof(*b) + sizeof(*col))) == NULL)
		return NULL;
	col = (struct fetchcol *)(void *)(b + nc);
	for (c = 0; c < nc; c++) {
		k = &col[c];
		b[c].length = &k->len;
		b[c].is_null = &k->null;
		b[c].error = &k->err;
		if (fields[c].type == MYSQL_TYPE_DATETIME ||
		    fields[c].type == MYSQL_TYPE_TIMESTAMP) {
			k->is_time = true;
			k->decimals = fields[c].decimals;
			b[c].buffer_type = MYSQL_TYPE_DATETIME;
			b[c].buffer = &k->time;
			b[c].buffer_length = sizeof(k->time);
		} else {
			b[c].buffer_type = MYSQL_TYPE_STRING;
			b[c].buffer = k->buf;
			b[c].buffer_length = sizeof(k->buf);
		}
	}
	*colp = col;
	return b;
}

/*
 * Fetch every row of executed statement `s` into `res`: each cell as
 * text, end to end in one block.  The block and the row arrays start at
 * what `hint` says the statement's last result took, and leave their
 * sizes in it.
 */
static enum fb_err
db_fetch(struct db *db, MYSQL_STMT *s, const struct dbstmt *st,
    struct dbhint *hint, struct dbres *res)
{
	MYSQL_RES	*meta;
	MYSQL_BIND	*b;
	struct fetchcol	*col = NULL;
	struct fetch_arena a = { NULL, 0, 0 };
	size_t		*off = NULL, cap = 0, i, n, at;
	unsigned	 nc, c;
	int		 rc;
	enum fb_err	 e = FB_OK;

	if ((meta = mysql_stmt_result_metadata(s)) == NULL)
		return FB_OK;
	nc = mysql_num_fields(meta);
	res->ncols = nc;
	b = fetch_binds(mysql_fetch_fields(meta), nc, &col);
	mysql_free_result(meta);
	if (b == NULL)
		e = FB_ENOMEM;
	else if (mysql_stmt_bind_result(s, b) != 0) {
		logx(LOG_ERR, "cannot bind result of '%s': %s", st->name,
		    mysql_stmt_error(s));
		e = FB_EDB;
	}
	while (e == FB_OK && (rc = mysql_stmt_fetch(s)) != MYSQL_NO_DATA) {
		if (rc == 1) {
			logx(LOG_ERR, "cannot fetch from '%s': %s", st->name,
			    mysql_stmt_error(s));
			e = db_stmt_failed(db, s);
			break;
		}
		if (res->nrows == cap) {
			cap = cap != 0 ? cap * 2 :
			    hint->rows > 8 ? hint->rows : 8;
			if (!fetch_rows_grow(res, &off, cap, nc)) {
				e = FB_ENOMEM;
				break;
			}
		}
		for (c = 0; c < nc && e == FB_OK; c++) {
			at = (size_t)res->nrows * nc + c;
			e = fetch_cell(s, &col[c], c, &a, hint->bytes, &off[at],
			    &res->len[at]);
		}
		if (e == FB_OK)
			res->nrows++;
	}
	if (e == FB_OK) {
		/* the next result of this statement starts where this ended */
		n = a.used + a.used / 16;
		hint->bytes = (uint32_t)(n < HINT_BYTES_MAX ? n :
		    HINT_BYTES_MAX);
		hint->rows = res->nrows < HINT_ROWS_MAX ? res->nrows :
		    HINT_ROWS_MAX;
	}
	/* the rows fetched whole, also after an error (the caller frees) */
	res->arena = a.p;
	for (i = 0; i < (size_t)res->nrows * nc; i++)
		res->cell[i] = off[i] == SIZE_MAX ? NULL : a.p + off[i];
	free(off);
	/* A CALL ends with a status result: drain whatever follows. */
	while (mysql_stmt_next_result(s) == 0)
		mysql_stmt_free_result(s);
	free(b);
	mysql_stmt_free_result(s);
	return e;
}

enum fb_err
db_run(struct db *db, enum db_set set, int idx, const struct dbstmt *st,
    const struct dbp *p, size_t np, struct dbres *res)
{
	MYSQL_STMT	*s;
	MYSQL_BIND	 b[DB_PARAMS_MAX];
	my_bool		 isnull = 1;
	size_t		 i;
	enum fb_err	 e;

	if (res != NULL)
		dbres_init(res);
	if (db->my == NULL || db->broken)
		return FB_EGONE;
	if ((s = db_prepare(db, set, idx, st)) == NULL)
		return db->broken ? FB_EGONE : FB_EDB;
	if (np > NELEM(b) || np != mysql_stmt_param_count(s)) {
		logx(LOG_ERR, "statement '%s': %zu parameters given, %lu "
		    "expected", st->name, np, mysql_stmt_param_count(s));
		return FB_EINVAL;
	}
	memset(b, 0, sizeof(b[0]) * (np ? np : 1));
	for (i = 0; i < np; i++) {
		switch (p[i].kind) {
		case DBP_NULL:
			b[i].buffer_type = MYSQL_TYPE_NULL;
			b[i].is_null = &isnull;
			break;
		case DBP_STR:
			b[i].buffer_type = MYSQL_TYPE_STRING;
			b[i].buffer = (void *)p[i].p;
			b[i].buffer_length = p[i].n;
			break;
		case DBP_BIN:
			b[i].buffer_type = MYSQL_TYPE_BLOB;
			b[i].buffer = (void *)p[i].p;
			b[i].buffer_length = p[i].n;
			break;
		case DBP_INT:
			b[i].buffer_type = MYSQL_TYPE_LONGLONG;
			b[i].buffer = (void *)&p[i].i;
			break;
		}
	}
	if (np > 0 && mysql_stmt_bind_param(s, b) != 0) {
		logx(LOG_ERR, "cannot bind '%s': %s", st->name,
		    mysql_stmt_error(s));
		return FB_EDB;
	}
	if (mysql_stmt_execute(s) != 0) {
		e = db_stmt_failed(db, s);
		logx(e == FB_EDUP || e == FB_ERETRY ? LOG_DEBUG : LOG_ERR,
		    "cannot run '%s': %s", st->name, mysql_stmt_error(s));
		if (e == FB_EGONE) {
			mysql_stmt_close(s);
			db->cache[set][idx] = NULL;
		}
		return e;
	}
	if (res != NULL) {
		res->affected = mysql_stmt_affected_rows(s);
		if ((e = db_fetch(db, s, st, &db->hint[set][idx],
		    res)) != FB_OK) {
			dbres_free(res);
			return e;
		}
	} else {
		/* Discard any rows so the statement can run again. */
		mysql_stmt_free_result(s);
	}
	return FB_OK;
}

enum fb_err
db_value(struct db *db, enum db_set set, int idx, const struct dbstmt *st,
    const struct dbp *p, size_t np, long long *v, bool *found)
{
	struct dbres	 r;
	enum fb_err	 e;

	*v = 0;
	*found = false;
	if ((e = db_run(db, set, idx, st, p, np, &r)) != FB_OK)
		return e;
	if (r.nrows > 0 && r.ncols > 0 && r.cell[0] != NULL) {
		*v = strtoll(r.cell[0], NULL, 10);
		*found = true;
	}
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_tenant_of(struct db *db, enum db_set set, int idx, const struct dbstmt *st,
    const char *id, char tenant_out[UUID_STRLEN + 1])
{
	struct dbres	 r;
	enum fb_err	 e;

	if ((e = db_run(db, set, idx, st, DBPARAMS(P_STR(id)), &r)) != FB_OK)
		return e;
	if (r.nrows == 0 || r.cell[0] == NULL)
		e = FB_ENOTFOUND;
	else
		snprintf(tenant_out, UUID_STRLEN + 1, "%s", r.cell[0]);
	dbres_free(&r);
	return e;
}

enum fb_err
db_changed(struct db *db, enum db_set set, int idx, const struct dbstmt *st,
    const struct dbp *p, size_t np, unsigned long long *n)
{
	struct dbres	 r;
	enum fb_err	 e;

	*n = 0;
	if ((e = db_run(db, set, idx, st, p, np, &r)) != FB_OK)
		return e;
	*n = r.affected;
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_run_multi(struct db *db, const struct dbmulti *m, size_t n,
    const struct dbp *p, size_t np)
{
	/* the texts live as long as the process, as the statements' do */
	static struct dbstmt st[DBM__MAX][DB_MULTI_MAX];
	struct dbstmt	*t;
	size_t		 hl, rl, o, i;
	char		*sql;

	if (n == 0 || n > DB_MULTI_MAX)
		return FB_EINVAL;
	t = &st[m->kind][n - 1];
	if (t->sql == NULL) {
		hl = strlen(m->head);
		rl = strlen(m->row);
		if ((sql = malloc(hl + n * (rl + 2) + 1)) == NULL)
			return FB_ENOMEM;
		memcpy(sql, m->head, hl);
		for (o = hl, i = 0; i < n; i++, o += rl) {
			if (i > 0) {
				memcpy(sql + o, ", ", 2);
				o += 2;
			}
			memcpy(sql + o, m->row, rl);
		}
		sql[o] = '\0';
		t->name = m->name;
		t->sql = sql;
	}
	return db_run(db, DBSET_MULTI, (int)(m->kind * DB_MULTI_MAX + n - 1),
	    t, p, np, NULL);
}

/* A row's field at `field`, of its column's type, from a cell of len bytes. */
static void
field_set(char *field, enum dbt type, char *cell, size_t len)
{
	struct dbbin	*bin;

	switch (type) {
	case DBT_TEXT:
	case DBT_TIME:
		*(const char **)(void *)field = cell;
		break;
	case DBT_INT:
		*(long long *)(void *)field = cell != NULL ?
		    strtoll(cell, NULL, 10) : 0;
		break;
	case DBT_BOOL:
		*(bool *)(void *)field = cell != NULL && strcmp(cell, "0") != 0;
		break;
	case DBT_BIN:
		bin = (struct dbbin *)(void *)field;
		bin->p = (const unsigned char *)cell;
		bin->n = cell != NULL ? len : 0;
		break;
	}
}

enum fb_err
db_rows(struct db *db, enum db_set set, int idx, const struct dbstmt *st,
    const struct dbp *p, size_t np, const struct dbcol *cols, size_t ncols,
    size_t rowsize, bool one, struct dbrows *out)
{
	char		*row, *cell;
	size_t		 i, j, at;
	enum fb_err	 e;

	out->row = NULL;
	out->n = 0;
	if ((e = db_run(db, set, idx, st, p, np, &out->res)) != FB_OK)
		return e;
	if (one && out->res.nrows == 0) {
		dbres_free(&out->res);
		return FB_ENOTFOUND;
	}
	if (out->res.ncols != ncols && out->res.nrows > 0) {
		logx(LOG_ERR, "statement '%s': %u columns, %zu expected",
		    st->name, out->res.ncols, ncols);
		dbres_free(&out->res);
		return FB_EDB;
	}
	if (out->res.nrows > 0 &&
	    (out->row = calloc(out->res.nrows, rowsize)) == NULL) {
		dbres_free(&out->res);
		return FB_ENOMEM;
	}
	out->n = out->res.nrows;
	for (i = 0; i < out->n; i++) {
		row = (char *)out->row + i * rowsize;
		for (j = 0; j < ncols; j++) {
			at = i * ncols + j;
			cell = out->res.cell[at];
			field_set(row + cols[j].off, cols[j].type, cell,
			    out->res.len[at]);
		}
	}
	return FB_OK;
}

/*
 * The warnings of the statement run last.  A prepared statement's rows
 * fetched one by one leave Connector/C's count at 0 (it reads the last
 * packet's count only when the result is stored), so the server is
 * asked; a statement without tables keeps the count it reads.
 */
static enum fb_err
last_warnings(struct db *db, long long *n)
{
	static const char q[] = "SELECT @@warning_count";
	MYSQL_RES	*r;
	MYSQL_ROW	 row;

	*n = 0;
	if (mysql_real_query(db->my, q, sizeof(q) - 1) != 0 ||
	    (r = mysql_store_result(db->my)) == NULL) {
		logx(LOG_ERR, "cannot read the warnings: %s",
		    mysql_error(db->my));
		return db_classify(db, mysql_errno(db->my));
	}
	if ((row = mysql_fetch_row(r)) != NULL && row[0] != NULL)
		*n = strtoll(row[0], NULL, 10);
	mysql_free_result(r);
	return FB_OK;
}

enum fb_err
db_list_walk(struct db *db, enum db_set set, const struct dbstmt *sql,
    int list, int sorted, struct dbp *p, size_t np, bool ranged,
    const struct dbcol *cols, size_t ncols, size_t rowsize, struct dbrows *out)
{
	long long	 warned;
	enum fb_err	 e;

	if (np < 2 || p[np - 2].kind != DBP_INT)
		return FB_EINVAL;
	p[np - 1] = P_INT(ranged ? DB_WALK_EXAMINED : LLONG_MAX);
	if ((e = db_rows(db, set, list, &sql[list], p, np, cols, ncols, rowsize,
	    false, out)) != FB_OK || !ranged ||
	    (long long)out->n >= p[np - 2].i)
		return e;
	/* a short page: the list's end, or cut short (warning 1931)? */
	if ((e = last_warnings(db, &warned)) != FB_OK || warned == 0) {
		if (e != FB_OK)
			dbrows_free(out);
		return e;
	}
	/* cut short: the range's rows, sorted */
	dbrows_free(out);
	p[np - 1] = P_INT(LLONG_MAX);
	return db_rows(db, set, sorted, &sql[sorted], p, np, cols, ncols,
	    rowsize, false, out);
}

void
dbrows_free(struct dbrows *r)
{
	free(r->row);
	dbres_free(&r->res);
	r->row = NULL;
	r->n = 0;
}
