/*
 * Data-subject requests (issue 43; docs/internals/privacy.md): one
 * contact's export and erasure through the admin API and formbackctl --
 * what the export finds (leads, deliveries, events, suppressions, test
 * recipients, webhook deliveries), what the erasure leaves (no sealed
 * contact nor blind index but the kept suppression), the daily report
 * unchanged before and after, also after a forced recount, a pending
 * delivery never sent, and who may ask.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>

#include "harness.h"

#define PW	"correct horse battery"
#define TEL	"080-4343-5656"
#define TEL_N	"08043435656"
#define TEL_I	"8043435656"
#define EMAIL	"dsr.person@example.jp"
#define VA	"43434343-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
#define VB	"43434343-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
/* the visitors' form page and where they came from */
#define PAGE	"https://shop.example.jp/form?from=mail"
#define REF	"https://ref.example.jp/"

/* t as "YYYY-MM-DDTHH:MM:SSZ", or with `day` its JST date alone. */
static const char *
when(time_t t, bool day)
{
	static char	 out[4][32];
	static int	 k;
	struct tm	 tm;

	k = (k + 1) % 4;
	if (day) {
		t += 9 * 3600;
		gmtime_r(&t, &tm);
		strftime(out[k], sizeof(out[k]), "%Y-%m-%d", &tm);
	} else {
		gmtime_r(&t, &tm);
		strftime(out[k], sizeof(out[k]), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	return out[k];
}

/* formback-<bin> --tenant T --now t (abandon and deliver take no tenant). */
static void
pass(const struct fx *f, const char *bin, time_t t)
{
	char	 cmd[512];

	snprintf(cmd, sizeof(cmd), "\"$FB_CTL_DIR/formback-%s\" %s%s --now %s",
	    bin, strcmp(bin, "aggregate") == 0 ? "--tenant " : "",
	    strcmp(bin, "aggregate") == 0 ? f->tenant : "", when(t, false));
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* The daily report's days over [from, to) JST, as JSON text (strdup). */
static char *
days(const struct fx *f, time_t from, time_t to)
{
	struct resp	*r;
	char		 p[256], *s;

	snprintf(p, sizeof(p), "/api/v1/reports/daily?from=%s&to=%s",
	    when(from, true), when(to, true));
	r = http("GET", p, f->live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_null(jget(r->json, "not_computed_dates.0"), "%s", r->body);
	s = strdup(json_object_to_json_string(jobj(r->json, "days")));
	resp_free(r);
	return s;
}

/* Every day of [from, to) JST marked dirty, then recounted. */
static void
recount(const struct fx *f, time_t from, time_t to, time_t now)
{
	time_t	 t;

	for (t = from; t < to; t += 86400)
		sql("INSERT IGNORE INTO report_dirty_days (tenant_id, day, "
		    "marked_at) VALUES ('%s', '%s', "
		    "UTC_TIMESTAMP(6))", f->tenant,
		    when(t, true));
	pass(f, "aggregate", now);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM report_dirty_days WHERE "
	    "tenant_id = '%s'", f->tenant), "0");
}

/* An owner's session of a new tenant with the one-step SMS campaign. */
static void
fixture(struct fx *f, struct sess *o)
{
	char	 email[128];

	fx_new(f, "growth", 0);
	snprintf(email, sizeof(email), "owner@t%s.example", f->tenant);
	cr_assert_eq(set_password(f->member, PW), 0);
	session_of(email, PW, o);
}

/* A webhook endpoint, and a delivery of lead.captured naming `lead`. */
static void
hook_record(const struct fx *f, const char *lead)
{
	struct resp	*r;
	char		 b[512], ep[40];

	snprintf(b, sizeof(b), "{\"url\":\"https://hooks.formback.test:%s/ok\","
	    "\"events\":[\"lead.captured\"]}", getenv("FB_HOOK_PORT"));
	r = http("POST", "/api/v1/webhook_endpoints", f->live, b, NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(ep, sizeof(ep), "%s", jget(r->json, "id"));
	resp_free(r);
	/* a payload that (against the contract) holds a contact */
	sql("INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, "
	    "event_id, event_type, body, status, attempts) VALUES (UUID(), "
	    "'%s', '%s', UUID(), 'lead.captured', '{\"id\":\"x\",\"type\":"
	    "\"lead.captured\",\"data\":{\"lead_id\":\"%s\",\"channels\":"
	    "[\"sms\"],\"email\":\"planted@example.jp\"}}', 'succeeded', 1)",
	    f->tenant, ep, lead);
}

Test(personal, export_then_erase_keeps_the_counts, .timeout = 120)
{
	struct fx	 f, g;
	struct sess	 o, v;
	struct resp	*r;
	json_object	*out;
	/* today's JST midnight; the passes at noon JST (no quiet hours) */
	time_t		 d0 = ((time(NULL) + 9 * 3600) / 86400) * 86400 -
	    9 * 3600;
	time_t		 t1 = d0 + 2 * 86400 + 12 * 3600, t2 = t1 + 86400;
	time_t		 t3 = t2 + 86400, d1 = d0 + 6 * 86400;
	char		 a[40], b[40], p[256], email[128], *before, *after;

	fixture(&f, &o);
	fx_one_step(&f, "dsr", "sms", "live", NULL);
	/* lead A: viewed, captured, abandoned and sent to */
	tag_ev_post(&f, &(struct tag_ev){ .type = "page_view", .visitor = VA,
	    .url = PAGE, .referrer = REF, .campaign = "dsr", .role = "form" });
	tag_ev_post(&f, &(struct tag_ev){ .type = "capture", .visitor = VA,
	    .url = PAGE, .referrer = REF, .campaign = "dsr", .role = "form",
	    .tel = TEL, .email = EMAIL });
	pass(&f, "abandon", t1);
	pass(&f, "deliver", t1 + 600);
	cr_assert_eq(sms_to(TEL_I), 1, "%s", sql_row("SELECT CONCAT_WS(' ', "
	    "l.status, IFNULL(l.suppress_reason, '-'), l.consent_state, "
	    "IFNULL(d.status, '-'), IFNULL(d.cancel_reason, '-'), "
	    "IFNULL(d.scheduled_at, '-'), IFNULL(d.error_code, '-')) FROM "
	    "leads l LEFT JOIN deliveries d ON d.lead_id = l.id WHERE "
	    "l.tenant_id = '%s'",
	    f.tenant));
	/* lead B: the same number, abandoned later, its message pending */
	tag_ev_post(&f, &(struct tag_ev){ .type = "page_view", .visitor = VB,
	    .url = PAGE, .referrer = REF, .campaign = "dsr", .role = "form" });
	tag_ev_post(&f, &(struct tag_ev){ .type = "capture", .visitor = VB,
	    .url = PAGE, .referrer = REF, .campaign = "dsr", .role = "form",
	    .tel = TEL });
	pass(&f, "abandon", t2);
	snprintf(a, sizeof(a), "%s", sql("SELECT id FROM leads WHERE tenant_id "
	    "= '%s' AND visitor_id = '%s'", f.tenant, VA));
	snprintf(b, sizeof(b), "%s", sql("SELECT id FROM leads WHERE tenant_id "
	    "= '%s' AND visitor_id = '%s'", f.tenant, VB));
	cr_assert_str_eq(sql("SELECT status FROM deliveries WHERE lead_id = "
	    "'%s'", b), "scheduled");
	r = http("POST", "/api/v1/suppressions", f.live, "{\"value\":\"" TEL
	    "\",\"memo\":\"asked by phone\"}", NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	cr_assert_eq(ctl(NULL, "test-recipient add --tenant %s --contact %s",
	    f.tenant, TEL_N), 0);
	hook_record(&f, a);
	pass(&f, "aggregate", t3);
	before = days(&f, d0, d1);

	/* the export: everything found by the number, its email opened */
	r = http("POST", "/api/v1/admin/personal_data/export", NULL,
	    "{\"contact\":\"" TEL "\"}", o.hdr);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "object"), "personal_data_export");
	cr_assert_str_eq(jget(r->json, "subject.kind"), "tel");
	cr_assert_str_eq(jget(r->json, "found.leads"), "2", "%s", r->body);
	cr_assert_str_eq(jget(r->json, "leads.0.id"), a);
	cr_assert_str_eq(jget(r->json, "leads.1.id"), b);
	cr_assert_str_eq(jget(r->json, "leads.0.deliveries.0.status"), "sent");
	cr_assert_not_null(jget(r->json, "leads.0.deliveries.0.sent_at"));
	cr_assert_str_eq(jget(r->json, "leads.1.deliveries.0.status"),
	    "scheduled");
	cr_assert_str_eq(jget(r->json, "leads.0.events.0.type"), "page_view");
	cr_assert_str_eq(jget(r->json, "leads.0.events.1.type"), "capture");
	cr_assert_not_null(strstr(jget(r->json, "leads.0.webhook_deliveries.0."
	    "endpoint_url"), "hooks.formback.test"));
	cr_assert_str_eq(jget(r->json, "leads.0.webhook_deliveries.0."
	    "event_type"), "lead.captured");
	cr_assert_not_null(strstr(r->body, "\"value\":\"" TEL_N "\""));
	cr_assert_not_null(strstr(r->body, "\"value\":\"" EMAIL "\""));
	cr_assert_str_eq(jget(r->json, "suppressions.0.memo"),
	    "asked by phone");
	cr_assert_str_eq(jget(r->json, "test_recipients.0.kind"), "tel");
	cr_assert_str_eq(jget(r->json, "consent.text_at_capture_kept"),
	    "false");
	resp_free(r);
	/* a bad contact, a key, a viewer, another tenant */
	r = http("POST", "/api/v1/admin/personal_data/export", NULL,
	    "{\"contact\":\"no contact\"}", o.hdr);
	expect_error(r, 422, "invalid_request", "parameter_invalid", "contact");
	resp_free(r);
	r = http("POST", "/api/v1/admin/personal_data/erase", f.live,
	    "{\"contact\":\"" TEL "\"}", NULL);
	expect_error(r, 403, "permission_error", "session_required", NULL);
	resp_free(r);
	snprintf(email, sizeof(email), "viewer@t%s.example", f.tenant);
	cr_assert_eq(ctl(&out, "member create --tenant %s --email %s --role "
	    "viewer", f.tenant, email), 0);
	cr_assert_eq(set_password(jget(out, "id"), PW), 0);
	json_object_put(out);
	session_of(email, PW, &v);
	r = http("POST", "/api/v1/admin/personal_data/export", NULL,
	    "{\"contact\":\"" TEL "\"}", v.hdr);
	expect_error(r, 403, "permission_error", "role_insufficient", NULL);
	resp_free(r);
	fixture(&g, &v);
	r = http("POST", "/api/v1/admin/personal_data/export", NULL,
	    "{\"contact\":\"" TEL "\"}", v.hdr);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "found.leads"), "0", "%s", r->body);
	cr_assert_null(jget(r->json, "leads.0.id"));
	resp_free(r);

	/* the erasure, the person asking to stop */
	r = http("POST", "/api/v1/admin/personal_data/erase", NULL,
	    "{\"contact\":\"" TEL "\",\"stop\":true}", o.hdr);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "found"), "true");
	cr_assert_str_eq(jget(r->json, "erased.leads"), "2", "%s", r->body);
	cr_assert_str_eq(jget(r->json, "erased.events_anonymised"), "4");
	cr_assert_str_eq(jget(r->json, "erased.deliveries_cancelled"), "1");
	cr_assert_str_eq(jget(r->json, "erased.deliveries_masked"), "2");
	cr_assert_str_eq(jget(r->json, "erased.webhook_payloads_scrubbed"),
	    "1");
	cr_assert_str_eq(jget(r->json, "erased.test_recipients_removed"), "1");
	cr_assert_str_eq(jget(r->json, "erased.suppressions_kept"), "1");
	/* the email had none: one is kept for it too */
	cr_assert_str_eq(jget(r->json, "erased.suppressions_added"), "1");
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE tenant_id = "
	    "'%s' AND (email_sealed IS NOT NULL OR tel_sealed IS NOT NULL OR "
	    "email_bidx IS NOT NULL OR tel_bidx IS NOT NULL OR email_masked IS "
	    "NOT NULL OR tel_masked IS NOT NULL OR landing_url IS NOT NULL OR "
	    "visitor_id IN ('%s', '%s'))", f.tenant, VA, VB), "0");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE tenant_id = "
	    "'%s'",
	    f.tenant), "2");
	cr_assert_str_eq(sql("SELECT GROUP_CONCAT(status, ':', IFNULL("
	    "suppress_reason, '') ORDER BY id) FROM leads WHERE tenant_id = "
	    "'%s'",
	    f.tenant), "sent:,suppressed:erased");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM test_recipients WHERE "
	    "tenant_id = '%s'", f.tenant), "0");
	cr_assert_str_eq(sql("SELECT CONCAT(COUNT(*), ':', SUM(masked = ''), "
	    "':', COUNT(memo)) FROM suppressions WHERE tenant_id = '%s'",
	    f.tenant), "2:2:0");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM tag_events WHERE tenant_id "
	    "= '%s' AND (visitor_id IN ('%s', '%s') OR lead_id IS NOT NULL OR "
	    "referrer IS NOT NULL OR url LIKE "
	    "'%%?%%')", f.tenant, VA, VB), "0");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM tag_events WHERE tenant_id "
	    "= '%s'", f.tenant), "4");
	cr_assert_str_eq(sql("SELECT GROUP_CONCAT(status, ':', IFNULL("
	    "cancel_reason, ''), ':', IFNULL(to_masked, '-'), ':', pii_state "
	    "ORDER BY lead_id) FROM deliveries WHERE tenant_id = "
	    "'%s'", f.tenant),
	    "sent::-:absent,cancelled:erased:-:absent");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "tenant_id = '%s' AND body LIKE '%%planted%%'", f.tenant), "0");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries WHERE "
	    "tenant_id = '%s' AND JSON_VALUE(body, '$.data.lead_id') = '%s'",
	    f.tenant, a), "1");
	/* the audit log names the blind index, never the contact */
	cr_assert_str_eq(sql("SELECT GROUP_CONCAT(action ORDER BY id) FROM "
	    "audit_log WHERE tenant_id = '%s' AND action LIKE '%%PersonalData'",
	    f.tenant), "exportPersonalData,erasePersonalData");
	cr_assert_str_eq(sql("SELECT COUNT(DISTINCT JSON_VALUE(detail, "
	    "'$.contact_bidx')) FROM audit_log WHERE tenant_id = '%s' AND "
	    "action LIKE '%%PersonalData' AND LENGTH(JSON_VALUE(detail, "
	    "'$.contact_bidx')) = 64", f.tenant), "1");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM audit_log WHERE tenant_id = "
	    "'%s' AND (detail LIKE '%%" TEL_N "%%' OR detail LIKE "
	    "'%%4343-5656%%' OR detail LIKE '%%dsr.person%%')", f.tenant), "0");

	/* the pending message never leaves */
	pass(&f, "deliver", t2 + 3600);
	cr_assert_eq(sms_to(TEL_I), 1);
	cr_assert_str_eq(sql("SELECT status FROM deliveries WHERE lead_id = "
	    "'%s'", b), "cancelled");
	/* the counts: as they were, after the pass and after a recount */
	pass(&f, "aggregate", t3);
	after = days(&f, d0, d1);
	cr_assert_str_eq(after, before);
	free(after);
	recount(&f, d0, d1, t3);
	after = days(&f, d0, d1);
	cr_assert_str_eq(after, before);
	free(after);
	free(before);

	/* again: nothing left, and it says so */
	r = http("POST", "/api/v1/admin/personal_data/erase", NULL,
	    "{\"contact\":\"" TEL_N "\",\"stop\":true}", o.hdr);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "found"), "false", "%s", r->body);
	cr_assert_str_eq(jget(r->json, "erased.leads"), "0");
	cr_assert_str_eq(jget(r->json, "erased.suppressions_added"), "0");
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/leads/%s", a);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "pii_state"), "absent");
	cr_assert_null(jget(r->json, "tel_masked"));
	cr_assert_null(jget(r->json, "timeline.0.type"), "%s", r->body);
	resp_free(r);
}

