/*
 * SQL of the reports (store.h; contract: Reports).  The funnel counts
 * from the raw rows: tag_events_tenant_span (migration 0025: tenant,
 * received_at and every column the counts read) serves the events of a
 * range from the key alone, leads and deliveries their tenant's rows in
 * it.
 */
#include <string.h>

#include "store.h"

#define EV_WHERE " FROM tag_events e WHERE e.tenant_id = ? AND " \
	"e.received_at >= ? AND e.received_at < ? AND (? IS NULL OR e.site_id = ?) " \
	"AND (? IS NULL OR e.campaign_id = ?)"
#define LEAD_WHERE " FROM leads l WHERE l.tenant_id = ? " \
	"AND (? IS NULL OR l.site_id = ?) AND (? IS NULL OR l.campaign_id = ?) " \
	"AND ((l.abandoned_at >= ? AND l.abandoned_at < ?) OR " \
	"(l.converted_at >= ? AND l.converted_at < ?))"

enum {
	RP_EVENTS, RP_EVENTS_BY, RP_LEADS, RP_LEADS_BY, RP_DELIVERIES,
	RP_DAILY,	/* RP_DAILY + enum daily_part */
	RP_AGG_DAYS = RP_DAILY + DAILY__MAX, RP_AG_CLAIM, RP_AG_LOCK, RP_AG_DEL_T,
	RP_AG_DEL_L, RP_AG_DEL_M, RP_AG_T_CAMPAIGN, RP_AG_T_SITE, RP_AG_T_TENANT,
	RP_AG_LEADS, RP_AG_MESSAGES, RP_AG_DONE, RP_AG_TENANTS, RP_AG_HAVE,
	RP__MAX
};

/* the daily report reads the rollups of formback-aggregate */
#define RD_RANGE "tenant_id = ? AND day >= ? AND day < ? "
#define RD_NONE "NULL AS channel, NULL AS step_id, NULL AS step_no, " \
	"FALSE AS deleted"
#define RD_LEADS(n) "SELECT day, " RD_NONE ", " n \
	" FROM report_lead_days WHERE " RD_RANGE "AND (? IS NULL OR site_id = ?) " \
	"AND (? IS NULL OR campaign_id = ?) AND ? IS NULL GROUP BY day"
#define RD_MSG_WHERE " FROM report_message_days WHERE " RD_RANGE \
	"AND (? IS NULL OR site_id = ?) AND (? IS NULL OR campaign_id = ?) " \
	"AND (? IS NULL OR scenario_id = ?)"
#define RD_MSG_SUMS "SUM(sent) AS n1, SUM(delivered) AS n2, SUM(opened) AS n3, " \
	"SUM(clicked) AS n4, SUM(converted) AS n5, SUM(after_conversion) AS n6"
/* a day's messages: sent, delivered, opened, clicked, converted after */
#define DLV_COUNTS "COUNT(*), SUM(d.status = 'delivered'), " \
	"SUM(EXISTS (SELECT 1 FROM links k WHERE k.tenant_id = d.tenant_id AND " \
	"k.delivery_id = d.id AND k.kind = 'open' AND k.first_hit_at IS NOT NULL)), " \
	"SUM(EXISTS (SELECT 1 FROM links k WHERE k.tenant_id = d.tenant_id AND " \
	"k.delivery_id = d.id AND k.kind = 'click' AND k.first_hit_at IS NOT NULL)), " \
	"COALESCE(SUM(l.conversion_source = 'tag' AND l.converted_at >= d.sent_at), 0), " \
	"COALESCE(SUM(l.converted_at IS NOT NULL AND d.sent_at > l.converted_at), 0)"

/* formback-aggregate: one JST day [?, ?) of a tenant into the rollups */
/* a sum of comparisons with NULL (a lead never abandoned) is 0, not NULL */
#define NZ(sum) "COALESCE(" sum ", 0)"
#define AG_DAY(col) col " >= ? AND " col " < ?"
#define AG_TRAFFIC(site, campaign, group) "INSERT INTO report_traffic_days " \
	"(tenant_id, day, site_key, campaign_key, page_view, visits, form_start, " \
	"capture) SELECT ?, ?, " site ", " campaign ", SUM(e.event_type = " \
	"'page_view'), COUNT(DISTINCT IF(e.event_type = 'page_view' AND " \
	"e.session_id <> '', CONCAT(e.site_id, e.session_id), NULL)), " \
	"SUM(e.event_type = 'form_start'), SUM(e.event_type = 'capture') " \
	"FROM tag_events e WHERE e.tenant_id = ? AND " \
	AG_DAY("e.received_at") " " group

