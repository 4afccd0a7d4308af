/*
 * Typed database functions, one group per src/db/<resource>.c: the only
 * way the rest of the tree reaches MariaDB.  Every function on tenant
 * data takes the tenant id and filters on it (design 6); the few that
 * name a row by its id alone are the system paths' and say why (a claim
 * or link token, a provider's receipt, an operator's command).  Reads
 * fill a struct dbrows of the row struct beside each function, made from
 * one column list (db.h, "Typed rows"), that the caller frees with
 * dbrows_free(); a look-up of one row is FB_ENOTFOUND when there is none.
 * Writes take their values as arguments or a named struct, never a
 * position.  Datetimes are "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC), as
 * jadd_time() writes them for the API.
 */
#ifndef FORMBACK_STORE_H
#define FORMBACK_STORE_H

#include "db.h"

/* db/core.c: the request core's tables. */

/*
 * An API key with its member's status, its tenant's plan, custom limit
 * (-1: the plan's) and auth epoch (contract: Authentication 5, 6).
 */
#define AUTH_KEY_COLS(F, N) F(key_id, TEXT, "k.id") \
	N(tenant_id, TEXT, "k.tenant_id") N(member_id, TEXT, "k.member_id") \
	N(kind, TEXT, "k.kind") N(scopes, TEXT, "k.scopes") \
	N(revoked, BOOL, "k.revoked_at IS NOT NULL") \
	N(member_status, TEXT, "m.status") N(plan, TEXT, "t.plan") \
	N(rate_limit, INT, "COALESCE(t.rate_limit, -1)") \
	N(auth_epoch, INT, "t.auth_epoch")
struct auth_key_row { DB_FIELDS(AUTH_KEY_COLS) };
/* One struct auth_key_row for the key of this hash; FB_ENOTFOUND when none. */
enum fb_err db_auth_lookup(struct db *, const unsigned char *hash, size_t n,
	    struct dbrows *) FB_WUR;
/*
 * The server's settings that make a commit durable (design 6): InnoDB's
 * log flush at every commit (1), and with the binary log on, its sync
 * at every commit (1).  One struct durability_row.
 */
#define DURABILITY_COLS(F, N) \
	F(flush_log_at_trx_commit, INT, "@@innodb_flush_log_at_trx_commit") \
	N(log_bin, BOOL, "@@log_bin") N(sync_binlog, INT, "@@sync_binlog")
struct durability_row { DB_FIELDS(DURABILITY_COLS) };
enum fb_err db_durability(struct db *, struct dbrows *) FB_WUR;

struct rate_result {
	bool		 admitted;
	int		 remaining;
	long long	 reset;		/* unix seconds when one more slot frees */
	long long	 retry_after;	/* seconds, when not admitted */
	/*
	 * the tenant's data epoch as the admission read it: every change
	 * to one of its sites bumps it in the same transaction (migration
	 * 0027), so an answer made after an admission of epoch E shows
	 * what later admissions of epoch E would read
	 */
	long long	 data_epoch;
};

/*
 * Admit one request for `tenant` under `limit` requests in the 60 seconds
 * up to `now` (unix seconds; < 0: the database clock) -- contract: Limits;
 * design 6: a sliding log exact to the second, one atomic statement for
 * every worker on every host, refused requests not counted -- and fill
 * the rate headers from the ring as this request left it.
 * With `cached` false the caller has just read the key from the database
 * with auth epoch `epoch`.  With `cached` true the caller holds a cached
 * look-up of epoch `epoch`: nothing is admitted unless the tenant's epoch
 * is still that one.  *epoch_out is the tenant's epoch after the
 * statement; when it differs from `epoch` the cached look-up is stale.
 */
enum fb_err db_rate_admit(struct db *, const char *tenant, int limit,
	    long long now, long long epoch, bool cached, struct rate_result *,
	    long long *epoch_out) FB_WUR;

#define RATE_ADMIT_MAX	16	/* requests admitted by one statement */
/*
 * db_rate_admit() for n (1..RATE_ADMIT_MAX) requests of one tenant that
 * arrived together, in one statement: the first of them, as many as the
 * window has room for, are admitted and counted in this second; out[i]
 * is request i's result, with the remaining count it would have had
 * alone.  `cached` false takes n = 1 only (FB_EINVAL otherwise).
 */
enum fb_err db_rate_admit_n(struct db *, const char *tenant, int limit,
	    long long now, long long epoch, bool cached, int n,
	    struct rate_result out[], long long *epoch_out) FB_WUR;

/*
 * Record, in the caller's transaction, that who may call for `tenant`
 * changed (a key revoked, a member suspended or deleted, a limit
 * changed): every worker's cached look-up of the tenant's keys stops
 * being used from this call on (src/authcache.c).
 */
enum fb_err db_auth_epoch_bump(struct db *, const char *tenant) FB_WUR;

/* db/rate.c: the rate ring's arithmetic, the same as db/core.c's SQL */

#define RATE_SLOTS	61
#define RATE_DIGITS	12
#define RATE_RING_LEN	(RATE_SLOTS * RATE_DIGITS)

/*
 * The window of a rate ring at `now`: the requests admitted in the 60
 * seconds up to `now` (*count) and the oldest second among them (*oldest,
 * 0 when none).  Pure; the SQL of db/core.c applies the same shift.
 */
void	rate_window(const char *ring, long long base, long long total,
	    long long now, long long *count, long long *oldest);
/*
 * The contract's rate headers from a ring as the admission left it:
 * remaining slots, reset (unix seconds when one more slot frees: the
 * oldest counted second plus 60) and, when refused, retry_after seconds.
 */
void	rate_result_from(const char *ring, long long base, long long total,
	    long long now, int limit, bool admitted, struct rate_result *);

/*
 * Idempotency (contract: Idempotency; design 6).  claim inserts the
 * in-progress row in the current transaction without waiting on locks:
 * FB_OK (ours), FB_EDUP (a finished row exists), FB_ERETRY (another
 * request holds it: 409 idempotency_key_in_progress).
 */
enum fb_err db_idem_claim(struct db *, const char *tenant, const char *endpoint,
	    const char *key, const unsigned char hash[32]) FB_WUR;
/* A stored answer: status 0 while its request is in progress. */
#define IDEM_COLS(F, N) F(request_hash, BIN, "request_hash") \
	N(status, INT, "COALESCE(status_code, 0)") \
	N(body, TEXT, "response_body") \
	N(expired, BOOL, "created_at < NOW(6) - INTERVAL 24 HOUR")
struct idem_row { DB_FIELDS(IDEM_COLS) };
/* One struct idem_row; FB_ENOTFOUND when none. */
enum fb_err db_idem_get(struct db *, const char *tenant, const char *endpoint,
	    const char *key, struct dbrows *) FB_WUR;
/* Delete the row when older than 24 hours (the contract's window). */
enum fb_err db_idem_delete_expired(struct db *, const char *tenant,
	    const char *endpoint, const char *key) FB_WUR;
enum fb_err db_idem_finish(struct db *, const char *tenant, const char *endpoint,
	    const char *key, int status, const char *body) FB_WUR;

/*
 * Retention (formback-deliver, each pass; formback.fcgi(8) "Retention"):
 * idempotency records past their 24 hours (contract: Idempotency), the
 * outbox's operator emails and publishing done 30 days ago, and tag
 * events, audit-log rows and click and open links (opt-out links are
 * kept) older than the days `c` sets
 * for them (formback.conf(5); 0 keeps them); 10,000 rows of each at
 * most, oldest first, autocommit.  *n the rows deleted.
 */
enum fb_err db_retention_purge(struct db *, const struct conf *c,
	    unsigned long long *n) FB_WUR;
/*
 * A key, a tenant's or a webhook endpoint's id: the turns of a cron pass
 * (pass.h, ring_fill()).  key_cols is its table (db/core.c).
 */
#define KEY_COLS(F, N) F(id, TEXT, "id")
struct key_row { DB_FIELDS(KEY_COLS) };
extern const struct dbcol key_cols[1];
/* An audit-log row, in the caller's transaction.  detail is JSON or NULL. */
enum fb_err db_audit_add(struct db *, const char *tenant, const char *actor_type,
	    const char *actor_id, const char *request_id, const char *action,
	    const char *target_type, const char *target_id, const char *detail) FB_WUR;
/* An outbox row (topic webhook|email|publish), in the caller's transaction. */
enum fb_err db_outbox_add(struct db *, const char *tenant, const char *topic,
	    const char *event_type, const char *payload) FB_WUR;
/*
 * Outbox rows as db_outbox_add() writes them, their ids given (UUIDv7,
 * made when the event happened: the outbox is read in id order).
 * Borrowed.
 */
struct outbox_row {
	const char	*id, *tenant, *topic, *event_type, *payload;
};
/*
 * Rows r[0 .. n) (any n) in the caller's transaction, a statement per
 * DB_MULTI_MAX of them.
 */
enum fb_err db_outbox_insert(struct db *, const struct outbox_row *r,
	    size_t n) FB_WUR;

/*
 * db/member.c: members' sign-in, sessions, invitations and the audit log
 * (migration 0020; issue 16).
 */

/* A member who may be signing in with an address, with the tenant's name. */
#define SIGNIN_COLS(F, N) F(id, TEXT, "m.id") N(tenant_id, TEXT, "m.tenant_id") \
	N(tenant_name, TEXT, "t.name") N(role, TEXT, "m.role") \
	N(status, TEXT, "m.status") N(password_hash, TEXT, "m.password_hash")
struct signin_row { DB_FIELDS(SIGNIN_COLS) };
/*
 * Up to 10 members with this address (lower-cased), of tenant `tenant`
 * when not NULL, oldest first.
 */
enum fb_err db_signin_members(struct db *, const char *email, const char *tenant,
	    struct dbrows *out) FB_WUR;
/*
 * The sign-in throttle of two subjects (hashes of "account:<address>"
 * and "address:<client>"): *wait the seconds until the later of their
 * blocks ends, 0 when neither is blocked.
 */
enum fb_err db_throttle_wait(struct db *, const unsigned char *account,
	    const unsigned char *address, long long *wait) FB_WUR;
/*
 * Count a failure of subject `hash`; from the `free`-th failure within a
 * day it is blocked for 30 s, doubling with each further failure, 15 min
 * at most.  Autocommit: a failure is counted even as the answer is 401.
 */
enum fb_err db_throttle_fail(struct db *, const unsigned char *hash, int free) FB_WUR;
/* Forget subject `hash`'s failures (a sign-in that succeeded). */
enum fb_err db_throttle_clear(struct db *, const unsigned char *hash) FB_WUR;

/* A session as it authenticates a request, with its member and tenant. */
#define SESSION_AUTH_COLS(F, N) F(id, TEXT, "s.id") \
	N(tenant_id, TEXT, "s.tenant_id") N(member_id, TEXT, "s.member_id") \
	N(email, TEXT, "m.email") N(role, TEXT, "m.role") \
	N(member_status, TEXT, "m.status") N(plan, TEXT, "t.plan") \
	N(rate_limit, INT, "COALESCE(t.rate_limit, -1)") \
	N(auth_epoch, INT, "t.auth_epoch") \
	N(dead, BOOL, "s.ended_at IS NOT NULL OR s.expires_at <= NOW(6) " \
	    "OR s.last_seen_at <= NOW(6) - INTERVAL ? SECOND") \
	N(stale, BOOL, "s.last_seen_at <= NOW(6) - INTERVAL 60 SECOND") \
	N(expires_at, TIME, "s.expires_at")
