/*
 * SQL of data-subject requests (personal.h; issue 43): what is held
 * about one contact, found by its blind index, and its erasure.  Every
 * statement filters on the tenant; none reads or writes a report table:
 * the rows the reports count stay, without what names the person
 * (docs/internals/privacy.md).
 */
#include <stdio.h>
#include <string.h>

#include "../pii.h"
#include "store.h"

enum {
	PD_LEADS_EMAIL, PD_LEADS_TEL, PD_LEADS_EMAIL_LOCK, PD_LEADS_TEL_LOCK,
	PD_DELIVERIES, PD_EVENTS, PD_HOOKS, PD_SUPPRESSIONS, PD_TEST_RCPTS,
	PD_LEAD_ERASE, PD_EVENTS_ERASE, PD_DLV_CANCEL, PD_DLV_MASK,
	PD_HOOKS_SCRUB, PD_OUTBOX_SCRUB, PD_SUP_DELETE, PD_SUP_STRIP,
	PD_RCPT_DELETE, PD__MAX
};
_Static_assert(PD__MAX <= DBSET_STMT_MAX, "raise DBSET_STMT_MAX");

#define PD_LIMIT	" LIMIT 500"
_Static_assert(PD_ROWS_MAX == 500, "PD_LIMIT is PD_ROWS_MAX");
#define PD_LEADS(col) "SELECT " DB_SELECT(PD_LEAD_COLS) " FROM leads " \
	"FORCE INDEX (leads_" col ", leads_" col "2) WHERE tenant_id = ? AND " \
	"(" col "_bidx = ? OR " col "_bidx2 = ?) ORDER BY id" PD_LIMIT
/* a keyed hash of an id under the request's salt, shaped as a UUID */
#define PD_PSEUDO(col) "LOWER(CONCAT_WS('-', SUBSTR(SHA2(CONCAT(?, " col \
	"), 256), 1, 8), SUBSTR(SHA2(CONCAT(?, " col "), 256), 9, 4), " \
	"SUBSTR(SHA2(CONCAT(?, " col "), 256), 13, 4), SUBSTR(SHA2(CONCAT(?, " \
	col "), 256), 17, 4), SUBSTR(SHA2(CONCAT(?, " col "), 256), 21, 12)))"
/* the contact members a payload should never hold (contract: Events) */
#define PD_CONTACT_PATHS "'$.data.email', '$.data.tel', '$.data.phone', " \
	"'$.data.contact', '$.data.email_masked', '$.data.tel_masked'"
#define PD_SCRUB(col) "JSON_REMOVE(JSON_REMOVE(JSON_REMOVE(JSON_REMOVE(" \
	"JSON_REMOVE(JSON_REMOVE(" col ", '$.data.email'), '$.data.tel'), " \
	"'$.data.phone'), '$.data.contact'), '$.data.email_masked'), " \
	"'$.data.tel_masked')"