static const struct dbstmt rp_sql[RP__MAX] = {
	{ "funnel_events", "SELECT " DB_SELECT(FUNNEL_EVENT_COLS) EV_WHERE },
	{ "funnel_events_by_campaign",
	  "SELECT " DB_SELECT(FUNNEL_EVENT_COLS) EV_WHERE " GROUP BY e.campaign_id" },
	{ "funnel_leads", "SELECT " DB_SELECT(FUNNEL_LEAD_COLS) LEAD_WHERE },
	{ "funnel_leads_by_campaign",
	  "SELECT " DB_SELECT(FUNNEL_LEAD_COLS) LEAD_WHERE " GROUP BY l.campaign_id" },
	{ "funnel_deliveries",
	  "SELECT " DB_SELECT(FUNNEL_DELIVERY_COLS) " FROM deliveries d "
	  "JOIN leads l ON l.id = d.lead_id "
	  "WHERE d.tenant_id = ? AND d.sent_at >= ? AND d.sent_at < ? "
	  "AND (? IS NULL OR d.campaign_id = ?) AND (? IS NULL OR l.site_id = ?)" },
	/* DAILY_TRAFFIC: the row of the filters' grain (visits do not add up) */
	{ "daily_traffic",
	  "SELECT day, " RD_NONE ", page_view AS n1, visits AS n2, form_start AS n3, "
	  "capture AS n4, 0 AS n5, 0 AS n6 FROM report_traffic_days WHERE " RD_RANGE
	  "AND site_key = ? AND campaign_key = ? AND ? IS NULL" },
	/* DAILY_CAPTURED */
	{ "daily_captured", RD_LEADS("SUM(captured) AS n1, 0 AS n2, 0 AS n3, "
	  "0 AS n4, 0 AS n5, 0 AS n6") },
	/* DAILY_ABANDONED */
	{ "daily_abandoned", RD_LEADS("SUM(abandoned) AS n1, 0 AS n2, 0 AS n3, "
	  "0 AS n4, 0 AS n5, 0 AS n6") },
	/* DAILY_CONVERTED */
	{ "daily_converted", RD_LEADS("SUM(recovered) AS n1, SUM(spillover) AS n2, "
	  "SUM(hash_match) AS n3, 0 AS n4, 0 AS n5, 0 AS n6") },
	/* DAILY_DELIVERY */
	{ "daily_delivery",
	  "SELECT day, channel, NULL AS step_id, NULL AS step_no, FALSE AS deleted, "
	  RD_MSG_SUMS RD_MSG_WHERE " GROUP BY day, channel" },
	/* DAILY_STEPS */
	{ "daily_steps",
	  "SELECT NULL AS day, channel, step_key AS step_id, MAX(step_no) AS step_no, "
	  "MAX(step_deleted) AS deleted, " RD_MSG_SUMS RD_MSG_WHERE
	  " GROUP BY step_key, channel ORDER BY MAX(step_no) IS NULL, "
	  "MAX(step_no), channel" },
	/* RP_AGG_DAYS: the days of the range formback-aggregate finished */
	{ "daily_aggregated",
	  "SELECT day, aggregated_at FROM report_aggregations WHERE " RD_RANGE
	  "AND aggregated_at IS NOT NULL" },
	/* RP_AG_CLAIM, RP_AG_LOCK: the day's turn (copies take turns) */
	{ "aggregate_claim",
	  "INSERT INTO report_aggregations (tenant_id, day) VALUES (?, ?) "
	  "ON DUPLICATE KEY UPDATE tenant_id = tenant_id" },
	{ "aggregate_lock",
	  "SELECT aggregated_at FROM report_aggregations WHERE tenant_id = ? "
	  "AND day = ? FOR UPDATE" },
	{ "aggregate_del_traffic",
	  "DELETE FROM report_traffic_days WHERE tenant_id = ? AND day = ?" },
	{ "aggregate_del_leads",
	  "DELETE FROM report_lead_days WHERE tenant_id = ? AND day = ?" },
	{ "aggregate_del_messages",
	  "DELETE FROM report_message_days WHERE tenant_id = ? AND day = ?" },
	/* visits per campaign ('-': pages under none), per site, per tenant */
	{ "aggregate_traffic_campaign",
	  AG_TRAFFIC("e.site_id", "COALESCE(CAST(e.campaign_id AS CHAR), '-')",
	  "GROUP BY e.site_id, e.campaign_id") },
	{ "aggregate_traffic_site", AG_TRAFFIC("e.site_id", "'*'", "GROUP BY e.site_id") },
	{ "aggregate_traffic_tenant",
	  AG_TRAFFIC("'*'", "'*'", "HAVING COUNT(*) > 0") },
	/* each count on the day of its own time */
	{ "aggregate_leads",
	  "INSERT INTO report_lead_days (tenant_id, day, site_id, campaign_id, "
	  "captured, abandoned, recovered, spillover, hash_match) SELECT ?, ?, "
	  "l.site_id, l.campaign_id, " NZ("SUM(" AG_DAY("l.captured_at") ")") ", "
	  NZ("SUM(" AG_DAY("l.abandoned_at") ")") ", " NZ("SUM(" AG_DAY("l.converted_at")
	  " AND l.conversion_source = 'tag' AND l.abandoned_at IS NOT NULL AND "
	  "l.abandoned_at <= l.converted_at)") ", " NZ("SUM(" AG_DAY("l.converted_at")
	  " AND l.conversion_source = 'tag_visitor')") ", " NZ("SUM(" AG_DAY("l.converted_at")
	  " AND l.conversion_source = 'hash_match')") " FROM leads l WHERE "
	  "l.tenant_id = ? AND ((" AG_DAY("l.captured_at") ") OR ("
	  AG_DAY("l.abandoned_at") ") OR (" AG_DAY("l.converted_at") ")) "
	  "GROUP BY l.site_id, l.campaign_id" },
	/* messages by the day they were sent; a step whose row is gone: deleted */
	{ "aggregate_messages",
	  "INSERT INTO report_message_days (tenant_id, day, site_id, campaign_id, "
	  "scenario_id, step_key, step_no, step_deleted, channel, sent, delivered, "
	  "opened, clicked, converted, after_conversion) SELECT ?, ?, l.site_id, "
	  "d.campaign_id, "
	  "d.scenario_id, COALESCE(CAST(d.step_id AS CHAR), CONCAT('deleted', "
	  "IFNULL(CONCAT('-', d.step_no), ''))) AS step_key, MAX(d.step_no), "
	  "MAX(d.step_id IS NULL OR NOT EXISTS (SELECT 1 FROM scenario_steps s "
	  "WHERE s.id = d.step_id)), d.channel, " DLV_COUNTS " FROM deliveries d "
	  "JOIN leads l ON l.id = d.lead_id WHERE d.tenant_id = ? AND "
	  AG_DAY("d.sent_at") " GROUP BY l.site_id, d.campaign_id, d.scenario_id, "
	  "step_key, d.channel" },
	{ "aggregate_done",
	  "UPDATE report_aggregations SET aggregated_at = NOW(6) WHERE "
	  "tenant_id = ? AND day = ?" },
	/* RP_AG_TENANTS */
	{ "aggregate_tenants", "SELECT id FROM tenants ORDER BY id" },
	/* RP_AG_HAVE: the tenant's days of a range already aggregated */
	{ "aggregate_have",
	  "SELECT day FROM report_aggregations WHERE tenant_id = ? AND day >= ? "
	  "AND day < ? AND aggregated_at IS NOT NULL" },
};

