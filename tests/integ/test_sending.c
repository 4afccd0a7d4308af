/*
 * Deliveries scheduled at abandonment and the suppression list
 * (contract: Delivery, Suppression; Endpoints, Leads deliveries,
 * Suppressions).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

#define J(...) #__VA_ARGS__

Test(suppressions, create_list_delete)
{
	struct fx	 f, g;
	char		 c[40], p[256], id[40], b[512];
	struct resp	*r;

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	fx_campaign(&f, "sup", c);
	r = http("POST", "/api/v1/suppressions", f.live, J({"value":"090-1111-2222","memo":"電話で依頼"}), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "kind"), "tel");
	cr_assert_str_eq(jget(r->json, "value_masked"), "090-****-2222");
	cr_assert_str_eq(jget(r->json, "scope"), "tenant");
	cr_assert_str_eq(jget(r->json, "reason"), "manual");
	cr_assert_null(strstr(r->body, "1111"));
	snprintf(id, sizeof(id), "%s", jget(r->json, "id"));
	resp_free(r);
	/* the same contact, typed otherwise, in the same scope */
	r = http("POST", "/api/v1/suppressions", f.live, J({"value":"０９０１１１１２２２２"}), NULL);
	expect_error(r, 409, "invalid_request", "suppression_exists", "value");
	resp_free(r);
	snprintf(b, sizeof(b), "{\"value\":\"09011112222\",\"scope\":\"campaign\",\"campaign_id\":\"%s\"}", c);
	r = http("POST", "/api/v1/suppressions", f.live, b, NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	snprintf(b, sizeof(b), "{\"value\":\"a@b.jp\",\"scope\":\"campaign\",\"campaign_id\":\"%s\"}",
	    "01900000-0000-7000-8000-000000000000");
	r = http("POST", "/api/v1/suppressions", f.live, b, NULL);
	expect_error(r, 404, "not_found", "not_found", "campaign_id");
	resp_free(r);
	r = http("POST", "/api/v1/suppressions", f.live, J({"value":"not a contact"}), NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid", "value");
	resp_free(r);
	r = http("POST", "/api/v1/suppressions", f.live, J({"scope":"campaign","value":"a@b.jp"}), NULL);
	expect_error(r, 422, "invalid_request", "parameter_missing", "campaign_id");
	resp_free(r);
	r = http("POST", "/api/v1/suppressions", f.live, J({"value":"Someone@Example.JP","expires_at":"2030-01-01T00:00:00+09:00"}), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "value_masked"), "So***@example.jp");
	cr_assert_str_eq(jget(r->json, "expires_at"), "2029-12-31T15:00:00Z");
	resp_free(r);
	/* q: an exact contact through the blind index */
	r = http("GET", "/api/v1/suppressions?q=090-1111-2222", f.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 2);
	resp_free(r);
	r = http("GET", "/api/v1/suppressions?q=someone%40example.jp", f.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 1);
	resp_free(r);
	r = http("GET", "/api/v1/suppressions?kind=email&scope=tenant", f.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 1);
	resp_free(r);
	r = http("GET", "/api/v1/suppressions?q=090-1111-2222", g.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 0);
	resp_free(r);
	/* manual entries can be deleted; opt-outs and complaints cannot */
	snprintf(p, sizeof(p), "/api/v1/suppressions/%s", id);
	r = http("DELETE", p, g.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "suppression_id");
	resp_free(r);
	r = http("DELETE", p, f.live, NULL, NULL);
	cr_assert_eq(r->status, 204);
	resp_free(r);
	sql("UPDATE suppressions SET reason = 'opt_out' WHERE tenant_id = '%s'", f.tenant);
	r = http("GET", "/api/v1/suppressions?limit=1", f.live, NULL, NULL);
	snprintf(p, sizeof(p), "/api/v1/suppressions/%s", jget(r->json, "data.0.id"));
	resp_free(r);
	r = http("DELETE", p, f.live, NULL, NULL);
	expect_error(r, 409, "invalid_request", "suppression_not_deletable", NULL);
	resp_free(r);
}

