/* SQL of leads and tag events (design 3, 6). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "store.h"

_Static_assert(INGEST_DONE_MAX == 100,
    "DB_Q100 holds INGEST_DONE_MAX placeholders");

/* the nested site and campaign of a lead: two look-ups by primary key */
#define LEAD_NESTED " LEFT JOIN sites s ON s.id = l.site_id " \
	"LEFT JOIN campaigns c ON c.id = l.campaign_id "
#define LEAD_FROM " FROM leads l " LEAD_NESTED
/*
 * The lead list (contract: LeadListOut), newest first.  Unfiltered, it
 * reads leads_tenant (tenant_id, id) backwards from the cursor.  With a
 * filter, the optimizer takes the narrowest of the indexes the filters
 * have, from the values bound (MariaDB folds "? IS NULL OR ..." then):
 * leads_campaign, leads_site, leads_status (tenant_id, key, id: read
 * backwards, in order, never a sort), the date field's (tenant_id, date:
 * a sort of the rows in the range only), or leads_tenant again when the
 * filter keeps most leads.  Before (issue 13), every filter walked all of
 * the tenant's leads: a few matches among 100,000 leads took 270 ms.
 * The indexes are named, so that the optimizer weighs these only.  A
 * date-ranged page that walks too far for its rows is read again on the
 * date's index (db_list_walk(), LEAD_LIST_SORTED).
 */
#define LEAD_FILTERS "WHERE l.tenant_id = ? AND l.id < ? " \
	"AND (? IS NULL OR l.site_id = ?) " \
	"AND (? IS NULL OR l.campaign_id = ?) AND (? IS NULL OR l.status = ?) "
#define LEAD_RANGE(col) "AND " col " >= ? AND " col " < ? "
#define LEAD_LIST(index, range, examined) "SELECT " DB_SELECT(LEAD_OWN_COLS) \
	" FROM leads l " index " " LEAD_FILTERS range "ORDER BY l.id DESC " \
	"LIMIT ?" examined
#define LEAD_LIST_BY(date, col) LEAD_LIST("USE INDEX (leads_tenant, " \
	"leads_campaign, leads_site, leads_status, " date ")", \
	LEAD_RANGE(col), " ROWS EXAMINED ?")
/* the same read on the date's index, its rows sorted (db_list_walk()) */
#define LEAD_LIST_SORTED(date, col) LEAD_LIST("FORCE INDEX (" date ")", \
	LEAD_RANGE(col), " ROWS EXAMINED ?")
_Static_assert(NAMES_MAX == 16, "DB_Q16 holds NAMES_MAX placeholders");

enum {
	LEAD_LIST,
	LEAD_LIST_CREATED,	/* filtered, by date_field: */
	LEAD_LIST_CAPTURED,
	LEAD_LIST_ABANDONED,
	LEAD_LIST_CONVERTED,
	LEAD_SORTED_CREATED,	/* and on the date's index, by date_field */
	LEAD_SORTED_CAPTURED,
	LEAD_SORTED_ABANDONED,
	LEAD_SORTED_CONVERTED,
	LEAD_GET,
	LEAD_TIMELINE,
	LEAD_FIND_OPEN,
	LEAD_CAPTURE,
	LEAD_TOUCH,
	LEAD_OPEN_OF,
	LEAD_LANDINGS,
	LEAD_OF_VISITOR,
	LEAD_OF_CONTACT,
	LEAD_CONTACT_OF,
	LEAD_CONVERT,
	LEAD_ABANDON_TENANTS,
	LEAD_ABANDON_DUE,
	LEAD_ABANDON_LEFT,
	LEAD_WAIT_MIN,
	LEAD_ABANDON_CLAIM,
	LEAD_ABANDON_SET,
	LEAD_OWNER,
	LEAD_INGEST_LOCK,
	LEAD_INGEST_LOCK_WAIT,
	LEAD_INGEST_BATCH,
	LEAD_INGEST_DONE,
	LEAD_INGEST_FAILED,
	LEAD_INGEST_PENDING,
	LEAD_INGEST_STATUS,
	LEAD_INGEST_RETRY,
	LEAD_SITE_NAMES,
	LEAD_CAMPAIGN_NAMES,
	LEAD_BY_EMAIL,
	LEAD_BY_TEL,
	LEAD__MAX
};
_Static_assert(LEAD__MAX <= DBSET_STMT_MAX, "raise DBSET_STMT_MAX");

/* a blind index slot's key after a capture (LEAD_CAPTURE) */
#define KEY_OF(col) col " = IF(" col " <=> ? OR " \
	"((? IS NOT NULL OR email_sealed IS NULL) AND " \
	"(? IS NOT NULL OR tel_sealed IS NULL)), ?, NULL)"