Test(personal, formbackctl_export_and_erase)
{
	struct fx	 f;
	struct sess	 o;
	json_object	*out;

	fixture(&f, &o);
	fx_one_step(&f, "dsrctl", "sms", "live", NULL);
	tag_ev_post(&f, &(struct tag_ev){ .type = "page_view", .visitor = VA,
	    .url = PAGE, .referrer = REF, .campaign = "dsr", .role = "form" });
	cr_assert_eq(ctl(NULL, "test-recipient add --tenant %s --contact %s",
	    f.tenant, EMAIL), 0);
	cr_assert_eq(ctl(&out, "personal-data export --tenant %s --contact %s",
	    f.tenant, EMAIL), 0);
	cr_assert_str_eq(jget(out, "object"), "personal_data_export");
	cr_assert_str_eq(jget(out, "subject.kind"), "email");
	cr_assert_str_eq(jget(out, "found.test_recipients"), "1");
	cr_assert_str_eq(jget(out, "found.leads"), "0");
	json_object_put(out);
	cr_assert_eq(ctl(NULL, "personal-data export --tenant %s --contact %s "
	    "--stop", f.tenant, EMAIL), 2);
	cr_assert_eq(ctl(NULL, "personal-data erase --tenant %s --contact "
	    "nothing", f.tenant), 2);
	cr_assert_eq(ctl(&out, "personal-data erase --tenant %s --contact %s",
	    f.tenant, EMAIL), 0);
	cr_assert_str_eq(jget(out, "found"), "true");
	cr_assert_str_eq(jget(out, "erased.test_recipients_removed"), "1");
	cr_assert_str_eq(jget(out, "stop"), "false");
	json_object_put(out);
	cr_assert_eq(ctl(&out, "personal-data erase --tenant %s --contact %s "
	    "--stop", f.tenant, EMAIL), 0);
	cr_assert_str_eq(jget(out, "erased.suppressions_added"), "1");
	json_object_put(out);
	cr_assert_eq(ctl(&out, "personal-data erase --tenant %s --contact %s "
	    "--stop", f.tenant, EMAIL), 0);
	cr_assert_str_eq(jget(out, "found"), "false");
	json_object_put(out);
	cr_assert_str_eq(sql("SELECT GROUP_CONCAT(action ORDER BY id) FROM "
	    "audit_log WHERE tenant_id = '%s' AND actor_type = 'cli' AND "
	    "action LIKE 'personal_data.%%'", f.tenant), "personal_data.export,"
	    "personal_data.erase,personal_data.erase,personal_data.erase");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM audit_log WHERE tenant_id = "
	    "'%s' AND detail LIKE '%%dsr.person%%'", f.tenant), "0");
}
