/*
 * SQL of the public collector's abuse limits (issue 11; migrations 0014,
 * 0034; formback.fcgi(8) "Abuse limits"): the hourly counts of events
 * and captures by site and client address or network, the new leads of
 * a site by hour, the quarantine batches of a flood's leads (issue 40)
 * and 0014's hold on a site's sending, which only sites held before
 * 0034 still have.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

/* the UTC hour of a DATETIME (the session's time zone is UTC) */
#define HOUR_OF(t)	"DATE_FORMAT(" t ", '%Y-%m-%d %H:00:00')"
/* a lead not finished: a batch takes it, its release or discard acts on it */
#define UNFINISHED	"('captured', 'abandoned', 'queued', 'sent')"
/* ? ? the hour, ? the source's key */
#define SOURCE_LEADS(index, col) \
	"UPDATE leads FORCE INDEX (" index ") SET quarantine_id = ?, " \
	"updated_at = NOW(6) WHERE tenant_id = ? " \
	"AND captured_at >= CAST(? AS DATETIME) " \
	"AND captured_at < CAST(? AS DATETIME) + INTERVAL 1 HOUR " \
	"AND site_id = ? AND " col " = ? AND quarantine_id IS NULL " \
	"AND status IN " UNFINISHED

enum {
	FL_SITE_LEADS_ADD,
	FL_SITE_LEADS_BUSIEST,
	FL_SITE_DISCARD_LEADS,
	FL_SITE_DISCARD_DELIVERIES,
	FL_SITE_RELEASE,
	FL_PRUNE,
	FL_PRUNE_SOURCES,
	FL_DOMAIN_KNOWN,
	FL_BATCH_MAKE,
	FL_BATCH_OPEN,
	FL_BATCH_COUNT,
	FL_SOURCE_MARK,
	FL_LEADS_ADDRESS,
	FL_LEADS_NETWORK,
	FL_LEADS_VISITOR,
	FL_LEADS_PUT,
	FL_BATCH_LIST,
	FL_BATCH_GET,
	FL_BATCH_TENANT,
	FL_BATCH_DECIDE,
	FL_RELEASE_LEADS,
	FL_RELEASE_HOURS,
	FL_DISCARD_LEADS,
	FL_DISCARD_DELIVERIES,
	FL__MAX
};

#define BATCH_FROM	" FROM flood_quarantines q LEFT JOIN sites s " \
	"ON s.id = q.site_id AND s.tenant_id = q.tenant_id "

