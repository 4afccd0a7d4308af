/*
 * Webhook endpoints and formback-webhooks (contract: Webhook endpoints,
 * Events; issue 14) against the receiver stand-in on loopback
 * (tests/standins/webhook_receiver.py; names and the test-only resolver
 * in tests/integ/harness.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sodium.h>

#include "harness.h"

#define J(...) #__VA_ARGS__

static char *
hook_url(const char *host, const char *path)
{
	static char	 u[256];

	snprintf(u, sizeof(u), "https://%s:%s%s", host, getenv("FB_HOOK_PORT"),
	    path);
	return u;
}

/* POST an endpoint; the response (caller frees). */
static struct resp *
endpoint(const char *key, const char *url, const char *events, const char *hdr)
{
	char	 b[1024];

	snprintf(b, sizeof(b), "{\"url\":\"%s\",\"events\":%s}", url, events);
	return http("POST", "/api/v1/webhook_endpoints", key, b, hdr);
}

#define LEAD_ID		"0190a000-0000-7000-8000-000000000001"
#define CAMPAIGN_ID	"0190a000-0000-7000-8000-000000000002"
#define SITE_ID		"0190a000-0000-7000-8000-000000000003"

/*
 * The data of an event of type `type` as its producer writes it: every
 * body the receiver is sent is checked against the event's webhook in
 * openapi.json (tests/integ/validate.mjs), fixtures' too.
 */
static const char *
sample_data(const char *type)
{
	static const struct {
		const char	*type, *data;
	} s[] = {
		{ "lead.captured",
		  "{\"lead_id\":\"" LEAD_ID "\",\"campaign_id\":\""
		  CAMPAIGN_ID "\",\"site_id\":\"" SITE_ID "\","
		  "\"channels\":[\"sms\",\"email\"]}" },
		{ "lead.abandoned",
		  "{\"lead_id\":\"" LEAD_ID "\",\"campaign_id\":\""
		  CAMPAIGN_ID "\",\"abandoned_at\":\"2026-11-24T00:00:00Z\"}" },
		{ "delivery.sent",
		  "{\"delivery_id\":\"0190a000-0000-7000-8000-000000000004\","
		  "\"lead_id\":\"" LEAD_ID "\","
		  "\"campaign_id\":\"" CAMPAIGN_ID "\","
		  "\"channel\":\"sms\",\"step\":1,\"status\":\"sent\"}" },
		{ "delivery.failed",
		  "{\"delivery_id\":\"0190a000-0000-7000-8000-000000000004\","
		  "\"lead_id\":\"" LEAD_ID "\","
		  "\"campaign_id\":\"" CAMPAIGN_ID "\","
		  "\"channel\":\"email\",\"step\":null,\"status\":\"failed\","
		  "\"error_code\":\"provider_rejected\"}" },
		{ "conversion.detected",
		  "{\"lead_id\":\"" LEAD_ID "\",\"campaign_id\":\""
		  CAMPAIGN_ID "\",\"site_id\":\"" SITE_ID "\","
		  "\"conversion_source\":\"tag\","
		  "\"converted_at\":\"2026-11-24T00:00:00Z\"}" },
	};
	size_t	 i;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (strcmp(s[i].type, type) == 0)
			return s[i].data;
	cr_assert_fail("no sample data for %s", type);
	return NULL;
}

/* A whole body of event `type`, as formback-webhooks stores it. */
static const char *
sample_body(const char *tenant, const char *type)
{
	static char	 b[1024];

	snprintf(b, sizeof(b),
	    "{\"id\":\"0190a000-0000-7000-8000-000000000005\","
	    "\"type\":\"%s\",\"created_at\":\"2026-11-24T00:00:00Z\","
	    "\"tenant_id\":\"%s\",\"data\":%s}", type, tenant,
	    sample_data(type));
	return b;
}

/*
 * An event of the system, as its producers write it, after `id`'s
 * endpoint: `data`, or its type's sample when NULL.
 */
static void
outbox_event(const char *tenant, const char *type, const char *data,
    char id[40])
{
	snprintf(id, 40, "%s", sql("SELECT UUID()"));
	sql("INSERT INTO outbox (id, tenant_id, topic, event_type, payload, "
	    "created_at) VALUES ('%s', '%s', 'webhook', '%s', '%s', NOW(6) + "
	    "INTERVAL 1 SECOND)",
	    id, tenant, type, data != NULL ? data : sample_data(type));
}

/* The clock when the test began: passes are run at times after it. */
static time_t	 t0;

/*
 * One pass of formback-webhooks at t0 (set on first use) plus `plus` s,
 * with options `args` (--limit, --jobs).
 */
static int
hooks_pass_with(long long plus, const char *conf, const char *args)
{
	char	 cmd[1024], at[32];
	time_t	 t;

	if (t0 == 0)
		t0 = time(NULL);
	t = t0 + (time_t)plus;

	strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	snprintf(cmd, sizeof(cmd), "%s%s%s\"$FB_CTL_DIR/formback-webhooks\" "
	    "%s --now %s", conf != NULL ? "FORMBACK_CONF=" : "",
	    conf != NULL ? conf : "", conf != NULL ? " " : "", args, at);
	return system(cmd);
}

/* The same, sending at most `limit` records. */
static int
hooks_pass_limit(long long plus, const char *conf, long limit)
{
	char	 args[64];

	snprintf(args, sizeof(args), "--limit %ld", limit);
	return hooks_pass_with(plus, conf, args);
}

static int
hooks_pass(long long plus, const char *conf)
{
	return hooks_pass_limit(plus, conf, 100000);
}

/*
 * A new tenant (plan pro) with an endpoint taking lead.captured at the
 * receiver's /ok, made after a pass that has sent what other tests left;
 * the endpoint's id into id.
 */
static void
fx_ok_endpoint(struct fx *f, char id[40])
{
	struct resp	*r;

	fx_new(f, "pro", 0);
	cr_assert_eq(hooks_pass(1, NULL), 0);
	r = endpoint(f->live, hook_url("hooks.formback.test", "/ok"),
	    J(["lead.captured"]), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(id, 40, "%s", jget(r->json, "id"));
	resp_free(r);
}

/* The receiver's requests to `path` (JSON objects; caller puts). */
static json_object *
received(const char *path)
{
	json_object	*all = json_object_new_array(), *o, *p;
	FILE		*f = fopen(getenv("FB_HOOK_FILE"), "r");
	char		 line[65536];

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		if ((o = json_tokener_parse(line)) == NULL)
			continue;
		if (json_object_object_get_ex(o, "path", &p) &&
		    strcmp(json_object_get_string(p), path) == 0)
			json_object_array_add(all, o);
		else
			json_object_put(o);
	}
	if (f != NULL)
		fclose(f);
	return all;
}

static const char *
rget(json_object *req, const char *header)
{
	json_object	*h, *v;

	if (!json_object_object_get_ex(req, "headers", &h) ||
	    !json_object_object_get_ex(h, header, &v))
		return NULL;
	return json_object_get_string(v);
}

/* The body's exact bytes (base64 in the receiver's log), NUL-terminated. */
static size_t
rbody(json_object *req, unsigned char *out, size_t outsz)
{
	json_object	*b;
	size_t		 n = 0;

	cr_assert(json_object_object_get_ex(req, "body", &b));
	cr_assert_eq(sodium_base642bin(out, outsz - 1,
	    json_object_get_string(b),
	    strlen(json_object_get_string(b)), NULL, &n, NULL,
	    sodium_base64_VARIANT_ORIGINAL), 0);
	out[n] = '\0';
	return n;
}

/* A receiver checking X-Formback-Signature from the contract alone. */
static bool
contract_verify(const char *secret, const char *header,
    const unsigned char *body,
    size_t n)
{
	char		 t[32] = "", v1[80] = "", hex[65];
	unsigned char	 mac[32], signed_[16384];
	unsigned	 len = 32;

	if (header == NULL ||
	    sscanf(header, "t=%31[0-9],v1=%64[0-9a-f]", t, v1) != 2)
		return false;
	if (llabs(strtoll(t, NULL, 10) - (long long)time(NULL)) > 300)
		return false;
	/* "<t>." then the raw body bytes */
	cr_assert_lt(strlen(t) + 1 + n, sizeof(signed_));
	memcpy(signed_, t, strlen(t));
	signed_[strlen(t)] = '.';
	memcpy(signed_ + strlen(t) + 1, body, n);
	HMAC(EVP_sha256(), secret, (int)strlen(secret), signed_,
	    strlen(t) + 1 + n,
	    mac, &len);
	sodium_bin2hex(hex, sizeof(hex), mac, 32);
	return strlen(v1) == 64 && sodium_memcmp(hex, v1, 64) == 0;
}