static const struct dbstmt lead_sql[LEAD__MAX] = {
	/* LEAD_LIST* (contract: LeadListOut) */
	{ "lead_list", LEAD_LIST("FORCE INDEX (leads_tenant)", "", "") },
	{ "lead_list_created", LEAD_LIST_BY("leads_created", "l.created_at") },
	{ "lead_list_captured",
	    LEAD_LIST_BY("leads_captured", "l.captured_at") },
	{ "lead_list_abandoned",
	    LEAD_LIST_BY("leads_abandoned", "l.abandoned_at") },
	{ "lead_list_converted",
	    LEAD_LIST_BY("leads_converted", "l.converted_at") },
	{ "lead_sorted_created",
	    LEAD_LIST_SORTED("leads_created", "l.created_at") },
	{ "lead_sorted_captured", LEAD_LIST_SORTED("leads_captured",
	  "l.captured_at") },
	{ "lead_sorted_abandoned", LEAD_LIST_SORTED("leads_abandoned",
	  "l.abandoned_at") },
	{ "lead_sorted_converted", LEAD_LIST_SORTED("leads_converted",
	  "l.converted_at") },
	/* LEAD_GET */
	{ "lead_get",
	    "SELECT " DB_SELECT(LEAD_COLS) ", " DB_SELECT(LEAD_DETAIL_COLS)
	  LEAD_FROM
	  "WHERE l.tenant_id = ? AND l.id = ?" },
	/* LEAD_TIMELINE: the visitor's events on the site, oldest first */
	{ "lead_timeline",
	  "SELECT " DB_SELECT(TIMELINE_COLS) " FROM tag_events e LEFT JOIN "
	  "campaigns c ON c.id = e.campaign_id WHERE e.tenant_id = ? AND "
	  "e.site_id = ? AND e.visitor_id = ? ORDER BY e.received_at, e.id "
	  "LIMIT 200" },
	/*
	 * LEAD_FIND_OPEN: one lead per site, campaign and visitor while it is
	 * not finished (design 3): every status but converted and suppressed.
	 * No ORDER BY: the statuses are ranges of leads_visitor, and sorting
	 * them cost more than the rest of the look-up; the caller takes the
	 * newest should there ever be two.  The index is named: weighing
	 * the dozen indexes that start with these columns (the optimizer
	 * reads each one's range) cost more than the look-up itself, on the
	 * applier's path of every event.
	 */
	{ "lead_find_open",
	  "SELECT " DB_SELECT(OPEN_LEAD_COLS) " FROM leads "
	  "FORCE INDEX (leads_visitor) WHERE tenant_id = ? "
	  "AND site_id = ? AND visitor_id = ? AND campaign_id = ? "
	  "AND status NOT IN ('converted', 'suppressed') FOR UPDATE" },
	/*
	 * LEAD_CAPTURE: NULL leaves a contact as it was; a lead already
	 * judged (abandoned, queued, sent) keeps its status and scenario.
	 * The key id first (MariaDB assigns in order): a contact kept under
	 * an older key keeps the row's older id, so that a rotation still
	 * takes the row (pii_open_any() opens either).  ? the key, ? the
	 * new email, ? the new tel, ? the key.  Each blind index slot's key
	 * the same way, but NULL (a re-key takes the row) when a contact
	 * kept from before is indexed under another: KEY_OF(slot) takes ?
	 * the slot's key, ? the new email, ? the new tel, ? the key.  A
	 * slot's index: ? the new contact, ? its index (NULL: no key).
	 */
	{ "lead_capture",
	  "UPDATE leads SET pii_key_id = IF(pii_key_id <=> ? OR "
	  "((? IS NOT NULL OR email_sealed IS NULL) AND "
	  "(? IS NOT NULL OR tel_sealed IS NULL)), ?, pii_key_id), "
	  KEY_OF("bidx_key") ", " KEY_OF("bidx2_key") ", "
	  "status = IF(status = 'started', 'captured', status), "
	  "captured_at = COALESCE(captured_at, ?, NOW(6)), "
	  "last_activity_at = COALESCE(?, NOW(6)), "
	  "consent_state = ?, session_id = ?, "
	  "email_sealed = COALESCE(?, email_sealed), "
	  "email_bidx = IF(? IS NULL, email_bidx, ?), "
	  "email_bidx2 = IF(? IS NULL, email_bidx2, ?), "
	  "email_masked = COALESCE(?, email_masked), "
	  "tel_sealed = COALESCE(?, tel_sealed), "
	  "tel_bidx = IF(? IS NULL, tel_bidx, ?), "
	  "tel_bidx2 = IF(? IS NULL, tel_bidx2, ?), "
	  "tel_masked = COALESCE(?, tel_masked), tel_kind = COALESCE(?, "
	  "tel_kind), sms_capable = COALESCE(tel_kind = 'mobile', FALSE), "
	  "pii_state = 'present', captures = captures + 1, "
	  "src_addr = ?, src_net = ?, updated_at = NOW(6) "
	  "WHERE tenant_id = ? AND id = ?" },
	/*
	 * LEAD_TOUCH: activity delays the abandonment judgement (index: above)
	 */
	{ "lead_touch",
	  "UPDATE leads FORCE INDEX (leads_visitor) "
	  "SET last_activity_at = COALESCE(?, NOW(6)) WHERE site_id = ? "
	  "AND visitor_id = ? AND campaign_id = ? "
	  "AND status IN ('started', 'captured')" },
	/* LEAD_OPEN_OF: LEAD_FIND_OPEN for INGEST_DONE_MAX visitors at once */
	{ "lead_open_of",
	  "SELECT " DB_SELECT(OPEN_LEAD_OF_COLS) " FROM leads "
	  "FORCE INDEX (leads_visitor) WHERE site_id = ? AND tenant_id = ? "
	  "AND visitor_id IN (" DB_Q100 ") "
	  "AND status NOT IN ('converted', 'suppressed') FOR UPDATE" },
	/*
	 * LEAD_LANDINGS: the first page view of each of INGEST_DONE_MAX
	 * sessions (an index range per session)
	 */
	{ "lead_landings",
	  "SELECT " DB_SELECT(SESSION_LANDING_COLS) " FROM (SELECT session_id, "
	  "url, referrer, ROW_NUMBER() OVER (PARTITION BY session_id "
	  "ORDER BY received_at, id) AS n FROM tag_events "
	  "FORCE INDEX (tag_events_session_stage) WHERE site_id = ? "
	  "AND session_id IN (" DB_Q100 ") AND event_type = 'page_view') f "
	  "WHERE n = 1" },
	/*
	 * LEAD_OF_VISITOR: the visitor's unfinished leads on the site (as
	 * above)
	 */
	{ "leads_of_visitor",
	  "SELECT " DB_SELECT(LEAD_OWNER_COLS) " FROM leads l "
	  "FORCE INDEX (leads_visitor) WHERE l.tenant_id = ? "
	  "AND l.site_id = ? AND l.visitor_id = ? "
	  "AND l.status NOT IN ('converted', 'suppressed') ORDER BY l.id "
	  "FOR UPDATE" },
	/* LEAD_OF_CONTACT: unfinished leads with the same contact */
	{ "leads_of_contact",
	  "SELECT " DB_SELECT(LEAD_OWNER_COLS) " FROM leads l WHERE "
	  "l.tenant_id = ? AND ((? IS NOT NULL AND l.email_bidx = ?) OR "
	  "(? IS NOT NULL AND l.email_bidx2 = ?) OR "
	  "(? IS NOT NULL AND l.tel_bidx = ?) OR "
	  "(? IS NOT NULL AND l.tel_bidx2 = ?)) "
	  "AND l.status NOT IN ('converted', 'suppressed') ORDER BY l.id "
	  "FOR UPDATE" },
	/* LEAD_CONTACT_OF */
	{ "lead_contact_of",
	  "SELECT email_bidx, email_bidx2, tel_bidx, tel_bidx2 FROM leads "
	  "WHERE tenant_id = ? AND id = ?" },
	/* LEAD_CONVERT */
	{ "lead_convert",
	  "UPDATE leads SET status = 'converted', converted_at = COALESCE(?, "
	  "NOW(6)), conversion_source = ?, updated_at = NOW(6) WHERE tenant_id "
	  "= ? AND id = ? AND status NOT IN ('converted', 'suppressed')" },
	/*
	 * LEAD_ABANDON_TENANTS: the tenants with captured leads idle for the
	 * shortest wait of any (LEAD_WAIT_MIN, the second parameter), the
	 * longest idle first: one dive into leads_abandon_tenant a tenant,
	 * whatever its backlog (issue 40).  A loose scan of that index
	 * ("GROUP BY status, tenant_id") was the optimizer's to choose, and
	 * by some statistics it read the status's whole range instead (3,002
	 * entries for 2 due leads in the test).  A lead in a flood's
	 * quarantine (issue 40) waits for its release: the dive reads past
	 * those.
	 */
	{ "leads_abandon_tenants",
	  "SELECT id FROM (SELECT t.id, (SELECT l.last_activity_at FROM leads "
	  "l FORCE INDEX (leads_abandon_tenant) WHERE l.status = 'captured' "
	  "AND l.tenant_id = t.id AND l.quarantine_id IS NULL "
	  "ORDER BY l.last_activity_at LIMIT 1) AS idle "
	  "FROM tenants t) x WHERE idle <= CAST(? AS DATETIME(6)) - INTERVAL ? "
	  "MINUTE ORDER BY idle, id LIMIT ?" },
	/*
	 * LEAD_ABANDON_DUE: a tenant's captured leads past their wait (active
	 * scenario's, else campaign's), the longest idle first, read in the
	 * order of leads_abandon_tenant up to the LIMIT: only those idle for
	 * the shortest wait of any can be due, and that bound is the range
	 * read.  The plan is named: with few scenarios the optimizer joined
	 * them by a join buffer, which lost the index's order, and sorted
	 * every lead of the range in a temporary table for a LIMIT of them.
	 * Not a lead in a flood's quarantine (issue 40).
	 */
	{ "leads_abandon_due",
	  "SELECT STRAIGHT_JOIN " DB_SELECT(LEAD_OWNER_COLS) " FROM leads l "
	  "FORCE INDEX (leads_abandon_tenant) "
	  "JOIN campaigns c FORCE INDEX (PRIMARY) ON c.id = l.campaign_id "
	  "LEFT JOIN scenarios s FORCE INDEX (scenarios_campaign) "
	  "ON s.tenant_id = l.tenant_id "
	  "AND s.campaign_id = l.campaign_id AND s.status = 'active' "
	  "AND s.deleted_at IS NULL WHERE l.status = 'captured' "
	  "AND l.tenant_id = ? AND l.quarantine_id IS NULL "
	  "AND l.last_activity_at <= CAST(? AS DATETIME(6)) - INTERVAL ? "
	  "MINUTE AND l.last_activity_at <= CAST(? AS DATETIME(6)) - INTERVAL "
	  "COALESCE(s.abandon_wait_minutes, c.abandon_wait_minutes) MINUTE "
	  "ORDER BY l.last_activity_at, l.id LIMIT ?" },
	/* LEAD_ABANDON_LEFT: the due leads of every tenant, counted up to ? */
	{ "leads_abandon_left",
	  "SELECT COUNT(*) FROM (SELECT 1 FROM leads l "
	  "FORCE INDEX (leads_abandon) "
	  "JOIN campaigns c FORCE INDEX (PRIMARY) ON c.id = l.campaign_id "
	  "LEFT JOIN scenarios s FORCE INDEX (scenarios_campaign) "
	  "ON s.tenant_id = l.tenant_id "
	  "AND s.campaign_id = l.campaign_id AND s.status = 'active' "
	  "AND s.deleted_at IS NULL WHERE l.status = 'captured' "
	  "AND l.quarantine_id IS NULL "
	  "AND l.last_activity_at <= CAST(? AS DATETIME(6)) - INTERVAL ? "
	  "MINUTE AND l.last_activity_at <= CAST(? AS DATETIME(6)) - INTERVAL "
	  "COALESCE(s.abandon_wait_minutes, c.abandon_wait_minutes) MINUTE "
	  "LIMIT ?) x" },
	/* LEAD_WAIT_MIN: the shortest wait a captured lead can have, minutes */
	{ "leads_wait_min",
	  "SELECT LEAST(COALESCE((SELECT MIN(abandon_wait_minutes) FROM "
	  "campaigns), 0), COALESCE((SELECT MIN(abandon_wait_minutes) FROM "
	  "scenarios WHERE status = 'active' AND deleted_at IS NULL), "
	  "(SELECT MIN(abandon_wait_minutes) FROM campaigns), 0))" },
	/*
	 * LEAD_ABANDON_CLAIM: DB_Q16 leads (the last repeated to fill), each
	 * skipped when another pass holds it, it is no longer captured, or
	 * a flood's quarantine took it since it was found due
	 */
	{ "lead_abandon_claim",
	  "SELECT id FROM leads WHERE tenant_id = ? AND id IN (" DB_Q16 ") "
	  "AND status = 'captured' AND quarantine_id IS NULL "
	  "FOR UPDATE SKIP LOCKED" },
	/* LEAD_ABANDON_SET: the claimed ones (DB_Q16, the last repeated) */
	{ "lead_abandon_set",
	  "UPDATE leads SET status = 'abandoned', abandoned_at = ?, "
	  "updated_at = NOW(6) WHERE tenant_id = ? AND id IN (" DB_Q16 ") "
	  "AND status = 'captured'" },
	/* LEAD_OWNER: tenant, campaign and site of a lead (operator path) */
	{ "lead_owner", "SELECT " DB_SELECT(LEAD_OWNER_COLS) " FROM leads l "
	  "WHERE l.id = ?" },
	/*
	 * LEAD_INGEST_LOCK: a part's applier turn, or nothing when another has
	 * it
	 */
	{ "ingest_lock",
	  "SELECT id FROM tag_ingest_applier WHERE id = ? FOR UPDATE SKIP "
	  "LOCKED" },
	/*
	 * LEAD_INGEST_LOCK_WAIT: a part's applier turn, after the current one
	 */
	{ "ingest_lock_wait",
	  "SELECT id FROM tag_ingest_applier WHERE id = ? FOR UPDATE" },
	/* LEAD_INGEST_BATCH: a part's oldest queued events not parked */
	{ "ingest_batch",
	  "SELECT " DB_SELECT(INGEST_COLS) " FROM tag_ingest "
	  "WHERE part = ? AND attempts < 3 ORDER BY id LIMIT ?" },
	/* LEAD_INGEST_DONE: INGEST_DONE_MAX ids, the last repeated to fill */
	{ "ingest_done",
	  "DELETE FROM tag_ingest WHERE part = ? AND id IN (" DB_Q100 ")" },
	/* LEAD_INGEST_FAILED */
	{ "ingest_failed",
	  "UPDATE tag_ingest SET attempts = attempts + 1, last_error = ? "
	  "WHERE part = ? AND id = ?" },
	/* LEAD_INGEST_PENDING */
	{ "ingest_pending",
	  "SELECT EXISTS (SELECT 1 FROM tag_ingest WHERE attempts < 3)" },
	/* LEAD_INGEST_STATUS */
	{ "ingest_status",
	  "SELECT " DB_SELECT(INGEST_STATUS_COLS) " FROM tag_ingest" },
	/* LEAD_INGEST_RETRY */
	{ "ingest_retry",
	  "UPDATE tag_ingest SET attempts = 0, last_error = NULL WHERE "
	  "attempts >= 3" },
	/*
	 * LEAD_SITE_NAMES, LEAD_CAMPAIGN_NAMES: NAMES_MAX ids, the last
	 * repeated
	 */
	{ "site_names", "SELECT " DB_SELECT(SITE_NAME_COLS) " FROM sites "
	  "WHERE tenant_id = ? AND id IN (" DB_Q16 ")" },
	{ "campaign_names",
	    "SELECT " DB_SELECT(CAMPAIGN_NAME_COLS) " FROM campaigns "
	  "WHERE tenant_id = ? AND id IN (" DB_Q16 ")" },
	/* LEAD_BY_EMAIL, LEAD_BY_TEL: a contact's leads, by blind index */
	{ "lead_by_email", "SELECT " DB_SELECT(LEAD_OWN_COLS) " FROM leads l "
	  "WHERE l.tenant_id = ? AND (l.email_bidx = ? OR l.email_bidx2 = ?) "
	  "ORDER BY l.id DESC LIMIT ?" },
	{ "lead_by_tel", "SELECT " DB_SELECT(LEAD_OWN_COLS) " FROM leads l "
	  "WHERE l.tenant_id = ? AND (l.tel_bidx = ? OR l.tel_bidx2 = ?) "
	  "ORDER BY l.id DESC LIMIT ?" },
};

