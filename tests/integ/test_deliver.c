/*
 * formback-deliver's integrity (issue 11, findings 8 and 10;
 * formback-deliver(8)): no message after a conversion the collector has
 * acknowledged, even while the queue is busy or held; a pass killed
 * mid-send loses only the send in flight.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

/* A tag event of visitor v of campaign `key`; no waiting for the queue. */
static void
event(const struct fx *f, const char *key, int v, const char *type,
    const char *role, const char *tel)
{
	char		 b[1024], c[128] = "null";
	struct resp	*r;
	bool		 settle = tag_autosettle;

	if (tel != NULL)
		snprintf(c, sizeof(c), "{\"tel\":\"%s\"}", tel);
	snprintf(b, sizeof(b), "{\"v\":1,\"site\":\"%s\",\"visitor\":\"%08d-5555-4555-8555-"
	    "555555555555\",\"session\":\"%08d-5555-4555-8555-555555555555\",\"type\":\"%s\","
	    "\"url\":\"https://shop.example.jp/%s\",\"campaign\":\"%s\",\"role\":\"%s\","
	    "\"contact\":%s,\"consent\":true}", f->site_pk, v, v, type,
	    strcmp(role, "thanks") == 0 ? "thanks" : "form", key, role, c);
	tag_autosettle = false;
	r = http("POST", "/tag/v1/events", NULL, b, NULL);
	tag_autosettle = settle;
	cr_assert_eq(r->status, 204, "%s: %s", type, r->body);
	resp_free(r);
}

/* Run a cron binary with its arguments; returns its exit status. */
static int
cron(const char *bin, const char *args)
{
	char	 cmd[1024];

	snprintf(cmd, sizeof(cmd), "\"$FB_CTL_DIR/%s\" %s", bin, args);
	return system(cmd);
}

/* How many messages to `tel` (digits after +81) reached the SMS stand-in. */
static int
sms_to(const char *intl)
{
	char	 cmd[1024];
	FILE	*p;
	int	 n = -1;

	snprintf(cmd, sizeof(cmd), "cat \"$FB_SMS_FILE\" 2>/dev/null | "
	    "grep -c '\"to\": \"+81%s\"'", intl);
	cr_assert_not_null(p = popen(cmd, "r"));
	cr_assert_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

/* Deliveries of the tenant sent to a lead converted before the send began. */
static const char *
sent_after_conversion(const struct fx *f)
{
	return sql("SELECT COUNT(*) FROM deliveries d JOIN leads l ON l.id = d.lead_id "
	    "WHERE d.tenant_id = '%s' AND d.status IN ('sent', 'delivered') AND "
	    "l.converted_at <= d.attempt_started_at", f->tenant);
}

/* Every applier turn held by another session for `secs` seconds. */
static void
hold_appliers(int secs)
{
	char	 cmd[1024];
	int	 i;

	snprintf(cmd, sizeof(cmd), "mariadb --no-defaults --socket=\"$FB_DB_SOCKET\" "
	    "-uroot formback -e 'BEGIN; SELECT COUNT(*) FROM tag_ingest_applier "
	    "FOR UPDATE; SELECT SLEEP(%d); COMMIT;' >/dev/null 2>&1 &", secs);
	cr_assert_eq(system(cmd), 0);
	/* held when none of the turns can be had */
	for (i = 0; i < 100; i++) {
		if (strcmp(sql("SELECT GROUP_CONCAT(id) FROM tag_ingest_applier "
		    "FOR UPDATE SKIP LOCKED"), "") == 0 ||
		    strcmp(sql("SELECT GROUP_CONCAT(id) FROM tag_ingest_applier "
		    "FOR UPDATE SKIP LOCKED"), "NULL") == 0)
			return;
		usleep(20 * 1000);
	}
	cr_assert_fail("the applier turns were not taken");
}

/*
 * Finding 10: capture, abandon, a conversion answered 204 that no applier
 * has applied yet (every applier turn held), and a deliver pass at once:
 * nothing may be sent; the delivery ends cancelled, converted.
 */
Test(deliver, acknowledged_conversion_stops_the_send, .timeout = 60)
{
	struct fx	 f;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "ack", "sms", "live", NULL);
	event(&f, "ack", 1, "capture", "form", "090-7600-0001");
	tag_settle();
	cr_assert_eq(cron("formback-abandon", "--now 2035-03-01T03:00:00Z"), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id = '%s' "
	    "AND status = 'scheduled'", f.tenant), "1");
	hold_appliers(3);
	event(&f, "ack", 1, "conversion", "thanks", NULL);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM tag_ingest WHERE site_id = '%s' "
	    "AND event_type = 'conversion'", f.site), "1", "the conversion is queued");
	cr_assert_eq(cron("formback-deliver", "--now 2035-03-01T03:10:00Z"), 0);
	cr_assert_eq(sms_to("9076000001"), 0, "a message after the conversion");
	cr_assert_str_eq(sql("SELECT CONCAT(d.status, ' ', IFNULL(d.cancel_reason, '-'), "
	    "' ', l.status) FROM deliveries d JOIN leads l ON l.id = d.lead_id "
	    "WHERE d.tenant_id = '%s'", f.tenant), "cancelled converted converted");
	cr_assert_str_eq(sent_after_conversion(&f), "0");
}

/*
 * Finding 10 under a capture flood: 12 leads, each abandoned ten minutes
 * after the one before; for each, its conversion is sent and at once a
 * deliver pass runs at the time its delivery falls due, while another
 * address floods the collector.  No delivery may be sent after its lead's
 * conversion: each ends cancelled.
 */