static const struct dbstmt flood_sql[FL__MAX] = {
	/*
	 * FL_SITE_LEADS_ADD: new leads of a site in an hour ("... HH:00:00"),
	 * or fewer (never under 0); the first ? is the count, the last too
	 */
	{ "site_leads_add",
	  "INSERT INTO site_lead_hours (site_id, hour, leads) "
	  "VALUES (?, ?, GREATEST(?, 0)) ON DUPLICATE KEY UPDATE "
	  "leads = GREATEST(CAST(leads AS SIGNED) + ?, 0) RETURNING leads" },
	/*
	 * FL_SITE_LEADS_BUSIEST: the busiest hour of the 7 days before that
	 * hour
	 */
	{ "site_leads_busiest",
	  "SELECT COALESCE(MAX(leads), 0) FROM site_lead_hours WHERE site_id = "
	  "? AND hour >= CAST(? AS DATETIME) - INTERVAL 7 DAY "
	  "AND hour < CAST(? AS DATETIME)" },
	/*
	 * FL_SITE_DISCARD_LEADS: the unfinished leads of a held site captured
	 * from the hour before the hold on (the flood) are suppressed
	 */
	{ "site_discard_leads",
	  "UPDATE leads l JOIN sites s ON s.id = l.site_id "
	  "SET l.status = 'suppressed', l.suppress_reason = 'lead_ineligible', "
	  "l.updated_at = NOW(6) WHERE s.id = ? AND s.tenant_id = ? "
	  "AND s.sending_held_at IS NOT NULL AND l.tenant_id = s.tenant_id "
	  "AND l.status IN ('started', 'captured', 'abandoned', 'queued') "
	  "AND l.captured_at >= " HOUR_OF("s.sending_held_at")
	  " - INTERVAL 1 HOUR" },
	/* FL_SITE_DISCARD_DELIVERIES: and what was to be sent to them */
	{ "site_discard_deliveries",
	  "UPDATE deliveries SET status = 'suppressed', updated_at = NOW(6) "
	  "WHERE tenant_id = ? AND status = 'scheduled' AND lead_id IN "
	  "(SELECT l.id FROM leads l JOIN sites s ON s.id = l.site_id "
	  "WHERE s.id = ? AND s.sending_held_at IS NOT NULL "
	  "AND l.status = 'suppressed' AND l.suppress_reason = "
	  "'lead_ineligible' AND l.captured_at "
	  ">= " HOUR_OF("s.sending_held_at") " - INTERVAL 1 HOUR)" },
	/* FL_SITE_RELEASE */
	{ "site_release",
	  "UPDATE sites SET sending_held_at = NULL, sending_held_leads = NULL, "
	  "updated_at = NOW(6) WHERE id = ? AND tenant_id = ? "
	  "AND sending_held_at IS NOT NULL" },
	/* FL_PRUNE: counts of hours that no longer matter */
	{ "tag_flood_prune",
	  "DELETE FROM tag_flood WHERE hour < " HOUR_OF("NOW()")
	  " - INTERVAL 1 HOUR LIMIT 10000" },
	/* FL_PRUNE_SOURCES: a day on, no queued event of the hour is left */
	{ "flood_sources_prune",
	  "DELETE FROM flood_sources WHERE hour < NOW() - INTERVAL 1 DAY "
	  "LIMIT 10000" },
	/* FL_DOMAIN_KNOWN: a site's domain among the host and its parents */
	{ "site_domain_known",
	  "SELECT EXISTS (SELECT 1 FROM sites WHERE domain IN "
	  "(?, ?, ?, ?, ?, ?, ?, ?))" },
	/* FL_BATCH_MAKE: the new batch's id, or the one there was */
	{ "flood_batch_make",
	  "INSERT INTO flood_quarantines (id, tenant_id, site_id, kind, src, "
	  "source, hour, threshold) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
	  "ON DUPLICATE KEY UPDATE id = id RETURNING id" },
	/* FL_BATCH_OPEN: no release or discard before the caller commits */
	{ "flood_batch_open",
	  "SELECT status = 'quarantined' FROM flood_quarantines WHERE id = ? "
	  "LOCK IN SHARE MODE" },
	/* FL_BATCH_COUNT */
	{ "flood_batch_count",
	  "UPDATE flood_quarantines SET leads = leads + ?, updated_at = NOW(6) "
	  "WHERE id = ?" },
	/* FL_SOURCE_MARK: the first batch of a source's hour stays its batch */
	{ "flood_source_mark",
	  "INSERT INTO flood_sources (site_id, hour, kind, src, quarantine_id) "
	  "VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE "
	  "quarantine_id = COALESCE(quarantine_id, VALUES(quarantine_id))" },
	/* FL_LEADS_ADDRESS, _NETWORK, _VISITOR: a source's leads of the hour */
	{ "flood_leads_address", SOURCE_LEADS("leads_captured", "src_addr") },
	{ "flood_leads_network", SOURCE_LEADS("leads_captured", "src_net") },
	{ "flood_leads_visitor", SOURCE_LEADS("leads_visitor", "visitor_id") },
	/* FL_LEADS_PUT: FLOOD_LEADS_MAX ids, the last repeated to fill */
	{ "flood_leads_put",
	  "UPDATE leads SET quarantine_id = ?, updated_at = NOW(6) "
	  "WHERE tenant_id = ? AND id IN (" DB_Q16 ") "
	  "AND quarantine_id IS NULL" },
	/* FL_BATCH_LIST: newest first; ? ? the status, or NULL for any */
	{ "flood_batch_list",
	  "SELECT " DB_SELECT(FLOOD_BATCH_COLS) BATCH_FROM
	  "WHERE q.tenant_id = ? AND (? IS NULL OR q.status = ?) AND q.id < ? "
	  "ORDER BY q.id DESC LIMIT ?" },
	/* FL_BATCH_GET */
	{ "flood_batch_get",
	  "SELECT " DB_SELECT(FLOOD_BATCH_COLS) BATCH_FROM
	  "WHERE q.tenant_id = ? AND q.id = ?" },
	/* FL_BATCH_TENANT: the operator names a batch by its id alone */
	{ "flood_batch_tenant",
	  "SELECT tenant_id FROM flood_quarantines WHERE id = ?" },
	/* FL_BATCH_DECIDE: once */
	{ "flood_batch_decide",
	  "UPDATE flood_quarantines SET status = ?, decided_at = NOW(6), "
	  "updated_at = NOW(6) WHERE tenant_id = ? AND id = ? "
	  "AND status = 'quarantined'" },
	/* FL_RELEASE_LEADS: back in the normal flow */
	{ "flood_release_leads",
	  "UPDATE leads FORCE INDEX (leads_quarantine) "
	  "SET quarantine_id = NULL, updated_at = NOW(6) "
	  "WHERE tenant_id = ? AND quarantine_id = ?" },
	/* FL_RELEASE_HOURS: counted among the site's hour's new leads again */
	{ "flood_release_hours",
	  "INSERT INTO site_lead_hours (site_id, hour, leads) "
	  "SELECT site_id, hour, leads FROM flood_quarantines "
	  "WHERE tenant_id = ? AND id = ? "
	  "ON DUPLICATE KEY UPDATE "
	  "leads = site_lead_hours.leads + VALUES(leads)" },
	/* FL_DISCARD_LEADS: a lead sent to already stays sent */
	{ "flood_discard_leads",
	  "UPDATE leads FORCE INDEX (leads_quarantine) "
	  "SET status = 'suppressed', suppress_reason = 'lead_ineligible', "
	  "updated_at = NOW(6) "
	  "WHERE tenant_id = ? AND quarantine_id = ? "
	  "AND status IN ('captured', 'abandoned', 'queued')" },
	/* FL_DISCARD_DELIVERIES: nothing more is sent to any of them */
	{ "flood_discard_deliveries",
	  "UPDATE deliveries SET status = 'suppressed', updated_at = NOW(6) "
	  "WHERE tenant_id = ? AND status = 'scheduled' AND lead_id IN "
	  "(SELECT id FROM leads FORCE INDEX (leads_quarantine) "
	  "WHERE tenant_id = ? AND quarantine_id = ?)" },
};

