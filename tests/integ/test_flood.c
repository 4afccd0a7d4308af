/*
 * A flood quarantines itself, not the shop (issue 40, deliverable 5;
 * formback.fcgi(8) "Abuse limits"), through lighttpd, formback.fcgi and
 * the cron binaries.  harness.sh sets 400 captures an hour per site and
 * client address, 600 per network (/24), and a site ceiling of 1000 new
 * leads an hour; a visitor's lead takes 10 contacts.  Each flood comes
 * from a loopback address of its own (curl binds it), the real visitors
 * from another /24.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <curl/curl.h>

#include "harness.h"

#define PW	"correct horse battery"

/* Visitor v of the tests below. */
#define VISITOR	"%08d-5555-4555-8555-555555555555"

/*
 * A capture of visitor v with number 0901-nnn-nnnn (n < 10^7) from
 * `source`: 204, or 429 with the envelope and Retry-After.
 */
static long
capture(const struct fx *f, const char *source, int v, int n)
{
	char		 tel[16];
	struct resp	*r;
	long		 st;

	snprintf(tel, sizeof(tel), "0901%07d", n);
	http_source = source;
	r = tag_ev_send(f, &(struct tag_ev){ .type = "capture",
	    .visitor = VISITOR, .n = v, .campaign = "flood", .role = "form",
	    .tel = tel });
	http_source = NULL;
	st = r->status;
	if (st == 429) {
		expect_error(r, 429, "rate_limit_error", "rate_limit_exceeded",
		    NULL);
		cr_assert_not_null(resp_header(r, "Retry-After"));
	} else
		cr_assert_eq(st, 204, "%s", r->body);
	resp_free(r);
	return st;
}

/*
 * Captures of new visitors from `source` (numbers from `first` on) until
 * one is refused: how many were taken.  The queue is not waited for.
 */
static int
flood(const struct fx *f, const char *source, int first)
{
	int	 i;

	tag_autosettle = false;
	for (i = 0; i < 1000; i++)
		if (capture(f, source, first + i, first + i) == 429)
			break;
	tag_autosettle = true;
	cr_assert_lt(i, 1000, "never refused");
	return i;
}

static size_t
discard(char *p, size_t sz, size_t n, void *u)
{
	(void)p;
	(void)u;
	return sz * n;
}

/*
 * formback-abandon at `hh`:00 on 2035-04-01 (every lead's wait past),
 * then formback-deliver 10 minutes on (the step's 5 minutes past).
 */
static void
judge_and_send(const char *hh)
{
	char	 a[128];

	snprintf(a, sizeof(a), "--now 2035-04-01T%s:00:00Z --limit 2000", hh);
	cr_assert_eq(cron("formback-abandon", a), 0);
	snprintf(a, sizeof(a), "--now 2035-04-01T%s:10:00Z --limit 5000", hh);
	cr_assert_eq(cron("formback-deliver", a), 0);
}

/* The site's one batch of `kind`: its id into id, "kind source ...". */
static const char *
batch(const struct fx *f, const char *kind, char id[40])
{
	snprintf(id, 40, "%s", sql("SELECT id FROM flood_quarantines WHERE "
	    "site_id = '%s' AND kind = '%s'", f->site, kind));
	cr_assert_neq(id[0], '\0', "no %s batch", kind);
	return sql_row("SELECT kind, source, threshold, leads, status FROM "
	    "flood_quarantines WHERE id = '%s'", id);
}

/*
 * The judged case: a flood from one address and real visitors from
 * another in the same hour.  The flood's leads are quarantined, not
 * judged, nothing sent; the real visitors' follow-ups go on schedule;
 * the owner is mailed; the owner releases the batch in the admin API
 * and the flood's messages go then.
 */
