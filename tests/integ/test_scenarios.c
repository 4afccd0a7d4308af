/*
 * Scenarios and messages (contract: Scenario, Message, States Scenario,
 * Endpoints Scenarios and Messages, estimate rules, Limits).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

#define J(...) #__VA_ARGS__

static void
create_message(const struct fx *f, const char *body, char id[40])
{
	struct resp	*r = http("POST", "/api/v1/messages", f->live, body,
	    NULL);

	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(id, 40, "%s", jget(r->json, "id"));
	resp_free(r);
}

static void
create_scenario(const struct fx *f, const char *campaign, char id[40])
{
	char		 p[128];
	struct resp	*r;

	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/scenarios", campaign);
	r = http("POST", p, f->live, J({"name":"テストシナリオ"}), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "status"), "draft");
	snprintf(id, 40, "%s", jget(r->json, "id"));
	resp_free(r);
}

Test(scenarios, preset_to_active_as_a_new_user_would, .timeout = 60)
{
	struct fx	 f;
	char		 c[40], p[256], s[40], b[2048];
	struct resp	*r;
	int		 i, n;

	fx_new(&f, "free", 1000);	/* Free: 3 steps per scenario */
	fx_campaign(&f, "preset", c);
	r = http("GET", "/api/v1/scenario_presets", f.live, NULL, NULL);
	cr_assert_eq(r->status, 200);
	cr_assert_str_eq(jget(r->json, "data.1.key"), "recommended");
	cr_assert(json_object_get_boolean(jobj(r->json, "data.1.available")));
	cr_assert(!json_object_get_boolean(jobj(r->json, "data.2.available")),
	    "5 steps on Free");
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/scenarios/from_preset", c);
	r = http("POST", p, f.live, J({"preset_key":"full"}), NULL);
	expect_error(r, 403, "permission_error", "plan_limit_exceeded",
	    "preset_key");
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM messages WHERE tenant_id = "
	    "'%s'", f.tenant), "0");
	r = http("POST", p, f.live, J({"preset_key":"recommended"}), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "status"), "draft");
	cr_assert_eq(json_object_array_length(jobj(r->json, "steps")), 3);
	snprintf(s, sizeof(s), "%s", jget(r->json, "id"));
	resp_free(r);
	r = http("POST", p, f.live, J({"preset_key":"nope"}), NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid",
	    "preset_key");
	resp_free(r);
	/* the placeholder blocks activation */
	cr_assert_eq(ctl(NULL, "scenario set-status --id %s --status active",
	    s), 1);
	/* read the created messages, replace the placeholder */
	r = http("GET", "/api/v1/messages?channel=sms", f.live, NULL, NULL);
	n = (int)json_object_array_length(jobj(r->json, "data"));
	cr_assert_eq(n, 1);
	cr_assert_not_null(strstr(jget(r->json, "data.0.body"), "【店舗名】"));
	for (i = 0; i < n; i++) {
		char	 mp[128], body[1024];
		const char *t = jget(r->json, "data.0.body"), *ph = strstr(t,
		    "【店舗名】");

		snprintf(body, sizeof(body), "%.*sデモ商店%s", (int)(ph - t), t,
		    ph + strlen("【店舗名】"));
		snprintf(b, sizeof(b), "{\"body\":\"%s\"}", body);
		snprintf(mp, sizeof(mp), "/api/v1/messages/%s",
		    jget(r->json, "data.0.id"));
		{
			struct resp *u = http("PATCH", mp, f.live, b, NULL);

			cr_assert_eq(u->status, 200, "%s", u->body);
			cr_assert_geq(atoi(jget(u->json, "sms_segments")), 1);
			resp_free(u);
		}
	}
	resp_free(r);
	cr_assert_eq(ctl(NULL, "scenario set-status --id %s --status active",
	    s), 0);
	r = http("GET", "/api/v1/campaigns", f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "data.0.active_scenario_count"), "1");
	cr_assert_str_eq(jget(r->json, "data.0.scenario_count"), "1");
	resp_free(r);
	/* an active scenario cannot be deleted */
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s", s);
	r = http("DELETE", p, f.live, NULL, NULL);
	expect_error(r, 409, "invalid_request", "scenario_active", NULL);
	resp_free(r);
	/*
	 * nor edited into one activation refuses (contract: Message): the
	 * placeholder back in a step, no steps, an email without subject
	 */
	{
		char	 ph[40], sp[128], mp[128], em[40];

		create_message(&f,
		    J({"channel":"sms","body":"【店舗名】です {{link_url}}"}), ph);
		snprintf(sp, sizeof(sp), "/api/v1/scenarios/%s/steps", s);
		snprintf(b, sizeof(b), "{\"steps\":[{\"message_id\":\"%s\","
		    "\"delay_minutes\":0}]}", ph);
		r = http("PUT", sp, f.live, b, NULL);
		expect_error(r, 422, "invalid_request", "scenario_not_sendable",
		    "steps[0].body");
		resp_free(r);
		r = http("PUT", sp, f.live, J({"steps":[]}), NULL);
		expect_error(r, 422, "invalid_request", "scenario_not_sendable",
		    "steps");
		resp_free(r);
		r = http("GET", "/api/v1/messages?channel=email", f.live, NULL,
		    NULL);
		cr_assert_not_null(jget(r->json, "data.0.id"));
		snprintf(em, sizeof(em), "%s", jget(r->json, "data.0.id"));
		resp_free(r);
		snprintf(mp, sizeof(mp), "/api/v1/messages/%s", em);
		r = http("PATCH", mp, f.live, J({"subject":null}), NULL);
		cr_assert_eq(r->status, 422, "%s", r->body);
		cr_assert_str_eq(jget(r->json, "error.code"),
		    "scenario_not_sendable");
		cr_assert_not_null(strstr(jget(r->json, "error.param"),
		    ".subject"));
		resp_free(r);
		/* nothing of the three edits was kept */
		r = http("GET", p, f.live, NULL, NULL);
		cr_assert_eq(json_object_array_length(jobj(r->json, "steps")),
		    3);
		cr_assert_str_eq(jget(r->json, "status"), "active");
		resp_free(r);
		r = http("GET", mp, f.live, NULL, NULL);
		cr_assert_not_null(jget(r->json, "subject"));
		resp_free(r);
		/* an edit that keeps it sendable is fine */
		r = http("PATCH", mp, f.live, J({"subject":"ご案内（再送）"}), NULL);
		cr_assert_eq(r->status, 200, "%s", r->body);
		resp_free(r);
	}
	/* a second one cannot be active at the same time */
	{
		char	 s2[40];

		create_scenario(&f, c, s2);
		cr_assert_eq(ctl(NULL,
		    "scenario set-status --id %s --status active", s2), 1);
	}
}

