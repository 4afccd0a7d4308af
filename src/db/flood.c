/*
 * SQL of the public collector's abuse limits (issue 11; migration 0014;
 * formback.fcgi(8) "Abuse limits"): the hourly counts of events by site
 * and client address or visitor, the new leads of a site by hour, and
 * the hold on a site's sending that too many of them put.
 */
#include <stdio.h>
#include <string.h>

#include "store.h"

/* the UTC hour of a DATETIME (the session's time zone is UTC) */
#define HOUR_OF(t)	"DATE_FORMAT(" t ", '%Y-%m-%d %H:00:00')"

enum {
	FL_SITE_LEADS_ADD,
	FL_SITE_LEADS_BUSIEST,
	FL_SITE_HOLD,
	FL_SITE_DISCARD_LEADS,
	FL_SITE_DISCARD_DELIVERIES,
	FL_SITE_RELEASE,
	FL_PRUNE,
	FL_DOMAIN_KNOWN,
	FL__MAX
};

static const struct dbstmt flood_sql[FL__MAX] = {
	/* FL_SITE_LEADS_ADD: new leads of a site in an hour ("... HH:00:00") */
	{ "site_leads_add",
	  "INSERT INTO site_lead_hours (site_id, hour, leads) VALUES (?, ?, ?) "
	  "ON DUPLICATE KEY UPDATE leads = leads + VALUES(leads) RETURNING leads" },
	/* FL_SITE_LEADS_BUSIEST: the busiest hour of the 7 days before that hour */
	{ "site_leads_busiest",
	  "SELECT COALESCE(MAX(leads), 0) FROM site_lead_hours WHERE site_id = ? "
	  "AND hour >= CAST(? AS DATETIME) - INTERVAL 7 DAY "
	  "AND hour < CAST(? AS DATETIME)" },
	/* FL_SITE_HOLD: only the first time (affected rows tell) */
	{ "site_hold",
	  "UPDATE sites SET sending_held_at = NOW(6), sending_held_leads = ?, "
	  "updated_at = NOW(6) WHERE id = ? AND sending_held_at IS NULL" },
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
	  "AND l.captured_at >= " HOUR_OF("s.sending_held_at") " - INTERVAL 1 HOUR" },
	/* FL_SITE_DISCARD_DELIVERIES: and what was to be sent to them */
	{ "site_discard_deliveries",
	  "UPDATE deliveries SET status = 'suppressed', updated_at = NOW(6) "
	  "WHERE tenant_id = ? AND status = 'scheduled' AND lead_id IN "
	  "(SELECT l.id FROM leads l JOIN sites s ON s.id = l.site_id "
	  "WHERE s.id = ? AND s.sending_held_at IS NOT NULL "
	  "AND l.status = 'suppressed' AND l.suppress_reason = 'lead_ineligible' "
	  "AND l.captured_at >= " HOUR_OF("s.sending_held_at") " - INTERVAL 1 HOUR)" },
	/* FL_SITE_RELEASE */
	{ "site_release",
	  "UPDATE sites SET sending_held_at = NULL, sending_held_leads = NULL, "
	  "updated_at = NOW(6) WHERE id = ? AND tenant_id = ? "
	  "AND sending_held_at IS NOT NULL" },
	/* FL_PRUNE: counts of hours that no longer matter */
	{ "tag_flood_prune",
	  "DELETE FROM tag_flood WHERE hour < " HOUR_OF("NOW()")
	  " - INTERVAL 1 HOUR LIMIT 10000" },
	/* FL_DOMAIN_KNOWN: a site's domain among the host and its parents */
	{ "site_domain_known",
	  "SELECT EXISTS (SELECT 1 FROM sites WHERE domain IN "
	  "(?, ?, ?, ?, ?, ?, ?, ?))" },
};

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
 * The counting statements of n rows (1 .. FLOOD_ROWS_MAX), written on
 * first use and cached as statements FL__MAX + n - 1 (the counts) and
 * FL__MAX + FLOOD_ROWS_MAX + n - 1 (their sums) of the set.  A worker
 * adds to its own shard of a counter, so that workers filing at once do
 * not queue on one row lock held until their commits; the sums of the
 * shards are then read without a lock.
 */
#define FLOOD_HEAD	"INSERT INTO tag_flood (site_id, addr, hour, shard, events, " \
	"captures) VALUES "
#define FLOOD_ROW	"(?, ?, ?, ?, ?, ?)"
#define FLOOD_TAIL	" ON DUPLICATE KEY UPDATE events = events + VALUES(events), " \
	"captures = captures + VALUES(captures)"
#define SUM_HEAD	"SELECT site_id, addr, hour, SUM(events), SUM(captures) " \
	"FROM tag_flood WHERE "
#define SUM_ROW		"(site_id = ? AND addr = ? AND hour = ?)"
#define SUM_TAIL	" GROUP BY site_id, addr, hour"

