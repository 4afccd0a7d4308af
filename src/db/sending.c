/* SQL of deliveries and suppressions (contract: Delivery, Suppression). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pii.h"
#include "../url.h"
#include "store.h"

/*
 * The delivery list (contract: DeliveryListOut), newest first, as the
 * lead list (db/lead.c): unfiltered, deliveries_tenant read backwards;
 * filtered, the narrowest of the filters' indexes, the optimizer judging
 * from the values bound: deliveries_status, deliveries_campaign,
 * deliveries_scenario (tenant_id, key, id: in order, never a sort),
 * the date field's (deliveries_created, deliveries_scheduled,
 * deliveries_tenant_sent: the range's rows, sorted), or deliveries_tenant;
 * a date-ranged page that walks too far, again on the date's index
 * (db_list_walk(), DLV_LIST_SORTED).
 */
#define DLV_LIST(index, range, examined) "SELECT " DB_SELECT(DELIVERY_COLS) \
	" FROM deliveries d " index " WHERE d.tenant_id = ? AND d.id < ? " \
	"AND (? IS NULL OR d.status = ?) AND (? IS NULL OR d.campaign_id = " \
	"?) AND (? IS NULL OR d.scenario_id = ?) " range "ORDER BY d.id DESC " \
	"LIMIT ?" examined
#define DLV_RANGE(col) "AND " col " >= ? AND " col " < ? "
#define DLV_LIST_BY(col, date) DLV_LIST("USE INDEX (deliveries_tenant, " \
	"deliveries_status, deliveries_campaign, deliveries_scenario, " date \
	")", DLV_RANGE(col), " ROWS EXAMINED ?")
/* the same read on the date's index, its rows sorted (db_list_walk()) */
#define DLV_LIST_SORTED(col, date) DLV_LIST("FORCE INDEX (" date ")", \
	DLV_RANGE(col), " ROWS EXAMINED ?")

/*
 * The suppression list as a column of a claimed row (CLAIM_COLS), and the
 * daily cap's count of its contact (SD_CLAIM_DAY_SENDS), each one
 * statement for the whole batch.  They name their indexes: the optimizer
 * reading the range of every index that starts with the tenant cost more
 * than the look-ups themselves.  DAY_SENDS reads the contact's leads,
 * then each one's deliveries, in that order (STRAIGHT_JOIN): with the
 * statistics of tables just filled, the optimizer began from the
 * deliveries and read every delivery of the tenant for each claimed row
 * (the full bench run of 2026-11-27 01:28: 260,032 rows for one batch,
 * 35 deliveries/s).  DAY_SENDS' ? is the start of the day.
 */
/*
 * by each blind index slot on its own index (pii.h): 'opt_out' before
 * 'suppressed' before 'z', the least of the two, NULL when neither slot
 * has an entry
 */
#define SUP_OF(col, index, tel, email) "(SELECT MIN(IF(su.reason = " \
	"'opt_out', 'opt_out', 'suppressed')) FROM suppressions su " \
	"FORCE INDEX (" index ") WHERE su.tenant_id = d.tenant_id " \
	"AND su." col " = IF(d.channel = 'sms', l." tel ", l." email ") " \
	"AND (su.scope = 'tenant' OR su.campaign_id = d.campaign_id) " \
	"AND (su.expires_at IS NULL OR su.expires_at > NOW(6)))"
#define SUP_OF1	SUP_OF("bidx", "suppressions_lookup", "tel_bidx", "email_bidx")
#define SUP_OF2	SUP_OF("bidx2", "suppressions_lookup2", "tel_bidx2", \
	"email_bidx2")
#define CLAIM_SUPPRESSION_SQL "NULLIF(LEAST(COALESCE(" SUP_OF1 ", 'z'), " \
	"COALESCE(" SUP_OF2 ", 'z')), 'z')"
/*
 * a suppression list's filters: ? ? kind, ? ? reason, ? ? scope, ? ? campaign
 */
#define SUP_FILTERS "AND (? IS NULL OR kind = ?) " \
	"AND (? IS NULL OR reason = ?) AND (? IS NULL OR scope = ?) " \
	"AND (? IS NULL OR campaign_id = ?) "
/* the status of the flood quarantine batch of the lead, NULL for none */
#define CLAIM_QUARANTINE_SQL "(SELECT q.status FROM flood_quarantines q " \
	"WHERE q.id = l.quarantine_id AND q.tenant_id = l.tenant_id)"
/*
 * DAY_SENDS: the contact's leads by blind index slot 1, then by slot 2
 * those slot 1 did not find (pii.h), each on its own index
 */
#define DAY_SENDS(bidx, index, channel) "(" \
	DAY_SENDS_OF(bidx, index, channel, "TRUE") " + " \
	DAY_SENDS_OF(bidx "2", index "2", channel, \
	"NOT (l2." bidx " <=> l." bidx ")") ")"
#define DAY_SENDS_OF(bidx, index, channel, other) \
	"(SELECT COUNT(*) FROM leads l2 " \
	"FORCE INDEX (" index ") STRAIGHT_JOIN deliveries d2 " \
	"FORCE INDEX (deliveries_lead) ON d2.tenant_id = l2.tenant_id AND " \
	"d2.lead_id = l2.id WHERE l2.tenant_id = d.tenant_id AND " \
	"l2." bidx " = l." bidx " AND " other " AND " \
	"d2.channel = '" channel "' AND (d2.claim_token <> d.claim_token AND " \
	"d2.status = 'sending' OR (d2.status IN ('sent', 'delivered') AND " \
	"d2.sent_at >= ?)))"
#define CLAIM_DAY_SENDS_SQL "IF(d.channel = 'sms', " \
	DAY_SENDS("tel_bidx", "leads_tel", "sms") ", " \
	DAY_SENDS("email_bidx", "leads_email", "email") ")"

enum {
	SD_ACTIVE_STEPS, SD_LEAD_CONTACTS, SD_LEAD_QUEUED,
	SD_LIST, SD_LIST_CREATED, SD_LIST_SCHEDULED, SD_LIST_SENT,
	SD_SORTED_CREATED, SD_SORTED_SCHEDULED, SD_SORTED_SENT, SD_GET,
	SD_SUP_INSERT, SD_SUP_ACTIVE, SD_SUP_LIST, SD_SUP_LIST_Q, SD_SUP_GET,
	SD_SUP_DELETE,
	SD_STALE, SD_CLAIM, SD_CLAIMED, SD_FINISH, SD_LINK_INSERT,
	SD_LINK_GET, SD_LINK_HIT, SD_LEAD_SENT, SD_LEAD_SUPPRESS,
	SD_LEAD_CONTACT_KEYS, SD_OPTOUT_CANCEL, SD_STEPS_GONE_CANCEL,
	SD_CONVERTED_CANCEL, SD_HOOK_FIND, SD_HOOK_RESULT, SD_TEST_RCPT_ADD,
	SD_TEST_RCPT_DELETE, SD_TEST_RCPT_LIST, SD_TEST_RCPT_IS, SD_USAGE_ROW,
	SD_USAGE_LOCK, SD_USAGE_SET, SD_USAGE_GIVE_BACK, SD_TENANT_QUOTA,
	SD_OPMAIL_CLAIM, SD_OPMAIL_DONE, SD_OPMAIL_TO, SD_CLAIM_MARK,
	SD_USAGE_GET,
	SD_ATTEMPT, SD_ATTEMPT_CLEAR, SD_SEND_GUARD_ANY, SD_SEND_GUARD,
	SD_SENT_AFTER_CONVERSION, SD_OPMAIL_MEMBERS, SD_CLAIM_DAY_SENDS,
	SD_DUE_TENANTS, SD_OF_LEAD, SD__MAX
};
_Static_assert(SD__MAX <= DBSET_STMT_MAX, "raise DBSET_STMT_MAX");

/* The ids of a claim: DELIVERY_CLAIM_MAX placeholders, NULL for none. */
#define CLAIM_IN	"(" DB_Q16 ")"
_Static_assert(DELIVERY_CLAIM_MAX == 16,
    "CLAIM_IN holds DELIVERY_CLAIM_MAX placeholders");

