/* Campaigns (contract: Campaign, CampaignIn; States, Campaign). */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

#define J(...) #__VA_ARGS__

static struct resp *
create(const struct fx *f, const char *extra)
{
	char	 b[1024];

	snprintf(b, sizeof(b), "{\"site_id\":\"%s\",\"key\":\"spring\","
	    "\"name\":\"春のキャンペーン\"%s}", f->site, extra);
	return http("POST", "/api/v1/campaigns", f->live, b, NULL);
}

Test(campaigns, create_defaults_to_paused)
{
	struct fx	 f;
	struct resp	*r;

	fx_new(&f, "pro", 0);
	r = create(&f, ",\"product_name\":\"美容液\",\"abandon_wait_minutes\":45");
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "status"), "paused");
	cr_assert_str_eq(jget(r->json, "key"), "spring");
	cr_assert_str_eq(jget(r->json, "name"), "春のキャンペーン");
	cr_assert_str_eq(jget(r->json, "product_name"), "美容液");
	cr_assert_str_eq(jget(r->json, "abandon_wait_minutes"), "45");
	cr_assert_str_eq(jget(r->json, "site_id"), f.site);
	cr_assert_str_eq(jget(r->json, "site.id"), f.site);
	cr_assert_not_null(jobj(r->json, "url_rules"));
	cr_assert_not_null(jobj(r->json, "warnings"));
	cr_assert(json_object_object_get_ex(r->json, "form_profile", NULL));
	cr_assert_eq(strlen(jget(r->json, "created_at")), 20);
	cr_assert_eq(jget(r->json, "created_at")[19], 'Z');
	resp_free(r);
}

Test(campaigns, explicit_paused_and_null_status_are_fine)
{
	struct fx	 f;
	struct resp	*r;
	char		 b[512];

	fx_new(&f, "pro", 0);
	r = create(&f, ",\"status\":\"paused\"");
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	snprintf(b, sizeof(b),
	    "{\"site_id\":\"%s\",\"key\":\"n2\",\"name\":\"n\","
	    "\"status\":null,\"product_name\":null,"
	    "\"abandon_wait_minutes\":null}", f.site);
	r = http("POST", "/api/v1/campaigns", f.live, b, NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "status"), "paused");
	cr_assert_str_eq(jget(r->json, "abandon_wait_minutes"), "30");
	resp_free(r);
}

Test(campaigns, api_key_draft_only)
{
	struct fx	 f;
	struct resp	*r;

	fx_new(&f, "pro", 0);
	r = create(&f, ",\"status\":\"active\"");
	expect_error(r, 422, "invalid_request", "api_key_draft_only", "status");
	resp_free(r);
	r = create(&f, ",\"status\":\"archived\"");
	expect_error(r, 422, "invalid_request", "api_key_draft_only", "status");
	resp_free(r);
	r = create(&f, ",\"status\":\"running\"");
	expect_error(r, 422, "invalid_request", "parameter_invalid", "status");
	resp_free(r);
	/* a test key gets the same answer */
	{
		char	 b[512];

		snprintf(b, sizeof(b),
		    "{\"site_id\":\"%s\",\"key\":\"t\",\"name\":\"n\","
		    "\"status\":\"active\"}", f.site);
		r = http("POST", "/api/v1/campaigns", f.test, b, NULL);
		expect_error(r, 422, "invalid_request", "api_key_draft_only",
		    "status");
		cr_assert_str_eq(resp_header(r, "Formback-Dry-Run"), "true");
		resp_free(r);
	}
}

Test(campaigns, key_taken_is_409)
{
	struct fx	 f;
	struct resp	*r;

	fx_new(&f, "pro", 0);
	r = create(&f, "");
	cr_assert_eq(r->status, 201);
	resp_free(r);
	r = create(&f, "");
	expect_error(r, 409, "invalid_request", "campaign_key_taken", "key");
	resp_free(r);
}