_Static_assert(FLOOD_LEADS_MAX == 16, "DB_Q16 holds FLOOD_LEADS_MAX ids");

static enum fb_err
run(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	return db_run(db, DBSET_FLOOD, id, &flood_sql[id], p, n, r);
}

static enum fb_err
value(struct db *db, int id, const struct dbp *p, size_t n, long long *v,
    bool *found)
{
	return db_value(db, DBSET_FLOOD, id, &flood_sql[id], p, n, v, found);
}

static enum fb_err
changed(struct db *db, int id, const struct dbp *p, size_t n,
    unsigned long long *rows)
{
	return db_changed(db, DBSET_FLOOD, id, &flood_sql[id], p, n, rows);
}

/*
 * The statements of n rows (1 .. ROWS_MAX) of a family, written on first
 * use and cached as statement FL__MAX + family * ROWS_MAX + n - 1 of the
 * set.  The pooled counts: a worker adds to its own shard of a counter,
 * so that workers filing at once do not queue on one row lock held until
 * their commits, and the sums of the shards are then read without a
 * lock.  The exact counts of captures are one row per counter (shard
 * FLOOD_SHARDS), locked by the transaction that adds to it: that queue
 * is what keeps a burst within the limit.  The pooled shards count the
 * captures taken far from a limit (tag/collect.c).
 */
#define ROWS_MAX	16

enum family { FAM_COUNT, FAM_SUM, FAM_EXACT, FAM_SOURCES, FAM__MAX };

