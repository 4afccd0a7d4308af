/*
 * SQL of the reports (store.h; contract: Reports).  The funnel counts the
 * events of its range from the hourly rollups of formback-aggregate
 * (report_event_hours, migration 0026) for the whole hours the tenant has
 * rolled and from the raw rows for the rest; tag_events_tenant_span
 * (migration 0025: tenant, received_at and every column the counts read)
 * serves a range of raw events from the key alone.  Leads and deliveries
 * are counted from their tenant's rows of the range.
 */
#include <stdio.h>
#include <string.h>

#include "store.h"

/*
 * The traffic counts of the events of a tenant's range [?, ?) (narrowed
 * to a site and a campaign when those parameters are not NULL), in
 * buckets: EV_GROUPS groups the events per (bucket, site, [campaign,]
 * session, type), the EV_ sums add a bucket's groups up.  A visit counts
 * in the bucket that holds its first event of a stage (its session has
 * no event of that type before the bucket's start; of that campaign too
 * at the campaign grain), so visits add up over buckets like events.
 * One SQL for the rollups of formback-aggregate (hours, days) and the
 * funnel's raw edges.
 */
#define EV_GROUPS(bucket, ...)	EV_GROUPS_(bucket, __VA_ARGS__)
#define EV_GROUPS_(bucket, campaign, cgroup) "SELECT " bucket " AS b, " \
	"e.site_id, " campaign " AS campaign_id, e.session_id, e.event_type, " \
	"COUNT(*) AS n, SUM(e.session_id = e.visitor_id) AS nv, " \
	"SUM(e.campaign_id IS NULL) AS nu FROM tag_events e WHERE " \
	"e.tenant_id = ? AND e.received_at >= ? AND e.received_at < ? AND " \
	"(? IS NULL OR e.site_id = ?) AND (? IS NULL OR e.campaign_id = ?) " \
	"GROUP BY b, e.site_id" cgroup ", e.session_id, e.event_type " \
	"ORDER BY NULL"
/* the grains: every campaign of a site as one, or each apart */
#define SITE_GRAIN	"NULL", ""
#define CAMPAIGN_GRAIN	"e.campaign_id", ", e.campaign_id"
#define SITE_FIRST	""
#define CAMPAIGN_FIRST	" AND p.campaign_id <=> s.campaign_id"
/* the UTC hour of a datetime, "YYYY-MM-DD HH:00:00" */
#define HOUR_OF(t)	"DATE_FORMAT(" t ", '%Y-%m-%d %H:00:00')"
/* the bucket of an event: its UTC hour, or the start of a range (?) */
#define HOUR_BUCKET	"CAST(" HOUR_OF("e.received_at") " AS DATETIME)"
#define RANGE_BUCKET	"CAST(? AS DATETIME(6))"
/* no event of the group's session and stage (and campaign) before its bucket */
#define EV_NONE_BEFORE(type, first) "NOT EXISTS (SELECT 1 FROM tag_events p " \
	"WHERE p.site_id = s.site_id AND p.session_id = s.session_id AND " \
	"p.received_at < s.b AND p.event_type = " type first ")"
#define EV_STAGE "s.event_type IN ('page_view', 'form_start', 'capture') AND " \
	"s.session_id <> ''"
/* the events of a type; the sums of a bucket's groups, V(type) its visits */
#define EV_N(type)	"COALESCE(SUM(IF(s.event_type = " \
    "'" type "', s.n, 0)), 0)"
#define EV_SUMS(V) EV_N("page_view") " AS page_view, " EV_N("form_start") \
	" AS form_start, " EV_N("capture") " AS capture, " EV_N("consent") \
	" AS consent, " EV_N("conversion") " AS conversion, " V("page_view") \
	" AS visits, " V("form_start") " AS form_visits, " V("capture") \
	" AS capture_visits, COALESCE(SUM(IF(s.session_id = '', s.n, 0)), 0) " \
	"AS no_session, COALESCE(SUM(s.nv), 0) AS by_visitor, " \
	"COALESCE(SUM(IF(s.event_type = 'page_view', s.nu, 0)), 0) " \
	"AS unassigned_views"
/* visits of the groups of one grain: probed here */
#define EV_FIRST(type, first) "COALESCE(SUM(IF(s.event_type = '" type "' AND " \
	"s.session_id <> '', " EV_NONE_BEFORE("'" type "'", first) ", 0)), 0)"
#define SITE_VISITS(type)	EV_FIRST(type, SITE_FIRST)
#define CAMPAIGN_VISITS(type)	EV_FIRST(type, CAMPAIGN_FIRST)
/* visits of rh_groups, probed once for both grains (db_roll_hours()) */
#define RH_CAMPAIGN_VISITS(type) "COALESCE(SUM(IF(s.event_type = '" type "', " \
	"s.fc, 0)), 0)"
#define RH_SITE_VISITS(type) "COUNT(DISTINCT IF(s.event_type = '" type \
	"' AND s.fs, s.session_id, NULL))"
/* room for the groups of hours of events in memory */
#define BIG_GROUPS "SET STATEMENT max_heap_table_size = 67108864, " \
	"tmp_table_size = 67108864 FOR "
#define EV_COLS "page_view, form_start, capture, consent, conversion, " \
	"visits, form_visits, capture_visits, no_session, by_visitor, " \
	"unassigned_views"