Test(deliver, conversion_races_the_send_under_a_flood, .timeout = 120)
{
	struct fx	 f;
	char		 cmd[2048], tel[32], flag[512], at[64];
	int		 i;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "race", "sms", "live", NULL);
	for (i = 0; i < 12; i++) {
		snprintf(tel, sizeof(tel), "090-7610-%04d", i + 1);
		event(&f, "race", 100 + i, "capture", "form", tel);
		tag_settle();
		snprintf(at, sizeof(at), "--now 2035-03-02T%02d:%02d:00Z", 3 + i / 6,
		    i % 6 * 10);
		cr_assert_eq(cron("formback-abandon", at), 0);
	}
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id = '%s' "
	    "AND status = 'scheduled'", f.tenant), "12");
	/* the flood: page views of new visitors from 127.0.0.3 until told to stop */
	snprintf(flag, sizeof(flag), "%s.flood", getenv("FB_SMS_FILE"));
	snprintf(cmd, sizeof(cmd), "touch '%s'; (i=0; while [ -f '%s' ] && [ $i -lt 3000 ]; "
	    "do i=$((i+1)); curl -s -o /dev/null --interface 127.0.0.3 -X POST "
	    "--data \"{\\\"v\\\":1,\\\"site\\\":\\\"%s\\\",\\\"visitor\\\":"
	    "\\\"$(printf %%08d $i)-6666-4666-8666-666666666666\\\",\\\"session\\\":"
	    "\\\"$(printf %%08d $i)-6666-4666-8666-666666666666\\\",\\\"type\\\":"
	    "\\\"page_view\\\",\\\"url\\\":\\\"https://shop.example.jp/\\\"}\" "
	    "'%s/tag/v1/events'; done) >/dev/null 2>&1 &", flag, flag, f.site_pk,
	    getenv("FB_TEST_URL"));
	cr_assert_eq(system(cmd), 0);
	for (i = 0; i < 12; i++) {
		event(&f, "race", 100 + i, "conversion", "thanks", NULL);
		snprintf(at, sizeof(at), "--now 2035-03-02T%02d:%02d:00Z", 3 + i / 6,
		    i % 6 * 10 + 6);
		cr_assert_eq(cron("formback-deliver", at), 0);
	}
	unlink(flag);
	cr_assert_str_eq(sent_after_conversion(&f), "0");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id = '%s' "
	    "AND status = 'cancelled' AND cancel_reason = 'converted'", f.tenant), "12",
	    "%s", sql("SELECT GROUP_CONCAT(status) FROM deliveries WHERE tenant_id = '%s'",
	    f.tenant));
	for (i = 0; i < 12; i++) {
		snprintf(tel, sizeof(tel), "90761%05d", i + 1);
		cr_assert_eq(sms_to(tel), 0, "%s", tel);
	}
}

static void
no_delay(void)
{
	char	 p[1024];

	snprintf(p, sizeof(p), "%s.delay", getenv("FB_SMS_FILE"));
	unlink(p);
}

/*
 * Finding 8: a pass killed mid-send marked every row it had claimed
 * failed outcome_unknown, also those it never tried.  Only the send in
 * flight (stamped as begun) may end so; the rest go back to scheduled
 * and the next pass sends them, each once.
 */
Test(deliver, killed_pass_loses_only_the_send_in_flight, .fini = no_delay, .timeout = 120)
{
	struct fx	 f;
	char		 tel[32], p[1024], cmd[1024];
	FILE		*d;
	int		 i, n = 24, unknown, sent;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "kill8", "sms", "live", NULL);
	for (i = 0; i < n; i++) {
		snprintf(tel, sizeof(tel), "090-7620-%04d", i + 1);
		event(&f, "kill8", 200 + i, "capture", "form", tel);
	}
	tag_settle();
	cr_assert_eq(cron("formback-abandon", "--now 2035-03-03T03:00:00Z"), 0);
	/* a slow gateway: each send takes a second */
	snprintf(p, sizeof(p), "%s.delay", getenv("FB_SMS_FILE"));
	cr_assert_not_null(d = fopen(p, "w"));
	fputs("1\n", d);
	fclose(d);
	snprintf(cmd, sizeof(cmd), "\"$FB_CTL_DIR/formback-deliver\" --now "
	    "2035-03-03T03:10:00Z --jobs 1 >/dev/null 2>&1 & echo $!");
	cr_assert_not_null(d = popen(cmd, "r"));
	cr_assert_eq(fscanf(d, "%d", &i), 1);
	pclose(d);
	/* kill it while a send is in flight, with more claimed behind it */
	for (n = 0; n < 200; n++) {
		if (strcmp(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id = '%s' "
		    "AND status = 'sending' AND attempt_started_at IS NOT NULL", f.tenant),
		    "1") == 0)
			break;
		usleep(25 * 1000);
	}
	cr_assert_lt(n, 200, "no send in flight");
	cr_assert_eq(kill(i, SIGKILL), 0);
	cr_assert_neq(strcmp(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id = '%s' "
	    "AND status = 'sending' AND attempt_started_at IS NULL", f.tenant), "0"), 0,
	    "claimed rows not yet tried when the pass died");
	no_delay();
	/* after the lease, the next pass */
	cr_assert_eq(cron("formback-deliver", "--now 2035-03-03T03:25:00Z"), 0);
	unknown = atoi(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id = '%s' AND "
	    "status = 'failed' AND error_code = 'outcome_unknown'", f.tenant));
	sent = atoi(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id = '%s' AND "
	    "status = 'sent'", f.tenant));
	cr_assert_eq(unknown, 1, "only the send in flight is unknown");
	cr_assert_eq(sent, 23);
	for (i = 0; i < 24; i++) {
		snprintf(tel, sizeof(tel), "90762%05d", i + 1);
		cr_assert_leq(sms_to(tel), 1, "%s twice", tel);
	}
}
