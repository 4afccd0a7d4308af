/*
 * SQL of the request core: API key look-up, the rate limiter's ring,
 * idempotency rows, the audit log and the outbox.
 */
#include <string.h>

#include "../store.h"

enum {
	CORE_AUTH,
	CORE_RATE_LOCK,
	CORE_RATE_SAVE,
	CORE_IDEM_CLAIM,
	CORE_IDEM_GET,
	CORE_IDEM_DELETE_EXPIRED,
	CORE_IDEM_FINISH,
	CORE_AUDIT_ADD,
	CORE_OUTBOX_ADD,
	CORE__MAX
};

static const struct dbstmt core_sql[CORE__MAX] = {
	/* CORE_AUTH */
	{ "auth_lookup",
	  "SELECT k.id, k.tenant_id, k.member_id, k.kind, k.scopes, "
	  "k.revoked_at IS NOT NULL, m.status, t.plan, t.rate_limit "
	  "FROM api_keys k JOIN members m ON m.id = k.member_id "
	  "JOIN tenants t ON t.id = k.tenant_id WHERE k.key_hash = ?" },
	/* CORE_RATE_LOCK */
	{ "rate_lock",
	  "SELECT ring, UNIX_TIMESTAMP() FROM rate_state "
	  "WHERE tenant_id = ? FOR UPDATE" },
	/* CORE_RATE_SAVE */
	{ "rate_save",
	  "UPDATE rate_state SET ring = ? WHERE tenant_id = ?" },
	/* CORE_IDEM_CLAIM */
	{ "idem_claim",
	  "SET STATEMENT innodb_lock_wait_timeout = 0 FOR "
	  "INSERT INTO idempotency_keys (tenant_id, endpoint, idem_key, "
	  "request_hash) VALUES (?, ?, ?, ?)" },
	/* CORE_IDEM_GET */
	{ "idem_get",
	  "SELECT request_hash, status_code, response_body, "
	  "created_at < NOW(6) - INTERVAL 24 HOUR FROM idempotency_keys "
	  "WHERE tenant_id = ? AND endpoint = ? AND idem_key = ?" },
	/* CORE_IDEM_DELETE_EXPIRED */
	{ "idem_delete_expired",
	  "DELETE FROM idempotency_keys WHERE tenant_id = ? AND endpoint = ? "
	  "AND idem_key = ? AND created_at < NOW(6) - INTERVAL 24 HOUR" },
	/* CORE_IDEM_FINISH */
	{ "idem_finish",
	  "UPDATE idempotency_keys SET status_code = ?, response_body = ? "
	  "WHERE tenant_id = ? AND endpoint = ? AND idem_key = ?" },
	/* CORE_AUDIT_ADD */
	{ "audit_add",
	  "INSERT INTO audit_log (id, tenant_id, actor_type, actor_id, "
	  "request_id, action, target_type, target_id, detail) "
	  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)" },
	/* CORE_OUTBOX_ADD */
	{ "outbox_add",
	  "INSERT INTO outbox (id, tenant_id, topic, event_type, payload) "
	  "VALUES (?, ?, ?, ?, ?)" },
};

static enum fb_err
run(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	return db_run(db, DBSET_CORE, id, &core_sql[id], p, n, r);
}

enum fb_err
db_auth_lookup(struct db *db, const unsigned char *hash, size_t n,
    struct dbres *r)
{
	return run(db, CORE_AUTH, DBPARAMS(P_BIN(hash, n)), r);
}

#define RING_SLOTS	60
#define RING_BYTES	(RING_SLOTS * 8)

static uint32_t
get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