/* the campaign key of the rollups: an id, '-' for pages under none, '*' all */
#define CAMPAIGN_KEY	"COALESCE(CAST(s.campaign_id AS CHAR), '-')"

/*
 * A tenant's traffic over a range, per site and campaign key: its rolled
 * hours [?, ?) (report_event_hours, the keys the caller asks for), then
 * its raw edges [?, ?) and [?, ?) at a grain (TR_RAW_SITE, TR_RAW_CAMPAIGN).
 * The funnel sums these rows (FUNNEL_EVENT_COLS), as do a day's rollups.
 */
#define TR_HOURS(keys) "SELECT h.site_id, h.campaign_key AS ck, " EV_COLS \
	" FROM report_event_hours h WHERE h.tenant_id = ? AND h.hour >= ? " \
	"AND h.hour < ? AND (? IS NULL OR h.site_id = ?) AND " keys
#define TR_RAW_SITE "SELECT s.site_id, '*', " EV_SUMS(SITE_VISITS) " FROM (" \
	EV_GROUPS(RANGE_BUCKET, SITE_GRAIN) ") s GROUP BY s.site_id"
#define TR_RAW_CAMPAIGN "SELECT s.site_id, " CAMPAIGN_KEY ", " \
	EV_SUMS(CAMPAIGN_VISITS) " FROM (" EV_GROUPS(RANGE_BUCKET, \
	    CAMPAIGN_GRAIN) \
	") s GROUP BY s.site_id, s.campaign_id"
#define FN_SITE BIG_GROUPS "SELECT " DB_SELECT(FUNNEL_EVENT_COLS) " FROM (" \
	TR_HOURS("h.campaign_key = '*'") " UNION ALL " TR_RAW_SITE \
	" UNION ALL " TR_RAW_SITE ") t"
#define FN_CAMPAIGN BIG_GROUPS "SELECT " DB_SELECT(FUNNEL_EVENT_COLS) \
	" FROM (" \
	TR_HOURS("h.campaign_key <> '*' AND (? IS NULL OR h.campaign_key = " \
	    "?)") \
	" UNION ALL " TR_RAW_CAMPAIGN " UNION ALL " TR_RAW_CAMPAIGN ") t"

#define LEAD_WHERE " FROM leads l WHERE l.tenant_id = ? " \
	"AND (? IS NULL OR l.site_id = ?) AND (? IS NULL OR l.campaign_id = " \
	"?) AND ((l.abandoned_at >= ? AND l.abandoned_at < ?) OR " \
	"(l.converted_at >= ? AND l.converted_at < ?))"

enum {
	RP_HOURS_HELD, RP_EVENTS_SITE, RP_EVENTS_CAMPAIGN, RP_EVENTS_BY,
	RP_LEADS, RP_LEADS_BY, RP_DELIVERIES,
	RP_DAILY,	/* RP_DAILY + enum daily_part */
	RP_AGG_DAYS = RP_DAILY + DAILY__MAX, RP_AG_UNMARK, RP_AG_DEL_T,
	RP_AG_DEL_L, RP_AG_DEL_M, RP_AG_TRAFFIC, RP_AG_T_TENANT,
	RP_AG_LEADS, RP_AG_MESSAGES, RP_AG_DONE, RP_AG_MARKS, RP_AG_MARKED,
	RP_AG_CLOCK,
	RP_RH_TENANTS,
	RP_RH_SHARE, RP_RH_CLAIM, RP_RH_LOCK, RP_RH_SPAN, RP_RH_DROP,
	RP_RH_GROUPS, RP_RH_FC, RP_RH_CAMPAIGN, RP_RH_SITE,
	RP_RH_DONE, RP_RH_EXCLUSIVE, RP_RH_BACK, RP_RH_BACK_DEL,
	RP__MAX
};

/* the daily report reads the rollups of formback-aggregate */
#define RD_RANGE "tenant_id = ? AND day >= ? AND day < ? "
#define RD_NONE "NULL AS channel, NULL AS step_id, NULL AS step_no, " \
	"FALSE AS deleted"
#define RD_LEADS(n) "SELECT day, " RD_NONE ", " n \
	" FROM report_lead_days WHERE " RD_RANGE "AND (? IS NULL OR site_id " \
	"= ?) AND (? IS NULL OR campaign_id = ?) AND ? IS NULL GROUP BY day"
#define RD_MSG_WHERE " FROM report_message_days WHERE " RD_RANGE \
	"AND (? IS NULL OR site_id = ?) AND (? IS NULL OR campaign_id = ?) " \
	"AND (? IS NULL OR scenario_id = ?)"
#define RD_MSG_SUMS "SUM(sent) AS n1, SUM(delivered) AS n2, SUM(opened) " \
    "AS n3, " \
	"SUM(clicked) AS n4, SUM(converted) AS n5, SUM(after_conversion) AS n6"
/* a day's messages: sent, delivered, opened, clicked, converted after */
#define DLV_COUNTS "COUNT(*), SUM(d.status = 'delivered'), " \
	"SUM(EXISTS (SELECT 1 FROM links k WHERE k.tenant_id = d.tenant_id " \
	"AND k.delivery_id = d.id AND k.kind = 'open' AND k.first_hit_at " \
	"IS NOT NULL)), SUM(EXISTS (SELECT 1 FROM links k WHERE k.tenant_id " \
	"= d.tenant_id AND k.delivery_id = d.id AND k.kind = 'click' AND " \
	"k.first_hit_at IS NOT NULL)), COALESCE(SUM(l.conversion_source = " \
	"'tag' AND l.converted_at >= d.sent_at), 0), " \
	"COALESCE(SUM(l.converted_at IS NOT NULL AND d.sent_at > " \
	"l.converted_at), 0)"

