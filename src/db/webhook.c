/*
 * SQL of webhook endpoints and deliveries (store.h; migrations 0015,
 * 0031, 0033).
 */
#include <stdio.h>
#include <string.h>

#include "store.h"
#include "../hookrules.h"

enum {
	WH_COUNT, WH_INSERT, WH_LIST, WH_GET, WH_DELETE,
	WH_DLV_LIST, WH_DLV_GET, WH_DLV_ENDPOINT, WH_REDELIVER,
	WH_EVENTS, WH_SUBSCRIBERS, WH_FAN_TENANTS,
	WH_EVENTS_DONE, WH_TURNS, WH_LAPSED, WH_CLAIM, WH_CLAIMED, WH_FINISH,
	WH_LEFT, WH_EVENTS_LEFT, WH_STATE_LOCK, WH_STATE_SET, WH_RECOVER,
	WH_OWNER,
	WH_PURGE_EVENTS, WH_PURGE_DELIVERIES,
	WH__MAX
};
_Static_assert(WH__MAX <= DBSET_STMT_MAX, "raise DBSET_STMT_MAX");
_Static_assert(WEBHOOK_FANOUT_MAX == 100,
    "DB_Q100 holds WEBHOOK_FANOUT_MAX placeholders");

static const struct dbstmt wh_sql[WH__MAX] = {
	/*
	 * WH_COUNT: under the tenant's row lock, so two creates cannot pass the
	 * cap
	 */
	{ "webhook_count",
	  "SELECT (SELECT id FROM tenants WHERE id = ? FOR UPDATE) "
	  "IS NOT NULL, (SELECT COUNT(*) FROM webhook_endpoints WHERE "
	  "tenant_id = ? AND deleted_at IS NULL)" },
	{ "webhook_insert",
	  "INSERT INTO webhook_endpoints (id, tenant_id, url, events, "
	  "secret_sealed, secret_key_id) VALUES (?, ?, ?, ?, ?, ?)" },
	{ "webhook_list",
	  "SELECT " DB_SELECT(WEBHOOK_ENDPOINT_COLS) " FROM webhook_endpoints "
	  "WHERE tenant_id = ? AND id < ? AND deleted_at IS NULL "
	  "ORDER BY id DESC LIMIT ?" },
	{ "webhook_get",
	  "SELECT " DB_SELECT(WEBHOOK_ENDPOINT_COLS) " FROM webhook_endpoints "
	  "WHERE tenant_id = ? AND id = ? AND deleted_at IS NULL" },
	{ "webhook_delete",
	  "UPDATE webhook_endpoints SET deleted_at = NOW(6), updated_at = "
	  "NOW(6) WHERE tenant_id = ? AND id = ? AND deleted_at IS NULL" },
	{ "webhook_delivery_list",
	  "SELECT " DB_SELECT(WEBHOOK_DELIVERY_COLS) " FROM webhook_deliveries "
	  "d WHERE d.tenant_id = ? AND d.endpoint_id = ? AND d.id < ? "
	  "ORDER BY d.id DESC LIMIT ?" },
	{ "webhook_delivery_get",
	  "SELECT " DB_SELECT(WEBHOOK_DELIVERY_COLS) " FROM webhook_deliveries "
	  "d WHERE d.tenant_id = ? AND d.id = ?" },
	{ "webhook_delivery_endpoint",
	  "SELECT e.status FROM webhook_deliveries d JOIN webhook_endpoints e "
	  "ON e.id = d.endpoint_id AND e.tenant_id = d.tenant_id "
	  "AND e.deleted_at IS NULL WHERE d.tenant_id = ? AND d.id = ?" },
	{ "webhook_redeliver",
	  "INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, "
	  "event_id, event_type, body, redelivery_of, next_attempt_at) SELECT "
	  "?, tenant_id, endpoint_id, event_id, event_type, body, id, NOW(6) "
	  "FROM webhook_deliveries WHERE tenant_id = ? AND id = ?" },
	/*
	 * WH_EVENTS: a tenant's oldest unprocessed events, in the order of
	 * outbox_webhook_tenant (migration 0033), locked (SKIP LOCKED)
	 */
	{ "webhook_events",
	  "SELECT " DB_SELECT(WEBHOOK_EVENT_COLS) " FROM outbox "
	  "FORCE INDEX (outbox_webhook_tenant) WHERE topic = 'webhook' "
	  "AND processed_at IS NULL AND tenant_id = ? ORDER BY id LIMIT ? "
	  "FOR UPDATE SKIP LOCKED" },
	/* an endpoint never receives an event older than itself */
	{ "webhook_subscribers",
	  "SELECT " DB_SELECT(KEY_COLS) " FROM webhook_endpoints "
	  "WHERE tenant_id = ? "
	  "AND deleted_at IS NULL AND status = 'enabled' AND created_at <= ? "
	  "AND JSON_CONTAINS(events, JSON_QUOTE(?))" },
	/*
	 * WH_FAN_TENANTS: the tenants with events to fan out, the oldest
	 * event first: one dive a tenant into outbox_webhook_tenant
	 */
	{ "webhook_fan_tenants",
	  "SELECT id FROM (SELECT t.id, (SELECT o.id FROM outbox o "
	  "FORCE INDEX (outbox_webhook_tenant) WHERE o.topic = 'webhook' AND "
	  "o.processed_at IS NULL AND o.tenant_id = t.id ORDER BY o.id "
	  "LIMIT 1) AS first FROM tenants t) x WHERE first IS NOT NULL "
	  "ORDER BY first LIMIT ?" },
	/*
	 * WEBHOOK_FANOUT_MAX ids, the last repeated to fill (a statement an
	 * event before)
	 */
	{ "webhook_events_done",
	  "UPDATE outbox SET processed_at = NOW(6) WHERE id IN (" DB_Q100 ")" },
	/*
	 * WH_TURNS: the endpoints with due records (issue 40), one dive
	 * each into webhook_deliveries_turn for its oldest pending record
	 * (the dependent-subquery form: a loose scan of the index was the
	 * optimizer's to choose, and it did not, for the leads of
	 * formback-abandon), each tenant's first before any tenant's
	 * second, so that a round of the pass takes every tenant before it
	 * takes a second endpoint of one.
	 */
	{ "webhook_turns",
	  "SELECT " DB_SELECT(WEBHOOK_TURN_COLS) " FROM (SELECT x.*, "
	  "ROW_NUMBER() OVER (PARTITION BY tenant_id ORDER BY due, id) AS turn "
	  "FROM (SELECT e.id, e.tenant_id, e.status <> 'enabled' "
	  "OR e.deleted_at IS NOT NULL AS stopped, e.pause_trips, "
	  WH_SECS("e.paused_until") " AS paused_until, "
	  "(SELECT d.next_attempt_at FROM webhook_deliveries d "
	  "FORCE INDEX (webhook_deliveries_turn) WHERE d.status = 'pending' "
	  "AND d.endpoint_id = e.id ORDER BY d.next_attempt_at LIMIT 1) AS due "
	  "FROM webhook_endpoints e) x WHERE due <= CAST(? AS DATETIME(6))) y "
	  "ORDER BY turn, due, id LIMIT ?" },
	/*
	 * design 6, WH_LAPSED, then WH_CLAIM: claims whose lease ran out
	 * are due again, and an endpoint's first due records are claimed.
	 * Each picks its rows on an index without waiting (FOR UPDATE SKIP
	 * LOCKED: a record another pass holds, finishing or claiming it, is
	 * passed over) and marks them by primary key.  An UPDATE on the
	 * index itself held each record's entry while it waited for the
	 * record, which a pass finishing it held while it waited for the
	 * entry (a deadlock: three passes at once, 65 of 180 claims in a
	 * test of the statements); and "UPDATE ... ORDER BY ... LIMIT" on
	 * the index whose status it changes read every due record before
	 * its LIMIT ("Using buffer"; 2,558 index entries a claim of 80 in
	 * scripts/bench -H, O(backlog) a claim).
	 */
	{ "webhook_lapsed",
	  "UPDATE webhook_deliveries d JOIN (SELECT id FROM webhook_deliveries "
	  "FORCE INDEX (webhook_deliveries_due) WHERE status = 'sending' "
	  "AND claim_until < ? LIMIT 1000 FOR UPDATE SKIP LOCKED) p "
	  "ON p.id = d.id SET d.status = 'pending', d.claim_token = NULL, "
	  "d.claim_until = NULL WHERE d.status = 'sending'" },
	{ "webhook_claim",
	  "UPDATE webhook_deliveries d JOIN (SELECT id FROM webhook_deliveries "
	  "FORCE INDEX (webhook_deliveries_turn) WHERE status = 'pending' "
	  "AND endpoint_id = ? AND next_attempt_at <= ? "
	  "ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED) p "
	  "ON p.id = d.id SET d.status = 'sending', d.claim_token = ?, "
	  "d.claim_until = ? WHERE d.status = 'pending'" },
	/*
	 * The claimed records, on the rows being sent, then each one's
	 * endpoint: with the statistics of a table the fan-out had just
	 * filled, the optimizer began from the endpoint and read all of its
	 * records (5,001 rows a claim in scripts/bench -H)
	 */
	{ "webhook_claimed",
	  "SELECT STRAIGHT_JOIN " DB_SELECT(WEBHOOK_SEND_COLS) " FROM "
	  "webhook_deliveries d FORCE INDEX (webhook_deliveries_due) "
	  "JOIN webhook_endpoints e FORCE INDEX (PRIMARY) ON e.id = "
	  "d.endpoint_id WHERE d.status = 'sending' AND d.claim_token = ?" },
	{ "webhook_finish",
	  "UPDATE webhook_deliveries SET status = ?, attempts = attempts + ?, "
	  "next_attempt_at = ?, response_status = ?, error = ?, "
	  "last_attempt_at = IF(? > 0, ?, last_attempt_at), claim_token = "
	  "NULL, claim_until = NULL, "
	  "updated_at = NOW(6) WHERE id = ? AND claim_token = ?" },
	/* WH_LEFT, WH_EVENTS_LEFT: what a pass leaves, counted up to ? */
	{ "webhook_left",
	  "SELECT COUNT(*) FROM (SELECT 1 FROM webhook_deliveries "
	  "FORCE INDEX (webhook_deliveries_due) WHERE status = 'pending' "
	  "AND next_attempt_at <= ? LIMIT ?) x" },
	{ "webhook_events_left",
	  "SELECT COUNT(*) FROM (SELECT 1 FROM outbox "
	  "FORCE INDEX (outbox_pending) WHERE topic = 'webhook' "
	  "AND processed_at IS NULL LIMIT ?) x" },
	/*
	 * WH_STATE_LOCK, WH_STATE_SET: the stop rules' state, read locked
	 * and written back (hookrules.h), so that outcomes of several
	 * passes at once follow one another
	 */
	{ "webhook_state_lock",
	  "SELECT " DB_SELECT(WEBHOOK_STATE_COLS) " FROM webhook_endpoints "
	  "WHERE tenant_id = ? AND id = ? FOR UPDATE" },
	{ "webhook_state_set",
	  "UPDATE webhook_endpoints SET status = IF(?, 'enabled', 'disabled'), "
	  "disabled_reason = ?, disabled_at = ?, consecutive_failures = ?, "
	  "unanswered = ?, pause_trips = ?, failing_since = ?, "
	  "paused_until = ?, failing_mailed_at = ?, last_success_at = ?, "
	  "last_failure_at = ?, "
	  "updated_at = NOW(6) WHERE tenant_id = ? AND id = ?" },
	/* WH_RECOVER: on the endpoint's records, newest last (ids, UUIDv7) */
	{ "webhook_recover",
	  "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, "
	  "next_attempt_at = NOW(6), response_status = NULL, error = NULL, "
	  "updated_at = NOW(6) WHERE tenant_id = ? AND endpoint_id = ? "
	  "AND status = 'failed' AND error = 'endpoint stopped' "
	  "AND created_at >= ? ORDER BY id LIMIT ?" },
	/* WH_OWNER: an operator's command names the endpoint alone */
	{ "webhook_owner",
	  "SELECT tenant_id FROM webhook_endpoints WHERE id = ? "
	  "AND deleted_at IS NULL" },
	{ "webhook_purge_events",
	  "DELETE FROM outbox WHERE topic = 'webhook' "
	  "AND processed_at < ? LIMIT 10000" },
	{ "webhook_purge_deliveries",
	  "DELETE FROM webhook_deliveries WHERE created_at < ? "
	  "AND status IN ('succeeded', 'failed') LIMIT 10000" },
};