static const struct {
	const char	*name, *head, *row, *sep, *tail;
} families[FAM__MAX] = {
	/* FAM_COUNT */
	{ "tag_flood_count",
	  "INSERT INTO tag_flood (site_id, addr, hour, shard, events, "
	  "captures) VALUES ", "(?, ?, ?, ?, ?, ?)", ", ",
	  " ON DUPLICATE KEY UPDATE events = events + VALUES(events), "
	  "captures = captures + VALUES(captures)" },
	/* FAM_SUM: the pooled shards' captures, not the exact count's */
	{ "tag_flood_sum",
	  "SELECT site_id, addr, hour, SUM(events), "
	  "SUM(IF(shard = 32, 0, captures)) FROM tag_flood WHERE ",
	  "(site_id = ? AND addr = ? AND hour = ?)", " OR ",
	  " GROUP BY site_id, addr, hour" },
	/* FAM_EXACT: shard 32 is FLOOD_SHARDS */
	{ "tag_flood_exact",
	  "INSERT INTO tag_flood (site_id, addr, hour, shard, captures) "
	  "VALUES ",
	  "(?, ?, " HOUR_OF("NOW()") ", 32, ?)", ", ",
	  " ON DUPLICATE KEY UPDATE captures = captures + VALUES(captures) "
	  "RETURNING captures, " HOUR_OF("hour") },
	/* FAM_SOURCES */
	{ "flood_sources_add",
	  "INSERT INTO flood_sources (site_id, hour, kind, src, captures) "
	  "VALUES ", "(?, ?, ?, ?, ?)", ", ",
	  " ON DUPLICATE KEY UPDATE captures = captures + VALUES(captures) "
	  "RETURNING quarantine_id" },
};

_Static_assert(FLOOD_SHARDS == 32, "FAM_EXACT's shard is FLOOD_SHARDS");
_Static_assert(FLOOD_ROWS_MAX <= ROWS_MAX && FLOOD_EXACT_MAX <= ROWS_MAX &&
    FLOOD_SOURCES_MAX <= ROWS_MAX, "a family's statements hold its rows");
_Static_assert(FL__MAX + FAM__MAX * ROWS_MAX <= DBSET_STMT_MAX,
    "the families' statements fit the set");

static enum fb_err
run_rows(struct db *db, enum family f, size_t n, const struct dbp *p,
    size_t np, struct dbres *r)
{
	/* the texts live as long as the process, as the statements' do */
	static struct dbstmt	 st[FAM__MAX][ROWS_MAX];
	struct dbstmt		*t;
	size_t			 qn, o, i;
	char			*q;

	if (n == 0 || n > ROWS_MAX)
		return FB_EINVAL;
	t = &st[f][n - 1];
	if (t->sql == NULL) {
		qn = strlen(families[f].head) + strlen(families[f].tail) + 1 +
		    n * (strlen(families[f].row) + strlen(families[f].sep));
		if ((q = malloc(qn)) == NULL)
			return FB_ENOMEM;
		o = (size_t)snprintf(q, qn, "%s", families[f].head);
		for (i = 0; i < n; i++)
			o += (size_t)snprintf(q + o, qn - o, "%s%s",
			    i == 0 ? "" :
			    families[f].sep, families[f].row);
		snprintf(q + o, qn - o, "%s", families[f].tail);
		t->name = families[f].name;
		t->sql = q;
	}
	return db_run(db, DBSET_FLOOD, FL__MAX + (int)(f * ROWS_MAX + n) - 1, t,
	    p, np, r);
}

