/*
 * Typed database functions, one group per src/db/<resource>.c.  Every
 * function on tenant data takes the tenant id and filters on it (design
 * 6).  Functions that return rows fill a struct dbres the caller frees;
 * the column order is the enum beside each function.  Datetimes come back
 * as "YYYY-MM-DDTHH:MM:SSZ" (UTC).
 */
#ifndef FORMBACK_STORE_H
#define FORMBACK_STORE_H

#include "db.h"

#define DB_TS(col) "DATE_FORMAT(" col ", '%Y-%m-%dT%H:%i:%sZ')"

/* db/core.c: the request core's tables. */

enum { AUTH_C_KEY_ID, AUTH_C_TENANT_ID, AUTH_C_MEMBER_ID, AUTH_C_KIND,
    AUTH_C_SCOPES, AUTH_C_REVOKED, AUTH_C_MEMBER_STATUS, AUTH_C_PLAN,
    AUTH_C_RATE_LIMIT, AUTH_C_EPOCH };
/*
 * The API key with this hash (no row when unknown), with its member's
 * status, its tenant's plan, custom limit (NULL: the plan's) and auth
 * epoch (contract: Authentication 5, 6).
 */
enum fb_err db_auth_lookup(struct db *, const unsigned char *hash, size_t n,
	    struct dbres *) FB_WUR;

struct rate_result {
	bool		 admitted;
	int		 remaining;
	long long	 reset;		/* unix seconds when one more slot frees */
	long long	 retry_after;	/* seconds, when not admitted */
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

/*
 * Record, in the caller's transaction, that who may call for `tenant`
 * changed (a key revoked, a member suspended or deleted, a limit
 * changed): every worker's cached look-up of the tenant's keys stops
 * being used from this call on (src/authcache.c).
 */
enum fb_err db_auth_epoch_bump(struct db *, const char *tenant) FB_WUR;

/* rate.c */

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
enum { IDEM_C_HASH, IDEM_C_STATUS, IDEM_C_BODY, IDEM_C_EXPIRED };
enum fb_err db_idem_get(struct db *, const char *tenant, const char *endpoint,
	    const char *key, struct dbres *) FB_WUR;
/* Delete the row when older than 24 hours (the contract's window). */
enum fb_err db_idem_delete_expired(struct db *, const char *tenant,
	    const char *endpoint, const char *key) FB_WUR;
enum fb_err db_idem_finish(struct db *, const char *tenant, const char *endpoint,
	    const char *key, int status, const char *body) FB_WUR;

/* An audit-log row, in the caller's transaction.  detail is JSON or NULL. */
enum fb_err db_audit_add(struct db *, const char *tenant, const char *actor_type,
	    const char *actor_id, const char *request_id, const char *action,
	    const char *target_type, const char *target_id, const char *detail) FB_WUR;
/* An outbox row (topic webhook|email|publish), in the caller's transaction. */
enum fb_err db_outbox_add(struct db *, const char *tenant, const char *topic,
	    const char *event_type, const char *payload) FB_WUR;

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
/* The tenant and role of member `id`, FB_ENOTFOUND if none. */
enum fb_err db_member_tenant(struct db *, const char *id,
	    char tenant_out[UUID_STRLEN + 1], char *role_out, size_t rolesz) FB_WUR;
enum fb_err db_apikey_create(struct db *, const char *id, const char *tenant,
	    const char *member, const char *kind, const unsigned char *hash,
	    const char *prefix, const char *scopes) FB_WUR;
enum fb_err db_apikey_revoke(struct db *, const char *id,
	    char tenant_out[UUID_STRLEN + 1]) FB_WUR;
enum fb_err db_site_create(struct db *, const char *id, const char *tenant,
	    const char *name, const char *domain, const char *public_key) FB_WUR;

enum { SITE_C_ID, SITE_C_NAME, SITE_C_DOMAIN, SITE_C_PUBLIC_KEY,
    SITE_C_CREATED, SITE_C_UPDATED };
/* Sites newest first, after id `after` (NULL: from the top), n rows max. */
enum fb_err db_site_list(struct db *, const char *tenant, const char *after,
	    int n, struct dbres *) FB_WUR;
enum fb_err db_site_get(struct db *, const char *tenant, const char *id,
	    struct dbres *) FB_WUR;

enum { SITEC_C_CAMPAIGN_ID = SITE_C_UPDATED + 1, SITEC_C_CAMPAIGN_KEY,
    SITEC_C_CAMPAIGN_NAME };
/*
 * The site (columns SITE_C_*) joined with its campaigns that are not
 * archived (SITEC_C_*, NULL when it has none; in no set order), in one
 * round trip; FB_ENOTFOUND when the site is not the tenant's.
 */
enum fb_err db_site_with_campaigns(struct db *, const char *tenant,
	    const char *id, struct dbres *) FB_WUR;

enum { CONSENT_C_CHECKBOX, CONSENT_C_DEFAULT_CHECKED, CONSENT_C_TEMPLATE,
    CONSENT_C_OPTOUT_LINK, CONSENT_C_MODE, CONSENT_C_OPTOUT_TITLE,
    CONSENT_C_OPTOUT_BODY, CONSENT_C_OPTOUT_LABEL };
enum fb_err db_consent_get(struct db *, const char *tenant, struct dbres *) FB_WUR;
enum { TPL_C_KEY, TPL_C_MAIN, TPL_C_NOTE };
enum fb_err db_consent_templates(struct db *, struct dbres *) FB_WUR;

enum { DSW_C_MODE, DSW_C_ENABLED_AT };
enum fb_err db_delivery_status(struct db *, const char *tenant, struct dbres *) FB_WUR;
enum fb_err db_delivery_switch(struct db *, const char *tenant, const char *mode) FB_WUR;

/* db/campaign.c */

enum { CAMP_C_ID, CAMP_C_SITE_ID, CAMP_C_KEY, CAMP_C_NAME, CAMP_C_PRODUCT,
    CAMP_C_STATUS, CAMP_C_WAIT, CAMP_C_CREATED, CAMP_C_UPDATED,
    CAMP_C_SCENARIOS, CAMP_C_ACTIVE_SCENARIOS };
/* FB_EDUP when the key is taken in this tenant. */
enum fb_err db_campaign_insert(struct db *, const char *id, const char *tenant,
	    const char *site, const char *key, const char *name,
	    const char *product, const char *status, long long wait) FB_WUR;
enum fb_err db_campaign_get(struct db *, const char *tenant, const char *id,
	    struct dbres *) FB_WUR;
/* Filters may be NULL. Newest first, n rows max. */
enum fb_err db_campaign_list(struct db *, const char *tenant, const char *site,
	    const char *status, const char *after, int n, struct dbres *) FB_WUR;
/* Set status (operator/session path); FB_ENOTFOUND if none. */
enum fb_err db_campaign_set_status(struct db *, const char *id, const char *status,
	    char tenant_out[UUID_STRLEN + 1]) FB_WUR;

/* db/migrate.c */

/*
 * Apply every db/migrations/NNNN_*.sql in `dir` not yet recorded in
 * schema_migrations, in order, each in its own transaction with its
 * record.  `applied` receives a JSON array of the applied versions and
 * `current` the newest version.  Errors are logged and returned.
 */
enum fb_err db_migrate(struct db *, const char *dir, json_object *applied,
	    char current[16]) FB_WUR;

#endif