#define DB_ROW struct webhook_endpoint_row
static const struct dbcol endpoint_cols[] = {
	DB_COLUMNS(WEBHOOK_ENDPOINT_COLS) };
#undef DB_ROW
#define DB_ROW struct webhook_delivery_row
static const struct dbcol delivery_cols[] = {
	DB_COLUMNS(WEBHOOK_DELIVERY_COLS) };
#undef DB_ROW
#define DB_ROW struct webhook_event_row
static const struct dbcol event_cols[] = { DB_COLUMNS(WEBHOOK_EVENT_COLS) };
#undef DB_ROW
#define DB_ROW struct webhook_send_row
static const struct dbcol send_cols[] = { DB_COLUMNS(WEBHOOK_SEND_COLS) };
#undef DB_ROW

static enum fb_err
run(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	return db_run(db, DBSET_WEBHOOK, id, &wh_sql[id], p, n, r);
}

static enum fb_err
changed(struct db *db, int id, const struct dbp *p, size_t n,
    unsigned long long *c)
{
	return db_changed(db, DBSET_WEBHOOK, id, &wh_sql[id], p, n, c);
}

static enum fb_err
rows(struct db *db, int id, const struct dbp *p, size_t n,
    const struct dbcol *cols,
    size_t ncols, size_t rowsize, bool one, struct dbrows *out)
{
	return db_rows(db, DBSET_WEBHOOK, id, &wh_sql[id], p, n, cols, ncols,
	    rowsize, one, out);
}

