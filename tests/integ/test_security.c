/*
 * What an outside attack found (issue 11), each through lighttpd and
 * formback.fcgi as the attacker met it: response splitting through a
 * landing URL sent as Location, identifiers of another alphabet reaching
 * SQL, contacts kept in URLs, long provider receipts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "../../src/api.h"
#include "harness.h"

#define J(...) #__VA_ARGS__

/* Visitor n of the tests below, on the shop's page. */
#define VISITOR	"%08d-3333-4333-8333-333333333333"
#define ORIGIN	"https://shop.example.jp"

/*
 * Finding 1: a landing URL with CR/LF and a header block in it became the
 * Location of the click link, and /r/ answered 200 text/html with the
 * attacker's script.  The URL is kept as the parser writes it; the link
 * redirects to that; no header can carry a control character.
 */
Test(security, landing_url_cannot_split_the_response, .timeout = 60)
{
	static const char evil[] = "https://shop.example.jp/form/x"
	    "\r\nStatus: 200 OK"
	    "\r\nSet-Cookie: fb=evil\r\nContent-Type: text/html\r\n\r\n"
	    "<script>alert(1)</script>";
	struct fx	 f;
	struct resp	*r;
	char		 p[256], tok[16], lead[40];
	const char	*loc;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "split", "sms", "live", NULL);
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "page_view",
	    .visitor = VISITOR, .n = 1, .url = evil, .campaign = "split",
	    .role = "form", .origin = ORIGIN }), 204);
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "capture",
	    .visitor = VISITOR, .n = 1, .url = evil, .campaign = "split",
	    .role = "form", .tel = "090-7400-0001", .origin = ORIGIN }), 204);
	snprintf(lead, sizeof(lead), "%s",
	    sql("SELECT id FROM leads WHERE tenant_id = '%s'",
	    f.tenant));
	cr_assert_neq(lead[0], '\0');
	/* kept as the URL parser writes it: no control character, no space */
	snprintf(p, sizeof(p), "/api/v1/leads/%s", lead);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "landing_url"),
	    "https://shop.example.jp/form/"
	    "xStatus:%20200%20OKSet-Cookie:%20fb=evilContent-Type:%20text/html"
	    "%3Cscript%3Ealert(1)%3C/script%3E");
	resp_free(r);
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-abandon\" --now "
	    "2034-06-01T03:00:00Z"), 0);
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-deliver\" --now "
	    "2034-06-01T03:10:00Z"), 0);
	cr_assert_str_eq(sql("SELECT status FROM deliveries WHERE lead_id = "
	    "'%s'", lead), "sent");
	snprintf(tok, sizeof(tok), "%s",
	    sql("SELECT token FROM links WHERE lead_id = '%s' "
	    "AND kind = 'click'", lead));
	snprintf(p, sizeof(p), "/r/%s", tok);
	r = http("GET", p, NULL, NULL, NULL);
	cr_assert_eq(r->status, 302, "%s", r->headers);
	cr_assert_null(resp_header(r, "Set-Cookie"));
	cr_assert_null(resp_header(r, "Content-Type"));
	cr_assert_null(strstr(r->headers, "<script>"));
	cr_assert_eq(r->body[0], '\0', "%s", r->body);
	cr_assert_not_null(loc = resp_header(r, "Location"));
	cr_assert_eq(strcspn(loc, "\r\n\t "), strlen(loc), "%s", loc);
	cr_assert_eq(strncmp(loc, "https://shop.example.jp/form/x", 30), 0,
	    "%s", loc);
	resp_free(r);

	/*
	 * a link stored by an older release, raw: still only a clean Location
	 */
	sql("UPDATE links SET url = "
	    "'https://shop.example.jp/a\\r\\nSet-Cookie: x=1' "
	    "WHERE token = '%s'", tok);
	r = http("GET", p, NULL, NULL, NULL);
	cr_assert_eq(r->status, 302);
	cr_assert_null(resp_header(r, "Set-Cookie"));
	cr_assert_str_eq(resp_header(r, "Location"),
	    "https://shop.example.jp/aSet-Cookie:%20x=1");
	resp_free(r);
	/* and one that is no URL at all is no redirect */
	sql("UPDATE links SET url = 'javascript:alert(1)' WHERE token = '%s'",
	    tok);
	r = http("GET", p, NULL, NULL, NULL);
	cr_assert_eq(r->status, 404);
	cr_assert_null(resp_header(r, "Location"));
	resp_free(r);
}