/* The Standard Webhooks check: key = the secret's bytes, "id.t.body". */
static bool
standard_verify(const char *secret, json_object *req, const unsigned char *body,
    size_t n)
{
	const char	*id = rget(req, "webhook-id"), *t = rget(req,
	    "webhook-timestamp");
	const char	*sig = rget(req, "webhook-signature");
	unsigned char	 key[64], mac[32], signed_[16384];
	char		 b64[64];
	size_t		 kl, o;
	unsigned	 len = 32;

	if (id == NULL || t == NULL || sig == NULL ||
	    strncmp(sig, "v1,", 3) != 0 ||
	    sodium_base642bin(key, sizeof(key), secret + 6, strlen(secret + 6),
	    NULL,
	    &kl, NULL, sodium_base64_VARIANT_ORIGINAL) != 0)
		return false;
	/* "<webhook-id>.<webhook-timestamp>." then the body */
	cr_assert_lt(strlen(id) + strlen(t) + 2 + n, sizeof(signed_));
	o = (size_t)sprintf((char *)signed_, "%s.%s.", id, t);
	memcpy(signed_ + o, body, n);
	HMAC(EVP_sha256(), key, (int)kl, signed_, o + n, mac, &len);
	sodium_bin2base64(b64, sizeof(b64), mac, 32,
	    sodium_base64_VARIANT_ORIGINAL);
	return strcmp(sig + 3, b64) == 0;
}

Test(webhooks, endpoints_api)
{
	struct fx	 f, g, free_plan;
	struct resp	*r;
	char		 id[40], secret[80], key[80], kid[40], b[512];
	unsigned char	 raw[64];
	size_t		 n;

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	r = endpoint(f.live, hook_url("hooks.formback.test", "/ok"),
	    J(["lead.captured","delivery.sent","lead.captured"]), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(id, sizeof(id), "%s", jget(r->json, "id"));
	snprintf(secret, sizeof(secret), "%s", jget(r->json, "secret"));
	/* design 1: whsec_ + padded standard base64 of 32 bytes */
	cr_assert_eq(strncmp(secret, "whsec_", 6), 0);
	cr_assert_eq(strlen(secret), 6 + 44);
	cr_assert_eq(sodium_base642bin(raw, sizeof(raw), secret + 6, 44, NULL,
	    &n,
	    NULL, sodium_base64_VARIANT_ORIGINAL), 0);
	cr_assert_eq(n, 32);
	cr_assert_str_eq(jget(r->json, "object"), "webhook_endpoint");
	cr_assert_str_eq(jget(r->json, "status"), "enabled");
	cr_assert_null(jget(r->json, "disabled_reason"));
	cr_assert_eq(json_object_array_length(jobj(r->json, "events")), 2);
	cr_assert_str_eq(jget(r->json, "url"),
	    hook_url("hooks.formback.test", "/ok"));
	resp_free(r);
	/* the secret is shown once: never by get or list, never stored clear */
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s", id);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_null(strstr(r->body, "secret"));
	cr_assert_null(strstr(r->body, secret + 6));
	resp_free(r);
	r = http("GET", "/api/v1/webhook_endpoints", f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "data.0.id"), id);
	cr_assert_null(strstr(r->body, secret + 6));
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_endpoints WHERE "
	    "LOCATE('%s', secret_sealed) > 0", secret + 6), "0");
	/* another tenant's endpoint is a missing one */
	r = http("GET", b, g.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "endpoint_id");
	resp_free(r);
	/* Idempotency 6: a replay does not carry the secret */
	r = endpoint(f.live, hook_url("hooks.formback.test", "/idem"), "[]",
	    "Idempotency-Key: wh-idem-1");
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_not_null(jget(r->json, "secret"));
	snprintf(kid, sizeof(kid), "%s", jget(r->json, "id"));
	resp_free(r);
	r = endpoint(f.live, hook_url("hooks.formback.test", "/idem"), "[]",
	    "Idempotency-Key: wh-idem-1");
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(resp_header(r, "Idempotency-Replayed"), "true");
	cr_assert_str_eq(jget(r->json, "id"), kid);
	cr_assert_null(jget(r->json, "secret"));
	resp_free(r);
	/* create rules */
	r = endpoint(f.live, hook_url("hooks.formback.test", "/ok"),
	    J(["lead.sent"]), NULL);
	expect_error(r, 422, "invalid_request", "unknown_event", "events");
	resp_free(r);
	r = endpoint(f.live, hook_url("hooks.formback.test", "/ok"),
	    J("lead.captured"), NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid", "events");
	resp_free(r);
	r = http("POST", "/api/v1/webhook_endpoints", f.live, J({"events":[]}),
	    NULL);
	expect_error(r, 422, "invalid_request", "parameter_missing", "url");
	resp_free(r);
	/* a test key: the same answer, nothing kept */
	r = endpoint(f.test, hook_url("hooks.formback.test", "/dry"), "[]",
	    NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_not_null(jget(r->json, "secret"));
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s",
	    jget(r->json, "id"));
	resp_free(r);
	r = http("GET", b, f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "endpoint_id");
	resp_free(r);
	/* the plan's cap: none on Free, 2 on Starter */
	fx_new(&free_plan, "free", 0);
	r = endpoint(free_plan.live, hook_url("hooks.formback.test", "/ok"),
	    "[]", NULL);
	expect_error(r, 403, "permission_error", "plan_limit_exceeded", NULL);
	resp_free(r);
	fx_new(&free_plan, "starter", 0);
	for (n = 0; n < 3; n++) {
		r = endpoint(free_plan.live,
		    hook_url("hooks.formback.test", "/ok"), "[]", NULL);
		if (n < 2)
			cr_assert_eq(r->status, 201, "%s", r->body);
		else
			expect_error(r, 403, "permission_error",
			    "plan_limit_exceeded", NULL);
		resp_free(r);
	}
	/* every operation needs webhooks:write, reads included */
	fx_key(&f, "live", "sites:read", key, kid);
	r = http("GET", "/api/v1/webhook_endpoints", key, NULL, NULL);
	expect_error(r, 403, "permission_error", "scope_insufficient", NULL);
	resp_free(r);
	/* delete */
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s", id);
	r = http("DELETE", b, f.live, NULL, NULL);
	cr_assert_eq(r->status, 204, "%s", r->body);
	resp_free(r);
	r = http("GET", b, f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "endpoint_id");
	resp_free(r);
	r = http("DELETE", b, f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "endpoint_id");
	resp_free(r);
}

/* 40+ hostile URLs and address forms: none is registered (SSRF). */
Test(webhooks, internal_addresses_refused)
{
	static const char *const bad[] = {
		"http://hooks.formback.test/ok", "ftp://example.com/",
		"not a url", "https://", "https://127.0.0.1/", "https://127.1/",
		"https://0177.0.0.1/", "https://0x7f000001/",
		"https://2130706433/", "https://127.255.255.254/",
		"https://localhost/", "https://LOCALHOST./", "https://[::1]/",
		"https://[::]/", "https://0.0.0.0/", "https://0/",
		"https://10.0.0.1/", "https://10.255.255.255/",
		"https://172.16.0.1/", "https://172.31.255.1/",
		"https://192.168.0.1/",
		"https://169.254.169.254/latest/meta-data/",
		"https://100.64.0.1/", "https://100.127.255.254/",
		"https://192.0.0.8/", "https://192.0.2.1/",
		"https://198.18.0.1/", "https://198.51.100.7/",
		"https://203.0.113.9/", "https://224.0.0.1/",
		"https://239.255.255.250/", "https://240.0.0.1/",
		"https://255.255.255.255/", "https://[::ffff:127.0.0.1]/",
		"https://[::ffff:7f00:1]/", "https://[::ffff:10.0.0.1]/",
		"https://[::127.0.0.1]/", "https://[64:ff9b::a9fe:a9fe]/",
		"https://[64:ff9b:1::1]/", "https://[2002:7f00:1::1]/",
		"https://[2002:c0a8:101::]/", "https://[fc00::1]/",
		"https://[fd12:3456::1]/", "https://[fe80::1]/",
		"https://[fec0::1]/", "https://[ff02::1]/",
		"https://[2001:db8::1]/", "https://[2001::1]/",
		"https://[100::1]/", "https://inside.formback.test/",
		"https://loop6.formback.test/", "https://user:pass@127.0.0.1/",
		"https://127.0.0.1:8443/", "https://nowhere.invalid/",
	};
	struct fx	 f;
	struct resp	*r;
	size_t		 i;

	fx_new(&f, "pro", 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = endpoint(f.live, bad[i], "[]", NULL);
		cr_expect_eq(r->status, 422, "%s: %ld %s", bad[i], r->status,
		    r->body);
		cr_expect_str_eq(jget(r->json, "error.code"),
		    "invalid_webhook_url",
		    "%s: %s", bad[i], r->body);
		resp_free(r);
	}
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_endpoints WHERE "
	    "tenant_id = '%s'",
	    f.tenant), "0");
	/* a public name is taken */
	r = endpoint(f.live, "https://public.formback.test/hook", "[]", NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
}

