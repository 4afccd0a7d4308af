/*
 * Deliveries scheduled at abandonment and the suppression list
 * (contract: Delivery, Suppression; Endpoints, Leads deliveries,
 * Suppressions).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

#define J(...) #__VA_ARGS__

Test(suppressions, create_list_delete)
{
	static const char *const spellings[] = {
		J({"value":"ＴｅｓｔＴ@XN--R8JZ45G.jp"}),
		J({"value":"ＴｅｓｔＴ@例え．ｊｐ"}),
	};
	struct fx	 f, g;
	char		 c[40], p[256], id[40], b[512];
	struct resp	*r;
	long long	 before;
	size_t		 i;

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	fx_campaign(&f, "sup", c);
	r = http("POST", "/api/v1/suppressions", f.live,
	    J({"value":"090-1111-2222","memo":"電話で依頼"}), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "kind"), "tel");
	cr_assert_str_eq(jget(r->json, "value_masked"), "090-****-2222");
	cr_assert_str_eq(jget(r->json, "scope"), "tenant");
	cr_assert_str_eq(jget(r->json, "reason"), "manual");
	cr_assert_null(strstr(r->body, "1111-2222"));
	cr_assert_null(strstr(r->body, "11112222"));
	snprintf(id, sizeof(id), "%s", jget(r->json, "id"));
	resp_free(r);
	/* the same contact, typed otherwise, in the same scope */
	r = http("POST", "/api/v1/suppressions", f.live,
	    J({"value":"０９０１１１１２２２２"}), NULL);
	expect_error(r, 409, "invalid_request", "suppression_exists", "value");
	resp_free(r);
	snprintf(b, sizeof(b),
	    "{\"value\":\"09011112222\",\"scope\":\"campaign\","
	    "\"campaign_id\":\"%s\"}", c);
	r = http("POST", "/api/v1/suppressions", f.live, b, NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	snprintf(b, sizeof(b),
	    "{\"value\":\"a@b.jp\",\"scope\":\"campaign\","
	    "\"campaign_id\":\"%s\"}", "01900000-0000-7000-8000-000000000000");
	r = http("POST", "/api/v1/suppressions", f.live, b, NULL);
	expect_error(r, 404, "not_found", "not_found", "campaign_id");
	resp_free(r);
	r = http("POST", "/api/v1/suppressions", f.live,
	    J({"value":"not a contact"}), NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid", "value");
	resp_free(r);
	r = http("POST", "/api/v1/suppressions", f.live,
	    J({"scope":"campaign","value":"a@b.jp"}), NULL);
	expect_error(r, 422, "invalid_request", "parameter_missing",
	    "campaign_id");
	resp_free(r);
	r = http("POST", "/api/v1/suppressions", f.live,
	    J({"value":"Someone@Example.JP",
	    "expires_at":"2030-01-01T00:00:00+09:00"}), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "value_masked"), "So***@example.jp");
	cr_assert_str_eq(jget(r->json, "expires_at"), "2029-12-31T15:00:00Z");
	resp_free(r);
	/*
	 * a UTF-8 local part (RFC 6531) masked by whole characters (a 500
	 * before)
	 */
	r = http("POST", "/api/v1/suppressions", f.live,
	    J({"value":"ＴｅｓｔＴ@例え.jp"}), NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "value_masked"), "Ｔｅ***@例え.jp");
	resp_free(r);
	/*
	 * the same address with its domain in ASCII (IDNA), or full-width:
	 * one address, one entry (two entries before, and an opt-out under
	 * one spelling let mail through under the other)
	 */
	for (i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		r = http("POST", "/api/v1/suppressions", f.live, spellings[i],
		    NULL);
		expect_error(r, 409, "invalid_request", "suppression_exists",
		    "value");
		resp_free(r);
	}
	/* one that would never be in force is refused */
	r = http("POST", "/api/v1/suppressions", f.live,
	    J({"value":"past@example.jp",
	    "expires_at":"2020-01-01T00:00:00Z"}), NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid",
	    "expires_at");
	resp_free(r);
	/*
	 * q: an exact contact through the blind index, reading its own
	 * entries only (suppressions_lookup), not the 400 others
	 */
	sql("INSERT INTO suppressions (id, tenant_id, kind, bidx, masked, "
	    "scope, reason) SELECT UUID(), '%s', 'email', UNHEX(SHA2(seq, "
	    "256)), 'x***@example.jp', 'tenant', 'manual' FROM "
	    "seq_1_to_400", f.tenant);
	before = index_reads();
	r = http("GET", "/api/v1/suppressions?q=090-1111-2222", f.live, NULL,
	    NULL);
	cr_assert_lt(index_reads() - before, 100);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 2);
	resp_free(r);
	r = http("GET", "/api/v1/suppressions?q=someone%40example.jp", f.live,
	    NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 1);
	resp_free(r);
	sql("DELETE FROM suppressions WHERE tenant_id = '%s' AND masked = "
	    "'x***@example.jp'", f.tenant);
	/* someone@example.jp and the UTF-8 one */
	r = http("GET", "/api/v1/suppressions?kind=email&scope=tenant", f.live,
	    NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 2);
	resp_free(r);
	r = http("GET", "/api/v1/suppressions?q=090-1111-2222", g.live, NULL,
	    NULL);
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
	sql("UPDATE suppressions SET reason = 'opt_out' WHERE tenant_id = '%s'",
	    f.tenant);
	r = http("GET", "/api/v1/suppressions?limit=1", f.live, NULL, NULL);
	snprintf(p, sizeof(p), "/api/v1/suppressions/%s",
	    jget(r->json, "data.0.id"));
	resp_free(r);
	r = http("DELETE", p, f.live, NULL, NULL);
	expect_error(r, 409, "invalid_request", "suppression_not_deletable",
	    NULL);
	resp_free(r);
}

