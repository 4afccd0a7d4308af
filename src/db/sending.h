/*
 * src/db/sending.c: deliveries, suppressions, links, receipts, test
 * recipients, formback-deliver's claims; store.h includes every such
 * header.
 */
#ifndef FORMBACK_DB_SENDING_H
#define FORMBACK_DB_SENDING_H

#include "db.h"

/*
 * db/sending.c: deliveries, suppressions, links, test recipients, usage
 * and the operator emails' outbox.
 */

/* What an outcome and its event name of a delivery (formback-deliver). */
#define DELIVERY_REF_COLS(F, N) F(id, TEXT, "d.id") \
	N(tenant_id, TEXT, "d.tenant_id") N(lead_id, TEXT, "d.lead_id") \
	N(campaign_id, TEXT, "d.campaign_id") N(channel, TEXT, "d.channel") \
	N(step_no, TEXT, "d.step_no")
struct delivery_ref { DB_FIELDS(DELIVERY_REF_COLS) };

/* A claimed delivery: everything its send re-checks and needs. */
#define CLAIM_COLS(F, N) F(lead_status, TEXT, "l.status") \
	N(email_sealed, BIN, "l.email_sealed") \
	N(tel_sealed, BIN, "l.tel_sealed") \
	N(email_bidx, BIN, "l.email_bidx") N(tel_bidx, BIN, "l.tel_bidx") \
	N(email_bidx2, BIN, "l.email_bidx2") N(tel_bidx2, BIN, "l.tel_bidx2") \
	N(sms_capable, BOOL, "l.sms_capable") \
	N(pii_key_id, INT, "l.pii_key_id") \
	N(consent_state, TEXT, "l.consent_state") \
	N(landing_url, TEXT, "l.landing_url") \
	N(campaign_status, TEXT, "c.status") \
	N(product_name, TEXT, "c.product_name") \
	N(scenario_status, TEXT, "s.status") \
	N(scenario_deleted, BOOL, "s.deleted_at IS NOT NULL") \
	N(step_gone, BOOL, "st.id IS NULL OR m.id IS NULL") \
	N(subject, TEXT, "m.subject") N(body, TEXT, "m.body") \
	N(blocks, TEXT, "m.blocks") N(link_url, TEXT, "m.link_url") \
	N(body_html, TEXT, "m.body_html") \
	N(attempts, INT, "d.attempts") N(site_domain, TEXT, "si.domain") \
	N(site_held, BOOL, "si.sending_held_at IS NOT NULL") \
	N(quarantine, TEXT, CLAIM_QUARANTINE_SQL) \
	N(delivery_mode, TEXT, "t.delivery_mode") \
	N(quiet_start, INT, "t.sms_quiet_start") \
	N(quiet_end, INT, "t.sms_quiet_end") N(plan, TEXT, "t.plan") \
	N(send_quota, INT, "COALESCE(t.send_quota, -1)") \
	N(suppression, TEXT, CLAIM_SUPPRESSION_SQL)
/*
 * suppression: "opt_out" when an unexpired suppression of the tenant or
 * of the campaign that holds the delivery's contact is its opt-out,
 * "suppressed" for any other, NULL for none; quarantine: the status of
 * the flood quarantine batch its lead is in (quarantined, discarded),
 * NULL for none (issue 40).  Their SQL is in db/sending.c, where the
 * claim's statement is written.
 */
struct claim_row {
	struct delivery_ref	 d;	/* first: its columns come first */
	DB_FIELDS(CLAIM_COLS)
	long long		 day_sends;	/* db_claim_day_sends() */
};
/*
 * Claim due deliveries for `token`, in the caller's transaction (short:
 * the rows stay locked until it ends): of each of the `nt` tenants, up to
 * `share` (1..DELIVERY_CLAIM_MAX) of its oldest due at `at` (SQL
 * DATETIME, UTC) that no other claimer holds (SKIP LOCKED), as long as
 * the claim has room for a whole share (DELIVERY_CLAIM_MAX in all);
 * got[k] says how many of tenant k's were taken (fewer than `share`: it
 * has no more due now, or another claimer holds them).  They are stamped
 * `sending` with a lease of DELIVERY_LEASE seconds from `at` (design 6).
 * Then `out` gets their struct claim_row, by id (day_sends 0).
 */
#define DELIVERY_CLAIM_MAX	16
#define DELIVERY_LEASE		600	/* seconds */
enum fb_err db_deliveries_claim(struct db *, const char *token, const char *at,
	    const char (*tenants)[UUID_STRLEN + 1], size_t nt, int share,
	    int got[], struct dbrows *out) FB_WUR;