Test(webhooks, delivered_signed_redelivered, .timeout = 60)
{
	struct fx	 f;
	struct resp	*r;
	json_object	*got, *env;
	char		 id[40], secret[80], ev[40], dlv[40], b[512], send1[64];
	unsigned char	 body[8192], body2[8192];
	size_t		 n, n2, before;

	fx_new(&f, "pro", 0);
	before = json_object_array_length(got = received("/signed"));
	json_object_put(got);
	r = endpoint(f.live, hook_url("hooks.formback.test", "/signed"),
	    J(["lead.abandoned"]), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(id, sizeof(id), "%s", jget(r->json, "id"));
	snprintf(secret, sizeof(secret), "%s", jget(r->json, "secret"));
	resp_free(r);
	outbox_event(f.tenant, "lead.abandoned", NULL, ev);
	/* an event it is not subscribed to goes nowhere */
	outbox_event(f.tenant, "lead.captured", NULL, b);
	cr_assert_eq(hooks_pass(5, NULL), 0);
	got = received("/signed");
	cr_assert_eq(json_object_array_length(got), before + 1);
	env = json_object_array_get_idx(got, before);
	n = rbody(env, body, sizeof(body));
	cr_assert_str_eq(rget(env, "content-type"), "application/json");
	cr_assert_str_eq(rget(env, "user-agent"), "Formback-Webhook/1");
	cr_assert_str_eq(rget(env, "x-formback-event"), "lead.abandoned");
	cr_assert_not_null(rget(env, "x-formback-delivery"));
	snprintf(send1, sizeof(send1), "%s", rget(env, "x-formback-delivery"));
	cr_assert(contract_verify(secret, rget(env, "x-formback-signature"),
	    body, n),
	    "%s", rget(env, "x-formback-signature"));
	cr_assert(standard_verify(secret, env, body, n));
	cr_assert_str_eq(rget(env, "webhook-id"), ev);
	/* a changed byte fails */
	body[n - 2] ^= 1;
	cr_assert_not(contract_verify(secret, rget(env, "x-formback-signature"),
	    body, n));
	body[n - 2] ^= 1;
	{
		json_object	*e = json_tokener_parse((const char *)body);

		cr_assert_not_null(e);
		cr_assert_str_eq(jget(e, "id"), ev);
		cr_assert_str_eq(jget(e, "type"), "lead.abandoned");
		cr_assert_str_eq(jget(e, "tenant_id"), f.tenant);
		cr_assert_str_eq(jget(e, "data.abandoned_at"),
		    "2026-11-24T00:00:00Z");
		cr_assert_not_null(jget(e, "created_at"));
		json_object_put(e);
	}
	/* the log */
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s/deliveries", id);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "data.0.status"), "succeeded");
	cr_assert_str_eq(jget(r->json, "data.0.event_id"), ev);
	cr_assert_str_eq(jget(r->json, "data.0.attempts"), "1");
	cr_assert_str_eq(jget(r->json, "data.0.response_status"), "200");
	cr_assert_null(jget(r->json, "data.1.id"));
	snprintf(dlv, sizeof(dlv), "%s", jget(r->json, "data.0.id"));
	resp_free(r);
	/* the receiver's X-Formback-Delivery names the record (issue 44) */
	cr_assert_str_eq(send1, dlv);
	/* redeliver: the same event and bytes, a new record and send id */
	snprintf(b, sizeof(b), "/api/v1/webhook_deliveries/%s/redeliver", dlv);
	r = http("POST", b, f.live, "", NULL);
	cr_assert_eq(r->status, 202, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "status"), "pending");
	cr_assert_str_eq(jget(r->json, "event_id"), ev);
	cr_assert_str_eq(jget(r->json, "redelivery_of"), dlv);
	resp_free(r);
	/* queued at the database's clock: a pass an hour on sends it */
	cr_assert_eq(hooks_pass(3600, NULL), 0);
	json_object_put(got);
	got = received("/signed");
	cr_assert_eq(json_object_array_length(got), before + 2);
	n2 = rbody(json_object_array_get_idx(got, before + 1), body2,
	    sizeof(body2));
	cr_assert_eq(n, n2);
	cr_assert_eq(memcmp(body, body2, n), 0);
	cr_assert_str_neq(rget(json_object_array_get_idx(got, before + 1),
	    "x-formback-delivery"), send1);
	json_object_put(got);
	/* another tenant cannot redeliver it */
	{
		struct fx	 g;

		fx_new(&g, "pro", 0);
		r = http("POST", b, g.live, "", NULL);
		expect_error(r, 404, "not_found", "not_found", "delivery_id");
		resp_free(r);
	}
}