struct session_auth_row { DB_FIELDS(SESSION_AUTH_COLS) };
/*
 * One struct session_auth_row by token hash, dead after `idle` seconds
 * without a request; FB_ENOTFOUND when none.
 */
enum fb_err db_session_lookup(struct db *, const unsigned char *hash, int idle,
	    struct dbrows *out) FB_WUR;
/* A new session of SESSION_MAX_SECONDS, in the caller's transaction. */
enum fb_err db_session_create(struct db *, const char *id, const char *tenant,
	    const char *member, const unsigned char *hash, const char *client_addr,
	    int max_seconds) FB_WUR;
/* Stamp the session's last request (the idle expiry starts again). */
enum fb_err db_session_touch(struct db *, const char *id) FB_WUR;
/* End one session (sign-out, or found dead). */
enum fb_err db_session_end(struct db *, const char *id) FB_WUR;
/*
 * End every session of a member (suspended, deleted, password changed)
 * but `keep` when not NULL.
 */
enum fb_err db_member_sessions_end(struct db *, const char *member,
	    const char *keep) FB_WUR;

/* A member as the admin API shows it (MemberOut). */
#define MEMBER_COLS(F, N) F(id, TEXT, "m.id") N(email, TEXT, "m.email") \
	N(role, TEXT, "m.role") N(status, TEXT, "m.status") \
	N(has_password, BOOL, "m.password_hash IS NOT NULL") \
	N(last_seen_at, TIME, "(SELECT MAX(s.last_seen_at) FROM sessions s " \
	    "WHERE s.member_id = m.id)") \
	N(created_at, TIME, "m.created_at")
struct member_row { DB_FIELDS(MEMBER_COLS) };
/* Members not deleted, newest first, ids below `before` (NULL: from the top). */
enum fb_err db_member_list(struct db *, const char *tenant, const char *before,
	    int n, struct dbrows *out) FB_WUR;
/* One struct member_row (deleted ones too); FB_ENOTFOUND when none. */
enum fb_err db_member_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *out) FB_WUR;
/* A member of `tenant` by address; FB_ENOTFOUND when none. */
enum fb_err db_member_by_email(struct db *, const char *tenant, const char *email,
	    struct dbrows *out) FB_WUR;
enum fb_err db_member_set_role(struct db *, const char *tenant, const char *id,
	    const char *role) FB_WUR;
/* Set the password (an Argon2id string); FB_ENOTFOUND when no such member. */
enum fb_err db_member_set_password(struct db *, const char *id,
	    const char *hash) FB_WUR;
/*
 * The tenant's active owners, counted under the tenant's row lock (two
 * demotions cannot both leave one).
 */
enum fb_err db_owners_locked(struct db *, const char *tenant, long long *n) FB_WUR;

/*
 * A one-time link (purpose invite|reset) for a member, valid `seconds`;
 * the member's earlier unused links expire.  formback-deliver mails it.
 */
enum fb_err db_invitation_add(struct db *, const char *id, const char *tenant,
	    const char *member, const char *purpose, int seconds) FB_WUR;
/* Whether the member has a link of `purpose` made in the last 5 minutes. */
enum fb_err db_invitation_recent(struct db *, const char *member,
	    const char *purpose, bool *recent) FB_WUR;
/* A link to mail, with the member's address and the tenant's name. */
#define INVITE_SEND_COLS(F, N) F(id, TEXT, "i.id") \
	N(tenant_id, TEXT, "i.tenant_id") N(purpose, TEXT, "i.purpose") \
	N(email, TEXT, "m.email") N(tenant_name, TEXT, "t.name") \
	N(expires_at, TIME, "i.expires_at")
struct invite_send_row { DB_FIELDS(INVITE_SEND_COLS) };
/* Up to 20 links not mailed and not expired, locked, no other pass's. */
enum fb_err db_invitation_claim(struct db *, struct dbrows *out) FB_WUR;
/* Record the mailed token's hash. */
enum fb_err db_invitation_sent(struct db *, const char *id,
	    const unsigned char *hash) FB_WUR;
/* A link by its token's hash, locked. */
#define INVITE_COLS(F, N) F(id, TEXT, "i.id") N(tenant_id, TEXT, "i.tenant_id") \
	N(member_id, TEXT, "i.member_id") N(purpose, TEXT, "i.purpose") \
	N(email, TEXT, "m.email") N(member_status, TEXT, "m.status") \
	N(usable, BOOL, "i.used_at IS NULL AND i.expires_at > NOW(6)")
struct invite_row { DB_FIELDS(INVITE_COLS) };
/* One struct invite_row; FB_ENOTFOUND when no link has this hash. */
enum fb_err db_invitation_by_token(struct db *, const unsigned char *hash,
	    struct dbrows *out) FB_WUR;
enum fb_err db_invitation_use(struct db *, const char *id) FB_WUR;

/*
 * Retention (formback-deliver): sessions and one-time links 30 days past
 * their expiry, sign-in failures a day old and no longer blocking;
 * 10,000 rows of each at most, autocommit.
 */
enum fb_err db_member_purge(struct db *) FB_WUR;

/* An API key as the admin API lists it (never its hash). */
#define APIKEY_COLS(F, N) F(id, TEXT, "k.id") N(kind, TEXT, "k.kind") \
	N(name, TEXT, "k.name") N(prefix, TEXT, "k.key_prefix") \
	N(scopes, TEXT, "k.scopes") N(member_id, TEXT, "k.member_id") \
	N(created_at, TIME, "k.created_at") N(revoked_at, TIME, "k.revoked_at") \
	N(last_used_at, TIME, "k.last_used_at")
struct apikey_row { DB_FIELDS(APIKEY_COLS) };
enum fb_err db_apikey_list(struct db *, const char *tenant, const char *before,
	    int n, struct dbrows *out) FB_WUR;
/* One struct apikey_row; FB_ENOTFOUND when none. */
enum fb_err db_apikey_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *out) FB_WUR;
enum fb_err db_apikey_name(struct db *, const char *id, const char *name) FB_WUR;
/* Stamp a key's last use, at most once a minute. */
enum fb_err db_apikey_used(struct db *, const char *id) FB_WUR;

/* An audit-log row as the admin API shows it. */
#define AUDIT_COLS(F, N) F(id, TEXT, "id") N(actor_type, TEXT, "actor_type") \
	N(actor_id, TEXT, "actor_id") N(request_id, TEXT, "request_id") \
	N(action, TEXT, "action") N(target_type, TEXT, "target_type") \
	N(target_id, TEXT, "target_id") N(detail, JSON, "detail") \
	N(created_at, TIME, "created_at")
struct audit_row { DB_FIELDS(AUDIT_COLS) };
enum fb_err db_audit_list(struct db *, const char *tenant, const char *before,
	    int n, struct dbrows *out) FB_WUR;

/* db/tenant.c: tenants, members, keys, sites, consent, delivery switch. */

enum fb_err db_tenant_create(struct db *, const char *id, const char *name,
	    const char *plan, int rate_limit /* <0: none */) FB_WUR;
/* FB_ENOTFOUND when no such tenant. */
enum fb_err db_tenant_exists(struct db *, const char *tenant) FB_WUR;
enum fb_err db_member_create(struct db *, const char *id, const char *tenant,
	    const char *email, const char *role) FB_WUR;
/* Set a member's status (active|suspended|deleted); FB_ENOTFOUND if none. */
enum fb_err db_member_set_status(struct db *, const char *id, const char *status,
	    char tenant_out[UUID_STRLEN + 1]) FB_WUR;
/*
 * The tenant, role and status (active|suspended|deleted) of member `id`,
 * FB_ENOTFOUND if none.
 */
enum fb_err db_member_tenant(struct db *, const char *id,
	    char tenant_out[UUID_STRLEN + 1], char *role_out, size_t rolesz,
	    char *status_out, size_t statussz) FB_WUR;
enum fb_err db_apikey_create(struct db *, const char *id, const char *tenant,
	    const char *member, const char *kind, const unsigned char *hash,
	    const char *prefix, const char *scopes) FB_WUR;
enum fb_err db_apikey_revoke(struct db *, const char *id,
	    char tenant_out[UUID_STRLEN + 1]) FB_WUR;
enum fb_err db_site_create(struct db *, const char *id, const char *tenant,
	    const char *name, const char *domain, const char *public_key) FB_WUR;
enum fb_err db_site_rename(struct db *, const char *tenant, const char *id,
	    const char *name) FB_WUR;

/* A site (contract: SiteOut): typed rows, see db.h. */
#define SITE_COLS(F, N) F(id, TEXT, "id") N(name, TEXT, "name") \
	N(domain, TEXT, "domain") N(public_key, TEXT, "public_key") \
	N(created_at, TIME, "created_at") N(updated_at, TIME, "updated_at") \
	N(sending_held_at, TIME, "sending_held_at")
struct site_row { DB_FIELDS(SITE_COLS) };
/* ... with the campaigns its snippets name: [{"id","key","name"}] or NULL */
struct site_snippets_row {
	struct site_row	 site;		/* first: its columns come first */
	const char	*snippet_campaigns;
};
/* The tenant of site `id` (operator path); FB_ENOTFOUND when none. */
enum fb_err db_site_tenant(struct db *, const char *id,
	    char tenant_out[UUID_STRLEN + 1]) FB_WUR;
/*
 * The tenant's sites newest first, after id `after` (NULL: from the top),
 * n rows max: rows of struct site_row.
 */
enum fb_err db_site_list(struct db *, const char *tenant, const char *after,
	    int n, struct dbrows *) FB_WUR;
/* One struct site_row; FB_ENOTFOUND when the site is not the tenant's. */
enum fb_err db_site_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *) FB_WUR;
/*
 * One struct site_snippets_row: the site and the campaigns that are not
 * archived, oldest first (kept by triggers, migration 0010), in one
 * look-up; FB_ENOTFOUND when the site is not the tenant's.
 */
enum fb_err db_site_with_campaigns(struct db *, const char *tenant,
	    const char *id, struct dbrows *) FB_WUR;

/* A tenant's consent settings (contract: Consent settings). */
#define CONSENT_COLS(F, N) \
	F(checkbox_enabled, BOOL, "consent_checkbox_enabled") \
	N(default_checked, BOOL, "consent_default_checked") \
	N(template_key, TEXT, "consent_template_key") \
	N(optout_link_enabled, BOOL, "consent_optout_link_enabled") \
	N(mode, TEXT, "consent_mode") N(optout_title, TEXT, "optout_title") \
	N(optout_body, TEXT, "optout_body") \
	N(optout_link_label, TEXT, "optout_link_label")