static const struct dbstmt pd_sql[PD__MAX] = {
	/* PD_LEADS_*: by the blind index's own key, then locked for erasure */
	{ "pd_leads_email", PD_LEADS("email") },
	{ "pd_leads_tel", PD_LEADS("tel") },
	{ "pd_leads_email_lock", PD_LEADS("email") " FOR UPDATE" },
	{ "pd_leads_tel_lock", PD_LEADS("tel") " FOR UPDATE" },
	/* PD_DELIVERIES */
	{ "pd_deliveries",
	  "SELECT " DB_SELECT(PD_DELIVERY_COLS) " FROM deliveries d "
	  "FORCE INDEX (deliveries_lead) WHERE d.tenant_id = ? AND "
	  "d.lead_id = ? ORDER BY d.id" PD_LIMIT },
	/* PD_EVENTS: on tag_events_visitor */
	{ "pd_events",
	  "SELECT " DB_SELECT(PD_EVENT_COLS) " FROM tag_events e "
	  "FORCE INDEX (tag_events_visitor) WHERE e.site_id = ? AND "
	  "e.visitor_id = ? AND e.tenant_id = ? ORDER BY e.received_at, e.id"
	  PD_LIMIT },
	/* PD_HOOKS: the tenant's records (30 days: formback-webhooks purges) */
	{ "pd_hooks",
	  "SELECT " DB_SELECT(PD_HOOK_COLS) " FROM webhook_deliveries w "
	  "WHERE w.tenant_id = ? AND JSON_VALUE(w.body, '$.data.lead_id') = ? "
	  "ORDER BY w.id" PD_LIMIT },
	/* PD_SUPPRESSIONS */
	{ "pd_suppressions",
	  "SELECT " DB_SELECT(SUPPRESSION_COLS) " FROM suppressions "
	  "FORCE INDEX (suppressions_lookup, suppressions_lookup2) "
	  "WHERE tenant_id = ? AND kind = ? AND (bidx = ? OR bidx2 = ?) "
	  "ORDER BY id" },
	/* PD_TEST_RCPTS */
	{ "pd_test_recipients",
	  "SELECT " DB_SELECT(TEST_RECIPIENT_COLS) " FROM test_recipients "
	  "WHERE tenant_id = ? AND kind = ? AND (bidx = ? OR bidx2 = ?) "
	  "ORDER BY id" },
	/*
	 * PD_LEAD_ERASE: what names the person goes, what the reports count
	 * (times, site, campaign, conversion) stays; the visitor id becomes
	 * the lead's own id, which links to nothing
	 */
	{ "pd_lead_erase",
	  "UPDATE leads SET email_sealed = NULL, email_bidx = NULL, "
	  "email_bidx2 = NULL, email_masked = NULL, tel_sealed = NULL, "
	  "tel_bidx = NULL, tel_bidx2 = NULL, "
	  "tel_masked = NULL, pii_key_id = NULL, pii_state = 'absent', "
	  "landing_url = NULL, referrer = NULL, utm = NULL, lp_key = NULL, "
	  "visitor_id = CAST(id AS CHAR), session_id = NULL, src_addr = NULL, "
	  "src_net = NULL, "
	  "suppress_reason = IF(status IN ('started', 'captured', 'abandoned', "
	  "'queued'), 'erased', suppress_reason), "
	  "status = IF(status IN ('started', 'captured', 'abandoned', "
	  "'queued'), 'suppressed', status), updated_at = NOW(6) "
	  "WHERE tenant_id = ? AND id = ?" },
	/*
	 * PD_EVENTS_ERASE: left to right, session before visitor, each by
	 * the same keyed hash: a session that was its visitor's id stays so
	 */
	{ "pd_events_erase",
	  "UPDATE tag_events FORCE INDEX (tag_events_visitor) SET "
	  "session_id = IF(session_id = '', '', " PD_PSEUDO("session_id") "), "
	  "visitor_id = " PD_PSEUDO("visitor_id") ", lead_id = NULL, "
	  "url = url_path, referrer = NULL, client_ts = NULL "
	  "WHERE site_id = ? AND visitor_id = ? AND tenant_id = ?" },
	/* PD_DLV_CANCEL */
	{ "pd_deliveries_cancel",
	  "UPDATE deliveries SET status = 'cancelled', cancel_reason = "
	  "'erased', updated_at = NOW(6) WHERE tenant_id = ? AND lead_id = ? "
	  "AND status = 'scheduled'" },
	/* PD_DLV_MASK */
	{ "pd_deliveries_mask",
	  "UPDATE deliveries SET to_masked = NULL, pii_state = 'absent', "
	  "updated_at = NOW(6) WHERE tenant_id = ? AND lead_id = ? "
	  "AND (to_masked IS NOT NULL OR pii_state <> 'absent')" },
	/* PD_HOOKS_SCRUB */
	{ "pd_hooks_scrub",
	  "UPDATE webhook_deliveries SET body = " PD_SCRUB("body") ", "
	  "updated_at = NOW(6) WHERE tenant_id = ? AND "
	  "JSON_VALUE(body, '$.data.lead_id') = ? AND "
	  "JSON_CONTAINS_PATH(body, 'one', " PD_CONTACT_PATHS ")" },
	/* PD_OUTBOX_SCRUB: events not fanned out yet */
	{ "pd_outbox_scrub",
	  "UPDATE outbox SET payload = " PD_SCRUB("payload") " "
	  "WHERE tenant_id = ? AND topic = 'webhook' AND "
	  "JSON_VALUE(payload, '$.data.lead_id') = ? AND "
	  "JSON_CONTAINS_PATH(payload, 'one', " PD_CONTACT_PATHS ")" },
	/* PD_SUP_DELETE */
	{ "pd_suppressions_delete",
	  "DELETE FROM suppressions WHERE tenant_id = ? AND kind = ? "
	  "AND (bidx = ? OR bidx2 = ?)" },
	/* PD_SUP_STRIP */
	{ "pd_suppressions_strip",
	  "UPDATE suppressions SET masked = '', memo = NULL WHERE tenant_id = "
	  "? AND kind = ? AND (bidx = ? OR bidx2 = ?) "
	  "AND (masked <> '' OR memo IS NOT NULL)" },
	/* PD_RCPT_DELETE */
	{ "pd_test_recipients_delete",
	  "DELETE FROM test_recipients WHERE tenant_id = ? AND kind = ? "
	  "AND (bidx = ? OR bidx2 = ?)" },
};