static enum fb_err
run(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	return db_run(db, DBSET_LEAD, id, &lead_sql[id], p, n, r);
}

#define DB_ROW struct lead_row
static const struct dbcol lead_list_cols[] = { DB_COLUMNS(LEAD_OWN_COLS) };
#undef DB_ROW
/* the lead is the first member: its fields are where lead_row has them */
static const struct dbcol lead_detail_cols[] = {
#define DB_ROW struct lead_row
	DB_COLUMNS(LEAD_COLS)
#undef DB_ROW
#define DB_ROW struct lead_detail_row
	DB_COLUMNS(LEAD_DETAIL_COLS)
#undef DB_ROW
};
#define DB_ROW struct timeline_row
static const struct dbcol timeline_cols[] = { DB_COLUMNS(TIMELINE_COLS) };
#undef DB_ROW
#define DB_ROW struct lead_owner_row
static const struct dbcol lead_owner_cols[] = { DB_COLUMNS(LEAD_OWNER_COLS) };
#undef DB_ROW

static enum fb_err
rows(struct db *db, int id, const struct dbp *p, size_t n,
    const struct dbcol *cols,
    size_t ncols, size_t rowsize, bool one, struct dbrows *out)
{
	return db_rows(db, DBSET_LEAD, id, &lead_sql[id], p, n, cols, ncols,
	    rowsize, one, out);
}

