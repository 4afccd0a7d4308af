/*
 * src/db/core.c: the request core's tables: API keys, idempotency, the
 * audit log, the outbox, retention; store.h includes every such header.
 */
#ifndef FORMBACK_DB_CORE_H
#define FORMBACK_DB_CORE_H

#include "db.h"

/*
 * An API key with its member's status, its tenant's plan, custom limit
 * (-1: the plan's) and auth epoch (contract: Authentication 5, 6).
 */
#define AUTH_KEY_COLS(F, N) F(key_id, TEXT, "k.id") \
	N(tenant_id, TEXT, "k.tenant_id") N(member_id, TEXT, "k.member_id") \
	N(kind, TEXT, "k.kind") N(scopes, TEXT, "k.scopes") \
	N(revoked, BOOL, "k.revoked_at IS NOT NULL") \
	N(member_status, TEXT, "m.status") N(member_role, TEXT, "m.role") \
	N(plan, TEXT, "t.plan") \
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
	/* unix seconds when one more slot frees */
	long long	 reset;
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
enum fb_err db_idem_finish(struct db *, const char *tenant,
    const char *endpoint, const char *key, int status, const char *body) FB_WUR;

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
enum fb_err db_audit_add(struct db *, const char *tenant,
    const char *actor_type,
	    const char *actor_id, const char *request_id, const char *action,
	    const char *target_type, const char *target_id,
	    const char *detail) FB_WUR;
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

#endif
