/*
 * The funnel report (contract: Reports, FunnelReportOut) against rows of
 * known times: each number equals the count made here by construction
 * and by a recount of the raw rows in another form (CONVERT_TZ on the
 * JST day, not the report's half-open UTC range).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "formback.h"
#include "harness.h"

/* One tag event at `at` (UTC, SQL form). */
static void
event(const struct fx *f, const char *campaign, const char *session,
    const char *type, const char *at)
{
	char	 c[600];

	if (campaign != NULL)
		snprintf(c, sizeof(c), "'%s'", campaign);
	else
		snprintf(c, sizeof(c), "NULL");
	sql("INSERT INTO tag_events (id, tenant_id, site_id, campaign_id, "
	    "visitor_id, session_id, event_type, url, url_path, received_at) "
	    "VALUES (UUID(), '%s', '%s', %s, 'v-%s', '%s', '%s', "
	    "'https://shop.example/f', '/f', '%s')",
	    f->tenant, f->site, c, session, session, type, at);
}

/* A lead of `campaign` abandoned and maybe converted at those times. */
static const char *
lead(const struct fx *f, const char *campaign, const char *abandoned,
    const char *converted, const char *source)
{
	static char	 id[40];
	char	 ab[64], cv[64], src[64];

	snprintf(ab, sizeof(ab), abandoned != NULL ? "'%s'" : "NULL%s",
	    abandoned != NULL ? abandoned : "");
	snprintf(cv, sizeof(cv), converted != NULL ? "'%s'" : "NULL%s",
	    converted != NULL ? converted : "");
	snprintf(src, sizeof(src), source != NULL ? "'%s'" : "NULL%s",
	    source != NULL ? source : "");
	snprintf(id, sizeof(id), "%s", sql("SELECT UUID()"));
	sql("INSERT INTO leads (id, tenant_id, site_id, campaign_id, "
	    "visitor_id, status, consent_state, pii_state, abandoned_at, "
	    "converted_at, conversion_source, captured_at, created_at) VALUES "
	    "('%s', '%s', '%s', '%s', UUID(), '%s', 'notice_optout', 'absent', "
	    "%s, %s, %s, %s, '2029-12-31 10:00:00')", id,
	    f->tenant, f->site, campaign,
	    converted != NULL ? "converted" : "abandoned", ab, cv, src, ab);
	return id;
}

/* A message of the lead sent at `at`; opened or clicked when asked. */
static void
message(const struct fx *f, const char *lead_id, const char *campaign,
    const char *scenario, const char *step, int step_no, const char *channel,
    const char *status, const char *at, const char *hit)
{
	char	 id[40], st[64];

	snprintf(id, sizeof(id), "%s", sql("SELECT UUID()"));
	snprintf(st, sizeof(st), step != NULL ? "'%s'" : "NULL%s",
	    step != NULL ? step : "");
	sql("INSERT INTO deliveries (id, tenant_id, lead_id, campaign_id, "
	    "scenario_id, step_id, step_no, channel, status, pii_state, "
	    "scheduled_at, sent_at) VALUES ('%s', '%s', '%s', '%s', '%s', %s, "
	    "%d, '%s', '%s', 'absent', '%s', '%s')", id,
	    f->tenant, lead_id, campaign, scenario, st, step_no, channel,
	    status, at, at);
	if (hit != NULL)
		sql("INSERT INTO links (token, tenant_id, delivery_id, "
		    "lead_id, kind, hits, first_hit_at) VALUES "
		    "(LEFT(REPLACE(UUID(), '-', ''), 10), '%s', '%s', '%s', "
		    "'%s', 1, '%s')", f->tenant, id, lead_id, hit, at);
}

static long
num(json_object *o, const char *path)
{
	const char	*v = jget(o, path);

	cr_assert_not_null(v, "%s missing", path);
	return strtol(v, NULL, 10);
}

/* The face of this key. */
static long
face(json_object *o, const char *key)
{
	char	 p[64];
	int	 i;

	for (i = 0; i < 10; i++) {
		snprintf(p, sizeof(p), "faces.%d.key", i);
		if (jget(o, p) != NULL && strcmp(jget(o, p), key) == 0) {
			snprintf(p, sizeof(p), "faces.%d.value", i);
			return num(o, p);
		}
	}
	cr_assert_fail("no face %s", key);
	return -1;
}

