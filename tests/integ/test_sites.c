/* Sites, consent settings and the delivery switch. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

Test(sites, list_and_get)
{
	struct fx	 f;
	struct resp	*r;
	char		 p[128];

	fx_new(&f, "pro", 0);
	r = http("GET", "/api/v1/sites", f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 1);
	cr_assert_str_eq(jget(r->json, "data.0.id"), f.site);
	cr_assert_str_eq(jget(r->json, "data.0.public_key"), f.site_pk);
	cr_assert_null(jget(r->json, "next_cursor"));
	cr_assert(json_object_object_get_ex(r->json, "next_cursor", NULL));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/sites/%s", f.site);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200);
	cr_assert_str_eq(jget(r->json, "domain"), "shop.example.jp");
	cr_assert_eq(json_object_array_length(jobj(r->json, "snippets")), 0);
	resp_free(r);
}

Test(sites, snippets_per_campaign_with_nonce)
{
	struct fx	 f;
	struct resp	*r;
	char		 p[128], a[40], b[40];
	const char	*html;

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "one", a);
	fx_campaign(&f, "two", b);
	snprintf(p, sizeof(p), "/api/v1/sites/%s", f.site);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "snippets")), 2);
	cr_assert_str_eq(jget(r->json, "snippets.0.campaign_id"), a);
	html = jget(r->json, "snippets.0.html");
	cr_assert_not_null(strstr(html, f.site_pk));
	cr_assert_not_null(strstr(html, "data-campaign=\"one\""));
	cr_assert_null(strstr(html, "nonce"));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/sites/%s?nonce=true", f.site);
	r = http("GET", p, f.live, NULL, NULL);
	cr_assert_not_null(strstr(jget(r->json, "snippets.1.html"),
	    "<script nonce=\"__CSP_NONCE__\""));
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/sites/%s?nonce=yes", f.site);
	r = http("GET", p, f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "nonce");
	resp_free(r);
}

/*
 * The snippets follow the campaigns: a rename, a copy and an archive show
 * at once; a dry run changes nothing (the list is kept on the site's row
 * by triggers, in the campaign write's transaction).
 */
Test(sites, snippets_follow_campaign_changes)
{
	struct fx	 f;
	struct resp	*r;
	char		 p[128], s[128], a[40], b[40];

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "one", a);
	fx_campaign(&f, "two", b);
	snprintf(s, sizeof(s), "/api/v1/sites/%s", f.site);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s", a);
	r = http("PATCH", p, f.live, "{\"name\":\"新しい \\\"名前\\\"\"}", NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	resp_free(r);
	r = http("GET", s, f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "snippets.0.campaign_name"),
	    "新しい \"名前\"");
	cr_assert_str_eq(jget(r->json, "snippets.1.campaign_key"), "two");
	resp_free(r);
	/* a dry run */
	snprintf(p, sizeof(p),
	    "{\"site_id\":\"%s\",\"key\":\"three\",\"name\":\"3\"}", f.site);
	r = http("POST", "/api/v1/campaigns", f.test, p, NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s/duplicate", b);
	r = http("POST", p, f.live, "{}", NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	cr_assert_eq(ctl(NULL, "campaign set-status --id %s --status archived",
	    a), 0);
	r = http("GET", s, f.live, NULL, NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "snippets")), 2,
	    "%s", r->body);
	cr_assert_str_eq(jget(r->json, "snippets.0.campaign_id"), b);
	cr_assert_str_eq(jget(r->json, "snippets.1.campaign_key"), "two-copy");
	resp_free(r);
}

/*
 * GET /sites/{site_id} n times; each answer's `path` must be `want`
 * (NULL: null).
 * The workers keep their answers by the tenant's data epoch (issue 13):
 * repeated reads land on every worker, kept answers included.
 */
static void
site_reads(const struct fx *f, const char *query, const char *path,
    const char *want, int n)
{
	struct resp	*r;
	char		 p[160];

	snprintf(p, sizeof(p), "/api/v1/sites/%s%s", f->site, query);
	while (n-- > 0) {
		r = http("GET", p, f->live, NULL, NULL);
		cr_assert_eq(r->status, 200, "%s", r->body);
		if (want == NULL)
			cr_assert_null(jget(r->json, path), "%s", r->body);
		else
			cr_assert_str_eq(jget(r->json, path), want, "%s",
			    r->body);
		resp_free(r);
	}
}

/*
 * A change to a site shows in the next read on every worker, whatever
 * made it: a campaign's change through the API (its trigger rewrites the
 * site's snippets), SQL outside the API (the applier's sending hold), an
 * operator's command; the nonce and plain answers are kept apart.
 */