struct consent_row { DB_FIELDS(CONSENT_COLS) };
/* A change of the consent settings: NULL or -1 keeps a field. */
struct consent_patch {
	int		 checkbox, default_checked, optout_link;	/* 0, 1, -1 */
	const char	*template_key, *mode;
	const char	*optout_title, *optout_body, *optout_link_label;
};
enum fb_err db_consent_update(struct db *, const char *tenant,
	    const struct consent_patch *) FB_WUR;
/* One struct consent_row; FB_ENOTFOUND when the tenant has none. */
enum fb_err db_consent_get(struct db *, const char *tenant, struct dbrows *) FB_WUR;
/* The consent texts a tenant may pick from, in their order. */
#define CONSENT_TEMPLATE_COLS(F, N) F(key, TEXT, "template_key") \
	N(main, TEXT, "main") N(note, TEXT, "note")
struct consent_template_row { DB_FIELDS(CONSENT_TEMPLATE_COLS) };
enum fb_err db_consent_templates(struct db *, struct dbrows *) FB_WUR;

/* The delivery switch (contract: Delivery switch). */
#define DELIVERY_STATUS_COLS(F, N) F(mode, TEXT, "delivery_mode") \
	N(enabled_at, TIME, "delivery_enabled_at")
struct delivery_status_row { DB_FIELDS(DELIVERY_STATUS_COLS) };
/* One struct delivery_status_row; FB_ENOTFOUND when no such tenant. */
enum fb_err db_delivery_status(struct db *, const char *tenant,
	    struct dbrows *) FB_WUR;
enum fb_err db_delivery_switch(struct db *, const char *tenant, const char *mode) FB_WUR;
/* SMS quiet hours in minutes after midnight JST; start == end: none. */
enum fb_err db_tenant_quiet_hours(struct db *, const char *tenant, int start,
	    int end) FB_WUR;

/* db/campaign.c */

/* A campaign (contract: CampaignDetailOut, CampaignListItemOut). */
#define CAMPAIGN_COLS(F, N) F(id, TEXT, "c.id") N(site_id, TEXT, "c.site_id") \
	N(key, TEXT, "c.campaign_key") N(name, TEXT, "c.name") \
	N(product_name, TEXT, "c.product_name") N(status, TEXT, "c.status") \
	N(abandon_wait_minutes, INT, "c.abandon_wait_minutes") \
	N(created_at, TIME, "c.created_at") N(updated_at, TIME, "c.updated_at") \
	N(scenario_count, INT, "(SELECT COUNT(*) FROM scenarios s WHERE " \
	    "s.tenant_id = c.tenant_id AND s.campaign_id = c.id AND " \
	    "s.deleted_at IS NULL)") \
	N(active_scenario_count, INT, "(SELECT COUNT(*) FROM scenarios s WHERE " \
	    "s.tenant_id = c.tenant_id AND s.campaign_id = c.id AND " \
	    "s.deleted_at IS NULL AND s.status = 'active')")
struct campaign_row { DB_FIELDS(CAMPAIGN_COLS) };
/* FB_EDUP when the key is taken in this tenant. */
enum fb_err db_campaign_insert(struct db *, const char *id, const char *tenant,
	    const char *site, const char *key, const char *name,
	    const char *product, const char *status, long long wait) FB_WUR;
/* One struct campaign_row; FB_ENOTFOUND when it is not the tenant's. */
enum fb_err db_campaign_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *) FB_WUR;
/* Rows of struct campaign_row; filters may be NULL.  Newest first, n max. */
enum fb_err db_campaign_list(struct db *, const char *tenant, const char *site,
	    const char *status, const char *after, int n, struct dbrows *) FB_WUR;
/* Set status (operator/session path); FB_ENOTFOUND if none. */
enum fb_err db_campaign_set_status(struct db *, const char *id, const char *status,
	    char tenant_out[UUID_STRLEN + 1]) FB_WUR;

/* db/capture.c */

/*
 * Update a campaign's editable fields: NULL name, wait <= 0 leave them;
 * set_product false leaves product_name, true sets it (NULL clears).
 */
enum fb_err db_campaign_update(struct db *, const char *tenant, const char *id,
	    const char *name, bool set_product, const char *product,
	    long long wait) FB_WUR;
/* Whether the tenant has a campaign with this key. */
enum fb_err db_campaign_key_taken(struct db *, const char *tenant,
	    const char *key, bool *taken) FB_WUR;
/* Copy a campaign as `id` with key and name, paused and never run. */
enum fb_err db_campaign_copy(struct db *, const char *tenant, const char *from,
	    const char *id, const char *key, const char *name) FB_WUR;
/* Copy URL rules and the form profile of campaign `from` to `to`. */
enum fb_err db_campaign_copy_children(struct db *, const char *tenant,
	    const char *from, const char *to) FB_WUR;
/* A URL rule (contract: UrlRuleOut); priority -1 for none. */
#define URL_RULE_COLS(F, N) F(id, TEXT, "r.id") N(role, TEXT, "r.role") \
	N(match_type, TEXT, "r.match_type") N(pattern, TEXT, "r.pattern") \
	N(priority, INT, "COALESCE(r.priority, -1)") N(position, INT, "r.position")
struct url_rule_row { DB_FIELDS(URL_RULE_COLS) };
/* The campaign's rules in their order: rows of struct url_rule_row. */
enum fb_err db_url_rules(struct db *, const char *tenant, const char *campaign,
	    struct dbrows *) FB_WUR;
enum fb_err db_url_rules_delete(struct db *, const char *tenant,
	    const char *campaign) FB_WUR;
/* priority < 0: NULL */
enum fb_err db_url_rule_insert(struct db *, const char *tenant,
	    const char *campaign, int position, const char *role,
	    const char *type, const char *pattern, long priority) FB_WUR;
/*
 * A campaign's form profile (contract: FormProfileOut): selectors as JSON
 * arrays in text; all NULL when the campaign has none (detection auto).
 */
#define FORM_PROFILE_COLS(F, N) F(tel_selectors, TEXT, "p.tel_selectors") \
	N(email_selectors, TEXT, "p.email_selectors") \
	N(consent_selector, TEXT, "p.consent_selector") \
	N(tel_split_selectors, TEXT, "p.tel_split_selectors") \
	N(detected_by, TEXT, "p.detected_by") N(detected_at, TIME, "p.detected_at")
struct form_profile_row { DB_FIELDS(FORM_PROFILE_COLS) };
/* Zero or one struct form_profile_row. */
enum fb_err db_form_profile(struct db *, const char *tenant, const char *campaign,
	    struct dbrows *) FB_WUR;
enum fb_err db_form_profile_put(struct db *, const char *tenant,
	    const char *campaign, const char *tel_json, const char *email_json,
	    const char *consent, const char *split_json, const char *detected_by) FB_WUR;
/* A campaign a site publishes, with its form profile (design 2). */
#define PUBLISHED_CAMPAIGN_COLS(F, N) F(id, TEXT, "c.id") \
	N(key, TEXT, "c.campaign_key") N(status, TEXT, "c.status")
struct published_campaign_row {
	struct form_profile_row	 profile;	/* first: its columns come first */
	DB_FIELDS(PUBLISHED_CAMPAIGN_COLS)
};
/* The site's published campaigns, oldest first: struct published_campaign_row. */
enum fb_err db_published_campaigns(struct db *, const char *tenant,
	    const char *site, struct dbrows *) FB_WUR;
/* A rule of a published campaign (contract: MatchRuleOut). */
#define PUBLISHED_RULE_COLS(F, N) F(campaign_key, TEXT, "c.campaign_key") \
	N(campaign_id, TEXT, "c.id") N(role, TEXT, "r.role") \
	N(match_type, TEXT, "r.match_type") N(pattern, TEXT, "r.pattern") \
	N(priority, INT, "COALESCE(r.priority, -1)") N(position, INT, "r.position")
struct published_rule_row { DB_FIELDS(PUBLISHED_RULE_COLS) };
/*
 * Their rules in evaluation order (priority, none last; campaign;
 * position): rows of struct published_rule_row.
 */
enum fb_err db_published_rules(struct db *, const char *tenant, const char *site,
	    struct dbrows *) FB_WUR;
/* Record a publish: error NULL for success. */
enum fb_err db_site_published(struct db *, const char *tenant, const char *site,
	    const char *error) FB_WUR;
/* A campaign whose configuration the tag is given (design 2). */
#define DB_CAMPAIGN_PUBLISHED "(c.status = 'active' OR (c.status = 'paused' " \
	"AND c.first_activated_at IS NOT NULL))"
/*
 * A site, its tenant's consent mode, and the tenant's campaign of a key
 * (NULL campaign fields when none): what the collector files an event by.
 */
#define EVENT_CONTEXT_COLS(F, N) F(site_id, TEXT, "s.id") \
	N(tenant_id, TEXT, "s.tenant_id") N(domain, TEXT, "s.domain") \
	N(consent_mode, TEXT, "cs.consent_mode") N(campaign_id, TEXT, "c.id") \
	N(campaign_site_id, TEXT, "c.site_id") \
	N(campaign_status, TEXT, "c.status") \
	N(published, BOOL, DB_CAMPAIGN_PUBLISHED)
struct event_context_row { DB_FIELDS(EVENT_CONTEXT_COLS) };
/*
 * One struct event_context_row for the site with public key `pk`;
 * FB_ENOTFOUND for an unknown site.
 */
enum fb_err db_event_context(struct db *, const char *pk, const char *campaign_key,
	    struct dbrows *) FB_WUR;
/* The same, for the site with this id (the intake queue's events). */
enum fb_err db_event_context_site(struct db *, const char *site,
	    const char *campaign_key, struct dbrows *) FB_WUR;
/* Every site, across tenants (formbackctl publish). */
#define SITE_REF_COLS(F, N) F(tenant_id, TEXT, "tenant_id") N(id, TEXT, "id")
struct site_ref_row { DB_FIELDS(SITE_REF_COLS) };
enum fb_err db_sites_all(struct db *, struct dbrows *) FB_WUR;
/* A page a campaign handled. */
#define PAGE_COLS(F, N) F(url, TEXT, "url")
struct page_row { DB_FIELDS(PAGE_COLS) };
/*
 * The distinct page URLs the campaign handled in the last 30 days (1000
 * at most): rows of struct page_row.
 */
enum fb_err db_takeover_pages(struct db *, const char *tenant,
	    const char *campaign, struct dbrows *) FB_WUR;

/* db/lead.c */

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
	N(email_masked, TEXT, "l.email_masked") N(tel_masked, TEXT, "l.tel_masked") \
	N(pii_state, TEXT, "l.pii_state") N(tel_kind, TEXT, "l.tel_kind") \
	N(sms_capable, BOOL, "l.sms_capable") N(created_at, TIME, "l.created_at") \
	N(captured_at, TIME, "l.captured_at") N(abandoned_at, TIME, "l.abandoned_at") \
	N(converted_at, TIME, "l.converted_at") \
	N(conversion_source, TEXT, "l.conversion_source") \
	N(suppress_reason, TEXT, "l.suppress_reason")