/* Finding 9: the opt-out page cannot be framed and loads nothing. */
Test(security, optout_page_not_framed)
{
	struct fx	 f;
	struct resp	*r;
	char		 p[64];

	fx_new(&f, "pro", 0);
	sql("INSERT INTO links (token, tenant_id, delivery_id, lead_id, kind, "
	    "url) VALUES ('SecOptOut1', '%s', UUID(), UUID(), 'optout', "
	    "NULL)", f.tenant);
	snprintf(p, sizeof(p), "/u/SecOptOut1");
	r = http("GET", p, NULL, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(resp_header(r, "X-Frame-Options"), "DENY");
	cr_assert_not_null(strstr(resp_header(r, "Content-Security-Policy"),
	    "frame-ancestors 'none'"));
	resp_free(r);
}

/*
 * Finding 5: identifiers of another alphabet were "Illegal mix of
 * collations" (500), and a capture with a non-ASCII campaign key was
 * parked for good.
 */
Test(security, identifiers_checked_before_sql, .timeout = 60)
{
	struct fx	 f;
	struct resp	*r;
	char		 c[40], p[128];

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "ident", c);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/scenarios/from_preset", c);
	r = http("POST", p, f.live, "{\"preset_key\":\"\u2019\"}", NULL);
	expect_error(r, 422, "invalid_request", "parameter_invalid",
	    "preset_key");
	resp_free(r);
	r = tag_ev_send(&f, &(struct tag_ev){ .type = "page_view",
	    .visitor = VISITOR, .n = 1, .url = "https://shop.example.jp/",
	    .consent = TAG_CONSENT_ABSENT, .site = "pk_\u00e9" });
	expect_error(r, 404, "not_found", "not_found", "site");
	resp_free(r);
	r = http("POST", "/api/v1/campaigns", f.live,
	    J({"site_id":"00000000-0000-0000-0000-000000000000",
	    "key":"キャンペーン","name":"x"}), NULL);
	cr_assert_eq(r->status / 100, 4, "%s", r->body);
	resp_free(r);
	/* a bad optional field is dropped, the event kept and applied */
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "capture",
	    .visitor = VISITOR, .n = 2, .referrer = "not a url",
	    .campaign = "\u30ad\u30e3\u30f3\u30da\u30fc\u30f3",
	    .role = "form", .tel = "090-7400-0002", .origin = ORIGIN }), 204);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM tag_ingest WHERE site_id = "
	    "'%s'",
	    f.site), "0");
	cr_assert_str_eq(sql("SELECT CONCAT(event_type, ' ', campaign_id "
	    "IS NULL, ' ', referrer IS NULL) FROM tag_events WHERE site_id = "
	    "'%s'", f.site),
	    "capture 1 1");
}

/*
 * Finding 7: only query parameters whose whole value was a contact were
 * scrubbed; emails and numbers in path segments, fragments, free text,
 * split parameters and referrers reached tag_events and the lead.
 */
Test(security, contacts_scrubbed_from_every_part_of_urls, .timeout = 60)
{
	static const char url[] = "https://shop.example.jp/form/"
	    "taro%40example.jp/tel-090-1111-2222/step?a=090&b=3333&c=4444"
	    "&q=call+me+at+03-5555-6666&page=2"
	    "&who=saburo%EF%BC%A0mail.example.jp&utm_source=ad"
	    "#name=x&m=hanako@example.jp";
	static const char ref[] = "https://search.example.com/u/"
	    "080%207777%208888/?id=42#jiro@example.jp";
	static const char *const leaks[] = { "taro", "1111", "2222", "3333",
	    "4444", "5555", "6666", "7777", "8888", "hanako", "jiro", "saburo",
	    "%EF%BC%A0" };
	struct fx	 f;
	struct resp	*r;
	char		 p[128];
	const char	*s;
	size_t		 i;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "scrub", "sms", "live", NULL);
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "page_view",
	    .visitor = VISITOR, .n = 3, .url = url, .referrer = ref,
	    .campaign = "scrub", .role = "form", .origin = ORIGIN }), 204);
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "capture",
	    .visitor = VISITOR, .n = 3, .url = url, .referrer = ref,
	    .campaign = "scrub", .role = "form", .tel = "090-7400-0003",
	    .origin = ORIGIN }), 204);
	s = sql("SELECT GROUP_CONCAT(url, ' ', IFNULL(referrer, '')) FROM "
	    "tag_events WHERE site_id = '%s'", f.site);
	for (i = 0; i < sizeof(leaks) / sizeof(leaks[0]); i++)
		cr_assert_null(strstr(s, leaks[i]), "%s in %s", leaks[i], s);
	cr_assert_not_null(strstr(s,
	    "/redacted/redacted/step?page=2&utm_source=ad#name=x"),
	    "%s", s);
	snprintf(p, sizeof(p), "/api/v1/leads?campaign_id=%s",
	    sql("SELECT id FROM campaigns WHERE tenant_id = '%s'", f.tenant));
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200);
	snprintf(p, sizeof(p), "/api/v1/leads/%s", jget(r->json, "data.0.id"));
	resp_free(r);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200);
	/* the URLs and what is made of them (ids are random hex: not those) */
	s = json_object_to_json_string(jobj(r->json, "timeline"));
	for (i = 0; i < sizeof(leaks) / sizeof(leaks[0]); i++)
		cr_assert_null(strstr(s, leaks[i]), "%s in %s", leaks[i], s);
	s = json_object_to_json_string(jobj(r->json, "utm"));
	for (i = 0; i < sizeof(leaks) / sizeof(leaks[0]); i++)
		cr_assert_null(strstr(s, leaks[i]), "%s in %s", leaks[i], s);
	cr_assert_str_eq(jget(r->json, "landing_url"),
	    "https://shop.example.jp/form/"
	    "redacted/redacted/step?page=2&utm_source=ad#name=x");
	cr_assert_str_eq(jget(r->json, "referrer"),
	    "https://search.example.com/u/"
	    "redacted/?id=42");
	resp_free(r);
}

/*
 * Finding 6: a receipt whose error text passed 64 characters answered
 * 503 "Data too long": nothing recorded, no suppression for a hard
 * bounce, the provider retrying for ever.  It is kept, cut at a
 * character boundary.
 */