static enum fb_err
rows(struct db *db, int id, const struct dbp *p, size_t n, const struct dbcol *cols,
    size_t ncols, size_t rowsize, struct dbrows *out)
{
	return db_rows(db, DBSET_REPORT, id, &rp_sql[id], p, n, cols, ncols,
	    rowsize, false, out);
}

#define DB_ROW struct funnel_event_row
static const struct dbcol event_cols[] = { DB_COLUMNS(FUNNEL_EVENT_COLS) };
#undef DB_ROW
#define DB_ROW struct funnel_lead_row
static const struct dbcol lead_cols[] = { DB_COLUMNS(FUNNEL_LEAD_COLS) };
#undef DB_ROW
#define DB_ROW struct funnel_delivery_row
static const struct dbcol delivery_cols[] = { DB_COLUMNS(FUNNEL_DELIVERY_COLS) };
#undef DB_ROW

enum fb_err
db_funnel_events(struct db *db, const char *tenant, const struct funnel_filter *f,
    bool by_campaign, struct dbrows *out)
{
	return rows(db, by_campaign ? RP_EVENTS_BY : RP_EVENTS, DBPARAMS(P_STR(tenant),
	    P_STR(f->from), P_STR(f->to), P_STR(f->site), P_STR(f->site),
	    P_STR(f->campaign), P_STR(f->campaign)), event_cols, NELEM(event_cols),
	    sizeof(struct funnel_event_row), out);
}