Test(scenarios, api_keys_make_drafts_and_cannot_change_status)
{
	struct fx	 f;
	char		 c[40], s[40], p[256];
	struct resp	*r;

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "drafts", c);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/scenarios", c);
	r = http("POST", p, f.live, J({"name":"x","status":"active"}), NULL);
	expect_error(r, 422, "invalid_request", "api_key_draft_only", "status");
	resp_free(r);
	r = http("POST", p, f.live, J({"status":"draft"}), NULL);
	expect_error(r, 422, "invalid_request", "parameter_missing", "name");
	resp_free(r);
	create_scenario(&f, c, s);
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s", s);
	r = http("PATCH", p, f.live, J({"status":"active"}), NULL);
	expect_error(r, 403, "permission_error", "session_required", "status");
	resp_free(r);
	r = http("PATCH", p, f.live,
	    J({"name":"改名","abandon_wait_minutes":45,"status":"draft"}), NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "name"), "改名");
	cr_assert_str_eq(jget(r->json, "abandon_wait_minutes"), "45");
	resp_free(r);
	r = http("DELETE", p, f.live, NULL, NULL);
	cr_assert_eq(r->status, 204);
	resp_free(r);
	r = http("GET", p, f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "scenario_id");
	resp_free(r);
	r = http("GET",
	    "/api/v1/campaigns/01900000-0000-7000-8000-000000000000/scenarios",
	    f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "campaign_id");
	resp_free(r);
}