/* formback-aggregate: one JST day [?, ?) of a tenant into the rollups */
/* a sum of comparisons with NULL (a lead never abandoned) is 0, not NULL */
#define NZ(sum) "COALESCE(" sum ", 0)"
#define AG_DAY(col) col " >= ? AND " col " < ?"
/* a day's traffic per site and campaign key, both grains, from the
 * rolled hours and the raw edges */
#define AG_TRAFFIC BIG_GROUPS "INSERT INTO report_traffic_days (tenant_id, " \
	"day, site_key, campaign_key, page_view, visits, form_start, " \
	"capture) SELECT ?, ?, " \
	"t.site_id, t.ck, SUM(t.page_view), SUM(t.visits), " \
	"SUM(t.form_start), SUM(t.capture) FROM " \
	"(" TR_HOURS("TRUE") " UNION ALL " TR_RAW_SITE \
	" UNION ALL " TR_RAW_SITE " UNION ALL " TR_RAW_CAMPAIGN " UNION ALL " \
	TR_RAW_CAMPAIGN ") t GROUP BY t.site_id, t.ck"
/*
 * formback-aggregate: the hours [?, ?) of a tenant into report_event_hours:
 * the groups of the campaign grain into rh_groups (Aria: no size limit),
 * each probed once for the site grain (fs) and, only when that finds an
 * earlier event, for its campaign (fc); then both grains' rows from them.
 */
#define RH_GROUPS BIG_GROUPS "CREATE TEMPORARY TABLE rh_groups ENGINE=Aria " \
	"AS SELECT s.*, IF(" EV_STAGE ", " EV_NONE_BEFORE("s.event_type", \
	SITE_FIRST) ", FALSE) AS fs, FALSE AS fc FROM " \
	    "(" EV_GROUPS(HOUR_BUCKET, \
	CAMPAIGN_GRAIN) ") s"
#define RH_ROLL(key, visits, group) "INSERT INTO report_event_hours " \
	"(tenant_id, hour, site_id, " \
	"campaign_key, " EV_COLS ") SELECT ?, s.b, " \
	"s.site_id, " key ", " EV_SUMS(visits) " FROM rh_groups s GROUP BY " \
	"s.b, s.site_id" group
/* the hours that can no longer change: before the database's clock and
 * the caller's (?) less five minutes, and every event still queued */
#define RH_BOUND "LEAST(" HOUR_OF("CAST(? AS DATETIME) - INTERVAL 5 MINUTE") \
	", " HOUR_OF("NOW() - INTERVAL 5 " \
	"MINUTE") ", COALESCE(" HOUR_OF("(SELECT " \
	"MIN(received_at) FROM tag_ingest WHERE attempts < " \
	"3)") ", '9999-12-31'))"
/* the tenants of parked events, each with its oldest one's hour */
#define RH_PARKED "SELECT tenant_id, " HOUR_OF("MIN(received_at)") " AS hour " \
	"FROM tag_ingest WHERE attempts >= 3 GROUP BY tenant_id"