enum fb_err
db_webhook_endpoint_count(struct db *db, const char *tenant, long long *n)
{
	struct dbres	 r;
	enum fb_err	 e;

	if ((e = run(db, WH_COUNT, DBPARAMS(P_STR(tenant), P_STR(tenant)),
	    &r)) != FB_OK)
		return e;
	*n = dbres_int(&r, 0, 1);
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_webhook_endpoint_add(struct db *db, const char *id, const char *tenant,
    const char *url, const char *events, const unsigned char *sealed,
    size_t sealed_len, unsigned key_id)
{
	unsigned long long n;

	return changed(db, WH_INSERT,
	    DBPARAMS(P_STR(id), P_STR(tenant), P_STR(url),
	    P_STR(events), P_BIN(sealed, sealed_len), P_INT(key_id)), &n);
}

enum fb_err
db_webhook_endpoint_list(struct db *db, const char *tenant, const char *after,
    int n, struct dbrows *out)
{
	return rows(db, WH_LIST, DBPARAMS(P_STR(tenant),
	    P_STR(after != NULL ? after : DB_MAX_ID), P_INT(n)), endpoint_cols,
	    NELEM(endpoint_cols), sizeof(struct webhook_endpoint_row),
	    false, out);
}

enum fb_err
db_webhook_endpoint_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, WH_GET, DBPARAMS(P_STR(tenant), P_STR(id)),
	    endpoint_cols, NELEM(endpoint_cols),
	    sizeof(struct webhook_endpoint_row), true, out);
}