enum fb_err
db_tag_flood_count(struct db *db, unsigned shard, struct flood_row *rows,
    size_t n)
{
	struct dbp	 p[FLOOD_ROWS_MAX * 6], *q = p;
	struct dbres	 r;
	size_t		 i, at;
	unsigned	 j;
	enum fb_err	 e;

	if (n == 0)
		return FB_OK;
	if (n > FLOOD_ROWS_MAX)
		return FB_EINVAL;
	for (i = 0; i < n; i++) {
		*q++ = P_STR(rows[i].site);
		*q++ = P_BIN(rows[i].key, rows[i].keylen);
		*q++ = P_STR(rows[i].hour);
		*q++ = P_INT(shard % FLOOD_SHARDS);
		*q++ = P_INT(rows[i].events);
		*q++ = P_INT(rows[i].captures);
	}
	if ((e = run_rows(db, FAM_COUNT, n, p, n * 6, NULL)) != FB_OK)
		return e;
	for (q = p, i = 0; i < n; i++) {
		*q++ = P_STR(rows[i].site);
		*q++ = P_BIN(rows[i].key, rows[i].keylen);
		*q++ = P_STR(rows[i].hour);
		rows[i].events_total = rows[i].events;
		rows[i].captures_total = rows[i].captures;
	}
	if ((e = run_rows(db, FAM_SUM, n, p, n * 3, &r)) != FB_OK)
		return e;
	/* every shard's count of the hour, this transaction's own included */
	for (j = 0; j < r.nrows; j++)
		for (i = 0; i < n; i++) {
			at = (size_t)j * r.ncols + 1;
			if (strcmp(dbres_get(&r, j, 0), rows[i].site) == 0 &&
			    r.len[at] == rows[i].keylen &&
			    memcmp(r.cell[at], rows[i].key,
			    rows[i].keylen) == 0 &&
			    strncmp(dbres_get(&r, j, 2), rows[i].hour,
			    13) == 0) {
				rows[i].events_total = dbres_int(&r, j, 3);
				rows[i].captures_total = dbres_int(&r, j, 4);
			}
		}
	dbres_free(&r);
	return FB_OK;
}

int
flood_exact_cmp(const void *a, const void *b)
{
	const struct flood_exact *x = a, *y = b;
	int		 c;

	if ((c = strcmp(x->site, y->site)) != 0)
		return c;
	if (x->keylen != y->keylen)
		return x->keylen < y->keylen ? -1 : 1;
	return memcmp(x->key, y->key, x->keylen);
}

enum fb_err
db_tag_flood_exact(struct db *db, struct flood_exact *rows, size_t n,
    char hour[20])
{
	struct dbp	 p[FLOOD_EXACT_MAX * 3], *q = p;
	struct dbres	 r;
	size_t		 i;
	enum fb_err	 e;

	if (n == 0 || n > FLOOD_EXACT_MAX)
		return FB_EINVAL;
	for (i = 0; i < n; i++) {
		*q++ = P_STR(rows[i].site);
		*q++ = P_BIN(rows[i].key, rows[i].keylen);
		*q++ = P_INT(rows[i].add);
	}
	if ((e = run_rows(db, FAM_EXACT, n, p, n * 3, &r)) != FB_OK)
		return e;
	/* RETURNING gives a row for each row inserted, in their order */
	if (r.nrows != n)
		e = FB_EDB;
	for (i = 0; i < n && e == FB_OK; i++)
		rows[i].total = dbres_int(&r, (unsigned)i, 0);
	if (e == FB_OK)
		snprintf(hour, 20, "%s", dbres_get(&r, 0, 1));
	dbres_free(&r);
	return e;
}

enum fb_err
db_site_leads_add(struct db *db, const char *site, const char *hour,
    long long n, long long *leads)
{
	bool	 found;

	return value(db, FL_SITE_LEADS_ADD, DBPARAMS(P_STR(site), P_STR(hour),
	    P_INT(n), P_INT(n)), leads, &found);
}

enum fb_err
db_site_leads_busiest(struct db *db, const char *site, const char *hour,
    long long *busiest)
{
	bool	 found;

	return value(db, FL_SITE_LEADS_BUSIEST,
	    DBPARAMS(P_STR(site), P_STR(hour), P_STR(hour)), busiest, &found);
}

enum fb_err
db_site_release(struct db *db, const char *tenant, const char *site,
    bool discard, bool *released, unsigned long long *discarded)
{
	unsigned long long n;
	enum fb_err	 e;

	*released = false;
	*discarded = 0;
	if (discard) {
		if ((e = changed(db, FL_SITE_DISCARD_LEADS,
		    DBPARAMS(P_STR(site), P_STR(tenant)), discarded)) != FB_OK)
			return e;
		if ((e = run(db, FL_SITE_DISCARD_DELIVERIES,
		    DBPARAMS(P_STR(tenant), P_STR(site)), NULL)) != FB_OK)
			return e;
	}
	e = changed(db, FL_SITE_RELEASE, DBPARAMS(P_STR(site), P_STR(tenant)),
	    &n);
	*released = n > 0;
	return e;
}