enum fb_err
db_lead_list(struct db *db, const char *tenant, const struct lead_filter *f,
    const char *after, int n, struct dbrows *out)
{
	struct dbp	 p[12];
	char		 fs[32] = "", ts[32] = "";
	bool		 filtered = f->site != NULL || f->campaign != NULL ||
			    f->status != NULL || f->range.has_from ||
			    f->range.has_to;
	size_t		 np = 0;

	if (f->range.field < 0 || f->range.field > 3)
		return FB_EINVAL;
	p[np++] = P_STR(tenant);
	p[np++] = P_STR(after != NULL ? after : DB_MAX_ID);
	p[np++] = P_STR(f->site);
	p[np++] = P_STR(f->site);
	p[np++] = P_STR(f->campaign);
	p[np++] = P_STR(f->campaign);
	p[np++] = P_STR(f->status);
	p[np++] = P_STR(f->status);
	if (!filtered) {
		p[np++] = P_INT(n);
		return rows(db, LEAD_LIST, p, np, lead_list_cols,
		    NELEM(lead_list_cols), sizeof(struct lead_row), false, out);
	}
	np += db_params_range(p + np, &f->range, fs, ts);
	p[np++] = P_INT(n);
	return db_list_walk(db, DBSET_LEAD, lead_sql, LEAD_LIST_CREATED +
	    f->range.field, LEAD_SORTED_CREATED + f->range.field, p, np + 1,
	    f->range.has_from || f->range.has_to, lead_list_cols,
	    NELEM(lead_list_cols), sizeof(struct lead_row), out);
}