static const struct dbstmt rp_sql[RP__MAX] = {
	/* RP_HOURS_HELD: the whole hours of [?, ?) the tenant has rolled */
	{ "funnel_hours",
	  "SELECT GREATEST(rolled_from, " HOUR_OF("CAST(? AS DATETIME) + "
	  "INTERVAL 3599 SECOND") "), "
	  "LEAST(rolled_until, " HOUR_OF("?") ") FROM "
	  "report_hour_state WHERE tenant_id = ? AND rolled_from IS NOT NULL" },
	{ "funnel_events", FN_SITE },
	{ "funnel_events_campaign", FN_CAMPAIGN },
	{ "funnel_events_by_campaign", FN_CAMPAIGN " GROUP BY t.ck" },
	{ "funnel_leads", "SELECT " DB_SELECT(FUNNEL_LEAD_COLS) LEAD_WHERE },
	{ "funnel_leads_by_campaign",
	  "SELECT " DB_SELECT(FUNNEL_LEAD_COLS) LEAD_WHERE " GROUP BY "
	  "l.campaign_id" },
	{ "funnel_deliveries",
	  "SELECT " DB_SELECT(FUNNEL_DELIVERY_COLS) " FROM deliveries d "
	  "JOIN leads l ON l.id = d.lead_id "
	  "WHERE d.tenant_id = ? AND d.sent_at >= ? AND d.sent_at < ? "
	  "AND (? IS NULL OR d.campaign_id = ?) AND (? IS NULL OR l.site_id = "
	  "?)" },
	/*
	 * DAILY_TRAFFIC: the row of the filters' grain (visits do not add up)
	 */
	{ "daily_traffic",
	  "SELECT day, " RD_NONE ", page_view AS n1, visits AS n2, form_start "
	  "AS n3, capture AS n4, 0 AS n5, 0 AS n6 FROM report_traffic_days "
	  "WHERE " RD_RANGE
	  "AND site_key = ? AND campaign_key = ? AND ? IS NULL" },
	/* DAILY_CAPTURED */
	{ "daily_captured", RD_LEADS("SUM(captured) AS n1, 0 AS n2, 0 AS n3, "
	  "0 AS n4, 0 AS n5, 0 AS n6") },
	/* DAILY_ABANDONED */
	{ "daily_abandoned", RD_LEADS("SUM(abandoned) AS n1, 0 AS n2, 0 AS n3, "
	  "0 AS n4, 0 AS n5, 0 AS n6") },
	/* DAILY_CONVERTED */
	{ "daily_converted",
	    RD_LEADS("SUM(recovered) AS n1, SUM(spillover) AS n2, "
	  "SUM(hash_match) AS n3, 0 AS n4, 0 AS n5, 0 AS n6") },
	/* DAILY_DELIVERY */
	{ "daily_delivery",
	  "SELECT day, channel, NULL AS step_id, NULL AS step_no, FALSE "
	  "AS deleted, "
	  RD_MSG_SUMS RD_MSG_WHERE " GROUP BY day, channel" },
	/* DAILY_STEPS */
	{ "daily_steps",
	  "SELECT NULL AS day, channel, step_key AS step_id, MAX(step_no) "
	  "AS step_no, MAX(step_deleted) AS deleted, " RD_MSG_SUMS RD_MSG_WHERE
	  " GROUP BY step_key, channel ORDER BY MAX(step_no) IS NULL, "
	  "MAX(step_no), channel" },
	/* RP_AGG_DAYS: the days of the range formback-aggregate finished */
	{ "daily_aggregated",
	  "SELECT " DB_SELECT(DAY_AGGREGATED_COLS) " FROM report_aggregations "
	  "WHERE " RD_RANGE
	  "AND aggregated_at IS NOT NULL" },
	/*
	 * RP_AG_UNMARK: the day's mark, first in its recount: it waits for
	 * the writers that found it (their shared locks), so the recount
	 * reads their rows; a copy that finds it gone has nothing to do
	 */
	{ "aggregate_unmark",
	  "DELETE FROM report_dirty_days WHERE tenant_id = ? AND day = ?" },
	{ "aggregate_del_traffic",
	  "DELETE FROM report_traffic_days WHERE tenant_id = ? AND day = ?" },
	{ "aggregate_del_leads",
	  "DELETE FROM report_lead_days WHERE tenant_id = ? AND day = ?" },
	{ "aggregate_del_messages",
	  "DELETE FROM report_message_days WHERE tenant_id = ? AND day = ?" },
	/* visits per campaign ('-': pages under none), per site, per tenant */
	/* per site and campaign key */
	{ "aggregate_traffic", AG_TRAFFIC },
	/* the tenant's visits are its sites' (a visit is of one site) */
	{ "aggregate_traffic_tenant",
	  "INSERT INTO report_traffic_days (tenant_id, day, site_key, "
	  "campaign_key, page_view, visits, form_start, capture) SELECT ?, ?, "
	  "'*', '*', SUM(page_view), SUM(visits), SUM(form_start), "
	  "SUM(capture) FROM report_traffic_days WHERE tenant_id = ? AND day = "
	  "? AND site_key <> '*' AND campaign_key = '*' HAVING COUNT(*) > 0" },
	/* each count on the day of its own time */
	{ "aggregate_leads",
	  "INSERT INTO report_lead_days (tenant_id, day, site_id, campaign_id, "
	  "captured, abandoned, recovered, spillover, hash_match) SELECT ?, ?, "
	  "l.site_id, "
	  "l.campaign_id, " NZ("SUM(" AG_DAY("l.captured_at") ")") ", "
	  NZ("SUM(" AG_DAY("l.abandoned_at") ")") ", "
	  NZ("SUM(" AG_DAY("l.converted_at")
	  " AND l.conversion_source = 'tag' AND l.abandoned_at IS NOT NULL AND "
	  "l.abandoned_at <= "
	  "l.converted_at)") ", " NZ("SUM(" AG_DAY("l.converted_at")
	  " AND l.conversion_source = "
	  "'tag_visitor')") ", " NZ("SUM(" AG_DAY("l.converted_at")
	  " AND l.conversion_source = 'hash_match')") " FROM leads l WHERE "
	  "l.tenant_id = ? AND ((" AG_DAY("l.captured_at") ") OR ("
	  AG_DAY("l.abandoned_at") ") OR (" AG_DAY("l.converted_at") ")) "
	  "GROUP BY l.site_id, l.campaign_id" },
	/*
	 * messages by the day they were sent; a step whose row is gone: deleted
	 */
	{ "aggregate_messages",
	  "INSERT INTO report_message_days (tenant_id, day, site_id, "
	  "campaign_id, scenario_id, step_key, step_no, step_deleted, channel, "
	  "sent, delivered, opened, clicked, converted, after_conversion) "
	  "SELECT ?, ?, l.site_id, d.campaign_id, "
	  "d.scenario_id, COALESCE(CAST(d.step_id AS CHAR), CONCAT('deleted', "
	  "IFNULL(CONCAT('-', d.step_no), ''))) AS step_key, MAX(d.step_no), "
	  "MAX(d.step_id IS NULL OR NOT EXISTS (SELECT 1 FROM scenario_steps s "
	  "WHERE s.id = d.step_id)), "
	  "d.channel, " DLV_COUNTS " FROM deliveries d "
	  "JOIN leads l ON l.id = d.lead_id WHERE d.tenant_id = ? AND "
	  AG_DAY("d.sent_at") " GROUP BY l.site_id, d.campaign_id, "
	  "d.scenario_id, step_key, d.channel" },
	{ "aggregate_done",
	  "INSERT INTO report_aggregations (tenant_id, day, aggregated_at) "
	  "VALUES (?, ?, NOW(6)) ON DUPLICATE KEY UPDATE aggregated_at = "
	  "NOW(6)" },
	/*
	 * RP_AG_MARKS: the oldest marks made before the pass began (?), of
	 * one tenant or all (?); a day marked again while a pass runs waits
	 * for the next, behind the others
	 */
	{ "aggregate_marks",
	  "SELECT " DB_SELECT(REPORT_MARK_COLS) " FROM report_dirty_days "
	  "FORCE INDEX (report_dirty_days_marked) WHERE marked_at < ? "
	  "AND (? IS NULL OR tenant_id = ?) ORDER BY marked_at, tenant_id, day "
	  "LIMIT ?" },
	/* RP_AG_MARKED: the days of a range with rows not counted yet */
	{ "daily_marked",
	  "SELECT " DB_SELECT(REPORT_MARK_COLS) " FROM report_dirty_days "
	  "WHERE " RD_RANGE },
	/* RP_AG_CLOCK: the clock the triggers stamp the marks with */
	{ "aggregate_clock", "SELECT UTC_TIMESTAMP(6)" },
	/*
	 * RP_RH_TENANTS: the tenants with events after their rolled hours
	 * and before the hours that can still change (of one tenant, or
	 * all): one index dive a tenant, none for a tenant with no event
	 */
	{ "hours_tenants",
	  "SELECT t.id FROM tenants t LEFT JOIN report_hour_state s ON "
	  "s.tenant_id = t.id, (SELECT " RH_BOUND " AS bound) b WHERE "
	  "(? IS NULL OR t.id = ?) AND EXISTS (SELECT 1 FROM tag_events e "
	  "FORCE INDEX (tag_events_tenant_span) WHERE e.tenant_id = t.id AND "
	  "e.received_at >= COALESCE(s.rolled_until, '1000-01-01') AND "
	  "e.received_at < b.bound) ORDER BY t.id LIMIT ?" },
	/* RP_RH_SHARE: rolling and taking hours back exclude each other */
	{ "hours_share", "SELECT id FROM report_hour_lock LOCK IN SHARE MODE" },
	/* RP_RH_CLAIM, RP_RH_LOCK: the tenant's row, then its turn (none
	 * while another copy rolls its hours) */
	{ "hours_claim",
	  "INSERT INTO report_hour_state (tenant_id) VALUES (?) "
	  "ON DUPLICATE KEY UPDATE tenant_id = tenant_id" },
	{ "hours_lock",
	  "SELECT rolled_until FROM report_hour_state WHERE tenant_id = ? "
	  "FOR UPDATE SKIP LOCKED" },
	/*
	 * RP_RH_SPAN: the next hours to roll, at most ? of them: from the
	 * hour of the tenant's first event not rolled yet, over the hours
	 * without events since the last pass stopped (nothing to roll there)
	 */
	{ "hours_span",
	  "SELECT x.start, LEAST(x.start + INTERVAL ? HOUR, x.bound) AS end, "
	  "TIMESTAMPDIFF(HOUR, x.start, x.bound) FROM (SELECT "
	  "LEAST(COALESCE(" HOUR_OF("(SELECT MIN(e.received_at) FROM "
	  "tag_events e FORCE INDEX (tag_events_tenant_span) WHERE e.tenant_id "
	  "= s.tenant_id AND e.received_at >= COALESCE(s.rolled_until, "
	  "'1000-01-01'))") ", "
	  "b.bound), b.bound) AS start, b.bound FROM report_hour_state s, "
	  "(SELECT " RH_BOUND " AS bound) b WHERE s.tenant_id = ?) x" },
	/* RP_RH_DROP, RP_RH_GROUPS, RP_RH_FC, RP_RH_CAMPAIGN, RP_RH_SITE */
	{ "hours_drop", "DROP TEMPORARY TABLE IF EXISTS rh_groups" },
	{ "hours_groups", RH_GROUPS },
	{ "hours_campaign_first",
	  "UPDATE rh_groups s SET s.fc = IF(s.fs, "
	  "TRUE, " EV_NONE_BEFORE("s.event_type",
	  CAMPAIGN_FIRST) ") WHERE " EV_STAGE },
	{ "hours_campaign",
	    RH_ROLL(CAMPAIGN_KEY, RH_CAMPAIGN_VISITS, ", s.campaign_id") },
	{ "hours_site", RH_ROLL("'*'", RH_SITE_VISITS, "") },
	{ "hours_done",
	  "UPDATE report_hour_state SET rolled_from = COALESCE(rolled_from, "
	  "?), rolled_until = GREATEST(COALESCE(rolled_until, ?), ?) WHERE "
	  "tenant_id = ?" },
	/* RP_RH_EXCLUSIVE, RP_RH_BACK, RP_RH_BACK_DEL: parked events sent
	 * again take their tenant's rolled hours back from their own on */
	{ "hours_exclusive", "SELECT id FROM report_hour_lock FOR UPDATE" },
	{ "hours_back",
	  "UPDATE report_hour_state s JOIN (" RH_PARKED ") q ON q.tenant_id = "
	  "s.tenant_id SET s.rolled_until = GREATEST(s.rolled_from, "
	  "LEAST(s.rolled_until, q.hour)) WHERE s.rolled_from IS NOT NULL" },
	{ "hours_back_delete",
	  "DELETE h FROM report_event_hours h JOIN report_hour_state s ON "
	  "s.tenant_id = h.tenant_id WHERE h.tenant_id IN (SELECT tenant_id "
	  "FROM tag_ingest WHERE attempts >= 3) AND h.hour >= s.rolled_until" },
};