#define LEAD_NAME_COLS(F, N) F(site_name, TEXT, "s.name") \
	N(site_domain, TEXT, "s.domain") N(campaign_key, TEXT, "c.campaign_key") \
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
#define TIMELINE_COLS(F, N) F(type, TEXT, "e.event_type") N(role, TEXT, "e.role") \
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
enum fb_err db_lead_list(struct db *, const char *tenant, const struct lead_filter *,
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
	const char	*at;		/* received, "YYYY-MM-DD HH:MM:SS[.ffffff]" UTC; NULL: now */
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

/* What a capture stores: sealed contacts, blind indexes, masks only. */
struct lead_contact {
	const char		*consent_state, *session;
	const unsigned char	*email_sealed, *email_bidx;
	size_t			 email_sealed_len;
	const char		*email_masked;
	const unsigned char	*tel_sealed, *tel_bidx;
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
	N(tenant_id, TEXT, "l.tenant_id") N(campaign_id, TEXT, "l.campaign_id") \
	N(site_id, TEXT, "l.site_id")
struct lead_owner_row { DB_FIELDS(LEAD_OWNER_COLS) };
/* The visitor's unfinished leads on the site, locked: struct lead_owner_row. */
enum fb_err db_leads_of_visitor(struct db *, const char *tenant,
	    const char *site, const char *visitor, struct dbrows *) FB_WUR;
/* Unfinished leads sharing a contact with `lead`, locked: struct lead_owner_row. */
enum fb_err db_leads_of_contact(struct db *, const char *tenant, const char *lead,
	    struct dbrows *) FB_WUR;
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
enum fb_err db_ingest_lock(struct db *, unsigned part, bool wait, bool *held) FB_WUR;
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
	    const char *const *ids, size_t n, long long now, bool taken[]) FB_WUR;
/*
 * One struct lead_owner_row; FB_ENOTFOUND when none.  Across tenants:
 * formbackctl's operator path, which names a lead by its id alone.
 */
enum fb_err db_lead_owner(struct db *, const char *id, struct dbrows *) FB_WUR;

/* db/scenario.c: scenarios, steps, messages, presets, examples. */

/* A message (contract: Message); sms_segments -1 for none. */
#define MESSAGE_COLS(F, N) F(id, TEXT, "id") N(channel, TEXT, "channel") \
	N(subject, TEXT, "subject") N(body, TEXT, "body") \
	N(has_body_html, BOOL, "body_html IS NOT NULL") \
	N(body_html, TEXT, "body_html") \
	N(header_image_url, TEXT, "header_image_url") \
	N(link_url, TEXT, "link_url") N(link_params, TEXT, "link_params") \
	N(blocks, TEXT, "blocks") \
	N(sms_segments, INT, "COALESCE(sms_segments, -1)") \
	N(created_at, TIME, "created_at") N(updated_at, TIME, "updated_at")
struct message_row { DB_FIELDS(MESSAGE_COLS) };
/*
 * A message's editable fields as written (NULL for SQL NULL; link_params
 * and blocks JSON text); sms_segments < 0 for none.
 */
struct message_fields {
	const char	*channel, *subject, *body, *header_image_url, *link_url;
	const char	*link_params, *blocks;
	const char	*body_html;	/* as html_sanitize() wrote it */
	long long	 sms_segments;
};
enum fb_err db_message_insert(struct db *, const char *tenant, const char *id,
	    const struct message_fields *) FB_WUR;
/* Every editable field of the tenant's message `id` at once. */
enum fb_err db_message_update(struct db *, const char *tenant, const char *id,
	    const struct message_fields *) FB_WUR;
/* One struct message_row; FB_ENOTFOUND when it is not the tenant's. */
enum fb_err db_message_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *) FB_WUR;
/* Rows of struct message_row, newest first, n max; channel NULL: any. */
enum fb_err db_message_list(struct db *, const char *tenant, const char *channel,
	    const char *after, int n, struct dbrows *) FB_WUR;
/* FB_EDB when steps of deleted scenarios still name it. */
enum fb_err db_message_delete(struct db *, const char *tenant, const char *id) FB_WUR;
/* Whether a step of a scenario that is not deleted sends it. */
enum fb_err db_message_in_use(struct db *, const char *tenant, const char *id,
	    bool *in_use) FB_WUR;
/* Copy the tenant's message `from` as `id`. */
enum fb_err db_message_copy(struct db *, const char *tenant, const char *from,
	    const char *id) FB_WUR;

/* A scenario (contract: Scenario); abandon_wait_minutes -1 for none. */
#define SCENARIO_COLS(F, N) F(id, TEXT, "id") N(campaign_id, TEXT, "campaign_id") \
	N(name, TEXT, "name") N(status, TEXT, "status") \
	N(abandon_wait_minutes, INT, "COALESCE(abandon_wait_minutes, -1)") \
	N(created_at, TIME, "created_at") N(updated_at, TIME, "updated_at")
struct scenario_row { DB_FIELDS(SCENARIO_COLS) };
/* A new draft (contract: States, Scenario); wait < 0: none. */
enum fb_err db_scenario_insert(struct db *, const char *tenant, const char *id,
	    const char *campaign, const char *name, long long wait) FB_WUR;
/* One struct scenario_row not deleted; FB_ENOTFOUND when not the tenant's. */
enum fb_err db_scenario_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *) FB_WUR;
/* The campaign's scenarios, oldest first: rows of struct scenario_row. */
enum fb_err db_scenario_list(struct db *, const char *tenant,
	    const char *campaign, struct dbrows *) FB_WUR;
/* name NULL keeps it; with set_wait, wait is set (< 0: none). */
enum fb_err db_scenario_update(struct db *, const char *tenant, const char *id,
	    const char *name, bool set_wait, long long wait) FB_WUR;
/* Delete its steps and mark it deleted. */
enum fb_err db_scenario_delete(struct db *, const char *tenant, const char *id) FB_WUR;
enum fb_err db_scenario_set_status(struct db *, const char *tenant,
	    const char *id, const char *status) FB_WUR;
/* The tenant of a scenario not deleted (operator path); FB_ENOTFOUND. */
enum fb_err db_scenario_tenant(struct db *, const char *id,
	    char tenant_out[UUID_STRLEN + 1]) FB_WUR;
/* Another scenario, as a check names it. */
#define SCENARIO_REF_COLS(F, N) F(id, TEXT, "s.id") \
	N(campaign_id, TEXT, "s.campaign_id") N(name, TEXT, "s.name")
struct scenario_ref_row { DB_FIELDS(SCENARIO_REF_COLS) };
/* The campaign's active scenarios other than `scenario`, locked. */
enum fb_err db_scenario_other_active(struct db *, const char *tenant,
	    const char *campaign, const char *scenario, struct dbrows *) FB_WUR;
/* The active scenarios with a step that sends message `message`. */
enum fb_err db_scenario_active_using(struct db *, const char *tenant,
	    const char *message, struct dbrows *) FB_WUR;

/* A step (contract: ScenarioStep); position from 0. */
#define STEP_COLS(F, N) F(id, TEXT, "st.id") N(position, INT, "st.position") \
	N(message_id, TEXT, "st.message_id") \
	N(delay_minutes, INT, "st.delay_minutes") N(channel, TEXT, "m.channel")
struct step_row { DB_FIELDS(STEP_COLS) };
/* The scenario's steps in order: rows of struct step_row. */
enum fb_err db_steps_list(struct db *, const char *tenant, const char *scenario,
	    struct dbrows *) FB_WUR;
enum fb_err db_step_insert(struct db *, const char *tenant, const char *id,
	    const char *scenario, long long position, const char *message,
	    long long delay) FB_WUR;
/* The step at `position` keeps its id (and its deliveries). */
enum fb_err db_step_update(struct db *, const char *tenant, const char *scenario,
	    long long position, const char *message, long long delay) FB_WUR;
/* Remove the steps at `from` and after. */
enum fb_err db_steps_trim(struct db *, const char *tenant, const char *scenario,
	    long long from) FB_WUR;
/* What activation checks of each step's message, in step order. */
#define STEP_MESSAGE_COLS(F, N) F(position, INT, "st.position") \
	N(channel, TEXT, "m.channel") N(subject, TEXT, "m.subject") \
	N(body, TEXT, "m.body") N(blocks, TEXT, "m.blocks") \
	N(has_body_html, BOOL, "m.body_html IS NOT NULL")
struct step_message_row { DB_FIELDS(STEP_MESSAGE_COLS) };
enum fb_err db_step_messages(struct db *, const char *tenant,
	    const char *scenario, struct dbrows *) FB_WUR;

/* A scenario preset (contract: ScenarioPreset); steps as JSON text. */
#define PRESET_COLS(F, N) F(key, TEXT, "preset_key") N(name, TEXT, "name") \
	N(description, TEXT, "description") N(steps, TEXT, "steps")
struct preset_row { DB_FIELDS(PRESET_COLS) };
/* The presets in order, or the one of `key` (NULL: all). */
enum fb_err db_presets(struct db *, const char *key, struct dbrows *) FB_WUR;
/* A message example (contract: MessageExample); blocks as JSON text. */
#define EXAMPLE_COLS(F, N) F(key, TEXT, "example_key") \
	N(channel, TEXT, "channel") N(position, INT, "position") \
	N(delay_minutes, INT, "delay_minutes") N(label, TEXT, "label") \
	N(body, TEXT, "body") N(subject, TEXT, "subject") N(blocks, TEXT, "blocks")
struct example_row { DB_FIELDS(EXAMPLE_COLS) };
/* The examples in order, of `channel` and `key` (NULL: any). */
enum fb_err db_examples(struct db *, const char *channel, const char *key,
	    struct dbrows *) FB_WUR;
/* The tenant's plan (PLAN_FREE when unknown). */
enum fb_err db_tenant_plan(struct db *, const char *tenant, enum plan *) FB_WUR;

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
	N(email_sealed, BIN, "l.email_sealed") N(tel_sealed, BIN, "l.tel_sealed") \
	N(email_bidx, BIN, "l.email_bidx") N(tel_bidx, BIN, "l.tel_bidx") \
	N(sms_capable, BOOL, "l.sms_capable") N(pii_key_id, INT, "l.pii_key_id") \
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
	bool			 attempt_begun;	/* its provider call had begun */
};
/* Up to 1000 struct stale_row whose lease ended before `at`, by id. */
enum fb_err db_deliveries_stale(struct db *, const char *at,
	    struct dbrows *out) FB_WUR;

/* The outcome of a claimed delivery (contract: Delivery). */
struct delivery_outcome {
	const char	*id, *token;	/* the delivery and the claim */
	const char	*status;	/* sent, failed, cancelled, suppressed, scheduled */
	const char	*error_code, *cancel_reason;	/* or NULL */
	const char	*at;		/* SQL DATETIME: sent_at when sent */
	const char	*provider_id;	/* or NULL */
	int		 segments;	/* SMS parts; 0: unknown */
	const char	*reschedule;	/* SQL DATETIME when scheduled again, or NULL */
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
enum fb_err db_lead_sent(struct db *, const char *tenant, const char *lead) FB_WUR;
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
	    bool create, long long *sends, int *notified_pct, bool *found) FB_WUR;
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
enum fb_err db_tenant_quota(struct db *, const char *tenant, long long quota) FB_WUR;

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
enum fb_err db_test_recipient_add(struct db *, const char *id, const char *tenant,
	    const char *kind, const struct dbbin *bidx, const char *masked,
	    const struct dbbin *sealed, int key_id, bool confirmed) FB_WUR;