enum fb_err
db_funnel_leads(struct db *db, const char *tenant, const struct funnel_filter *f,
    bool by_campaign, struct dbrows *out)
{
	return rows(db, by_campaign ? RP_LEADS_BY : RP_LEADS, DBPARAMS(
	    P_STR(f->from), P_STR(f->to), P_STR(f->from), P_STR(f->to),
	    P_STR(f->from), P_STR(f->to), P_STR(f->from), P_STR(f->to),
	    P_STR(f->from), P_STR(f->to), P_STR(tenant), P_STR(f->site),
	    P_STR(f->site), P_STR(f->campaign), P_STR(f->campaign), P_STR(f->from),
	    P_STR(f->to), P_STR(f->from), P_STR(f->to)), lead_cols, NELEM(lead_cols),
	    sizeof(struct funnel_lead_row), out);
}

enum fb_err
db_funnel_deliveries(struct db *db, const char *tenant,
    const struct funnel_filter *f, struct dbrows *out)
{
	return rows(db, RP_DELIVERIES, DBPARAMS(P_STR(tenant), P_STR(f->from),
	    P_STR(f->to), P_STR(f->campaign), P_STR(f->campaign), P_STR(f->site),
	    P_STR(f->site)), delivery_cols, NELEM(delivery_cols),
	    sizeof(struct funnel_delivery_row), out);
}

#define DB_ROW struct day_count_row
static const struct dbcol day_cols[] = { DB_COLUMNS(DAY_COUNT_COLS) };
#undef DB_ROW

enum fb_err
db_daily(struct db *db, const char *tenant, const struct daily_filter *f,
    enum daily_part part, struct dbrows *out)
{
	int	 id = RP_DAILY + (int)part;

	switch (part) {
	case DAILY_TRAFFIC:
		return rows(db, id, DBPARAMS(P_STR(tenant), P_STR(f->from),
		    P_STR(f->to), P_STR(f->site_key), P_STR(f->campaign_key),
		    P_STR(f->scenario)), day_cols, NELEM(day_cols),
		    sizeof(struct day_count_row), out);
	case DAILY_CAPTURED:
	case DAILY_ABANDONED:
	case DAILY_CONVERTED:
		/* the faces that are not about messages have no scenario */
		return rows(db, id, DBPARAMS(P_STR(tenant), P_STR(f->from),
		    P_STR(f->to), P_STR(f->site), P_STR(f->site), P_STR(f->campaign),
		    P_STR(f->campaign), P_STR(f->scenario)), day_cols,
		    NELEM(day_cols), sizeof(struct day_count_row), out);
	case DAILY_DELIVERY:
	case DAILY_STEPS:
		return rows(db, id, DBPARAMS(P_STR(tenant), P_STR(f->from),
		    P_STR(f->to), P_STR(f->site), P_STR(f->site), P_STR(f->campaign),
		    P_STR(f->campaign), P_STR(f->scenario), P_STR(f->scenario)),
		    day_cols, NELEM(day_cols), sizeof(struct day_count_row), out);
	default:
		return FB_EINVAL;
	}
}

