/*
 * src/db/lead.c: leads, the intake queue, the tag's events, formback-
 * abandon's claims; store.h includes every such header.
 */
#ifndef FORMBACK_DB_LEAD_H
#define FORMBACK_DB_LEAD_H

#include "db.h"

/*
 * A lead as the API shows it (contract: LeadOut): masked contacts only,
 * the queries never read a sealed value (STYLE 11).  Its own columns
 * (LEAD_OWN_COLS), then the names of its site and campaign
 * (LEAD_NAME_COLS): the detail reads them with LEFT JOINs on their
 * primary keys (db/lead.c LEAD_NESTED); the list reads the lead's own
 * columns only, walking leads_tenant in order, and the API fills the
 * names from what a worker keeps by the tenant's data epoch
 * (db_names(); api/leads.c): two look-ups per row cost a third of the
 * database's time on a page of 50.
 */
#define LEAD_OWN_COLS(F, N) F(id, TEXT, "l.id") N(site_id, TEXT, "l.site_id") \
	N(campaign_id, TEXT, "l.campaign_id") \
	N(status, TEXT, "l.status") N(consent_state, TEXT, "l.consent_state") \
	N(email_masked, TEXT, "l.email_masked") \
	N(tel_masked, TEXT, "l.tel_masked") \
	N(pii_state, TEXT, "l.pii_state") N(tel_kind, TEXT, "l.tel_kind") \
	N(sms_capable, BOOL, "l.sms_capable") \
	N(created_at, TIME, "l.created_at") \
	N(captured_at, TIME, "l.captured_at") \
	N(abandoned_at, TIME, "l.abandoned_at") \
	N(converted_at, TIME, "l.converted_at") \
	N(conversion_source, TEXT, "l.conversion_source") \
	N(suppress_reason, TEXT, "l.suppress_reason")
#define LEAD_NAME_COLS(F, N) F(site_name, TEXT, "s.name") \
	N(site_domain, TEXT, "s.domain") \
	N(campaign_key, TEXT, "c.campaign_key") \
	N(campaign_name, TEXT, "c.name")
#define LEAD_COLS(F, N) LEAD_OWN_COLS(F, N) LEAD_NAME_COLS(N, N)
struct lead_row { DB_FIELDS(LEAD_COLS) };
/* ... and what only the detail shows (contract: LeadDetailOut) */
#define LEAD_DETAIL_COLS(F, N) F(landing_url, TEXT, "l.landing_url") \
	N(referrer, TEXT, "l.referrer") N(utm, TEXT, "l.utm") \
	N(lp_key, TEXT, "l.lp_key") N(visitor_id, TEXT, "l.visitor_id")
struct lead_detail_row {
	struct lead_row	 lead;		/* first: its columns come first */
	DB_FIELDS(LEAD_DETAIL_COLS)
};
/* One event of a lead's timeline (display only). */
#define TIMELINE_COLS(F, N) F(type, TEXT, "e.event_type") N(role, TEXT, \
    "e.role") \
	N(path, TEXT, "e.url_path") N(campaign, TEXT, "c.campaign_key") \
	N(at, TIME, "e.received_at")
struct timeline_row { DB_FIELDS(TIMELINE_COLS) };

/*
 * The names the lead list nests (contract: LeadOut site, campaign): of n
 * (1 to NAMES_MAX) site or campaign ids (borrowed) of the tenant, rows of
 * struct name_row, in no order; an id not found (deleted) has no row.
 */
#define NAMES_MAX	16
enum name_kind { NAME_SITE, NAME_CAMPAIGN };
#define SITE_NAME_COLS(F, N) F(id, TEXT, "id") N(a, TEXT, "name") \
	N(b, TEXT, "domain")
#define CAMPAIGN_NAME_COLS(F, N) F(id, TEXT, "id") N(a, TEXT, "campaign_key") \
	N(b, TEXT, "name")
/* a: the site's name or the campaign's key; b: the domain or the name */
struct name_row { DB_FIELDS(SITE_NAME_COLS) };
enum fb_err db_names(struct db *, enum name_kind, const char *tenant,
	    const char *const *ids, size_t n, struct dbrows *) FB_WUR;