/* The removed struct test_recipient_row (none when there was none). */
enum fb_err db_test_recipient_delete(struct db *, const char *tenant,
	    const char *kind, const struct dbbin *bidx, struct dbrows *out) FB_WUR;
/* Whether kind's contact of blind index `bidx` is a test recipient. */
enum fb_err db_test_recipient_is(struct db *, const char *tenant,
	    const char *kind, const struct dbbin *bidx, bool *yes) FB_WUR;

/*
 * db/testsend.c: test recipients members add and confirm, and test sends
 * (migration 0021; issue 16).
 */
/* One struct test_recipient_row of the tenant; FB_ENOTFOUND when none. */
enum fb_err db_test_recipient_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *out) FB_WUR;
enum fb_err db_test_recipient_remove(struct db *, const char *tenant,
	    const char *id, bool *found) FB_WUR;
/* The code check of a recipient, locked. */
#define RCPT_CODE_COLS(F, N) F(code_hash, BIN, "code_hash") \
	N(tries, INT, "code_tries") \
	N(live, BOOL, "code_sent_at > NOW(6) - INTERVAL 30 MINUTE") \
	N(confirmed, BOOL, "confirmed_at IS NOT NULL")
struct rcpt_code_row { DB_FIELDS(RCPT_CODE_COLS) };
enum fb_err db_test_recipient_code(struct db *, const char *tenant, const char *id,
	    struct dbrows *out) FB_WUR;
/* A wrong code: one more try counted. */
enum fb_err db_test_recipient_try(struct db *, const char *id) FB_WUR;
enum fb_err db_test_recipient_confirm(struct db *, const char *id) FB_WUR;
/* A recipient to send a code to, or one a test send goes to. */
#define RCPT_SEND_COLS(F, N) F(id, TEXT, "id") N(tenant_id, TEXT, "tenant_id") \
	N(kind, TEXT, "kind") N(sealed, BIN, "contact_sealed") \
	N(key_id, INT, "COALESCE(pii_key_id, 0)")
struct rcpt_send_row { DB_FIELDS(RCPT_SEND_COLS) };
/* Up to 20 recipients waiting for their code, locked, no other pass's. */
enum fb_err db_test_recipient_code_claim(struct db *, struct dbrows *out) FB_WUR;
enum fb_err db_test_recipient_code_sent(struct db *, const char *id,
	    const unsigned char *hash) FB_WUR;
/* The tenant's confirmed recipients of `kind` that a test send can reach. */
enum fb_err db_test_recipients_reachable(struct db *, const char *tenant,
	    const char *kind, struct dbrows *out) FB_WUR;
/* A test send (TestSendOut). */
#define TEST_SEND_COLS(F, N) F(id, TEXT, "t.id") N(message_id, TEXT, "t.message_id") \
	N(recipient_id, TEXT, "t.recipient_id") \
	N(masked, TEXT, "(SELECT r.masked FROM test_recipients r WHERE r.id = t.recipient_id)") \
	N(status, TEXT, "t.status") N(error, TEXT, "t.error") \
	N(sent_at, TIME, "t.sent_at") N(created_at, TIME, "t.created_at")
struct test_send_row { DB_FIELDS(TEST_SEND_COLS) };
enum fb_err db_test_send_add(struct db *, const char *id, const char *tenant,
	    const char *message, const char *recipient, const char *member) FB_WUR;
enum fb_err db_test_send_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *out) FB_WUR;
enum fb_err db_test_send_list(struct db *, const char *tenant, const char *before,
	    int n, struct dbrows *out) FB_WUR;
/* A pending test send with its message and recipient, for the sender. */
#define TEST_SEND_JOB_COLS(F, N) F(id, TEXT, "t.id") \
	N(tenant_id, TEXT, "t.tenant_id") N(recipient_id, TEXT, "t.recipient_id") \
	N(kind, TEXT, "r.kind") N(sealed, BIN, "r.contact_sealed") \
	N(key_id, INT, "COALESCE(r.pii_key_id, 0)") N(channel, TEXT, "m.channel") \
	N(subject, TEXT, "m.subject") N(body, TEXT, "m.body") N(blocks, TEXT, "m.blocks") \
	N(body_html, TEXT, "m.body_html")
struct test_send_job_row { DB_FIELDS(TEST_SEND_JOB_COLS) };
/* Up to 20 pending test sends, locked, no other pass's. */
enum fb_err db_test_send_claim(struct db *, struct dbrows *out) FB_WUR;
enum fb_err db_test_send_done(struct db *, const char *id, bool sent,
	    const char *error) FB_WUR;

/* db/ops.c: what an operator watches (formbackctl status, the metrics). */
/* A queue: its due rows, the oldest one's due time and its age. */
#define QUEUE_COLS(F, N) F(name, TEXT, "name") N(depth, INT, "depth") \
	N(oldest, TIME, "oldest") N(age, INT, "age")
struct queue_row { DB_FIELDS(QUEUE_COLS) };
/* The queues: intake, deliveries, webhooks, outbox, test_sends. */
enum fb_err db_ops_queues(struct db *, struct dbrows *out) FB_WUR;
/* A cron job's last pass (migration 0022). */
#define CRON_PASS_COLS(F, N) F(job, TEXT, "job") N(host, TEXT, "host") \
	N(started_at, TIME, "started_at") N(finished_at, TIME, "finished_at") \
	N(outcome, TEXT, "outcome") N(items, INT, "items") \
	N(left_items, INT, "left_items") \
	N(last_ok_at, TIME, "last_ok_at") \
	N(age, INT, "TIMESTAMPDIFF(SECOND, finished_at, NOW(6))") \
	N(failures_hour, INT, "IF(hour_start = DATE_FORMAT(NOW(), '%Y-%m-%d %H:00:00'), " \
	    "failures_hour, 0)")
struct cron_pass_row { DB_FIELDS(CRON_PASS_COLS) };
enum fb_err db_ops_jobs(struct db *, struct dbrows *out) FB_WUR;
/*
 * Record a job's pass (started: unix seconds; items done, and left for
 * the next pass), autocommit.
 */
enum fb_err db_cron_pass(struct db *, const char *job, const char *host,
	    long long started, bool ok, long long items, long long left) FB_WUR;
/*
 * The database settings Formback needs (formbackctl check-db; issue 19):
 * one row per check, its setting's name, the value seen, whether it is
 * fine, and the fix.  Tables InnoDB with a primary key (Galera replicates
 * nothing else), the binary log's needs (binlog_format ROW; the triggers
 * of migration 0010 need log_bin_trust_function_creators or SUPER), the
 * isolation level, Galera's (innodb_autoinc_lock_mode 2, a node synced in
 * the primary component), the database's character set.
 */
#define DB_CHECK_COLS(F, N) F(name, TEXT, "name") N(value, TEXT, "value") \
	N(ok, BOOL, "ok") N(fix, TEXT, "fix")
struct db_check_row { DB_FIELDS(DB_CHECK_COLS) };
enum fb_err db_check_settings(struct db *, struct dbrows *out) FB_WUR;

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
enum fb_err db_link_get(struct db *, const char *token, struct dbrows *out) FB_WUR;
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
	N(created_at, TIME, "d.created_at") N(cancel_reason, TEXT, "d.cancel_reason") \
	N(error_code, TEXT, "d.error_code") N(segments, TEXT, "d.segments")
struct delivery_row { DB_FIELDS(DELIVERY_COLS) };
struct delivery_filter {
	const char	*status, *campaign, *scenario;	/* NULL: any */
	struct date_range range;	/* 0 created_at, 1 scheduled_at, 2 sent_at */
};
/* Rows of struct delivery_row, newest first, n max. */
enum fb_err db_delivery_list(struct db *, const char *tenant,
	    const struct delivery_filter *, const char *after, int n,
	    struct dbrows *) FB_WUR;
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
	const unsigned char *bidx;	/* the contact's blind index, or NULL */
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
	const unsigned char	*bidx;		/* PII_BIDXBYTES */
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
	N(tel_masked, TEXT, "tel_masked")
struct contact_key_row { DB_FIELDS(CONTACT_KEY_COLS) };
/* One struct contact_key_row; FB_ENOTFOUND when it is not the tenant's. */
enum fb_err db_lead_contact_keys(struct db *, const char *tenant, const char *lead,
	    struct dbrows *) FB_WUR;
/* Cancel the lead's scheduled deliveries: opted_out. */
enum fb_err db_optout_cancel(struct db *, const char *tenant, const char *lead) FB_WUR;

/*
 * The delivery a provider's receipt names, by its id (the reference we
 * sent) or the provider's message id, locked, with its lead's contact
 * keys.  Across tenants: a receipt names no tenant, and the provider's
 * id is ours only for deliveries we sent.
 */
#define RECEIPT_COLS(F, N) F(id, TEXT, "d.id") N(tenant_id, TEXT, "d.tenant_id") \
	N(lead_id, TEXT, "d.lead_id") N(channel, TEXT, "d.channel") \
	N(status, TEXT, "d.status") N(campaign_id, TEXT, "d.campaign_id") \
	N(step_no, TEXT, "d.step_no") N(email_bidx, BIN, "l.email_bidx") \
	N(email_masked, TEXT, "l.email_masked") N(tel_bidx, BIN, "l.tel_bidx") \
	N(tel_masked, TEXT, "l.tel_masked")
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

/* db/migrate.c */

/*
 * Apply every db/migrations/NNNN_*.sql in `dir` not yet recorded in
 * schema_migrations, in order, each in its own transaction with its
 * record.  `applied` receives a JSON array of the applied versions and
 * `current` the newest version.  Errors are logged and returned.
 */
/* The newest migration applied ("0021"), "" when none. */
enum fb_err db_schema_version(struct db *, char out[16]) FB_WUR;
enum fb_err db_migrate(struct db *, const char *dir, json_object *applied,
	    char current[16]) FB_WUR;

/*
 * db/flood.c: the public collector's abuse limits (issue 11; migrations
 * 0014, 0034; formback.fcgi(8) "Abuse limits") and the quarantine of a
 * flood's leads (issue 40).
 *
 * One pooled counter of the hour (UTC) of a source on `site` (key: a
 * client address, the IPv4 address or the /64 of an IPv6 one; or its
 * network, the /24 or /48): the batch adds `events` and `captures`
 * (with a contact, taken far from the limit: tag/collect.c).
 */
struct flood_row {
	const char		*site;
	const char		*hour;		/* "YYYY-MM-DD HH:00:00" */
	const unsigned char	*key;
	size_t			 keylen;	/* at most 16 */
	int			 events, captures;
	long long		 events_total;	/* out: after */
	long long		 captures_total;	/* out: pooled shards' */
};
#define FLOOD_ROWS_MAX	INGEST_ADD_MAX
/*
 * Add n counts (1 .. FLOOD_ROWS_MAX, each key once) to shard `shard`
 * (mod FLOOD_SHARDS: one per worker, so that workers do not queue on one
 * row lock), autocommitted, then read each counter's hour over every
 * shard, every worker's and host's, into events_total and
 * captures_total (the exact count's shard left out of the latter).
 */