/*
 * Up to `limit` tenants (struct key_row) with deliveries due at `at` (SQL
 * DATETIME, UTC), the longest due first: formback-deliver's turns
 * (issue 40).
 */
enum fb_err db_deliveries_due_tenants(struct db *, const char *at, int limit,
	    struct dbrows *) FB_WUR;
/*
 * The daily cap's count of each row of `claimed` (claimed->row, struct
 * claim_row, by id) into its day_sends: the tenant's messages on the
 * delivery's channel to its contact that left since `since` (SQL
 * DATETIME, UTC: the start of the JST day), or that claims other than
 * `token` are sending now.  One statement for the batch, to be read
 * after the claim is committed, so that of two claims at once at least
 * the later reader counts the other's sends (the cap errs towards
 * fewer).
 */
enum fb_err db_claim_day_sends(struct db *, const char *token,
	    const char *since, struct dbrows *claimed) FB_WUR;

/* A claim whose lease ran out (design 6; migration 0013). */
struct stale_row {
	struct delivery_ref	 d;
	const char		*claim_token;
	/* its provider call had begun */
	bool			 attempt_begun;
};
/* Up to 1000 struct stale_row whose lease ended before `at`, by id. */
enum fb_err db_deliveries_stale(struct db *, const char *at,
	    struct dbrows *out) FB_WUR;

/* The outcome of a claimed delivery (contract: Delivery). */
struct delivery_outcome {
	const char	*id, *token;	/* the delivery and the claim */
	/* sent, failed, cancelled, suppressed, scheduled */
	const char	*status;
	const char	*error_code, *cancel_reason;	/* or NULL */
	const char	*at;		/* SQL DATETIME: sent_at when sent */
	const char	*provider_id;	/* or NULL */
	int		 segments;	/* SMS parts; 0: unknown */
	/* SQL DATETIME when scheduled again, or NULL */
	const char	*reschedule;
	int		 give_back;	/* attempts not to count (a wait) */
};
/*
 * Write the outcome while the claim is still `token`'s; *held false when
 * another pass took the claim over (nothing written).  In the caller's
 * transaction.
 */
enum fb_err db_delivery_finish(struct db *, const struct delivery_outcome *,
	    bool *held) FB_WUR;
/*
 * Stamp attempt_started_at right before the provider is called, in the
 * caller's transaction (committed before the call) or autocommitted;
 * *held false when the claim is no longer `token`'s.
 */
enum fb_err db_delivery_attempt(struct db *, const char *id, const char *token,
	    bool *held) FB_WUR;
/*
 * db_delivery_attempt() for delivery d only when its lead is not
 * converted and the intake queue holds no conversion of its tenant
 * (issue 11: what db_delivery_send_guard() weighs first), in one
 * statement and the caller's transaction.  *stamped false when any of
 * the three stopped it (the claim lost, the lead converted, a conversion
 * queued): db_delivery_send_guard() and db_delivery_attempt() tell which.
 */
enum fb_err db_delivery_attempt_clear(struct db *, const struct delivery_ref *d,
	    const char *token, bool *stamped) FB_WUR;
/*
 * Right before a send (issue 11): is the lead converted, and which part of
 * the intake queue holds a conversion (not parked) of its visitor
 * (part[0]) or of a visitor whose lead shares its contact (part[1]); -1
 * for none.  A plain read, no lock on the queue.
 */
enum fb_err db_delivery_send_guard(struct db *, const char *tenant,
	    const char *lead, bool *converted, long long part[2]) FB_WUR;
/*
 * Of n (1..DELIVERY_CLAIM_MAX) deliveries, how many were sent to a lead
 * already converted when their send began (issue 11: 0 is the rule).
 */
enum fb_err db_sent_after_conversion(struct db *, const char *const *ids,
	    size_t n, long long *count) FB_WUR;
/* A lead reached: status sent (from abandoned or queued). */
enum fb_err db_lead_sent(struct db *, const char *tenant,
    const char *lead) FB_WUR;
/* Why a lead not yet reached is held back (contract: Lead suppress_reason). */
enum fb_err db_lead_suppress(struct db *, const char *tenant, const char *lead,
	    const char *reason) FB_WUR;
/* Cancel the scheduled deliveries of a lead that converted. */
enum fb_err db_converted_cancel(struct db *, const char *tenant,
	    const char *lead) FB_WUR;
/* Cancel the scheduled deliveries of steps no longer in the scenario. */
enum fb_err db_steps_gone_cancel(struct db *, const char *tenant,
	    const char *scenario) FB_WUR;