/*
 * Statements that name a row by its id alone, without the tenant, are
 * the system paths': a claim's rows by its token (a fresh UUID per
 * pass), a link by its token (unguessable, LINK_TOKEN_LEN), a receipt by
 * our reference or the provider's id (a receipt names no tenant), an
 * outbox row.  Everything a tenant's request reaches filters on it.
 */

static const struct dbstmt sd_sql[SD__MAX] = {
	/* SD_ACTIVE_STEPS: the steps of the campaign's active scenario */
	{ "active_steps",
	  "SELECT st.id, st.position, st.message_id, st.delay_minutes, "
	  "m.channel, st.scenario_id FROM scenarios s JOIN scenario_steps st "
	  "ON st.scenario_id = s.id JOIN messages m ON m.id = st.message_id "
	  "WHERE s.tenant_id = ? AND s.campaign_id = ? AND s.status = 'active' "
	  "AND s.deleted_at IS NULL ORDER BY st.position" },
	/* SD_LEAD_CONTACTS: DB_Q16 leads, the last repeated to fill */
	{ "lead_contacts",
	  "SELECT id, tel_masked, email_masked, sms_capable FROM leads "
	  "WHERE tenant_id = ? AND id IN (" DB_Q16 ")" },
	/* SD_LEAD_QUEUED: DB_Q16 leads, the last repeated to fill */
	{ "lead_queued",
	  "UPDATE leads SET status = 'queued', updated_at = NOW(6) "
	  "WHERE tenant_id = ? AND id IN (" DB_Q16 ") AND status = "
	  "'abandoned'" },
	/* SD_LIST, then SD_LIST_* filtered, by date_field */
	{ "delivery_list",
	    DLV_LIST("FORCE INDEX (deliveries_tenant)", "", "") },
	{ "delivery_list_created",
	    DLV_LIST_BY("d.created_at", "deliveries_created") },
	{ "delivery_list_scheduled", DLV_LIST_BY("d.scheduled_at",
	  "deliveries_scheduled") },
	{ "delivery_list_sent",
	    DLV_LIST_BY("d.sent_at", "deliveries_tenant_sent") },
	/* SD_SORTED_*: the same on the date's index, by date_field */
	{ "delivery_sorted_created", DLV_LIST_SORTED("d.created_at",
	  "deliveries_created") },
	{ "delivery_sorted_scheduled", DLV_LIST_SORTED("d.scheduled_at",
	  "deliveries_scheduled") },
	{ "delivery_sorted_sent", DLV_LIST_SORTED("d.sent_at",
	  "deliveries_tenant_sent") },
	/* SD_GET */
	{ "delivery_get",
	    "SELECT " DB_SELECT(DELIVERY_COLS) " FROM deliveries d "
	  "WHERE d.tenant_id = ? AND d.id = ?" },
	/* SD_SUP_INSERT */
	{ "suppression_insert",
	  "INSERT INTO suppressions (id, tenant_id, kind, bidx, bidx2, "
	  "bidx_key, bidx2_key, masked, scope, campaign_id, reason, memo, "
	  "expires_at) "
	  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" },
	/* SD_SUP_ACTIVE: an unexpired entry of the same contact and scope */
	{ "suppression_active",
	  "SELECT id FROM suppressions WHERE tenant_id = ? AND kind = ? "
	  "AND (bidx = ? OR bidx2 = ?) AND scope = ? AND campaign_id <=> ? "
	  "AND (expires_at IS NULL OR expires_at > NOW(6)) LIMIT 1 "
	  "FOR UPDATE" },
	/*
	 * SD_SUP_LIST: newest first, as the delivery list: the optimizer
	 * takes the narrowest of the filters' indexes from the values bound,
	 * suppressions_kind, _reason, _scope, _campaign (tenant_id, key, id:
	 * read backwards, never a sort), a search by contact (q: its blind
	 * indexes) SD_SUP_LIST_Q, or, unfiltered, suppressions_tenant
	 * backwards
	 */
	{ "suppression_list",
	  "SELECT " DB_SELECT(SUPPRESSION_COLS) " FROM suppressions "
	  "USE INDEX (suppressions_tenant, suppressions_kind, "
	  "suppressions_reason, suppressions_scope, suppressions_campaign) "
	  "WHERE tenant_id = ? AND id < ? " SUP_FILTERS
	  "ORDER BY id DESC LIMIT ?" },
	/*
	 * SD_SUP_LIST_Q: by contact, each blind index slot on its own index
	 * (suppressions_lookup, _lookup2: the contact's few rows), the two
	 * read apart rather than one OR the optimizer reads as a scan; ? ?
	 * the tenant and slot 1's index, the filters, ? ? slot 2's, the
	 * filters, ? how many
	 */
	{ "suppression_list_q",
	  "SELECT " DB_SELECT(SUPPRESSION_COLS) " FROM ("
	  "SELECT * FROM suppressions FORCE INDEX (suppressions_lookup) "
	  "WHERE tenant_id = ? AND bidx = ? AND id < ? " SUP_FILTERS
	  "UNION SELECT * FROM suppressions FORCE INDEX (suppressions_lookup2) "
	  "WHERE tenant_id = ? AND bidx2 = ? AND id < ? " SUP_FILTERS
	  ") s ORDER BY id DESC LIMIT ?" },
	/* SD_SUP_GET */
	{ "suppression_get",
	    "SELECT " DB_SELECT(SUPPRESSION_COLS) " FROM suppressions "
	  "WHERE tenant_id = ? AND id = ?" },
	/* SD_SUP_DELETE */
	{ "suppression_delete",
	  "DELETE FROM suppressions WHERE tenant_id = ? AND id = ?" },
	/*
	 * SD_STALE: claims whose lease ran out (design 6), and whether their
	 * provider call had begun (attempt_started_at, migration 0013); the
	 * rows being sent read on deliveries_due, not every row in id order
	 * (which the optimizer took, and locked, with the statistics of a
	 * table just filled)
	 */
	{ "deliveries_stale",
	  "SELECT " DB_SELECT(DELIVERY_REF_COLS) ", d.claim_token, "
	  "d.attempt_started_at IS NOT NULL FROM deliveries d "
	  "FORCE INDEX (deliveries_due) "
	  "WHERE d.status = 'sending' AND d.claim_until < ? ORDER BY d.id "
	  "LIMIT 1000 FOR UPDATE SKIP LOCKED" },
	/*
	 * SD_CLAIM: a tenant's oldest due deliveries no other claimer holds,
	 * locked in index order (deliveries_due_tenant) so that a claim reads
	 * what it takes, not the tenant's backlog; SD_CLAIM_MARK then stamps
	 * them.
	 */
	{ "deliveries_claim",
	  "SELECT id FROM deliveries FORCE INDEX (deliveries_due_tenant) "
	  "WHERE status = 'scheduled' AND tenant_id = ? AND scheduled_at <= ? "
	  "ORDER BY scheduled_at, id LIMIT ? FOR UPDATE SKIP LOCKED" },
	/*
	 * SD_CLAIMED: everything a send re-checks and needs, by the token.
	 * Put in order by the caller: MariaDB sorted the joined rows, their
	 * texts and blobs, in a temporary table (a third of the statement's
	 * time).  The claimed rows first, then each one's own rows by primary
	 * key, in the order written (STRAIGHT_JOIN): with statistics that
	 * still counted the deliveries and leads near empty (as right after
	 * the abandonment pass filled them), EXPLAIN showed the optimizer
	 * beginning from the scenarios and reading every lead of the site for
	 * each batch; two of the five full bench runs of 2026-11-26 spent 30
	 * to 50 ms of MariaDB's CPU a delivery instead of 1.3, likely so.
	 */
	{ "deliveries_claimed",
	  "SELECT STRAIGHT_JOIN " DB_SELECT(DELIVERY_REF_COLS) ", "
	  DB_SELECT(CLAIM_COLS) " FROM deliveries d FORCE INDEX "
	  "(deliveries_claim) JOIN leads l ON l.id = d.lead_id "
	  "JOIN campaigns c ON c.id = d.campaign_id JOIN scenarios s ON s.id = "
	  "d.scenario_id JOIN tenants t ON t.id = d.tenant_id JOIN sites si "
	  "ON si.id = l.site_id LEFT JOIN scenario_steps st ON st.id = "
	  "d.step_id LEFT JOIN messages m ON m.id = d.message_id WHERE "
	  "d.claim_token = ?" },
	/* SD_FINISH: only while this pass still holds the claim */
	{ "delivery_finish",
	  "UPDATE deliveries FORCE INDEX (PRIMARY) "
	  "SET status = ?, error_code = ?, cancel_reason = ?, "
	  "sent_at = IF(? = 'sent', CAST(? AS DATETIME(6)), sent_at), "
	  "provider_id = COALESCE(?, provider_id), segments = COALESCE(?, "
	  "segments), scheduled_at = COALESCE(CAST(? AS DATETIME(6)), "
	  "scheduled_at), attempts = GREATEST(attempts - ?, 0), "
	  "attempt_started_at = IF(status = 'scheduled', NULL, "
	  "attempt_started_at), claim_token = NULL, claim_until = NULL, "
	  "updated_at = NOW(6) WHERE id = ? AND claim_token <=> ?" },
	/*
	 * SD_LINK_INSERT: the links given as one JSON array of [token,
	 * tenant_id, delivery_id, lead_id, kind, url] arrays
	 */
	{ "links_insert",
	  "INSERT INTO links (token, tenant_id, delivery_id, lead_id, kind, "
	  "url) SELECT j.token, j.tenant_id, j.delivery_id, j.lead_id, j.kind, "
	  "j.url FROM JSON_TABLE(?, '$[*]' COLUMNS (token VARCHAR(16) PATH "
	  "'$[0]', tenant_id VARCHAR(36) PATH '$[1]', delivery_id VARCHAR(36) "
	  "PATH '$[2]', lead_id VARCHAR(36) PATH '$[3]', kind VARCHAR(8) PATH "
	  "'$[4]', url VARCHAR(2048) PATH '$[5]')) j" },
	/* SD_LINK_GET */
	{ "link_get",
	  "SELECT " DB_SELECT(LINK_COLS) " FROM links WHERE token = ?" },
	/* SD_LINK_HIT */
	{ "link_hit",
	  "UPDATE links SET hits = hits + 1, first_hit_at = "
	  "COALESCE(first_hit_at, NOW(6)) WHERE token = ?" },
	/* SD_LEAD_SENT */
	{ "lead_sent",
	  "UPDATE leads FORCE INDEX (PRIMARY) SET status = 'sent', "
	  "updated_at = NOW(6) "
	  "WHERE tenant_id = ? AND id = ? AND status IN ('abandoned', "
	  "'queued')" },
	/* SD_LEAD_SUPPRESS: why a lead not yet reached is held back */
	{ "lead_suppress",
	  "UPDATE leads SET suppress_reason = ?, updated_at = NOW(6) "
	  "WHERE tenant_id = ? AND id = ? AND status NOT IN ('sent', "
	  "'converted')" },
	/* SD_LEAD_CONTACT_KEYS: the lead's indexes and masks, for an opt-out */
	{ "lead_contact_keys",
	  "SELECT " DB_SELECT(CONTACT_KEY_COLS) " FROM leads "
	  "WHERE tenant_id = ? AND id = ?" },
	/* SD_OPTOUT_CANCEL: the lead's pending deliveries */
	{ "optout_cancel",
	  "UPDATE deliveries SET status = 'cancelled', cancel_reason = "
	  "'opted_out', updated_at = NOW(6) WHERE tenant_id = ? AND lead_id = "
	  "? AND status = 'scheduled'" },
	/*
	 * SD_STEPS_GONE_CANCEL: pending deliveries of steps no longer in the
	 * scenario
	 */
	{ "steps_gone_cancel",
	  "UPDATE deliveries d LEFT JOIN scenario_steps st ON st.id = "
	  "d.step_id SET d.status = 'cancelled', d.cancel_reason = "
	  "'step_removed', d.updated_at = NOW(6) WHERE d.tenant_id = ? AND "
	  "d.scenario_id = ? AND d.status = 'scheduled' AND st.id IS NULL" },
	/* SD_CONVERTED_CANCEL: a conversion stops what is pending */
	{ "converted_cancel",
	  "UPDATE deliveries SET status = 'cancelled', cancel_reason = "
	  "'converted', updated_at = NOW(6) WHERE tenant_id = ? AND lead_id = "
	  "? AND status = 'scheduled'" },
	/*
	 * SD_HOOK_FIND: a sent delivery by the provider's id or our reference
	 */
	{ "hook_find",
	  "SELECT " DB_SELECT(RECEIPT_COLS) " FROM deliveries d JOIN leads l "
	  "ON l.id = d.lead_id WHERE d.id = ? OR d.provider_id = ? LIMIT 1 "
	  "FOR UPDATE" },
	/* SD_HOOK_RESULT */
	{ "hook_result",
	  "UPDATE deliveries SET status = ?, error_code = COALESCE(?, "
	  "error_code), updated_at = NOW(6) WHERE id = ? AND status "
	  "IN ('sent', 'delivered')" },
	/* SD_TEST_RCPT_ADD */
	{ "test_recipient_add",
	  "INSERT INTO test_recipients (id, tenant_id, kind, bidx, bidx2, "
	  "bidx_key, bidx2_key, masked, contact_sealed, pii_key_id, "
	  "confirmed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
	  "IF(?, NOW(6), NULL))" },
	/* SD_TEST_RCPT_DELETE */
	{ "test_recipient_delete",
	  "DELETE FROM test_recipients WHERE tenant_id = ? AND kind = ? "
	  "AND (bidx = ? OR bidx2 = ?) "
	  "RETURNING " DB_SELECT(TEST_RECIPIENT_COLS) },
	/* SD_TEST_RCPT_LIST */
	{ "test_recipient_list",
	  "SELECT " DB_SELECT(TEST_RECIPIENT_COLS) " FROM test_recipients "
	  "WHERE tenant_id = ? ORDER BY id" },
	/* SD_TEST_RCPT_IS */
	{ "test_recipient_is",
	  "SELECT 1 FROM test_recipients WHERE tenant_id = ? AND kind = ? "
	  "AND (bidx = ? OR bidx2 = ?) AND confirmed_at IS NOT NULL" },
	/*
	 * SD_USAGE_ROW: the month's row, made when missing, and locked
	 * exclusively at once (INSERT IGNORE would take a shared lock on an
	 * existing row, and two passes upgrading theirs would deadlock).
	 */
	{ "usage_row",
	  "INSERT INTO usage_months (tenant_id, month) VALUES (?, ?) "
	  "ON DUPLICATE KEY UPDATE sends = sends" },
	/*
	 * SD_USAGE_LOCK: the month's count and what was announced.  Only
	 * this row: the tenant's row holds shared locks of foreign-key checks
	 * that another pass's upgrade to exclusive would deadlock with.
	 */
	{ "usage_lock",
	  "SELECT sends, notified_pct FROM usage_months WHERE tenant_id = ? "
	  "AND month = ? FOR UPDATE" },
	/* SD_USAGE_SET */
	{ "usage_set",
	  "UPDATE usage_months SET sends = ?, notified_pct = ?, updated_at = "
	  "NOW(6) WHERE tenant_id = ? AND month = ?" },
	/* SD_USAGE_GIVE_BACK: a counted message that did not leave */
	{ "usage_give_back",
	  "UPDATE usage_months SET sends = GREATEST(sends - 1, 0), updated_at "
	  "= NOW(6) WHERE tenant_id = ? AND month = ?" },
	/* SD_TENANT_QUOTA */
	{ "tenant_quota",
	  "UPDATE tenants SET send_quota = ?, updated_at = NOW(6) WHERE id = "
	  "?" },
	/* SD_OPMAIL_CLAIM: operator emails not sent yet, no other pass's */
	{ "opmail_claim",
	  "SELECT " DB_SELECT(OPMAIL_COLS) " FROM outbox WHERE topic = 'email' "
	  "AND processed_at IS NULL ORDER BY id LIMIT 20 FOR UPDATE SKIP "
	  "LOCKED" },
	/* SD_OPMAIL_DONE */
	{ "opmail_done",
	  "UPDATE outbox SET processed_at = NOW(6) WHERE id = ?" },
	/* SD_OPMAIL_TO: the addresses of the listed members still active */
	{ "opmail_to",
	  "SELECT " DB_SELECT(OPMAIL_TO_COLS) " FROM members "
	  "WHERE tenant_id = ? AND status = 'active' "
	  "AND JSON_CONTAINS(?, JSON_QUOTE(CAST(id AS CHAR))) ORDER BY id" },
	/*
	 * SD_CLAIM_MARK: the picked rows (up to DELIVERY_CLAIM_MAX ids, NULL
	 * for none), leased for DELIVERY_LEASE seconds
	 */
	{ "deliveries_claim_mark",
	  "UPDATE deliveries FORCE INDEX (PRIMARY) SET status = 'sending', "
	  "claim_token = ?, claim_until = CAST(? AS DATETIME(6)) + INTERVAL ? "
	  "SECOND, attempts = attempts + 1, updated_at = NOW(6) WHERE status = "
	  "'scheduled' AND id IN " CLAIM_IN },
	/* SD_USAGE_GET: plan, own quota, the month's count and notices */
	{ "usage_get",
	  "SELECT " DB_SELECT(USAGE_COLS) " FROM tenants t LEFT JOIN "
	  "usage_months u ON u.tenant_id = t.id AND u.month = ? WHERE t.id = "
	  "?" },
	/*
	 * SD_ATTEMPT: the provider is about to be called for a row this pass
	 * still holds (committed before the call, in the guard's
	 * transaction or on its own)
	 */
	{ "delivery_attempt",
	  "UPDATE deliveries FORCE INDEX (PRIMARY) "
	  "SET attempt_started_at = NOW(6) WHERE id = ? "
	  "AND claim_token = ? AND status = 'sending'" },
	/*
	 * SD_ATTEMPT_CLEAR: SD_ATTEMPT when SD_SEND_GUARD_ANY would find the
	 * lead not converted and no conversion of the tenant queued, in one
	 * statement (the common case of every send).  A single-table UPDATE,
	 * so that under READ COMMITTED its subqueries are plain reads: never
	 * a lock on the lead or the queue.
	 */
	{ "delivery_attempt_clear",
	  "UPDATE deliveries FORCE INDEX (PRIMARY) "
	  "SET attempt_started_at = NOW(6) WHERE id = ? "
	  "AND claim_token = ? AND status = 'sending' "
	  "AND NOT EXISTS (SELECT 1 FROM leads l FORCE INDEX (PRIMARY) "
	  "WHERE l.id = ? AND l.tenant_id = ? AND l.status = 'converted') "
	  "AND NOT EXISTS (SELECT 1 FROM tag_ingest i "
	  "FORCE INDEX (tag_ingest_conversion) WHERE i.event_type = "
	  "'conversion' AND i.tenant_id = ? AND i.attempts < 3)" },
	/*
	 * SD_SEND_GUARD, right before a send (issue 11): is the lead
	 * converted, and does the intake queue still hold a conversion
	 * (not parked) of its own visitor, or of a visitor whose lead has
	 * the same contact (hash_match)?  Each with the queue part that
	 * holds it, NULL for none.  A plain read: never a lock on the queue.
	 * SD_SEND_GUARD_ANY first: is the lead converted, is any conversion
	 * of the tenant queued at all (mostly not: then the rest need not
	 * be weighed)?
	 */
	{ "delivery_send_guard_any",
	  "SELECT l.status = 'converted', EXISTS (SELECT 1 FROM tag_ingest i "
	  "FORCE INDEX (tag_ingest_conversion) WHERE i.event_type = "
	  "'conversion' AND i.tenant_id = l.tenant_id AND i.attempts < 3) "
	  "FROM leads l WHERE l.tenant_id = ? AND l.id = ?" },
	{ "delivery_send_guard",
	  "SELECT l.status = 'converted', "
	  "(SELECT MIN(i.part) FROM tag_ingest i WHERE i.event_type = "
	  "'conversion' AND i.tenant_id = l.tenant_id AND i.site_id = "
	  "l.site_id AND i.visitor_id = l.visitor_id AND i.attempts < 3), "
	  "(SELECT MIN(i.part) FROM tag_ingest i JOIN leads o ON o.site_id = "
	  "i.site_id AND o.visitor_id = i.visitor_id WHERE i.event_type = "
	  "'conversion' AND i.tenant_id = l.tenant_id AND i.attempts < 3 AND "
	  "o.tenant_id = l.tenant_id AND o.id <> l.id AND ((l.tel_bidx "
	  "IS NOT NULL AND o.tel_bidx = l.tel_bidx) OR (l.email_bidx "
	  "IS NOT NULL AND o.email_bidx = l.email_bidx) OR (l.tel_bidx2 "
	  "IS NOT NULL AND o.tel_bidx2 = l.tel_bidx2) OR (l.email_bidx2 "
	  "IS NOT NULL AND o.email_bidx2 = l.email_bidx2))) FROM leads l WHERE "
	  "l.tenant_id = ? AND l.id = ?" },
	/*
	 * SD_SENT_AFTER_CONVERSION: of the given deliveries (the last id
	 * repeated to fill), those sent to a lead already converted when the
	 * send began; 0 is the rule (issue 11)
	 */
	{ "sent_after_conversion",
	  "SELECT COUNT(*) FROM deliveries d FORCE INDEX (PRIMARY) "
	  "JOIN leads l FORCE INDEX (PRIMARY) ON l.id = d.lead_id "
	  "WHERE d.tenant_id = l.tenant_id AND d.status IN ('sent', "
	  "'delivered') AND l.converted_at <= d.attempt_started_at AND d.id IN "
	  CLAIM_IN },
	/* SD_OPMAIL_MEMBERS: who operator emails go to */
	{ "opmail_members",
	  "SELECT id FROM members WHERE tenant_id = ? AND status = 'active' "
	  "AND role IN ('owner', 'admin') ORDER BY id" },
	/*
	 * SD_CLAIM_DAY_SENDS: the day's sends since ? (four times: one per
	 * channel and blind index slot) of each claimed row's contact, by
	 * the token
	 */
	{ "claim_day_sends",
	  "SELECT STRAIGHT_JOIN "
	  "d.id, " CLAIM_DAY_SENDS_SQL " FROM deliveries d "
	  "FORCE INDEX (deliveries_claim) JOIN leads l ON l.id = d.lead_id "
	  "WHERE d.claim_token = ?" },
	/*
	 * SD_DUE_TENANTS: the tenants with due deliveries, the longest due
	 * first: one dive into deliveries_due_tenant a tenant (issue 40)
	 */
	{ "deliveries_due_tenants",
	  "SELECT id FROM (SELECT t.id, (SELECT d.scheduled_at FROM deliveries "
	  "d FORCE INDEX (deliveries_due_tenant) WHERE d.status = 'scheduled' "
	  "AND d.tenant_id = t.id ORDER BY d.scheduled_at LIMIT 1) AS due "
	  "FROM tenants t) x WHERE due <= ? ORDER BY due, id LIMIT ?" },
	/* SD_OF_LEAD: a lead's deliveries, newest first */
	{ "deliveries_of_lead", "SELECT " DB_SELECT(DELIVERY_COLS)
	  " FROM deliveries d WHERE d.tenant_id = ? AND d.lead_id = ? "
	  "ORDER BY d.id DESC LIMIT ?" },
};

static enum fb_err
sd(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	return db_run(db, DBSET_SENDING, id, &sd_sql[id], p, n, r);
}

static enum fb_err
sd_affected(struct db *db, int id, const struct dbp *p, size_t np,
    unsigned long long *n)
{
	return db_changed(db, DBSET_SENDING, id, &sd_sql[id], p, np, n);
}

static enum fb_err
sd_int(struct db *db, int id, const struct dbp *p, size_t np, long long *v,
    bool *found)
{
	return db_value(db, DBSET_SENDING, id, &sd_sql[id], p, np, v, found);
}

/* The deliveries a judgement schedules: a statement per DB_MULTI_MAX. */
static const struct dbmulti schedule_insert = { DBM_DELIVERIES,
	"delivery_schedule", "INSERT INTO deliveries (id, tenant_id, lead_id, "
	"campaign_id, scenario_id, step_id, step_no, message_id, channel, "
	"status, to_masked, pii_state, scheduled_at) VALUES ",
	"(?, ?, ?, ?, ?, ?, ?, ?, ?, 'scheduled', ?, ?, "
	"CAST(? AS DATETIME(6)) + INTERVAL ? MINUTE)" };
#define SCHEDULE_NCOLS	13

/* One scheduled delivery's parameters: step row i of `steps` for lead l. */
static struct dbp *
schedule_row(struct dbp *q, char id[UUID_STRLEN + 1], const char *tenant,
    const struct lead_owner_row *l, const struct dbres *steps, unsigned i,
    const struct dbres *c, unsigned ci, const char *when)
{
	const char	*ch = dbres_get(steps, i, 4), *to;

	/* SMS only to numbers that can receive it */
	to = strcmp(ch, "sms") == 0 ? (dbres_int(c, ci, 3) ?
	    dbres_get(c, ci, 1) : NULL) : dbres_get(c, ci, 2);
	uuid_v7(id);
	*q++ = P_STR(id);
	*q++ = P_STR(tenant);
	*q++ = P_STR(l->id);
	*q++ = P_STR(l->campaign_id);
	*q++ = P_STR(dbres_get(steps, i, 5));
	*q++ = P_STR(dbres_get(steps, i, 0));
	*q++ = P_INT(dbres_int(steps, i, 1) + 1);
	*q++ = P_STR(dbres_get(steps, i, 2));
	*q++ = P_STR(ch);
	*q++ = P_STR(to);
	*q++ = P_STR(to != NULL ? "present" : "absent");
	*q++ = P_STR(when);
	*q++ = P_INT(dbres_int(steps, i, 3));
	return q;
}

/*
 * The rows of lead l (its contacts at row ci of c) into the pending
 * multi-row INSERT, written whenever DB_MULTI_MAX rows wait.
 */
static enum fb_err
schedule_lead(struct db *db, const char *tenant, const struct lead_owner_row *l,
    const struct dbres *steps, const struct dbres *c, unsigned ci,
    const char *when, struct dbp *p, char (*ids)[UUID_STRLEN + 1], size_t *k)
{
	unsigned	 i;
	enum fb_err	 e;

	for (i = 0; i < steps->nrows; i++) {
		schedule_row(p + *k * SCHEDULE_NCOLS, ids[*k], tenant, l, steps,
		    i, c, ci, when);
		if (++*k == DB_MULTI_MAX) {
			if ((e = db_run_multi(db, &schedule_insert, *k, p,
			    *k * SCHEDULE_NCOLS)) != FB_OK)
				return e;
			*k = 0;
		}
	}
	return FB_OK;
}

/* Row of lead `id` in the contacts c, or -1. */
static int
contact_row(const struct dbres *c, const char *id)
{
	unsigned	 j;

	for (j = 0; j < c->nrows; j++)
		if (strcmp(dbres_get(c, j, 0), id) == 0)
			return (int)j;
	return -1;
}

enum fb_err
db_deliveries_schedule(struct db *db, const char *tenant,
    const struct lead_owner_row *l, size_t n, long long at, int *scheduled)
{
	static struct dbp p[DB_MULTI_MAX * SCHEDULE_NCOLS];
	char		 ids[DB_MULTI_MAX][UUID_STRLEN + 1], when[32];
	const char	*lead[16], *queued[16], *camp = NULL;
	struct dbp	 q[1 + 16];
	struct dbres	 steps, c;
	size_t		 i, k = 0, nq = 0;
	int		 ci;
	enum fb_err	 e;

	*scheduled = 0;
	if (n < 1 || n > 16)
		return FB_EINVAL;
	for (i = 0; i < n; i++)
		lead[i] = l[i].id;
	q[0] = P_STR(tenant);
	db_params_in(q + 1, 16, lead, n);
	if ((e = sd(db, SD_LEAD_CONTACTS, q, NELEM(q), &c)) != FB_OK)
		return e;
	memset(&steps, 0, sizeof(steps));
	time_sql(at, when);
	for (i = 0; i < n && e == FB_OK; i++) {
		/*
		 * the steps of the campaign's active scenario, once a campaign
		 */
		if (camp == NULL || strcmp(camp, l[i].campaign_id) != 0) {
			dbres_free(&steps);
			camp = l[i].campaign_id;
			if ((e = sd(db, SD_ACTIVE_STEPS, DBPARAMS(P_STR(tenant),
			    P_STR(camp)), &steps)) != FB_OK)
				break;
		}
		if (steps.nrows == 0 || (ci = contact_row(&c, l[i].id)) < 0)
			continue;
		e = schedule_lead(db, tenant, &l[i], &steps, &c, (unsigned)ci,
		    when, p, ids, &k);
		*scheduled += (int)steps.nrows;
		queued[nq++] = l[i].id;
	}
	if (e == FB_OK && k > 0)
		e = db_run_multi(db, &schedule_insert, k, p,
		    k * SCHEDULE_NCOLS);
	dbres_free(&steps);
	dbres_free(&c);
	/* the leads with a delivery are queued */
	if (e == FB_OK && nq > 0) {
		db_params_in(q + 1, 16, queued, nq);
		e = sd(db, SD_LEAD_QUEUED, q, NELEM(q), NULL);
	}
	return e;
}

#define DB_ROW struct delivery_row
static const struct dbcol delivery_cols[] = { DB_COLUMNS(DELIVERY_COLS) };
#undef DB_ROW
#define DB_ROW struct suppression_row
static const struct dbcol suppression_cols[] = { DB_COLUMNS(SUPPRESSION_COLS) };
#undef DB_ROW

/* A typed read (db_rows()); with `one`, no row is FB_ENOTFOUND. */
static enum fb_err
rows(struct db *db, int id, const struct dbp *p, size_t n,
    const struct dbcol *cols,
    size_t ncols, size_t rowsize, bool one, struct dbrows *out)
{
	return db_rows(db, DBSET_SENDING, id, &sd_sql[id], p, n, cols, ncols,
	    rowsize, one, out);
}

enum fb_err
db_delivery_list(struct db *db, const char *tenant,
    const struct delivery_filter *f,
    const char *after, int n, struct dbrows *out)
{
	struct dbp	 p[12];
	char		 fs[32] = "", ts[32] = "";
	bool		 filtered = f->status != NULL || f->campaign != NULL ||
			    f->scenario != NULL || f->range.has_from ||
			    f->range.has_to;
	size_t		 np = 0;

	if (f->range.field < 0 || f->range.field > 2)
		return FB_EINVAL;
	p[np++] = P_STR(tenant);
	p[np++] = P_STR(after != NULL ? after : DB_MAX_ID);
	p[np++] = P_STR(f->status);
	p[np++] = P_STR(f->status);
	p[np++] = P_STR(f->campaign);
	p[np++] = P_STR(f->campaign);
	p[np++] = P_STR(f->scenario);
	p[np++] = P_STR(f->scenario);
	if (!filtered) {
		p[np++] = P_INT(n);
		return rows(db, SD_LIST, p, np, delivery_cols,
		    NELEM(delivery_cols), sizeof(struct delivery_row),
		    false, out);
	}
	np += db_params_range(p + np, &f->range, fs, ts);
	p[np++] = P_INT(n);
	return db_list_walk(db, DBSET_SENDING, sd_sql, SD_LIST_CREATED +
	    f->range.field, SD_SORTED_CREATED + f->range.field, p, np + 1,
	    f->range.has_from || f->range.has_to, delivery_cols,
	    NELEM(delivery_cols), sizeof(struct delivery_row), out);
}

enum fb_err
db_deliveries_of_lead(struct db *db, const char *tenant, const char *lead,
    int n, struct dbrows *out)
{
	return rows(db, SD_OF_LEAD, DBPARAMS(P_STR(tenant), P_STR(lead),
	    P_INT(n)), delivery_cols, NELEM(delivery_cols),
	    sizeof(struct delivery_row), false, out);
}

enum fb_err
db_delivery_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, SD_GET, DBPARAMS(P_STR(tenant), P_STR(id)),
	    delivery_cols,
	    NELEM(delivery_cols), sizeof(struct delivery_row), true, out);
}