#define FLOOD_SHARDS	32
enum fb_err db_tag_flood_count(struct db *, unsigned shard, struct flood_row *,
	    size_t n) FB_WUR;
/*
 * The exact count of captures with a contact of a source (a client
 * address, or its /24 or /48 network: keys of 4, 8, 3 and 6 bytes) on a
 * site in the current UTC hour of the database's clock, one counter row
 * for every worker and host: n counters (1 .. FLOOD_EXACT_MAX, each key
 * once, in the order of flood_exact_cmp(), so that two transactions lock
 * them in the same order) add `add` in one statement of the caller's
 * transaction, whose end releases their row locks; `total` is each one's
 * count after, *hour ("YYYY-MM-DD HH:00:00") the hour counted.
 */
struct flood_exact {
	const char		*site;
	const unsigned char	*key;
	size_t			 keylen;	/* at most 16 */
	long long		 add;
	long long		 total;		/* out */
};
#define FLOOD_EXACT_MAX	16
int	flood_exact_cmp(const void *, const void *);
enum fb_err db_tag_flood_exact(struct db *, struct flood_exact *, size_t n,
	    char hour[20]) FB_WUR;
/*
 * Drop the counters of hours before the last and the flood_sources rows
 * a day old (formback-abandon).
 */
enum fb_err db_tag_flood_prune(struct db *, unsigned long long *removed) FB_WUR;
/*
 * n more new leads of `site` in the UTC hour `hour` ("YYYY-MM-DD
 * HH:00:00"), n < 0 for fewer (never under 0): that hour's count after
 * them in *leads.  The row stays locked until the caller's transaction
 * ends.
 */
enum fb_err db_site_leads_add(struct db *, const char *site, const char *hour,
	    long long n, long long *leads) FB_WUR;
/* The busiest hour of `site` in the 7 days before `hour`, in *busiest. */
enum fb_err db_site_leads_busiest(struct db *, const char *site, const char *hour,
	    long long *busiest) FB_WUR;
/*
 * Release a site of `tenant` whose sending 0014's hold stopped (nothing
 * holds a site since 0034); with `discard`, first suppress the
 * unfinished leads captured from the hour before the hold on
 * (suppress_reason lead_ineligible) and their scheduled deliveries, their
 * count in *discarded.  *released false when the site was not held.
 */
enum fb_err db_site_release(struct db *, const char *tenant, const char *site,
	    bool discard, bool *released, unsigned long long *discarded) FB_WUR;
/* Is `host` (lower case) or one of its parent domains a site's domain? */
enum fb_err db_site_domain_known(struct db *, const char *host, bool *known) FB_WUR;

/*
 * A source of an hour's leads on a site (migration 0034): its kind
 * ("address", "network", "visitor", "site") and key (src: a keyed hash
 * of the address or network, PII_BIDXBYTES; a visitor's id; nothing for
 * the site).  Borrowed.
 */
struct flood_src {
	const char		*tenant, *site;
	const char		*hour;		/* "YYYY-MM-DD HH:00:00", UTC */
	const char		*kind;
	const unsigned char	*src;
	size_t			 srclen;	/* at most 40 */
};
/*
 * The batch of source s, made (quarantined) with id `id`, `shown` (NULL
 * for the site) and `threshold` unless there is one: *made says which;
 * *id_out the batch's id either way.  In the caller's transaction.
 */
enum fb_err db_flood_batch_make(struct db *, const struct flood_src *s,
	    const char *id, const char *shown, long long threshold, bool *made,
	    char id_out[UUID_STRLEN + 1]) FB_WUR;
/*
 * Is batch `id` still quarantined?  Its row share-locked until the
 * caller's transaction ends, so that no release or discard comes
 * between this answer and the leads it puts in the batch.
 */
enum fb_err db_flood_batch_open(struct db *, const char *id, bool *open) FB_WUR;
/* n more leads in batch `id`. */
enum fb_err db_flood_batch_count(struct db *, const char *id,
	    long long n) FB_WUR;
/*
 * flood_sources: source s's row (kind address, network or visitor)
 * points at batch `id` unless it points at one already; locked until the
 * caller's transaction ends.
 */
enum fb_err db_flood_source_mark(struct db *, const struct flood_src *s,
	    const char *id) FB_WUR;
/*
 * n rows of flood_sources (1 .. FLOOD_SOURCES_MAX, each once, in one
 * order for every transaction) with `captures` more each, locked until
 * the caller's transaction ends: quarantine_id the batch each row points
 * at, "" for none.
 */
#define FLOOD_SOURCES_MAX	16
struct flood_source_add {
	struct flood_src	 s;
	long long		 captures;
	char			 quarantine_id[UUID_STRLEN + 1];	/* out */
};
enum fb_err db_flood_sources_add(struct db *, struct flood_source_add *,
	    size_t n) FB_WUR;
/*
 * Put source s's unfinished leads (captured, abandoned, queued, sent)
 * first captured in its hour that are in no batch into batch `id`
 * (kind address, network or visitor; *n how many).
 */
enum fb_err db_flood_source_leads(struct db *, const struct flood_src *s,
	    const char *id, unsigned long long *n) FB_WUR;
/*
 * Put leads ids[0 .. n) of `tenant` (1 .. FLOOD_LEADS_MAX, borrowed)
 * that are in no batch into batch `id`; *put how many.
 */
#define FLOOD_LEADS_MAX	16
enum fb_err db_flood_leads_put(struct db *, const char *tenant, const char *id,
	    const char *const *ids, size_t n, unsigned long long *put) FB_WUR;
/* A quarantine batch as the admin API and formbackctl show it. */
#define FLOOD_BATCH_COLS(F, N) F(id, TEXT, "q.id") \
	N(site_id, TEXT, "q.site_id") N(domain, TEXT, "s.domain") \
	N(kind, TEXT, "q.kind") N(source, TEXT, "q.source") \
	N(hour, TIME, "q.hour") N(threshold, INT, "q.threshold") \
	N(leads, INT, "q.leads") N(status, TEXT, "q.status") \
	N(decided_at, TIME, "q.decided_at") N(created_at, TIME, "q.created_at")
struct flood_batch_row { DB_FIELDS(FLOOD_BATCH_COLS) };
/*
 * Up to n of the tenant's batches with ids before `before` (NULL: from
 * the newest), newest first; only those of `status` unless NULL.
 */
enum fb_err db_flood_batch_list(struct db *, const char *tenant,
	    const char *status, const char *before, int n,
	    struct dbrows *) FB_WUR;
/* One struct flood_batch_row; FB_ENOTFOUND when none. */
enum fb_err db_flood_batch_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *) FB_WUR;
/* The tenant of batch `id` (the operator's path); FB_ENOTFOUND when none. */
enum fb_err db_flood_batch_tenant(struct db *, const char *id,
	    char tenant[UUID_STRLEN + 1]) FB_WUR;
/*
 * Decide a quarantined batch of `tenant`, in the caller's transaction:
 * release puts its leads back in the normal flow (judged and sent as
 * their times say, counted in their site's hour again); discard
 * suppresses its unfinished leads (lead_ineligible) and their scheduled
 * deliveries.  *decided false when it is not quarantined (any more);
 * *n the leads released or suppressed.
 */
enum fb_err db_flood_batch_decide(struct db *, const char *tenant,
	    const char *id, bool release, bool *decided,
	    unsigned long long *n) FB_WUR;

/*
 * Webhooks (db/webhook.c; contract: Webhook endpoints, Events; issue 14).
 * An endpoint as the API shows it (WebhookEndpointOut): never the secret.
 */
#define WEBHOOK_ENDPOINT_COLS(F, N) F(id, TEXT, "id") N(url, TEXT, "url") \
	N(events, JSON, "events") N(status, TEXT, "status") \
	N(disabled_reason, TEXT, "disabled_reason") \
	N(disabled_at, TIME, "disabled_at") \
	N(consecutive_failures, INT, "consecutive_failures") \
	N(failing_since, TIME, "failing_since") \
	N(paused_until, TIME, "IF(pause_trips > 0, paused_until, NULL)") \
	N(last_success_at, TIME, "last_success_at") \
	N(last_failure_at, TIME, "last_failure_at") \
	N(created_at, TIME, "created_at")
struct webhook_endpoint_row { DB_FIELDS(WEBHOOK_ENDPOINT_COLS) };
/* One delivery record (WebhookDeliveryOut). */
#define WEBHOOK_DELIVERY_COLS(F, N) F(id, TEXT, "d.id") \
	N(endpoint_id, TEXT, "d.endpoint_id") N(event_id, TEXT, "d.event_id") \
	N(event_type, TEXT, "d.event_type") \
	N(redelivery_of, TEXT, "d.redelivery_of") N(status, TEXT, "d.status") \
	N(attempts, INT, "d.attempts") N(next_attempt_at, TIME, "d.next_attempt_at") \
	N(response_status, NINT, "d.response_status") N(error, TEXT, "d.error") \
	N(last_attempt_at, TIME, "d.last_attempt_at") \
	N(created_at, TIME, "d.created_at")
struct webhook_delivery_row { DB_FIELDS(WEBHOOK_DELIVERY_COLS) };

/* Endpoints of the tenant not deleted (the plan's cap counts them). */
enum fb_err db_webhook_endpoint_count(struct db *, const char *tenant,
	    long long *n) FB_WUR;
/* A new endpoint; events is a JSON array, the secret sealed (pii_seal). */
enum fb_err db_webhook_endpoint_add(struct db *, const char *id,
	    const char *tenant, const char *url, const char *events,
	    const unsigned char *sealed, size_t sealed_len, unsigned key_id) FB_WUR;
/* Rows of struct webhook_endpoint_row, newest first, n max, ids < after. */
enum fb_err db_webhook_endpoint_list(struct db *, const char *tenant,
	    const char *after, int n, struct dbrows *) FB_WUR;
/* One struct webhook_endpoint_row; FB_ENOTFOUND when not the tenant's. */
enum fb_err db_webhook_endpoint_get(struct db *, const char *tenant,
	    const char *id, struct dbrows *) FB_WUR;
/* Delete (mark deleted) an endpoint; *found false when there was none. */
enum fb_err db_webhook_endpoint_delete(struct db *, const char *tenant,
	    const char *id, bool *found) FB_WUR;
/* Rows of struct webhook_delivery_row of an endpoint, newest first. */
enum fb_err db_webhook_delivery_list(struct db *, const char *tenant,
	    const char *endpoint, const char *after, int n, struct dbrows *) FB_WUR;
/* One struct webhook_delivery_row; FB_ENOTFOUND when not the tenant's. */
enum fb_err db_webhook_delivery_get(struct db *, const char *tenant,
	    const char *id, struct dbrows *) FB_WUR;
/*
 * The status of the endpoint of delivery `id` ("enabled", "disabled")
 * into status (16 bytes); FB_ENOTFOUND when the delivery is not the
 * tenant's or its endpoint was deleted.
 */