Test(sites, kept_answers_follow_every_change)
{
	struct fx	 f;
	struct resp	*r;
	char		 p[128], a[40], html[512];

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "one", a);
	site_reads(&f, "", "snippets.0.campaign_name", "キャンペーン one", 12);
	site_reads(&f, "?nonce=true", "snippets.0.campaign_name", "キャンペーン one",
	    12);
	/* a campaign's trigger rewrites the site's snippets */
	snprintf(p, sizeof(p), "/api/v1/campaigns/%s", a);
	r = http("PATCH", p, f.live, "{\"name\":\"いち\"}", NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	resp_free(r);
	site_reads(&f, "", "snippets.0.campaign_name", "いち", 12);
	site_reads(&f, "?nonce=true", "snippets.0.campaign_name", "いち", 12);
	/* SQL outside the API */
	sql("UPDATE sites SET sending_held_at = '2026-11-26 01:02:03' WHERE id "
	    "= '%s'",
	    f.site);
	site_reads(&f, "", "sending_held_at", "2026-11-26T01:02:03Z", 12);
	/* an operator's command */
	cr_assert_eq(ctl(NULL, "site release --id %s", f.site), 0);
	site_reads(&f, "", "sending_held_at", NULL, 12);
	/* the two variants apart */
	snprintf(p, sizeof(p), "/api/v1/sites/%s?nonce=true", f.site);
	r = http("GET", p, f.live, NULL, NULL);
	snprintf(html, sizeof(html), "%s", jget(r->json, "snippets.0.html"));
	cr_assert(strstr(html, "nonce=") != NULL, "%s", html);
	resp_free(r);
	snprintf(p, sizeof(p), "/api/v1/sites/%s", f.site);
	r = http("GET", p, f.live, NULL, NULL);
	snprintf(html, sizeof(html), "%s", jget(r->json, "snippets.0.html"));
	cr_assert(strstr(html, "nonce=") == NULL, "%s", html);
	resp_free(r);
}

Test(sites, other_tenants_site_is_404)
{
	struct fx	 f, g;
	struct resp	*r;
	char		 p[128];

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	snprintf(p, sizeof(p), "/api/v1/sites/%s", g.site);
	r = http("GET", p, f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "site_id");
	resp_free(r);
	r = http("GET", "/api/v1/sites/01900000-0000-7000-8000-000000000000",
	    f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "site_id");
	resp_free(r);
}

Test(sites, consent_settings)
{
	struct fx	 f;
	struct resp	*r;

	fx_new(&f, "pro", 0);
	r = http("GET", "/api/v1/consent_settings", f.live, NULL, NULL);
	cr_assert_eq(r->status, 200);
	cr_assert_str_eq(jget(r->json, "consent_mode"), "notice_optout");
	cr_assert_str_eq(jget(r->json, "consent_template_key"), "standard");
	cr_assert_str_eq(jget(r->json, "template.key"), "standard");
	cr_assert_eq(json_object_array_length(jobj(r->json, "templates")), 3);
	cr_assert_not_null(jobj(r->json, "optout_text"));
	cr_assert_eq(json_object_array_length(jobj(r->json, "publish_failed")),
	    0);
	cr_assert_eq(json_object_get_type(jobj(r->json,
	    "consent_checkbox_enabled")),
	    json_type_boolean);
	resp_free(r);
}

Test(sites, delivery_status_follows_the_switch)
{
	struct fx	 f;
	struct resp	*r;

	fx_new(&f, "pro", 0);
	r = http("GET", "/api/v1/delivery_status", f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "mode"), "off");
	cr_assert(!json_object_get_boolean(jobj(r->json, "enabled")));
	cr_assert_null(jget(r->json, "enabled_at"));
	resp_free(r);
	cr_assert_eq(ctl(NULL, "delivery-switch --tenant %s --mode test_only",
	    f.tenant), 0);
	r = http("GET", "/api/v1/delivery_status", f.live, NULL, NULL);
	cr_assert_str_eq(jget(r->json, "mode"), "test_only");
	cr_assert(json_object_get_boolean(jobj(r->json, "enabled")));
	cr_assert_not_null(jget(r->json, "enabled_at"));
	resp_free(r);
	cr_assert_eq(ctl(NULL, "delivery-switch --tenant %s --mode off",
	    f.tenant), 0);
	r = http("GET", "/api/v1/delivery_status", f.live, NULL, NULL);
	cr_assert_null(jget(r->json, "enabled_at"));
	resp_free(r);
}