Test(webhooks, retried_six_times_then_stopped, .timeout = 120)
{
	static const long long at[] = { 0, 60, 360, 2160, 9360, 30960 };
	struct fx	 f;
	struct resp	*r;
	json_object	*got;
	char		 id[40], ev[40], b[512], dlv[40];
	size_t		 i, before;

	fx_new(&f, "pro", 0);
	before = json_object_array_length(got = received("/fail"));
	json_object_put(got);
	r = endpoint(f.live, hook_url("hooks.formback.test", "/fail"),
	    J(["delivery.sent"]), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(id, sizeof(id), "%s", jget(r->json, "id"));
	resp_free(r);
	outbox_event(f.tenant, "delivery.sent", NULL, ev);
	/* attempts at 0, 1 m, 5 m, 30 m, 2 h, 6 h after the one before */
	for (i = 0; i < 6; i++) {
		if (i > 0) {
			/* a second early: not yet */
			cr_assert_eq(hooks_pass(at[i] + 4, NULL), 0);
			got = received("/fail");
			cr_assert_eq(json_object_array_length(got), before + i,
			    "attempt %zu early", i + 1);
			json_object_put(got);
		}
		cr_assert_eq(hooks_pass(at[i] + 6, NULL), 0);
		got = received("/fail");
		cr_assert_eq(json_object_array_length(got), before + i + 1,
		    "attempt %zu", i + 1);
		json_object_put(got);
	}
	cr_assert_eq(hooks_pass(at[5] + 86400, NULL), 0);
	got = received("/fail");
	cr_assert_eq(json_object_array_length(got), before + 6);
	json_object_put(got);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s/deliveries", id);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "data.0.status"), "failed");
	cr_assert_str_eq(jget(r->json, "data.0.attempts"), "6");
	cr_assert_str_eq(jget(r->json, "data.0.response_status"), "500");
	cr_assert_str_eq(jget(r->json, "data.0.error"), "HTTP 500");
	snprintf(dlv, sizeof(dlv), "%s", jget(r->json, "data.0.id"));
	resp_free(r);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s", id);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "status"), "enabled");
	cr_assert_str_eq(jget(r->json, "consecutive_failures"), "6");
	resp_free(r);
	/* still enabled: it can be redelivered */
	snprintf(b, sizeof(b), "/api/v1/webhook_deliveries/%s/redeliver", dlv);
	r = http("POST", b, f.live, "", NULL);
	cr_assert_eq(r->status, 202, "%s", r->body);
	resp_free(r);
}

Test(webhooks, gone_stops_the_endpoint, .timeout = 60)
{
	struct fx	 f;
	struct resp	*r;
	char		 id[40], ev[40], b[512], dlv[40];

	fx_new(&f, "pro", 0);
	r = endpoint(f.live, hook_url("hooks.formback.test", "/gone"),
	    J(["conversion.detected"]), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(id, sizeof(id), "%s", jget(r->json, "id"));
	resp_free(r);
	outbox_event(f.tenant, "conversion.detected", NULL, ev);
	cr_assert_eq(hooks_pass(5, NULL), 0);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s", id);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "status"), "disabled");
	cr_assert_str_eq(jget(r->json, "disabled_reason"), "gone");
	resp_free(r);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s/deliveries", id);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "data.0.status"), "failed");
	cr_assert_str_eq(jget(r->json, "data.0.attempts"), "1");
	snprintf(dlv, sizeof(dlv), "%s", jget(r->json, "data.0.id"));
	resp_free(r);
	snprintf(b, sizeof(b), "/api/v1/webhook_deliveries/%s/redeliver", dlv);
	r = http("POST", b, f.live, "", NULL);
	expect_error(r, 409, "invalid_request", "webhook_endpoint_disabled",
	    "delivery_id");
	resp_free(r);
	/* a stopped endpoint receives no new event */
	outbox_event(f.tenant, "conversion.detected", NULL, ev);
	cr_assert_eq(hooks_pass(10, NULL), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "endpoint_id = '%s'",
	    id), "1");
}

/*
 * DNS rebinding: a name public when registered that resolves to loopback
 * when sent is refused at connect time; the receiver (the canary) sees
 * no connection.
 */
Test(webhooks, rebinding_refused_at_connect, .timeout = 60)
{
	struct fx	 f;
	struct resp	*r;
	char		 id[40], ev[40], b[512], conf[512], cmd[2048];
	char		 conns[32] = "0", after[32] = "0";
	FILE		*c;

	fx_new(&f, "pro", 0);
	r = endpoint(f.live, hook_url("rebind.formback.test", "/rebind"),
	    J(["lead.captured"]), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(id, sizeof(id), "%s", jget(r->json, "id"));
	resp_free(r);
	/*
	 * what earlier tests left due goes first, so that only this event
	 * can reach the canary in the pass counted (same clock for both)
	 */
	cr_assert_eq(hooks_pass(5, NULL), 0);
	outbox_event(f.tenant, "lead.captured", NULL, ev);
	/* the same configuration, the name now answering loopback */
	snprintf(conf, sizeof(conf), "%s.rebind", getenv("FORMBACK_CONF"));
	snprintf(cmd, sizeof(cmd),
	    "sed 's/rebind.formback.test:\\([0-9]*\\):93.184.216.34/"
	    "rebind.formback.test:\\1:127.0.0.1/' \"$FORMBACK_CONF\" > "
	    "%s", conf);
	cr_assert_eq(system(cmd), 0);
	snprintf(b, sizeof(b), "%s.conns", getenv("FB_HOOK_FILE"));
	if ((c = fopen(b, "r")) != NULL) {
		cr_assert_not_null(fgets(conns, sizeof(conns), c));
		fclose(c);
	}
	cr_assert_eq(hooks_pass(5, conf), 0);
	if ((c = fopen(b, "r")) != NULL) {
		cr_assert_not_null(fgets(after, sizeof(after), c));
		fclose(c);
	}
	cr_assert_str_eq(after, conns);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s/deliveries", id);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "data.0.status"), "pending");
	cr_assert_str_eq(jget(r->json, "data.0.error"),
	    "refused: internal address");
	resp_free(r);
}

/*
 * Two passes at once, one killed with SIGKILL mid-pass: while both run no
 * event is sent twice (the claims); the pass after the lease sends what
 * the killed one held, so every event arrives.
 */
Test(webhooks, concurrent_passes_and_a_kill, .timeout = 120)
{
	struct fx	 f;
	struct resp	*r;
	json_object	*got;
	char		 cmd[1024], at[32], at2[32];
	time_t		 t = time(NULL);
	size_t		 i, j, n, before, dup = 0, distinct = 0;

	fx_new(&f, "pro", 0);
	before = json_object_array_length(got = received("/slow"));
	json_object_put(got);
	r = endpoint(f.live, hook_url("hooks.formback.test", "/slow"),
	    J(["lead.captured"]), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	sql("INSERT INTO outbox (id, tenant_id, topic, event_type, payload, "
	    "created_at) SELECT UUID(), '%s', 'webhook', 'lead.captured', "
	    "'%s', NOW(6) + INTERVAL 1 SECOND FROM seq_1_to_40", f.tenant,
	    sample_data("lead.captured"));
	strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ",
	    gmtime(&(time_t){ t + 5 }));
	strftime(at2, sizeof(at2), "%Y-%m-%dT%H:%M:%SZ",
	    gmtime(&(time_t){ t + 400 }));
	snprintf(cmd, sizeof(cmd), "D=\"$FB_CTL_DIR/formback-webhooks\"; "
	    "\"$D\" --limit 100000 --jobs 4 --now %s & a=$!; "
	    "\"$D\" --limit 100000 --jobs 4 --now %s & b=$!; "
	    "sleep 1.5; kill -9 $a; wait $b", at, at);
	cr_assert_eq(system(cmd), 0);
	/* while both ran: each event at most once */
	got = received("/slow");
	n = json_object_array_length(got);
	for (i = before; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (strcmp(rget(json_object_array_get_idx(got, i),
			    "webhook-id"),
			    rget(json_object_array_get_idx(got, j),
			    "webhook-id")) == 0)
				dup++;
	cr_assert_eq(dup, 0, "%zu events sent twice by the two passes", dup);
	json_object_put(got);
	/* past the lease: everything the killed pass held goes out */
	snprintf(cmd, sizeof(cmd),
	    "\"$FB_CTL_DIR/formback-webhooks\" --limit 100000 "
	    "--jobs 8 --now %s", at2);
	cr_assert_eq(system(cmd), 0);
	got = received("/slow");
	n = json_object_array_length(got);
	for (i = before; i < n; i++) {
		for (j = before; j < i; j++)
			if (strcmp(rget(json_object_array_get_idx(got, i),
			    "webhook-id"),
			    rget(json_object_array_get_idx(got, j),
			    "webhook-id")) == 0)
				break;
		if (j == i)
			distinct++;
	}
	json_object_put(got);
	cr_assert_eq(distinct, 40, "%zu of 40 events arrived", distinct);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries d JOIN "
	    "webhook_endpoints e ON e.id = d.endpoint_id WHERE e.tenant_id = "
	    "'%s' AND d.status <> 'succeeded'",
	    f.tenant), "0");
}

/* Privacy-policy checks: set by the operator, fetched by formback-webhooks. */
Test(pp_checks, fetched_judged_listed, .timeout = 60)
{
	struct fx	 f, g;
	struct resp	*r;
	json_object	*out = NULL;
	char		 b[512], id[40];

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	/* an internal address is refused when set, as for webhooks */
	cr_assert_eq(ctl(&out,
	    "site set --id %s --privacy-policy-url https://10.0.0.1/p",
	    f.site), 2);
	json_object_put(out);
	cr_assert_eq(ctl(&out, "site set --id %s --privacy-policy-url %s",
	    f.site,
	    hook_url("hooks.formback.test", "/policy-bad")), 0);
	json_object_put(out);
	cr_assert_eq(hooks_pass(5, NULL), 0);
	snprintf(b, sizeof(b), "/api/v1/sites/%s/pp-checks", f.site);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "data.0.object"), "pp_check");
	cr_assert_str_eq(jget(r->json, "data.0.status"), "failed", "%s",
	    r->body);
	cr_assert_str_eq(jget(r->json, "data.0.http_status"), "200");
	cr_assert_str_eq(jget(r->json, "data.0.consent_mode"), "notice_optout");
	cr_assert_str_eq(jget(r->json, "data.0.findings.0.code"),
	    "input_capture_not_disclosed");
	cr_assert_str_eq(jget(r->json, "data.0.findings.1.code"),
	    "sms_not_disclosed");
	cr_assert_str_eq(jget(r->json, "data.0.findings.2.code"),
	    "optout_not_disclosed");
	cr_assert_str_eq(jget(r->json, "data.0.findings.2.severity"),
	    "required");
	cr_assert_eq(strlen(jget(r->json, "data.0.page_sha256")), 64);
	snprintf(id, sizeof(id), "%s", jget(r->json, "data.0.id"));
	resp_free(r);
	/* checked once a day: the next pass leaves it */
	cr_assert_eq(hooks_pass(600, NULL), 0);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_null(jget(r->json, "data.1.id"));
	resp_free(r);
	/* a new URL is checked at once */
	cr_assert_eq(ctl(&out, "site set --id %s --privacy-policy-url %s",
	    f.site,
	    hook_url("hooks.formback.test", "/policy-good")), 0);
	json_object_put(out);
	cr_assert_eq(hooks_pass(700, NULL), 0);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "data.0.status"), "passed", "%s",
	    r->body);
	cr_assert_null(jget(r->json, "data.0.findings.0.code"));
	cr_assert_str_eq(jget(r->json, "data.1.id"), id);
	resp_free(r);
	/* one check; another tenant's site and a missing check are 404 */
	snprintf(b, sizeof(b), "/api/v1/sites/%s/pp-checks/%s", f.site, id);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "id"), id);
	resp_free(r);
	r = http("GET", b, g.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "site_id");
	resp_free(r);
	snprintf(b, sizeof(b),
	    "/api/v1/sites/%s/pp-checks/0190a000-0000-7000-8000-000000000009",
	    f.site);
	r = http("GET", b, f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "check_id");
	resp_free(r);
	/* a page that is not there is an error check */
	cr_assert_eq(ctl(&out, "site set --id %s --privacy-policy-url %s",
	    g.site,
	    hook_url("hooks.formback.test", "/policy-missing")), 0);
	json_object_put(out);
	cr_assert_eq(hooks_pass(800, NULL), 0);
	snprintf(b, sizeof(b), "/api/v1/sites/%s/pp-checks", g.site);
	r = http("GET", b, g.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "data.0.status"), "error", "%s",
	    r->body);
	cr_assert_str_eq(jget(r->json, "data.0.http_status"), "404");
	cr_assert_str_eq(jget(r->json, "data.0.error"), "HTTP 404");
	resp_free(r);
}