/*
 * The suppression list under every combination of its filters (kind,
 * reason, scope, campaign), each read on its own index (db/sending.c):
 * the same entries, newest first, page after page, as one plain query
 * says, none of another tenant's; and a filter few of 400 entries match
 * reads a handful of index entries, not the 400.
 */
Test(suppressions, list_every_filter_on_its_index, .timeout = 120)
{
	static const char *const sparse[] = { "reason=complaint",
	    "campaign_id=%s", "scope=campaign", "kind=tel",
	    "kind=tel&reason=complaint" };
	struct fx	 f, g;
	char		 c[2][40], q[512], got[4096];
	long long	 reads;
	size_t		 i;

	fx_new(&f, "pro", 100000);
	fx_new(&g, "pro", 0);
	fx_campaign(&f, "sa", c[0]);
	fx_campaign(&f, "sb", c[1]);
	/* 60 entries: kinds, reasons, scopes and campaigns interleaved */
	sql("INSERT INTO suppressions (id, tenant_id, kind, bidx, masked, "
	    "scope, campaign_id, reason) SELECT UUID(), '%s', IF(seq %% 2 = 0, "
	    "'email', 'tel'), UNHEX(SHA2(seq, 256)), 'x***@example.jp', IF(seq "
	    "%% 3 = 0, 'tenant', 'campaign'), ELT(seq %% 3 + 1, NULL, '%s', "
	    "'%s'), ELT(seq %% 5 + 1, 'opt_out', 'manual', 'bounce', "
	    "'complaint', 'undeliverable') FROM "
	    "seq_1_to_60", f.tenant, c[0], c[1]);
	/* another tenant's, under the same keys: never listed */
	sql("INSERT INTO suppressions (id, tenant_id, kind, bidx, masked, "
	    "scope, campaign_id, reason) SELECT UUID(), '%s', 'tel', "
	    "UNHEX(SHA2(seq, 256)), 'x***@example.jp', 'campaign', '%s', "
	    "'bounce' FROM seq_1_to_5",
	    g.tenant, c[0]);
	const struct list_filter filters[] = {
		{ "kind", "kind", { "email", "tel" } },
		{ "reason", "reason", { "opt_out", "bounce", "complaint" } },
		{ "scope", "scope", { "tenant", "campaign" } },
		{ "campaign_id", "campaign_id", { c[0], c[1] } },
	};
	list_filters_match(&f, "suppressions", "suppressions", filters, 4, NULL,
	    0);
	/* 400 others instead: one tel complaint, two of a campaign */
	sql("DELETE FROM suppressions WHERE tenant_id = '%s'", f.tenant);
	sql("INSERT INTO suppressions (id, tenant_id, kind, bidx, masked, "
	    "scope, campaign_id, reason) SELECT UUID(), '%s', IF(seq = 300, "
	    "'tel', 'email'), UNHEX(SHA2(seq, 256)), 'x***@example.jp', IF(seq "
	    "IN (7, 300), 'campaign', 'tenant'), IF(seq IN (7, 300), '%s', "
	    "NULL), IF(seq = 300, 'complaint', 'opt_out') FROM "
	    "seq_1_to_400", f.tenant, c[0]);
	for (i = 0; i < sizeof(sparse) / sizeof(sparse[0]); i++) {
		snprintf(q, sizeof(q), sparse[i], c[0]);
		reads = list_ids(&f, "suppressions", q, got, sizeof(got));
		cr_assert_eq(strlen(got), i == 1 || i == 2 ? 73u : 36u,
		    "%s: %s", q, got);
		cr_assert_lt(reads, 100,
		    "GET /suppressions?%s read %lld index entries",
		    q, reads);
	}
}

/*
 * The delivery list under every combination of its filters (status,
 * campaign, scenario, a date range on each date field), each read on
 * the index its filter makes narrowest (db/sending.c): the same rows,
 * newest first, page after page, as one plain query says, and none of
 * another tenant's; and a filter few of 400 deliveries match reads a
 * handful of index entries, not the 400.
 */
