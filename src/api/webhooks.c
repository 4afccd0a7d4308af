/*
 * Webhook endpoints and their delivery log (contract: Webhook endpoints,
 * Events, Idempotency 6; design 1, 5; issue 14).  The secret is answered
 * by create alone and never stored in the idempotency record; it is kept
 * sealed under the master key, for formback-webhooks to sign with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "../api.h"
#include "../ops/webhook.h"
#include "../rowjson.h"
#include "../events.h"
#include "../hookrules.h"
#include "../netguard.h"
#include "../pii.h"
#include "../db/store.h"

#define SECRET_PREFIX	"whsec_"
/* records a recover puts back at most (a call again takes the rest) */
#define RECOVER_MAX	10000
/* design 1: "whsec_" + padded standard base64 of 32 random bytes */
#define SECRET_LEN	(sizeof(SECRET_PREFIX) - 1 + 44)

enum fb_err
api_webhooks_list(struct req *r)
{
	struct page	 pg;
	struct dbrows	 rows;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	if ((e = db_webhook_endpoint_list(r->db, r->auth.tenant_id,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct webhook_endpoint_row),
	    offsetof(struct webhook_endpoint_row,
	    id), webhook_endpoint_json, NULL);
}

/*
 * The events of the body as a JSON array of known types, each once, in
 * the order given; writes the 4xx and answers -1 otherwise.
 */
static int
events_from_body(struct req *r, json_object **out)
{
	json_object	*v, *ev, *list;
	const char	*s;
	size_t		 i, k, n;

	*out = json_object_new_array();
	if (!json_object_object_get_ex(r->json, "events", &v) || v == NULL)
		return 0;
	if (!json_object_is_type(v, json_type_array) ||
	    (n = json_object_array_length(v)) > 32) {
		(void)api_error(r, AC_PARAMETER_INVALID, "events");
		return -1;
	}
	list = *out;
	for (i = 0; i < n; i++) {
		ev = json_object_array_get_idx(v, i);
		if (!json_object_is_type(ev, json_type_string)) {
			(void)api_error(r, AC_PARAMETER_INVALID, "events");
			return -1;
		}
		s = json_object_get_string(ev);
		if (!event_type_known(s)) {
			(void)api_error(r, AC_UNKNOWN_EVENT, "events");
			return -1;
		}
		for (k = 0; k < json_object_array_length(list); k++)
			if (strcmp(json_object_get_string(
			    json_object_array_get_idx(list, k)), s) == 0)
				break;
		if (k == json_object_array_length(list))
			json_object_array_add(list, json_object_new_string(s));
	}
	return 0;
}

/* POST /webhook_endpoints (contract: create rules). */
enum fb_err
api_webhooks_create(struct req *r)
{
	const char	*in, *why;
	char		 url[URL_MAX + 1], id[UUID_STRLEN + 1];
	char		 secret[SECRET_LEN + 1];
	unsigned char	 raw[32], sealed[PII_SEALED_MAX(SECRET_LEN)];
	size_t		 slen;
	json_object	*events;
	struct dbrows	 row;
	struct jgen	 j;
	enum plan	 plan;
	long long	 n;
	enum fb_err	 e;

	if (body_str(r, "url", true, URL_MAX, &in) < 0)
		return FB_OK;
	if (events_from_body(r, &events) < 0) {
		json_object_put(events);
		return FB_OK;
	}
	if (!net_url_ok(r->conf, in, true, url, &why)) {
		json_object_put(events);
		logx(LOG_INFO, "webhook url refused: %s", why);
		return api_error(r, AC_INVALID_WEBHOOK_URL, "url");
	}
	if ((e = db_tenant_plan(r->db, r->auth.tenant_id, &plan)) != FB_OK ||
	    (e = db_webhook_endpoint_count(r->db, r->auth.tenant_id,
	    &n)) != FB_OK) {
		json_object_put(events);
		return e;
	}
	if (n >= plans[plan].webhook_endpoints) {
		json_object_put(events);
		return api_error(r, AC_PLAN_LIMIT_EXCEEDED, NULL);
	}
	uuid_v7(id);
	randombytes_buf(raw, sizeof(raw));
	memcpy(secret, SECRET_PREFIX, sizeof(SECRET_PREFIX) - 1);
	sodium_bin2base64(secret + sizeof(SECRET_PREFIX) - 1,
	    sizeof(secret) - (sizeof(SECRET_PREFIX) - 1), raw, sizeof(raw),
	    sodium_base64_VARIANT_ORIGINAL);
	sodium_memzero(raw, sizeof(raw));
	slen = pii_seal(r->conf->master_key, r->auth.tenant_id, id,
	    "webhook_secret", secret, sealed);
	e = db_webhook_endpoint_add(r->db, id, r->auth.tenant_id, url,
	    json_object_to_json_string_ext(events, JSON_C_TO_STRING_PLAIN),
	    sealed, slen, r->conf->master_key_id);
	json_object_put(events);
	if (e == FB_OK)
		e = db_webhook_endpoint_get(r->db, r->auth.tenant_id, id, &row);
	if (e != FB_OK) {
		sodium_memzero(secret, sizeof(secret));
		return e;
	}
	r->audit_type = "webhook_endpoint";
	memcpy(r->audit_id, id, sizeof(id));
	/* Idempotency 6: what a replay answers, the secret left out */
	req_gen_begin(r, &j);
	webhook_endpoint_json(&j, row.row);
	jg_str(&j, "secret", NULL);
	if ((e = req_gen_end(r, &j, 201)) == FB_OK)
		e = req_keep_for_replay(r);
	if (e == FB_OK) {
		req_gen_begin(r, &j);
		webhook_endpoint_json(&j, row.row);
		jg_str(&j, "secret", secret);
		e = req_gen_end(r, &j, 201);
	}
	sodium_memzero(secret, sizeof(secret));
	dbrows_free(&row);
	return e;
}

enum fb_err
api_webhooks_get(struct req *r)
{
	struct dbrows	 row;
	enum fb_err	 e;

	e = db_webhook_endpoint_get(r->db, r->auth.tenant_id,
	    req_pathvar(r, "endpoint_id"), &row);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "endpoint_id");
	if (e != FB_OK)
		return e;
	e = req_row(r, 200, webhook_endpoint_json, row.row);
	dbrows_free(&row);
	return e;
}

