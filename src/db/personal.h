/*
 * src/db/personal.c: what Formback holds about one person, found by a
 * contact's blind index, and its erasure (issue 43: data-subject
 * requests, APPI arts. 33 and 35, GDPR arts. 15 and 17;
 * docs/internals/privacy.md).  store.h includes every such header.
 *
 * Every statement filters on the tenant.  The writes keep what the
 * reports count (privacy.md, "Counts"): a lead row stays with no
 * contact, blind index, visitor or landing page; a visitor's events stay
 * as anonymous rows (new random session and visitor ids, no lead, URL
 * query or referrer); deliveries stay, masked.
 */
#ifndef FORMBACK_DB_PERSONAL_H
#define FORMBACK_DB_PERSONAL_H

#include "db.h"

/* The rows one request reads of each kind at most (privacy.md). */
#define PD_ROWS_MAX	500

/*
 * A lead holding the contact: where it is, and its sealed contacts and
 * blind indexes (BIN: never written to JSON) for opening and erasing.
 */
#define PD_LEAD_COLS(F, N) F(id, TEXT, "id") N(site_id, TEXT, "site_id") \
	N(visitor_id, TEXT, "visitor_id") \
	N(pii_key_id, INT, "COALESCE(pii_key_id, 0)") \
	N(email_sealed, BIN, "email_sealed") N(email_bidx, BIN, "email_bidx") \
	N(tel_sealed, BIN, "tel_sealed") N(tel_bidx, BIN, "tel_bidx") \
	N(email_bidx2, BIN, "email_bidx2") N(tel_bidx2, BIN, "tel_bidx2") \
	N(bidx_key, INT, "COALESCE(bidx_key, -1)") \
	N(bidx2_key, INT, "COALESCE(bidx2_key, -1)")
struct pd_lead_row { DB_FIELDS(PD_LEAD_COLS) };
/*
 * The tenant's leads whose email (`email`) or phone blind index is
 * bidx's in either slot (pii.h struct bidx), oldest first, PD_ROWS_MAX
 * at most; with
 * `lock`, locked (FOR UPDATE) in the caller's transaction.
 */
enum fb_err db_pd_leads(struct db *, const char *tenant, bool email,
	    const struct bidx *bidx, bool lock, struct dbrows *) FB_WUR;

/* A delivery of a lead: as DeliveryOut, with its message and first hits. */
#define PD_DELIVERY_COLS(F, N) DELIVERY_COLS(F, N) \
	N(message_id, TEXT, "d.message_id") \
	N(subject, TEXT, "(SELECT m.subject FROM messages m " \
	    "WHERE m.id = d.message_id AND m.tenant_id = d.tenant_id)") \
	N(opened_at, TIME, "(SELECT MIN(k.first_hit_at) FROM links k WHERE " \
	    "k.tenant_id = d.tenant_id AND k.delivery_id = d.id AND " \
	    "k.kind = 'open')") \
	N(clicked_at, TIME, "(SELECT MIN(k.first_hit_at) FROM links k WHERE " \
	    "k.tenant_id = d.tenant_id AND k.delivery_id = d.id AND " \
	    "k.kind = 'click')")
struct pd_delivery_row { DB_FIELDS(PD_DELIVERY_COLS) };
/* The lead's deliveries, oldest first, PD_ROWS_MAX at most. */
enum fb_err db_pd_deliveries(struct db *, const char *tenant,
	    const char *lead, struct dbrows *) FB_WUR;

/* A tag event of the lead's visitor on its site. */
#define PD_EVENT_COLS(F, N) F(type, TEXT, "e.event_type") \
	N(role, TEXT, "e.role") N(url, TEXT, "e.url") \
	N(referrer, TEXT, "e.referrer") N(consent, NINT, "e.consent") \
	N(campaign_id, TEXT, "e.campaign_id") \
	N(received_at, TIME, "e.received_at")
struct pd_event_row { DB_FIELDS(PD_EVENT_COLS) };
/* The visitor's events on the site, oldest first, PD_ROWS_MAX at most. */
enum fb_err db_pd_events(struct db *, const char *tenant, const char *site,
	    const char *visitor, struct dbrows *) FB_WUR;

/*
 * A webhook delivery whose payload names the lead (data.lead_id): what
 * went to which endpoint when (APPI art. 33(5), records of provision).
 */