/*
 * Take a path of the receiver down (its requests get no answer: the
 * connection is closed) or, with NULL, every path up again.
 */
static void
hook_down(const char *path)
{
	char	 f[512];
	FILE	*o;

	snprintf(f, sizeof(f), "%s.down", getenv("FB_HOOK_FILE"));
	if (path == NULL) {
		(void)unlink(f);
		return;
	}
	cr_assert_not_null(o = fopen(f, "w"));
	fprintf(o, "%s\n", path);
	fclose(o);
}

static void
hook_up(void)
{
	hook_down(NULL);
}

/* The owner's mails of template `t` queued for the tenant (issue 40). */
static const char *
mails(const char *tenant, const char *t)
{
	return sql("SELECT COUNT(*) FROM outbox WHERE tenant_id = '%s' AND "
	    "topic = 'email' AND event_type = '%s'", tenant, t);
}

/* A pro tenant's endpoint at the receiver's `path` taking lead.captured. */
static void
endpoint_at(struct fx *f, const char *path, char id[40])
{
	struct resp	*r;

	r = endpoint(f->live, hook_url("hooks.formback.test", path),
	    J(["lead.captured"]), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(id, 40, "%s", jget(r->json, "id"));
	resp_free(r);
}

/* n lead.captured events of the tenant. */
static void
events(const struct fx *f, int n)
{
	sql("INSERT INTO outbox (id, tenant_id, topic, event_type, payload, "
	    "created_at) SELECT UUID(), '%s', 'webhook', 'lead.captured', "
	    "'%s', NOW(6) + INTERVAL 1 SECOND FROM seq_1_to_%d", f->tenant,
	    sample_data("lead.captured"), n);
}

/*
 * An outage (issue 40): a new tenant's endpoint at `path`, which answers
 * nothing, and n events for it (what other tests left sent first).
 */
static void
outage(struct fx *f, const char *path, int n, char id[40])
{
	fx_new(f, "pro", 0);
	cr_assert_eq(hooks_pass(1, NULL), 0);
	endpoint_at(f, path, id);
	hook_down(path);
	events(f, n);
}

/*
 * A burst of failures never stops an endpoint (issue 40): 18 events
 * failing twice within a minute are 36 failed attempts in a row, but
 * they span no 72 hours; the owner hears of it once.  Answers, even
 * failed ones, do not pause it.
 */
Test(webhooks, burst_of_failures_never_stops_it, .timeout = 60)
{
	struct fx	 f;
	struct resp	*r;
	char		 id[40], b[512];

	fx_new(&f, "pro", 0);
	cr_assert_eq(hooks_pass(1, NULL), 0);
	endpoint_at(&f, "/fail?burst", id);
	events(&f, 18);
	cr_assert_eq(hooks_pass(5, NULL), 0);
	cr_assert_eq(hooks_pass(70, NULL), 0);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s", id);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "status"), "enabled", "%s", r->body);
	cr_assert_null(jget(r->json, "disabled_reason"));
	cr_assert_str_eq(jget(r->json, "consecutive_failures"), "36");
	cr_assert_not_null(jget(r->json, "failing_since"));
	cr_assert_null(jget(r->json, "paused_until"));
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "endpoint_id = '%s' AND status = 'pending' AND attempts = 2", id),
	    "18");
	cr_assert_str_eq(mails(f.tenant, "webhook_failing"), "1");
	cr_assert_str_eq(mails(f.tenant, "webhook_disabled"), "0");
}

/*
 * An outage of a minute (issue 40): the receiver answers none of 18
 * events.  After 5 attempts without an answer the endpoint is paused as
 * a whole: its other records are not tried, so they keep all their
 * attempts; the owner is mailed once; a pass within the pause sends
 * nothing, and the first pass after it delivers all 18 (one probe, then
 * the rest).  The endpoint is never stopped.
 */
Test(webhooks, outage_of_a_minute_pauses_never_stops, .fini = hook_up,
    .timeout = 60)
{
	struct fx	 f;
	struct resp	*r;
	json_object	*got;
	char		 id[40], b[512], owner[128];
	size_t		 n;
	long		 tried;

	outage(&f, "/outage-minute", 18, id);
	cr_assert_eq(hooks_pass(5, NULL), 0);
	tried = strtol(sql("SELECT SUM(attempts) FROM webhook_deliveries WHERE "
	    "endpoint_id = '%s'", id), NULL, 10);
	/* HOOK_BREAKER_AFTER, and one more already in flight at most */
	cr_assert(tried == 5 || tried == 6, "%ld attempts", tried);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "endpoint_id = '%s' AND status = 'pending'", id), "18");
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s", id);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "status"), "enabled", "%s", r->body);
	cr_assert_not_null(jget(r->json, "paused_until"), "%s", r->body);
	resp_free(r);
	cr_assert_str_eq(mails(f.tenant, "webhook_failing"), "1");
	/* within the pause: nothing is tried */
	n = json_object_array_length(got = received("/outage-minute"));
	json_object_put(got);
	cr_assert_eq(hooks_pass(30, NULL), 0);
	got = received("/outage-minute");
	cr_assert_eq(json_object_array_length(got), n);
	json_object_put(got);
	/* the receiver is back; the pause is over */
	hook_up();
	cr_assert_eq(hooks_pass(70, NULL), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "endpoint_id = '%s' AND status = 'succeeded'", id), "18");
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "status"), "enabled");
	cr_assert_str_eq(jget(r->json, "consecutive_failures"), "0");
	cr_assert_null(jget(r->json, "failing_since"));
	cr_assert_null(jget(r->json, "paused_until"));
	resp_free(r);
	cr_assert_str_eq(mails(f.tenant, "webhook_failing"), "1");
	cr_assert_str_eq(mails(f.tenant, "webhook_disabled"), "0");
	/* the owner's mail, as formback-deliver sends it */
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-deliver\" >/dev/null"), 0);
	snprintf(owner, sizeof(owner), "owner@t%s.example", f.tenant);
	cr_assert_not_null(strstr(mail_to(owner, 0), "Webhook の送信に失敗して"
	    "います"), "%s", mail_to(owner, 0));
	cr_assert_not_null(strstr(mail_to(owner, 0), "/outage-minute"));
}

/* A session of the fixture's owner (the admin UI's writes). */
static void
owner_session(const struct fx *f, struct sess *s)
{
	char	 email[128];

	snprintf(email, sizeof(email), "owner@t%s.example", f->tenant);
	cr_assert_eq(set_password(f->member, "correct horse battery"), 0);
	session_of(email, "correct horse battery", s);
}

/* POST `path` as the session s; the response (caller frees). */
static struct resp *
session_post(const struct sess *s, const char *path)
{
	return http("POST", path, NULL, "", s->hdr);
}

/*
 * POST `path` with the fixture's API key, which a session-only operation
 * refuses (403 session_required), then as the session s: its response.
 */
static struct resp *
session_only_post(const struct fx *f, const struct sess *s, const char *path)
{
	struct resp	*r;

	r = http("POST", path, f->live, "", NULL);
	expect_error(r, 403, "permission_error", "session_required", NULL);
	resp_free(r);
	return session_post(s, path);
}

/*
 * An outage of days (issue 40): the receiver answers nothing for three
 * days.  Paused after 5 attempts, the endpoint is tried once a pass
 * after each pause (the passes here 6 hours apart); at 60 hours it has
 * failed 15 times in a row and is still enabled, at 73 hours the
 * failures span 72 and it is stopped, the owner mailed, and its records
 * end "endpoint stopped".  An owner's session enables it again and
 * recovers those records (an API key may not), which are then sent.
 */