Test(scenarios, steps_all_or_nothing_and_plan_limit)
{
	struct fx	 f;
	char		 c[40], s[40], m[40], p[256], b[2048];
	struct resp	*r;

	fx_new(&f, "free", 1000);	/* Free: 3 steps per scenario */
	fx_campaign(&f, "steps", c);
	create_scenario(&f, c, s);
	create_message(&f, J({"channel":"sms","body":"こんにちは {{link_url}}"}), m);
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s/steps", s);
	snprintf(b, sizeof(b),
	    "{\"steps\":[{\"message_id\":\"%s\",\"delay_minutes\":30},"
	    "{\"message_id\":\"%s\",\"delay_minutes\":60}]}", m, m);
	r = http("PUT", p, f.live, b, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_eq(json_object_array_length(jobj(r->json, "steps")), 2);
	cr_assert_str_eq(jget(r->json, "steps.1.delay_minutes"), "60");
	resp_free(r);
	/* one bad step: 422 naming it, the old steps stay */
	snprintf(b, sizeof(b),
	    "{\"steps\":[{\"message_id\":\"%s\",\"delay_minutes\":5},"
	    "{\"message_id\":\"01900000-0000-7000-8000-000000000000\","
	    "\"delay_minutes\":5}]}", m);
	r = http("PUT", p, f.live, b, NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid",
	    "steps[1].message_id");
	resp_free(r);
	snprintf(b, sizeof(b),
	    "{\"steps\":[{\"message_id\":\"%s\",\"delay_minutes\":-1}]}", m);
	r = http("PUT", p, f.live, b, NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid",
	    "steps[0].delay_minutes");
	resp_free(r);
	snprintf(b, sizeof(b), "{\"steps\":[{\"delay_minutes\":1}]}");
	r = http("PUT", p, f.live, b, NULL);
	expect_error(r, 422, "invalid_request", "parameter_missing",
	    "steps[0].message_id");
	resp_free(r);
	snprintf(b, sizeof(b),
	    "{\"steps\":[{\"message_id\":\"%s\",\"delay_minutes\":1},"
	    "{\"message_id\":\"%s\",\"delay_minutes\":2},"
	    "{\"message_id\":\"%s\",\"delay_minutes\":3},"
	    "{\"message_id\":\"%s\",\"delay_minutes\":4}]}", m, m, m, m);
	r = http("PUT", p, f.live, b, NULL);
	expect_error(r, 403, "permission_error", "plan_limit_exceeded",
	    "steps");
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s", s);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "steps")), 2);
	cr_assert_str_eq(jget(r->json, "steps.0.delay_minutes"), "30");
	resp_free(r);
	/* a message a step uses cannot be deleted */
	snprintf(p, sizeof(p), "/api/v1/messages/%s", m);
	r = http("DELETE", p, f.live, NULL, NULL);
	expect_error(r, 409, "invalid_request", "message_in_use", NULL);
	resp_free(r);
}

Test(scenarios, duplicate_copies_messages_and_isolation)
{
	struct fx	 f, g;
	char		 c[40], c2[40], s[40], m[40], p[256], b[512], gc[40];
	struct resp	*r;

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	fx_campaign(&f, "d1", c);
	fx_campaign(&f, "d2", c2);
	fx_campaign(&g, "g1", gc);
	create_scenario(&f, c, s);
	create_message(&f,
	    J({"channel":"email","subject":"件名",
	    "blocks":[{"type":"text","text":"本文"}]}), m);
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s/steps", s);
	snprintf(b, sizeof(b),
	    "{\"steps\":[{\"message_id\":\"%s\",\"delay_minutes\":30}]}", m);
	resp_free(http("PUT", p, f.live, b, NULL));
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s/duplicate", s);
	snprintf(b, sizeof(b), "{\"campaign_id\":\"%s\",\"name\":\"コピー\"}", c2);
	r = http("POST", p, f.live, b, NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "campaign_id"), c2);
	cr_assert_str_eq(jget(r->json, "status"), "draft");
	cr_assert_str_eq(jget(r->json, "name"), "コピー");
	cr_assert_str_neq(jget(r->json, "steps.0.message_id"), m,
	    "the message is copied");
	resp_free(r);
	snprintf(b, sizeof(b), "{\"campaign_id\":\"%s\"}", gc);
	r = http("POST", p, f.live, b, NULL);
	expect_error(r, 404, "not_found", "not_found", "campaign_id");
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s", s);
	r = http("GET", p, g.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "scenario_id");
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/messages/%s", m);
	r = http("GET", p, g.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "message_id");
	resp_free(r);
}