enum fb_err
db_webhook_endpoint_delete(struct db *db, const char *tenant, const char *id,
    bool *found)
{
	unsigned long long n = 0;
	enum fb_err	 e;

	e = changed(db, WH_DELETE, DBPARAMS(P_STR(tenant), P_STR(id)), &n);
	*found = n > 0;
	return e;
}

enum fb_err
db_webhook_delivery_list(struct db *db, const char *tenant,
    const char *endpoint, const char *after, int n, struct dbrows *out)
{
	return rows(db, WH_DLV_LIST, DBPARAMS(P_STR(tenant), P_STR(endpoint),
	    P_STR(after != NULL ? after : DB_MAX_ID), P_INT(n)), delivery_cols,
	    NELEM(delivery_cols), sizeof(struct webhook_delivery_row),
	    false, out);
}

enum fb_err
db_webhook_delivery_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, WH_DLV_GET, DBPARAMS(P_STR(tenant), P_STR(id)),
	    delivery_cols, NELEM(delivery_cols),
	    sizeof(struct webhook_delivery_row), true, out);
}

enum fb_err
db_webhook_delivery_endpoint_status(struct db *db, const char *tenant,
    const char *id, char status[16])
{
	struct dbres	 r;
	enum fb_err	 e;

	if ((e = run(db, WH_DLV_ENDPOINT, DBPARAMS(P_STR(tenant), P_STR(id)),
	    &r)) != FB_OK)
		return e;
	if (dbres_get(&r, 0, 0) == NULL)
		e = FB_ENOTFOUND;
	else
		snprintf(status, 16, "%s", dbres_get(&r, 0, 0));
	dbres_free(&r);
	return e;
}