enum fb_err
api_webhooks_delete(struct req *r)
{
	const char	*id = req_pathvar(r, "endpoint_id");
	bool		 found;
	enum fb_err	 e;

	if ((e = db_webhook_endpoint_delete(r->db, r->auth.tenant_id, id,
	    &found)) != FB_OK)
		return e;
	if (!found)
		return api_error(r, AC_NOT_FOUND, "endpoint_id");
	r->audit_type = "webhook_endpoint";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	req_empty(r, 204);
	return FB_OK;
}

enum fb_err
api_webhook_deliveries_list(struct req *r)
{
	struct page	 pg;
	struct dbrows	 rows;
	const char	*ep = req_pathvar(r, "endpoint_id");
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	e = db_webhook_endpoint_get(r->db, r->auth.tenant_id, ep, &rows);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "endpoint_id");
	if (e != FB_OK)
		return e;
	dbrows_free(&rows);
	if ((e = db_webhook_delivery_list(r->db, r->auth.tenant_id, ep,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct webhook_delivery_row),
	    offsetof(struct webhook_delivery_row,
	    id), webhook_delivery_json, NULL);
}

/* The answer of a record just queued (redeliver, test): 202 and the row. */
static enum fb_err
delivery_queued(struct req *r, const char id[UUID_STRLEN + 1])
{
	struct dbrows	 row;
	enum fb_err	 e;

	if ((e = db_webhook_delivery_get(r->db, r->auth.tenant_id, id,
	    &row)) != FB_OK)
		return e;
	r->audit_type = "webhook_delivery";
	memcpy(r->audit_id, id, UUID_STRLEN + 1);
	e = req_row(r, 202, webhook_delivery_json, row.row);
	dbrows_free(&row);
	return e;
}

/* POST /webhook_deliveries/{id}/redeliver: the same event, queued anew. */
enum fb_err
api_webhook_redeliver(struct req *r)
{
	const char	*of = req_pathvar(r, "delivery_id");
	char		 status[16], id[UUID_STRLEN + 1];
	enum fb_err	 e;

	e = db_webhook_delivery_endpoint_status(r->db, r->auth.tenant_id, of,
	    status);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "delivery_id");
	if (e != FB_OK)
		return e;
	if (strcmp(status, "enabled") != 0)
		return api_error(r, AC_WEBHOOK_ENDPOINT_DISABLED,
		    "delivery_id");
	uuid_v7(id);
	if ((e = db_webhook_redeliver(r->db, r->auth.tenant_id, of,
	    id)) != FB_OK)
		return e;
	return delivery_queued(r, id);
}

/*
 * The tenant's endpoint of the path, not deleted, into *row (caller
 * frees); writes the 404 and answers false when there is none.
 */
static bool
endpoint_of(struct req *r, struct dbrows *row, enum fb_err *e)
{
	*e = db_webhook_endpoint_get(r->db, r->auth.tenant_id,
	    req_pathvar(r, "endpoint_id"), row);
	if (*e == FB_ENOTFOUND) {
		*e = api_error(r, AC_NOT_FOUND, "endpoint_id");
		return false;
	}
	return *e == FB_OK;
}