/*
 * Usage of the JST month `month` ("YYYY-MM"; contract: Events,
 * usage.threshold_reached).  lock: the month's sends and the highest
 * threshold announced (*found false, 0 and 100, when it has no row),
 * locked FOR UPDATE; with `create`, the row is made first when missing
 * and locked exclusively at once.  set: both values.  give_back: one
 * counted message that did not leave.
 */
enum fb_err db_usage_lock(struct db *, const char *tenant, const char *month,
	    bool create, long long *sends, int *notified_pct,
	    bool *found) FB_WUR;
enum fb_err db_usage_set(struct db *, const char *tenant, const char *month,
	    long long sends, int notified_pct) FB_WUR;
enum fb_err db_usage_give_back(struct db *, const char *tenant,
	    const char *month) FB_WUR;
/* The tenant's plan, own quota and the month's usage (formbackctl usage). */
#define USAGE_COLS(F, N) F(plan, TEXT, "t.plan") \
	N(send_quota, TEXT, "t.send_quota") \
	N(sends, INT, "COALESCE(u.sends, 0)") \
	N(notified_pct, INT, "COALESCE(u.notified_pct, 0)")
struct usage_row { DB_FIELDS(USAGE_COLS) };
/* One struct usage_row; FB_ENOTFOUND when no such tenant. */
enum fb_err db_usage_get(struct db *, const char *tenant, const char *month,
	    struct dbrows *out) FB_WUR;
/* Set the tenant's own monthly quota; < 0: its plan's. */
enum fb_err db_tenant_quota(struct db *, const char *tenant,
    long long quota) FB_WUR;

/* The tenant's test recipients (contract: Delivery switch test_only). */
#define TEST_RECIPIENT_COLS(F, N) F(id, TEXT, "id") N(kind, TEXT, "kind") \
	N(masked, TEXT, "masked") N(confirmed_at, TIME, "confirmed_at") \
	N(created_at, TIME, "created_at")
struct test_recipient_row { DB_FIELDS(TEST_RECIPIENT_COLS) };
/* Rows of struct test_recipient_row, by id. */
enum fb_err db_test_recipient_list(struct db *, const char *tenant,
	    struct dbrows *out) FB_WUR;
/*
 * A test recipient: with `sealed` (the contact, pii_seal()ed under key
 * `key_id` for the row id and field "test_recipient") a test send can
 * reach it; `confirmed` (an operator's) makes it count at once, else once
 * its code is typed back (migration 0021).
 */
enum fb_err db_test_recipient_add(struct db *, const char *id,
    const char *tenant,
	    const char *kind, const struct bidx *bidx, const char *masked,
	    const struct dbbin *sealed, int key_id, bool confirmed) FB_WUR;
/* The removed struct test_recipient_row (none when there was none). */
enum fb_err db_test_recipient_delete(struct db *, const char *tenant,
	    const char *kind, const struct bidx *bidx,
	    struct dbrows *out) FB_WUR;
/*
 * Whether kind's contact is a test recipient, by a lead's blind index
 * slots (b1: slot 1, b2: slot 2; either may be NULL): either matches.
 */
enum fb_err db_test_recipient_is(struct db *, const char *tenant,
	    const char *kind, const struct dbbin *b1, const struct dbbin *b2,
	    bool *yes) FB_WUR;
/*
 * A lead's blind index slots as read (b1, b2: NULL a slot that is, k1,
 * k2 their key ids, -1 for none recorded) into out, to be copied into a
 * suppression of the same contact.
 */
void	db_bidx_copy(const struct dbbin *b1, const struct dbbin *b2,
	    long long k1, long long k2, struct bidx *out);

/* A short link (src/links.c). */
#define LINK_COLS(F, N) F(tenant_id, TEXT, "tenant_id") \
	N(delivery_id, TEXT, "delivery_id") N(lead_id, TEXT, "lead_id") \
	N(kind, TEXT, "kind") N(url, TEXT, "url")
struct link_row { DB_FIELDS(LINK_COLS) };
/*
 * A short link to add: of `kind` (click, open, optout) for delivery d, to
 * `url` (click links, as url_normalize() wrote it; NULL otherwise), with
 * its token.
 */
struct link_new {
	const struct delivery_ref *d;
	const char	*kind;
	const char	*url;
	char		 token[LINK_TOKEN_LEN + 1];
};
/*
 * Add l[0..n) (n at most LINKS_ADD_MAX) in one statement, in the
 * caller's transaction.  FB_EINVAL for n out of range.
 */