Test(reports, funnel_counts_each_by_its_time)
{
	struct fx	 f, g;
	struct resp	*r;
	char		 c1[40], c2[40], cg[40], path[512], lid[40], sc[40];
	/* 2030-01-01 JST: [2029-12-31 15:00Z, 2030-01-01 15:00Z) */
	const char	*q = "from=2030-01-01T00:00:00%2B09:00"
	    "&to=2030-01-02T00:00:00%2B09:00";

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	fx_campaign(&f, "rpa", c1);
	fx_campaign(&f, "rpb", c2);
	/* the edges: a microsecond before, the first, the last, the end */
	event(&f, c1, "s1", "page_view", "2029-12-31 14:59:59.999999");
	event(&f, c1, "s1", "page_view", "2029-12-31 15:00:00");
	event(&f, c1, "s1", "page_view", "2029-12-31 16:00:00");
	event(&f, c1, "s1", "form_start", "2029-12-31 16:00:01");
	event(&f, c1, "s1", "capture", "2029-12-31 16:00:02");
	event(&f, c1, "s1", "capture", "2029-12-31 16:00:03");
	event(&f, c1, "s2", "page_view", "2030-01-01 14:59:59.999999");
	event(&f, c1, "s2", "form_start", "2030-01-01 15:00:00");
	event(&f, c2, "s3", "page_view", "2030-01-01 01:00:00");
	event(&f, c2, "s3", "form_start", "2030-01-01 01:00:01");
	event(&f, c2, "s3", "conversion", "2030-01-01 01:05:00");
	event(&f, NULL, "s4", "page_view", "2030-01-01 02:00:00");
	event(&f, NULL, "s4", "page_view", "2030-01-01 02:01:00");
	/* another tenant's rows never count */
	fx_campaign(&g, "rpg", cg);
	event(&g, cg, "s9", "page_view", "2030-01-01 01:00:00");
	/* leads: abandoned in range and recovered in it; abandoned before
	 * and converted in it (recovered: its conversion is in range);
	 * converted by another campaign's conversion; by the same contact */
	snprintf(lid, sizeof(lid), "%s", lead(&f, c1, "2029-12-31 20:00:00",
	    "2030-01-01 03:00:00", "tag"));
	lead(&f, c1, "2029-12-30 20:00:00", "2030-01-01 04:00:00", "tag");
	/* its messages: one before its conversion, one after (a fault) */
	snprintf(sc, sizeof(sc), "%s", sql("SELECT UUID()"));
	message(&f, lid, c1, sc, NULL, 1, "sms", "sent", "2029-12-31 21:00:00",
	    NULL);
	message(&f, lid, c1, sc, NULL, 2, "email", "sent",
	    "2030-01-01 04:00:00", NULL);
	lead(&f, c1, "2030-01-01 05:00:00", NULL, NULL);
	lead(&f, c2, "2029-12-31 16:00:00", "2030-01-01 06:00:00",
	    "tag_visitor");
	lead(&f, c2, NULL, "2030-01-01 07:00:00", "hash_match");
	/* the end: out */
	lead(&f, c2, "2030-01-01 15:00:00", NULL, NULL);

	snprintf(path, sizeof(path),
	    "/api/v1/reports/funnel?%s&group_by=campaign", q);
	r = http("GET", path, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "range.from"), "2029-12-31T15:00:00Z");
	cr_assert_str_eq(jget(r->json, "range.to"), "2030-01-01T15:00:00Z");
	/* visits (sessions) per stage, each in the range of its first event
	 * of the stage: s2, s3, s4 first viewed in it (s1 before it); s1,
	 * s3 started (s2's start is at the end, out); s1 captured */
	cr_assert_eq(face(r->json, "visited"), 3);
	cr_assert_eq(face(r->json, "form_started"), 2);
	cr_assert_eq(face(r->json, "captured"), 1);
	cr_assert_eq(face(r->json, "abandoned"), 3);
	cr_assert_eq(face(r->json, "recovered"), 2);
	cr_assert_eq(num(r->json, "volumes.page_view"), 6);
	cr_assert_eq(num(r->json, "volumes.capture"), 2);
	cr_assert_eq(num(r->json, "conversion_events"), 1);
	cr_assert_eq(num(r->json, "converted"), 2);
	cr_assert_eq(num(r->json, "converted_spillover"), 1);
	cr_assert_eq(num(r->json, "converted_hash_match"), 1);
	cr_assert_eq(num(r->json, "excluded_no_session"), 0);
	cr_assert_eq(num(r->json, "sent_after_conversion"), 1);
	cr_assert_eq(face(r->json, "messaged"), 1);
	cr_assert_eq(num(r->json, "volumes.message_sent"), 2);
	cr_assert_str_eq(jget(r->json, "unassigned_share"), "0.3333");
	cr_assert_str_eq(jget(r->json, "metrics.0.key"), "form_start_rate");
	cr_assert_str_eq(jget(r->json, "metrics.0.value"), "0.6667");
	/* the same by a recount of the raw rows, on the JST day */
	cr_assert_eq(num(r->json, "volumes.page_view"), strtol(sql(
	    "SELECT COUNT(*) FROM tag_events WHERE tenant_id = '%s' AND "
	    "event_type = 'page_view' AND DATE(CONVERT_TZ(received_at, "
	    "'+00:00', '+09:00')) = '2030-01-01'", f.tenant), NULL, 10));
	cr_assert_eq(face(r->json, "visited"), strtol(sql(
	    "SELECT COUNT(*) FROM (SELECT MIN(received_at) AS t FROM "
	    "tag_events WHERE tenant_id = '%s' AND event_type = 'page_view' "
	    "GROUP BY site_id, session_id) v WHERE DATE(CONVERT_TZ(t, "
	    "'+00:00', '+09:00')) = '2030-01-01'", f.tenant),
	    NULL, 10));
	cr_assert_eq(face(r->json, "abandoned"), strtol(sql(
	    "SELECT COUNT(*) FROM leads WHERE tenant_id = '%s' AND "
	    "DATE(CONVERT_TZ(abandoned_at, '+00:00', '+09:00')) = "
	    "'2030-01-01'", f.tenant), NULL, 10));
	/* groups: c1, c2 and the pages under no campaign */
	{
		int		 i, seen = 0;
		char		 p[64];

		for (i = 0; i < 3; i++) {
			const char	*id;

			snprintf(p, sizeof(p), "groups.%d.campaign_id", i);
			id = jget(r->json, p);
			snprintf(p, sizeof(p), "groups.%d.page_view", i);
			if (id == NULL) {
				cr_assert_eq(num(r->json, p), 2);
				seen |= 1;
			} else if (strcmp(id, c1) == 0) {
				cr_assert_eq(num(r->json, p), 3);
				snprintf(p, sizeof(p), "groups.%d.abandoned",
				    i);
				cr_assert_eq(num(r->json, p), 2);
				snprintf(p, sizeof(p), "groups.%d.converted",
				    i);
				cr_assert_eq(num(r->json, p), 2);
				seen |= 2;
			} else if (strcmp(id, c2) == 0) {
				snprintf(p, sizeof(p), "groups.%d.conversion",
				    i);
				cr_assert_eq(num(r->json, p), 1);
				snprintf(p, sizeof(p),
				    "groups.%d.converted_spillover", i);
				cr_assert_eq(num(r->json, p), 1);
				seen |= 4;
			}
		}
		cr_assert_eq(seen, 7, "%s", r->body);
	}
	resp_free(r);
	/* a campaign filter: its rows only, no unassigned share */
	snprintf(path, sizeof(path), "/api/v1/reports/funnel?%s&campaign_id=%s",
	    q, c2);
	r = http("GET", path, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_eq(face(r->json, "visited"), 1);
	cr_assert_null(jget(r->json, "unassigned_share"));
	cr_assert_null(jget(r->json, "groups"));
	resp_free(r);
}