_Static_assert(FL__MAX + 2 * FLOOD_ROWS_MAX <= DBSET_STMT_MAX,
    "the counting statements fit the set");

static const struct dbstmt *
count_stmt(bool sum, size_t n)
{
	static char		 sql[2][FLOOD_ROWS_MAX][sizeof(FLOOD_HEAD SUM_HEAD) +
				    FLOOD_ROWS_MAX * sizeof(SUM_ROW " OR ") +
				    sizeof(FLOOD_TAIL SUM_TAIL)];
	static struct dbstmt	 st[2][FLOOD_ROWS_MAX];
	char			*q = sql[sum][n - 1];
	size_t			 i, o, qn = sizeof(sql[sum][n - 1]);

	if (st[sum][n - 1].sql == NULL) {
		o = (size_t)snprintf(q, qn, "%s", sum ? SUM_HEAD : FLOOD_HEAD);
		for (i = 0; i < n; i++)
			o += (size_t)snprintf(q + o, qn - o, "%s%s", i == 0 ? "" :
			    sum ? " OR " : ", ", sum ? SUM_ROW : FLOOD_ROW);
		snprintf(q + o, qn - o, "%s", sum ? SUM_TAIL : FLOOD_TAIL);
		st[sum][n - 1].name = sum ? "tag_flood_sum" : "tag_flood_count";
		st[sum][n - 1].sql = q;
	}
	return &st[sum][n - 1];
}

enum fb_err
db_tag_flood_count(struct db *db, unsigned shard, struct flood_row *rows, size_t n)
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
	if ((e = db_run(db, DBSET_FLOOD, FL__MAX + (int)n - 1, count_stmt(false, n),
	    p, n * 6, NULL)) != FB_OK)
		return e;
	for (q = p, i = 0; i < n; i++) {
		*q++ = P_STR(rows[i].site);
		*q++ = P_BIN(rows[i].key, rows[i].keylen);
		*q++ = P_STR(rows[i].hour);
		rows[i].events_total = rows[i].events;
		rows[i].captures_total = rows[i].captures;
	}
	if ((e = db_run(db, DBSET_FLOOD, FL__MAX + FLOOD_ROWS_MAX + (int)n - 1,
	    count_stmt(true, n), p, n * 3, &r)) != FB_OK)
		return e;
	/* every shard's count of the hour, this transaction's own included */
	for (j = 0; j < r.nrows; j++)
		for (i = 0; i < n; i++) {
			at = (size_t)j * r.ncols + 1;
			if (strcmp(dbres_get(&r, j, 0), rows[i].site) == 0 &&
			    r.len[at] == rows[i].keylen &&
			    memcmp(r.cell[at], rows[i].key, rows[i].keylen) == 0 &&
			    strncmp(dbres_get(&r, j, 2), rows[i].hour, 13) == 0) {
				rows[i].events_total = dbres_int(&r, j, 3);
				rows[i].captures_total = dbres_int(&r, j, 4);
			}
		}
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_site_leads_add(struct db *db, const char *site, const char *hour, long long n,
    long long *leads)
{
	bool	 found;

	return value(db, FL_SITE_LEADS_ADD, DBPARAMS(P_STR(site), P_STR(hour),
	    P_INT(n)), leads, &found);
}

enum fb_err
db_site_leads_busiest(struct db *db, const char *site, const char *hour,
    long long *busiest)
{
	bool	 found;

	return value(db, FL_SITE_LEADS_BUSIEST, DBPARAMS(P_STR(site), P_STR(hour),
	    P_STR(hour)), busiest, &found);
}

enum fb_err
db_site_hold(struct db *db, const char *site, long long leads, bool *newly)
{
	unsigned long long n;
	enum fb_err	 e;

	e = changed(db, FL_SITE_HOLD, DBPARAMS(P_INT(leads), P_STR(site)), &n);
	*newly = n > 0;
	return e;
}

enum fb_err
db_site_release(struct db *db, const char *tenant, const char *site, bool discard,
    bool *released, unsigned long long *discarded)
{
	unsigned long long n;
	enum fb_err	 e;

	*released = false;
	*discarded = 0;
	if (discard) {
		if ((e = changed(db, FL_SITE_DISCARD_LEADS, DBPARAMS(P_STR(site),
		    P_STR(tenant)), discarded)) != FB_OK)
			return e;
		if ((e = run(db, FL_SITE_DISCARD_DELIVERIES, DBPARAMS(P_STR(tenant),
		    P_STR(site)), NULL)) != FB_OK)
			return e;
	}
	e = changed(db, FL_SITE_RELEASE, DBPARAMS(P_STR(site), P_STR(tenant)), &n);
	*released = n > 0;
	return e;
}

enum fb_err
db_tag_flood_prune(struct db *db, unsigned long long *removed)
{
	return changed(db, FL_PRUNE, DBNOPARAMS, removed);
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