Test(deliveries, list_every_filter_on_its_index, .timeout = 120)
{
	static const struct list_range ranges[] = {
		{ "date_field=created_at&from=2029-01-01T10:00:00Z&"
		  "to=2029-01-02T20:00:00Z",
		  "created_at >= '2029-01-01 10:00:00' AND created_at < "
		  "'2029-01-02 20:00:00'" },
		{ "date_field=scheduled_at&to=2029-01-02T18:00:00Z",
		  "scheduled_at < '2029-01-02 18:00:00'" },
		{ "date_field=sent_at&from=2029-01-03T12:00:00Z",
		  "sent_at >= '2029-01-03 12:00:00'" },
	};
	static const char *const sparse[] = { "status=failed", "campaign_id=%s",
	    "scenario_id=%s", "status=failed&scenario_id=%s", "status=failed&"
	    "date_field=sent_at&from=2029-01-01T00:00:00Z",
	    "date_field=created_at&from=2029-06-02T00:00:00Z",
	    "date_field=scheduled_at&from=2029-06-15T00:00:00Z" };
	struct fx	 f, g;
	char		 lead[40], camp[40], c[2][40], sc[2][40], q[512];
	char		 got[4096];
	long long	 reads;
	size_t		 i;

	fx_new(&f, "pro", 100000);
	fx_new(&g, "pro", 0);
	fx_campaign(&f, "dl", camp);
	snprintf(lead, sizeof(lead), "%s", sql("SELECT UUID()"));
	sql("INSERT INTO leads (id, tenant_id, site_id, campaign_id, "
	    "visitor_id, status, consent_state, pii_state) SELECT '%s', '%s', "
	    "'%s', '%s', UUID(), 'sent', 'notice_optout', "
	    "'absent'", lead, f.tenant, f.site, camp);
	for (i = 0; i < 2; i++) {
		snprintf(c[i], sizeof(c[i]), "%s", sql("SELECT UUID()"));
		snprintf(sc[i], sizeof(sc[i]), "%s", sql("SELECT UUID()"));
	}
	/*
	 * 60 deliveries: campaigns, scenarios, statuses and dates interleaved
	 */
	sql("INSERT INTO deliveries (id, tenant_id, lead_id, campaign_id, "
	    "scenario_id, channel, status, pii_state, created_at, "
	    "scheduled_at, sent_at) SELECT UUID(), '%s', '%s', IF(seq %% 3 = "
	    "0, '%s', '%s'), IF(seq %% 2 = 0, '%s', '%s'), 'sms', ELT(seq %% 4 "
	    "+ 1, 'scheduled', 'failed', 'sent', 'cancelled'), 'absent', "
	    "'2029-01-01' + INTERVAL seq HOUR, '2029-01-02' + INTERVAL seq "
	    "HOUR, IF(seq %% 4 = 2, '2029-01-03' + INTERVAL seq HOUR, NULL) "
	    "FROM seq_1_to_60", f.tenant, lead, c[1], c[0],
	    sc[0], sc[1]);
	/* another tenant's, under the same keys: never listed */
	sql("INSERT INTO deliveries (id, tenant_id, lead_id, campaign_id, "
	    "scenario_id, channel, status, pii_state, created_at, "
	    "scheduled_at, sent_at) SELECT UUID(), '%s', '%s', '%s', '%s', "
	    "'sms', 'sent', 'absent', '2029-01-02', '2029-01-02', '2029-01-04' "
	    "FROM seq_1_to_5", g.tenant,
	    lead, c[0], sc[0]);
	const struct list_filter filters[] = {
		{ "campaign_id", "campaign_id", { c[0], c[1] } },
		{ "scenario_id", "scenario_id", { sc[0], sc[1] } },
		{ "status", "status", { "scheduled", "failed", "sent" } },
	};
	list_filters_match(&f, "deliveries", "deliveries", filters, 3, ranges,
	    3);
	/*
	 * 400 others instead, one failed, two of a third campaign and
	 * scenario; the sparse dates after the deleted rows' (index entries
	 * InnoDB has not purged yet count in the optimizer's estimates)
	 */
	sql("DELETE FROM deliveries WHERE tenant_id = '%s'", f.tenant);
	snprintf(c[0], sizeof(c[0]), "%s", sql("SELECT UUID()"));
	sql("INSERT INTO deliveries (id, tenant_id, lead_id, campaign_id, "
	    "scenario_id, channel, status, pii_state, created_at, "
	    "scheduled_at, sent_at) SELECT UUID(), '%s', '%s', IF(seq IN (7, "
	    "300), '%s', '%s'), IF(seq IN (7, 300), '%s', '%s'), 'sms', IF(seq "
	    "= 300, 'failed', 'sent'), 'absent', IF(seq = 300, '2029-06-03', "
	    "'2029-06-01'), IF(seq = 300, '2029-07-01', '2029-06-01'), "
	    "'2029-06-01' FROM "
	    "seq_1_to_400", f.tenant, lead, c[0], c[1], c[0], sc[1]);
	for (i = 0; i < sizeof(sparse) / sizeof(sparse[0]); i++) {
		snprintf(q, sizeof(q), sparse[i], c[0]);
		reads = list_ids(&f, "deliveries", q, got, sizeof(got));
		cr_assert_eq(strlen(got), i == 1 || i == 2 ? 73u : 36u,
		    "%s: %s", q, got);
		cr_assert_lt(reads, 100,
		    "GET /deliveries?%s read %lld index entries",
		    q, reads);
	}
}

/*
 * An old date range under 20,000 newer deliveries, ids following dates
 * (as capture::lead_list_old_range_reads_past_newer_leads_once): the
 * page read on the range's date index, not through the newer ones.
 */