static enum fb_err
rows(struct db *db, int id, const struct dbp *p, size_t n,
    const struct dbcol *cols, size_t ncols, size_t rowsize, struct dbrows *out)
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
static const struct dbcol delivery_cols[] = {
	DB_COLUMNS(FUNNEL_DELIVERY_COLS) };
#undef DB_ROW

enum fb_err
db_funnel_parts(struct db *db, const char *tenant, struct funnel_filter *f)
{
	struct dbres	 r;
	const char	*a, *b;
	enum fb_err	 e;

	snprintf(f->hours_from, sizeof(f->hours_from), "%s", f->to);
	snprintf(f->hours_to, sizeof(f->hours_to), "%s", f->to);
	if ((e = db_run(db, DBSET_REPORT, RP_HOURS_HELD, &rp_sql[RP_HOURS_HELD],
	    DBPARAMS(P_STR(f->from), P_STR(f->to),
	    P_STR(tenant)), &r)) != FB_OK)
		return e;
	a = dbres_get(&r, 0, 0);
	b = dbres_get(&r, 0, 1);
	/* both "YYYY-MM-DD HH:MM:SS": their order is the strings' */
	if (a != NULL && b != NULL && strcmp(a, b) < 0) {
		snprintf(f->hours_from, sizeof(f->hours_from), "%s", a);
		snprintf(f->hours_to, sizeof(f->hours_to), "%s", b);
	}
	dbres_free(&r);
	return FB_OK;
}