enum fb_err
db_names(struct db *db, enum name_kind kind, const char *tenant,
    const char *const *ids, size_t n, struct dbrows *out)
{
#define DB_ROW struct name_row
	static const struct dbcol site_cols[] = { DB_COLUMNS(SITE_NAME_COLS) };
	static const struct dbcol campaign_cols[] = {
	    DB_COLUMNS(CAMPAIGN_NAME_COLS) };
#undef DB_ROW
	struct dbp	 p[1 + NAMES_MAX];

	if (n == 0 || n > NAMES_MAX)
		return FB_EINVAL;
	p[0] = P_STR(tenant);
	db_params_in(p + 1, NAMES_MAX, ids, n);
	if (kind == NAME_SITE)
		return rows(db, LEAD_SITE_NAMES, p, NELEM(p), site_cols,
		    NELEM(site_cols), sizeof(struct name_row), false, out);
	return rows(db, LEAD_CAMPAIGN_NAMES, p, NELEM(p), campaign_cols,
	    NELEM(campaign_cols), sizeof(struct name_row), false, out);
}

enum fb_err
db_lead_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, LEAD_GET, DBPARAMS(P_STR(tenant), P_STR(id)),
	    lead_detail_cols, NELEM(lead_detail_cols),
	    sizeof(struct lead_detail_row), true, out);
}

enum fb_err
db_lead_timeline(struct db *db, const char *tenant, const char *site,
    const char *visitor, struct dbrows *out)
{
	return rows(db, LEAD_TIMELINE, DBPARAMS(P_STR(tenant), P_STR(site),
	    P_STR(visitor)), timeline_cols, NELEM(timeline_cols),
	    sizeof(struct timeline_row), false, out);
}

enum fb_err
db_lead_find_open(struct db *db, const char *tenant, const char *site,
    const char *visitor, const char *campaign, struct dbrows *out)
{
#define DB_ROW struct open_lead_row
	static const struct dbcol cols[] = { DB_COLUMNS(OPEN_LEAD_COLS) };
#undef DB_ROW

	return rows(db, LEAD_FIND_OPEN, DBPARAMS(P_STR(tenant), P_STR(site),
	    P_STR(visitor), P_STR(campaign)), cols, NELEM(cols),
	    sizeof(struct open_lead_row), false, out);
}

static struct dbp
bin_or_null(const unsigned char *p, size_t n)
{
	return p != NULL ? P_BIN(p, n) : P_NULL;
}

/*
 * The key id of blind index slot s a capture writes: its contacts'
 * (the same keys for both), NULL when the slot has no key.
 */
static struct dbp
slot_key(const struct lead_contact *c, int s)
{
	const struct bidx *b = c->email_bidx != NULL ? c->email_bidx :
	    c->tel_bidx;

	return P_BKEY(b, s);
}

enum fb_err
db_lead_capture(struct db *db, const char *tenant, const char *id,
    const struct lead_contact *c, const char *at)
{
	struct dbp	 es, ts, k1 = slot_key(c, 0), k2 = slot_key(c, 1);

	es = bin_or_null(c->email_sealed, c->email_sealed_len);
	ts = bin_or_null(c->tel_sealed, c->tel_sealed_len);

	return run(db, LEAD_CAPTURE, DBPARAMS(P_INT(c->key_id), es, ts,
	    P_INT(c->key_id), k1, es, ts, k1, k2, es, ts, k2,
	    P_STR(at), P_STR(at), P_STR(c->consent_state),
	    P_STR(c->session), es, es, P_BIDX(c->email_bidx, 0),
	    es, P_BIDX(c->email_bidx, 1), P_STR(c->email_masked),
	    ts, ts, P_BIDX(c->tel_bidx, 0), ts, P_BIDX(c->tel_bidx, 1),
	    P_STR(c->tel_masked),
	    P_STR(c->tel_kind), bin_or_null(c->src_addr, 32),
	    bin_or_null(c->src_net, 32), P_STR(tenant), P_STR(id)), NULL);
}

enum fb_err
db_lead_touch(struct db *db, const char *site, const char *visitor,
    const char *campaign, const char *at)
{
	return run(db, LEAD_TOUCH,
	    DBPARAMS(P_STR(at), P_STR(site), P_STR(visitor),
	    P_STR(campaign)), NULL);
}

enum fb_err
db_leads_open_of(struct db *db, const char *tenant, const char *site,
    const char *const *visitors, size_t n, struct dbrows *out)
{
#define DB_ROW struct open_lead_of_row
	static const struct dbcol cols[] = { DB_COLUMNS(OPEN_LEAD_OF_COLS) };
#undef DB_ROW
	struct dbp	 p[2 + INGEST_DONE_MAX];

	if (n == 0 || n > INGEST_DONE_MAX)
		return FB_EINVAL;
	p[0] = P_STR(site);
	p[1] = P_STR(tenant);
	db_params_in(p + 2, INGEST_DONE_MAX, visitors, n);
	return rows(db, LEAD_OPEN_OF, p, NELEM(p), cols, NELEM(cols),
	    sizeof(struct open_lead_of_row), false, out);
}

enum fb_err
db_lead_landings(struct db *db, const char *site, const char *const *sessions,
    size_t n, struct dbrows *out)
{
#define DB_ROW struct session_landing_row
	static const struct dbcol cols[] = { DB_COLUMNS(SESSION_LANDING_COLS) };
#undef DB_ROW
	struct dbp	 p[1 + INGEST_DONE_MAX];

	if (n == 0 || n > INGEST_DONE_MAX)
		return FB_EINVAL;
	p[0] = P_STR(site);
	db_params_in(p + 1, INGEST_DONE_MAX, sessions, n);
	return rows(db, LEAD_LANDINGS, p, NELEM(p), cols, NELEM(cols),
	    sizeof(struct session_landing_row), false, out);
}