enum fb_err
db_webhook_redeliver(struct db *db, const char *tenant, const char *of,
    const char *id)
{
	unsigned long long n = 0;
	enum fb_err	 e;

	e = changed(db, WH_REDELIVER,
	    DBPARAMS(P_STR(id), P_STR(tenant), P_STR(of)), &n);
	return e == FB_OK && n == 0 ? FB_ENOTFOUND : e;
}

enum fb_err
db_webhook_events_claim(struct db *db, const char *tenant, int n,
    struct dbrows *out)
{
	return rows(db, WH_EVENTS, DBPARAMS(P_STR(tenant), P_INT(n)),
	    event_cols,
	    NELEM(event_cols), sizeof(struct webhook_event_row), false, out);
}

enum fb_err
db_webhook_fan_tenants(struct db *db, int limit, struct dbrows *out)
{
	return rows(db, WH_FAN_TENANTS, DBPARAMS(P_INT(limit)), key_cols,
	    NELEM(key_cols), sizeof(struct key_row), false, out);
}

enum fb_err
db_webhook_subscribers(struct db *db, const char *tenant, const char *type,
    const char *at, struct dbrows *out)
{
	return rows(db, WH_SUBSCRIBERS, DBPARAMS(P_STR(tenant), P_STR(at),
	    P_STR(type)), key_cols, NELEM(key_cols), sizeof(struct key_row),
	    false, out);
}

/* The records of a fan-out: a statement per DB_MULTI_MAX. */
static const struct dbmulti records_insert = { DBM_WEBHOOK_DELIVERIES,
	"webhook_deliveries_add", "INSERT INTO webhook_deliveries (id, "
	"tenant_id, endpoint_id, event_id, event_type, body, next_attempt_at) "
	"VALUES ", "(?, ?, ?, ?, ?, ?, COALESCE(?, NOW(6)))" };
#define RECORD_NCOLS	7

enum fb_err
db_webhook_deliveries_add(struct db *db, const struct webhook_record *r,
    size_t n)
{
	struct dbp	 p[DB_MULTI_MAX * RECORD_NCOLS], *q;
	size_t		 i, k;
	enum fb_err	 e;

	for (i = 0; i < n; i += k) {
		for (k = 0, q = p; k < DB_MULTI_MAX && i + k < n; k++) {
			*q++ = P_STR(r[i + k].id);
			*q++ = P_STR(r[i + k].tenant);
			*q++ = P_STR(r[i + k].endpoint);
			*q++ = P_STR(r[i + k].event);
			*q++ = P_STR(r[i + k].type);
			*q++ = P_BIN(r[i + k].body, strlen(r[i + k].body));
			*q++ = P_STR(r[i + k].due);
		}
		if ((e = db_run_multi(db, &records_insert, k, p,
		    (size_t)(q - p))) != FB_OK)
			return e;
	}
	return FB_OK;
}