/* The parameters of a raw edge [a, b) of TR_RAW_SITE or TR_RAW_CAMPAIGN. */
#define RAW_PART(a, b, site, campaign) P_STR(a), P_STR(tenant), P_STR(a), \
	P_STR(b), P_STR(site), P_STR(site), P_STR(campaign), P_STR(campaign)

enum fb_err
db_funnel_events(struct db *db, const char *tenant,
    const struct funnel_filter *f, bool by_campaign, struct dbrows *out)
{
	const char	*h0 = f->hours_from, *h1 = f->hours_to;

	/* every campaign as one: a visit across two of them counts once */
	if (!by_campaign && f->campaign == NULL)
		return rows(db, RP_EVENTS_SITE,
		    DBPARAMS(P_STR(tenant), P_STR(h0),
		    P_STR(h1), P_STR(f->site), P_STR(f->site),
		    RAW_PART(f->from, h0, f->site, NULL),
		    RAW_PART(h1, f->to, f->site, NULL)),
		    event_cols, NELEM(event_cols),
		    sizeof(struct funnel_event_row), out);
	return rows(db, by_campaign ? RP_EVENTS_BY : RP_EVENTS_CAMPAIGN,
	    DBPARAMS(
	    P_STR(tenant), P_STR(h0), P_STR(h1), P_STR(f->site), P_STR(f->site),
	    P_STR(f->campaign), P_STR(f->campaign),
	    RAW_PART(f->from, h0, f->site, f->campaign),
	    RAW_PART(h1, f->to, f->site, f->campaign)),
	    event_cols, NELEM(event_cols),
	    sizeof(struct funnel_event_row), out);
}

enum fb_err
db_funnel_leads(struct db *db, const char *tenant,
    const struct funnel_filter *f, bool by_campaign, struct dbrows *out)
{
	return rows(db, by_campaign ? RP_LEADS_BY : RP_LEADS, DBPARAMS(
	    P_STR(f->from), P_STR(f->to), P_STR(f->from), P_STR(f->to),
	    P_STR(f->from), P_STR(f->to), P_STR(f->from), P_STR(f->to),
	    P_STR(f->from), P_STR(f->to), P_STR(tenant), P_STR(f->site),
	    P_STR(f->site), P_STR(f->campaign), P_STR(f->campaign),
	    P_STR(f->from), P_STR(f->to), P_STR(f->from), P_STR(f->to)),
	    lead_cols, NELEM(lead_cols), sizeof(struct funnel_lead_row), out);
}