Test(webhooks, outage_of_days_stops_then_enable_recover, .fini = hook_up,
    .timeout = 90)
{
	struct fx	 f;
	struct sess	 s;
	struct resp	*r;
	char		 id[40], b[512], dlv[40];
	int		 k;

	outage(&f, "/outage-days", 5, id);
	cr_assert_eq(hooks_pass(5, NULL), 0);
	for (k = 1; k <= 10; k++)
		cr_assert_eq(hooks_pass(5 + k * 21600LL, NULL), 0);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s", id);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "status"), "enabled", "%s", r->body);
	cr_assert_str_eq(jget(r->json, "consecutive_failures"), "15");
	resp_free(r);
	cr_assert_eq(hooks_pass(73 * 3600LL, NULL), 0);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "status"), "disabled", "%s", r->body);
	cr_assert_str_eq(jget(r->json, "disabled_reason"),
	    "consecutive_failures");
	cr_assert_not_null(jget(r->json, "disabled_at"));
	cr_assert_null(jget(r->json, "paused_until"));
	resp_free(r);
	cr_assert_str_eq(mails(f.tenant, "webhook_failing"), "1");
	cr_assert_str_eq(mails(f.tenant, "webhook_disabled"), "1");
	/* no record ran out of attempts: each ends "endpoint stopped" */
	cr_assert_eq(hooks_pass(80 * 3600LL, NULL), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "endpoint_id = '%s' AND status = 'failed' AND "
	    "error = 'endpoint stopped' AND attempts < 6", id), "5");
	snprintf(dlv, sizeof(dlv), "%s", sql("SELECT id FROM "
	    "webhook_deliveries WHERE endpoint_id = '%s' LIMIT 1", id));
	snprintf(b, sizeof(b), "/api/v1/webhook_deliveries/%s/redeliver", dlv);
	r = http("POST", b, f.live, "", NULL);
	expect_error(r, 409, "invalid_request", "webhook_endpoint_disabled",
	    "delivery_id");
	resp_free(r);
	/* a session only: an API key may neither enable nor recover */
	owner_session(&f, &s);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s/recover", id);
	r = session_post(&s, b);
	expect_error(r, 409, "invalid_request", "webhook_endpoint_disabled",
	    "endpoint_id");
	resp_free(r);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s/enable", id);
	r = session_only_post(&f, &s, b);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "status"), "enabled");
	cr_assert_null(jget(r->json, "disabled_reason"));
	cr_assert_null(jget(r->json, "disabled_at"));
	cr_assert_null(jget(r->json, "failing_since"));
	cr_assert_str_eq(jget(r->json, "consecutive_failures"), "0");
	resp_free(r);
	/* ?since= a time after them: none is */
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s/recover?since="
	    "2099-01-01T00:00:00Z", id);
	r = session_post(&s, b);
	cr_assert_eq(r->status, 202, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "queued"), "0");
	resp_free(r);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s/recover", id);
	r = session_only_post(&f, &s, b);
	cr_assert_eq(r->status, 202, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "object"), "webhook_recovery");
	cr_assert_str_eq(jget(r->json, "queued"), "5");
	cr_assert_str_eq(jget(r->json, "has_more"), "false");
	resp_free(r);
	/* once: what is pending is not queued again */
	r = session_post(&s, b);
	cr_assert_str_eq(jget(r->json, "queued"), "0", "%s", r->body);
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM audit_log WHERE tenant_id = "
	    "'%s' AND action IN ('enableWebhookEndpoint', "
	    "'recoverWebhookEndpoint')", f.tenant), "4");
	hook_up();
	cr_assert_eq(hooks_pass(81 * 3600LL, NULL), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "endpoint_id = '%s' AND status = 'succeeded'", id), "5");
}

/* Seconds (the receiver's clock) when its requests i of `got` arrived. */
static double
arrived(json_object *got, size_t i)
{
	return json_object_get_double(json_object_object_get(
	    json_object_array_get_idx(got, i), "at"));
}

static int
by_time(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * A noisy tenant's slow receivers hold two connections each at most
 * (issue 40): tenant A's 4 endpoints answer after 2 s, 3 records each;
 * tenant B's one event, made after them (its record the newest), goes
 * out in the first round of the pass (--jobs 4), not after A's records
 * (which took a connection as soon as one was free, before); and no
 * endpoint of A ever has more than two requests in flight.
 */
Test(webhooks, quiet_tenant_not_behind_slow_receivers, .timeout = 60)
{
	struct fx	 a, q;
	json_object	*got;
	char		 id[40], path[64];
	double		 first = 1e18, quiet, t[3];
	size_t		 i;
	int		 e;

	fx_new(&a, "pro", 0);
	fx_new(&q, "pro", 0);
	cr_assert_eq(hooks_pass(1, NULL), 0);
	for (e = 0; e < 4; e++) {
		snprintf(path, sizeof(path), "/sleep/2000/noisy-%d", e);
		endpoint_at(&a, path, id);
	}
	endpoint_at(&q, "/quiet", id);
	events(&a, 3);
	sql("DO SLEEP(0.01)");
	events(&q, 1);
	cr_assert_eq(hooks_pass_with(5, NULL, "--jobs 4"), 0);
	got = received("/quiet");
	cr_assert_eq(json_object_array_length(got), 1);
	quiet = arrived(got, 0);
	json_object_put(got);
	for (e = 0; e < 4; e++) {
		snprintf(path, sizeof(path), "/sleep/2000/noisy-%d", e);
		got = received(path);
		cr_assert_eq(json_object_array_length(got), 3, "%s", path);
		for (i = 0; i < 3; i++)
			t[i] = arrived(got, i);
		json_object_put(got);
		qsort(t, 3, sizeof(t[0]), by_time);
		if (t[0] < first)
			first = t[0];
		/* the third waited for one of the first two */
		cr_assert_geq(t[2] - t[0], 1.5, "%s: 3 requests within %.2f s",
		    path, t[2] - t[0]);
	}
	/* before the first slow answer came back: in the first round */
	cr_assert_lt(quiet - first, 1.5, "the quiet tenant's event went out "
	    "%.2f s after the noisy tenant's first", quiet - first);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "tenant_id = '%s' AND status = 'succeeded'", a.tenant), "12");
}

/*
 * The fan-out takes tenants in turns too: a noisy tenant's 200 events,
 * older than a quiet tenant's one, and a pass capped at 20 items: its
 * first turn makes the quiet tenant's event a record beside 16 of the
 * noisy tenant's, not after all 200 (and the cap is spent there).
 */
Test(webhooks, fan_out_takes_tenants_in_turns, .timeout = 60)
{
	struct fx	 a, q;
	json_object	*got;
	char		 id[40];
	int		 i;

	fx_new(&a, "pro", 0);
	fx_new(&q, "pro", 0);
	cr_assert_eq(hooks_pass(1, NULL), 0);
	endpoint_at(&a, "/noisy-fan", id);
	endpoint_at(&q, "/quiet-fan", id);
	events(&a, 200);
	sql("DO SLEEP(0.01)");
	events(&q, 1);
	cr_assert_eq(hooks_pass_limit(5, NULL, 20), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "tenant_id = '%s'", q.tenant), "1");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM outbox WHERE tenant_id = "
	    "'%s' AND processed_at IS NULL", a.tenant), "181");
	/* the next passes the rest, each ended by its budget */
	for (i = 0; i < 10 && strcmp(sql("SELECT (SELECT COUNT(*) FROM outbox "
	    "WHERE tenant_id = '%s' AND processed_at IS NULL) + (SELECT "
	    "COUNT(*) FROM webhook_deliveries WHERE tenant_id = '%s' AND "
	    "status <> 'succeeded')", a.tenant, a.tenant), "0") != 0; i++)
		cr_assert_eq(hooks_pass(6, NULL), 0);
	got = received("/quiet-fan");
	cr_assert_eq(json_object_array_length(got), 1);
	json_object_put(got);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "tenant_id = '%s' AND status = 'succeeded'", a.tenant), "200");
}

/*
 * A test event (issue 40, as Stripe and Svix have): a session queues one
 * record of a new event for this endpoint alone, its data the type's
 * sample with the nil UUID for every id; it is signed and sent as any.
 * An API key may not; a stopped endpoint is 409; an unknown type 422.
 */