#define LINKS_ADD_MAX	(3 * DELIVERY_CLAIM_MAX)
enum fb_err db_links_add(struct db *, const struct link_new *l,
	    size_t n) FB_WUR;
/* One struct link_row; FB_ENOTFOUND when no such token. */
enum fb_err db_link_get(struct db *, const char *token,
    struct dbrows *out) FB_WUR;
/* Count a visit of the link. */
enum fb_err db_link_hit(struct db *, const char *token) FB_WUR;

/* An operator email of the outbox (src/opmail.c). */
#define OPMAIL_COLS(F, N) F(id, TEXT, "id") N(tenant_id, TEXT, "tenant_id") \
	N(template, TEXT, "event_type") N(payload, TEXT, "payload")
struct opmail_row { DB_FIELDS(OPMAIL_COLS) };
/*
 * Queue operator email `template` to the tenant's active owners and
 * admins, in the caller's transaction: its payload is {"template",
 * "member_ids", then the members of `fields` (borrowed)}.
 */
enum fb_err db_opmail_add(struct db *, const char *tenant, const char *template,
	    json_object *fields) FB_WUR;
/* Up to 20 struct opmail_row not sent yet and no other pass's, locked. */
enum fb_err db_opmail_claim(struct db *, struct dbrows *out) FB_WUR;
enum fb_err db_opmail_done(struct db *, const char *id) FB_WUR;
/* The email addresses of the members of `ids` (a JSON array) still active. */
#define OPMAIL_TO_COLS(F, N) F(email, TEXT, "email")
struct opmail_to_row { DB_FIELDS(OPMAIL_TO_COLS) };
enum fb_err db_opmail_to(struct db *, const char *tenant, const char *ids,
	    struct dbrows *out) FB_WUR;

/* A delivery (contract: DeliveryOut): its destination masked only. */
#define DELIVERY_COLS(F, N) F(id, TEXT, "d.id") N(lead_id, TEXT, "d.lead_id") \
	N(status, TEXT, "d.status") N(channel, TEXT, "d.channel") \
	N(to_masked, TEXT, "d.to_masked") N(pii_state, TEXT, "d.pii_state") \
	N(campaign_id, TEXT, "d.campaign_id") \
	N(campaign_key, TEXT, "(SELECT c.campaign_key FROM campaigns c " \
	    "WHERE c.id = d.campaign_id)") \
	N(campaign_name, TEXT, "(SELECT c.name FROM campaigns c " \
	    "WHERE c.id = d.campaign_id)") \
	N(scenario_id, TEXT, "d.scenario_id") \
	N(scenario_name, TEXT, "(SELECT s.name FROM scenarios s " \
	    "WHERE s.id = d.scenario_id)") \
	N(step_id, TEXT, "d.step_id") N(step_no, INT, "d.step_no") \
	N(scheduled_at, TIME, "d.scheduled_at") N(sent_at, TIME, "d.sent_at") \
	N(created_at, TIME, "d.created_at") \
	N(cancel_reason, TEXT, "d.cancel_reason") \
	N(error_code, TEXT, "d.error_code") N(segments, TEXT, "d.segments")
struct delivery_row { DB_FIELDS(DELIVERY_COLS) };
struct delivery_filter {
	const char	*status, *campaign, *scenario;	/* NULL: any */
	/* 0 created_at, 1 scheduled_at, 2 sent_at */
	struct date_range range;
};
/* Rows of struct delivery_row, newest first, n max. */
enum fb_err db_delivery_list(struct db *, const char *tenant,
	    const struct delivery_filter *, const char *after, int n,
	    struct dbrows *) FB_WUR;
/* A lead's deliveries (struct delivery_row), newest first, n at most. */
enum fb_err db_deliveries_of_lead(struct db *, const char *tenant,
	    const char *lead, int n, struct dbrows *) FB_WUR;
/* One struct delivery_row; FB_ENOTFOUND when it is not the tenant's. */
enum fb_err db_delivery_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *) FB_WUR;

/* A suppression (contract: Suppression): its contact masked only. */
#define SUPPRESSION_COLS(F, N) F(id, TEXT, "id") N(kind, TEXT, "kind") \
	N(value_masked, TEXT, "masked") N(scope, TEXT, "scope") \
	N(campaign_id, TEXT, "campaign_id") N(reason, TEXT, "reason") \
	N(memo, TEXT, "memo") N(expires_at, TIME, "expires_at") \
	N(created_at, TIME, "created_at")