enum fb_err
db_daily_aggregated(struct db *db, const char *tenant, const char *from,
    const char *to, struct dbres *out)
{
	return db_run(db, DBSET_REPORT, RP_AGG_DAYS, &rp_sql[RP_AGG_DAYS],
	    DBPARAMS(P_STR(tenant), P_STR(from), P_STR(to)), out);
}

enum fb_err
db_aggregate_tenants(struct db *db, struct dbres *out)
{
	return db_run(db, DBSET_REPORT, RP_AG_TENANTS, &rp_sql[RP_AG_TENANTS],
	    NULL, 0, out);
}

enum fb_err
db_aggregate_have(struct db *db, const char *tenant, const char *from,
    const char *to, struct dbres *out)
{
	return db_run(db, DBSET_REPORT, RP_AG_HAVE, &rp_sql[RP_AG_HAVE],
	    DBPARAMS(P_STR(tenant), P_STR(from), P_STR(to)), out);
}

static enum fb_err
ag(struct db *db, int id, const struct dbp *p, size_t n)
{
	unsigned long long c;

	return db_changed(db, DBSET_REPORT, id, &rp_sql[id], p, n, &c);
}

enum fb_err
db_aggregate_day(struct db *db, const char *tenant, const char *day,
    const char *from, const char *to)
{
	struct dbres	 r;
	enum fb_err	 e;

	/* the day's row exists before its lock is taken */
	if ((e = ag(db, RP_AG_CLAIM, DBPARAMS(P_STR(tenant), P_STR(day)))) != FB_OK)
		return e;
	if ((e = db_begin(db)) != FB_OK)
		return e;
	if ((e = db_run(db, DBSET_REPORT, RP_AG_LOCK, &rp_sql[RP_AG_LOCK],
	    DBPARAMS(P_STR(tenant), P_STR(day)), &r)) == FB_OK)
		dbres_free(&r);
	if (e == FB_OK)
		e = ag(db, RP_AG_DEL_T, DBPARAMS(P_STR(tenant), P_STR(day)));
	if (e == FB_OK)
		e = ag(db, RP_AG_DEL_L, DBPARAMS(P_STR(tenant), P_STR(day)));
	if (e == FB_OK)
		e = ag(db, RP_AG_DEL_M, DBPARAMS(P_STR(tenant), P_STR(day)));
	if (e == FB_OK)
		e = ag(db, RP_AG_T_CAMPAIGN, DBPARAMS(P_STR(tenant), P_STR(day),
		    P_STR(tenant), P_STR(from), P_STR(to)));
	if (e == FB_OK)
		e = ag(db, RP_AG_T_SITE, DBPARAMS(P_STR(tenant), P_STR(day),
		    P_STR(tenant), P_STR(from), P_STR(to)));
	if (e == FB_OK)
		e = ag(db, RP_AG_T_TENANT, DBPARAMS(P_STR(tenant), P_STR(day),
		    P_STR(tenant), P_STR(from), P_STR(to)));
	if (e == FB_OK)
		e = ag(db, RP_AG_LEADS, DBPARAMS(P_STR(tenant), P_STR(day),
		    P_STR(from), P_STR(to), P_STR(from), P_STR(to), P_STR(from),
		    P_STR(to), P_STR(from), P_STR(to), P_STR(from), P_STR(to),
		    P_STR(tenant), P_STR(from), P_STR(to), P_STR(from), P_STR(to),
		    P_STR(from), P_STR(to)));
	if (e == FB_OK)
		e = ag(db, RP_AG_MESSAGES, DBPARAMS(P_STR(tenant), P_STR(day),
		    P_STR(tenant), P_STR(from), P_STR(to)));
	if (e == FB_OK)
		e = ag(db, RP_AG_DONE, DBPARAMS(P_STR(tenant), P_STR(day)));
	if (e == FB_OK)
		e = db_commit(db);
	if (e != FB_OK)
		db_rollback(db);
	return e;
}