struct lead_filter {
	const char	*site, *campaign, *status;	/* NULL: any */
	/* field 0 created_at, 1 captured_at, 2 abandoned_at, 3 converted_at */
	struct date_range range;
};
/*
 * Rows of struct lead_row, newest first, n max; its own columns only, the
 * names (LEAD_NAME_COLS) NULL.
 */
enum fb_err db_lead_list(struct db *, const char *tenant,
    const struct lead_filter *,
	    const char *after, int n, struct dbrows *) FB_WUR;
/* One struct lead_detail_row; FB_ENOTFOUND when it is not the tenant's. */
enum fb_err db_lead_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *) FB_WUR;
/* The visitor's events on the site, oldest first, 200 max: timeline_row. */
enum fb_err db_lead_timeline(struct db *, const char *tenant, const char *site,
	    const char *visitor, struct dbrows *) FB_WUR;

struct tag_event_row {
	const char	*tenant, *site, *campaign, *lead, *visitor, *session;
	const char	*type, *role, *url, *url_path, *referrer;
	int		 consent;	/* -1: not given */
	long long	 client_ts;	/* ms; <= 0: not given */
	/* received, "YYYY-MM-DD HH:MM:SS[.ffffff]" UTC; NULL: now */
	const char	*at;
};
/* n rows (at not NULL) with one INSERT per 16. */
enum fb_err db_tag_events_insert(struct db *, const struct tag_event_row *rows,
	    size_t n) FB_WUR;
/* The visitor's open lead of a campaign: captures with a contact so far. */
#define OPEN_LEAD_COLS(F, N) F(id, TEXT, "id") N(status, TEXT, "status") \
	N(captures, INT, "captures")
struct open_lead_row { DB_FIELDS(OPEN_LEAD_COLS) };
/*
 * Rows of struct open_lead_row, locked; in no order, should there be
 * more than one.
 */
enum fb_err db_lead_find_open(struct db *, const char *tenant, const char *site,
	    const char *visitor, const char *campaign, struct dbrows *) FB_WUR;

/*
 * What a capture stores: sealed contacts, blind indexes (both slots,
 * pii.h struct bidx; NULL with its contact), masks only.
 */
struct lead_contact {
	const char		*consent_state, *session;
	const unsigned char	*email_sealed;
	const struct bidx	*email_bidx;
	size_t			 email_sealed_len;
	const char		*email_masked;
	const unsigned char	*tel_sealed;
	const struct bidx	*tel_bidx;
	size_t			 tel_sealed_len;
	const char		*tel_masked, *tel_kind;
	unsigned		 key_id;
	/* where it came from: keyed hashes (migration 0034), or NULL */
	const unsigned char	*src_addr, *src_net;	/* PII_BIDXBYTES */
};
/*
 * A new lead: `started`, or with `c` not NULL `captured` at once with its
 * contacts (c->session then names the session).  `at` (SQL DATETIME, UTC;
 * NULL: now) is when the event that makes it was received: created_at,
 * and captured_at of a captured one; `activity_at` (NULL: at) is its
 * last activity.  Borrowed.
 */
struct lead_new {
	const char	*id, *tenant, *site, *campaign, *visitor, *session;
	const char	*landing, *referrer, *utm, *lp_key, *at, *activity_at;
	const struct lead_contact *c;
};
/*
 * New leads w[0 .. n) (any n), a statement per DB_MULTI_MAX of each
 * kind (started, captured).
 */
enum fb_err db_leads_insert(struct db *, const struct lead_new *w,
	    size_t n) FB_WUR;
/* A capture at `at` (as struct lead_new) on an open lead. */
enum fb_err db_lead_capture(struct db *, const char *tenant, const char *id,
	    const struct lead_contact *, const char *at) FB_WUR;
/* Activity at `at` on the visitor's open lead of the campaign. */
enum fb_err db_lead_touch(struct db *, const char *site, const char *visitor,
	    const char *campaign, const char *at) FB_WUR;
/*
 * What an applier's batch reads first, for up to INGEST_DONE_MAX of its
 * visitors or sessions (borrowed, at least one) of one site at once:
 * db_leads_open_of(), the visitors' unfinished leads of every campaign
 * (db_lead_find_open()), locked, in no order; db_lead_landings(), the
 * first page view of each session that has one.
 */
#define OPEN_LEAD_OF_COLS(F, N) F(visitor_id, TEXT, "visitor_id") \
	N(campaign_id, TEXT, "campaign_id") OPEN_LEAD_COLS(N, N)
