/*
 * SQL of the reports (store.h; contract: Reports).  The funnel counts
 * from the raw rows: tag_events_site (tenant, site, received_at) and
 * tag_events_campaign serve the events of a range, leads and deliveries
 * their tenant's rows in it.
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
	RP__MAX = RP_DAILY + DAILY__MAX
};

/* the daily report's filters; a part that is not about messages has no scenario */
#define DAY_LEADS(col) " FROM leads l WHERE l.tenant_id = ? AND " col " >= ? " \
	"AND " col " < ? AND (? IS NULL OR l.site_id = ?) AND " \
	"(? IS NULL OR l.campaign_id = ?) AND ? IS NULL GROUP BY day"
#define DAY_NONE "NULL AS channel, NULL AS step_id, NULL AS step_no, " \
	"FALSE AS deleted"
#define DLV_COUNTS "COUNT(*) AS n1, SUM(d.status = 'delivered') AS n2, " \
	"SUM(EXISTS (SELECT 1 FROM links k WHERE k.tenant_id = d.tenant_id AND " \
	"k.delivery_id = d.id AND k.kind = 'open' AND k.first_hit_at IS NOT NULL)) " \
	"AS n3, SUM(EXISTS (SELECT 1 FROM links k WHERE k.tenant_id = " \
	"d.tenant_id AND k.delivery_id = d.id AND k.kind = 'click' AND " \
	"k.first_hit_at IS NOT NULL)) AS n4, SUM(l.conversion_source = 'tag' AND " \
	"l.converted_at >= d.sent_at) AS n5"
#define DLV_FROM " FROM deliveries d JOIN leads l ON l.id = d.lead_id " \
	"WHERE d.tenant_id = ? AND d.sent_at >= ? AND d.sent_at < ? AND " \
	"(? IS NULL OR l.site_id = ?) AND (? IS NULL OR d.campaign_id = ?) AND " \
	"(? IS NULL OR d.scenario_id = ?)"

static const struct dbstmt rp_sql[RP__MAX] = {
	{ "funnel_events", "SELECT " DB_SELECT(FUNNEL_EVENT_COLS) EV_WHERE },
	{ "funnel_events_by_campaign",
	  "SELECT " DB_SELECT(FUNNEL_EVENT_COLS) EV_WHERE " GROUP BY e.campaign_id" },
	{ "funnel_leads", "SELECT " DB_SELECT(FUNNEL_LEAD_COLS) LEAD_WHERE },
	{ "funnel_leads_by_campaign",
	  "SELECT " DB_SELECT(FUNNEL_LEAD_COLS) LEAD_WHERE " GROUP BY l.campaign_id" },
	{ "funnel_deliveries",
	  "SELECT " DB_SELECT(FUNNEL_DELIVERY_COLS) " FROM deliveries d "
	  "WHERE d.tenant_id = ? AND d.sent_at >= ? AND d.sent_at < ? "
	  "AND (? IS NULL OR d.campaign_id = ?) AND (? IS NULL OR EXISTS "
	  "(SELECT 1 FROM leads l WHERE l.id = d.lead_id AND l.site_id = ?))" },
	/* DAILY_TRAFFIC */
	{ "daily_traffic",
	  "SELECT " JST_DAY("e.received_at") " AS day, " DAY_NONE ", "
	  "SUM(e.event_type = 'page_view') AS n1, COUNT(DISTINCT IF(e.event_type = "
	  "'page_view' AND e.session_id <> '', CONCAT(e.site_id, e.session_id), "
	  "NULL)) AS n2, SUM(e.event_type = 'form_start') AS n3, "
	  "SUM(e.event_type = 'capture') AS n4, 0 AS n5 FROM tag_events e "
	  "WHERE e.tenant_id = ? AND e.received_at >= ? AND e.received_at < ? "
	  "AND (? IS NULL OR e.site_id = ?) AND (? IS NULL OR e.campaign_id = ?) "
	  "AND ? IS NULL GROUP BY day" },
	/* DAILY_CAPTURED */
	{ "daily_captured",
	  "SELECT " JST_DAY("l.captured_at") " AS day, " DAY_NONE ", COUNT(*) AS n1, "
	  "0 AS n2, 0 AS n3, 0 AS n4, 0 AS n5" DAY_LEADS("l.captured_at") },
	/* DAILY_ABANDONED */
	{ "daily_abandoned",
	  "SELECT " JST_DAY("l.abandoned_at") " AS day, " DAY_NONE ", COUNT(*) AS n1, "
	  "0 AS n2, 0 AS n3, 0 AS n4, 0 AS n5" DAY_LEADS("l.abandoned_at") },
	/* DAILY_CONVERTED */
	{ "daily_converted",
	  "SELECT " JST_DAY("l.converted_at") " AS day, " DAY_NONE ", "
	  "SUM(l.conversion_source = 'tag' AND l.abandoned_at IS NOT NULL AND "
	  "l.abandoned_at <= l.converted_at) AS n1, "
	  "SUM(l.conversion_source = 'tag_visitor') AS n2, "
	  "SUM(l.conversion_source = 'hash_match') AS n3, 0 AS n4, 0 AS n5"
	  DAY_LEADS("l.converted_at") },
	/* DAILY_DELIVERY */
	{ "daily_delivery",
	  "SELECT " JST_DAY("d.sent_at") " AS day, d.channel AS channel, "
	  "NULL AS step_id, NULL AS step_no, FALSE AS deleted, " DLV_COUNTS
	  DLV_FROM " GROUP BY day, d.channel" },
	/* DAILY_STEPS: a step is deleted when its row is gone */
	{ "daily_steps",
	  "SELECT NULL AS day, d.channel AS channel, d.step_id AS step_id, "
	  "d.step_no AS step_no, (d.step_id IS NULL OR NOT EXISTS (SELECT 1 FROM "
	  "scenario_steps s WHERE s.id = d.step_id)) AS deleted, " DLV_COUNTS
	  DLV_FROM " GROUP BY d.step_id, d.step_no, d.channel "
	  "ORDER BY d.step_no IS NULL, d.step_no, d.channel" },
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
	if ((unsigned)part >= DAILY__MAX)
		return FB_EINVAL;
	if (part == DAILY_DELIVERY || part == DAILY_STEPS)
		return rows(db, RP_DAILY + (int)part, DBPARAMS(P_STR(tenant),
		    P_STR(f->from), P_STR(f->to), P_STR(f->site), P_STR(f->site),
		    P_STR(f->campaign), P_STR(f->campaign), P_STR(f->scenario),
		    P_STR(f->scenario)), day_cols, NELEM(day_cols),
		    sizeof(struct day_count_row), out);
	/* the faces that are not about messages have no scenario: none then */
	return rows(db, RP_DAILY + (int)part, DBPARAMS(P_STR(tenant), P_STR(f->from),
	    P_STR(f->to), P_STR(f->site), P_STR(f->site), P_STR(f->campaign),
	    P_STR(f->campaign), P_STR(f->scenario)), day_cols, NELEM(day_cols),
	    sizeof(struct day_count_row), out);
}