enum fb_err
db_webhook_events_done(struct db *db, const char *const *ids, size_t n)
{
	struct dbp	 p[WEBHOOK_FANOUT_MAX];
	unsigned long long c;

	if (n == 0 || n > WEBHOOK_FANOUT_MAX)
		return FB_EINVAL;
	db_params_in(p, WEBHOOK_FANOUT_MAX, ids, n);
	return changed(db, WH_EVENTS_DONE, p, NELEM(p), &c);
}

#define DB_ROW struct webhook_turn_row
static const struct dbcol turn_cols[] = { DB_COLUMNS(WEBHOOK_TURN_COLS) };
#undef DB_ROW
#define DB_ROW struct webhook_state_row
static const struct dbcol state_cols[] = { DB_COLUMNS(WEBHOOK_STATE_COLS) };
#undef DB_ROW

enum fb_err
db_webhook_turns(struct db *db, const char *now, int n, struct dbrows *out)
{
	return rows(db, WH_TURNS, DBPARAMS(P_STR(now), P_INT(n)), turn_cols,
	    NELEM(turn_cols), sizeof(struct webhook_turn_row), false, out);
}

static enum fb_err
lapsed_tx(struct db *db, void *arg)
{
	const char *const *now = arg;
	unsigned long long c;

	return changed(db, WH_LAPSED, DBPARAMS(P_STR(*now)), &c);
}

enum fb_err
db_webhook_lapsed(struct db *db, const char *now)
{
	return db_tx(db, lapsed_tx, &now);
}

struct claim_args {
	const struct webhook_claim_turn *t;
	size_t			 n;
	const char		*now, *until;
	const unsigned char	*token;
};

static enum fb_err
claim_tx(struct db *db, void *arg)
{
	const struct claim_args *a = arg;
	unsigned long long c;
	size_t		 i;
	enum fb_err	 e = FB_OK;

	for (i = 0; i < a->n && e == FB_OK; i++)
		e = changed(db, WH_CLAIM, DBPARAMS(P_STR(a->t[i].endpoint),
		    P_STR(a->now), P_INT(a->t[i].n), P_BIN(a->token, 16),
		    P_STR(a->until)), &c);
	return e;
}

enum fb_err
db_webhook_claim(struct db *db, const struct webhook_claim_turn *t, size_t n,
    const char *now, const char *until, const unsigned char token[16],
    bool in_tx, struct dbrows *out)
{
	struct claim_args a = { t, n, now, until, token };
	enum fb_err	 e;

	out->n = 0;
	out->row = NULL;
	/* another pass's claim crossing this one: the claim again */
	if ((e = in_tx ? claim_tx(db, &a) : db_tx(db, claim_tx, &a)) != FB_OK)
		return e;
	return rows(db, WH_CLAIMED, DBPARAMS(P_BIN(token, 16)), send_cols,
	    NELEM(send_cols), sizeof(struct webhook_send_row), false, out);
}

enum fb_err
db_webhook_left(struct db *db, const char *now, long long cap, long long *n)
{
	bool	 found;

	*n = 0;
	return db_value(db, DBSET_WEBHOOK, WH_LEFT, &wh_sql[WH_LEFT],
	    DBPARAMS(P_STR(now), P_INT(cap)), n, &found);
}

enum fb_err
db_webhook_events_left(struct db *db, long long cap, long long *n)
{
	bool	 found;

	*n = 0;
	return db_value(db, DBSET_WEBHOOK, WH_EVENTS_LEFT,
	    &wh_sql[WH_EVENTS_LEFT], DBPARAMS(P_INT(cap)), n, &found);
}