struct open_lead_of_row { DB_FIELDS(OPEN_LEAD_OF_COLS) };
enum fb_err db_leads_open_of(struct db *, const char *tenant, const char *site,
	    const char *const *visitors, size_t n, struct dbrows *) FB_WUR;
#define SESSION_LANDING_COLS(F, N) F(session_id, TEXT, "session_id") \
	N(url, TEXT, "url") N(referrer, TEXT, "referrer")
struct session_landing_row { DB_FIELDS(SESSION_LANDING_COLS) };
enum fb_err db_lead_landings(struct db *, const char *site,
	    const char *const *sessions, size_t n, struct dbrows *) FB_WUR;
/* Where a lead belongs. */
#define LEAD_OWNER_COLS(F, N) F(id, TEXT, "l.id") \
	N(tenant_id, TEXT, "l.tenant_id") \
	N(campaign_id, TEXT, "l.campaign_id") \
	N(site_id, TEXT, "l.site_id")
struct lead_owner_row { DB_FIELDS(LEAD_OWNER_COLS) };
/* The visitor's unfinished leads on the site, locked: struct lead_owner_row. */
enum fb_err db_leads_of_visitor(struct db *, const char *tenant,
	    const char *site, const char *visitor, struct dbrows *) FB_WUR;
/*
 * Unfinished leads sharing a contact with `lead`, locked: struct
 * lead_owner_row.
 */
enum fb_err db_leads_of_contact(struct db *, const char *tenant,
    const char *lead, struct dbrows *) FB_WUR;
/*
 * Convert an unfinished lead of `tenant` at `at` (SQL DATETIME, UTC;
 * NULL: now); *changed false when it already was finished.
 */
enum fb_err db_lead_convert(struct db *, const char *tenant, const char *id,
	    const char *source, const char *at, bool *changed) FB_WUR;
/*
 * The collector's intake queue (db/migrations/0008_ingest.sql).  An event
 * as the collector files it, everything borrowed: its site and tenant
 * ids, contacts normalised and sealed with "ingest" and `id` as
 * associated data.
 */
struct ingest_event {
	const char		*id, *tenant, *site, *visitor, *session, *type;
	const char		*campaign_key, *role, *url, *referrer;
	int			 consent;	/* -1: not given */
	long long		 client_ts;	/* ms; <= 0: not given */
	const unsigned char	*tel_sealed, *email_sealed;	/* NULL: none */
	size_t			 tel_sealed_len, email_sealed_len;
	unsigned		 key_id;
	/* keyed hashes of the client address and its network, or NULL */
	const unsigned char	*src_addr, *src_net;	/* PII_BIDXBYTES */
};
/*
 * File n events (1 .. INGEST_ADD_MAX) with one autocommitted INSERT: a
 * worker files the events that arrived together with one commit.
 */
#define INGEST_ADD_MAX	16
enum fb_err db_ingest_add(struct db *, const struct ingest_event *const *evs,
	    size_t n) FB_WUR;
/*
 * The queue's parts (migration 0011): a visitor's events are all in part
 * ingest_part(visitor) (FNV-1a of the id mod INGEST_PARTS), applied in
 * receive order by one applier at a time; the parts go in parallel.
 */
#define INGEST_PARTS	8
unsigned	ingest_part(const char *visitor);
/*
 * Take a part's applier turn inside the caller's transaction: *held
 * false when another applier has it (wait false), else after it (wait
 * true).
 */
enum fb_err db_ingest_lock(struct db *, unsigned part, bool wait,
    bool *held) FB_WUR;
/* A queued event (contacts sealed under the "ingest" context, its id). */
#define INGEST_COLS(F, N) F(id, TEXT, "id") N(tenant_id, TEXT, "tenant_id") \
	N(site_id, TEXT, "site_id") N(visitor_id, TEXT, "visitor_id") \
	N(session_id, TEXT, "session_id") N(event_type, TEXT, "event_type") \
	N(campaign_key, TEXT, "campaign_key") N(role, TEXT, "role") \
	N(url, TEXT, "url") N(referrer, TEXT, "referrer") \
	N(consent, INT, "COALESCE(consent, -1)") \
	N(client_ts, INT, "COALESCE(client_ts, 0)") \
	N(tel_sealed, BIN, "tel_sealed") N(email_sealed, BIN, "email_sealed") \
	N(pii_key_id, INT, "pii_key_id") N(received_at, TIME, "received_at") \
	N(src_addr, BIN, "src_addr") N(src_net, BIN, "src_net")