/* The body of GET /reports/funnel?<query> of f, to free. */
static char *
funnel_body(const struct fx *f, const char *query)
{
	struct resp	*r;
	char		 path[600], *body;

	snprintf(path, sizeof(path), "/api/v1/reports/funnel?%s", query);
	r = http("GET", path, f->live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s: %s", query, r->body);
	cr_assert_not_null(body = strdup(r->body));
	resp_free(r);
	return body;
}

/* The tenant's traffic rows of 2026-06-10 JST, in one string. */
#define TRAFFIC_OF_DAY "SELECT GROUP_CONCAT(site_key, campaign_key, " \
    "page_view, " \
	"visits, form_start, capture ORDER BY site_key, campaign_key) FROM " \
	"report_traffic_days WHERE tenant_id = '%s' AND day = '2026-06-10'"

/*
 * formback-aggregate rolls the hours that can no longer change, and the
 * funnel answers from them and the raw edges exactly what it answered
 * from the raw rows alone: for ranges on and off the hour, per campaign,
 * under a campaign or a site; so does the daily report's traffic.  Parked
 * events sent again take their hours back.
 */
Test(reports, funnel_from_hourly_rollups_equals_the_raw_count)
{
	struct fx	 f;
	char		 c1[40], c2[40], q[6][400], *before[6], *after;
	char		 cmd[400], traffic[2048];
	int		 i, k;

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "rh1", c1);
	fx_campaign(&f, "rh2", c2);
	/* 2026-06-10 UTC: sessions across hours and campaigns */
	event(&f, c1, "ha", "page_view", "2026-06-10 00:10:00");
	event(&f, c1, "ha", "page_view", "2026-06-10 01:20:00");
	event(&f, c1, "ha", "form_start", "2026-06-10 01:21:00");
	event(&f, c1, "ha", "capture", "2026-06-10 02:05:00");
	event(&f, c2, "hb", "page_view", "2026-06-10 00:59:59.500000");
	event(&f, c1, "hb", "page_view", "2026-06-10 01:00:00");
	event(&f, c2, "hb", "form_start", "2026-06-10 03:30:00");
	event(&f, NULL, "hc", "page_view", "2026-06-10 01:30:00");
	event(&f, NULL, "hc", "page_view", "2026-06-10 04:10:00");
	event(&f, c1, "", "page_view", "2026-06-10 02:00:00");
	event(&f, c2, "he", "conversion", "2026-06-10 06:00:00");
	event(&f, c2, "he", "page_view", "2026-06-10 07:15:00");
	sql("UPDATE tag_events SET session_id = visitor_id WHERE tenant_id = "
	    "'%s' AND session_id = 'he'", f.tenant);
	snprintf(q[0], sizeof(q[0]),
	    "from=2026-06-10T00:30:00Z&to=2026-06-10T05:45:00Z");
	snprintf(q[1], sizeof(q[1]),
	    "from=2026-06-10T00:00:00Z&to=2026-06-11T00:00:00Z"
	    "&group_by=campaign");
	snprintf(q[2], sizeof(q[2]), "from=2026-06-10T09:30:00%%2B09:00"
	    "&to=2026-06-10T16:00:01%%2B09:00&campaign_id=%s", c1);
	snprintf(q[3], sizeof(q[3]),
	    "from=2026-06-10T00:00:00Z&to=2026-06-10T03:00:00Z"
	    "&site_id=%s&group_by=campaign", f.site);
	snprintf(q[4], sizeof(q[4]),
	    "from=2026-06-10T01:00:00Z&to=2026-06-10T01:30:00Z");
	snprintf(q[5], sizeof(q[5]),
	    "from=2026-06-09T00:00:00Z&to=2026-06-12T00:00:00Z"
	    "&campaign_id=%s", c2);
	for (i = 0; i < 6; i++)
		before[i] = funnel_body(&f, q[i]);
	/* counted from the raw rows: [00:30, 05:45) holds the first views
	 * of hb (00:59:59.5) and hc; ha's is before it */
	{
		struct resp	*r;
		char		 path[600];

		snprintf(path, sizeof(path), "/api/v1/reports/funnel?%s", q[0]);
		r = http("GET", path, f.live, NULL, NULL);
		cr_assert_eq(face(r->json, "visited"), 2);
		cr_assert_eq(face(r->json, "form_started"), 2);
		cr_assert_eq(num(r->json, "volumes.page_view"), 6);
		cr_assert_eq(num(r->json, "excluded_no_session"), 1);
		resp_free(r);
		/* under c1, hb's first view of c1 is at 01:00: in */
		snprintf(path, sizeof(path), "/api/v1/reports/funnel?%s", q[2]);
		r = http("GET", path, f.live, NULL, NULL);
		cr_assert_eq(face(r->json, "visited"), 1, "%s", r->body);
		resp_free(r);
	}
	/* a pass at 00:04 counts the JST day of them all (from 06-09 15:00Z)
	 * from the raw rows: no hour has ended five minutes before */
	snprintf(cmd, sizeof(cmd),
	    "\"$FB_CTL_DIR/formback-aggregate\" --tenant %s "
	    "--now 2026-06-10T00:04:00Z", f.tenant);
	cr_assert_eq(system(cmd), 0);
	snprintf(traffic, sizeof(traffic), "%s", sql(TRAFFIC_OF_DAY, f.tenant));
	cr_assert_str_eq(sql("SELECT visits FROM report_traffic_days WHERE "
	    "tenant_id = '%s' AND day = '2026-06-10' AND site_key = "
	    "'*'", f.tenant), "4");
	/*
	 * a pass at 05:00: the hours that ended by 04:55, from the hour of
	 * the first event, [00:00, 04:00); then on to 23:00 at 06-11 00:00
	 */
	for (k = 0; k < 2; k++) {
		snprintf(cmd, sizeof(cmd),
		    "\"$FB_CTL_DIR/formback-aggregate\" --tenant %s "
		    "--now %s", f.tenant, k == 0 ? "2026-06-10T05:00:00Z" :
		    "2026-06-11T00:00:00Z");
		cr_assert_eq(system(cmd), 0);
		cr_assert_str_eq(sql("SELECT CONCAT(rolled_from, ' ', "
		    "rolled_until) FROM report_hour_state WHERE tenant_id = "
		    "'%s'", f.tenant), k == 0 ?
		    "2026-06-10 00:00:00 2026-06-10 04:00:00" :
		    "2026-06-10 00:00:00 2026-06-10 23:00:00");
		cr_assert_neq(strtol(sql("SELECT COUNT(*) FROM "
		    "report_event_hours WHERE tenant_id = "
		    "'%s'", f.tenant), NULL, 10), 0);
		for (i = 0; i < 6; i++) {
			after = funnel_body(&f, q[i]);
			cr_assert_str_eq(after, before[i], "%s", q[i]);
			free(after);
		}
	}
	/* the pass at 06-11 00:00Z counted the day again from the hours */
	cr_assert_str_eq(sql(TRAFFIC_OF_DAY, f.tenant), traffic);
	/* the rolled rows recount the raw ones: first views per hour */
	snprintf(cmd, sizeof(cmd), "%s", sql("SELECT SUM(visits) FROM "
	    "report_event_hours WHERE tenant_id = '%s' AND campaign_key = "
	    "'*'", f.tenant));
	cr_assert_str_eq(cmd, "4");
	cr_assert_str_eq(cmd, sql("SELECT "
	    "COUNT(*) FROM (SELECT MIN(received_at) AS t FROM tag_events WHERE "
	    "tenant_id = '%s' AND event_type = 'page_view' AND session_id <> "
	    "'' GROUP BY site_id, session_id) v WHERE t < '2026-06-10 "
	    "23:00:00'", f.tenant));
	/* a parked event of 02:30 sent again: its hour and those after it
	 * are taken back (its site is gone, so applying it drops it) */
	sql("INSERT INTO tag_ingest (id, tenant_id, site_id, visitor_id, "
	    "session_id, event_type, url, pii_key_id, attempts, received_at) "
	    "VALUES (UUID(), '%s', UUID(), 'hx', 'hx', 'page_view', "
	    "'https://shop.example/f', 1, 3, '2026-06-10 02:30:00')", f.tenant);
	{
		json_object	*out;

		cr_assert_eq(ctl(&out, "tag-queue retry-parked"), 0);
		json_object_put(out);
	}
	cr_assert_str_eq(sql("SELECT rolled_until FROM report_hour_state WHERE "
	    "tenant_id = '%s'", f.tenant), "2026-06-10 02:00:00");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM report_event_hours WHERE "
	    "tenant_id = '%s' AND hour >= '2026-06-10 "
	    "02:00:00'", f.tenant), "0");
	for (i = 0; i < 6; i++) {
		after = funnel_body(&f, q[i]);
		cr_assert_str_eq(after, before[i], "%s", q[i]);
		free(after);
		free(before[i]);
	}
	sql("DELETE FROM tag_ingest WHERE tenant_id = '%s' AND visitor_id = "
	    "'hx'", f.tenant);
}