enum fb_err db_webhook_delivery_endpoint_status(struct db *, const char *tenant,
	    const char *id, char status[16]) FB_WUR;
/* A new pending record `id` of delivery `of`'s event, due at once. */
enum fb_err db_webhook_redeliver(struct db *, const char *tenant,
	    const char *of, const char *id) FB_WUR;

/* formback-webhooks (cron-webhooks.c) */

/* An outbox event of topic webhook not yet fanned out. */
#define WEBHOOK_EVENT_COLS(F, N) F(id, TEXT, "id") N(tenant_id, TEXT, "tenant_id") \
	N(event_type, TEXT, "event_type") N(payload, TEXT, "payload") \
	N(created_at, TIME, "created_at")
struct webhook_event_row { DB_FIELDS(WEBHOOK_EVENT_COLS) };
/* outbox events a fan-out transaction takes */
#define WEBHOOK_FANOUT_MAX	100
/*
 * Up to n (at most WEBHOOK_FANOUT_MAX) of the tenant's unprocessed
 * events, by id (UUIDv7: oldest first), locked (SKIP LOCKED).
 */
enum fb_err db_webhook_events_claim(struct db *, const char *tenant, int n,
	    struct dbrows *) FB_WUR;
/*
 * Up to `limit` tenants (struct key_row) with events to fan out, the
 * oldest event first: formback-webhooks' turns of the fan-out.
 */
enum fb_err db_webhook_fan_tenants(struct db *, int limit,
	    struct dbrows *) FB_WUR;
/*
 * The endpoints subscribed to an event when it happened: struct key_row,
 * their ids.
 */
enum fb_err db_webhook_subscribers(struct db *, const char *tenant,
	    const char *type, const char *at, struct dbrows *) FB_WUR;
/*
 * A pending delivery record of an event to an endpoint, due `due` (SQL
 * datetime; NULL: now, the database's clock).  Borrowed.
 */
struct webhook_record {
	const char	*id, *tenant, *endpoint, *event, *type, *body, *due;
};
/* Records r[0 .. n) (any n), a statement per DB_MULTI_MAX of them. */
enum fb_err db_webhook_deliveries_add(struct db *,
	    const struct webhook_record *r, size_t n) FB_WUR;
/*
 * Mark outbox events ids[0 .. n-1] (borrowed, 1 <= n <=
 * WEBHOOK_FANOUT_MAX) fanned out, in one statement; FB_EINVAL for any
 * other n.
 */
enum fb_err db_webhook_events_done(struct db *, const char *const *ids,
	    size_t n) FB_WUR;
/* A claimed send: the record, its body and its endpoint's URL and secret. */
#define WEBHOOK_SEND_COLS(F, N) F(id, TEXT, "d.id") \
	N(tenant_id, TEXT, "d.tenant_id") N(endpoint_id, TEXT, "d.endpoint_id") \
	N(event_id, TEXT, "d.event_id") N(event_type, TEXT, "d.event_type") \
	N(body, BIN, "d.body") N(attempts, INT, "d.attempts") \
	N(url, TEXT, "e.url") N(secret_sealed, BIN, "e.secret_sealed") \
	N(secret_key_id, INT, "e.secret_key_id") \
	N(endpoint_stopped, BOOL, "e.status <> 'enabled' OR e.deleted_at IS NOT NULL")
struct webhook_send_row { DB_FIELDS(WEBHOOK_SEND_COLS) };
/*
 * The turns of a pass (issue 40): the endpoints with records due at
 * `now`, by one dive each into webhook_deliveries_turn, each tenant's
 * first (its oldest due record first) before any tenant's second, and so
 * on, up to n; with what the pass needs to take its turn: whether the
 * endpoint is stopped (its records end without an attempt) and its
 * pause (hook_inflight()).
 */
#define WEBHOOK_TURN_COLS(F, N) F(id, TEXT, "id") \
	N(tenant_id, TEXT, "tenant_id") N(stopped, BOOL, "stopped") \
	N(trips, INT, "pause_trips") N(paused_until, INT, "paused_until")
struct webhook_turn_row { DB_FIELDS(WEBHOOK_TURN_COLS) };
enum fb_err db_webhook_turns(struct db *, const char *now, int n,
	    struct dbrows *) FB_WUR;
/*
 * Records whose claim's lease ran out before `now` are pending again
 * (those another pass is finishing are left to it), at most 1000, in a
 * transaction of their own.
 */
enum fb_err db_webhook_lapsed(struct db *, const char *now) FB_WUR;
/* One endpoint's share of a claim: its n oldest due records at most. */
struct webhook_claim_turn {
	const char	*endpoint;
	int		 n;
};
/*
 * Claim the shares t[0 .. n) of records due at `now`, each endpoint's
 * oldest first, with `token` (16 bytes) until `until`, in one
 * transaction (one statement a share), then read them all (out, caller
 * frees with dbrows_free()).  Passes over records another pass holds
 * (SKIP LOCKED), though InnoDB waits for a record another transaction
 * has changed just past the due ones.  In the caller's transaction when
 * `in_tx`; else in one of its own, made again when it crossed another
 * pass's (FB_ERETRY), up to DB_TX_TRIES times in all.
 */
enum fb_err db_webhook_claim(struct db *, const struct webhook_claim_turn *t,
	    size_t n, const char *now, const char *until,
	    const unsigned char token[16], bool in_tx, struct dbrows *) FB_WUR;
/* Due records left at `now`, counted up to `cap`. */
enum fb_err db_webhook_left(struct db *, const char *now, long long cap,
	    long long *n) FB_WUR;
/* Outbox events of topic webhook not fanned out, counted up to `cap`. */
enum fb_err db_webhook_events_left(struct db *, long long cap,
	    long long *n) FB_WUR;
/*
 * The outcome of one attempt for its record, if the claim is still
 * `token`'s: status pending (a retry due `next`), succeeded or failed.
 * *applied false when the claim was lost.  In the caller's transaction
 * (formback-webhooks commits the outcomes that come in together at
 * once); the endpoint's state is the caller's (db_webhook_state_*).
 */
struct webhook_outcome {
	const char	*status;
	const char	*next;		/* retry due, or NULL */
	int		 response_status;	/* 0: none */
	const char	*error;		/* or NULL */
	const char	*at;		/* the attempt's time */
	bool		 attempted;	/* false: ended without a request */
};
enum fb_err db_webhook_finish(struct db *, const char *id,
	    const unsigned char token[16], const struct webhook_outcome *,
	    bool *applied) FB_WUR;
/*
 * An endpoint's delivery state (hookrules.h; migrations 0015, 0033), its
 * times as UTC seconds (0: none), with what the owner's mail shows.
 */
#define WH_SECS(c)	\
	"COALESCE(TIMESTAMPDIFF(SECOND, '1970-01-01', " c "), 0)"
#define WEBHOOK_STATE_COLS(F, N) F(id, TEXT, "id") N(url, TEXT, "url") \
	N(deleted, BOOL, "deleted_at IS NOT NULL") \
	N(enabled, BOOL, "status = 'enabled'") \
	N(disabled_reason, TEXT, "disabled_reason") \
	N(failures, INT, "consecutive_failures") \
	N(unanswered, INT, "unanswered") N(trips, INT, "pause_trips") \
	N(failing_since, INT, WH_SECS("failing_since")) \
	N(paused_until, INT, WH_SECS("paused_until")) \
	N(mailed_at, INT, WH_SECS("failing_mailed_at")) \
	N(disabled_at, INT, WH_SECS("disabled_at")) \
	N(last_success, INT, WH_SECS("last_success_at")) \
	N(last_failure, INT, WH_SECS("last_failure_at"))
struct webhook_state_row { DB_FIELDS(WEBHOOK_STATE_COLS) };
struct hook_endpoint;
/*
 * The state of the tenant's endpoint `id` (deleted or not), locked until
 * the caller's transaction ends: one struct webhook_state_row into row
 * (caller frees), the stop rules' part of it into *e.  FB_ENOTFOUND.
 */
enum fb_err db_webhook_state_lock(struct db *, const char *tenant,
	    const char *id, struct dbrows *row, struct hook_endpoint *e) FB_WUR;
/* Write the state back, in the caller's transaction. */
enum fb_err db_webhook_state_set(struct db *, const char *tenant,
	    const char *id, const struct hook_endpoint *) FB_WUR;
/* The tenant of endpoint `id`, not deleted (formbackctl); FB_ENOTFOUND. */
enum fb_err db_webhook_owner(struct db *, const char *id,
	    char tenant[UUID_STRLEN + 1]) FB_WUR;
/*
 * Recover (issue 40): up to `max` of the endpoint's records that ended
 * "endpoint stopped", created at `since` or later (NULL: any kept), are
 * pending again from their first attempt, due at once (the database's
 * clock); *n how many.
 */
enum fb_err db_webhook_recover(struct db *, const char *tenant,
	    const char *endpoint, const char *since, int max,
	    unsigned long long *n) FB_WUR;
/*
 * Delete outbox events handled before `before` (on their index; by
 * created_at it read every handled event) and finished delivery records
 * created before it.
 */
enum fb_err db_webhook_purge(struct db *, const char *before,
	    unsigned long long *n) FB_WUR;

/*
 * Privacy-policy checks (db/ppcheck.c; contract: Endpoints, Sites,
 * pp-checks; migration 0016).  One check as the API shows it (PpCheckOut).
 */
#define PP_CHECK_COLS(F, N) F(id, TEXT, "id") N(site_id, TEXT, "site_id") \
	N(url, TEXT, "url") N(consent_mode, TEXT, "consent_mode") \
	N(status, TEXT, "status") N(http_status, TEXT, "http_status") \
	N(findings, TEXT, "findings") N(page_sha256, TEXT, "page_sha256") \
	N(error, TEXT, "error") N(checked_at, TIME, "checked_at")
struct pp_check_row { DB_FIELDS(PP_CHECK_COLS) };
/* Rows of struct pp_check_row of a site, newest first, n max, ids < after. */
enum fb_err db_pp_check_list(struct db *, const char *tenant, const char *site,
	    const char *after, int n, struct dbrows *) FB_WUR;
/* One struct pp_check_row; FB_ENOTFOUND when not the tenant's site's. */
enum fb_err db_pp_check_get(struct db *, const char *tenant, const char *site,
	    const char *id, struct dbrows *) FB_WUR;
/* Set (or with NULL clear) a site's privacy-policy URL (operator path). */
enum fb_err db_site_set_pp_url(struct db *, const char *tenant, const char *site,
	    const char *url) FB_WUR;
/* A site whose policy is due for a check, with its tenant's consent mode. */
#define PP_DUE_COLS(F, N) F(site_id, TEXT, "s.id") \
	N(tenant_id, TEXT, "s.tenant_id") N(url, TEXT, "s.privacy_policy_url") \
	N(consent_mode, TEXT, "COALESCE(cs.consent_mode, 'notice_optout')")