Test(webhooks, test_event_to_one_endpoint, .timeout = 60)
{
	struct fx	 f;
	struct sess	 s;
	struct resp	*r;
	json_object	*got, *env;
	unsigned char	 body[8192];
	char		 id[40], other[40], b[512], secret[80];
	size_t		 before, n;

	fx_new(&f, "pro", 0);
	cr_assert_eq(hooks_pass(1, NULL), 0);
	r = endpoint(f.live, hook_url("hooks.formback.test", "/test-event"),
	    J(["delivery.sent", "lead.captured"]), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(id, sizeof(id), "%s", jget(r->json, "id"));
	snprintf(secret, sizeof(secret), "%s", jget(r->json, "secret"));
	resp_free(r);
	endpoint_at(&f, "/test-event-other", other);
	before = json_object_array_length(got = received("/test-event"));
	json_object_put(got);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s/test", id);
	owner_session(&f, &s);
	r = session_only_post(&f, &s, b);
	cr_assert_eq(r->status, 202, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "object"), "webhook_delivery");
	cr_assert_str_eq(jget(r->json, "endpoint_id"), id);
	/* the endpoint's first type */
	cr_assert_str_eq(jget(r->json, "event_type"), "delivery.sent");
	cr_assert_str_eq(jget(r->json, "status"), "pending");
	resp_free(r);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s/test?event_type="
	    "conversion.detected", id);
	r = session_post(&s, b);
	cr_assert_eq(r->status, 202, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "event_type"), "conversion.detected");
	resp_free(r);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s/test?event_type="
	    "lead.sent", id);
	r = session_post(&s, b);
	expect_error(r, 422, "invalid_request", "unknown_event", "event_type");
	resp_free(r);
	cr_assert_eq(hooks_pass(5, NULL), 0);
	got = received("/test-event");
	cr_assert_eq(json_object_array_length(got), before + 2);
	/* sent together: in either order */
	env = json_object_array_get_idx(got, before);
	if (strcmp(rget(env, "x-formback-event"), "delivery.sent") != 0)
		env = json_object_array_get_idx(got, before + 1);
	n = rbody(env, body, sizeof(body));
	cr_assert(contract_verify(secret, rget(env, "x-formback-signature"),
	    body, n));
	cr_assert(standard_verify(secret, env, body, n));
	cr_assert_str_eq(rget(env, "x-formback-event"), "delivery.sent");
	{
		json_object	*e = json_tokener_parse((const char *)body);

		cr_assert_str_eq(jget(e, "type"), "delivery.sent");
		cr_assert_str_eq(jget(e, "tenant_id"), f.tenant);
		cr_assert_str_eq(jget(e, "data.lead_id"),
		    "00000000-0000-0000-0000-000000000000");
		cr_assert_str_eq(jget(e, "id"), rget(env, "webhook-id"));
		json_object_put(e);
	}
	json_object_put(got);
	got = received("/test-event-other");
	cr_assert_eq(json_object_array_length(got), 0);
	json_object_put(got);
	/* another tenant's endpoint is a missing one, for all three */
	{
		static const char *const op[] = { "enable", "recover", "test" };
		struct fx	 g;
		size_t		 i;

		fx_new(&g, "pro", 0);
		endpoint_at(&g, "/test-event-theirs", other);
		for (i = 0; i < 3; i++) {
			snprintf(b, sizeof(b),
			    "/api/v1/webhook_endpoints/%s/%s",
			    other, op[i]);
			r = session_post(&s, b);
			expect_error(r, 404, "not_found", "not_found",
			    "endpoint_id");
			resp_free(r);
		}
	}
	/* a stopped endpoint cannot be tested */
	sql("UPDATE webhook_endpoints SET status = 'disabled', disabled_reason "
	    "= 'gone' WHERE id = '%s'", id);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s/test", id);
	r = session_post(&s, b);
	expect_error(r, 409, "invalid_request", "webhook_endpoint_disabled",
	    "endpoint_id");
	resp_free(r);
}

/* formbackctl webhook enable: the operator's way to the same enable. */
Test(webhooks, ctl_enables_an_endpoint, .timeout = 60)
{
	struct fx	 f;
	struct resp	*r;
	json_object	*out = NULL;
	char		 id[40], b[512];

	fx_new(&f, "pro", 0);
	endpoint_at(&f, "/ctl-enable", id);
	sql("UPDATE webhook_endpoints SET status = 'disabled', "
	    "disabled_reason = 'gone', disabled_at = NOW(6), "
	    "consecutive_failures = 3, failing_since = NOW(6) WHERE id = '%s'",
	    id);
	cr_assert_eq(ctl(&out, "webhook enable --id %s", id), 0);
	cr_assert_str_eq(jget(out, "id"), id);
	cr_assert_str_eq(jget(out, "status"), "enabled");
	json_object_put(out);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s", id);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "status"), "enabled", "%s", r->body);
	cr_assert_null(jget(r->json, "disabled_reason"));
	cr_assert_null(jget(r->json, "failing_since"));
	cr_assert_str_eq(jget(r->json, "consecutive_failures"), "0");
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM audit_log WHERE tenant_id = "
	    "'%s' AND action = 'webhook_endpoint.enable' AND "
	    "actor_type = 'cli'", f.tenant), "1");
	out = NULL;
	cr_assert_eq(ctl(&out, "webhook enable --id "
	    "0190a000-0000-7000-8000-0000000000ff"), 1);
	json_object_put(out);
}

/*
 * A success resets the endpoint's consecutive failures and moves its
 * last success on, never back.
 */
Test(webhooks, success_resets_failures, .timeout = 60)
{
	struct fx	 f;
	struct resp	*r;
	char		 id[40], ev[40], b[128];
	int		 i;

	fx_ok_endpoint(&f, id);
	sql("UPDATE webhook_endpoints SET consecutive_failures = 3 WHERE id = "
	    "'%s'", id);
	outbox_event(f.tenant, "lead.captured", NULL, ev);
	outbox_event(f.tenant, "lead.captured", NULL, ev);
	/* a pass that finds another still at work leaves it the round */
	for (i = 0; i < 5 && strcmp(sql("SELECT COUNT(*) FROM "
	    "webhook_deliveries WHERE endpoint_id = '%s' AND status = "
	    "'succeeded'", id), "2") != 0; i++)
		cr_assert_eq(hooks_pass(10, NULL), 0);
	snprintf(b, sizeof(b), "/api/v1/webhook_endpoints/%s", id);
	r = http("GET", b, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "consecutive_failures"), "0");
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "endpoint_id = '%s' AND status = 'succeeded'", id), "2");
	cr_assert_str_eq(sql("SELECT last_success_at IS NOT NULL FROM "
	    "webhook_endpoints WHERE id = '%s'", id), "1");
	/* a later success from a pass whose clock is behind keeps it */
	sql("UPDATE webhook_endpoints SET last_success_at = '2099-01-01' "
	    "WHERE id = '%s'", id);
	outbox_event(f.tenant, "lead.captured", NULL, ev);
	cr_assert_eq(hooks_pass(20, NULL), 0);
	cr_assert_str_eq(sql("SELECT last_success_at FROM webhook_endpoints "
	    "WHERE id = '%s'", id), "2099-01-01 00:00:00.000000");
}

/*
 * The fan-out reads on by id from the last event it has seen, on the
 * outbox's index (issue 13): it read and sorted every unprocessed event
 * for each batch of 100 ("ORDER BY topic, processed_at, id" is not the
 * index's order under "processed_at IS NULL"), and a full scripts/bench
 * run sent 72 webhooks/s behind 65,000 of them.  4,000 events of a type
 * no endpoint takes: 32,501 index entries read before, 3,961 now.
 */
Test(webhooks, fan_out_reads_a_backlog_once, .timeout = 120)
{
	struct fx	 f;
	long long	 reads;

	fx_new(&f, "pro", 0);
	/* what other tests left is fanned out first */
	cr_assert_eq(hooks_pass(1, NULL), 0);
	sql("INSERT INTO outbox (id, tenant_id, topic, event_type, payload, "
	    "created_at) SELECT UUID(), '%s', 'webhook', 'lead.converted', "
	    "'{}', NOW(6) FROM seq_1_to_4000", f.tenant);
	reads = index_reads();
	cr_assert_eq(hooks_pass(2, NULL), 0);
	reads = index_reads() - reads;
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM outbox WHERE tenant_id = "
	    "'%s' AND processed_at IS NULL", f.tenant), "0");
	cr_assert_lt(reads, 10000, "the pass read %lld index entries", reads);
}

/*
 * A claim reads the records it takes, not the backlog (issue 13): "UPDATE
 * ... ORDER BY next_attempt_at, id LIMIT ?" on the index whose status it
 * changes read every due record first ("Using buffer"), so a backlog of
 * 3,000 cost each claim of a pass 3,000 index entries or more.
 */
Test(webhooks, claim_reads_what_it_takes, .timeout = 120)
{
	struct fx	 f;
	char		 id[40];
	long long	 reads, reads2;

	fx_ok_endpoint(&f, id);
	sql("INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, "
	    "event_id, event_type, body, next_attempt_at) SELECT UUID(), '%s', "
	    "'%s', UUID(), 'lead.captured', '%s', '2000-01-01' FROM "
	    "seq_1_to_3000", f.tenant, id,
	    sample_body(f.tenant, "lead.captured"));
	reads = index_reads();
	cr_assert_eq(hooks_pass_limit(2, NULL, 16), 0);
	reads = index_reads() - reads;
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "endpoint_id = '%s' AND status = 'succeeded'", id), "16");
	/* what --limit left, recorded for formbackctl status */
	cr_assert_geq(strtol(sql("SELECT left_items FROM cron_passes WHERE "
	    "job = 'webhooks'"), NULL, 10), 2984);
	/*
	 * what a pass stopped by --limit leaves is counted once, on the
	 * backlog (pass_leave()); the claims of 16 more records read little
	 */
	reads2 = index_reads();
	cr_assert_eq(hooks_pass_limit(3, NULL, 32), 0);
	reads2 = index_reads() - reads2;
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "endpoint_id = '%s' AND status = 'succeeded'", id), "48");
	cr_assert_lt(reads, 3000 + 1000, "the pass read %lld index entries",
	    reads);
	cr_assert_lt(reads2 - reads, 500, "16 more records: %lld entries more",
	    reads2 - reads);
}