Test(security, long_provider_error_kept, .timeout = 60)
{
	struct fx	 f;
	struct resp	*r;
	char		 b[4096], err[2048], lead[40], d[40];
	size_t		 i, o = 0;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "hook", "sms", "live", "https://shop.example.jp/form");
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "capture",
	    .visitor = VISITOR, .n = 5, .campaign = "hook", .role = "form",
	    .tel = "090-7400-0005", .origin = ORIGIN }), 204);
	snprintf(lead, sizeof(lead), "%s",
	    sql("SELECT id FROM leads WHERE tenant_id = '%s'",
	    f.tenant));
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-abandon\" --now "
	    "2034-06-02T03:00:00Z"), 0);
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-deliver\" --now "
	    "2034-06-02T03:10:00Z"), 0);
	snprintf(d, sizeof(d), "%s",
	    sql("SELECT id FROM deliveries WHERE lead_id = '%s' "
	    "AND status = 'sent'", lead));
	cr_assert_neq(d[0], '\0');
	/*
	 * 100 characters of Japanese (3 bytes each), a tab and a NUL-free
	 * control
	 */
	for (i = 0; i < 100; i++)
		o += (size_t)snprintf(err + o, sizeof(err) - o, "%s",
		    i == 10 ? "\\t" :
		    i == 20 ? "\\u0001" : "宛");
	snprintf(b, sizeof(b), "{\"reference\":\"%s\",\"status\":\"bounced\","
	    "\"bounce\":\"hard\",\"error\":\"%s\"}", d, err);
	r = http("POST", "/hooks/sms/standin", NULL, b,
	    "Authorization: Bearer stand-in-hook-token");
	cr_assert_eq(r->status, 204, "%s", r->body);
	resp_free(r);
	cr_assert_str_eq(sql("SELECT CONCAT(status, ' ', "
	    "CHAR_LENGTH(error_code), ' ', LEFT(error_code, 12)) FROM "
	    "deliveries WHERE id = '%s'", d),
	    "failed 64 宛宛宛宛宛宛宛宛宛宛?宛");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM suppressions WHERE "
	    "tenant_id = '%s' AND reason = 'bounce'", f.tenant), "1");
	/* a body that is not UTF-8 is a 400, not a database error */
	snprintf(b, sizeof(b), "{\"reference\":\"%s\",\"status\":\"failed\","
	    "\"error\":\"\xff\xfe\"}", d);
	r = http("POST", "/hooks/sms/standin", NULL, b,
	    "Authorization: Bearer stand-in-hook-token");
	expect_error(r, 400, "invalid_request", "invalid_json", "body");
	resp_free(r);
}

/*
 * Finding 9: a cursor minted for one tenant or filter set was accepted by
 * another; the contract says 400.
 */