enum fb_err
db_leads_of_visitor(struct db *db, const char *tenant, const char *site,
    const char *visitor, struct dbrows *out)
{
	return rows(db, LEAD_OF_VISITOR, DBPARAMS(P_STR(tenant), P_STR(site),
	    P_STR(visitor)), lead_owner_cols, NELEM(lead_owner_cols),
	    sizeof(struct lead_owner_row), false, out);
}

enum fb_err
db_leads_of_contact(struct db *db, const char *tenant, const char *lead,
    struct dbrows *out)
{
	struct dbres	 c;
	struct dbp	 v[4];
	enum fb_err	 e;
	unsigned	 i;

	if ((e = run(db, LEAD_CONTACT_OF, DBPARAMS(P_STR(tenant), P_STR(lead)),
	    &c)) != FB_OK)
		return e;
	/* both slots of each: either matches (pii.h struct bidx_keys) */
	for (i = 0; i < 4; i++)
		v[i] = c.nrows == 1 ? dbres_param(&c, 0, i) : P_NULL;
	e = rows(db, LEAD_OF_CONTACT, DBPARAMS(P_STR(tenant), v[0], v[0],
	    v[1], v[1], v[2], v[2], v[3], v[3]),
	    lead_owner_cols, NELEM(lead_owner_cols),
	    sizeof(struct lead_owner_row), false, out);
	dbres_free(&c);
	return e;
}

enum fb_err
db_lead_convert(struct db *db, const char *tenant, const char *id,
    const char *source, const char *at, bool *changed)
{
	unsigned long long n;
	enum fb_err	 e;

	e = db_changed(db, DBSET_LEAD, LEAD_CONVERT, &lead_sql[LEAD_CONVERT],
	    DBPARAMS(P_STR(at), P_STR(source), P_STR(tenant), P_STR(id)), &n);
	*changed = n > 0;
	return e;
}

/* The shortest wait a captured lead can have, minutes. */
static enum fb_err
wait_min(struct db *db, long long *wait)
{
	bool	 found;

	return db_value(db, DBSET_LEAD, LEAD_WAIT_MIN, &lead_sql[LEAD_WAIT_MIN],
	    DBNOPARAMS, wait, &found);
}

enum fb_err
db_leads_abandon_tenants(struct db *db, long long now, int limit,
    struct dbrows *out)
{
	char		 at[32];
	long long	 wait;
	enum fb_err	 e;

	memset(out, 0, sizeof(*out));
	if ((e = wait_min(db, &wait)) != FB_OK)
		return e;
	time_sql(now, at);
	return rows(db, LEAD_ABANDON_TENANTS, DBPARAMS(P_STR(at), P_INT(wait),
	    P_INT(limit)), key_cols, NELEM(key_cols), sizeof(struct key_row),
	    false, out);
}

enum fb_err
db_leads_abandon_due(struct db *db, const char *tenant, long long now,
    int limit, struct dbrows *out)
{
	char		 at[32];
	long long	 wait;
	enum fb_err	 e;

	out->n = 0;
	out->row = NULL;
	if ((e = wait_min(db, &wait)) != FB_OK)
		return e;
	time_sql(now, at);
	return rows(db, LEAD_ABANDON_DUE, DBPARAMS(P_STR(tenant), P_STR(at),
	    P_INT(wait), P_STR(at), P_INT(limit)), lead_owner_cols,
	    NELEM(lead_owner_cols), sizeof(struct lead_owner_row), false, out);
}

enum fb_err
db_leads_abandon_left(struct db *db, long long now, long long cap, long long *n)
{
	char		 at[32];
	long long	 wait;
	bool		 found;
	enum fb_err	 e;

	*n = 0;
	if ((e = wait_min(db, &wait)) != FB_OK)
		return e;
	time_sql(now, at);
	return db_value(db, DBSET_LEAD, LEAD_ABANDON_LEFT,
	    &lead_sql[LEAD_ABANDON_LEFT], DBPARAMS(P_STR(at), P_INT(wait),
	    P_STR(at), P_INT(cap)), n, &found);
}

enum fb_err
db_leads_abandon(struct db *db, const char *tenant, const char *const *ids,
    size_t n, long long now, bool taken[])
{
	struct dbp	 p[2 + 16];
	const char	*got[16];
	struct dbres	 r;
	char		 at[32];
	size_t		 i, k = 0;
	unsigned	 j;
	enum fb_err	 e;

	if (n < 1 || n > 16)
		return FB_EINVAL;
	p[0] = P_STR(tenant);
	db_params_in(p + 1, 16, ids, n);
	if ((e = run(db, LEAD_ABANDON_CLAIM, p, 17, &r)) != FB_OK)
		return e;
	for (i = 0; i < n; i++) {
		taken[i] = false;
		for (j = 0; j < r.nrows && !taken[i]; j++)
			taken[i] = strcmp(dbres_get(&r, j, 0), ids[i]) == 0;
		if (taken[i])
			got[k++] = ids[i];
	}
	dbres_free(&r);
	if (k == 0)
		return FB_OK;
	time_sql(now, at);
	p[0] = P_STR(at);
	p[1] = P_STR(tenant);
	db_params_in(p + 2, 16, got, k);
	return run(db, LEAD_ABANDON_SET, p, NELEM(p), NULL);
}

enum fb_err
db_lead_owner(struct db *db, const char *id, struct dbrows *out)
{
	return rows(db, LEAD_OWNER, DBPARAMS(P_STR(id)), lead_owner_cols,
	    NELEM(lead_owner_cols), sizeof(struct lead_owner_row), true, out);
}

/*
 * The multi-row INSERTs (db_run_multi()): the collector's queued events,
 * the applier's tag_events rows and its new leads.
 */
#define INGEST_NCOLS	18
#define EVENTS_COLS	15
static const struct dbmulti ingest_add = { DBM_INGEST, "ingest_add",
	"INSERT INTO tag_ingest (part, id, tenant_id, site_id, visitor_id, "
	"session_id, event_type, campaign_key, role, url, referrer, consent, "
	"client_ts, tel_sealed, email_sealed, pii_key_id, src_addr, src_net) "
	"VALUES ",
	"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" };