enum fb_err
db_funnel_deliveries(struct db *db, const char *tenant,
    const struct funnel_filter *f, struct dbrows *out)
{
	return rows(db, RP_DELIVERIES, DBPARAMS(P_STR(tenant), P_STR(f->from),
	    P_STR(f->to), P_STR(f->campaign), P_STR(f->campaign),
	    P_STR(f->site), P_STR(f->site)), delivery_cols,
	    NELEM(delivery_cols), sizeof(struct funnel_delivery_row), out);
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
		    P_STR(f->to), P_STR(f->site), P_STR(f->site),
		    P_STR(f->campaign), P_STR(f->campaign), P_STR(f->scenario)),
		    day_cols, NELEM(day_cols),
		    sizeof(struct day_count_row), out);
	case DAILY_DELIVERY:
	case DAILY_STEPS:
		return rows(db, id, DBPARAMS(P_STR(tenant), P_STR(f->from),
		    P_STR(f->to), P_STR(f->site), P_STR(f->site),
		    P_STR(f->campaign), P_STR(f->campaign), P_STR(f->scenario),
		    P_STR(f->scenario)), day_cols, NELEM(day_cols),
		    sizeof(struct day_count_row), out);
	default:
		return FB_EINVAL;
	}
}

enum fb_err
db_daily_aggregated(struct db *db, const char *tenant, const char *from,
    const char *to, struct dbrows *out)
{
#define DB_ROW struct day_aggregated_row
	static const struct dbcol cols[] = { DB_COLUMNS(DAY_AGGREGATED_COLS) };
#undef DB_ROW

	return rows(db, RP_AGG_DAYS, DBPARAMS(P_STR(tenant), P_STR(from),
	    P_STR(to)), cols, NELEM(cols), sizeof(struct day_aggregated_row),
	    out);
}

#define DB_ROW struct report_mark_row
static const struct dbcol mark_cols[] = { DB_COLUMNS(REPORT_MARK_COLS) };
#undef DB_ROW

enum fb_err
db_daily_marked(struct db *db, const char *tenant, const char *from,
    const char *to, struct dbrows *out)
{
	return rows(db, RP_AG_MARKED, DBPARAMS(P_STR(tenant), P_STR(from),
	    P_STR(to)), mark_cols, NELEM(mark_cols),
	    sizeof(struct report_mark_row), out);
}

enum fb_err
db_aggregate_marks(struct db *db, const char *before, const char *tenant,
    int limit, struct dbrows *out)
{
	return rows(db, RP_AG_MARKS, DBPARAMS(P_STR(before), P_STR(tenant),
	    P_STR(tenant), P_INT(limit)), mark_cols, NELEM(mark_cols),
	    sizeof(struct report_mark_row), out);
}

enum fb_err
db_aggregate_clock(struct db *db, char out[32])
{
	struct dbres	 r;
	enum fb_err	 e;

	if ((e = db_run(db, DBSET_REPORT, RP_AG_CLOCK, &rp_sql[RP_AG_CLOCK],
	    DBNOPARAMS, &r)) != FB_OK)
		return e;
	snprintf(out, 32, "%s", dbres_get(&r, 0, 0) != NULL ?
	    dbres_get(&r, 0, 0) : "");
	dbres_free(&r);
	return out[0] != '\0' ? FB_OK : FB_EDB;
}

enum fb_err
db_hours_tenants(struct db *db, const char *now, const char *tenant,
    int limit, struct dbrows *out)
{
	return rows(db, RP_RH_TENANTS, DBPARAMS(P_STR(now), P_STR(tenant),
	    P_STR(tenant), P_INT(limit)), key_cols, NELEM(key_cols),
	    sizeof(struct key_row), out);
}

static enum fb_err
ag(struct db *db, int id, const struct dbp *p, size_t n)
{
	unsigned long long c;

	return db_changed(db, DBSET_REPORT, id, &rp_sql[id], p, n, &c);
}

/* The day's recount, in the transaction of db_aggregate_day(). */
static enum fb_err
recount(struct db *db, const char *tenant, const char *day, const char *from,
    const char *to)
{
	struct funnel_filter f = { .from = from, .to = to };
	struct dbres	 r;
	enum fb_err	 e;

	/* the rolled hours it reads stay while it does */
	if ((e = db_run(db, DBSET_REPORT, RP_RH_SHARE, &rp_sql[RP_RH_SHARE],
	    DBNOPARAMS, &r)) != FB_OK)
		return e;
	dbres_free(&r);
	if ((e = ag(db, RP_AG_DEL_T, DBPARAMS(P_STR(tenant), P_STR(day)))) ||
	    (e = ag(db, RP_AG_DEL_L, DBPARAMS(P_STR(tenant), P_STR(day)))) ||
	    (e = ag(db, RP_AG_DEL_M, DBPARAMS(P_STR(tenant), P_STR(day)))) ||
	    (e = db_funnel_parts(db, tenant, &f)))
		return e;
	if ((e = ag(db, RP_AG_TRAFFIC, DBPARAMS(P_STR(tenant), P_STR(day),
	    P_STR(tenant), P_STR(f.hours_from), P_STR(f.hours_to), P_NULL,
	    P_NULL, RAW_PART(from, f.hours_from, NULL, NULL),
	    RAW_PART(f.hours_to, to, NULL, NULL),
	    RAW_PART(from, f.hours_from, NULL, NULL),
	    RAW_PART(f.hours_to, to, NULL, NULL)))) ||
	    (e = ag(db, RP_AG_T_TENANT, DBPARAMS(P_STR(tenant), P_STR(day),
	    P_STR(tenant), P_STR(day)))))
		return e;
	if ((e = ag(db, RP_AG_LEADS, DBPARAMS(P_STR(tenant), P_STR(day),
	    P_STR(from), P_STR(to), P_STR(from), P_STR(to), P_STR(from),
	    P_STR(to), P_STR(from), P_STR(to), P_STR(from), P_STR(to),
	    P_STR(tenant), P_STR(from), P_STR(to), P_STR(from), P_STR(to),
	    P_STR(from), P_STR(to)))) ||
	    (e = ag(db, RP_AG_MESSAGES, DBPARAMS(P_STR(tenant), P_STR(day),
	    P_STR(tenant), P_STR(from), P_STR(to)))))
		return e;
	return ag(db, RP_AG_DONE, DBPARAMS(P_STR(tenant), P_STR(day)));
}

