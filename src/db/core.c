/*
 * SQL of the request core: API key look-up, rate-limit admission,
 * idempotency rows, the audit log and the outbox.
 */
#include <string.h>

#include "store.h"

/*
 * Admission, shared by both forms, in as few expressions as MariaDB will
 * take (each is re-resolved on every execution of a prepared statement):
 * ON DUPLICATE KEY UPDATE assigns left to right, so the ring is first
 * shifted to the database's second (VALUES(base)), then `admitted` (how
 * many of the requests asked for fit, ADMIT_ROOM) is decided on it, then
 * the second's slot and the total follow.  RETURNING gives the row as
 * this statement left it; `base` is then the second of the decision.
 * Parameters: tenant, clock (NULL: the database's), counted-on-insert
 * (0/1), the ring on insert, admitted-on-insert, limit, epoch on insert,
 * then the form's own.
 */
#define ADMIT_HEAD \
	"INSERT INTO rate_ring (tenant_id, base, total, ring, admitted, lim, " \
	"epoch) VALUES (?, COALESCE(?, UNIX_TIMESTAMP()), ?, ?, ?, ?, ?) " \
	"ON DUPLICATE KEY UPDATE ring = RIGHT(CONCAT(ring, " \
	"REPEAT(LPAD(total, 12, '0'), LEAST(GREATEST(VALUES(base) - base, " \
	"0), 61))), 732), base = GREATEST(base, VALUES(base)), "
/* the requests the shifted window still has room for (signed: never < 0) */
#define ADMIT_ROOM \
	"GREATEST(VALUES(lim) - (total - CAST(LEFT(ring, 12) AS SIGNED)), 0)"
#define ADMIT_TAIL \
	", ring = IF(admitted > 0, INSERT(ring, 721, 12, LPAD(total + " \
	"admitted, 12, '0')), ring), total = total + admitted RETURNING " \
	"admitted, epoch, base, total, ring, data_epoch"

enum {
	CORE_AUTH,
	CORE_ADMIT_FRESH,
	CORE_ADMIT_CACHED,
	CORE_EPOCH_BUMP,
	CORE_EPOCH_GET,
	CORE_EPOCH_MIRROR,
	CORE_IDEM_CLAIM,
	CORE_IDEM_GET,
	CORE_IDEM_DELETE_EXPIRED,
	CORE_IDEM_FINISH,
	CORE_AUDIT_ADD,
	CORE_IDEM_PURGE,
	CORE_OUTBOX_PURGE,
	CORE_TAG_EVENTS_PURGE,
	CORE_AUDIT_PURGE,
	CORE_LINKS_PURGE,
	CORE_DURABILITY,
	CORE__MAX
};