Test(deliveries, list_old_range_reads_past_newer_ones_once, .timeout = 120)
{
	struct fx	 f;
	char		 lead[40], camp[40];

	fx_new(&f, "pro", 100000);
	fx_campaign(&f, "od", camp);
	snprintf(lead, sizeof(lead), "%s", sql("SELECT UUID()"));
	sql("INSERT INTO leads (id, tenant_id, site_id, campaign_id, "
	    "visitor_id, status, consent_state, pii_state) SELECT '%s', '%s', "
	    "'%s', '%s', UUID(), 'converted', 'notice_optout', "
	    "'absent'", lead, f.tenant, f.site,
	    camp);
	sql("INSERT INTO deliveries (id, tenant_id, lead_id, campaign_id, "
	    "scenario_id, channel, status, pii_state, created_at, "
	    "scheduled_at) SELECT " SEQ_ID_SQL ", '%s', '%s', UUID(), UUID(), "
	    "'sms', 'cancelled', 'absent', '2030-01-01' + INTERVAL seq SECOND, "
	    "'2030-01-01' + INTERVAL seq SECOND FROM "
	    "seq_1_to_25000", f.tenant, lead);
	sql("ANALYZE TABLE deliveries");
	old_range_page(&f, "deliveries",
	    "date_field=scheduled_at&to=2030-01-01T01:23:20Z",
	    "deliveries", "created_at < '2030-01-01 01:23:20'");
	old_range_page(&f, "deliveries",
	    "date_field=created_at&from=2030-01-01T00:30:00Z"
	    "&to=2030-01-01T01:23:20Z", "deliveries", "created_at < "
	    "'2030-01-01 01:23:20' AND created_at >= '2030-01-01 00:30:00'");
	sql("DELETE FROM deliveries WHERE tenant_id = '%s'", f.tenant);
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
	resp_free(http("PUT", p, f.live,
	    J({"rules":[{"role":"form","match_type":"prefix",
	    "pattern":"/form"}]}), NULL));
	cr_assert_eq(ctl(NULL, "campaign set-status --id %s --status active",
	    c), 0);
	r = http("POST", "/api/v1/messages", f.live,
	    J({"channel":"sms","body":"デモ商店です {{link_url}}"}), NULL);
	snprintf(m1, sizeof(m1), "%s", jget(r->json, "id"));
	resp_free(r);
	r = http("POST", "/api/v1/messages", f.live,
	    J({"channel":"email","subject":"ご案内",
	    "blocks":[{"type":"text","text":"続きはこちら"}]}), NULL);
	snprintf(m2, sizeof(m2), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/scenarios", c);
	r = http("POST", p, f.live, J({"name":"s"}), NULL);
	snprintf(s, sizeof(s), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s/steps", s);
	snprintf(b, sizeof(b),
	    "{\"steps\":[{\"message_id\":\"%s\",\"delay_minutes\":30},"
	    "{\"message_id\":\"%s\",\"delay_minutes\":1440}]}", m1, m2);
	resp_free(http("PUT", p, f.live, b, NULL));
	cr_assert_eq(ctl(NULL, "scenario set-status --id %s --status active",
	    s), 0);
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "capture",
	    .visitor = "12121212-1111-4111-8111-111111111111",
	    .campaign = "dlv", .role = "form", .tel = "090-3333-4444",
	    .email = "buyer@example.jp" }), 204);
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-abandon\" --now "
	    "2036-01-01T00:00:00Z"), 0);
	r = http("GET", "/api/v1/leads", f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "data.0.status"), "queued");
	resp_free(r);
	r = http("GET", "/api/v1/deliveries?date_field=scheduled_at", f.live,
	    NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 2);
	cr_assert_str_eq(jget(r->json, "date_field"), "scheduled_at");
	resp_free(r);
	snprintf(p, sizeof(p),
	    "/api/v1/deliveries?scenario_id=%s&status=scheduled", s);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 2);
	/* newest first: the email step was scheduled second */
	cr_assert_str_eq(jget(r->json, "data.1.channel"), "sms");
	cr_assert_str_eq(jget(r->json, "data.1.to_masked"), "090-****-4444");
	cr_assert_str_eq(jget(r->json, "data.1.scheduled_at"),
	    "2036-01-01T00:30:00Z");
	cr_assert_str_eq(jget(r->json, "data.1.step.position"), "1");
	cr_assert_str_eq(jget(r->json, "data.0.to_masked"), "bu***@example.jp");
	cr_assert_str_eq(jget(r->json, "data.0.scheduled_at"),
	    "2036-01-02T00:00:00Z");
	cr_assert_str_eq(jget(r->json, "data.0.campaign.key"), "dlv");
	cr_assert_null(strstr(r->body, "3333-4444"));
	cr_assert_null(strstr(r->body, "33334444"));
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
	/* a range that does not end after it begins, as for the leads */
	r = http("GET", "/api/v1/deliveries?date_field=sent_at&"
	    "from=2036-01-01T00:00:00Z&to=2036-01-01T00:00:00Z", f.live,
	    NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "to");
	resp_free(r);
}