static enum fb_err
rows(struct db *db, int id, const struct dbp *p, size_t n,
    const struct dbcol *cols, size_t ncols, size_t rowsize, struct dbrows *out)
{
	return db_rows(db, DBSET_PERSONAL, id, &pd_sql[id], p, n, cols, ncols,
	    rowsize, false, out);
}

static enum fb_err
changed(struct db *db, int id, const struct dbp *p, size_t np,
    unsigned long long *n)
{
	return db_changed(db, DBSET_PERSONAL, id, &pd_sql[id], p, np, n);
}

#define DB_ROW struct pd_lead_row
static const struct dbcol lead_cols[] = { DB_COLUMNS(PD_LEAD_COLS) };
#undef DB_ROW
#define DB_ROW struct pd_delivery_row
static const struct dbcol delivery_cols[] = { DB_COLUMNS(PD_DELIVERY_COLS) };
#undef DB_ROW
#define DB_ROW struct pd_event_row
static const struct dbcol event_cols[] = { DB_COLUMNS(PD_EVENT_COLS) };
#undef DB_ROW
#define DB_ROW struct pd_hook_row
static const struct dbcol hook_cols[] = { DB_COLUMNS(PD_HOOK_COLS) };
#undef DB_ROW
#define DB_ROW struct suppression_row
static const struct dbcol suppression_cols[] = { DB_COLUMNS(SUPPRESSION_COLS) };
#undef DB_ROW
#define DB_ROW struct test_recipient_row
static const struct dbcol rcpt_cols[] = { DB_COLUMNS(TEST_RECIPIENT_COLS) };
#undef DB_ROW

enum fb_err
db_pd_leads(struct db *db, const char *tenant, bool email,
    const struct bidx *bidx, bool lock, struct dbrows *out)
{
	int	 id = email ? (lock ? PD_LEADS_EMAIL_LOCK : PD_LEADS_EMAIL) :
		    (lock ? PD_LEADS_TEL_LOCK : PD_LEADS_TEL);

	return rows(db, id, DBPARAMS(P_STR(tenant), P_BIDX(bidx, 0),
	    P_BIDX(bidx, 1)),
	    lead_cols, NELEM(lead_cols), sizeof(struct pd_lead_row), out);
}

enum fb_err
db_pd_deliveries(struct db *db, const char *tenant, const char *lead,
    struct dbrows *out)
{
	return rows(db, PD_DELIVERIES, DBPARAMS(P_STR(tenant), P_STR(lead)),
	    delivery_cols, NELEM(delivery_cols), sizeof(struct pd_delivery_row),
	    out);
}

enum fb_err
db_pd_events(struct db *db, const char *tenant, const char *site,
    const char *visitor, struct dbrows *out)
{
	return rows(db, PD_EVENTS, DBPARAMS(P_STR(site), P_STR(visitor),
	    P_STR(tenant)), event_cols, NELEM(event_cols),
	    sizeof(struct pd_event_row), out);
}