struct pp_due_row { DB_FIELDS(PP_DUE_COLS) };
/* Up to n sites whose URL has no check since `since`, or none at all. */
enum fb_err db_pp_due(struct db *, const char *since, int n, struct dbrows *) FB_WUR;
/* A new check (findings: a JSON array). */
struct pp_check_new {
	const char	*id, *tenant, *site, *url, *consent_mode, *status;
	int		 http_status;	/* 0: no answer */
	const char	*findings, *page_sha256, *error, *checked_at;
};
enum fb_err db_pp_check_add(struct db *, const struct pp_check_new *) FB_WUR;

/*
 * The funnel report (db/report.c; contract: Reports, FunnelReportOut),
 * counted exactly over a half-open range [from, to) (SQL datetimes, UTC),
 * each count by its own reference time: events by received_at, abandonment
 * and conversion by the lead's abandoned_at and converted_at, messages by
 * sent_at.  site and campaign (may be NULL) narrow every count.  One row
 * per campaign (campaign_id NULL: pages under no campaign) with the
 * group's counts, and one row of totals.  A visit (visits, form_visits,
 * capture_visits) counts in the range that holds its session's first
 * event of the stage (db/migrations/0026), so visits add up over ranges;
 * events come from the hourly rollups where the tenant has them and from
 * the raw rows at the edges.
 */
#define FUNNEL_EVENT_COLS(F, N) F(campaign_id, TEXT, \
	    "NULLIF(NULLIF(MIN(t.ck), '-'), '*')") \
	N(page_view, INT, "COALESCE(SUM(t.page_view), 0)") \
	N(form_start, INT, "COALESCE(SUM(t.form_start), 0)") \
	N(capture, INT, "COALESCE(SUM(t.capture), 0)") \
	N(consent, INT, "COALESCE(SUM(t.consent), 0)") \
	N(conversion, INT, "COALESCE(SUM(t.conversion), 0)") \
	N(visits, INT, "COALESCE(SUM(t.visits), 0)") \
	N(form_visits, INT, "COALESCE(SUM(t.form_visits), 0)") \
	N(capture_visits, INT, "COALESCE(SUM(t.capture_visits), 0)") \
	N(no_session, INT, "COALESCE(SUM(t.no_session), 0)") \
	N(by_visitor, INT, "COALESCE(SUM(t.by_visitor), 0)") \
	N(unassigned_views, INT, "COALESCE(SUM(t.unassigned_views), 0)")
struct funnel_event_row { DB_FIELDS(FUNNEL_EVENT_COLS) };
#define FUNNEL_LEAD_COLS(F, N) F(campaign_id, TEXT, "l.campaign_id") \
	N(abandoned, INT, "SUM(l.abandoned_at >= ? AND l.abandoned_at < ?)") \
	N(converted, INT, "SUM(l.converted_at >= ? AND l.converted_at < ? AND " \
	    "l.conversion_source = 'tag')") \
	N(spillover, INT, "SUM(l.converted_at >= ? AND l.converted_at < ? AND " \
	    "l.conversion_source = 'tag_visitor')") \
	N(hash_match, INT, "SUM(l.converted_at >= ? AND l.converted_at < ? AND " \
	    "l.conversion_source = 'hash_match')") \
	N(recovered, INT, "SUM(l.converted_at >= ? AND l.converted_at < ? AND " \
	    "l.conversion_source = 'tag' AND l.abandoned_at IS NOT NULL AND " \
	    "l.abandoned_at <= l.converted_at)")
struct funnel_lead_row { DB_FIELDS(FUNNEL_LEAD_COLS) };
#define FUNNEL_DELIVERY_COLS(F, N) F(messaged, INT, "COUNT(DISTINCT d.lead_id)") \
	N(sent, INT, "COUNT(*)") \
	N(delivered, INT, "SUM(d.status = 'delivered')") \
	N(inferred, INT, "SUM(d.status = 'sent' AND EXISTS (SELECT 1 FROM links k " \
	    "WHERE k.tenant_id = d.tenant_id AND k.delivery_id = d.id AND " \
	    "k.kind IN ('click', 'open') AND k.first_hit_at IS NOT NULL))") \
	N(after_conversion, INT, "COALESCE(SUM(l.converted_at IS NOT NULL AND " \
	    "d.sent_at > l.converted_at), 0)")
struct funnel_delivery_row { DB_FIELDS(FUNNEL_DELIVERY_COLS) };
struct funnel_filter {
	const char	*from, *to;	/* SQL datetimes, UTC, whole seconds, half-open */
	const char	*site, *campaign;	/* or NULL */
	/* db_funnel_parts(): the rolled hours of the range, as SQL datetimes */
	char		 hours_from[32], hours_to[32];
};
/*
 * Split f's range [from, to) once for every count of one report: the
 * whole hours [hours_from, hours_to) the tenant has rolled (read from the
 * rollups), and the raw edges [from, hours_from) and [hours_to, to); with
 * no rolled hour in it, hours_from = hours_to = to (all raw).
 */
enum fb_err db_funnel_parts(struct db *, const char *tenant,
	    struct funnel_filter *) FB_WUR;
/* Events of the range split by db_funnel_parts(): one row of totals
 * (by_campaign false) or per campaign. */
enum fb_err db_funnel_events(struct db *, const char *tenant,
	    const struct funnel_filter *, bool by_campaign, struct dbrows *) FB_WUR;
/* Leads abandoned or converted in the range: totals or per campaign. */
enum fb_err db_funnel_leads(struct db *, const char *tenant,
	    const struct funnel_filter *, bool by_campaign, struct dbrows *) FB_WUR;
/* Messages sent in the range: one row. */
enum fb_err db_funnel_deliveries(struct db *, const char *tenant,
	    const struct funnel_filter *, struct dbrows *) FB_WUR;

/*
 * The daily report (db/report.c; contract: Reports, DailyReportOut) reads
 * the rollups formback-aggregate writes per JST day (migration 0017).
 * Every part answers rows of one shape: the day ("YYYY-MM-DD", JST), a
 * channel or step where it has one, and up to five counts.
 */
#define DAY_COUNT_COLS(F, N) F(day, TEXT, "day") N(channel, TEXT, "channel") \
	N(step_id, TEXT, "step_id") N(step_no, TEXT, "step_no") \
	N(deleted, BOOL, "deleted") N(n1, INT, "n1") N(n2, INT, "n2") \
	N(n3, INT, "n3") N(n4, INT, "n4") N(n5, INT, "n5") N(n6, INT, "n6")
struct day_count_row { DB_FIELDS(DAY_COUNT_COLS) };
struct daily_filter {
	const char	*from, *to;	/* JST dates "YYYY-MM-DD", half-open */
	const char	*site, *campaign, *scenario;	/* or NULL */
	/* the traffic row of these filters: ids, or "*" for all */
	const char	*site_key, *campaign_key;
};
enum daily_part {
	DAILY_TRAFFIC,		/* n1 page views, n2 visits, n3 form starts, n4 captures */
	DAILY_CAPTURED,		/* n1 leads captured */
	DAILY_ABANDONED,	/* n1 leads abandoned */
	DAILY_CONVERTED,	/* n1 recovered, n2 spillover, n3 hash match */
	DAILY_DELIVERY,		/* per channel: n1 sent, n2 delivered, n3 opened,
				   n4 clicked, n5 converted after it,
				   n6 sent after its lead converted */
	DAILY_STEPS,		/* per step (no day): the same five */
	DAILY__MAX
};
/* One part of the daily report as struct day_count_row rows. */
enum fb_err db_daily(struct db *, const char *tenant, const struct daily_filter *,
	    enum daily_part, struct dbrows *) FB_WUR;
/*
 * A JST day "YYYY-MM-DD" of a tenant's range and when formback-aggregate
 * last counted it, "YYYY-MM-DD HH:MM:SS.ffffff" UTC (sorts as text).
 */
#define DAY_AGGREGATED_COLS(F, N) F(day, TEXT, "day") \
	N(aggregated_at, TEXT, "aggregated_at")
struct day_aggregated_row { DB_FIELDS(DAY_AGGREGATED_COLS) };
/* The days of [from, to) (JST dates) aggregated: struct day_aggregated_row. */
enum fb_err db_daily_aggregated(struct db *, const char *tenant,
	    const char *from, const char *to, struct dbrows *) FB_WUR;

/* formback-aggregate (cron-aggregate.c) */

/*
 * A JST day with rows not counted yet (report_dirty_days, migration
 * 0035: marked by triggers in each writer's transaction).
 */
#define REPORT_MARK_COLS(F, N) F(tenant_id, TEXT, "tenant_id") \
	N(day, TEXT, "day")
struct report_mark_row { DB_FIELDS(REPORT_MARK_COLS) };
/*
 * Up to `limit` struct report_mark_row, the oldest marks first, made
 * before `before` (db_aggregate_clock() at the pass's start) and of `tenant`
 * (NULL: every tenant's).
 */
enum fb_err db_aggregate_marks(struct db *, const char *before,
	    const char *tenant, int limit, struct dbrows *) FB_WUR;
/*
 * The database's UTC clock, which stamps the marks, as an SQL datetime
 * (microseconds): a pass's start, for db_aggregate_marks().
 */
enum fb_err db_aggregate_clock(struct db *, char out[32]) FB_WUR;
/* The days of [from, to) (JST dates) with a mark: struct report_mark_row. */
enum fb_err db_daily_marked(struct db *, const char *tenant, const char *from,
	    const char *to, struct dbrows *) FB_WUR;
/*
 * Recount a tenant's marked JST day (`day` "YYYY-MM-DD", its UTC bounds
 * `from` and `to` as SQL datetimes) from the raw rows into the rollups,
 * in one transaction that begins by deleting the day's mark: it waits
 * for the writers still holding the mark, so their rows are counted,
 * and a later write marks the day again.  *done false when the mark was
 * gone (another copy recounted it): nothing is written.  Reruns write
 * the same rows.
 */
enum fb_err db_aggregate_day(struct db *, const char *tenant, const char *day,
	    const char *from, const char *to, bool *done) FB_WUR;
/*
 * Up to `limit` tenants (struct key_row) with events not rolled into
 * hours yet in hours that can no longer change at `now` (SQL datetime,
 * UTC; see db_roll_hours()), of `tenant` only when not NULL: one index
 * dive a tenant.
 */
enum fb_err db_hours_tenants(struct db *, const char *now, const char *tenant,
	    int limit, struct dbrows *) FB_WUR;
/*
 * Roll the tenant's next whole UTC hours into report_event_hours
 * (migration 0026), at most `hours` of them, from the hour of its first
 * event after where the last roll stopped (the hours between have no
 * event, so they are rolled as they are): only hours that
 * can no longer change, ended five minutes before `now` (SQL datetime,
 * the caller's clock) and the database's clock and before every event
 * still queued (parked ones aside).  One transaction holding the tenant's
 * row of report_hour_state (another copy holding it: nothing done), so
 * copies take turns; *rolled: the hours rolled (0: none was due, or
 * another copy has the tenant).
 */
enum fb_err db_roll_hours(struct db *, const char *tenant, const char *now,
	    int hours, int *rolled) FB_WUR;
/*
 * Inside the caller's transaction, before parked events are queued
 * again: take back each tenant's rolled hours from its oldest parked
 * event's on, so that they are rolled again once it is applied.
 */
enum fb_err db_hours_take_back(struct db *) FB_WUR;

#endif