Test(messages, create_update_delete_duplicate)
{
	struct fx	 f;
	char		 m[40], p[256];
	struct resp	*r;

	fx_new(&f, "pro", 0);
	r = http("POST", "/api/v1/messages", f.live,
	    J({"channel":"sms","body_html":"<p>x</p>"}), NULL);
	expect_error(r, 403, "permission_error", "session_required",
	    "body_html");
	resp_free(r);
	r = http("POST", "/api/v1/messages", f.live, J({"body":"x"}), NULL);
	expect_error(r, 422, "invalid_request", "parameter_missing", "channel");
	resp_free(r);
	r = http("POST", "/api/v1/messages", f.live, J({"channel":"fax"}),
	    NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid", "channel");
	resp_free(r);
	r = http("POST", "/api/v1/messages", f.live,
	    J({"channel":"email","link_url":"ftp://x"}), NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid",
	    "link_url");
	resp_free(r);
	r = http("POST", "/api/v1/messages", f.live,
	    J({"channel":"email","blocks":[{"type":"video"}]}), NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid",
	    "blocks[0].type");
	resp_free(r);
	{
		char	 b[4096], body[3000];

		memset(body, 'a', 661);
		body[661] = '\0';
		snprintf(b, sizeof(b), "{\"channel\":\"sms\",\"body\":\"%s\"}",
		    body);
		r = http("POST", "/api/v1/messages", f.live, b, NULL);
		expect_error(r, 422, "invalid_request", "sms_body_too_long",
		    "body");
		resp_free(r);
	}
	create_message(&f,
	    J({"channel":"sms","body":"短いSMS",
	    "link_params":{"utm_source":"sms"}}), m);
	snprintf(p, sizeof(p), "/api/v1/messages/%s", m);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "sms_segments"), "1");
	cr_assert_str_eq(jget(r->json, "link_params.utm_source"), "sms");
	resp_free(r);
	r = http("PATCH", p, f.live, J({"link_params":null,"subject":"無視されない"}),
	    NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_eq(json_object_object_length(jobj(r->json, "link_params")),
	    0);
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/messages/%s/duplicate", m);
	r = http("POST", p, f.live, "", NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_neq(jget(r->json, "id"), m);
	cr_assert_str_eq(jget(r->json, "body"), "短いSMS");
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/messages/%s", m);
	r = http("DELETE", p, f.live, NULL, NULL);
	cr_assert_eq(r->status, 204);
	resp_free(r);
	r = http("GET", "/api/v1/messages?limit=1", f.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 1);
	cr_assert_null(jget(r->json, "next_cursor"));
	resp_free(r);
}

Test(messages, examples_variables_previews)
{
	struct fx	 f;
	char		 c[40], p[256], b[1024];
	struct resp	*r;

	fx_new(&f, "free", 1000);
	fx_campaign(&f, "ex", c);
	r = http("GET", "/api/v1/message_examples?channel=sms", f.live, NULL,
	    NULL);
	cr_assert_eq(r->status, 200);
	cr_assert_str_eq(jget(r->json, "data.0.channel"), "sms");
	cr_assert_str_eq(jget(r->json, "data.0.position"), "1");
	cr_assert_not_null(strstr(jget(r->json, "data.0.body"), "【店舗名】"));
	cr_assert_null(jget(r->json, "data.0.subject"));
	resp_free(r);
	r = http("GET", "/api/v1/message_examples", f.live, NULL, NULL);
	cr_assert_geq(json_object_array_length(jobj(r->json, "data")), 4);
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/message_variables?campaign_id=%s", c);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "data.0.key"), "{{product_name}}");
	resp_free(r);
	r = http("GET",
	    "/api/v1/message_variables?campaign_id="
	    "01900000-0000-7000-8000-000000000000",
	    f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "campaign_id");
	resp_free(r);
	r = http("GET", "/api/v1/message_variables", f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid",
	    "campaign_id");
	resp_free(r);
	snprintf(b, sizeof(b),
	    "{\"campaign_id\":\"%s\",\"subject\":\"{{product_name}}のご案内\","
	    "\"blocks\":[{\"type\":\"heading\","
	    "\"text\":\"<script>alert(1)</script>\"},"
	    "{\"type\":\"image\",\"url\":\"https://x.jp/a.png\","
	    "\"alt\":\"\\\" onerror=\\\"x\"},"
	    "{\"type\":\"button\",\"text\":\"進む\",\"url\":\"{{link_url}}\"},"
	    "{\"type\":\"divider\"}]}", c);
	r = http("POST", "/api/v1/message_previews", f.live, b, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_null(strstr(jget(r->json, "html"), "<script>"));
	cr_assert_null(strstr(jget(r->json, "html"), "\" onerror"));
	cr_assert_not_null(strstr(jget(r->json, "html"), "&lt;script&gt;"));
	cr_assert_not_null(strstr(jget(r->json, "html"), "<hr>"));
	cr_assert_str_eq(jget(r->json, "subject"), "のご案内");
	resp_free(r);
	r = http("POST", "/api/v1/message_previews", f.live,
	    "{\"campaign_id\":\"01900000-0000-7000-8000-000000000000\","
	    "\"blocks\":[]}", NULL);
	expect_error(r, 404, "not_found", "not_found", "campaign_id");
	resp_free(r);
	snprintf(b, sizeof(b), "{\"campaign_id\":\"%s\"}", c);
	r = http("POST", "/api/v1/message_previews", f.live, b, NULL);
	expect_error(r, 422, "invalid_request", "parameter_missing", "blocks");
	resp_free(r);
}

Test(messages, estimate)
{
	struct fx	 f;
	struct resp	*r;
	char		 b[8192], body[4000];
	size_t		 i;

	fx_new(&f, "pro", 0);
	r = http("POST", "/api/v1/messages/estimate", f.live,
	    J({"body":"こんにちは"}), NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "characters"), "5");
	cr_assert_str_eq(jget(r->json, "segments"), "1");
	resp_free(r);
	for (i = 0; i < 660; i++)
		memcpy(body + i * 3, "あ", 3);
	body[660 * 3] = '\0';
	snprintf(b, sizeof(b), "{\"body\":\"%s\"}", body);
	r = http("POST", "/api/v1/messages/estimate", f.live, b, NULL);
	cr_assert_str_eq(jget(r->json, "segments"), "10");
	resp_free(r);
	snprintf(b, sizeof(b), "{\"body\":\"%sあ\"}", body);
	r = http("POST", "/api/v1/messages/estimate", f.live, b, NULL);
	expect_error(r, 422, "invalid_request", "sms_body_too_long", "body");
	resp_free(r);
	/* URL variables count at the length of the short links */
	r = http("POST", "/api/v1/messages/estimate", f.test,
	    J({"body":"{{link_url}}"}), NULL);
	cr_assert_eq(r->status, 200);
	cr_assert_gt(atoi(jget(r->json, "characters")), 12);
	cr_assert_str_eq(resp_header(r, "Formback-Dry-Run"), "true");
	resp_free(r);
	r = http("POST", "/api/v1/messages/estimate", f.live, J({"body":""}),
	    NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid", "body");
	resp_free(r);
	r = http("POST", "/api/v1/messages/estimate", f.live, "{}", NULL);
	expect_error(r, 422, "invalid_request", "parameter_missing", "body");
	resp_free(r);
}