/*
 * Passes at once never deadlock (issue 13): the claims whose lease ran
 * out were made due again by an UPDATE on webhook_deliveries_due, which
 * held each "sending" record's index entry while it waited for the
 * record, held by a pass finishing it, which waited for the entry.  Three
 * passes over 900 due records and 300 lapsed claims: each ends without
 * an error, and every record is sent once.
 */
Test(webhooks, passes_at_once_never_deadlock, .timeout = 180)
{
	struct fx	 f;
	char		 cmd[1024], at[32], id[40];
	time_t		 t = time(NULL) + 5;

	fx_ok_endpoint(&f, id);
	sql("INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, "
	    "event_id, event_type, body, next_attempt_at, status, claim_token, "
	    "claim_until) SELECT UUID(), '%s', '%s', UUID(), 'lead.captured', "
	    "'%s', '2000-01-01', IF(seq %% 4 = 0, 'sending', 'pending'), "
	    "IF(seq %% 4 = 0, UNHEX(MD5(seq)), NULL), IF(seq %% 4 = 0, "
	    "'2000-01-01', NULL) FROM "
	    "seq_1_to_1200", f.tenant, id, sample_body(f.tenant,
	    "lead.captured"));
	strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	snprintf(cmd, sizeof(cmd), "D=\"$FB_CTL_DIR/formback-webhooks\"; "
	    "\"$D\" --limit 100000 --jobs 4 --now %s & a=$!; "
	    "\"$D\" --limit 100000 --jobs 4 --now %s & b=$!; "
	    "\"$D\" --limit 100000 --jobs 4 --now %s & c=$!; "
	    "wait $a && wait $b && wait $c", at, at, at);
	cr_assert_eq(system(cmd), 0, "a pass ended with an error");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "endpoint_id = '%s' AND status = 'succeeded' AND attempts = 1", id),
	    "1200");
}

/*
 * A pass deletes the outbox events handled more than 30 days ago and the
 * finished delivery records created more than 30 days ago, and only those
 * (formback-webhooks(8), Purge), each on an index: the events by their
 * creation read every handled event, the records by their status every
 * finished record.
 */
Test(webhooks, purge_handled_events_after_30_days, .timeout = 60)
{
	struct fx	 f;

	fx_new(&f, "pro", 0);
	sql("INSERT INTO outbox (id, tenant_id, topic, event_type, payload, "
	    "created_at, processed_at) VALUES (UUID(), '%s', 'webhook', "
	    "'lead.converted', '{}', UTC_TIMESTAMP(6) - INTERVAL 32 DAY, "
	    "UTC_TIMESTAMP(6) - INTERVAL 31 DAY), (UUID(), '%s', 'webhook', "
	    "'lead.converted', '{}', UTC_TIMESTAMP(6) - INTERVAL 32 DAY, "
	    "UTC_TIMESTAMP(6) - INTERVAL 29 DAY)", f.tenant, f.tenant);
	sql("INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, "
	    "event_id, event_type, body, status, created_at) VALUES (UUID(), "
	    "'%s', UUID(), UUID(), 'lead.converted', '{}', 'succeeded', "
	    "UTC_TIMESTAMP(6) - INTERVAL 31 DAY), (UUID(), '%s', UUID(), "
	    "UUID(), 'lead.converted', '{}', 'failed', UTC_TIMESTAMP(6) - "
	    "INTERVAL 29 DAY), (UUID(), '%s', UUID(), UUID(), "
	    "'lead.converted', '{}', 'pending', UTC_TIMESTAMP(6) - INTERVAL 31 "
	    "DAY)",
	    f.tenant, f.tenant, f.tenant);
	cr_assert_eq(hooks_pass(1, NULL), 0);
	cr_assert_str_eq(sql("SELECT GROUP_CONCAT(DATEDIFF(UTC_TIMESTAMP(), "
	    "processed_at)) FROM outbox WHERE tenant_id = "
	    "'%s'", f.tenant), "29");
	cr_assert_str_eq(sql("SELECT GROUP_CONCAT(status ORDER BY status) FROM "
	    "webhook_deliveries WHERE tenant_id = "
	    "'%s'", f.tenant), "pending,failed");
}

static void
webhook_deadlocks_removed(void)
{
	deadlocks_removed("outbox");
	deadlocks_removed("webhook_deliveries");
}

/*
 * Two passes crossing, which MariaDB ends as a deadlock of one of them,
 * in the fan-out (the events marked done) and in the claim of records:
 * each is made again (up to DB_TX_TRIES times), the pass ends 0 and the
 * event arrives once.  Before, the pass gave up and failed ("sends:
 * deadlock or lock wait timeout", seen in concurrent_passes_and_a_kill).
 */
Test(webhooks, claim_crossing_another_pass_is_made_again,
    .fini = webhook_deadlocks_removed, .timeout = 60)
{
	struct fx	 f;
	json_object	*got;
	char		 id[40], ev[40];
	size_t		 before;

	fx_ok_endpoint(&f, id);
	before = json_object_array_length(got = received("/ok"));
	json_object_put(got);
	outbox_event(f.tenant, "lead.captured", NULL, ev);
	deadlocks_planted("outbox", "OLD.processed_at IS NULL AND "
	    "NEW.processed_at IS NOT NULL", 2);
	deadlocks_planted("webhook_deliveries", "OLD.status = 'pending' AND "
	    "NEW.status = 'sending'", 2);
	cr_assert_eq(hooks_pass(5, NULL), 0);
	cr_assert_eq(deadlocks_left("outbox"), 0);
	cr_assert_eq(deadlocks_left("webhook_deliveries"), 0);
	got = received("/ok");
	cr_assert_eq(json_object_array_length(got), before + 1);
	cr_assert_str_eq(rget(json_object_array_get_idx(got, before),
	    "webhook-id"),
	    ev);
	json_object_put(got);
}

/*
 * What the producers write is what openapi.json describes (contract:
 * Events): a lead captured, abandoned, sent to and converted by the
 * service's own passes reaches an endpoint subscribed to every event as
 * four events of the lead; tests/integ/validate.mjs then checks each
 * body against its webhook's schema.
 */
Test(webhooks, producers_send_the_documented_events, .timeout = 120)
{
	static const char *const want[] = {
		"lead.captured", "lead.abandoned", "delivery.sent",
		"conversion.detected"
	};
	struct fx	 f;
	struct resp	*r;
	json_object	*got, *e;
	unsigned char	 body[16384];
	char		 lead[40];
	size_t		 i, j, n;
	bool		 seen;

	fx_new(&f, "pro", 0);
	cr_assert_eq(hooks_pass(1, NULL), 0);
	r = endpoint(f.live, hook_url("hooks.formback.test", "/producers"),
	    J(["lead.captured", "lead.abandoned", "delivery.sent",
	    "delivery.failed",
	    "conversion.detected", "usage.threshold_reached"]), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	fx_one_step(&f, "wp", "sms", "live", NULL);
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "capture",
	    .visitor = "0e0e0e0e-5555-4555-8555-555555555555",
	    .campaign = "wp", .role = "form", .tel = "090-7731-0001" }), 204);
	snprintf(lead, sizeof(lead), "%s", sql("SELECT id FROM leads WHERE "
	    "tenant_id = '%s'", f.tenant));
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-abandon\" --now "
	    "2035-05-05T03:00:00Z"), 0);
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-deliver\" --now "
	    "2035-05-05T03:10:00Z"), 0);
	cr_assert_str_eq(sql("SELECT status FROM deliveries WHERE tenant_id = "
	    "'%s'",
	    f.tenant), "sent");
	cr_assert_eq(ctl(NULL, "lead convert --id %s --source manual", lead),
	    0);
	cr_assert_eq(hooks_pass(5, NULL), 0);
	got = received("/producers");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		for (seen = false,
		    j = 0; j < json_object_array_length(got); j++) {
			n = rbody(json_object_array_get_idx(got, j), body,
			    sizeof(body));
			cr_assert_gt(n, 0);
			cr_assert_not_null(e =
			    json_tokener_parse((const char *)body));
			if (strcmp(jget(e, "type"), want[i]) == 0) {
				seen = true;
				cr_assert_str_eq(jget(e, "tenant_id"),
				    f.tenant);
				cr_assert_str_eq(jget(e, "data.lead_id"), lead,
				    "%s", body);
				cr_assert_str_eq(rget(
				    json_object_array_get_idx(got, j),
				    "x-formback-event"), want[i]);
			}
			json_object_put(e);
		}
		cr_assert(seen, "no %s among %zu events", want[i],
		    json_object_array_length(got));
	}
	json_object_put(got);
}