Test(security, flood_quarantines_itself_not_the_shop, .timeout = 300)
{
	struct fx	 f;
	struct sess	 s;
	struct resp	*r;
	char		 q[40], p[160], email[128];
	const char	*m;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "flood", "sms", "live", NULL);
	cr_assert_eq(capture(&f, "127.0.1.1", 1, 1110001), 204);
	/* the address reaches its limit: its 400 leads, refused after */
	cr_assert_eq(flood(&f, "127.0.0.2", 1000), 400);
	cr_assert_eq(capture(&f, "127.0.0.2", 5000, 5000), 429);
	cr_assert_eq(capture(&f, "127.0.1.1", 2, 1110002), 204);
	tag_settle();
	cr_assert_str_eq(batch(&f, "address", q),
	    "address\t127.0.0.2\t400\t400\tquarantined");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE site_id = '%s' "
	    "AND quarantine_id = '%s'", f.site, q), "400");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE site_id = '%s' "
	    "AND quarantine_id IS NULL", f.site), "2");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM flood_quarantines WHERE "
	    "site_id = '%s'", f.site), "1");
	/* the owners told once, the site never held */
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM outbox WHERE tenant_id = "
	    "'%s' AND event_type = 'flood_quarantined'", f.tenant), "1");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM audit_log WHERE tenant_id = "
	    "'%s' AND action = 'flood.quarantined' AND target_id = "
	    "'%s'", f.tenant, q), "1");
	cr_assert_str_eq(sql("SELECT sending_held_at IS NULL FROM sites WHERE "
	    "id = '%s'", f.site), "1");
	/* the real visitors' follow-ups on schedule, nothing of the flood */
	judge_and_send("03");
	cr_assert_eq(sms_to("9011110001"), 1);
	cr_assert_eq(sms_to("9011110002"), 1);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE "
	    "tenant_id = '%s'", f.tenant), "2");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE quarantine_id = "
	    "'%s' AND status = 'captured'", q), "400");
	/* the owner is told what passed which limit, and where to decide */
	snprintf(email, sizeof(email), "owner@t%s.example", f.tenant);
	m = mail_to(email, 0);
	cr_assert_not_null(strstr(m, "shop.example.jp の新しいリードの一部を保留"), "%s", m);
	cr_assert_not_null(strstr(m, "1 つの送信元アドレス (127.0.0.2)"), "%s", m);
	cr_assert_not_null(strstr(m, "が 400 件となり、上限 (400 件) に達しました"), "%s", m);
	cr_assert_not_null(strstr(m, q), "%s", m);
	/* the owner sees the batch and releases it, once */
	cr_assert_eq(set_password(f.member, PW), 0);
	session_of(email, PW, &s);
	r = http("GET", "/api/v1/admin/quarantines", NULL, NULL, s.cookie);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "data.0.id"), q);
	cr_assert_str_eq(jget(r->json, "data.0.kind"), "address");
	cr_assert_str_eq(jget(r->json, "data.0.source"), "127.0.0.2");
	cr_assert_str_eq(jget(r->json, "data.0.leads"), "400");
	cr_assert_str_eq(jget(r->json, "data.0.status"), "quarantined");
	cr_assert_str_eq(jget(r->json, "data.0.domain"), "shop.example.jp");
	cr_assert_null(jget(r->json, "data.1.id"));
	resp_free(r);
	r = http("GET", "/api/v1/admin/quarantines?status=released", NULL, NULL,
	    s.cookie);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_null(jget(r->json, "data.0.id"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/admin/quarantines/%s/release", q);
	r = http("POST", p, NULL, "{}", s.hdr);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "status"), "released");
	cr_assert_not_null(jget(r->json, "decided_at"));
	resp_free(r);
	r = http("POST", p, NULL, "{}", s.hdr);
	expect_error(r, 409, "invalid_request", "quarantine_decided",
	    "quarantine_id");
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM audit_log WHERE tenant_id = "
	    "'%s' AND action = 'releaseQuarantine' AND target_id = "
	    "'%s'", f.tenant, q), "1");
	/* released: judged and sent as if never held */
	judge_and_send("04");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE "
	    "tenant_id = '%s' AND status = 'sent'", f.tenant), "402");
	cr_assert_eq(sms_to("9010001000"), 1);
	cr_assert_eq(sms_to("9011110001"), 1);
}