/* The eight parameters of SUP_FILTERS from f into p. */
static struct dbp *
sup_filters(struct dbp *p, const struct suppression_filter *f)
{
	*p++ = P_STR(f->kind);
	*p++ = P_STR(f->kind);
	*p++ = P_STR(f->reason);
	*p++ = P_STR(f->reason);
	*p++ = P_STR(f->scope);
	*p++ = P_STR(f->scope);
	*p++ = P_STR(f->campaign);
	*p++ = P_STR(f->campaign);
	return p;
}

enum fb_err
db_suppression_list(struct db *db, const char *tenant,
    const struct suppression_filter *f, const char *after, int n,
    struct dbrows *out)
{
	static const unsigned char none[PII_BIDXBYTES];
	struct dbp	 p[24], *q = p;
	const char	*at = after != NULL ? after : DB_MAX_ID;
	int		 s;

	if (f->bidx == NULL) {
		*q++ = P_STR(tenant);
		*q++ = P_STR(at);
		q = sup_filters(q, f);
	} else
		/* a slot without a key matches nothing */
		for (s = 0; s < 2; s++) {
			*q++ = P_STR(tenant);
			*q++ = f->bidx->has[s] ? P_BIDX(f->bidx, s) :
			    P_BIN(none, PII_BIDXBYTES);
			*q++ = P_STR(at);
			q = sup_filters(q, f);
		}
	*q++ = P_INT(n);
	return rows(db, f->bidx != NULL ? SD_SUP_LIST_Q : SD_SUP_LIST, p,
	    (size_t)(q - p), suppression_cols, NELEM(suppression_cols),
	    sizeof(struct suppression_row), false, out);
}