/* The raw mail in the sink addressed to `to`, or NULL (static storage). */
static const char *
raw_mail_to(const char *to)
{
	static char	 hit[1 << 16];
	char		 cmd[1024], needle[300];
	FILE		*p;
	size_t		 n;

	snprintf(needle, sizeof(needle), "X-Envelope-To: %s", to);
	snprintf(cmd, sizeof(cmd),
	    "grep -l -r -F '%s' \"$FB_MAIL_DIR\" 2>/dev/null | head -n "
	    "1", needle);
	p = popen(cmd, "r");
	n = fread(hit, 1, sizeof(hit) - 1, p);
	pclose(p);
	if (n == 0)
		return NULL;
	hit[strcspn(hit, "\n")] = '\0';
	snprintf(hit, sizeof(hit), "%s", file_tail(hit));
	return hit;
}

/*
 * The whole job on real input (issue: sending): an abandoned lead gets
 * the SMS and then the email of the active scenario at the stand-ins;
 * the opt-out link stops what is left; a lead that converted first gets
 * nothing.
 */
Test(deliveries, sent_to_the_stand_ins, .timeout = 90)
{
	struct fx	 f;
	char		 c[40], m1[40], m2[40], s[40], p[256], b[1024], tok[16];
	struct resp	*r;
	const char	*sms, *u, *mail;

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "send", c);
	r = http("PATCH", "/api/v1/campaigns/x", f.live, "{}", NULL);
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s", c);
	resp_free(http("PATCH", p, f.live, J({"product_name":"美容液"}), NULL));
	cr_assert_eq(ctl(NULL, "campaign set-status --id %s --status active",
	    c), 0);
	r = http("POST", "/api/v1/messages", f.live,
	    J({"channel":"sms",
	    "body":"デモ商店です。{{product_name}}の続きはこちら {{link_url}}",
	    "link_url":"https://shop.example.jp/form?from=sms"}), NULL);
	snprintf(m1, sizeof(m1), "%s", jget(r->json, "id"));
	resp_free(r);
	/*
	 * no link_url: {{link_url}} leads back to the page the form was left on
	 */
	r = http("POST", "/api/v1/messages", f.live,
	    J({"channel":"email","subject":"{{product_name}}のご案内",
	    "blocks":[{"type":"heading","text":"お手続きが完了していません"},
	    {"type":"button","text":"続ける","url":"{{link_url}}"}]}), NULL);
	snprintf(m2, sizeof(m2), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/scenarios", c);
	r = http("POST", p, f.live, J({"name":"send"}), NULL);
	snprintf(s, sizeof(s), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s/steps", s);
	snprintf(b, sizeof(b),
	    "{\"steps\":[{\"message_id\":\"%s\",\"delay_minutes\":30},"
	    "{\"message_id\":\"%s\",\"delay_minutes\":1440}]}", m1, m2);
	resp_free(http("PUT", p, f.live, b, NULL));
	cr_assert_eq(ctl(NULL, "scenario set-status --id %s --status active",
	    s), 0);
	cr_assert_eq(ctl(NULL, "delivery-switch --tenant %s --mode live",
	    f.tenant), 0);
	/* two visitors; the second converts before anything is sent */
	tag_ev_post(&f, &(struct tag_ev){ .type = "capture",
	    .visitor = "34343434-1111-4111-8111-111111111111",
	    .campaign = "send", .role = "form", .tel = "080-5151-6262",
	    .email = "kaori.s@example.jp" });
	tag_ev_post(&f, &(struct tag_ev){ .type = "capture",
	    .visitor = "56565656-1111-4111-8111-111111111111",
	    .campaign = "send", .role = "form", .tel = "080-7171-8282",
	    .email = "conv@example.jp" });
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-abandon\" --now "
	    "2035-06-01T00:00:00Z"), 0);
	tag_ev_post(&f, &(struct tag_ev){ .type = "conversion",
	    .visitor = "56565656-1111-4111-8111-111111111111",
	    .url = "https://shop.example.jp/thanks", .campaign = "send",
	    .role = "thanks", .consent = TAG_CONSENT_ABSENT });
	/* 09:31 JST: the SMS step is due and outside the quiet hours */
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-deliver\" --now "
	    "2035-06-01T00:31:00Z"), 0);
	sms = file_tail(getenv("FB_SMS_FILE"));
	cr_assert_not_null(strstr(sms, "+818051516262"),
	    "no SMS at the gateway: %s", sms);
	cr_assert_null(strstr(sms, "+818071718282"),
	    "the converted visitor got an SMS");
	cr_assert_not_null(strstr(sms, "美容液の続きはこちら"));
	cr_assert_not_null(strstr(sms, "\"reference\""));
	r = http("GET", "/api/v1/deliveries?status=sent", f.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 1, "%s",
	    r->body);
	cr_assert_not_null(jget(r->json, "data.0.sent_at"));
	/* the parts of the text as it left (one: under 70 characters) */
	cr_assert_str_eq(jget(r->json, "data.0.segments"), "1", "%s", r->body);
	resp_free(r);
	r = http("GET", "/api/v1/deliveries?status=scheduled", f.live, NULL,
	    NULL);
	cr_assert_null(jget(r->json, "data.0.segments"), "%s", r->body);
	resp_free(r);
	/* the conversion cancelled both of the converted visitor's steps */
	r = http("GET", "/api/v1/deliveries?status=cancelled", f.live, NULL,
	    NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 2, "%s",
	    r->body);
	cr_assert_str_eq(jget(r->json, "data.0.cancel_reason"), "converted");
	cr_assert_str_eq(jget(r->json, "data.1.cancel_reason"), "converted");
	resp_free(r);
	r = http("GET", "/api/v1/leads?status=sent", f.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 1);
	resp_free(r);
	/* the click link redirects to the message's link */
	u = strstr(strstr(sms, "+818051516262"), "/r/");
	cr_assert_not_null(u);
	snprintf(tok, sizeof(tok), "%.10s", u + 3);
	snprintf(p, sizeof(p), "/r/%s", tok);
	r = http("GET", p, NULL, NULL, NULL);
	cr_assert_eq(r->status, 302);
	cr_assert_str_eq(resp_header(r, "Location"),
	    "https://shop.example.jp/form?from=sms");
	resp_free(r);
	/* the next day the email, with a one-click opt-out */
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-deliver\" --now "
	    "2035-06-02T00:01:00Z"), 0);
	mail = raw_mail_to("kaori.s@example.jp");
	cr_assert_not_null(mail, "no email in the sink: %s",
	    sql_row("SELECT status, "
	    "COALESCE(error_code, '-'), COALESCE(cancel_reason, '-'), "
	    "scheduled_at FROM deliveries WHERE tenant_id = '%s' AND channel = "
	    "'email' ORDER BY id LIMIT 1", f.tenant));
	cr_assert_not_null(strstr(mail, "Subject: =?UTF-8?B?"));
	snprintf(b, sizeof(b), "%s", sql("SELECT landing_url FROM leads WHERE "
	    "tenant_id = '%s' AND status <> 'converted'", f.tenant));
	cr_assert_str_eq(sql("SELECT k.url FROM links k JOIN deliveries d ON "
	    "d.id = k.delivery_id WHERE d.tenant_id = '%s' AND d.channel = "
	    "'email' AND d.status = 'sent' AND k.kind = 'click'", f.tenant), b);
	cr_assert_not_null(strstr(mail,
	    "List-Unsubscribe-Post: List-Unsubscribe=One-Click"));
	u = strstr(mail, "List-Unsubscribe: <");
	cr_assert_not_null(u);
	u = strstr(u, "/u/");
	snprintf(tok, sizeof(tok), "%.10s", u + 3);
	snprintf(p, sizeof(p), "/u/%s", tok);
	r = http("GET", p, NULL, NULL, NULL);
	cr_assert_eq(r->status, 200);
	cr_assert_not_null(strstr(r->body, "配信停止"));
	resp_free(r);
	r = http("POST", p, NULL, "List-Unsubscribe=One-Click", NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	resp_free(r);
	r = http("GET", "/api/v1/suppressions?reason=opt_out", f.live, NULL,
	    NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 2, "%s",
	    r->body);
	resp_free(r);
	r = http("GET", "/api/v1/suppressions?q=kaori.s%40example.jp", f.live,
	    NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 1);
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM outbox WHERE tenant_id = "
	    "'%s' AND event_type = 'delivery.sent'", f.tenant), "2");
	/* the gateway's receipt: delivered by its own id */
	r = http("POST", "/hooks/sms/standin", NULL,
	    J({"id":"nope","status":"delivered"}),
	    "Authorization: Bearer wrong");
	expect_error(r, 401, "authentication_error", "api_key_invalid", NULL);
	resp_free(r);
	r = http("GET", "/api/v1/deliveries?status=sent", f.live, NULL, NULL);
	snprintf(b, sizeof(b),
	    "{\"reference\":\"%s\",\"status\":\"delivered\"}",
	    jget(r->json, "data.1.id"));
	resp_free(r);
	r = http("POST", "/hooks/sms/standin", NULL, b,
	    "Authorization: Bearer stand-in-hook-token");
	cr_assert_eq(r->status, 204, "%s", r->body);
	resp_free(r);
	r = http("POST", "/hooks/sms/standin", NULL,
	    J({"reference":"01900000-0000-7000-8000-000000000000",
	    "status":"delivered"}), "Authorization: Bearer "
	    "stand-in-hook-token");
	expect_error(r, 404, "not_found", "not_found", "reference");
	resp_free(r);
	r = http("POST", "/hooks/email/standin", NULL, J({"status":"exploded"}),
	    "Authorization: Bearer stand-in-hook-token");
	expect_error(r, 400, "invalid_request", "parameter_invalid", "status");
	resp_free(r);
	r = http("GET", "/api/v1/deliveries?status=delivered", f.live, NULL,
	    NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 1, "%s",
	    r->body);
	resp_free(r);
	/* a bounce the provider reports later is final: delivery.failed */
	r = http("GET", "/api/v1/deliveries?status=sent", f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "data.0.channel"), "email");
	snprintf(b, sizeof(b), "{\"reference\":\"%s\",\"status\":\"bounced\","
	    "\"bounce\":\"soft\",\"error\":\"452 mailbox "
	    "full\"}", jget(r->json, "data.0.id"));
	resp_free(r);
	r = http("POST", "/hooks/email/standin", NULL, b,
	    "Authorization: Bearer stand-in-hook-token");
	cr_assert_eq(r->status, 204, "%s", r->body);
	resp_free(r);
	cr_assert_str_eq(sql("SELECT CONCAT(JSON_VALUE(payload, '$.channel'), "
	    "' ', JSON_VALUE(payload, '$.status'), ' ', JSON_VALUE(payload, "
	    "'$.error_code'), ' ', JSON_VALUE(payload, '$.step')) FROM outbox "
	    "WHERE tenant_id = '%s' AND event_type = "
	    "'delivery.failed'", f.tenant), "email failed 452 mailbox full 2");
	/* the same receipt again changes nothing and tells nothing twice */
	r = http("POST", "/hooks/email/standin", NULL, b,
	    "Authorization: Bearer stand-in-hook-token");
	cr_assert_eq(r->status, 204, "%s", r->body);
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM outbox WHERE tenant_id = "
	    "'%s' AND event_type = 'delivery.failed'", f.tenant), "1");
}