Test(security, cursor_bound_to_tenant_and_filters)
{
	struct fx	 a, b;
	struct resp	*r;
	char		 c1[40], c2[40], cur[128], p[512];

	fx_new(&a, "pro", 0);
	fx_new(&b, "pro", 0);
	fx_campaign(&a, "cur-one", c1);
	fx_campaign(&a, "cur-two", c2);
	fx_campaign(&b, "cur-one", c1);
	fx_campaign(&b, "cur-two", c2);
	r = http("GET", "/api/v1/campaigns?limit=1", a.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_not_null(jget(r->json, "next_cursor"));
	snprintf(cur, sizeof(cur), "%s", jget(r->json, "next_cursor"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/campaigns?limit=1&cursor=%s", cur);
	r = http("GET", p, a.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	resp_free(r);
	/* another tenant */
	r = http("GET", p, b.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "cursor_invalid", "cursor");
	resp_free(r);
	/* another filter set */
	snprintf(p, sizeof(p), "/api/v1/campaigns?limit=1&site_id=%s&cursor=%s",
	    a.site, cur);
	r = http("GET", p, a.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "cursor_invalid", "cursor");
	resp_free(r);
}

/*
 * Finding 3 (3,000 captures of made-up numbers from one address were all
 * accepted and messaged): the limits and the quarantine of a flood's
 * leads are tests/integ/test_flood.c's.
 */

/* Finding 9: the preflight answers the sites' origins only. */
Test(security, preflight_only_for_site_origins)
{
	struct fx	 f;
	struct resp	*r;

	fx_new(&f, "pro", 0);
	r = http("OPTIONS", "/tag/v1/events", NULL, NULL,
	    "Origin: https://www.shop.example.jp");
	cr_assert_eq(r->status, 204);
	cr_assert_str_eq(resp_header(r, "Access-Control-Allow-Origin"),
	    "https://www.shop.example.jp");
	resp_free(r);
	r = http("OPTIONS", "/tag/v1/events", NULL, NULL,
	    "Origin: https://evil.example");
	cr_assert_eq(r->status, 204);
	cr_assert_null(resp_header(r, "Access-Control-Allow-Origin"));
	resp_free(r);
	r = http("OPTIONS", "/tag/v1/events", NULL, NULL, NULL);
	cr_assert_null(resp_header(r, "Access-Control-Allow-Origin"));
	resp_free(r);
}

/*
 * Finding 9: a block URL that starts with a variable skipped the URL
 * check, so a product name of "javascript:..." reached emails and
 * previews.  The URL is checked after expansion.
 */
Test(security, block_url_checked_after_expansion)
{
	struct fx	 f;
	struct resp	*r;
	char		 c[40], p[128], b[1024];

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "js", c);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s", c);
	r = http("PATCH", p, f.live,
	    "{\"product_name\":\"javascript:alert(1)//\"}", NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	resp_free(r);
	snprintf(b, sizeof(b), "{\"campaign_id\":\"%s\",\"blocks\":["
	    "{\"type\":\"button\",\"text\":\"go\","
	    "\"url\":\"{{product_name}}\"},"
	    "{\"type\":\"image\",\"url\":\"{{product_name}}\",\"alt\":\"x\"},"
	    "{\"type\":\"button\",\"text\":\"shop\","
	    "\"url\":\"HTTPS://Shop.Example.JP/a b\"}]}", c);
	r = http("POST", "/api/v1/message_previews", f.live, b, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_null(strstr(jget(r->json, "html"), "javascript"), "%s",
	    r->body);
	cr_assert_null(strstr(jget(r->json, "html"), "<img"), "%s", r->body);
	cr_assert_not_null(strstr(jget(r->json, "html"),
	    "href=\"https://shop.example.jp/a%20b\""),
	    "%s", r->body);
	resp_free(r);
}

/*
 * Finding 2: URL rules with nested quantifiers stalled every tenant.  They
 * are refused with a code of their own, and nothing is saved.
 */
Test(security, unbounded_regex_refused)
{
	struct fx	 f;
	struct resp	*r;
	char		 c[40], p[128];

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "re", c);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/url-rules", c);
	r = http("PUT", p, f.live,
	    "{\"rules\":[{\"role\":\"form\",\"match_type\":\"regex\","
	    "\"pattern\":\"^/lp/[0-9]+$\"},"
	    "{\"role\":\"form\",\"match_type\":\"regex\","
	    "\"pattern\":\"^/form(a|aa)+$\"}]}", NULL);
	expect_error(r, 422, "invalid_request", "regex_too_complex",
	    "rules[1].pattern");
	resp_free(r);
	r = http("PUT", p, f.test,
	    "{\"rules\":[{\"role\":\"form\",\"match_type\":\"regex\","
	    "\"pattern\":\"(a+)+$\"}]}", NULL);
	expect_error(r, 422, "invalid_request", "regex_too_complex",
	    "rules[0].pattern");
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM url_rules WHERE campaign_id "
	    "= '%s'", c), "0");
	r = http("PUT", p, f.live,
	    "{\"rules\":[{\"role\":\"form\",\"match_type\":\"regex\","
	    "\"pattern\":\"^/(form|entry)/step[12]$\"}]}", NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	resp_free(r);
}

/* A body each write accepts, so only the id can refuse it. */
static const char *
valid_body(const char *tpl, const char *method)
{
	static const struct { const char *suffix, *body; } b[] = {
		{ "/url-rules", "{\"rules\":[]}" },
		{ "/url-rules/test",
		    "{\"url\":\"https://shop.example/form\"}" },
		{ "/scenarios", "{\"name\":\"mine\"}" },
		{ "/from_preset", "{\"preset_key\":\"recommended\"}" },
		{ "/steps", "{\"steps\":[]}" },
	};
	size_t	 i, n = strlen(tpl), k;

	if (strcmp(method, "GET") == 0 || strcmp(method, "DELETE") == 0)
		return NULL;
	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		k = strlen(b[i].suffix);
		if (n >= k && strcmp(tpl + n - k, b[i].suffix) == 0)
			return b[i].body;
	}
	return "{}";
}

/*
 * Another tenant's ids, on every route of the table that names one in
 * its path, with this tenant's key of every scope: 404 not_found, never
 * the other's data or a change to it (contract: Errors, not_found).
 */
Test(security, other_tenants_ids_are_404_on_every_route, .timeout = 120)
{
	struct fx	 f, g;
	struct resp	*r;
	char		 camp[40], msg[40], scen[40], supp[40], hook[40];
	char		 path[512];
	const char	*p, *e, *id;
	char		*before;
	size_t		 i, n, tried = 0;

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	fx_campaign(&g, "theirs", camp);
	r = http("POST", "/api/v1/messages", g.live,
	    "{\"channel\":\"sms\",\"body\":\"x\"}", NULL);
	snprintf(msg, sizeof(msg), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(path, sizeof(path), "/api/v1/campaigns/%s/scenarios", camp);
	r = http("POST", path, g.live, "{\"name\":\"theirs\"}", NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(scen, sizeof(scen), "%s", jget(r->json, "id"));
	resp_free(r);
	r = http("POST", "/api/v1/suppressions", g.live,
	    "{\"value\":\"09011112222\"}", NULL);
	snprintf(supp, sizeof(supp), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(hook, sizeof(hook), "%s",
	    "01a21100-0000-7000-8000-000000000000");
	before = strdup(sql("SELECT CONCAT((SELECT updated_at FROM campaigns "
	    "WHERE id = '%s'), (SELECT updated_at FROM messages WHERE id = "
	    "'%s'), (SELECT COUNT(*) FROM suppressions WHERE tenant_id = "
	    "'%s'))", camp, msg, g.tenant));
	for (i = 0; i < routes_len; i++) {
		if ((routes[i].flags & (R_PUBLIC | R_SESSION)) != 0 ||
		    strchr(routes[i].path, '{') == NULL)
			continue;
		/* each {name} the other tenant's id of that kind */
		path[0] = '\0';
		for (p = routes[i].path; *p != '\0'; p = e) {
			if (*p != '{') {
				e = p + strcspn(p, "{");
				strncat(path, p, (size_t)(e - p));
				continue;
			}
			e = strchr(p, '}') + 1;
			n = (size_t)(e - p);
			id = strncmp(p, "{site_id}", n) == 0 ? g.site :
			    strncmp(p, "{campaign_id}", n) == 0 ? camp :
			    strncmp(p, "{message_id}", n) == 0 ? msg :
			    strncmp(p, "{scenario_id}", n) == 0 ? scen :
			    strncmp(p, "{suppression_id}",
			    n) == 0 ? supp : hook;
			strncat(path, id, sizeof(path) - strlen(path) - 1);
		}
		r = http(routes[i].method, path, f.live,
		    valid_body(routes[i].path,
		    routes[i].method), NULL);
		cr_expect_eq(r->status, 404, "%s %s: %ld %s", routes[i].method,
		    path,
		    r->status, r->body);
		resp_free(r);
		tried++;
	}
	cr_assert_gt(tried, 20);
	cr_assert_str_eq(sql("SELECT CONCAT((SELECT updated_at FROM campaigns "
	    "WHERE id = '%s'), (SELECT updated_at FROM messages WHERE id = "
	    "'%s'), (SELECT COUNT(*) FROM suppressions WHERE tenant_id = "
	    "'%s'))", camp, msg,
	    g.tenant), before, "the other tenant's rows changed");
	free(before);
}

/*
 * Every list this tenant's key reads (each GET route of the table with no
 * id in its path) shows none of another tenant's rows, though that tenant
 * has one of each kind that its own key finds in those same lists (issue
 * 18, item 7: a list that dropped its tenant filter fails here, also when
 * this test runs alone).
 */
Test(security, lists_never_show_another_tenants_rows, .timeout = 120)
{
	static const char *const kinds[] = { "sites", "campaigns", "messages",
	    "leads", "deliveries", "suppressions" };
	enum { KINDS = sizeof(kinds) / sizeof(kinds[0]) };
	struct fx	 f, g;
	struct resp	*r;
	char		 ids[KINDS][40];
	bool		 owner[KINDS] = { false };
	size_t		 i, k, tried = 0;

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	fx_one_step(&g, "theirs", "sms", "live", NULL);
	cr_assert_eq(tag_ev_post(&g, &(struct tag_ev){ .type = "capture",
	    .visitor = "12121212-0000-4000-8000-000000000001",
	    .campaign = "theirs", .role = "form", .tel = "090-1212-0001" }),
	    204);
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-abandon\" --now "
	    "2036-02-02T03:00:00Z"), 0);
	r = http("POST", "/api/v1/suppressions", g.live,
	    "{\"value\":\"090-1212-0002\"}", NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	for (k = 0; k < KINDS; k++) {
		snprintf(ids[k], sizeof(ids[k]), "%s",
		    sql("SELECT id FROM %s WHERE "
		    "tenant_id = '%s' LIMIT 1", kinds[k], g.tenant));
		cr_assert_eq(strlen(ids[k]), 36, "the other tenant has no %s",
		    kinds[k]);
	}
	for (i = 0; i < routes_len; i++) {
		if ((routes[i].flags & (R_PUBLIC | R_SESSION)) != 0 ||
		    strcmp(routes[i].method, "GET") != 0 ||
		    strchr(routes[i].path, '{') != NULL)
			continue;
		r = http("GET", routes[i].path, f.live, NULL, NULL);
		for (k = 0; k < KINDS; k++)
			cr_expect_null(strstr(r->body, ids[k]),
			    "GET %s shows the other "
			    "tenant's %s", routes[i].path, kinds[k]);
		resp_free(r);
		r = http("GET", routes[i].path, g.live, NULL, NULL);
		for (k = 0; k < KINDS; k++)
			owner[k] = owner[k] || strstr(r->body, ids[k]) != NULL;
		resp_free(r);
		tried++;
	}
	cr_assert_gt(tried, 6);
	for (k = 0; k < KINDS; k++)
		cr_assert(owner[k], "no list shows its own %s to the owner",
		    kinds[k]);
}

/*
 * A refusal in the contract's one shape ("Errors"): JSON with
 * error.type, code, message and request_id strings and param present;
 * never a 5xx, whatever was sent.
 */
static void
no_fault(const struct resp *r, const char *method, const char *path,
    const char *sent)
{
	json_object	*e, *v;
	static const char *const fields[] = { "type", "code", "message",
	    "request_id" };
	size_t		 i;

	cr_assert(r->status >= 200 && r->status < 500, "%s %.200s with %.200s: "
	    "%ld %.300s", method, path, sent, r->status, r->body);
	if (r->status < 400)
		return;
	cr_assert(r->json != NULL && json_object_object_get_ex(r->json, "error",
	    &e), "%s %.200s with %.200s: %ld not the envelope: %.300s", method,
	    path, sent, r->status, r->body);
	for (i = 0; i < NELEM(fields); i++)
		cr_assert(json_object_object_get_ex(e, fields[i], &v) &&
		    json_object_is_type(v, json_type_string), "%s %.200s with "
		    "%.200s: error.%s: %.300s", method, path, sent, fields[i],
		    r->body);
	cr_assert(json_object_object_get_ex(e, "param", NULL), "%s %.200s: no "
	    "error.param: %.300s", method, path, r->body);
}

/* s repeated n times (freed by the caller). */
static char *
repeat(const char *s, size_t n)
{
	size_t		 k = strlen(s), i;
	char		*p = malloc(k * n + 1);

	cr_assert_not_null(p);
	for (i = 0; i < n; i++)
		memcpy(p + i * k, s, k);
	p[k * n] = '\0';
	return p;
}

/*
 * path with each {name} replaced: the fixture's site and campaign, every
 * other id by `other`.
 */
static void
path_fill(char *out, size_t sz, const char *tpl, const char *site,
    const char *campaign, const char *other)
{
	const char	*p, *end;
	size_t		 n = 0;

	for (p = tpl; *p != '\0' && n + 1 < sz; ) {
		if (*p != '{' || (end = strchr(p, '}')) == NULL) {
			out[n++] = *p++;
			continue;
		}
		n += (size_t)snprintf(out + n, sz - n, "%s",
		    strncmp(p, "{site_id}", 9) == 0 ? site :
		    strncmp(p, "{campaign_id}", 13) == 0 ? campaign : other);
		if (n >= sz)
			n = sz - 1;
		p = end + 1;
	}
	out[n] = '\0';
}

/* What the hostile sweep sends with, and how far it got. */
struct sweep {
	const struct fx	*f;
	const char	*campaign;
	json_object	*doc;		/* openapi.json */
	const char	*deep;		/* 5,000 nested arrays */
	const char	*big;		/* 70,000 bytes of text */
	const char	*long_values[2]; /* big as a JSON string; 10,000 ones */
	char		*body;		/* room for a body with one of them */
	size_t		 room;		/* its size */
	size_t		 n;		/* requests sent */
};

/*
 * One operation (method, path template tpl, its object op of openapi.json)
 * called with hostility by one caller: an API key in key, or a session's
 * headers in auth.  Every answer must be under 500 and every refusal the
 * envelope (no_fault()).
 */
static void
sweep_op(struct sweep *w, const char *method, const char *tpl,
    json_object *op, const char *key, const char *auth)
{
	static const char *const ids[] = {
	    "00000000-0000-0000-0000-000000000000",
	    "abc", "%2e%2e", "%00", "%E3%81%82", "%0d%0aX:%20y", "%FF%FE",
	    "'%20OR%201=1", "01a21d3c-2439-7092-86db-c740df349d7" };
	static const char *const queries[] = { "limit=-1", "limit=0",
	    "limit=201", "limit=abc", "limit=1e2", "limit=99999999999999999999",
	    "limit=", "limit=5&limit=6", "cursor=garbage", "cursor=",
	    "cursor=%00", "unknown=1", "%ZZ=1", "status=%FF", "site_id=abc",
	    "campaign_id=%00", "from=garbage", "to=2024-13-45",
	    "from=2020-01-01&to=2019-01-01", "date_field=nope",
	    "status=active&status=paused", "days=-5",
	    "q=%C0%AF", "lead_id=%0d%0a" };
	static const char *const bodies[] = { "", "null", "[]", "{", "{\"a\":",
	    "\"s\"", "123", "\xff\xfe{}", "\xef\xbb\xbf{}", "{\"name\":1e400}",
	    "{\"name\":\"\\ud800\"}", "{\"name\":\"x\",\"name\":\"y\"}", "{}",
	    "{\"steps\":null,\"rules\":null}", "{\"limit\":NaN}", "{\"\":1}" };
	static const char *const values[] = { "null", "0", "1", "-1", "1.5",
	    "true", "[]", "{}", "\"\"", "\"\\u0000\"", "[1,\"a\",null]",
	    "{\"a\":{\"b\":[1]}}", "2147483648", "18446744073709551616",
	    "-9223372036854775809", "\"\\ud800\"", "\"\xed\xa0\x80\"",
	    "\"\xf0\x9f\x98\x80\xe2\x80\xae\xcc\x81\"",
	    "\"javascript:alert(1)\"", "\"https://127.0.0.1/\"" };
	static const char *const headers[] = { "Idempotency-Key: \x01",
	    "Content-Type: text/plain", "Content-Type: application/json; "
	    "charset=latin1", "Content-Type: application/json; charset=utf-16",
	    "Accept: text/html", "Content-Encoding: gzip", "Range: bytes=0-1",
	    "Origin: https://evil.example", "X-CSRF-Token: 0",
	    "Cookie: fb_session=%00; fb_session=x",
	    "X-HTTP-Method-Override: DELETE" };
	const bool	 write = strcmp(method, "GET") != 0 &&
			    strcmp(method, "DELETE") != 0;
	struct resp	*r;
	json_object	*schema, *props;
	char		 path[8192], sent[256], hdr[1024];
	const char	*ref, *b;
	size_t		 i, k;

	/* every shape of id where the path takes one */
	for (i = 0; strchr(tpl, '{') != NULL && i < NELEM(ids); i++) {
		path_fill(path, sizeof(path), tpl, ids[i], ids[i], ids[i]);
		r = http(method, path, key, write ? "{}" : NULL, auth);
		no_fault(r, method, path, "{}");
		resp_free(r);
		w->n++;
	}
	/* the rest with the fixture's ids, unknown ones else */
	path_fill(path, sizeof(path), tpl, w->f->site, w->campaign, ids[0]);
	k = strlen(path);
	for (i = 0; i < NELEM(queries); i++) {
		snprintf(path + k, sizeof(path) - k, "?%s", queries[i]);
		r = http(method, path, key, write ? "{}" : NULL, auth);
		no_fault(r, method, path, queries[i]);
		resp_free(r);
		w->n++;
	}
	path[k] = '\0';
	for (i = 0; i < NELEM(headers); i++) {
		snprintf(hdr, sizeof(hdr), "%s%s%s", auth != NULL ? auth : "",
		    auth != NULL ? "\n" : "", headers[i]);
		r = http(method, path, key, write ? "{}" : NULL, hdr);
		no_fault(r, method, path, headers[i]);
		resp_free(r);
		w->n++;
	}
	if (!write)
		return;
	for (i = 0; i < NELEM(bodies) + 2; i++) {
		b = i < NELEM(bodies) ? bodies[i] :
		    i == NELEM(bodies) ? w->deep : w->big;
		r = http(method, path, key, b, auth);
		no_fault(r, method, path, b);
		resp_free(r);
		w->n++;
	}
	/* each property of the request body, of every other kind */
	if ((schema = jobj(op,
	    "requestBody.content.application/json.schema")) !=
	    NULL && (ref = jget(schema, "$ref")) != NULL &&
	    strrchr(ref, '/') != NULL) {
		snprintf(sent, sizeof(sent), "components.schemas.%s",
		    strrchr(ref, '/') + 1);
		schema = jobj(w->doc, sent);
	}
	if (schema == NULL || (props = jobj(schema, "properties")) == NULL)
		return;
	json_object_object_foreach(props, name, unused) {
		(void)unused;
		for (i = 0; i < NELEM(values) + NELEM(w->long_values); i++) {
			snprintf(w->body, w->room, "{\"%s\":%s}", name,
			    i < NELEM(values) ? values[i] :
			    w->long_values[i - NELEM(values)]);
			r = http(method, path, key, w->body, auth);
			no_fault(r, method, path, w->body);
			resp_free(r);
			w->n++;
		}
	}
}

/*
 * Every operation of openapi.json as a client generator or an attacker
 * with one tenant's key would call it: ids of every shape in the path,
 * every kind of bad query, odd headers (another Content-Type, charset or
 * Content-Encoding, a Range, a foreign Origin, a wrong CSRF token, two
 * session cookies, a method override), malformed bodies (empty, cut
 * short, nested 5,000 deep, not UTF-8, a lone surrogate, NaN, a number
 * past a double), and each property of the operation's request body given a
 * value of every
 * other JSON type, 70,000 characters, a NUL or past 64 bits.  None may be
 * a 5xx or a hang, and every refusal is the contract's envelope; the
 * harness checks each answer against the document as well.  Each
 * operation is called with the live key, with the test key (its writes
 * dry runs), and with the owner's session, as the admin UI or a member
 * scripting it would, so that the hostile input reaches what a session
 * alone may do (the admin API, statuses, test sends, direct HTML), not
 * only the refusal of a key: a session-only operation with the session
 * alone, one without security with the live key alone (ignored), and all
 * but signing out, which would end the session (checked alive at the
 * end).
 */
Test(security, hostile_input_on_every_operation, .timeout = 600)
{
	struct fx	 f;
	struct sess	 s;
	struct sweep	 w;
	struct resp	*doc, *r;
	json_object	*paths;
	char		 campaign[40], email[128], method[8], *deep, *big;
	char		*bigq, *wide;
	size_t		 k, nsession = 0;
	bool		 session_only, keyless, signout;

	fx_new(&f, "pro", 1000000);
	fx_campaign(&f, "hostile", campaign);
	snprintf(email, sizeof(email), "owner@t%s.example", f.tenant);
	cr_assert_eq(set_password(f.member, "a hostile sweep's password"), 0);
	session_of(email, "a hostile sweep's password", &s);
	deep = repeat("[", 5000);
	big = repeat("あ", 70000 / 3);
	doc = http("GET", "/api/v1/openapi.json", NULL, NULL, NULL);
	cr_assert_eq(doc->status, 200);
	memset(&w, 0, sizeof(w));
	w.f = &f;
	w.campaign = campaign;
	w.doc = doc->json;
	w.deep = deep;
	w.big = big;
	cr_assert_not_null(bigq = malloc(strlen(big) + 3));
	snprintf(bigq, strlen(big) + 3, "\"%s\"", big);
	/* [1,1,...,1]: 10,000 ones */
	wide = repeat(" 1,", 10000);
	wide[0] = '[';
	wide[strlen(wide) - 1] = ']';
	w.long_values[0] = bigq;
	w.long_values[1] = wide;
	w.room = strlen(wide) + strlen(bigq) + 64;
	cr_assert_not_null(w.body = malloc(w.room));
	cr_assert(json_object_object_get_ex(doc->json, "paths", &paths));
	json_object_object_foreach(paths, tpl, item) {
		json_object_object_foreach(item, m, op) {
			if (strcmp(m, "get") != 0 && strcmp(m, "post") != 0 &&
			    strcmp(m, "put") != 0 && strcmp(m, "patch") != 0 &&
			    strcmp(m, "delete") != 0)
				continue;
			for (k = 0; m[k] != '\0' && k + 1 < sizeof(method); k++)
				method[k] = (char)(m[k] - 'a' + 'A');
			method[k] = '\0';
			session_only = jobj(op,
			    "security.0.sessionCookie") != NULL;
			keyless = jobj(op, "security.0") == NULL;
			signout = strcmp(tpl, "/api/v1/admin/session") == 0 &&
			    strcmp(method, "DELETE") == 0;
			if (!session_only) {
				sweep_op(&w, method, tpl, op, f.live, NULL);
				if (!keyless)
					sweep_op(&w, method, tpl, op, f.test,
					    NULL);
			}
			if (!keyless && !signout) {
				sweep_op(&w, method, tpl, op, NULL, s.hdr);
				nsession++;
			}
		}
	}
	cr_log_info("%zu hostile requests; %zu operations called with the "
	    "session", w.n, nsession);
	cr_assert_gt(w.n, 1000);
	cr_assert_gt(nsession, 60);
	/* the session lasted: the admin operations were reached with it */
	r = http("GET", "/api/v1/admin/session", NULL, NULL, s.hdr);
	cr_assert_eq(r->status, 200, "%ld %s", r->status, r->body);
	resp_free(r);
	resp_free(doc);
	free(w.body);
	free(wide);
	free(bigq);
	free(big);
	free(deep);
}

/*
 * The paths anyone reaches without a key, with the same hostility: each
 * field of a tag event of every other kind or far too long, bodies that
 * are not an event, tokens of every shape on the links and the opt-out
 * page, and malformed provider callbacks (authenticated and not).  None
 * may be a 5xx or a hang; a refused event is the envelope (design 3).
 */
Test(security, hostile_input_on_public_paths, .timeout = 300)
{
	static const char *const fields[] = { "v", "site", "visitor", "session",
	    "type", "url", "referrer", "campaign", "role", "contact", "consent",
	    "ts", "extra" };
	static const char *const values[] = { "null", "1", "-1", "1.5", "true",
	    "\"\"", "\"\\u0000\"", "[]", "{}", "[1,2]", "{\"tel\":[1]}",
	    "18446744073709551616", "\"\\ud800\"", "\"javascript:alert(1)\"",
	    "\"https://evil.example/\"", "\"https://a@shop.example.jp/\"",
	    "\"\\r\\nSet-Cookie: x\"", "{\"tel\":\"090-1234-5678\",\"email\":"
	    "\"\\u0000@x.jp\"}", "NaN", "1e400",
	    "\"\xf0\x9f\x98\x80\xe2\x80\xae\"",
	    "{\"tel\":\"\xef\xbc\x90\xef\xbc\x99\xef\xbc\x90-1234-5678\"}",
	    NULL };
	static const char *const bodies[] = { "", "{", "[]", "null",
	    "\xff\xfe\x01", "{\"v\":1}{\"v\":1}" };
	static const char *const tokens[] = { "", "x", "%00", "..%2f..%2fetc",
	    "%FF", "abc?x=1", "'%20OR%201=1", "%0d%0aX:%20y" };
	static const char *const hooks[] = { "/hooks/sms/standin",
	    "/hooks/email/standin", "/hooks/sms/nope", "/hooks/email/%00" };
	static const char *const links[] = { "/r/", "/o/", "/u/" };
	struct fx	 f;
	struct resp	*r;
	char		 ev[8192], *big, *deep, *b;
	size_t		 i, k, n = 0, taken = 0;

	fx_new(&f, "pro", 0);
	big = repeat("0", 70000);
	deep = repeat("[", 5000);
	cr_assert_not_null(b = malloc(strlen(big) + sizeof(ev)));
	for (k = 0; k < NELEM(fields); k++)
		for (i = 0; i < NELEM(values); i++) {
			/* a capture on the shop's form, one field replaced */
			snprintf(ev, sizeof(ev),
			    "{\"v\":1,\"site\":\"%s\",\"visitor\":"
			    "\"%08zu-4444-4444-8444-444444444444\",\"session\":"
			    "\"%08zu-4444-4444-8444-444444444444\","
			    "\"type\":\"capture\","
			    "\"url\":\"https://shop.example.jp/form\","
			    "\"referrer\":\"\",\"campaign\":null,"
			    "\"role\":\"form\","
			    "\"contact\":{\"tel\":\"090-1234-5678\"},"
			    "\"consent\":true,\"ts\":1763773200000",
			    f.site_pk, k * 100 + i, k * 100 + i);
			snprintf(b, strlen(big) + sizeof(ev),
			    "%s,\"%s\":%s%s%s}", ev,
			    fields[k], values[i] != NULL ? "" : "\"",
			    values[i] != NULL ? values[i] : big,
			    values[i] != NULL ? "" : "\"");
			r = http("POST", "/tag/v1/events", NULL, b,
			    "Content-Type: text/plain;charset=UTF-8");
			no_fault(r, "POST", "/tag/v1/events", b);
			taken += r->status == 204;
			resp_free(r);
			n++;
		}
	/* the event itself is good: what is refused is the field's value */
	cr_assert_gt(taken, NELEM(values), "%zu events taken", taken);
	for (i = 0; i < NELEM(bodies) + 1; i++) {
		r = http("POST", "/tag/v1/events", NULL, i < NELEM(bodies) ?
		    bodies[i] : deep, "Content-Type: text/plain;charset=UTF-8");
		no_fault(r, "POST", "/tag/v1/events", i < NELEM(bodies) ?
		    bodies[i] : "[[[...");
		resp_free(r);
		n++;
	}
	for (k = 0; k < NELEM(links); k++)
		for (i = 0; i < NELEM(tokens); i++) {
			snprintf(ev, sizeof(ev), "%s%s", links[k], tokens[i]);
			r = http("GET", ev, NULL, NULL, NULL);
			cr_assert(r->status > 0 && r->status < 500,
			    "GET %s: %ld",
			    ev, r->status);
			resp_free(r);
			r = http("POST", ev, NULL, "", "Content-Type: "
			    "application/x-www-form-urlencoded");
			cr_assert(r->status > 0 && r->status < 500,
			    "POST %s: %ld",
			    ev, r->status);
			resp_free(r);
			n += 2;
		}
	for (k = 0; k < NELEM(hooks); k++)
		for (i = 0; i < NELEM(values) + NELEM(bodies) + 1; i++) {
			const char *v = i < NELEM(values) ? values[i] :
			    i < NELEM(values) + NELEM(bodies) ?
			    bodies[i - NELEM(values)] : deep;

			snprintf(b, strlen(big) + sizeof(ev),
			    i < NELEM(values) ?
			    "{\"reference\":%s,\"id\":%s,\"status\":%s,"
			    "\"bounce\":%s,\"error\":%s}" : "%s",
			    v != NULL ? v : "\"x\"", v != NULL ? v : "\"x\"",
			    v != NULL ? v : "\"x\"", v != NULL ? v : "\"x\"",
			    v != NULL ? v : "\"x\"");
			r = http("POST", hooks[k], NULL, b, i % 2 == 0 ?
			    "Authorization: Bearer stand-in-hook-token" : NULL);
			cr_assert(r->status > 0 && r->status < 500,
			    "POST %s with %.200s: %ld %.300s", hooks[k], b,
			    r->status, r->body);
			resp_free(r);
			n++;
		}
	cr_log_info("%zu hostile requests", n);
	cr_assert_gt(n, 300);
	free(b);
	free(deep);
	free(big);
}