enum fb_err
db_suppression_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, SD_SUP_GET, DBPARAMS(P_STR(tenant), P_STR(id)),
	    suppression_cols, NELEM(suppression_cols),
	    sizeof(struct suppression_row), true, out);
}

enum fb_err
db_suppression_add(struct db *db, const struct suppression_new *s, bool *added)
{
	struct dbres	 a;
	enum fb_err	 e;

	*added = false;
	if ((e = sd(db, SD_SUP_ACTIVE,
	    DBPARAMS(P_STR(s->tenant), P_STR(s->kind),
	    P_BIDX(s->bidx, 0), P_BIDX(s->bidx, 1), P_STR(s->scope),
	    P_STR(s->campaign)),
	    &a)) != FB_OK)
		return e;
	if (a.nrows > 0) {
		dbres_free(&a);
		return FB_OK;
	}
	dbres_free(&a);
	if ((e = sd(db, SD_SUP_INSERT, DBPARAMS(P_STR(s->id), P_STR(s->tenant),
	    P_STR(s->kind), P_BIDX(s->bidx, 0), P_BIDX(s->bidx, 1),
	    P_BKEY(s->bidx, 0), P_BKEY(s->bidx, 1), P_STR(s->masked),
	    P_STR(s->scope), P_STR(s->campaign), P_STR(s->reason),
	    P_STR(s->memo), P_STR(s->expires_at)), NULL)) != FB_OK)
		return e;
	*added = true;
	return FB_OK;
}