Test(campaigns, bad_key_and_name)
{
	struct fx	 f;
	struct resp	*r;
	char		 b[512];

	fx_new(&f, "pro", 0);
	snprintf(b, sizeof(b),
	    "{\"site_id\":\"%s\",\"key\":\"has "
	    "space\",\"name\":\"n\"}", f.site);
	r = http("POST", "/api/v1/campaigns", f.live, b, NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid", "key");
	resp_free(r);
	snprintf(b, sizeof(b),
	    "{\"site_id\":\"%s\",\"key\":\"ok\",\"name\":\"  \"}", f.site);
	r = http("POST", "/api/v1/campaigns", f.live, b, NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid", "name");
	resp_free(r);
	/* names and subjects are one line: no control character */
	snprintf(b, sizeof(b),
	    "{\"site_id\":\"%s\",\"key\":\"ok\",\"name\":\"a\\nb\"}", f.site);
	r = http("POST", "/api/v1/campaigns", f.live, b, NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid", "name");
	resp_free(r);
	snprintf(b, sizeof(b),
	    "{\"site_id\":\"%s\",\"key\":\"ok\",\"name\":\"n\","
	    "\"product_name\":\"a\\u007f\"}", f.site);
	r = http("POST", "/api/v1/campaigns", f.live, b, NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid",
	    "product_name");
	resp_free(r);
	/* a site's name too, through formbackctl as through the API */
	cr_assert_neq(ctl(NULL,
	    "site create --tenant %s --name 'a\nb' --domain "
	    "line.example.jp", f.tenant), 0);
	cr_assert_eq(ctl(NULL, "site create --tenant %s --name 'a b' --domain "
	    "line.example.jp", f.tenant), 0);
	r = http("POST", "/api/v1/messages", f.live, J({"channel":"email",
	    "subject":"s\r\nBcc: x@example.jp",
	    "blocks":[{"type":"text","text":"a"}]}), NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid", "subject");
	resp_free(r);
	r = http("POST", "/api/v1/messages", f.live, J({"channel":"email",
	    "subject":"ご案内\tです",
	    "blocks":[{"type":"text","text":"a\nb"}]}), NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid", "subject");
	resp_free(r);
	r = http("POST", "/api/v1/messages", f.live, J({"channel":"sms",
	    "body":"一行目\n二行目"}), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
}

Test(campaigns, unknown_or_foreign_site_is_404)
{
	struct fx	 f, g;
	struct resp	*r;
	char		 b[512];

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	snprintf(b, sizeof(b),
	    "{\"site_id\":\"%s\",\"key\":\"k\",\"name\":\"n\"}", g.site);
	r = http("POST", "/api/v1/campaigns", f.live, b, NULL);
	expect_error(r, 404, "not_found", "not_found", "site_id");
	resp_free(r);
	r = http("POST", "/api/v1/campaigns", f.live,
	    "{\"site_id\":\"01900000-0000-7000-8000-000000000000\","
	    "\"key\":\"k\",\"name\":\"n\"}", NULL);
	expect_error(r, 404, "not_found", "not_found", "site_id");
	resp_free(r);
}

Test(campaigns, get_and_isolation)
{
	struct fx	 f, g;
	struct resp	*r;
	char		 id[40], p[128];

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	fx_campaign(&f, "mine", id);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s", id);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200);
	cr_assert_str_eq(jget(r->json, "id"), id);
	resp_free(r);
	r = http("GET", p, g.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "campaign_id");
	resp_free(r);
	/* upper-case UUIDs name the same campaign */
	{
		char	 up[128];
		size_t	 i;

		snprintf(up, sizeof(up), "%s", p);
		for (i = 0; up[i] != '\0'; i++)
			if (up[i] >= 'a' && up[i] <= 'f' && i > 18)
				up[i] = (char)(up[i] - 32);
		r = http("GET", up, f.live, NULL, NULL);
		cr_assert_eq(r->status, 200, "%s", r->body);
		resp_free(r);
	}
	r = http("GET", "/api/v1/campaigns", g.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 0);
	resp_free(r);
}

Test(campaigns, list_filters_and_counts)
{
	struct fx	 f;
	struct resp	*r;
	char		 a[40], b[40], p[256], site2[40];
	json_object	*o;

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "first", a);
	cr_assert_eq(ctl(&o,
	    "site create --tenant %s --name two --domain two.example.jp",
	    f.tenant), 0);
	snprintf(site2, sizeof(site2), "%s", jget(o, "id"));
	json_object_put(o);
	{
		char	 body[512];

		snprintf(body, sizeof(body),
		    "{\"site_id\":\"%s\",\"key\":\"second\",\"name\":\"n\"}",
		    site2);
		r = http("POST", "/api/v1/campaigns", f.live, body, NULL);
		cr_assert_eq(r->status, 201);
		snprintf(b, sizeof(b), "%s", jget(r->json, "id"));
		resp_free(r);
	}
	cr_assert_eq(ctl(NULL, "campaign set-status --id %s --status active",
	    b), 0);
	sql("INSERT INTO scenarios (id, tenant_id, campaign_id, name, status) "
	    "VALUES (UUID(), '%s', '%s', 's1', 'active'), (UUID(), '%s', '%s', "
	    "'s2', 'draft')",
	    f.tenant, b, f.tenant, b);
	sql("INSERT INTO scenarios (id, tenant_id, campaign_id, name, status, "
	    "deleted_at) VALUES (UUID(), '%s', '%s', 'gone', 'paused', "
	    "NOW())", f.tenant, b);

	snprintf(p, sizeof(p), "/api/v1/campaigns?site_id=%s", site2);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 1);
	cr_assert_str_eq(jget(r->json, "data.0.id"), b);
	cr_assert_str_eq(jget(r->json, "data.0.status"), "active");
	cr_assert_str_eq(jget(r->json, "data.0.scenario_count"), "2");
	cr_assert_str_eq(jget(r->json, "data.0.active_scenario_count"), "1");
	cr_assert_null(jobj(r->json, "data.0.url_rules"));
	resp_free(r);
	r = http("GET", "/api/v1/campaigns?status=paused", f.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 1);
	cr_assert_str_eq(jget(r->json, "data.0.id"), a);
	cr_assert_str_eq(jget(r->json, "data.0.scenario_count"), "0");
	cr_assert_str_eq(jget(r->json, "data.0.active_scenario_count"), "0");
	resp_free(r);
	r = http("GET", "/api/v1/campaigns?status=archived", f.live, NULL,
	    NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 0);
	cr_assert_null(jget(r->json, "next_cursor"));
	resp_free(r);
}

/*
 * The campaign list under every combination of its filters (site,
 * status) and the message list under its channel: the same rows, newest
 * first, page after page, as one plain query says, none of another
 * tenant's; and a filter few of 400 rows match reads a handful of index
 * entries (campaigns_site, campaigns_status, messages_channel), not the
 * 400.
 */
Test(campaigns, list_every_filter_on_its_index, .timeout = 120)
{
	static const char *const sparse[][2] = { { "campaigns",
	    "status=archived" },
	    { "campaigns", "site_id=%s" }, { "campaigns",
	    "site_id=%s&status=archived" },
	    { "messages", "channel=email" } };
	struct fx	 f, g;
	json_object	*o;
	char		 site2[40], q[256], got[4096];
	long long	 reads;
	size_t		 i;

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	cr_assert_eq(ctl(&o, "site create --tenant %s --name two --domain "
	    "two.example.jp", f.tenant), 0);
	snprintf(site2, sizeof(site2), "%s", jget(o, "id"));
	json_object_put(o);
	/* 60 of each: sites, statuses and channels interleaved */
	sql("INSERT INTO campaigns (id, tenant_id, site_id, campaign_key, "
	    "name, status, abandon_wait_minutes) SELECT UUID(), '%s', IF(seq "
	    "%% 3 = 0, '%s', '%s'), CONCAT('c', seq), 'n', ELT(seq %% 3 + 1, "
	    "'active', 'paused', 'archived'), 30 FROM "
	    "seq_1_to_60", f.tenant, site2, f.site);
	sql("INSERT INTO messages (id, tenant_id, channel, body, link_params) "
	    "SELECT UUID(), '%s', IF(seq %% 2 = 0, 'sms', 'email'), 'b', '{}' "
	    "FROM seq_1_to_60", f.tenant);
	/* another tenant's, under the same keys: never listed */
	sql("INSERT INTO campaigns (id, tenant_id, site_id, campaign_key, "
	    "name, status, abandon_wait_minutes) SELECT UUID(), '%s', '%s', "
	    "CONCAT('c', seq), 'n', 'paused', 30 FROM "
	    "seq_1_to_5", g.tenant, f.site);
	sql("INSERT INTO messages (id, tenant_id, channel, body, link_params) "
	    "SELECT UUID(), '%s', 'email', 'b', '{}' FROM "
	    "seq_1_to_5", g.tenant);
	const struct list_filter camps[] = {
		{ "site_id", "site_id", { f.site, site2 } },
		{ "status", "status", { "active", "paused", "archived" } },
	}, msgs[] = {
		{ "channel", "channel", { "sms", "email" } },
	};
	list_filters_match(&f, "campaigns", "campaigns", camps, 2, NULL, 0);
	list_filters_match(&f, "messages", "messages", msgs, 1, NULL, 0);
	/* 400 others instead: one archived of the second site, one email */
	sql("DELETE FROM campaigns WHERE tenant_id = '%s'", f.tenant);
	sql("DELETE FROM messages WHERE tenant_id = '%s'", f.tenant);
	sql("INSERT INTO campaigns (id, tenant_id, site_id, campaign_key, "
	    "name, status, abandon_wait_minutes) SELECT UUID(), '%s', IF(seq = "
	    "300, '%s', '%s'), CONCAT('c', seq), 'n', IF(seq = 300, "
	    "'archived', 'active'), 30 FROM "
	    "seq_1_to_400", f.tenant, site2, f.site);
	sql("INSERT INTO messages (id, tenant_id, channel, body, link_params) "
	    "SELECT UUID(), '%s', IF(seq = 300, 'email', 'sms'), 'b', '{}' "
	    "FROM seq_1_to_400", f.tenant);
	for (i = 0; i < sizeof(sparse) / sizeof(sparse[0]); i++) {
		snprintf(q, sizeof(q), sparse[i][1], site2);
		reads = list_ids(&f, sparse[i][0], q, got, sizeof(got));
		cr_assert_eq(strlen(got), 36u, "%s?%s: %s", sparse[i][0], q,
		    got);
		cr_assert_lt(reads, 100, "GET /%s?%s read %lld index entries",
		    sparse[i][0], q, reads);
	}
}