/* Discarded: the flood's leads suppressed, nothing sent, the real lead kept. */
Test(security, flood_discard_leaves_the_real_lead, .timeout = 300)
{
	struct fx	 f;
	struct resp	*r;
	json_object	*out;
	char		 q[40], p[160], email[128];
	struct sess	 s;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "flood", "sms", "live", NULL);
	cr_assert_eq(capture(&f, "127.0.1.2", 1, 1120001), 204);
	cr_assert_eq(flood(&f, "127.0.2.3", 2000), 400);
	tag_settle();
	cr_assert_str_eq(batch(&f, "address", q),
	    "address\t127.0.2.3\t400\t400\tquarantined");
	judge_and_send("03");
	cr_assert_eq(sms_to("9011120001"), 1);
	/* the operator's view and decision */
	cr_assert_eq(ctl(&out,
	    "quarantine list --tenant %s --status quarantined",
	    f.tenant), 0);
	cr_assert_str_eq(jget(out, "data.0.id"), q);
	cr_assert_str_eq(jget(out, "data.0.source"), "127.0.2.3");
	json_object_put(out);
	cr_assert_eq(ctl(&out, "quarantine discard --id %s", q), 0);
	cr_assert_str_eq(jget(out, "status"), "discarded");
	json_object_put(out);
	cr_assert_neq(ctl(NULL, "quarantine discard --id %s", q), 0);
	cr_assert_neq(ctl(NULL, "quarantine release --id %s", q), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM audit_log WHERE tenant_id = "
	    "'%s' AND action = 'quarantine.discard' AND target_id = "
	    "'%s'", f.tenant, q), "1");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE quarantine_id = "
	    "'%s' AND status = 'suppressed' AND suppress_reason = "
	    "'lead_ineligible'",
	    q), "400");
	cr_assert_str_eq(sql("SELECT CONCAT(status, ' ', suppress_reason "
	    "IS NULL) FROM leads WHERE site_id = '%s' AND quarantine_id "
	    "IS NULL", f.site),
	    "sent 1");
	judge_and_send("04");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE "
	    "tenant_id = '%s'", f.tenant), "1");
	/* decided is decided, in the admin API too; another tenant's is none */
	cr_assert_eq(set_password(f.member, PW), 0);
	snprintf(email, sizeof(email), "owner@t%s.example", f.tenant);
	session_of(email, PW, &s);
	snprintf(p, sizeof(p), "/api/v1/admin/quarantines/%s/discard", q);
	r = http("POST", p, NULL, "{}", s.hdr);
	expect_error(r, 409, "invalid_request", "quarantine_decided",
	    "quarantine_id");
	resp_free(r);
	r = http("POST", "/api/v1/admin/quarantines/"
	    "01890000-0000-7000-8000-000000000000/release", NULL, "{}", s.hdr);
	expect_error(r, 404, "not_found", "not_found", "quarantine_id");
	resp_free(r);
}

/*
 * A visitor cycling numbers through its lead: past its 10 contacts it
 * trips, and the lead -- judged already, its message scheduled -- is
 * quarantined: the message waits instead of failing, and goes once the
 * batch is released.
 */
Test(security, visitor_quarantine_holds_a_scheduled_message, .timeout = 120)
{
	struct fx	 f;
	json_object	*out;
	char		 q[40];
	int		 i;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "flood", "sms", "live", NULL);
	for (i = 0; i < 10; i++)
		cr_assert_eq(capture(&f, "127.0.1.3", 7, 1300000 + i), 204);
	cr_assert_eq(cron("formback-abandon", "--now 2035-04-01T03:00:00Z "
	    "--limit 2000"), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND status = 'scheduled'", f.tenant), "1");
	/* the 11th is not kept, and trips the visitor */
	cr_assert_eq(capture(&f, "127.0.1.3", 7, 1300010), 204);
	cr_assert_str_eq(batch(&f, "visitor", q), "visitor\t00000007-5555-4555-"
	    "8555-555555555555\t10\t1\tquarantined");
	cr_assert_str_eq(sql("SELECT CONCAT(captures, ' ', tel_masked) FROM "
	    "leads WHERE site_id = '%s' AND quarantine_id IS NOT NULL", f.site),
	    "10 090-****-0009");
	cr_assert_eq(cron("formback-deliver", "--now 2035-04-01T03:10:00Z "
	    "--limit 5000"), 0);
	cr_assert_str_eq(sql("SELECT CONCAT(status, ' ', attempts) FROM "
	    "deliveries WHERE tenant_id = '%s'", f.tenant), "scheduled 0");
	cr_assert_eq(sms_to("9011300009"), 0);
	cr_assert_eq(ctl(&out, "quarantine release --id %s", q), 0);
	cr_assert_str_eq(jget(out, "status"), "released");
	json_object_put(out);
	cr_assert_eq(cron("formback-deliver", "--now 2035-04-01T03:30:00Z "
	    "--limit 5000"), 0);
	cr_assert_eq(sms_to("9011300009"), 1, "%s", sql_row("SELECT status, "
	    "scheduled_at, attempts, error_code, cancel_reason FROM deliveries "
	    "WHERE tenant_id = '%s'", f.tenant));
}