enum fb_err
db_tag_flood_prune(struct db *db, unsigned long long *removed)
{
	unsigned long long n;
	enum fb_err	 e;

	if ((e = changed(db, FL_PRUNE, DBNOPARAMS, removed)) != FB_OK)
		return e;
	e = changed(db, FL_PRUNE_SOURCES, DBNOPARAMS, &n);
	*removed += n;
	return e;
}

enum fb_err
db_site_domain_known(struct db *db, const char *host, bool *known)
{
	struct dbp	 p[8];
	const char	*h = host;
	long long	 v;
	size_t		 i;
	enum fb_err	 e;

	/* the host, then each parent domain; the last one repeated to fill */
	for (i = 0; i < NELEM(p); i++) {
		p[i] = P_STR(h);
		if (i + 1 < NELEM(p) && strchr(h, '.') != NULL)
			h = strchr(h, '.') + 1;
	}
	e = value(db, FL_DOMAIN_KNOWN, p, NELEM(p), &v, known);
	*known = *known && v != 0;
	return e;
}

enum fb_err
db_flood_batch_make(struct db *db, const struct flood_src *s, const char *id,
    const char *shown, long long threshold, bool *made,
    char id_out[UUID_STRLEN + 1])
{
	struct dbres	 r;
	enum fb_err	 e;

	*made = false;
	if ((e = run(db, FL_BATCH_MAKE, DBPARAMS(P_STR(id), P_STR(s->tenant),
	    P_STR(s->site), P_STR(s->kind), P_BIN(s->src, s->srclen),
	    P_STR(shown), P_STR(s->hour), P_INT(threshold)), &r)) != FB_OK)
		return e;
	if (r.nrows != 1 || dbres_get(&r, 0, 0) == NULL)
		e = FB_EDB;
	else {
		snprintf(id_out, UUID_STRLEN + 1, "%s", dbres_get(&r, 0, 0));
		*made = strcmp(id_out, id) == 0;
	}
	dbres_free(&r);
	return e;
}

enum fb_err
db_flood_batch_open(struct db *db, const char *id, bool *open)
{
	long long	 v;
	bool		 found;
	enum fb_err	 e;

	e = value(db, FL_BATCH_OPEN, DBPARAMS(P_STR(id)), &v, &found);
	*open = e == FB_OK && found && v != 0;
	return e;
}

enum fb_err
db_flood_batch_count(struct db *db, const char *id, long long n)
{
	return run(db, FL_BATCH_COUNT, DBPARAMS(P_INT(n), P_STR(id)), NULL);
}

enum fb_err
db_flood_source_mark(struct db *db, const struct flood_src *s, const char *id)
{
	return run(db, FL_SOURCE_MARK, DBPARAMS(P_STR(s->site), P_STR(s->hour),
	    P_STR(s->kind), P_BIN(s->src, s->srclen), P_STR(id)), NULL);
}

enum fb_err
db_flood_sources_add(struct db *db, struct flood_source_add *rows, size_t n)
{
	struct dbp	 p[FLOOD_SOURCES_MAX * 5], *q = p;
	struct dbres	 r;
	const char	*v;
	size_t		 i;
	enum fb_err	 e;

	if (n == 0 || n > FLOOD_SOURCES_MAX)
		return FB_EINVAL;
	for (i = 0; i < n; i++) {
		*q++ = P_STR(rows[i].s.site);
		*q++ = P_STR(rows[i].s.hour);
		*q++ = P_STR(rows[i].s.kind);
		*q++ = P_BIN(rows[i].s.src, rows[i].s.srclen);
		*q++ = P_INT(rows[i].captures);
	}
	if ((e = run_rows(db, FAM_SOURCES, n, p, n * 5, &r)) != FB_OK)
		return e;
	/* RETURNING gives a row for each row inserted, in their order */
	if (r.nrows != n)
		e = FB_EDB;
	for (i = 0; i < n && e == FB_OK; i++) {
		v = dbres_get(&r, (unsigned)i, 0);
		snprintf(rows[i].quarantine_id, UUID_STRLEN + 1, "%s",
		    v != NULL ? v : "");
	}
	dbres_free(&r);
	return e;
}