enum fb_err
db_pd_hooks(struct db *db, const char *tenant, const char *lead,
    struct dbrows *out)
{
	return rows(db, PD_HOOKS, DBPARAMS(P_STR(tenant), P_STR(lead)),
	    hook_cols, NELEM(hook_cols), sizeof(struct pd_hook_row), out);
}

enum fb_err
db_pd_suppressions(struct db *db, const char *tenant, const char *kind,
    const struct bidx *bidx, struct dbrows *out)
{
	return rows(db, PD_SUPPRESSIONS, DBPARAMS(P_STR(tenant), P_STR(kind),
	    P_BIDX(bidx, 0), P_BIDX(bidx, 1)), suppression_cols,
	    NELEM(suppression_cols), sizeof(struct suppression_row), out);
}

enum fb_err
db_pd_test_recipients(struct db *db, const char *tenant, const char *kind,
    const struct bidx *bidx, struct dbrows *out)
{
	return rows(db, PD_TEST_RCPTS, DBPARAMS(P_STR(tenant), P_STR(kind),
	    P_BIDX(bidx, 0), P_BIDX(bidx, 1)), rcpt_cols, NELEM(rcpt_cols),
	    sizeof(struct test_recipient_row), out);
}

enum fb_err
db_pd_lead_erase(struct db *db, const char *tenant, const char *lead,
    unsigned long long *n)
{
	return changed(db, PD_LEAD_ERASE, DBPARAMS(P_STR(tenant), P_STR(lead)),
	    n);
}

enum fb_err
db_pd_events_erase(struct db *db, const char *tenant, const char *site,
    const char *visitor, const char *salt, unsigned long long *n)
{
	return changed(db, PD_EVENTS_ERASE, DBPARAMS(P_STR(salt), P_STR(salt),
	    P_STR(salt), P_STR(salt), P_STR(salt), P_STR(salt), P_STR(salt),
	    P_STR(salt), P_STR(salt), P_STR(salt), P_STR(site), P_STR(visitor),
	    P_STR(tenant)), n);
}

enum fb_err
db_pd_deliveries_cancel(struct db *db, const char *tenant, const char *lead,
    unsigned long long *n)
{
	return changed(db, PD_DLV_CANCEL, DBPARAMS(P_STR(tenant), P_STR(lead)),
	    n);
}

enum fb_err
db_pd_deliveries_mask(struct db *db, const char *tenant, const char *lead,
    unsigned long long *n)
{
	return changed(db, PD_DLV_MASK, DBPARAMS(P_STR(tenant), P_STR(lead)),
	    n);
}

enum fb_err
db_pd_hooks_scrub(struct db *db, const char *tenant, const char *lead,
    unsigned long long *n)
{
	unsigned long long m = 0;
	enum fb_err	 e;

	if ((e = changed(db, PD_HOOKS_SCRUB, DBPARAMS(P_STR(tenant),
	    P_STR(lead)), n)) != FB_OK)
		return e;
	if ((e = changed(db, PD_OUTBOX_SCRUB, DBPARAMS(P_STR(tenant),
	    P_STR(lead)), &m)) != FB_OK)
		return e;
	*n += m;
	return FB_OK;
}

enum fb_err
db_pd_suppressions_delete(struct db *db, const char *tenant, const char *kind,
    const struct bidx *bidx, unsigned long long *n)
{
	return changed(db, PD_SUP_DELETE, DBPARAMS(P_STR(tenant), P_STR(kind),
	    P_BIDX(bidx, 0), P_BIDX(bidx, 1)), n);
}

enum fb_err
db_pd_suppressions_strip(struct db *db, const char *tenant, const char *kind,
    const struct bidx *bidx, unsigned long long *n)
{
	return changed(db, PD_SUP_STRIP, DBPARAMS(P_STR(tenant), P_STR(kind),
	    P_BIDX(bidx, 0), P_BIDX(bidx, 1)), n);
}

enum fb_err
db_pd_test_recipients_delete(struct db *db, const char *tenant,
    const char *kind, const struct bidx *bidx, unsigned long long *n)
{
	return changed(db, PD_RCPT_DELETE, DBPARAMS(P_STR(tenant), P_STR(kind),
	    P_BIDX(bidx, 0), P_BIDX(bidx, 1)), n);
}