enum fb_err
db_aggregate_day(struct db *db, const char *tenant, const char *day,
    const char *from, const char *to, bool *done)
{
	unsigned long long n = 0;
	enum fb_err	 e;

	*done = false;
	if ((e = db_begin(db)) != FB_OK)
		return e;
	/* the mark first: its writers' rows are committed once it is ours */
	if ((e = db_changed(db, DBSET_REPORT, RP_AG_UNMARK,
	    &rp_sql[RP_AG_UNMARK], DBPARAMS(P_STR(tenant), P_STR(day)),
	    &n)) == FB_OK && n > 0)
		e = recount(db, tenant, day, from, to);
	if (e == FB_OK && n > 0 && (e = db_commit(db)) == FB_OK) {
		*done = true;
		return FB_OK;
	}
	db_rollback(db);
	return e;
}

enum fb_err
db_roll_hours(struct db *db, const char *tenant, const char *now, int hours,
    int *rolled)
{
	struct dbres	 r;
	char		 start[32] = "", end[32] = "";
	long long	 due = 0;
	bool		 held = false;
	enum fb_err	 e;

	*rolled = 0;
	/* the tenant's row exists before its lock is taken */
	if ((e = ag(db, RP_RH_CLAIM, DBPARAMS(P_STR(tenant)))) != FB_OK)
		return e;
	if ((e = db_begin(db)) != FB_OK)
		return e;
	if ((e = db_run(db, DBSET_REPORT, RP_RH_SHARE, &rp_sql[RP_RH_SHARE],
	    DBNOPARAMS, &r)) == FB_OK)
		dbres_free(&r);
	if (e == FB_OK && (e = db_run(db, DBSET_REPORT, RP_RH_LOCK,
	    &rp_sql[RP_RH_LOCK], DBPARAMS(P_STR(tenant)), &r)) == FB_OK) {
		held = r.nrows == 1;
		dbres_free(&r);
	}
	if (e == FB_OK && !held) {
		db_rollback(db);
		return FB_OK;	/* another copy has the tenant's turn */
	}
	if (e == FB_OK && (e = db_run(db, DBSET_REPORT, RP_RH_SPAN,
	    &rp_sql[RP_RH_SPAN], DBPARAMS(P_INT(hours), P_STR(now),
	    P_STR(tenant)),
	    &r)) == FB_OK) {
		if (dbres_get(&r, 0, 0) != NULL &&
		    dbres_get(&r, 0, 1) != NULL) {
			snprintf(start, sizeof(start), "%s",
			    dbres_get(&r, 0, 0));
			snprintf(end, sizeof(end), "%s", dbres_get(&r, 0, 1));
			due = dbres_int(&r, 0, 2);
		}
		dbres_free(&r);
	}
	if (e == FB_OK && start[0] == '\0')
		e = FB_EDB;	/* the row claimed above is gone */
	/* "YYYY-MM-DD HH:MM:SS" both: their order is the strings' */
	if (e == FB_OK && strcmp(start, end) < 0) {
		e = ag(db, RP_RH_DROP, DBNOPARAMS);
		if (e == FB_OK)
			e = ag(db, RP_RH_GROUPS,
			    DBPARAMS(P_STR(tenant), P_STR(start),
			    P_STR(end), P_NULL, P_NULL, P_NULL, P_NULL));
		if (e == FB_OK)
			e = ag(db, RP_RH_FC, DBNOPARAMS);
		if (e == FB_OK)
			e = ag(db, RP_RH_CAMPAIGN, DBPARAMS(P_STR(tenant)));
		if (e == FB_OK)
			e = ag(db, RP_RH_SITE, DBPARAMS(P_STR(tenant)));
		if (e == FB_OK)
			e = ag(db, RP_RH_DROP, DBNOPARAMS);
	}
	if (e == FB_OK)
		e = ag(db, RP_RH_DONE,
		    DBPARAMS(P_STR(start), P_STR(start), P_STR(end),
		    P_STR(tenant)));
	if (e == FB_OK)
		e = db_commit(db);
	if (e != FB_OK) {
		db_rollback(db);
		return e;
	}
	if (strcmp(start, end) < 0)
		*rolled = due < hours ? (int)due : hours;
	return FB_OK;
}

enum fb_err
db_hours_take_back(struct db *db)
{
	struct dbres	 r;
	enum fb_err	 e;

	if ((e = db_run(db, DBSET_REPORT, RP_RH_EXCLUSIVE,
	    &rp_sql[RP_RH_EXCLUSIVE], DBNOPARAMS, &r)) != FB_OK)
		return e;
	dbres_free(&r);
	if ((e = ag(db, RP_RH_BACK, DBNOPARAMS)) != FB_OK)
		return e;
	return ag(db, RP_RH_BACK_DEL, DBNOPARAMS);
}