enum fb_err
db_flood_source_leads(struct db *db, const struct flood_src *s, const char *id,
    unsigned long long *n)
{
	int	 st;

	*n = 0;
	if (strcmp(s->kind, "address") == 0)
		st = FL_LEADS_ADDRESS;
	else if (strcmp(s->kind, "network") == 0)
		st = FL_LEADS_NETWORK;
	else if (strcmp(s->kind, "visitor") == 0)
		st = FL_LEADS_VISITOR;
	else
		return FB_EINVAL;
	return changed(db, st, DBPARAMS(P_STR(id), P_STR(s->tenant),
	    P_STR(s->hour), P_STR(s->hour), P_STR(s->site),
	    P_BIN(s->src, s->srclen)), n);
}

enum fb_err
db_flood_leads_put(struct db *db, const char *tenant, const char *id,
    const char *const *ids, size_t n, unsigned long long *put)
{
	struct dbp	 p[2 + FLOOD_LEADS_MAX];

	*put = 0;
	if (n == 0 || n > FLOOD_LEADS_MAX)
		return FB_EINVAL;
	p[0] = P_STR(id);
	p[1] = P_STR(tenant);
	db_params_in(p + 2, FLOOD_LEADS_MAX, ids, n);
	return changed(db, FL_LEADS_PUT, p, NELEM(p), put);
}

#define DB_ROW struct flood_batch_row
static const struct dbcol batch_cols[] = { DB_COLUMNS(FLOOD_BATCH_COLS) };
#undef DB_ROW

enum fb_err
db_flood_batch_list(struct db *db, const char *tenant, const char *status,
    const char *before, int n, struct dbrows *out)
{
	return db_rows(db, DBSET_FLOOD, FL_BATCH_LIST,
	    &flood_sql[FL_BATCH_LIST], DBPARAMS(P_STR(tenant), P_STR(status),
	    P_STR(status), P_STR(before != NULL ? before : DB_MAX_ID),
	    P_INT(n)), batch_cols, NELEM(batch_cols),
	    sizeof(struct flood_batch_row), false, out);
}

enum fb_err
db_flood_batch_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return db_rows(db, DBSET_FLOOD, FL_BATCH_GET, &flood_sql[FL_BATCH_GET],
	    DBPARAMS(P_STR(tenant), P_STR(id)), batch_cols, NELEM(batch_cols),
	    sizeof(struct flood_batch_row), true, out);
}

enum fb_err
db_flood_batch_tenant(struct db *db, const char *id,
    char tenant[UUID_STRLEN + 1])
{
	return db_tenant_of(db, DBSET_FLOOD, FL_BATCH_TENANT,
	    &flood_sql[FL_BATCH_TENANT], id, tenant);
}

enum fb_err
db_flood_batch_decide(struct db *db, const char *tenant, const char *id,
    bool release, bool *decided, unsigned long long *n)
{
	unsigned long long k;
	enum fb_err	 e;

	*decided = false;
	*n = 0;
	/* the batch's row first: the applier share-locks it to put leads in */
	if ((e = changed(db, FL_BATCH_DECIDE,
	    DBPARAMS(P_STR(release ? "released" : "discarded"), P_STR(tenant),
	    P_STR(id)), &k)) != FB_OK || k == 0)
		return e;
	*decided = true;
	if (release) {
		if ((e = changed(db, FL_RELEASE_LEADS, DBPARAMS(P_STR(tenant),
		    P_STR(id)), n)) != FB_OK)
			return e;
		return run(db, FL_RELEASE_HOURS, DBPARAMS(P_STR(tenant),
		    P_STR(id)), NULL);
	}
	if ((e = changed(db, FL_DISCARD_LEADS, DBPARAMS(P_STR(tenant),
	    P_STR(id)), n)) != FB_OK)
		return e;
	return run(db, FL_DISCARD_DELIVERIES, DBPARAMS(P_STR(tenant),
	    P_STR(tenant), P_STR(id)), NULL);
}
