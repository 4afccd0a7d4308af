/*
 * SQL of the public collector's abuse limits (issue 11; migration 0014;
 * formback.fcgi(8) "Abuse limits"): the hourly counts of events by site
 * and client address or visitor, the new leads of a site by hour, and
 * the hold on a site's sending that too many of them put.
 */
#include <stdio.h>
#include <string.h>

#include "../store.h"

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

/*
 * The counting statement of n rows (1 .. FLOOD_ROWS_MAX), written on
 * first use and cached as statement FL__MAX + n - 1 of the set.
 */
#define FLOOD_HEAD	"INSERT INTO tag_flood (site_id, addr, hour, events, " \
	"captures) VALUES "
#define FLOOD_ROW	"(?, ?, " HOUR_OF("NOW()") ", ?, ?)"
#define FLOOD_TAIL	" ON DUPLICATE KEY UPDATE events = events + VALUES(events), " \
	"captures = captures + VALUES(captures) RETURNING events, captures"

_Static_assert(FL__MAX + FLOOD_ROWS_MAX <= DBSET_STMT_MAX,
    "the counting statements fit the set");

static const struct dbstmt *
count_stmt(size_t n)
{
	static char		 sql[FLOOD_ROWS_MAX][sizeof(FLOOD_HEAD) +
				    FLOOD_ROWS_MAX * sizeof(FLOOD_ROW ", ") +
				    sizeof(FLOOD_TAIL)];
	static struct dbstmt	 st[FLOOD_ROWS_MAX];
	size_t			 i, o;

	if (st[n - 1].sql == NULL) {
		o = (size_t)snprintf(sql[n - 1], sizeof(sql[n - 1]), "%s", FLOOD_HEAD);
		for (i = 0; i < n; i++)
			o += (size_t)snprintf(sql[n - 1] + o, sizeof(sql[n - 1]) - o,
			    "%s%s", i > 0 ? ", " : "", FLOOD_ROW);
		snprintf(sql[n - 1] + o, sizeof(sql[n - 1]) - o, "%s", FLOOD_TAIL);
		st[n - 1].name = "tag_flood_count";
		st[n - 1].sql = sql[n - 1];
	}
	return &st[n - 1];
}

enum fb_err
db_tag_flood_count(struct db *db, struct flood_row *rows, size_t n)
{
	struct dbp	 p[FLOOD_ROWS_MAX * 4], *q = p;
	struct dbres	 r;
	size_t		 i;
	enum fb_err	 e;

	if (n == 0)
		return FB_OK;
	if (n > FLOOD_ROWS_MAX)
		return FB_EINVAL;
	for (i = 0; i < n; i++) {
		*q++ = P_STR(rows[i].site);
		*q++ = P_BIN(rows[i].key, rows[i].keylen);
		*q++ = P_INT(rows[i].events);
		*q++ = P_INT(rows[i].captures);
	}
	if ((e = db_run(db, DBSET_FLOOD, FL__MAX + (int)n - 1, count_stmt(n), p,
	    n * 4, &r)) != FB_OK)
		return e;
	/* RETURNING gives the rows' counts after the statement, in its order */
	if (r.nrows != n) {
		logx(LOG_ERR, "tag_flood_count: %u rows back for %zu", r.nrows, n);
		dbres_free(&r);
		return FB_EDB;
	}
	for (i = 0; i < n; i++) {
		rows[i].events_total = dbres_int(&r, (unsigned)i, 0);
		rows[i].captures_total = dbres_int(&r, (unsigned)i, 1);
	}
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_site_leads_add(struct db *db, const char *site, const char *hour, long long n,
    long long *leads)
{
	struct dbres	 r;
	enum fb_err	 e;

	*leads = 0;
	if ((e = run(db, FL_SITE_LEADS_ADD, DBPARAMS(P_STR(site), P_STR(hour),
	    P_INT(n)), &r)) != FB_OK)
		return e;
	*leads = r.nrows == 1 ? dbres_int(&r, 0, 0) : 0;
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_site_leads_busiest(struct db *db, const char *site, const char *hour,
    long long *busiest)
{
	struct dbres	 r;
	enum fb_err	 e;

	*busiest = 0;
	if ((e = run(db, FL_SITE_LEADS_BUSIEST, DBPARAMS(P_STR(site), P_STR(hour),
	    P_STR(hour)), &r)) != FB_OK)
		return e;
	*busiest = r.nrows == 1 ? dbres_int(&r, 0, 0) : 0;
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_site_hold(struct db *db, const char *site, long long leads, bool *newly)
{
	struct dbres	 r;
	enum fb_err	 e;

	*newly = false;
	if ((e = run(db, FL_SITE_HOLD, DBPARAMS(P_INT(leads), P_STR(site)), &r)) != FB_OK)
		return e;
	*newly = r.affected > 0;
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_site_release(struct db *db, const char *tenant, const char *site, bool discard,
    bool *released, unsigned long long *discarded)
{
	struct dbres	 r;
	enum fb_err	 e;

	*released = false;
	*discarded = 0;
	if (discard) {
		if ((e = run(db, FL_SITE_DISCARD_LEADS, DBPARAMS(P_STR(site),
		    P_STR(tenant)), &r)) != FB_OK)
			return e;
		*discarded = r.affected;
		dbres_free(&r);
		if ((e = run(db, FL_SITE_DISCARD_DELIVERIES, DBPARAMS(P_STR(tenant),
		    P_STR(site)), NULL)) != FB_OK)
			return e;
	}
	if ((e = run(db, FL_SITE_RELEASE, DBPARAMS(P_STR(site), P_STR(tenant)),
	    &r)) != FB_OK)
		return e;
	*released = r.affected > 0;
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_tag_flood_prune(struct db *db, unsigned long long *removed)
{
	struct dbres	 r;
	enum fb_err	 e;

	*removed = 0;
	if ((e = run(db, FL_PRUNE, DBNOPARAMS, &r)) != FB_OK)
		return e;
	*removed = r.affected;
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_site_domain_known(struct db *db, const char *host, bool *known)
{
	struct dbp	 p[8];
	struct dbres	 r;
	const char	*h = host;
	size_t		 i;
	enum fb_err	 e;

	/* the host, then each parent domain; the last one repeated to fill */
	for (i = 0; i < NELEM(p); i++) {
		p[i] = P_STR(h);
		if (i + 1 < NELEM(p) && strchr(h, '.') != NULL)
			h = strchr(h, '.') + 1;
	}
	*known = false;
	if ((e = run(db, FL_DOMAIN_KNOWN, p, NELEM(p), &r)) != FB_OK)
		return e;
	*known = r.nrows == 1 && dbres_int(&r, 0, 0) != 0;
	dbres_free(&r);
	return FB_OK;
}