enum fb_err
db_suppression_delete(struct db *db, const char *tenant, const char *id)
{
	return sd(db, SD_SUP_DELETE, DBPARAMS(P_STR(tenant), P_STR(id)), NULL);
}

#define DB_ROW struct contact_key_row
static const struct dbcol contact_key_cols[] = { DB_COLUMNS(CONTACT_KEY_COLS) };
#undef DB_ROW
#define DB_ROW struct receipt_row
static const struct dbcol receipt_cols[] = { DB_COLUMNS(RECEIPT_COLS) };
#undef DB_ROW

enum fb_err
db_lead_contact_keys(struct db *db, const char *tenant, const char *lead,
    struct dbrows *out)
{
	return rows(db, SD_LEAD_CONTACT_KEYS,
	    DBPARAMS(P_STR(tenant), P_STR(lead)),
	    contact_key_cols, NELEM(contact_key_cols),
	    sizeof(struct contact_key_row), true, out);
}

enum fb_err
db_optout_cancel(struct db *db, const char *tenant, const char *lead)
{
	return sd(db, SD_OPTOUT_CANCEL, DBPARAMS(P_STR(tenant), P_STR(lead)),
	    NULL);
}

enum fb_err
db_receipt_delivery(struct db *db, const char *reference,
    const char *provider_id, struct dbrows *out)
{
	return rows(db, SD_HOOK_FIND,
	    DBPARAMS(P_STR(reference != NULL ? reference :
	    DB_MIN_ID), P_STR(provider_id != NULL ?
	    provider_id : "")), receipt_cols, NELEM(receipt_cols),
	    sizeof(struct receipt_row), false, out);
}