/* SMS quiet hours (21:00-09:00 JST by default), and a manual conversion. */
Test(deliveries, quiet_hours_and_manual_conversion, .timeout = 60)
{
	struct fx	 f;
	char		 c[40], m[40], s[40], p[256], b[1024], lead[40];
	struct resp	*r;

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "quiet", c);
	cr_assert_eq(ctl(NULL, "campaign set-status --id %s --status active",
	    c), 0);
	r = http("POST", "/api/v1/messages", f.live,
	    J({"channel":"sms","body":"夜には送りません"}), NULL);
	snprintf(m, sizeof(m), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/scenarios", c);
	r = http("POST", p, f.live, J({"name":"q"}), NULL);
	snprintf(s, sizeof(s), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s/steps", s);
	snprintf(b, sizeof(b),
	    "{\"steps\":[{\"message_id\":\"%s\",\"delay_minutes\":10},"
	    "{\"message_id\":\"%s\",\"delay_minutes\":2000}]}", m, m);
	resp_free(http("PUT", p, f.live, b, NULL));
	cr_assert_eq(ctl(NULL, "scenario set-status --id %s --status active",
	    s), 0);
	cr_assert_eq(ctl(NULL, "delivery-switch --tenant %s --mode live",
	    f.tenant), 0);
	tag_ev_post(&f, &(struct tag_ev){ .type = "capture",
	    .visitor = "78787878-1111-4111-8111-111111111111",
	    .campaign = "quiet", .role = "form", .tel = "070-9090-1212" });
	/* abandoned at 21:00 JST; the SMS due at 21:10 waits for 09:00 */
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-abandon\" --now "
	    "2034-03-01T12:00:00Z"), 0);
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-deliver\" --now "
	    "2034-03-01T12:11:00Z"), 0);
	cr_assert_str_eq(sql("SELECT CONCAT(status, ' ', scheduled_at) FROM "
	    "deliveries WHERE tenant_id = '%s' ORDER BY id LIMIT 1", f.tenant),
	    "scheduled 2034-03-02 00:00:00.000000");
	/* waiting for the window is not an attempt */
	cr_assert_str_eq(sql("SELECT attempts FROM deliveries WHERE tenant_id "
	    "= '%s' ORDER BY id LIMIT 1", f.tenant), "0");
	/* a step removed cancels its pending delivery; the kept one goes on */
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s/steps", s);
	snprintf(b, sizeof(b),
	    "{\"steps\":[{\"message_id\":\"%s\",\"delay_minutes\":10}]}", m);
	r = http("PUT", p, f.live, b, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	resp_free(r);
	cr_assert_str_eq(sql("SELECT GROUP_CONCAT(CONCAT(status, '/', "
	    "COALESCE(cancel_reason, '-')) ORDER BY id) FROM deliveries WHERE "
	    "tenant_id = '%s'", f.tenant),
	    "scheduled/-,cancelled/step_removed");
	/* the tenant's window can be changed */
	cr_assert_eq(ctl(NULL,
	    "tenant set-quiet-hours --tenant %s --start 22:00 --end "
	    "08:00", f.tenant), 0);
	cr_assert_eq(ctl(NULL,
	    "tenant set-quiet-hours --tenant %s --start 25:00 --end "
	    "08:00", f.tenant), 2);
	cr_assert_str_eq(sql("SELECT CONCAT(sms_quiet_start, '-', "
	    "sms_quiet_end) FROM tenants WHERE id = "
	    "'%s'", f.tenant), "1320-480");
	/* a conversion from the cart: the rest is cancelled */
	snprintf(lead, sizeof(lead), "%s",
	    sql("SELECT id FROM leads WHERE tenant_id = '%s'", f.tenant));
	cr_assert_eq(ctl(NULL, "lead convert --id %s --source cart_api", lead),
	    0);
	cr_assert_eq(ctl(NULL, "lead convert --id %s", lead), 1);
	r = http("GET", "/api/v1/leads", f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "data.0.status"), "converted");
	cr_assert_str_eq(jget(r->json, "data.0.conversion_source"), "cart_api");
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND status = 'cancelled' AND cancel_reason = "
	    "'converted'", f.tenant), "1");
}