static const struct dbmulti events_insert = { DBM_TAG_EVENTS,
	"tag_events_insert",
	"INSERT INTO tag_events (id, tenant_id, site_id, campaign_id, lead_id, "
	"visitor_id, session_id, event_type, role, url, url_path, referrer, "
	"consent, client_ts, received_at) VALUES ",
	"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" };
/* a captured lead's parameters (lead_new_params()) */
#define LEADS_CAPTURED_COLS	29
_Static_assert(DB_MULTI_MAX * LEADS_CAPTURED_COLS <= DB_PARAMS_MAX,
    "DB_PARAMS_MAX holds DB_MULTI_MAX captured leads");
static const struct dbmulti leads_insert = { DBM_LEADS, "leads_insert",
	"INSERT INTO leads (id, tenant_id, site_id, campaign_id, visitor_id, "
	"session_id, status, landing_url, referrer, utm, lp_key, created_at, "
	"last_activity_at) VALUES ",
	"(?, ?, ?, ?, ?, ?, 'started', ?, ?, ?, ?, COALESCE(?, NOW(6)), "
	"COALESCE(?, NOW(6)))" };
static const struct dbmulti leads_insert_captured = { DBM_LEADS_CAPTURED,
	"leads_insert_captured",
	"INSERT INTO leads (id, tenant_id, site_id, campaign_id, visitor_id, "
	"session_id, status, landing_url, referrer, utm, lp_key, captured_at, "
	"last_activity_at, consent_state, email_sealed, email_bidx, "
	"email_bidx2, email_masked, tel_sealed, tel_bidx, tel_bidx2, "
	"tel_masked, tel_kind, "
	"sms_capable, pii_key_id, bidx_key, bidx2_key, "
	"pii_state, captures, created_at, src_addr, src_net) VALUES ",
	"(?, ?, ?, ?, ?, ?, 'captured', ?, ?, ?, ?, COALESCE(?, NOW(6)), "
	"COALESCE(?, NOW(6)), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
	"COALESCE(? = 'mobile', FALSE), ?, ?, ?, 'present', 1, "
	"COALESCE(?, NOW(6)), ?, ?)" };

/* New lead w's parameters from q on, in its kind's order; the end. */
static struct dbp *
lead_new_params(struct dbp *q, const struct lead_new *w)
{
	const struct lead_contact *c = w->c;
	const char	*act = w->activity_at != NULL ? w->activity_at : w->at;

	*q++ = P_STR(w->id);
	*q++ = P_STR(w->tenant);
	*q++ = P_STR(w->site);
	*q++ = P_STR(w->campaign);
	*q++ = P_STR(w->visitor);
	*q++ = P_STR(c != NULL ? c->session : w->session);
	*q++ = P_STR(w->landing);
	*q++ = P_STR(w->referrer);
	*q++ = P_STR(w->utm);
	*q++ = P_STR(w->lp_key);
	/* created_at, or a captured one's captured_at */
	*q++ = P_STR(w->at);
	*q++ = P_STR(act);
	if (c == NULL)
		return q;
	*q++ = P_STR(c->consent_state);
	*q++ = bin_or_null(c->email_sealed, c->email_sealed_len);
	*q++ = P_BIDX(c->email_bidx, 0);
	*q++ = P_BIDX(c->email_bidx, 1);
	*q++ = P_STR(c->email_masked);
	*q++ = bin_or_null(c->tel_sealed, c->tel_sealed_len);
	*q++ = P_BIDX(c->tel_bidx, 0);
	*q++ = P_BIDX(c->tel_bidx, 1);
	*q++ = P_STR(c->tel_masked);
	*q++ = P_STR(c->tel_kind);
	*q++ = P_STR(c->tel_kind);
	*q++ = P_INT(c->key_id);
	*q++ = slot_key(c, 0);
	*q++ = slot_key(c, 1);
	*q++ = P_STR(w->at);
	*q++ = bin_or_null(c->src_addr, 32);
	*q++ = bin_or_null(c->src_net, 32);
	return q;
}

enum fb_err
db_leads_insert(struct db *db, const struct lead_new *w, size_t n)
{
	const struct dbmulti *m;
	struct dbp	 p[DB_MULTI_MAX * LEADS_CAPTURED_COLS], *q;
	size_t		 i, k;
	bool		 captured;
	int		 kind;
	enum fb_err	 e;

	for (kind = 0; kind < 2; kind++) {
		captured = kind == 1;
		m = captured ? &leads_insert_captured : &leads_insert;
		for (q = p, k = i = 0; i < n; i++) {
			if ((w[i].c != NULL) != captured)
				continue;
			q = lead_new_params(q, &w[i]);
			if (++k < DB_MULTI_MAX)
				continue;
			if ((e = db_run_multi(db, m, k, p,
			    (size_t)(q - p))) != FB_OK)
				return e;
			q = p;
			k = 0;
		}
		if (k > 0 && (e = db_run_multi(db, m, k, p,
		    (size_t)(q - p))) != FB_OK)
			return e;
	}
	return FB_OK;
}

enum fb_err
db_tag_events_insert(struct db *db, const struct tag_event_row *rows, size_t n)
{
	struct dbp		 p[DB_MULTI_MAX * EVENTS_COLS], *q;
	char			 id[DB_MULTI_MAX][UUID_STRLEN + 1];
	const struct tag_event_row *ev;
	size_t			 i, k;
	enum fb_err		 e;

	for (; n > 0; rows += k, n -= k) {
		k = n < DB_MULTI_MAX ? n : DB_MULTI_MAX;
		for (q = p, i = 0; i < k; i++) {
			ev = &rows[i];
			uuid_v7(id[i]);
			*q++ = P_STR(id[i]);
			*q++ = P_STR(ev->tenant);
			*q++ = P_STR(ev->site);
			*q++ = P_STR(ev->campaign);
			*q++ = P_STR(ev->lead);
			*q++ = P_STR(ev->visitor);
			*q++ = P_STR(ev->session);
			*q++ = P_STR(ev->type);
			*q++ = P_STR(ev->role);
			*q++ = P_STR(ev->url);
			*q++ = P_STR(ev->url_path);
			*q++ = P_STR(ev->referrer);
			*q++ = ev->consent < 0 ? P_NULL : P_INT(ev->consent);
			*q++ = ev->client_ts > 0 ?
			    P_INT(ev->client_ts) : P_NULL;
			*q++ = ev->at != NULL ? P_STR(ev->at) : P_NULL;
		}
		if ((e = db_run_multi(db, &events_insert, k, p,
		    (size_t)(q - p))) != FB_OK)
			return e;
	}
	return FB_OK;
}