Test(reports, funnel_refuses_bad_ranges)
{
	struct fx	 f, g;
	struct resp	*r;
	char		 path[512], c[40];

	fx_new(&f, "pro", 0);
	fx_new(&g, "pro", 0);
	r = http("GET", "/api/v1/reports/funnel?from=2030-01-01&to=2030-01-02",
	    f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "from");
	resp_free(r);
	r = http("GET",
	    "/api/v1/reports/funnel?from=2030-01-01T00:00:00"
	    "&to=2030-01-02T00:00:00Z",
	    f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "from");
	resp_free(r);
	r = http("GET", "/api/v1/reports/funnel?to=2030-01-02T00:00:00Z",
	    f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "from");
	resp_free(r);
	r = http("GET",
	    "/api/v1/reports/funnel?from=2030-01-02T00:00:00Z"
	    "&to=2030-01-02T00:00:00Z",
	    f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "to");
	resp_free(r);
	r = http("GET",
	    "/api/v1/reports/funnel?from=2030-01-01T00:00:00Z"
	    "&to=2030-06-01T00:00:00Z",
	    f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "to");
	resp_free(r);
	fx_campaign(&g, "other", c);
	snprintf(path, sizeof(path),
	    "/api/v1/reports/funnel?from=2030-01-01T00:00:00Z"
	    "&to=2030-01-02T00:00:00Z&campaign_id=%s", c);
	r = http("GET", path, f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "campaign_id");
	resp_free(r);
	snprintf(path, sizeof(path),
	    "/api/v1/reports/funnel?from=2030-01-01T00:00:00Z"
	    "&to=2030-01-02T00:00:00Z&site_id=%s", g.site);
	r = http("GET", path, f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "site_id");
	resp_free(r);
	r = http("GET",
	    "/api/v1/reports/funnel?from=2030-01-01T00:00:00Z"
	    "&to=2030-01-02T00:00:00Z&group_by=site", f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid",
	    "group_by");
	resp_free(r);
}