void
rate_ring_admit(unsigned char ring[RING_BYTES], long long now, int limit,
    bool *admitted, int *remaining, long long *reset, long long *retry_after)
{
	long long	 count = 0, oldest = 0, sec;
	size_t		 i, slot;

	for (i = 0; i < RING_SLOTS; i++) {
		sec = get32(ring + i * 8);
		if (sec > now - RING_SLOTS && sec <= now && get32(ring + i * 8 + 4) > 0) {
			count += get32(ring + i * 8 + 4);
			if (oldest == 0 || sec < oldest)
				oldest = sec;
		}
	}
	*retry_after = 0;
	if (count >= limit) {
		*admitted = false;
		*remaining = 0;
		*reset = oldest != 0 ? oldest + RING_SLOTS : now + 1;
		*retry_after = *reset - now > 0 ? *reset - now : 1;
		return;
	}
	slot = (size_t)(now % RING_SLOTS);
	if (get32(ring + slot * 8) != (uint32_t)now) {
		put32(ring + slot * 8, (uint32_t)now);
		put32(ring + slot * 8 + 4, 0);
	}
	put32(ring + slot * 8 + 4, get32(ring + slot * 8 + 4) + 1);
	count++;
	if (oldest == 0)
		oldest = now;
	*admitted = true;
	*remaining = (int)(limit - count);
	*reset = oldest + RING_SLOTS;
}

enum fb_err
db_rate_admit(struct db *db, const char *tenant, int limit, bool *admitted,
    int *remaining, long long *reset, long long *retry_after)
{
	struct dbres	 r;
	unsigned char	 ring[RING_BYTES];
	enum fb_err	 e;
	long long	 now;

	if ((e = run(db, CORE_RATE_LOCK, DBPARAMS(P_STR(tenant)), &r)) != FB_OK)
		goto fail;
	if (r.nrows != 1) {
		dbres_free(&r);
		logx(LOG_ERR, "tenant '%s' has no rate_state row", tenant);
		e = FB_EDB;
		goto fail;
	}
	memset(ring, 0, sizeof(ring));
	if (r.len[0] == RING_BYTES)
		memcpy(ring, r.cell[0], RING_BYTES);
	now = dbres_int(&r, 0, 1);
	dbres_free(&r);
	rate_ring_admit(ring, now, limit, admitted, remaining, reset, retry_after);
	if (*admitted &&
	    (e = run(db, CORE_RATE_SAVE, DBPARAMS(P_BIN(ring, RING_BYTES),
	    P_STR(tenant)), NULL)) != FB_OK)
		goto fail;
	return db_commit(db);
fail:
	db_rollback(db);
	return e;
}

enum fb_err
db_idem_claim(struct db *db, const char *tenant, const char *endpoint,
    const char *key, const unsigned char hash[32])
{
	return run(db, CORE_IDEM_CLAIM, DBPARAMS(P_STR(tenant), P_STR(endpoint),
	    P_STR(key), P_BIN(hash, 32)), NULL);
}

enum fb_err
db_idem_get(struct db *db, const char *tenant, const char *endpoint,
    const char *key, struct dbres *r)
{
	return run(db, CORE_IDEM_GET, DBPARAMS(P_STR(tenant), P_STR(endpoint),
	    P_STR(key)), r);
}

enum fb_err
db_idem_delete_expired(struct db *db, const char *tenant,
    const char *endpoint, const char *key)
{
	return run(db, CORE_IDEM_DELETE_EXPIRED, DBPARAMS(P_STR(tenant),
	    P_STR(endpoint), P_STR(key)), NULL);
}

enum fb_err
db_idem_finish(struct db *db, const char *tenant, const char *endpoint,
    const char *key, int status, const char *body)
{
	return run(db, CORE_IDEM_FINISH, DBPARAMS(P_INT(status), P_STR(body),
	    P_STR(tenant), P_STR(endpoint), P_STR(key)), NULL);
}

enum fb_err
db_audit_add(struct db *db, const char *tenant, const char *actor_type,
    const char *actor_id, const char *request_id, const char *action,
    const char *target_type, const char *target_id, const char *detail)
{
	char	 id[UUID_STRLEN + 1];

	uuid_v7(id);
	return run(db, CORE_AUDIT_ADD, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(actor_type), P_STR(actor_id), P_STR(request_id),
	    P_STR(action), P_STR(target_type), P_STR(target_id),
	    P_STR(detail)), NULL);
}

enum fb_err
db_outbox_add(struct db *db, const char *tenant, const char *topic,
    const char *event_type, const char *payload)
{
	char	 id[UUID_STRLEN + 1];

	uuid_v7(id);
	return run(db, CORE_OUTBOX_ADD, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(topic), P_STR(event_type), P_STR(payload)), NULL);
}