enum fb_err
db_receipt_result(struct db *db, const char *id, const char *status,
    const char *error_code, bool *changed)
{
	unsigned long long n;
	enum fb_err	 e;

	e = sd_affected(db, SD_HOOK_RESULT, DBPARAMS(P_STR(status),
	    P_STR(error_code), P_STR(id)), &n);
	*changed = n > 0;
	return e;
}

#define DB_ROW struct delivery_ref
#define DELIVERY_REF_COLUMNS DB_COLUMNS(DELIVERY_REF_COLS)
static const struct dbcol stale_cols[] = { DELIVERY_REF_COLUMNS
	{ "claim_token", DBT_TEXT, offsetof(struct stale_row, claim_token) },
	{ "attempt_begun", DBT_BOOL,
	    offsetof(struct stale_row, attempt_begun) } };
static const struct dbcol claim_cols[] = { DELIVERY_REF_COLUMNS
#undef DB_ROW
#define DB_ROW struct claim_row
	DB_COLUMNS(CLAIM_COLS) };
#undef DB_ROW
#undef DELIVERY_REF_COLUMNS

static int
claim_order(const void *a, const void *b)
{
	return strcmp(((const struct claim_row *)a)->d.id,
	    ((const struct claim_row *)b)->d.id);
}

enum fb_err
db_deliveries_due_tenants(struct db *db, const char *at, int limit,
    struct dbrows *out)
{
	return rows(db, SD_DUE_TENANTS, DBPARAMS(P_STR(at), P_INT(limit)),
	    key_cols, NELEM(key_cols), sizeof(struct key_row), false, out);
}

/* Pick up to `share` of each tenant's due deliveries into ids[]. */
static enum fb_err
claim_pick(struct db *db, const char *at,
    const char (*tenants)[UUID_STRLEN + 1],
    size_t nt, int share, int got[], char (*ids)[UUID_STRLEN + 1], size_t *n)
{
	struct dbres	 pick;
	size_t		 k;
	unsigned	 i;
	enum fb_err	 e;

	for (k = 0, *n = 0; k < nt; k++) {
		got[k] = 0;
		if (*n + (size_t)share > DELIVERY_CLAIM_MAX)
			continue;
		if ((e = sd(db, SD_CLAIM, DBPARAMS(P_STR(tenants[k]), P_STR(at),
		    P_INT(share)), &pick)) != FB_OK)
			return e;
		for (i = 0; i < pick.nrows; i++)
			snprintf(ids[(*n)++], UUID_STRLEN + 1, "%s",
			    pick.cell[i]);
		got[k] = (int)pick.nrows;
		dbres_free(&pick);
	}
	return FB_OK;
}

