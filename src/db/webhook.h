/*
 * src/db/webhook.c: webhook endpoints, deliveries and formback-webhooks'
 * claims; store.h includes every such header.
 */
#ifndef FORMBACK_DB_WEBHOOK_H
#define FORMBACK_DB_WEBHOOK_H

#include "db.h"

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
	N(attempts, INT, "d.attempts") \
	N(next_attempt_at, TIME, "d.next_attempt_at") \
	N(response_status, NINT, "d.response_status") \
	N(error, TEXT, "d.error") \
	N(last_attempt_at, TIME, "d.last_attempt_at") \
	N(created_at, TIME, "d.created_at")
struct webhook_delivery_row { DB_FIELDS(WEBHOOK_DELIVERY_COLS) };

/* Endpoints of the tenant not deleted (the plan's cap counts them). */
enum fb_err db_webhook_endpoint_count(struct db *, const char *tenant,
	    long long *n) FB_WUR;
/* A new endpoint; events is a JSON array, the secret sealed (pii_seal). */
enum fb_err db_webhook_endpoint_add(struct db *, const char *id,
	    const char *tenant, const char *url, const char *events,
	    const unsigned char *sealed, size_t sealed_len,
	    unsigned key_id) FB_WUR;
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
	    const char *endpoint, const char *after, int n,
	    struct dbrows *) FB_WUR;
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
#define WEBHOOK_EVENT_COLS(F, N) F(id, TEXT, "id") N(tenant_id, TEXT, \
    "tenant_id") \
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
	N(tenant_id, TEXT, "d.tenant_id") \
	N(endpoint_id, TEXT, "d.endpoint_id") \
	N(event_id, TEXT, "d.event_id") N(event_type, TEXT, "d.event_type") \
	N(body, BIN, "d.body") N(attempts, INT, "d.attempts") \
	N(url, TEXT, "e.url") N(secret_sealed, BIN, "e.secret_sealed") \
	N(secret_key_id, INT, "e.secret_key_id") \
	N(endpoint_stopped, BOOL, \
	    "e.status <> 'enabled' OR e.deleted_at IS NOT NULL")
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

#endif