Test(reports, daily_by_jst_day)
{
	struct fx	 f;
	struct resp	*r;
	char		 c1[40], c3[40], sc[40], path[512], l1[40], l2[40];

	fx_new(&f, "pro", 0);
	fx_campaign(&f, "dly", c1);
	snprintf(sc, sizeof(sc), "%s", sql("SELECT UUID()"));
	/* 2030-03-01 JST starts at 2030-02-28 15:00Z */
	/* 02-28 JST */
	event(&f, c1, "d1", "page_view", "2030-02-28 14:59:59");
	/* 03-01 */
	event(&f, c1, "d1", "page_view", "2030-02-28 15:00:00");
	/* 03-01 */
	event(&f, c1, "d2", "page_view", "2030-03-01 14:00:00");
	/* 03-02 */
	event(&f, c1, "d2", "page_view", "2030-03-01 15:00:00");
	snprintf(l1, sizeof(l1), "%s", lead(&f, c1, "2030-02-28 16:00:00",
	    /* abandoned 03-01, recovered 03-02 */
	    "2030-03-01 16:00:00", "tag"));
	snprintf(l2, sizeof(l2), "%s",
	    lead(&f, c1, "2030-03-01 01:00:00", NULL, NULL));
	/* the only lead of another campaign, only captured: its sums of
	 * abandonment and conversion are of nothing but NULLs */
	fx_campaign(&f, "dl3", c3);
	sql("INSERT INTO leads (id, tenant_id, site_id, campaign_id, "
	    "visitor_id, status, consent_state, pii_state, captured_at, "
	    "created_at) VALUES (UUID(), '%s', '%s', '%s', UUID(), 'captured', "
	    "'notice_optout', 'absent', '2030-03-01 03:00:00', '2030-03-01 "
	    "03:00:00')", f.tenant, f.site, c3);
	message(&f, l1, c1, sc, NULL, 1, "sms", "delivered",
	    "2030-02-28 17:00:00", "click");
	message(&f, l1, c1, sc, NULL, 2, "email", "sent", "2030-02-28 18:00:00",
	    "open");
	message(&f, l2, c1, sc, NULL, 1, "sms", "sent", "2030-03-01 02:00:00",
	    NULL);
	/* a fault to count: l1's third message left after it converted */
	message(&f, l1, c1, sc, NULL, 3, "sms", "sent", "2030-03-01 17:00:00",
	    NULL);

	/* before formback-aggregate: nothing computed */
	snprintf(path, sizeof(path),
	    "/api/v1/reports/daily?from=2030-02-28&to=2030-03-03"
	    "&campaign_id=%s", c1);
	r = http("GET", path, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_null(jget(r->json, "refreshed_at"));
	cr_assert_str_eq(jget(r->json, "not_computed_dates.0"), "2030-02-28");
	cr_assert_str_eq(jget(r->json, "not_computed_dates.2"), "2030-03-02");
	cr_assert_str_eq(jget(r->json, "days.0.computed"), "false");
	cr_assert_null(jget(r->json, "days.0.counts.traffic"));
	cr_assert_null(jget(r->json, "days.0.counts.delivery.sent"));
	resp_free(r);
	/* the pass of 2030-03-03 JST: the three days before it and that day */
	snprintf(path, sizeof(path),
	    "\"$FB_CTL_DIR/formback-aggregate\" --tenant %s "
	    "--now 2030-03-03T01:00:00Z", f.tenant);
	cr_assert_eq(system(path), 0);
	/* a rerun writes the same rows */
	cr_assert_eq(system(path), 0);
	snprintf(path, sizeof(path),
	    "/api/v1/reports/daily?from=2030-02-28&to=2030-03-03"
	    "&campaign_id=%s&group_by=step", c1);
	r = http("GET", path, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "range.timezone"), "Asia/Tokyo");
	cr_assert_null(jget(r->json, "not_computed_dates.0"));
	cr_assert_not_null(jget(r->json, "refreshed_at"));
	cr_assert_str_eq(jget(r->json, "days.0.date"), "2030-02-28");
	cr_assert_str_eq(jget(r->json, "days.2.date"), "2030-03-02");
	cr_assert_null(jget(r->json, "days.3.date"));
	cr_assert_str_eq(jget(r->json, "days.0.counts.traffic.page_view"), "1");
	cr_assert_str_eq(jget(r->json, "days.1.counts.traffic.page_view"), "2");
	/* d1 first viewed on 02-28 JST, d2 on 03-01: one visit each day */
	cr_assert_str_eq(jget(r->json, "days.0.counts.traffic.visits"), "1");
	cr_assert_str_eq(jget(r->json, "days.1.counts.traffic.visits"), "1");
	cr_assert_str_eq(jget(r->json, "days.2.counts.traffic.visits"), "0");
	cr_assert_str_eq(jget(r->json, "days.2.counts.traffic.page_view"), "1");
	cr_assert_str_eq(jget(r->json, "days.1.counts.capture.abandoned"), "2");
	cr_assert_str_eq(jget(r->json, "days.1.counts.capture.captured"), "2");
	cr_assert_str_eq(jget(r->json, "days.2.counts.conversion.converted"),
	    "1");
	cr_assert_str_eq(jget(r->json, "days.1.counts.conversion.converted"),
	    "0");
	/*
	 * messages: 03-01 JST all three (17:00Z and 18:00Z on 02-28 are 03-01)
	 */
	cr_assert_str_eq(jget(r->json, "days.1.counts.delivery.sent"), "3");
	cr_assert_str_eq(jget(r->json, "days.1.counts.delivery.delivered"),
	    "1");
	cr_assert_str_eq(jget(r->json, "days.1.counts.delivery.clicked"), "1");
	cr_assert_str_eq(jget(r->json, "days.1.counts.delivery.converted"),
	    "2");
	/* l1 converted 03-02 01:00 JST; its third message left at 02:00 */
	cr_assert_str_eq(jget(r->json, "days.1.sent_after_conversion"), "0");
	cr_assert_str_eq(jget(r->json, "days.2.sent_after_conversion"), "1");
	cr_assert_str_eq(jget(r->json, "sent_after_conversion"), "1");
	cr_assert_str_eq(jget(r->json, "days.1.delivery_by_channel.sms.sent"),
	    "2");
	cr_assert_null(jget(r->json, "days.1.delivery_by_channel.sms.opened"));
	cr_assert_str_eq(jget(r->json,
	    "days.1.delivery_by_channel.email.opened"), "1");
	cr_assert_str_eq(jget(r->json, "days.0.computed"), "true");
	cr_assert_not_null(jget(r->json, "notes.recovered_cv"));
	/* steps: no step row exists any more, so both are deleted */
	cr_assert_str_eq(jget(r->json, "groups.0.step_no"), "1");
	cr_assert_str_eq(jget(r->json, "groups.0.step_deleted"), "true");
	cr_assert_str_eq(jget(r->json, "groups.0.counts.sent"), "2");
	cr_assert_str_eq(jget(r->json, "groups.1.channel"), "email");
	/* a recount of the raw rows on the JST day */
	cr_assert_str_eq(jget(r->json, "days.1.counts.delivery.sent"), sql(
	    "SELECT COUNT(*) FROM deliveries WHERE tenant_id = '%s' AND "
	    "DATE(CONVERT_TZ(sent_at, '+00:00', '+09:00')) = "
	    "'2030-03-01'", f.tenant));
	resp_free(r);
	/* a scenario filter: the faces not about messages are null */
	sql("INSERT INTO scenarios (id, tenant_id, campaign_id, name, status) "
	    "VALUES ('%s', '%s', '%s', 'rp', 'draft')", sc, f.tenant, c1);
	snprintf(path, sizeof(path),
	    "/api/v1/reports/daily?from=2030-03-01&to=2030-03-02"
	    "&scenario_id=%s", sc);
	r = http("GET", path, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_null(jget(r->json, "days.0.counts.traffic"));
	cr_assert_null(jget(r->json, "days.0.counts.capture.captured"));
	cr_assert_null(jget(r->json, "converted_spillover"));
	cr_assert_str_eq(jget(r->json, "days.0.counts.delivery.sent"), "3");
	resp_free(r);
	/* bad ranges */
	r = http("GET", "/api/v1/reports/daily?from=2030-02-30&to=2030-03-02",
	    f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "from");
	resp_free(r);
	r = http("GET",
	    "/api/v1/reports/daily?from=2030-03-01T00:00:00Z&to=2030-03-02",
	    f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "from");
	resp_free(r);
	r = http("GET", "/api/v1/reports/daily?from=2030-03-02&to=2030-03-02",
	    f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "to");
	resp_free(r);
	r = http("GET", "/api/v1/reports/daily?from=2030-01-01&to=2031-01-03",
	    f.live, NULL, NULL);
	expect_error(r, 400, "invalid_request", "parameter_invalid", "to");
	resp_free(r);
	r = http("GET",
	    "/api/v1/reports/daily?from=2030-01-01&to=2030-01-03&scenario_id="
	    "0190a000-0000-7000-8000-0000000000aa", f.live, NULL, NULL);
	expect_error(r, 404, "not_found", "not_found", "scenario_id");
	resp_free(r);
}

static void
idle_tenants_gone(void)
{
	sql("DELETE FROM tenants WHERE name = 'idle-aggregate'");
}

/* The daily report of one day as the pass counted it, a count or "null". */
static const char *
daily_count(const struct fx *f, const char *day, const char *count)
{
	static char	 v[64];
	struct resp	*r;
	char		 path[256], next[32];
	const char	*x;
	int64_t		 t = time_jst_date(day);

	time_iso8601(t + 86400 + TIME_JST, next);
	next[10] = '\0';
	snprintf(path, sizeof(path), "/api/v1/reports/daily?from=%s&to=%s", day,
	    next);
	r = http("GET", path, f->live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	x = jget(r->json, count);
	snprintf(v, sizeof(v), "%s", x != NULL ? x : "null");
	resp_free(r);
	return v;
}

/*
 * formback-aggregate follows changes, not tenants (issue 40): among 1,500
 * tenants without events, the one created last has its days counted by
 * the first pass, exactly as a recount of the raw rows; the idle tenants
 * cost nothing (no row of theirs is written); a receipt after the pass
 * marks its day again, and the report says so until the next pass.
 */
Test(reports, aggregate_follows_marks_among_many_tenants, .timeout = 240,
    .fini = idle_tenants_gone)
{
	struct fx	 f;
	char		 c[40], sc[40], l[40], cmd[200];

	sql("INSERT INTO tenants (id, name, plan) SELECT UUID(), "
	    "'idle-aggregate', 'free' FROM seq_1_to_1500");
	fx_new(&f, "pro", 0);
	fx_campaign(&f, "mk", c);
	snprintf(sc, sizeof(sc), "%s", sql("SELECT UUID()"));
	event(&f, c, "m1", "page_view", "2031-05-01 01:00:00");
	event(&f, c, "m2", "page_view", "2031-05-01 02:00:00");
	event(&f, c, "m2", "page_view", "2031-05-02 02:00:00");
	snprintf(l, sizeof(l), "%s",
	    lead(&f, c, "2031-05-01 03:00:00", NULL, NULL));
	message(&f, l, c, sc, NULL, 1, "sms", "sent", "2031-05-01 04:00:00",
	    NULL);
	cr_assert_str_eq(daily_count(&f, "2031-05-01", "days.0.computed"),
	    "false");
	cr_assert_str_eq(daily_count(&f, "2031-04-30", "days.0.computed"),
	    "true");
	cr_assert_str_eq(system("\"$FB_CTL_DIR/formback-aggregate\" -v") == 0 ?
	    "ok" : "failed", "ok");
	cr_assert_str_eq(daily_count(&f, "2031-05-01", "not_computed_dates.0"),
	    "null");
	cr_assert_str_eq(daily_count(&f, "2031-05-01",
	    "days.0.counts.traffic.page_view"), sql("SELECT COUNT(*) FROM "
	    "tag_events WHERE tenant_id = '%s' AND "
	    "DATE(CONVERT_TZ(received_at, '+00:00', '+09:00')) = "
	    "'2031-05-01'", f.tenant));
	cr_assert_str_eq(daily_count(&f, "2031-05-02",
	    "days.0.counts.traffic.page_view"), "1");
	cr_assert_str_eq(daily_count(&f, "2031-05-01",
	    "days.0.counts.capture.abandoned"), "1");
	cr_assert_str_eq(daily_count(&f, "2031-05-01",
	    "days.0.counts.delivery.sent"), "1");
	/* the idle tenants: nothing written, nothing left marked */
	cr_assert_str_eq(sql("SELECT (SELECT COUNT(*) FROM report_aggregations "
	    "a JOIN tenants t ON t.id = a.tenant_id WHERE t.name = "
	    "'idle-aggregate') + (SELECT COUNT(*) FROM report_hour_state s "
	    "JOIN tenants t ON t.id = s.tenant_id WHERE t.name = "
	    "'idle-aggregate')"), "0");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM report_dirty_days"), "0");
	/* a receipt marks the day of its message's send */
	sql("UPDATE deliveries SET status = 'delivered' WHERE tenant_id = '%s'",
	    f.tenant);
	cr_assert_str_eq(daily_count(&f, "2031-05-01", "not_computed_dates.0"),
	    "2031-05-01");
	cr_assert_str_eq(daily_count(&f, "2031-05-02", "days.0.computed"),
	    "true");
	snprintf(cmd, sizeof(cmd),
	    "\"$FB_CTL_DIR/formback-aggregate\" --tenant %s",
	    f.tenant);
	cr_assert_eq(system(cmd), 0);
	cr_assert_str_eq(daily_count(&f, "2031-05-01",
	    "days.0.counts.delivery.delivered"), "1");
	/* nothing new: the next pass recounts nothing */
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-aggregate\""), 0);
	cr_assert_str_eq(sql("SELECT CONCAT(items, ' ', left_items) FROM "
	    "cron_passes WHERE job = 'aggregate'"), "0 0");
}