struct suppression_row { DB_FIELDS(SUPPRESSION_COLS) };
struct suppression_filter {
	const char	*kind, *reason, *scope, *campaign;	/* NULL: any */
	const struct bidx *bidx;	/* the contact's indexes, or NULL */
};
/* Rows of struct suppression_row, newest first, n max. */
enum fb_err db_suppression_list(struct db *, const char *tenant,
	    const struct suppression_filter *, const char *after, int n,
	    struct dbrows *) FB_WUR;
/* One struct suppression_row; FB_ENOTFOUND when it is not the tenant's. */
enum fb_err db_suppression_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *) FB_WUR;
/* A new entry (its id made by the caller); campaign NULL for tenant scope. */
struct suppression_new {
	const char		*id, *tenant, *kind;
	const struct bidx	*bidx;		/* both slots (pii.h) */
	const char		*masked, *scope, *campaign, *reason, *memo;
	const char		*expires_at;	/* SQL DATETIME, or NULL */
};
/*
 * Add the entry unless an unexpired one of the same contact and scope is
 * in force (locked: concurrent adds wait); *added tells which.  In the
 * caller's transaction.
 */
enum fb_err db_suppression_add(struct db *, const struct suppression_new *,
	    bool *added) FB_WUR;
enum fb_err db_suppression_delete(struct db *, const char *tenant,
	    const char *id) FB_WUR;

/* A lead's contacts as the suppression list keys them: blind index, mask. */
#define CONTACT_KEY_COLS(F, N) F(email_bidx, BIN, "email_bidx") \
	N(email_masked, TEXT, "email_masked") N(tel_bidx, BIN, "tel_bidx") \
	N(tel_masked, TEXT, "tel_masked") \
	N(email_bidx2, BIN, "email_bidx2") N(tel_bidx2, BIN, "tel_bidx2") \
	N(bidx_key, INT, "COALESCE(bidx_key, -1)") \
	N(bidx2_key, INT, "COALESCE(bidx2_key, -1)")
struct contact_key_row { DB_FIELDS(CONTACT_KEY_COLS) };
/* One struct contact_key_row; FB_ENOTFOUND when it is not the tenant's. */
enum fb_err db_lead_contact_keys(struct db *, const char *tenant,
    const char *lead, struct dbrows *) FB_WUR;
/* Cancel the lead's scheduled deliveries: opted_out. */
enum fb_err db_optout_cancel(struct db *, const char *tenant,
    const char *lead) FB_WUR;

/*
 * The delivery a provider's receipt names, by its id (the reference we
 * sent) or the provider's message id, locked, with its lead's contact
 * keys.  Across tenants: a receipt names no tenant, and the provider's
 * id is ours only for deliveries we sent.
 */
#define RECEIPT_COLS(F, N) F(id, TEXT, "d.id") N(tenant_id, TEXT, \
    "d.tenant_id") \
	N(lead_id, TEXT, "d.lead_id") N(channel, TEXT, "d.channel") \
	N(status, TEXT, "d.status") N(campaign_id, TEXT, "d.campaign_id") \
	N(step_no, TEXT, "d.step_no") N(email_bidx, BIN, "l.email_bidx") \
	N(email_masked, TEXT, "l.email_masked") N(tel_bidx, BIN, "l.tel_bidx") \
	N(tel_masked, TEXT, "l.tel_masked") \
	N(email_bidx2, BIN, "l.email_bidx2") N(tel_bidx2, BIN, "l.tel_bidx2") \
	N(bidx_key, INT, "COALESCE(l.bidx_key, -1)") \
	N(bidx2_key, INT, "COALESCE(l.bidx2_key, -1)")
struct receipt_row { DB_FIELDS(RECEIPT_COLS) };
/* Zero or one struct receipt_row. */
enum fb_err db_receipt_delivery(struct db *, const char *reference,
	    const char *provider_id, struct dbrows *) FB_WUR;
/*
 * What the provider says became of a sent (or delivered) delivery:
 * status "delivered" or "failed" with its error; *changed when it did.
 */
enum fb_err db_receipt_result(struct db *, const char *id, const char *status,
	    const char *error_code, bool *changed) FB_WUR;
/*
 * Schedule the deliveries of the tenant's leads l[0 .. n) (1 .. 16) just
 * judged abandoned at `at` (unix seconds): one per step of each one's
 * campaign's active scenario, due at `at` plus the step's delay, in the
 * caller's transaction, a statement per DB_MULTI_MAX; a lead becomes
 * queued when any was scheduled.  *n receives how many in all.
 */
enum fb_err db_deliveries_schedule(struct db *, const char *tenant,
	    const struct lead_owner_row *l, size_t n, long long at,
	    int *n_scheduled) FB_WUR;

#endif