enum fb_err
db_deliveries_claim(struct db *db, const char *token, const char *at,
    const char (*tenants)[UUID_STRLEN + 1], size_t nt, int share, int got[],
    struct dbrows *out)
{
	struct dbp	 p[3 + DELIVERY_CLAIM_MAX];
	char		 ids[DELIVERY_CLAIM_MAX][UUID_STRLEN + 1];
	size_t		 i, n;
	enum fb_err	 e;

	out->n = 0;
	out->row = NULL;
	if (share < 1 || (size_t)share > DELIVERY_CLAIM_MAX)
		return FB_EINVAL;
	if ((e = claim_pick(db, at, tenants, nt, share, got, ids,
	    &n)) != FB_OK ||
	    n == 0)
		return e;
	/* SD_CLAIM_MARK: the token, the lease, then the ids (NULL: none) */
	p[0] = P_STR(token);
	p[1] = P_STR(at);
	p[2] = P_INT(DELIVERY_LEASE);
	for (i = 0; i < DELIVERY_CLAIM_MAX; i++)
		p[3 + i] = i < n ? P_STR(ids[i]) : P_NULL;
	if ((e = sd(db, SD_CLAIM_MARK, p, NELEM(p), NULL)) != FB_OK)
		return e;
	if ((e = rows(db, SD_CLAIMED, DBPARAMS(P_STR(token)), claim_cols,
	    NELEM(claim_cols), sizeof(struct claim_row), false, out)) != FB_OK)
		return e;
	/* by id: UUIDv7 text sorts as the ids' time, as MariaDB sorts them */
	if (out->n > 1)
		qsort(out->row, out->n, sizeof(struct claim_row), claim_order);
	return FB_OK;
}

enum fb_err
db_claim_day_sends(struct db *db, const char *token, const char *since,
    struct dbrows *claimed)
{
	struct claim_row *d = claimed->row;
	struct dbres	 r;
	size_t		 i, k;
	enum fb_err	 e;

	if ((e = sd(db, SD_CLAIM_DAY_SENDS, DBPARAMS(P_STR(since), P_STR(since),
	    P_STR(since), P_STR(since), P_STR(token)), &r)) != FB_OK)
		return e;
	for (i = 0; i < r.nrows; i++)
		for (k = 0; k < claimed->n; k++)
			if (strcmp(d[k].d.id, dbres_get(&r, i, 0)) == 0)
				d[k].day_sends = dbres_int(&r, i, 1);
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_deliveries_stale(struct db *db, const char *at, struct dbrows *out)
{
	enum fb_err	 e;

	/* locked while read, so that two passes do not both take a row */
	if ((e = db_begin(db)) != FB_OK)
		return e;
	e = rows(db, SD_STALE, DBPARAMS(P_STR(at)), stale_cols,
	    NELEM(stale_cols), sizeof(struct stale_row), false, out);
	db_rollback(db);
	return e;
}

enum fb_err
db_delivery_finish(struct db *db, const struct delivery_outcome *o, bool *held)
{
	unsigned long long n;
	enum fb_err	 e;

	e = sd_affected(db, SD_FINISH, DBPARAMS(P_STR(o->status),
	    P_STR(o->error_code), P_STR(o->cancel_reason), P_STR(o->status),
	    P_STR(o->at), P_STR(o->provider_id),
	    o->segments > 0 ? P_INT(o->segments) : P_NULL, P_STR(o->reschedule),
	    P_INT(o->give_back), P_STR(o->id), P_STR(o->token)), &n);
	*held = n > 0;
	return e;
}

enum fb_err
db_delivery_attempt(struct db *db, const char *id, const char *token,
    bool *held)
{
	unsigned long long n;
	enum fb_err	 e;

	e = sd_affected(db, SD_ATTEMPT, DBPARAMS(P_STR(id), P_STR(token)), &n);
	*held = n > 0;
	return e;
}

enum fb_err
db_delivery_attempt_clear(struct db *db, const struct delivery_ref *d,
    const char *token, bool *stamped)
{
	unsigned long long n;
	enum fb_err	 e;

	e = sd_affected(db, SD_ATTEMPT_CLEAR,
	    DBPARAMS(P_STR(d->id), P_STR(token),
	    P_STR(d->lead_id), P_STR(d->tenant_id), P_STR(d->tenant_id)), &n);
	*stamped = n > 0;
	return e;
}

enum fb_err
db_delivery_send_guard(struct db *db, const char *tenant, const char *lead,
    bool *converted, long long part[2])
{
	struct dbres	 g;
	unsigned	 k;
	bool		 any;
	enum fb_err	 e;

	*converted = false;
	part[0] = part[1] = -1;
	if ((e = sd(db, SD_SEND_GUARD_ANY, DBPARAMS(P_STR(tenant), P_STR(lead)),
	    &g)) != FB_OK)
		return e;
	any = g.nrows == 1 && dbres_int(&g, 0, 1) != 0;
	if (g.nrows == 1)
		*converted = dbres_int(&g, 0, 0) != 0;
	dbres_free(&g);
	if (!any)
		return FB_OK;
	if ((e = sd(db, SD_SEND_GUARD, DBPARAMS(P_STR(tenant), P_STR(lead)),
	    &g)) != FB_OK)
		return e;
	if (g.nrows == 1) {
		*converted = dbres_int(&g, 0, 0) != 0;
		for (k = 0; k < 2; k++)
			if (dbres_get(&g, 0, 1 + k) != NULL)
				part[k] = dbres_int(&g, 0, 1 + k);
	}
	dbres_free(&g);
	return FB_OK;
}

enum fb_err
db_sent_after_conversion(struct db *db, const char *const *ids, size_t n,
    long long *count)
{
	struct dbp	 p[DELIVERY_CLAIM_MAX];
	bool		 found;

	*count = 0;
	if (n < 1 || n > DELIVERY_CLAIM_MAX)
		return FB_EINVAL;
	db_params_in(p, NELEM(p), ids, n);
	return sd_int(db, SD_SENT_AFTER_CONVERSION, p, NELEM(p), count, &found);
}

enum fb_err
db_lead_sent(struct db *db, const char *tenant, const char *lead)
{
	return sd(db, SD_LEAD_SENT, DBPARAMS(P_STR(tenant), P_STR(lead)), NULL);
}

enum fb_err
db_lead_suppress(struct db *db, const char *tenant, const char *lead,
    const char *reason)
{
	return sd(db, SD_LEAD_SUPPRESS, DBPARAMS(P_STR(reason), P_STR(tenant),
	    P_STR(lead)), NULL);
}

enum fb_err
db_converted_cancel(struct db *db, const char *tenant, const char *lead)
{
	return sd(db, SD_CONVERTED_CANCEL, DBPARAMS(P_STR(tenant), P_STR(lead)),
	    NULL);
}

enum fb_err
db_steps_gone_cancel(struct db *db, const char *tenant, const char *scenario)
{
	return sd(db, SD_STEPS_GONE_CANCEL, DBPARAMS(P_STR(tenant),
	    P_STR(scenario)), NULL);
}

enum fb_err
db_usage_lock(struct db *db, const char *tenant, const char *month, bool create,
    long long *sends, int *notified_pct, bool *found)
{
	struct dbres	 u;
	enum fb_err	 e;

	*sends = 0;
	*notified_pct = 100;
	*found = false;
	if (create && (e = sd(db, SD_USAGE_ROW, DBPARAMS(P_STR(tenant),
	    P_STR(month)), NULL)) != FB_OK)
		return e;
	if ((e = sd(db, SD_USAGE_LOCK, DBPARAMS(P_STR(tenant), P_STR(month)),
	    &u)) != FB_OK)
		return e;
	if (u.nrows > 0) {
		*found = true;
		*sends = dbres_int(&u, 0, 0);
		*notified_pct = (int)dbres_int(&u, 0, 1);
	}
	dbres_free(&u);
	return FB_OK;
}

enum fb_err
db_usage_set(struct db *db, const char *tenant, const char *month,
    long long sends, int notified_pct)
{
	return sd(db, SD_USAGE_SET, DBPARAMS(P_INT(sends), P_INT(notified_pct),
	    P_STR(tenant), P_STR(month)), NULL);
}

enum fb_err
db_usage_give_back(struct db *db, const char *tenant, const char *month)
{
	return sd(db, SD_USAGE_GIVE_BACK, DBPARAMS(P_STR(tenant), P_STR(month)),
	    NULL);
}

enum fb_err
db_usage_get(struct db *db, const char *tenant, const char *month,
    struct dbrows *out)
{
#define DB_ROW struct usage_row
	static const struct dbcol cols[] = { DB_COLUMNS(USAGE_COLS) };
#undef DB_ROW