/*
 * The limits themselves: a lead keeps its 10th contact; one address gets
 * exactly its 400 captures however many visitors it makes up, and
 * nothing after them, at once on every worker; its page views still
 * count only against its events.
 */
Test(security, collector_flood_is_limited, .timeout = 120)
{
	struct fx	 f;
	char		 q[40];
	int		 i, took;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "flood", "sms", "live", NULL);
	for (i = 0; i < 11; i++)
		cr_assert_eq(capture(&f, "127.0.3.9", 1, 3900000 + i), 204);
	tag_settle();
	cr_assert_str_eq(sql("SELECT CONCAT(captures, ' ', tel_masked) FROM "
	    "leads WHERE site_id = '%s'", f.site), "10 090-****-0009");
	(void)batch(&f, "visitor", q);
	/* the visitor's 11 count against the address too */
	took = flood(&f, "127.0.3.9", 3000);
	cr_assert_eq(took, 400 - 11);
	for (i = 0; i < 20; i++)
		cr_assert_eq(capture(&f, "127.0.3.9", 4000 + i, 4000 + i), 429);
	/* a page view: it counts against events, not captures */
	http_source = "127.0.3.9";
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "page_view",
	    .visitor = "99999999-5555-4555-8555-555555555555",
	    .url = "https://shop.example.jp/", .campaign = "flood",
	    .consent = TAG_CONSENT_ABSENT }), 204);
	http_source = NULL;
	tag_settle();
	cr_assert_str_eq(batch(&f, "address", q),
	    "address\t127.0.3.9\t400\t389\tquarantined");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE site_id = '%s' "
	    "AND quarantine_id IS NOT NULL", f.site), "390");
}

/*
 * A burst from one address over 32 connections at once: exactly the
 * limit is taken, whatever worker each request reaches (the bench,
 * tests/bench/flood.sh, measures the same at a limit of 30).
 */
Test(security, burst_from_32_connections_keeps_the_limit, .timeout = 120)
{
	enum { N = 480, CONNS = 32 };
	struct fx	 f;
	char		 url[512], (*body)[512], tel[16];
	CURLM		*m = curl_multi_init();
	CURL		*c[N];
	struct curl_slist *h = NULL;
	int		 i, running, ok = 0, refused = 0;
	long		 st;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "flood", "sms", "live", NULL);
	cr_assert_not_null(body = calloc(N, sizeof(*body)));
	snprintf(url, sizeof(url), "%s/tag/v1/events", getenv("FB_TEST_URL"));
	h = curl_slist_append(h, "Content-Type: text/plain");
	curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)CONNS);
	for (i = 0; i < N; i++) {
		snprintf(tel, sizeof(tel), "0902%07d", i);
		tag_ev_body(&f, &(struct tag_ev){ .type = "capture",
		    .visitor = "eeeeeeee-0000-4000-8000-%012d", .n = i,
		    .campaign = "flood", .role = "form", .tel = tel },
		    body[i], sizeof(body[i]));
		c[i] = curl_easy_init();
		curl_easy_setopt(c[i], CURLOPT_URL, url);
		curl_easy_setopt(c[i], CURLOPT_HTTPHEADER, h);
		curl_easy_setopt(c[i], CURLOPT_POSTFIELDS, body[i]);
		curl_easy_setopt(c[i], CURLOPT_INTERFACE, "127.0.4.1");
		curl_easy_setopt(c[i], CURLOPT_WRITEFUNCTION, discard);
		curl_easy_setopt(c[i], CURLOPT_TIMEOUT, 60L);
		curl_multi_add_handle(m, c[i]);
	}
	do {
		curl_multi_perform(m, &running);
		if (running > 0)
			curl_multi_poll(m, NULL, 0, 1000, NULL);
	} while (running > 0);
	for (i = 0; i < N; i++) {
		curl_easy_getinfo(c[i], CURLINFO_RESPONSE_CODE, &st);
		if (st == 204)
			ok++;
		else if (st == 429)
			refused++;
		curl_multi_remove_handle(m, c[i]);
		curl_easy_cleanup(c[i]);
	}
	curl_multi_cleanup(m);
	curl_slist_free_all(h);
	free(body);
	cr_assert_eq(ok, 400, "%d taken, %d refused", ok, refused);
	cr_assert_eq(refused, N - 400);
	tag_settle();
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE site_id = '%s' "
	    "AND quarantine_id IS NOT NULL", f.site), "400");
}