static const struct dbstmt core_sql[CORE__MAX] = {
	/* CORE_AUTH */
	{ "auth_lookup",
	  "SELECT " DB_SELECT(AUTH_KEY_COLS) " FROM api_keys k JOIN members m "
	  "ON m.id = k.member_id JOIN tenants t ON t.id = k.tenant_id WHERE "
	  "k.key_hash = ?" },
	/*
	 * CORE_ADMIT_FRESH: after a look-up in the database.  The epoch
	 * only moves forward, so a look-up that read an older snapshot can
	 * never make older cached look-ups valid again.
	 */
	{ "rate_admit_fresh",
	  ADMIT_HEAD "epoch = GREATEST(epoch, VALUES(epoch)), "
	  "admitted = LEAST(1, " ADMIT_ROOM ")" ADMIT_TAIL },
	/*
	 * CORE_ADMIT_CACHED: ? requests with a worker's cached look-up of
	 * epoch ?; a different epoch (or a row made by this statement)
	 * admits nothing and sends the caller to the database look-up.
	 */
	{ "rate_admit_cached",
	  ADMIT_HEAD "admitted = IF(epoch = ?, LEAST(?, " ADMIT_ROOM "), 0)"
	  ADMIT_TAIL },
	/* CORE_EPOCH_BUMP */
	{ "auth_epoch_bump",
	  "UPDATE tenants SET auth_epoch = auth_epoch + 1 WHERE id = ?" },
	/* CORE_EPOCH_GET */
	{ "auth_epoch_get", "SELECT auth_epoch FROM tenants WHERE id = ?" },
	/* CORE_EPOCH_MIRROR */
	{ "auth_epoch_mirror",
	  "UPDATE rate_ring SET epoch = GREATEST(epoch, ?) WHERE tenant_id = "
	  "?" },
	/* CORE_IDEM_CLAIM */
	{ "idem_claim",
	  "SET STATEMENT innodb_lock_wait_timeout = 0 FOR "
	  "INSERT INTO idempotency_keys (tenant_id, endpoint, idem_key, "
	  "request_hash) VALUES (?, ?, ?, ?)" },
	/* CORE_IDEM_GET */
	{ "idem_get",
	  "SELECT " DB_SELECT(IDEM_COLS) " FROM idempotency_keys "
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
	/*
	 * CORE_IDEM_PURGE ... CORE_LINKS_PURGE: rows older than ? seconds,
	 * oldest first (db_retention_purge() gives each its age; the keys
	 * by age of migrations 0001 and 0024); opt-out links are kept: a
	 * recipient's way out never expires
	 */
	{ "idempotency_purge",
	  "DELETE FROM idempotency_keys WHERE created_at < NOW(6) - INTERVAL ? "
	  "SECOND ORDER BY created_at LIMIT 10000" },
	{ "outbox_purge",
	  "DELETE FROM outbox WHERE topic IN ('email', 'publish') "
	  "AND processed_at < NOW(6) - INTERVAL ? SECOND LIMIT 10000" },
	{ "tag_events_purge",
	  "DELETE FROM tag_events WHERE received_at < NOW(6) - INTERVAL ? "
	  "SECOND ORDER BY received_at LIMIT 10000" },
	{ "audit_purge",
	  "DELETE FROM audit_log WHERE created_at < NOW(6) - INTERVAL ? SECOND "
	  "ORDER BY created_at LIMIT 10000" },
	{ "links_purge",
	  "DELETE FROM links WHERE created_at < NOW(6) - INTERVAL ? SECOND "
	  "AND kind <> 'optout' ORDER BY created_at LIMIT 10000" },
	/* CORE_DURABILITY */
	{ "durability", "SELECT " DB_SELECT(DURABILITY_COLS) },
};

static enum fb_err
run(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	return db_run(db, DBSET_CORE, id, &core_sql[id], p, n, r);
}

enum fb_err
db_auth_lookup(struct db *db, const unsigned char *hash, size_t n,
    struct dbrows *out)
{
#define DB_ROW struct auth_key_row
	static const struct dbcol cols[] = { DB_COLUMNS(AUTH_KEY_COLS) };
#undef DB_ROW

	return db_rows(db, DBSET_CORE, CORE_AUTH, &core_sql[CORE_AUTH],
	    DBPARAMS(P_BIN(hash, n)), cols, NELEM(cols),
	    sizeof(struct auth_key_row), true, out);
}

enum fb_err
db_durability(struct db *db, struct dbrows *out)
{
#define DB_ROW struct durability_row
	static const struct dbcol cols[] = { DB_COLUMNS(DURABILITY_COLS) };
#undef DB_ROW

	return db_rows(db, DBSET_CORE, CORE_DURABILITY,
	    &core_sql[CORE_DURABILITY], DBNOPARAMS, cols, NELEM(cols),
	    sizeof(struct durability_row), true, out);
}

enum fb_err
db_rate_admit(struct db *db, const char *tenant, int limit, long long now,
    long long epoch, bool cached, struct rate_result *out, long long *epoch_out)
{
	return db_rate_admit_n(db, tenant, limit, now, epoch, cached, 1, out,
	    epoch_out);
}

enum fb_err
db_rate_admit_n(struct db *db, const char *tenant, int limit, long long now,
    long long epoch, bool cached, int n, struct rate_result out[],
    long long *epoch_out)
{
	struct dbres	 r;
	struct dbp	 t = now < 0 ? P_NULL : P_INT(now);
	char		 ring[RATE_RING_LEN + 1];
	enum fb_err	 e;
	struct rate_result yes, no;
	int		 admitted, i;

	if (n < 1 || n > RATE_ADMIT_MAX || (!cached && n != 1))
		return FB_EINVAL;
	/* a new tenant's ring: no request before this second's */
	memset(ring, '0', RATE_RING_LEN);
	ring[RATE_RING_LEN] = '\0';
	if (cached)
		e = run(db, CORE_ADMIT_CACHED,
		    DBPARAMS(P_STR(tenant), t, P_INT(0),
		    P_STR(ring), P_INT(0), P_INT(limit), P_INT(0), P_INT(epoch),
		    P_INT(n)), &r);
	else {
		ring[RATE_RING_LEN - 1] = '1';
		e = run(db, CORE_ADMIT_FRESH,
		    DBPARAMS(P_STR(tenant), t, P_INT(1),
		    P_STR(ring), P_INT(1), P_INT(limit), P_INT(epoch)), &r);
	}
	if (e != FB_OK)
		return e;
	if (r.nrows != 1) {
		dbres_free(&r);
		logx(LOG_ERR, "rate admission returned no row");
		return FB_EDB;
	}
	*epoch_out = dbres_int(&r, 0, 1);
	admitted = (int)dbres_int(&r, 0, 0);
	/* the ring as the statement left it: the last admitted, the refused */
	rate_result_from(dbres_get(&r, 0, 4), dbres_int(&r, 0, 2),
	    dbres_int(&r, 0, 3), dbres_int(&r, 0, 2), limit, true, &yes);
	rate_result_from(dbres_get(&r, 0, 4), dbres_int(&r, 0, 2),
	    dbres_int(&r, 0, 3), dbres_int(&r, 0, 2), limit, false, &no);
	yes.data_epoch = no.data_epoch = dbres_int(&r, 0, 5);
	dbres_free(&r);
	for (i = 0; i < n; i++) {
		out[i] = i < admitted ? yes : no;
		if (i < admitted)
			out[i].remaining += admitted - 1 - i;
	}
	return FB_OK;
}

enum fb_err
db_auth_epoch_bump(struct db *db, const char *tenant)
{
	struct dbres	 r;
	enum fb_err	 e;
	long long	 epoch;

	if ((e = run(db, CORE_EPOCH_BUMP, DBPARAMS(P_STR(tenant)),
	    NULL)) != FB_OK ||
	    (e = run(db, CORE_EPOCH_GET, DBPARAMS(P_STR(tenant)), &r)) != FB_OK)
		return e;
	epoch = dbres_int(&r, 0, 0);
	dbres_free(&r);
	/* the mirror the admission statement checks, in the same commit */
	return run(db, CORE_EPOCH_MIRROR, DBPARAMS(P_INT(epoch), P_STR(tenant)),
	    NULL);
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
    const char *key, struct dbrows *out)
{
#define DB_ROW struct idem_row
	static const struct dbcol cols[] = { DB_COLUMNS(IDEM_COLS) };
#undef DB_ROW

	return db_rows(db, DBSET_CORE, CORE_IDEM_GET, &core_sql[CORE_IDEM_GET],
	    DBPARAMS(P_STR(tenant), P_STR(endpoint), P_STR(key)), cols,
	    NELEM(cols), sizeof(struct idem_row), true, out);
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
	return db_outbox_insert(db, &(struct outbox_row){ id, tenant, topic,
	    event_type, payload }, 1);
}

enum fb_err
db_outbox_insert(struct db *db, const struct outbox_row *r, size_t n)
{
	static const struct dbmulti m = { DBM_OUTBOX, "outbox_insert",
	    "INSERT INTO outbox (id, tenant_id, topic, event_type, payload) "
	    "VALUES ", "(?, ?, ?, ?, ?)" };
	struct dbp	 p[DB_MULTI_MAX * 5], *q;
	size_t		 i, k;
	enum fb_err	 e;

	for (; n > 0; r += k, n -= k) {
		k = n < DB_MULTI_MAX ? n : DB_MULTI_MAX;
		for (q = p, i = 0; i < k; i++) {
			*q++ = P_STR(r[i].id);
			*q++ = P_STR(r[i].tenant);
			*q++ = P_STR(r[i].topic);
			*q++ = P_STR(r[i].event_type);
			*q++ = P_STR(r[i].payload);
		}
		if ((e = db_run_multi(db, &m, k, p, (size_t)(q - p))) != FB_OK)
			return e;
	}
	return FB_OK;
}

enum fb_err
db_retention_purge(struct db *db, const struct conf *c, unsigned long long *n)
{
	const long long	 day = 86400;
	const struct {
		int		 id;
		long long	 age;	/* seconds; 0: kept for ever */
	} kept[] = {
		{ CORE_IDEM_PURGE, day }, /* the contract's 24 hours */
		{ CORE_OUTBOX_PURGE, 30 * day }, /* done 30 days ago */
		{ CORE_TAG_EVENTS_PURGE, c->tag_event_retention_days * day },
		{ CORE_AUDIT_PURGE, c->audit_retention_days * day },
		{ CORE_LINKS_PURGE, c->link_retention_days * day },
	};
	unsigned long long one;
	enum fb_err	 e = FB_OK;
	size_t		 i;

	*n = 0;
	for (i = 0; e == FB_OK && i < sizeof(kept) / sizeof(kept[0]); i++) {
		if (kept[i].age == 0)
			continue;
		one = 0;
		e = db_changed(db, DBSET_CORE, kept[i].id,
		    &core_sql[kept[i].id], DBPARAMS(P_INT(kept[i].age)), &one);
		*n += one;
	}
	return e;
}

#define DB_ROW struct key_row
const struct dbcol key_cols[1] = { DB_COLUMNS(KEY_COLS) };
#undef DB_ROW