	return rows(db, SD_USAGE_GET, DBPARAMS(P_STR(month), P_STR(tenant)),
	    cols, NELEM(cols), sizeof(struct usage_row), true, out);
}

enum fb_err
db_tenant_quota(struct db *db, const char *tenant, long long quota)
{
	unsigned long long n;
	enum fb_err	 e;

	if ((e = sd_affected(db, SD_TENANT_QUOTA, DBPARAMS(quota < 0 ? P_NULL :
	    P_INT(quota), P_STR(tenant)), &n)) != FB_OK)
		return e;
	return n > 0 ? FB_OK : db_tenant_exists(db, tenant);
}

#define DB_ROW struct test_recipient_row
static const struct dbcol test_recipient_cols[] = {
	DB_COLUMNS(TEST_RECIPIENT_COLS) };
#undef DB_ROW

enum fb_err
db_test_recipient_list(struct db *db, const char *tenant, struct dbrows *out)
{
	return rows(db, SD_TEST_RCPT_LIST, DBPARAMS(P_STR(tenant)),
	    test_recipient_cols, NELEM(test_recipient_cols),
	    sizeof(struct test_recipient_row), false, out);
}

enum fb_err
db_test_recipient_add(struct db *db, const char *id, const char *tenant,
    const char *kind, const struct bidx *bidx, const char *masked,
    const struct dbbin *sealed, int key_id, bool confirmed)
{
	return sd(db, SD_TEST_RCPT_ADD, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(kind), P_BIDX(bidx, 0), P_BIDX(bidx, 1), P_BKEY(bidx, 0),
	    P_BKEY(bidx, 1), P_STR(masked),
	    sealed != NULL ? P_BIN(sealed->p, sealed->n) : P_NULL,
	    sealed != NULL ? P_INT(key_id) : P_NULL, P_INT(confirmed)), NULL);
}

enum fb_err
db_test_recipient_delete(struct db *db, const char *tenant, const char *kind,
    const struct bidx *bidx, struct dbrows *out)
{
	return rows(db, SD_TEST_RCPT_DELETE,
	    DBPARAMS(P_STR(tenant), P_STR(kind),
	    P_BIDX(bidx, 0), P_BIDX(bidx, 1)), test_recipient_cols,
	    NELEM(test_recipient_cols), sizeof(struct test_recipient_row),
	    false, out);
}

/* A bound blob as read, NULL for NULL. */
static struct dbp
bin_or_null(const struct dbbin *b)
{
	return b != NULL && b->p != NULL ? P_BIN(b->p, b->n) : P_NULL;
}

enum fb_err
db_test_recipient_is(struct db *db, const char *tenant, const char *kind,
    const struct dbbin *b1, const struct dbbin *b2, bool *yes)
{
	long long	 v;

	return sd_int(db, SD_TEST_RCPT_IS, DBPARAMS(P_STR(tenant), P_STR(kind),
	    bin_or_null(b1), bin_or_null(b2)), &v, yes);
}

/* A blind index slot as read, NULL unless it has the index's length. */

static bool
slot_copy(const struct dbbin *b, long long k, unsigned char *v, long long *key)
{
	if (b == NULL || b->p == NULL || b->n != PII_BIDXBYTES)
		return false;
	memcpy(v, b->p, PII_BIDXBYTES);
	*key = k;
	return true;
}

void
db_bidx_copy(const struct dbbin *b1, const struct dbbin *b2, long long k1,
    long long k2, struct bidx *out)
{
	memset(out, 0, sizeof(*out));
	out->key[0] = out->key[1] = -1;
	out->has[0] = slot_copy(b1, k1, out->v[0], &out->key[0]);
	out->has[1] = slot_copy(b2, k2, out->v[1], &out->key[1]);
}

enum fb_err
db_links_add(struct db *db, const struct link_new *l, size_t n)
{
	struct buf	 b;
	struct jgen	 j;
	size_t		 i;
	enum fb_err	 e;

	if (n < 1 || n > LINKS_ADD_MAX)
		return FB_EINVAL;
	buf_init(&b, 64 * 1024 + n * (URL_MAX * 6 + 256));
	jgen_begin(&j, &b);
	jg_arr(&j, NULL);
	for (i = 0; i < n; i++) {
		jg_arr(&j, NULL);
		jg_str(&j, NULL, l[i].token);
		jg_str(&j, NULL, l[i].d->tenant_id);
		jg_str(&j, NULL, l[i].d->id);
		jg_str(&j, NULL, l[i].d->lead_id);
		jg_str(&j, NULL, l[i].kind);
		jg_str(&j, NULL, l[i].url);
		jg_arr_end(&j);
	}
	jg_arr_end(&j);
	if ((e = jgen_end(&j)) == FB_OK)
		e = sd(db, SD_LINK_INSERT, DBPARAMS(P_STR(b.data)), NULL);
	buf_release(&b);
	return e;
}

enum fb_err
db_link_get(struct db *db, const char *token, struct dbrows *out)
{
#define DB_ROW struct link_row
	static const struct dbcol cols[] = { DB_COLUMNS(LINK_COLS) };
#undef DB_ROW

	return rows(db, SD_LINK_GET, DBPARAMS(P_STR(token)), cols, NELEM(cols),
	    sizeof(struct link_row), true, out);
}

enum fb_err
db_link_hit(struct db *db, const char *token)
{
	return sd(db, SD_LINK_HIT, DBPARAMS(P_STR(token)), NULL);
}

enum fb_err
db_opmail_add(struct db *db, const char *tenant, const char *template,
    json_object *fields)
{
	struct dbres	 m;
	json_object	*mail, *ids;
	unsigned	 i;
	enum fb_err	 e;

	if ((e = sd(db, SD_OPMAIL_MEMBERS, DBPARAMS(P_STR(tenant)),
	    &m)) != FB_OK)
		return e;
	mail = json_object_new_object();
	jadd_str(mail, "template", template);
	ids = json_object_new_array();
	for (i = 0; i < m.nrows; i++)
		json_object_array_add(ids, json_object_new_string(m.cell[i]));
	dbres_free(&m);
	json_object_object_add(mail, "member_ids", ids);
	json_object_object_foreach(fields, k, v)
		json_object_object_add(mail, k, json_object_get(v));
	e = db_outbox_add(db, tenant, "email", template, json_text(mail));
	json_object_put(mail);
	return e;
}

enum fb_err
db_opmail_claim(struct db *db, struct dbrows *out)
{
#define DB_ROW struct opmail_row
	static const struct dbcol cols[] = { DB_COLUMNS(OPMAIL_COLS) };
#undef DB_ROW

	return rows(db, SD_OPMAIL_CLAIM, DBNOPARAMS, cols, NELEM(cols),
	    sizeof(struct opmail_row), false, out);
}

enum fb_err
db_opmail_done(struct db *db, const char *id)
{
	return sd(db, SD_OPMAIL_DONE, DBPARAMS(P_STR(id)), NULL);
}

enum fb_err
db_opmail_to(struct db *db, const char *tenant, const char *ids,
    struct dbrows *out)
{
#define DB_ROW struct opmail_to_row
	static const struct dbcol cols[] = { DB_COLUMNS(OPMAIL_TO_COLS) };
#undef DB_ROW

	return rows(db, SD_OPMAIL_TO, DBPARAMS(P_STR(tenant), P_STR(ids)), cols,
	    NELEM(cols), sizeof(struct opmail_to_row), false, out);
}