/*
 * Many addresses of one /24: the network reaches its 600 and every lead
 * of the flood is in its batch; a real visitor after it is not, and goes
 * on schedule.
 */
Test(security, network_flood_is_quarantined, .timeout = 180)
{
	struct fx	 f;
	char		 q[40];

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "flood", "sms", "live", NULL);
	tag_autosettle = false;
	for (int i = 0; i < 300; i++)
		cr_assert_eq(capture(&f, "127.0.5.1", 6000 + i, 6000 + i), 204);
	for (int i = 0; i < 300; i++)
		cr_assert_eq(capture(&f, "127.0.5.2", 7000 + i, 7000 + i), 204);
	cr_assert_eq(capture(&f, "127.0.5.3", 8000, 8000), 429);
	tag_autosettle = true;
	tag_settle();
	cr_assert_str_eq(batch(&f, "network", q),
	    "network\t127.0.5.0/24\t600\t600\tquarantined");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM flood_quarantines WHERE "
	    "site_id = '%s'", f.site), "1");
	cr_assert_eq(capture(&f, "127.0.6.1", 2, 1160002), 204);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE site_id = '%s' "
	    "AND quarantine_id IS NULL", f.site), "1");
	judge_and_send("03");
	cr_assert_eq(sms_to("9011160002"), 1);
}

/*
 * Many sources each within its limits, together past the site's ceiling
 * of 1000 new leads in the hour: the 10 past it are quarantined in the
 * site's batch, the 1000 before them go on; released, they count in the
 * hour again.
 */
Test(security, site_past_its_ceiling_quarantines_the_excess, .timeout = 240)
{
	struct fx	 f;
	json_object	*out;
	char		 q[40];
	int		 i;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "flood", "sms", "live", NULL);
	tag_autosettle = false;
	for (i = 0; i < 1010; i++)
		cr_assert_eq(capture(&f, i < 399 ? "127.0.7.1" : i < 798 ?
		    "127.0.8.1" : "127.0.9.1", 10000 + i, 10000 + i), 204);
	tag_autosettle = true;
	tag_settle();
	cr_assert_str_eq(batch(&f, "site", q),
	    "site\tNULL\t1000\t10\tquarantined");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM flood_quarantines WHERE "
	    "site_id = '%s'", f.site), "1");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE site_id = '%s' "
	    "AND quarantine_id IS NULL", f.site), "1000");
	cr_assert_str_eq(sql("SELECT SUM(leads) FROM site_lead_hours WHERE "
	    "site_id = '%s'", f.site), "1000");
	cr_assert_eq(ctl(&out, "quarantine release --id %s", q), 0);
	json_object_put(out);
	cr_assert_str_eq(sql("SELECT SUM(leads) FROM site_lead_hours WHERE "
	    "site_id = '%s'", f.site), "1010");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE site_id = '%s' "
	    "AND quarantine_id IS NULL", f.site), "1010");
	/* not 1010 messages for the cron passes of the tests after this one */
	sql("UPDATE leads SET status = 'suppressed' WHERE site_id = '%s'",
	    f.site);
}