/*
 * Two passes at once, one killed with SIGKILL midway, then a pass again
 * after the lease: every delivery ends in exactly one terminal state and
 * no recipient gets the same step twice, counted at the SMS stand-in
 * (design 6; issue: sending).  300 SMS deliveries through the collector
 * here; test_usage.c drains 20,000 the same way.
 */
/* The SMS stand-in answers at once again. */
Test(deliveries, killed_pass_never_sends_twice, .fini = sms_gateway_normal,
    .timeout = 180)
{
	struct fx	 f;
	char		 c[40], m[40], s[40], p[256], b[1024], cmd[2048];
	char		 tel[16];
	struct resp	*r;
	pid_t		 a, b2;
	int		 i, n = 300, st;

	fx_new(&f, "pro", 100000);
	fx_campaign(&f, "kill", c);
	cr_assert_eq(ctl(NULL, "campaign set-status --id %s --status active",
	    c), 0);
	r = http("POST", "/api/v1/messages", f.live,
	    J({"channel":"sms","body":"一度だけ届きます"}), NULL);
	snprintf(m, sizeof(m), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/scenarios", c);
	r = http("POST", p, f.live, J({"name":"k"}), NULL);
	snprintf(s, sizeof(s), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/scenarios/%s/steps", s);
	snprintf(b, sizeof(b),
	    "{\"steps\":[{\"message_id\":\"%s\",\"delay_minutes\":5}]}", m);
	resp_free(http("PUT", p, f.live, b, NULL));
	cr_assert_eq(ctl(NULL, "scenario set-status --id %s --status active",
	    s), 0);
	cr_assert_eq(ctl(NULL, "delivery-switch --tenant %s --mode live",
	    f.tenant), 0);
	for (i = 0; i < n; i++) {
		snprintf(tel, sizeof(tel), "070%08d", 55000000 + i);
		cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){
		    .type = "capture",
		    .visitor = "%08d-1111-4111-8111-111111111111", .n = i,
		    .campaign = "kill", .role = "form", .tel = tel }), 204);
	}
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-abandon\" --now "
	    "2033-01-01T01:00:00Z"), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND status = 'scheduled'", f.tenant), "300");
	/*
	 * two passes at once over a slow gateway; the first killed while
	 * sends are claimed and in flight (it is still running: kill(2)
	 * finds it), the second let finish
	 */
	sms_gateway("delay", "0.05");
	a = spawn("exec \"$FB_CTL_DIR/formback-deliver\" --now "
	    "2033-01-01T01:10:00Z");
	b2 = spawn("exec \"$FB_CTL_DIR/formback-deliver\" --now "
	    "2033-01-01T01:10:00Z");
	for (i = 0; i < 400; i++) {
		if (atoi(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
		    "= '%s' AND status = 'sending' AND attempt_started_at "
		    "IS NOT NULL",
		    f.tenant)) > 0)
			break;
		usleep(25 * 1000);
	}
	cr_assert_lt(i, 400, "no send in flight");
	cr_assert_eq(kill(a, SIGKILL), 0);
	st = reap(a, 10);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	    "the first pass had ended before the kill (status %d)", st);
	st = reap(b2, 120);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the second pass: %d",
	    st);
	sms_gateway_normal();
	/*
	 * after the lease, a pass again: the killed claims end outcome_unknown
	 */
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-deliver\" --now "
	    "2033-01-01T01:25:00Z"), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND status NOT IN ('sent', 'failed')", f.tenant), "0",
	    "%s", sql_row("SELECT GROUP_CONCAT(DISTINCT status) FROM "
	    "deliveries WHERE tenant_id = '%s'", f.tenant));
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND status = 'failed' AND error_code <> "
	    "'outcome_unknown'", f.tenant), "0");
	/*
	 * at the stand-in: each recipient at most once, and every sent one
	 * there
	 */
	snprintf(cmd, sizeof(cmd),
	    "grep -o '\"to\": \"+8170550[0-9]*\"' \"$FB_SMS_FILE\" | "
	    "sort | uniq -d | wc -l");
	{
		FILE	*pp = popen(cmd, "r");
		int	 dups = -1;

		cr_assert_eq(fscanf(pp, "%d", &dups), 1);
		pclose(pp);
		cr_assert_eq(dups, 0, "a recipient got the step twice");
	}
	snprintf(cmd, sizeof(cmd),
	    "grep -c '\"to\": \"+8170550' \"$FB_SMS_FILE\"");
	{
		FILE	*pp = popen(cmd, "r");
		int	 got = -1;
		char	 want[32];

		cr_assert_eq(fscanf(pp, "%d", &got), 1);
		pclose(pp);
		snprintf(want, sizeof(want), "%s",
		    sql("SELECT COUNT(*) FROM deliveries "
		    "WHERE tenant_id = '%s' AND status = 'sent'", f.tenant));
		cr_assert_geq(got, atoi(want), "sent %s, at the gateway %d",
		    want, got);
		cr_assert_leq(got, n);
	}
}