enum fb_err
db_ingest_add(struct db *db, const struct ingest_event *const *evs, size_t n)
{
	struct dbp			 p[INGEST_ADD_MAX * INGEST_NCOLS];
	struct dbp			*q = p;
	const struct ingest_event	*ev;
	size_t				 i;

	if (n == 0)
		return FB_OK;
	if (n > INGEST_ADD_MAX || n > DB_MULTI_MAX)
		return FB_EINVAL;
	for (i = 0; i < n; i++) {
		ev = evs[i];
		*q++ = P_INT(ingest_part(ev->visitor));
		*q++ = P_STR(ev->id);
		*q++ = P_STR(ev->tenant);
		*q++ = P_STR(ev->site);
		*q++ = P_STR(ev->visitor);
		*q++ = P_STR(ev->session);
		*q++ = P_STR(ev->type);
		*q++ = P_STR(ev->campaign_key);
		*q++ = P_STR(ev->role);
		*q++ = P_STR(ev->url);
		*q++ = P_STR(ev->referrer);
		*q++ = ev->consent < 0 ? P_NULL : P_INT(ev->consent);
		*q++ = ev->client_ts > 0 ? P_INT(ev->client_ts) : P_NULL;
		*q++ = bin_or_null(ev->tel_sealed, ev->tel_sealed_len);
		*q++ = bin_or_null(ev->email_sealed, ev->email_sealed_len);
		*q++ = P_INT(ev->key_id);
		*q++ = bin_or_null(ev->src_addr, 32);
		*q++ = bin_or_null(ev->src_net, 32);
	}
	return db_run_multi(db, &ingest_add, n, p, n * INGEST_NCOLS);
}

unsigned
ingest_part(const char *visitor)
{
	return fnv1a(FNV1A_INIT, visitor) % INGEST_PARTS;
}

enum fb_err
db_ingest_lock(struct db *db, unsigned part, bool wait, bool *held)
{
	struct dbres	 r;
	enum fb_err	 e;

	if ((e = run(db, wait ? LEAD_INGEST_LOCK_WAIT : LEAD_INGEST_LOCK,
	    DBPARAMS(P_INT(part)), &r)) != FB_OK)
		return e;
	*held = r.nrows == 1;
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_ingest_batch(struct db *db, unsigned part, int limit, struct dbrows *out)
{
#define DB_ROW struct ingest_row
	static const struct dbcol cols[] = { DB_COLUMNS(INGEST_COLS) };
#undef DB_ROW

	return rows(db, LEAD_INGEST_BATCH, DBPARAMS(P_INT(part), P_INT(limit)),
	    cols, NELEM(cols), sizeof(struct ingest_row), false, out);
}

enum fb_err
db_ingest_done(struct db *db, unsigned part, const char *const *ids, size_t n)
{
	struct dbp	 p[1 + INGEST_DONE_MAX];

	if (n == 0)
		return FB_OK;
	if (n > INGEST_DONE_MAX)
		return FB_EINVAL;
	p[0] = P_INT(part);
	db_params_in(p + 1, INGEST_DONE_MAX, ids, n);
	return run(db, LEAD_INGEST_DONE, p, NELEM(p), NULL);
}

enum fb_err
db_ingest_failed(struct db *db, unsigned part, const char *id,
    const char *error)
{
	return run(db, LEAD_INGEST_FAILED, DBPARAMS(P_STR(error), P_INT(part),
	    P_STR(id)), NULL);
}

enum fb_err
db_ingest_pending(struct db *db, bool *pending)
{
	long long	 v;
	enum fb_err	 e;

	e = db_value(db, DBSET_LEAD, LEAD_INGEST_PENDING,
	    &lead_sql[LEAD_INGEST_PENDING], DBNOPARAMS, &v, pending);
	*pending = *pending && v != 0;
	return e;
}

enum fb_err
db_ingest_status(struct db *db, struct dbrows *out)
{
#define DB_ROW struct ingest_status_row
	static const struct dbcol cols[] = { DB_COLUMNS(INGEST_STATUS_COLS) };
#undef DB_ROW

	return rows(db, LEAD_INGEST_STATUS, DBNOPARAMS, cols, NELEM(cols),
	    sizeof(struct ingest_status_row), false, out);
}

enum fb_err
db_ingest_retry(struct db *db, long long *n)
{
	unsigned long long changed = 0;
	enum fb_err	 e;

	/* the hours rolled since they were parked are rolled again */
	if ((e = db_begin(db)) != FB_OK)
		return e;
	if ((e = db_hours_take_back(db)) == FB_OK)
		e = db_changed(db, DBSET_LEAD, LEAD_INGEST_RETRY,
		    &lead_sql[LEAD_INGEST_RETRY], DBNOPARAMS, &changed);
	if (e == FB_OK)
		e = db_commit(db);
	if (e != FB_OK)
		db_rollback(db);
	*n = (long long)changed;
	return e;
}

enum fb_err
db_leads_by_contact(struct db *db, const char *tenant, bool email,
    const struct bidx *bidx, int n, struct dbrows *out)
{
	return rows(db, email ? LEAD_BY_EMAIL : LEAD_BY_TEL,
	    DBPARAMS(P_STR(tenant), P_BIDX(bidx, 0), P_BIDX(bidx, 1), P_INT(n)),
	    lead_list_cols, NELEM(lead_list_cols), sizeof(struct lead_row),
	    false, out);
}