#define PD_HOOK_COLS(F, N) F(id, TEXT, "w.id") \
	N(endpoint_id, TEXT, "w.endpoint_id") \
	N(endpoint_url, TEXT, "(SELECT e.url FROM webhook_endpoints e " \
	    "WHERE e.id = w.endpoint_id AND e.tenant_id = w.tenant_id)") \
	N(event_id, TEXT, "w.event_id") N(event_type, TEXT, "w.event_type") \
	N(status, TEXT, "w.status") N(attempts, INT, "w.attempts") \
	N(response_status, NINT, "w.response_status") \
	N(created_at, TIME, "w.created_at") \
	N(last_attempt_at, TIME, "w.last_attempt_at")
struct pd_hook_row { DB_FIELDS(PD_HOOK_COLS) };
/* The lead's webhook deliveries, oldest first, PD_ROWS_MAX at most. */
enum fb_err db_pd_hooks(struct db *, const char *tenant, const char *lead,
	    struct dbrows *) FB_WUR;

/*
 * The tenant's suppressions (struct suppression_row) and test recipients
 * (struct test_recipient_row) of one contact: kind "email" or "tel" and
 * its blind indexes (either slot matches), by id.
 */
enum fb_err db_pd_suppressions(struct db *, const char *tenant,
	    const char *kind, const struct bidx *bidx, struct dbrows *) FB_WUR;
enum fb_err db_pd_test_recipients(struct db *, const char *tenant,
	    const char *kind, const struct bidx *bidx, struct dbrows *) FB_WUR;

/*
 * The erasure's writes, each in the caller's transaction, *n the rows
 * it changed (0: nothing left to do, so a second erasure says so).
 *
 * lead_erase: the lead's contacts, blind indexes, masks, visitor,
 * session, landing page, referrer, UTM, LP key and client-address hashes
 * removed; an unfinished lead (started, captured, abandoned, queued)
 * becomes suppressed ("erased") so nothing judges or sends to it again.
 * Its times, site, campaign and conversion stay: the reports count them.
 */
enum fb_err db_pd_lead_erase(struct db *, const char *tenant,
	    const char *lead, unsigned long long *n) FB_WUR;
/*
 * events_erase: the visitor's events on the site made anonymous: visitor
 * and session ids replaced by keyed hashes under `salt` (a random
 * string the caller forgets: nothing links them back), equal ids staying
 * equal so every count of the reports is the same; no lead, the URL cut
 * to its path, no referrer, no client clock.
 */
enum fb_err db_pd_events_erase(struct db *, const char *tenant,
	    const char *site, const char *visitor, const char *salt,
	    unsigned long long *n) FB_WUR;
/* deliveries_cancel: the lead's scheduled deliveries, cancelled "erased". */
enum fb_err db_pd_deliveries_cancel(struct db *, const char *tenant,
	    const char *lead, unsigned long long *n) FB_WUR;
/* deliveries_mask: the lead's deliveries without destination (pii absent). */
enum fb_err db_pd_deliveries_mask(struct db *, const char *tenant,
	    const char *lead, unsigned long long *n) FB_WUR;
/*
 * hooks_scrub: the payloads naming the lead (webhook deliveries, and
 * webhook events of the outbox) without the contact members a payload
 * should never hold (data.email, data.tel, data.phone, data.contact and
 * their _masked forms).
 */
enum fb_err db_pd_hooks_scrub(struct db *, const char *tenant,
	    const char *lead, unsigned long long *n) FB_WUR;
/* suppressions_delete: every suppression of the contact removed. */
enum fb_err db_pd_suppressions_delete(struct db *, const char *tenant,
	    const char *kind, const struct bidx *bidx,
	    unsigned long long *n) FB_WUR;
/* suppressions_strip: kept by blind index only (no mask, no memo). */
enum fb_err db_pd_suppressions_strip(struct db *, const char *tenant,
	    const char *kind, const struct bidx *bidx,
	    unsigned long long *n) FB_WUR;
/* test_recipients_delete: the contact's test recipients removed. */
enum fb_err db_pd_test_recipients_delete(struct db *, const char *tenant,
	    const char *kind, const struct bidx *bidx,
	    unsigned long long *n) FB_WUR;

#endif