Test(deliveries, scheduled_when_a_lead_is_abandoned, .timeout = 60)
{
	struct fx	 f, g;
	char		 c[40], m1[40], m2[40], s[40], p[256], b[1024], d[40];
	struct resp	*r;

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	fx_campaign(&f, "dlv", c);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/url-rules", c);
	resp_free(http("PUT", p, f.live, J({"rules":[{"role":"form","match_type":"prefix","pattern":"/form"}]}), NULL));
	cr_assert_eq(ctl(NULL, "campaign set-status --id %s --status active", c), 0);
	r = http("POST", "/api/v1/messages", f.live, J({"channel":"sms","body":"デモ商店です {{link_url}}"}), NULL);
	snprintf(m1, sizeof(m1), "%s", jget(r->json, "id"));
	resp_free(r);
	r = http("POST", "/api/v1/messages", f.live, J({"channel":"email","subject":"ご案内","blocks":[{"type":"text","text":"続きはこちら"}]}), NULL);
	snprintf(m2, sizeof(m2), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/scenarios", c);
	r = http("POST", p, f.live, J({"name":"s"}), NULL);
	snprintf(s, sizeof(s), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s/steps", s);
	snprintf(b, sizeof(b), "{\"steps\":[{\"message_id\":\"%s\",\"delay_minutes\":30},"
	    "{\"message_id\":\"%s\",\"delay_minutes\":1440}]}", m1, m2);
	resp_free(http("PUT", p, f.live, b, NULL));
	cr_assert_eq(ctl(NULL, "scenario set-status --id %s --status active", s), 0);
	snprintf(b, sizeof(b), "{\"v\":1,\"site\":\"%s\",\"visitor\":\"12121212-1111-4111-8111-111111111111\","
	    "\"session\":\"12121212-1111-4111-8111-111111111111\",\"type\":\"capture\","
	    "\"url\":\"https://shop.example.jp/form\",\"campaign\":\"dlv\",\"role\":\"form\","
	    "\"contact\":{\"tel\":\"090-3333-4444\",\"email\":\"buyer@example.jp\"},\"consent\":true}", f.site_pk);
	r = http("POST", "/tag/v1/events", NULL, b, NULL);
	cr_assert_eq(r->status, 204);
	resp_free(r);
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-abandon\" --now 2036-01-01T00:00:00Z"), 0);
	r = http("GET", "/api/v1/leads", f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "data.0.status"), "queued");
	resp_free(r);
	r = http("GET", "/api/v1/deliveries?date_field=scheduled_at", f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 2);
	cr_assert_str_eq(jget(r->json, "date_field"), "scheduled_at");
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/deliveries?scenario_id=%s&status=scheduled", s);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 2);
	/* newest first: the email step was scheduled second */
	cr_assert_str_eq(jget(r->json, "data.1.channel"), "sms");
	cr_assert_str_eq(jget(r->json, "data.1.to_masked"), "090-****-4444");
	cr_assert_str_eq(jget(r->json, "data.1.scheduled_at"), "2036-01-01T00:30:00Z");
	cr_assert_str_eq(jget(r->json, "data.1.step.position"), "1");
	cr_assert_str_eq(jget(r->json, "data.0.to_masked"), "bu***@example.jp");
	cr_assert_str_eq(jget(r->json, "data.0.scheduled_at"), "2036-01-02T00:00:00Z");
	cr_assert_str_eq(jget(r->json, "data.0.campaign.key"), "dlv");
	cr_assert_null(strstr(r->body, "3333"));
	snprintf(d, sizeof(d), "%s", jget(r->json, "data.0.id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/deliveries/%s", d);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200);
	cr_assert_str_eq(jget(r->json, "status"), "scheduled");
	cr_assert_str_eq(jget(r->json, "scenario.id"), s);
	resp_free(r);
	r = http("GET", p, g.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "delivery_id");
	resp_free(r);
	r = http("GET", "/api/v1/deliveries?status=lost", f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "status");
	resp_free(r);
}