/*
 * POST /webhook_endpoints/{id}/enable (a session; issue 40): the endpoint
 * sends again, its failures and any pause forgotten (hookrules.h), in
 * the transaction of its audit row; answers it as get does.
 */
enum fb_err
api_webhooks_enable(struct req *r)
{
	const char	*id = req_pathvar(r, "endpoint_id");
	struct dbrows	 row;
	enum fb_err	 e;

	e = webhook_enable(r->db, r->auth.tenant_id, id);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "endpoint_id");
	if (e != FB_OK || !endpoint_of(r, &row, &e))
		return e;
	r->audit_type = "webhook_endpoint";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	e = req_row(r, 200, webhook_endpoint_json, row.row);
	dbrows_free(&row);
	return e;
}

/*
 * POST /webhook_endpoints/{id}/recover[?since=] (a session; issue 40, as
 * Svix's recover): the endpoint's records that ended "endpoint stopped"
 * (created at `since` or later) are pending again, from their first
 * attempt, due at once; up to RECOVER_MAX a call (has_more: call again).
 * 409 webhook_endpoint_disabled while the endpoint is stopped.
 */
enum fb_err
api_webhooks_recover(struct req *r)
{
	const char	*id = req_pathvar(r, "endpoint_id"), *q;
	const struct webhook_endpoint_row *w;
	struct dbrows	 row;
	struct jgen	 j;
	unsigned long long n;
	int64_t		 t;
	char		 since[32];
	bool		 stopped;
	enum fb_err	 e;

	if (!endpoint_of(r, &row, &e))
		return e;
	w = row.row;
	stopped = strcmp(w->status, "enabled") != 0;
	dbrows_free(&row);
	if (stopped)
		return api_error(r, AC_WEBHOOK_ENDPOINT_DISABLED,
		    "endpoint_id");
	if ((q = req_query(r, "since")) != NULL) {
		if (!time_parse_iso8601(q, &t))
			return api_error(r, AC_PARAMETER_INVALID, "since");
		time_sql(t, since);
	}
	if ((e = db_webhook_recover(r->db, r->auth.tenant_id, id,
	    q != NULL ? since : NULL, RECOVER_MAX, &n)) != FB_OK)
		return e;
	r->audit_type = "webhook_endpoint";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	req_gen_begin(r, &j);
	jg_str(&j, "object", "webhook_recovery");
	jg_str(&j, "endpoint_id", id);
	jg_int(&j, "queued", (long long)n);
	jg_bool(&j, "has_more", n >= RECOVER_MAX);
	return req_gen_end(r, &j, 202);
}

/*
 * POST /webhook_endpoints/{id}/test[?event_type=] (a session; issue 40,
 * as Stripe's and Svix's test events): one record of a new event of that
 * type (else the endpoint's first, else lead.captured) for this endpoint
 * alone, its data the type's sample with every id the nil UUID (events.h),
 * due at once, sent, signed and retried as any; answered as redeliver is.
 */
enum fb_err
api_webhooks_test(struct req *r)
{
	const char	*id = req_pathvar(r, "endpoint_id"), *type;
	const struct webhook_endpoint_row *w;
	const struct event_type *t = NULL;
	json_object	*ev, *env;
	struct dbrows	 row;
	struct webhook_record rec;
	char		 eid[UUID_STRLEN + 1], did[UUID_STRLEN + 1], now[32];
	bool		 stopped;
	enum fb_err	 e;

	if (!endpoint_of(r, &row, &e))
		return e;
	w = row.row;
	if ((type = req_query(r, "event_type")) != NULL)
		t = event_type_find(type);
	else if ((ev = json_tokener_parse(w->events)) != NULL) {
		if (json_object_array_length(ev) > 0)
			t = event_type_find(json_object_get_string(
			    json_object_array_get_idx(ev, 0)));
		json_object_put(ev);
	}
	if (t == NULL && type == NULL)
		t = event_type_find("lead.captured");
	stopped = strcmp(w->status, "enabled") != 0;
	dbrows_free(&row);
	if (stopped)
		return api_error(r, AC_WEBHOOK_ENDPOINT_DISABLED,
		    "endpoint_id");
	if (t == NULL)
		return api_error(r, AC_UNKNOWN_EVENT, "event_type");
	uuid_v7(eid);
	uuid_v7(did);
	time_sql((int64_t)time(NULL), now);
	env = event_envelope(eid, t->name, now, r->auth.tenant_id, t->sample);
	rec = (struct webhook_record){ did, r->auth.tenant_id, id, eid, t->name,
	    json_text(env), NULL };
	e = db_webhook_deliveries_add(r->db, &rec, 1);
	json_object_put(env);
	return e != FB_OK ? e : delivery_queued(r, did);
}