struct ingest_row { DB_FIELDS(INGEST_COLS) };
/*
 * The part's `limit` oldest queued events that are not parked, oldest
 * first: rows of struct ingest_row.
 */
enum fb_err db_ingest_batch(struct db *, unsigned part, int limit,
	    struct dbrows *) FB_WUR;
/*
 * Remove applied events of queue part `part` (the first column of
 * tag_ingest's key, so that the statement reads only those rows): n ids
 * (borrowed), 1 to INGEST_DONE_MAX; one statement.
 */
#define INGEST_DONE_MAX	100
enum fb_err db_ingest_done(struct db *, unsigned part, const char *const *ids,
	    size_t n) FB_WUR;
/*
 * Count a failed application of event `id` of part `part` (the third
 * parks it) with its error.
 */
enum fb_err db_ingest_failed(struct db *, unsigned part, const char *id,
	    const char *error) FB_WUR;
/* Is anything queued that is not parked? */
enum fb_err db_ingest_pending(struct db *, bool *pending) FB_WUR;
/* The intake queue: events in it, of them parked, the oldest's arrival. */
#define INGEST_STATUS_COLS(F, N) F(queued, INT, "COUNT(*)") \
	N(parked, INT, "COALESCE(SUM(attempts >= 3), 0)") \
	N(oldest_received_at, TIME, "MIN(received_at)")
struct ingest_status_row { DB_FIELDS(INGEST_STATUS_COLS) };
/* One struct ingest_status_row. */
enum fb_err db_ingest_status(struct db *, struct dbrows *) FB_WUR;
/* Give parked events three more tries, taking back the rolled hours
 * of their tenants from theirs on (db_hours_take_back()); *n: how many. */
enum fb_err db_ingest_retry(struct db *, long long *n) FB_WUR;
/* abandon_wait_minutes of a campaign or a scenario (contract: Campaign) */
#define ABANDON_WAIT_MIN	1
#define ABANDON_WAIT_MAX	10080	/* 7 days */
/*
 * Up to `limit` tenants (struct key_row) with captured leads idle for the
 * shortest wait of any campaign or active scenario at `now` (unix
 * seconds), the longest idle first: formback-abandon's turns (issue 40).
 * A tenant listed may have none due yet (its campaigns wait longer).
 */
enum fb_err db_leads_abandon_tenants(struct db *, long long now, int limit,
	    struct dbrows *) FB_WUR;
/*
 * Up to `limit` struct lead_owner_row of the tenant's captured leads
 * whose wait (the active scenario's, else the campaign's) has passed at
 * `now` (unix seconds), the longest idle first.  Reads only the leads
 * idle for the shortest wait of any campaign or active scenario, and
 * stops at `limit`.
 */
enum fb_err db_leads_abandon_due(struct db *, const char *tenant,
	    long long now, int limit, struct dbrows *) FB_WUR;
/* How many leads of every tenant are due at `now`, counted up to `cap`. */
enum fb_err db_leads_abandon_left(struct db *, long long now, long long cap,
	    long long *n) FB_WUR;
/*
 * Lock the tenant's leads ids[0 .. n) (1 .. 16) that are still captured
 * and held by no other pass (SKIP LOCKED), in the caller's transaction,
 * and mark them abandoned at `now` (unix seconds): taken[i] says which
 * were.
 */
enum fb_err db_leads_abandon(struct db *, const char *tenant,
	    const char *const *ids, size_t n, long long now,
	    bool taken[]) FB_WUR;
/*
 * One struct lead_owner_row; FB_ENOTFOUND when none.  Across tenants:
 * formbackctl's operator path, which names a lead by its id alone.
 */
enum fb_err db_lead_owner(struct db *, const char *id, struct dbrows *) FB_WUR;
/*
 * The leads of one contact (an email address when `email`, else a phone
 * number) by its blind index (contact_key()), newest first, n at most:
 * struct lead_row, its own columns (LEAD_OWN_COLS).
 */
enum fb_err db_leads_by_contact(struct db *, const char *tenant, bool email,
	    const struct bidx *bidx, int n, struct dbrows *) FB_WUR;

#endif