enum fb_err
db_webhook_finish(struct db *db, const char *id, const unsigned char token[16],
    const struct webhook_outcome *o, bool *applied)
{
	unsigned long long n = 0;
	enum fb_err	 e;

	e = changed(db, WH_FINISH, DBPARAMS(P_STR(o->status),
	    P_INT(o->attempted), P_STR(o->next),
	    o->response_status > 0 ? P_INT(o->response_status) : P_NULL,
	    P_STR(o->error), P_INT(o->attempted), P_STR(o->at), P_STR(id),
	    P_BIN(token, 16)), &n);
	*applied = e == FB_OK && n > 0;
	return e;
}

enum fb_err
db_webhook_state_lock(struct db *db, const char *tenant, const char *id,
    struct dbrows *row, struct hook_endpoint *e)
{
	const struct webhook_state_row *s;
	enum fb_err	 er;

	memset(e, 0, sizeof(*e));
	if ((er = rows(db, WH_STATE_LOCK, DBPARAMS(P_STR(tenant), P_STR(id)),
	    state_cols, NELEM(state_cols), sizeof(struct webhook_state_row),
	    true, row)) != FB_OK)
		return er;
	s = row->row;
	e->enabled = s->enabled;
	snprintf(e->disabled_reason, sizeof(e->disabled_reason), "%s",
	    s->disabled_reason != NULL ? s->disabled_reason : "");
	e->failures = s->failures;
	e->unanswered = s->unanswered;
	e->trips = s->trips;
	e->failing_since = s->failing_since;
	e->paused_until = s->paused_until;
	e->mailed_at = s->mailed_at;
	e->disabled_at = s->disabled_at;
	e->last_success = s->last_success;
	e->last_failure = s->last_failure;
	return FB_OK;
}

/* UTC seconds as a DATETIME parameter, 0 as NULL; t holds the text. */
static struct dbp
p_secs(long long secs, char t[32])
{
	if (secs == 0)
		return P_NULL;
	time_sql(secs, t);
	return P_STR(t);
}

enum fb_err
db_webhook_state_set(struct db *db, const char *tenant, const char *id,
    const struct hook_endpoint *e)
{
	char		 t[6][32];
	unsigned long long n;

	return changed(db, WH_STATE_SET, DBPARAMS(P_INT(e->enabled),
	    P_STR(e->disabled_reason[0] != '\0' ? e->disabled_reason : NULL),
	    p_secs(e->disabled_at, t[0]), P_INT(e->failures),
	    P_INT(e->unanswered), P_INT(e->trips),
	    p_secs(e->failing_since, t[1]), p_secs(e->paused_until, t[2]),
	    p_secs(e->mailed_at, t[3]), p_secs(e->last_success, t[4]),
	    p_secs(e->last_failure, t[5]), P_STR(tenant), P_STR(id)), &n);
}

enum fb_err
db_webhook_recover(struct db *db, const char *tenant, const char *endpoint,
    const char *since, int max, unsigned long long *n)
{
	*n = 0;
	return changed(db, WH_RECOVER, DBPARAMS(P_STR(tenant), P_STR(endpoint),
	    P_STR(since != NULL ? since : DB_TIME_MIN), P_INT(max)), n);
}

enum fb_err
db_webhook_owner(struct db *db, const char *id, char tenant[UUID_STRLEN + 1])
{
	struct dbres	 r;
	enum fb_err	 e;

	if ((e = run(db, WH_OWNER, DBPARAMS(P_STR(id)), &r)) != FB_OK)
		return e;
	if (dbres_get(&r, 0, 0) == NULL)
		e = FB_ENOTFOUND;
	else
		snprintf(tenant, UUID_STRLEN + 1, "%s", dbres_get(&r, 0, 0));
	dbres_free(&r);
	return e;
}

enum fb_err
db_webhook_purge(struct db *db, const char *before, unsigned long long *n)
{
	unsigned long long a = 0, b = 0;
	enum fb_err	 e;

	if ((e = changed(db, WH_PURGE_EVENTS, DBPARAMS(P_STR(before)),
	    &a)) == FB_OK)
		e = changed(db, WH_PURGE_DELIVERIES, DBPARAMS(P_STR(before)),
		    &b);
	*n = a + b;
	return e;
}
