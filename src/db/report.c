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

enum { RP_EVENTS, RP_EVENTS_BY, RP_LEADS, RP_LEADS_BY, RP_DELIVERIES, RP__MAX };

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
