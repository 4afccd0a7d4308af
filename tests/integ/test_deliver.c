/*
 * formback-deliver's integrity (issue 11, findings 8 and 10;
 * formback-deliver(8)): no message after a conversion the collector has
 * acknowledged, even while the queue is busy or held; a pass killed
 * mid-send loses only the send in flight.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"
#include "../../src/sms.h"

/* Visitor v of the tests below. */
#define VISITOR	"%08d-5555-4555-8555-555555555555"

/* Deliveries of the tenant sent to a lead converted before the send began. */
static const char *
sent_after_conversion(const struct fx *f)
{
	return sql("SELECT COUNT(*) FROM deliveries d JOIN leads l ON l.id = "
	    "d.lead_id WHERE d.tenant_id = '%s' AND d.status IN ('sent', "
	    "'delivered') AND l.converted_at <= "
	    "d.attempt_started_at", f->tenant);
}

static void
links_writable(void)
{
	inserts_allowed("links");
}

/*
 * The delivery of visitor v's lead: "status cancel_reason suppress_reason
 * attempts".
 */
static const char *
outcome_of(const struct fx *f, int v)
{
	return sql_row("SELECT CONCAT_WS(' ', d.status, "
	    "IFNULL(d.cancel_reason, '-'), IFNULL(l.suppress_reason, '-'), "
	    "d.attempts) FROM deliveries d JOIN leads l ON l.id = d.lead_id "
	    "WHERE d.tenant_id = '%s' AND l.visitor_id = "
	    "'%08d-5555-4555-8555-555555555555'", f->tenant, v);
}

/*
 * Visitor v of campaign `key` captures with `tel` and is judged abandoned
 * at 03:00 UTC of `day`: its delivery is scheduled.
 */
static void
abandoned_on(const struct fx *f, const char *key, int v, const char *tel,
    const char *day)
{
	char	 now[64];

	cr_assert_eq(tag_ev_post(f, &(struct tag_ev){ .type = "capture",
	    .visitor = VISITOR, .n = v, .campaign = key, .role = "form",
	    .tel = tel }), 204);
	snprintf(now, sizeof(now), "--now %sT03:00:00Z", day);
	cr_assert_eq(cron("formback-abandon", now), 0);
	cr_assert_eq(strncmp(outcome_of(f, v), "scheduled ", 10), 0, "%s",
	    outcome_of(f, v));
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
	abandoned_on(&f, "ack", 1, "090-7600-0001", "2035-03-01");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND status = 'scheduled'", f.tenant), "1");
	appliers_hold(3);
	tag_autosettle = false;
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "conversion",
	    .visitor = VISITOR, .n = 1, .url = "https://shop.example.jp/thanks",
	    .campaign = "ack", .role = "thanks" }), 204);
	tag_autosettle = true;
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM tag_ingest WHERE site_id = "
	    "'%s' AND event_type = 'conversion'", f.site), "1", "the "
	    "conversion is queued");
	cr_assert_eq(cron("formback-deliver", "--now 2035-03-01T03:10:00Z"), 0);
	cr_assert_eq(sms_to("9076000001"), 0, "a message after the conversion");
	cr_assert_str_eq(sql("SELECT CONCAT(d.status, ' ', "
	    "IFNULL(d.cancel_reason, '-'), ' ', l.status) FROM deliveries d "
	    "JOIN leads l ON l.id = d.lead_id WHERE d.tenant_id = "
	    "'%s'", f.tenant), "cancelled converted converted");
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
		cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){
		    .type = "capture", .visitor = VISITOR, .n = 100 + i,
		    .campaign = "race", .role = "form", .tel = tel }), 204);
		snprintf(at, sizeof(at), "--now 2035-03-02T%02d:%02d:00Z",
		    3 + i / 6,
		    i % 6 * 10);
		cr_assert_eq(cron("formback-abandon", at), 0);
	}
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND status = 'scheduled'", f.tenant), "12");
	/*
	 * the flood: page views of new visitors from 127.0.0.3 until told to
	 * stop
	 */
	snprintf(flag, sizeof(flag), "%s.flood", getenv("FB_SMS_FILE"));
	snprintf(cmd, sizeof(cmd),
	    "touch '%s'; (i=0; while [ -f '%s' ] && [ $i -lt 3000 ]; "
	    "do i=$((i+1)); curl -s -o /dev/null --interface 127.0.0.3 -X POST "
	    "--data \"{\\\"v\\\":1,\\\"site\\\":\\\"%s\\\",\\\"visitor\\\":"
	    "\\\"$(printf %%08d $i)-6666-4666-8666-666666666666\\\","
	    "\\\"session\\\":"
	    "\\\"$(printf %%08d $i)-6666-4666-8666-666666666666\\\","
	    "\\\"type\\\":\\\"page_view\\\","
	    "\\\"url\\\":\\\"https://shop.example.jp/\\\"}\" "
	    "'%s/tag/v1/events'; done) >/dev/null 2>&1 &", flag, flag,
	    f.site_pk, getenv("FB_TEST_URL"));
	cr_assert_eq(system(cmd), 0);
	tag_autosettle = false;
	for (i = 0; i < 12; i++) {
		cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){
		    .type = "conversion", .visitor = VISITOR, .n = 100 + i,
		    .url = "https://shop.example.jp/thanks", .campaign = "race",
		    .role = "thanks" }), 204);
		snprintf(at, sizeof(at), "--now 2035-03-02T%02d:%02d:00Z",
		    3 + i / 6,
		    i % 6 * 10 + 6);
		cr_assert_eq(cron("formback-deliver", at), 0);
	}
	tag_autosettle = true;
	unlink(flag);
	cr_assert_str_eq(sent_after_conversion(&f), "0");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND status = 'cancelled' AND cancel_reason = "
	    "'converted'", f.tenant), "12",
	    "%s", sql("SELECT GROUP_CONCAT(status) FROM deliveries WHERE "
	    "tenant_id = '%s'",
	    f.tenant));
	for (i = 0; i < 12; i++) {
		snprintf(tel, sizeof(tel), "90761%05d", i + 1);
		cr_assert_eq(sms_to(tel), 0, "%s", tel);
	}
}

/*
 * Finding 8: a pass killed mid-send marked every row it had claimed
 * failed outcome_unknown, also those it never tried.  Only the send in
 * flight (stamped as begun) may end so; the rest go back to scheduled
 * and the next pass sends them, each once.
 */
Test(deliver, killed_pass_loses_only_the_send_in_flight,
    .fini = sms_gateway_normal, .timeout = 120)
{
	struct fx	 f;
	char		 tel[32], cmd[1024];
	FILE		*d;
	int		 i, n = 24, unknown, sent;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "kill8", "sms", "live", NULL);
	tag_autosettle = false;
	for (i = 0; i < n; i++) {
		snprintf(tel, sizeof(tel), "090-7620-%04d", i + 1);
		cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){
		    .type = "capture", .visitor = VISITOR, .n = 200 + i,
		    .campaign = "kill8", .role = "form", .tel = tel }), 204);
	}
	tag_autosettle = true;
	tag_settle();
	cr_assert_eq(cron("formback-abandon", "--now 2035-03-03T03:00:00Z"), 0);
	/* a slow gateway: each send takes a second */
	sms_gateway("delay", "1");
	snprintf(cmd, sizeof(cmd), "\"$FB_CTL_DIR/formback-deliver\" --now "
	    "2035-03-03T03:10:00Z --jobs 1 >/dev/null 2>&1 & echo $!");
	cr_assert_not_null(d = popen(cmd, "r"));
	cr_assert_eq(fscanf(d, "%d", &i), 1);
	pclose(d);
	/* kill it while a send is in flight, with more claimed behind it */
	for (n = 0; n < 200; n++) {
		if (strcmp(sql("SELECT COUNT(*) FROM deliveries WHERE "
		    "tenant_id = '%s' AND status = 'sending' AND "
		    "attempt_started_at IS NOT NULL", f.tenant),
		    "1") == 0)
			break;
		usleep(25 * 1000);
	}
	cr_assert_lt(n, 200, "no send in flight");
	cr_assert_eq(kill(i, SIGKILL), 0);
	cr_assert_neq(strcmp(sql("SELECT COUNT(*) FROM deliveries WHERE "
	    "tenant_id = '%s' AND status = 'sending' AND attempt_started_at "
	    "IS NULL", f.tenant), "0"), 0,
	    "claimed rows not yet tried when the pass died");
	sms_gateway_normal();
	/* after the lease, the next pass */
	cr_assert_eq(cron("formback-deliver", "--now 2035-03-03T03:25:00Z"), 0);
	unknown = atoi(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id = "
	    "'%s' AND status = 'failed' AND error_code = "
	    "'outcome_unknown'", f.tenant));
	sent = atoi(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id = "
	    "'%s' AND status = 'sent'", f.tenant));
	cr_assert_eq(unknown, 1, "only the send in flight is unknown");
	cr_assert_eq(sent, 23);
	for (i = 0; i < 24; i++) {
		snprintf(tel, sizeof(tel), "90762%05d", i + 1);
		cr_assert_leq(sms_to(tel), 1, "%s twice", tel);
	}
}

/* Milliseconds a cron binary takes, unkilled, for its pass. */
static long
timed(const char *cmd)
{
	struct timespec	 a, b, ms = { 0, 1000 * 1000 };
	pid_t		 p, w = 0;
	int		 st = 0, i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	p = spawn("%s", cmd);
	/* reap()'s 20 ms naps would round the pass up: a millisecond's */
	for (i = 0; i < 60000 && (w = waitpid(p, &st, WNOHANG)) == 0; i++)
		nanosleep(&ms, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	cr_assert(w == p && WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %d",
	    cmd, st);
	return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
}

/*
 * Run cmd and SIGKILL it after a random moment of [0, ms) milliseconds.
 * Returns true when the kill landed while it ran, false when it had
 * ended (successfully: a pass that fails is a failure here).
 */
static bool
killed_at_random(const char *cmd, long ms)
{
	struct timespec	 t;
	long		 at = ms > 0 ? random() % ms : 0;
	pid_t		 p;
	int		 st;

	p = spawn("%s", cmd);
	t.tv_sec = at / 1000;
	t.tv_nsec = (at % 1000) * 1000000;
	nanosleep(&t, NULL);
	(void)kill(p, SIGKILL);
	st = reap(p, 60);
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		return true;
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %d", cmd, st);
	return false;
}

/*
 * Issue 18: formback-abandon and formback-deliver killed at random points
 * over 100 runs, new leads captured between them, over a gateway slow
 * enough that kills land mid-send.  Then one whole pass of each: every
 * lead abandoned has exactly one delivery; every delivery ended, sent or
 * (only a send in flight at a kill) failed outcome_unknown; nobody got a
 * message twice, and every one sent reached the gateway.
 */
Test(deliver, hundred_random_kills_lose_and_repeat_nothing,
    .fini = sms_gateway_normal, .timeout = 600)
{
	enum { RUNS = 100, PER_RUN = 2 };
	struct fx	 f;
	char		 tel[32], p[1024], cmd[2][512];
	FILE		*d;
	unsigned	 seed = (unsigned)time(NULL);
	long		 ms[2], t;
	int		 run, i, v = 0, landed[2] = { 0, 0 }, unknown, sent;

	srandom(seed);
	fx_new(&f, "pro", 0);
	fx_one_step(&f, "rk", "sms", "live", NULL);
	snprintf(cmd[0], sizeof(cmd[0]),
	    "exec \"$FB_CTL_DIR/formback-abandon\" "
	    "--now 2035-05-05T03:00:00Z");
	snprintf(cmd[1], sizeof(cmd[1]),
	    "exec \"$FB_CTL_DIR/formback-deliver\" "
	    "--now 2035-05-05T03:10:00Z --jobs 2");
	sms_gateway("delay", "0.02");
	/*
	 * how long a pass of each takes over one run's leads, unkilled: the
	 * shortest of 3 (a first pass, or one on a busy host, takes longer,
	 * and kills timed by it would land after most passes)
	 */
	for (run = 0, ms[0] = ms[1] = LONG_MAX; run < 3; run++) {
		tag_autosettle = false;
		for (i = 0; i < PER_RUN; i++, v++) {
			snprintf(tel, sizeof(tel), "090-7730-%04d", v + 1);
			cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){
			    .type = "capture", .visitor = VISITOR,
			    .n = 700 + v, .campaign = "rk", .role = "form",
			    .tel = tel }), 204);
		}
		tag_autosettle = true;
		tag_settle();
		for (i = 0; i < 2; i++) {
			t = timed(cmd[i]) + 10;
			if (t < ms[i])
				ms[i] = t;
		}
	}
	for (run = 0; run < RUNS; run++) {
		tag_autosettle = false;
		for (i = 0; i < PER_RUN; i++, v++) {
			snprintf(tel, sizeof(tel), "090-7730-%04d", v + 1);
			cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){
			    .type = "capture", .visitor = VISITOR,
			    .n = 700 + v, .campaign = "rk", .role = "form",
			    .tel = tel }), 204);
		}
		tag_autosettle = true;
		tag_settle();
		for (i = 0; i < 2; i++)
			if (killed_at_random(cmd[i], ms[i]))
				landed[i]++;
	}
	sms_gateway_normal();
	/* the kills landed mid-pass often enough to mean something */
	cr_assert_geq(landed[0], RUNS / 5,
	    "abandon: %d of %d kills mid-pass (seed %u)",
	    landed[0], RUNS, seed);
	cr_assert_geq(landed[1], RUNS / 5,
	    "deliver: %d of %d kills mid-pass (seed %u)",
	    landed[1], RUNS, seed);
	/* whole passes, deliver's after the lease of the killed claims */
	cr_assert_eq(cron("formback-abandon", "--now 2035-05-05T03:00:00Z"), 0);
	cr_assert_eq(cron("formback-deliver", "--now 2035-05-05T03:30:00Z"), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE tenant_id = "
	    "'%s' AND status = "
	    "'abandoned'", f.tenant), sql("SELECT %d", v), "seed %u", seed);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads l WHERE l.tenant_id = "
	    "'%s' AND (SELECT COUNT(*) FROM deliveries d WHERE d.lead_id = "
	    "l.id) <> 1", f.tenant),
	    "0", "a lead without its one delivery (seed %u)", seed);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND NOT (status = 'sent' OR (status = 'failed' AND "
	    "error_code = 'outcome_unknown'))", f.tenant), "0", "%s (seed %u)",
	    sql_row("SELECT GROUP_CONCAT(DISTINCT CONCAT(status, ' ', "
	    "IFNULL(error_code, ''))) FROM deliveries WHERE tenant_id = "
	    "'%s'", f.tenant), seed);
	unknown = atoi(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id = "
	    "'%s' AND status = 'failed'", f.tenant));
	sent = atoi(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id = "
	    "'%s' AND status = 'sent'", f.tenant));
	/* at most the sends in flight of each kill: two jobs, two sends */
	cr_assert_leq(unknown, 2 * landed[1],
	    "%d unknown after %d kills mid-send "
	    "(seed %u)", unknown, landed[1], seed);
	cr_assert_eq(sent + unknown, v);
	for (i = 0; i < v; i++) {
		snprintf(tel, sizeof(tel), "90773%05d", i + 1);
		cr_assert_leq(sms_to(tel), 1, "%s twice (seed %u)", tel, seed);
	}
	/*
	 * every send recorded sent reached the gateway (090-7730-: the
	 * webhooks suite, in the same pass, sends to 090-7731-0001)
	 */
	snprintf(p, sizeof(p),
	    "grep -c '\"to\": \"+81907730' \"$FB_SMS_FILE\"");
	cr_assert_not_null(d = popen(p, "r"));
	cr_assert_eq(fscanf(d, "%d", &i), 1);
	pclose(d);
	cr_assert_geq(i, sent, "sent %d, at the gateway %d (seed %u)", sent, i,
	    seed);
	cr_assert_leq(i, v);
}

/*
 * What is checked right before a send (issue 18, item 7; formback-deliver(8)):
 * a contact suppressed after its delivery was scheduled, the campaign or
 * the scenario paused, the delivery switch off: nothing leaves, and the
 * delivery says why.  A gateway failing 5xx is tried again on a later
 * pass; a 4xx fails at once.
 */
Test(deliver, stopped_right_before_the_send, .fini = sms_gateway_normal,
    .timeout = 120)
{
	struct fx	 f;
	struct resp	*r;
	char		 c[40], s[40];

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "stop", "sms", "live", NULL);
	snprintf(c, sizeof(c), "%s",
	    sql("SELECT id FROM campaigns WHERE tenant_id = '%s' "
	    "AND campaign_key = 'stop'", f.tenant));
	snprintf(s, sizeof(s), "%s",
	    sql("SELECT id FROM scenarios WHERE campaign_id = '%s'",
	    c));
	/* a contact suppressed once its delivery was scheduled; another not */
	abandoned_on(&f, "stop", 1, "090-7740-0001", "2036-01-10");
	abandoned_on(&f, "stop", 2, "090-7740-0002", "2036-01-10");
	r = http("POST", "/api/v1/suppressions", f.live,
	    "{\"value\":\"090-7740-0001\"}", NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	cr_assert_eq(cron("formback-deliver", "--now 2036-01-10T03:10:00Z"), 0);
	cr_assert_str_eq(outcome_of(&f, 1),
	    "cancelled suppressed suppressed 1");
	cr_assert_eq(strncmp(outcome_of(&f, 2), "sent ", 5), 0, "%s",
	    outcome_of(&f, 2));
	cr_assert_eq(sms_to("9077400001"), 0);
	cr_assert_eq(sms_to("9077400002"), 1);
	/* the campaign paused */
	abandoned_on(&f, "stop", 3, "090-7740-0003", "2036-01-11");
	cr_assert_eq(ctl(NULL, "campaign set-status --id %s --status paused",
	    c), 0);
	cr_assert_eq(cron("formback-deliver", "--now 2036-01-11T03:10:00Z"), 0);
	cr_assert_str_eq(outcome_of(&f, 3), "suppressed - campaign_paused 1");
	cr_assert_eq(ctl(NULL, "campaign set-status --id %s --status active",
	    c), 0);
	/* the scenario paused */
	abandoned_on(&f, "stop", 4, "090-7740-0004", "2036-01-12");
	cr_assert_eq(ctl(NULL, "scenario set-status --id %s --status paused",
	    s), 0);
	cr_assert_eq(cron("formback-deliver", "--now 2036-01-12T03:10:00Z"), 0);
	cr_assert_str_eq(outcome_of(&f, 4), "suppressed - scenario_paused 1");
	cr_assert_eq(ctl(NULL, "scenario set-status --id %s --status active",
	    s), 0);
	/* the delivery switch off */
	abandoned_on(&f, "stop", 5, "090-7740-0005", "2036-01-13");
	cr_assert_eq(ctl(NULL, "delivery-switch --tenant %s --mode off",
	    f.tenant), 0);
	cr_assert_eq(cron("formback-deliver", "--now 2036-01-13T03:10:00Z"), 0);
	cr_assert_str_eq(outcome_of(&f, 5), "suppressed - delivery_disabled 1");
	cr_assert_eq(ctl(NULL, "delivery-switch --tenant %s --mode live",
	    f.tenant), 0);
	cr_assert_eq(sms_to("9077400003") + sms_to("9077400004") +
	    sms_to("9077400005"), 0);
	/* the gateway failing 503: tried again later, then sent once */
	abandoned_on(&f, "stop", 6, "090-7740-0006", "2036-01-14");
	sms_gateway("fail", "503");
	cr_assert_eq(cron("formback-deliver", "--now 2036-01-14T03:10:00Z"), 0);
	cr_assert_str_eq(outcome_of(&f, 6), "scheduled - - 1");
	cr_assert_eq(sms_to("9077400006"), 0);
	sms_gateway_normal();
	cr_assert_eq(cron("formback-deliver", "--now 2036-01-14T03:20:00Z"), 0);
	cr_assert_eq(strncmp(outcome_of(&f, 6), "sent ", 5), 0, "%s",
	    outcome_of(&f, 6));
	cr_assert_eq(sms_to("9077400006"), 1);
	/* failing 400: failed at once, with the provider's code */
	abandoned_on(&f, "stop", 7, "090-7740-0007", "2036-01-15");
	sms_gateway("fail", "400");
	cr_assert_eq(cron("formback-deliver", "--now 2036-01-15T03:10:00Z"), 0);
	cr_assert_eq(strncmp(outcome_of(&f, 7), "failed ", 7), 0, "%s",
	    outcome_of(&f, 7));
	cr_assert_str_neq(sql("SELECT IFNULL(d.error_code, '') FROM deliveries "
	    "d JOIN leads l ON l.id = d.lead_id WHERE d.tenant_id = '%s' AND "
	    "l.visitor_id = "
	    "'00000007-5555-4555-8555-555555555555'", f.tenant), "");
	cr_assert_eq(sms_to("9077400007"), 0);
}

/*
 * A batch is claimed with its short links in one transaction: when the
 * links cannot be stored (here a trigger refuses them), nothing is
 * claimed, the pass reports the error, and the delivery stays scheduled,
 * no attempt counted, for the next pass, which sends it.
 */
Test(deliver, links_not_stored_claim_nothing, .fini = links_writable,
    .timeout = 60)
{
	struct fx	 f;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "lnk", "sms", "live", NULL);
	abandoned_on(&f, "lnk", 1, "090-7750-0001", "2036-02-01");
	inserts_refused("links", 1644);
	cr_assert_neq(cron("formback-deliver",
	    "--now 2036-02-01T03:10:00Z 2>/dev/null"), 0);
	cr_assert_str_eq(sql_row("SELECT CONCAT_WS(' ', d.status, d.attempts, "
	    "d.claim_token IS NULL, (SELECT COUNT(*) FROM links k WHERE "
	    "k.delivery_id = d.id)) FROM deliveries d WHERE d.tenant_id = '%s'",
	    f.tenant), "scheduled 0 1 0");
	cr_assert_eq(sms_to("9077500001"), 0);
	links_writable();
	cr_assert_eq(cron("formback-deliver", "--now 2036-02-01T03:11:00Z"), 0);
	cr_assert_eq(sms_to("9077500001"), 1);
	cr_assert_str_eq(sql_row("SELECT CONCAT_WS(' ', d.status, d.attempts, "
	    "l.status) FROM deliveries d JOIN leads l ON l.id = d.lead_id "
	    "WHERE d.tenant_id = '%s'",
	    f.tenant), "sent 1 sent");
}

/*
 * Two steps of one lead due in the same pass go in one batch: both are
 * sent, each with its own links, and the lead is marked sent by the
 * first (the second does not write it again).
 */
Test(deliver, two_steps_of_a_lead_in_one_batch, .timeout = 60)
{
	struct fx	 f;
	char		 m[40], b[512];
	struct resp	*r;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "two", "sms", "live", NULL);
	r = http("POST", "/api/v1/messages", f.live,
	    "{\"channel\":\"sms\",\"body\":"
	    "\"テスト商店です。もう一度 {{link_url}}\"}", NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(m, sizeof(m), "%s", jget(r->json, "id"));
	resp_free(r);
	snprintf(b, sizeof(b), "/api/v1/scenarios/%s/steps",
	    sql("SELECT id FROM "
	    "scenarios WHERE tenant_id = '%s'", f.tenant));
	snprintf(b + 256, 256,
	    "{\"steps\":[{\"message_id\":\"%s\",\"delay_minutes\":5},"
	    "{\"message_id\":\"%s\",\"delay_minutes\":6}]}",
	    sql("SELECT message_id FROM scenario_steps st JOIN scenarios s "
	    "ON s.id = st.scenario_id WHERE s.tenant_id = '%s' "
	    "ORDER BY st.position LIMIT 1", f.tenant), m);
	r = http("PUT", b, f.live, b + 256, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	resp_free(r);
	abandoned_on(&f, "two", 1, "090-7760-0001", "2036-02-02");
	cr_assert_eq(cron("formback-deliver", "--now 2036-02-02T03:10:00Z"), 0);
	cr_assert_eq(sms_to("9077600001"), 2);
	cr_assert_str_eq(sql_row("SELECT CONCAT_WS(' ', GROUP_CONCAT(d.status "
	    "ORDER BY d.step_no), MIN(l.status), COUNT(DISTINCT k.token)) FROM "
	    "deliveries d JOIN leads l ON l.id = d.lead_id JOIN links k "
	    "ON k.delivery_id = d.id WHERE d.tenant_id = "
	    "'%s'", f.tenant), "sent,sent,sent,sent sent 4");
}

/*
 * n visitors of campaign `key` (one SMS step) capture "<tel>-NNNN" and
 * are judged abandoned at 03:00 UTC of `day`: n deliveries scheduled, and
 * the only ones due (what other tests left is put off).
 */
static void
due_alone(const struct fx *f, const char *key, int n, const char *tel,
    const char *day)
{
	char	 t[32], now[64];
	int	 v;

	tag_autosettle = false;
	for (v = 1; v <= n; v++) {
		snprintf(t, sizeof(t), "%s-%04d", tel, v);
		cr_assert_eq(tag_ev_post(f, &(struct tag_ev){ .type = "capture",
		    .visitor = VISITOR, .n = v, .campaign = key,
		    .role = "form", .tel = t }), 204);
	}
	tag_autosettle = true;
	tag_settle();
	snprintf(now, sizeof(now), "--now %sT03:00:00Z", day);
	cr_assert_eq(cron("formback-abandon", now), 0);
	cr_assert_eq(atoi(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND status = 'scheduled'", f->tenant)), n);
	/* claims another test left behind come back scheduled, put off too */
	sql("UPDATE deliveries SET scheduled_at = '2099-01-01' WHERE status IN "
	    "('scheduled', 'sending') AND tenant_id <> '%s'", f->tenant);
}

/* The tenant's deliveries: "sent scheduled". */
static const char *
sent_scheduled(const struct fx *f)
{
	return sql("SELECT CONCAT_WS(' ', SUM(status = 'sent'), "
	    "SUM(status = 'scheduled')) FROM deliveries WHERE tenant_id = '%s'",
	    f->tenant);
}

/*
 * Turns over tenants (issue 40): a noisy tenant's 40 due deliveries,
 * older than a quiet tenant's one; a pass capped at one claim (16) sends
 * the quiet tenant's beside 15 of the noisy tenant's.
 */
Test(deliver, quiet_tenant_sent_beside_a_noisy_one, .timeout = 120)
{
	struct fx	 noisy, quiet;

	fx_new(&noisy, "pro", 0);
	fx_one_step(&noisy, "noisy", "sms", "live", NULL);
	due_alone(&noisy, "noisy", 40, "090-7792", "2037-03-01");
	fx_new(&quiet, "pro", 0);
	fx_one_step(&quiet, "quiet", "sms", "live", NULL);
	abandoned_on(&quiet, "quiet", 1, "090-7793-0001", "2037-03-01");
	sql("UPDATE deliveries SET scheduled_at = scheduled_at + INTERVAL 1 "
	    "MINUTE WHERE tenant_id = '%s'", quiet.tenant);
	cr_assert_eq(cron("formback-deliver", "--now 2037-03-01T03:10:00Z "
	    "--limit 16 --jobs 1"), 0);
	cr_assert_eq(sms_to("9077930001"), 1);
	cr_assert_str_eq(sent_scheduled(&noisy), "15 25");
}

/*
 * --limit bounds the whole pass, across its batches of 16 (it once
 * counted nothing when a batch was freed, and a pass sent everything
 * due): 20 due, a limit of 18, 18 sent and 2 left for the next pass.
 */
Test(deliver, limit_counts_across_batches, .timeout = 90)
{
	struct fx	 f;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "lim", "sms", "live", NULL);
	due_alone(&f, "lim", 20, "090-7761", "2036-03-01");
	cr_assert_eq(cron("formback-deliver",
	    "--now 2036-03-01T03:10:00Z --limit 18 "
	    "--jobs 1"), 0);
	cr_assert_str_eq(sent_scheduled(&f), "18 2");
	cr_assert_eq(cron("formback-deliver",
	    "--now 2036-03-01T03:11:00Z --limit 18 "
	    "--jobs 1"), 0);
	cr_assert_str_eq(sent_scheduled(&f), "20 0");
}

/*
 * A send begins only while its claim's lease outlasts it: with every send
 * taking 45 s (a provider near its 30 s timeout, a slow database), a
 * batch of 16 sends the first 13 (the last begun 540 s into its 600 s
 * lease: a send and its guard may take 60 s) and gives the other 3 back,
 * scheduled and their attempt not counted; none ends outcome_unknown,
 * and the next pass sends them.
 */
Test(deliver, slow_provider_sends_within_the_lease, .timeout = 90)
{
	struct fx	 f;
	int		 rc;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "slow", "sms", "live", NULL);
	due_alone(&f, "slow", 16, "090-7762", "2036-03-02");
	setenv("FB_FAULT_SEND_SECONDS", "45", 1);
	rc = cron("formback-deliver", "--now 2036-03-02T03:10:00Z --jobs 1");
	unsetenv("FB_FAULT_SEND_SECONDS");
	cr_assert_eq(rc, 0);
	cr_assert_str_eq(sql("SELECT CONCAT_WS(' ', SUM(status = 'sent'), "
	    "SUM(status = 'scheduled' AND attempts = 0), SUM(error_code "
	    "IS NOT NULL)) FROM deliveries WHERE tenant_id = "
	    "'%s'", f.tenant), "13 3 0");
	/*
	 * put off POSTPONE_SECS from the pass's clock, which is --now plus
	 * the seconds the pass has run: a pass a few minutes on
	 */
	cr_assert_eq(cron("formback-deliver", "--now 2036-03-02T03:15:00Z "
	    "--jobs 1"), 0);
	cr_assert_str_eq(sent_scheduled(&f), "16 0");
}

/*
 * A pass reads what it claims and what those rows name, whatever
 * MariaDB's statistics say (issue 13).  The full bench run of 2026-11-27
 * 01:28 sent 35 deliveries/s, MariaDB spending 55 ms of CPU a delivery:
 * with the statistics of tables just filled, the daily cap's count of a
 * claimed contact's sends began from the tenant's deliveries (260,032
 * rows read for one batch of 16) instead of the contact's leads.
 * Statistics saying so are planted here (MariaDB's engine-independent
 * ones, which FLUSH TABLES loads): a contact's leads many, the
 * deliveries few.  They also turned the look for claims whose lease ran
 * out into a walk, and a lock, of every delivery.  With 5,000
 * deliveries of the tenant and one due, the pass reads a few index
 * entries, not the tenant's deliveries (10,006 before).
 */
/* InnoDB's statistics again, for the tests after (also after a failure) */
static void
innodb_statistics(void)
{
	sql("DELETE FROM mysql.index_stats WHERE db_name = DATABASE()");
	sql("DELETE FROM mysql.table_stats WHERE db_name = DATABASE()");
	sql("FLUSH TABLES leads, deliveries");
}

Test(deliver, batch_read_by_its_claimed_rows_whatever_the_statistics,
    .fini = innodb_statistics, .timeout = 120)
{
	struct fx	 f;
	char		 camp[40];
	long long	 reads;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "stats", "sms", "live", NULL);
	snprintf(camp, sizeof(camp), "%s", sql("SELECT id FROM campaigns WHERE "
	    "tenant_id = '%s'", f.tenant));
	sql("INSERT INTO leads (id, tenant_id, site_id, campaign_id, "
	    "visitor_id, status, consent_state, pii_state) SELECT "
	    "CAST(CONCAT('01a20000-0000-7000-8000-', LPAD(HEX(seq), 12, '0')) "
	    "AS UUID), '%s', '%s', '%s', UUID(), 'converted', 'notice_optout', "
	    "'absent' FROM seq_1_to_5000",
	    f.tenant, f.site, camp);
	sql("INSERT INTO deliveries (id, tenant_id, lead_id, campaign_id, "
	    "scenario_id, channel, status, pii_state, scheduled_at) SELECT "
	    "UUID(), '%s', CAST(CONCAT('01a20000-0000-7000-8000-', "
	    "LPAD(HEX(seq), 12, '0')) AS UUID), '%s', UUID(), 'sms', "
	    "'cancelled', 'absent', '2027-01-01' FROM seq_1_to_5000",
	    f.tenant, camp);
	abandoned_on(&f, "stats", 1, "090-7790-0001", "2027-02-01");
	sql("INSERT INTO mysql.table_stats (db_name, table_name, cardinality) "
	    "VALUES (DATABASE(), 'leads', 1000000), (DATABASE(), 'deliveries', "
	    "10)");
	sql("INSERT INTO mysql.index_stats (db_name, table_name, index_name, "
	    "prefix_arity, avg_frequency) VALUES (DATABASE(), 'leads', "
	    "'leads_tel', 2, 100000), (DATABASE(), 'leads', 'leads_email', 2, "
	    "100000), (DATABASE(), 'deliveries', 'deliveries_lead', 1, 1), "
	    "(DATABASE(), 'deliveries', 'deliveries_lead', 2, 1)");
	sql("FLUSH TABLES leads, deliveries");
	reads = index_reads();
	cr_assert_eq(cron("formback-deliver", "--now 2027-02-01T03:10:00Z"), 0);
	reads = index_reads() - reads;
	sql("DELETE FROM deliveries WHERE tenant_id = '%s' AND status = "
	    "'cancelled'",
	    f.tenant);
	sql("DELETE FROM leads WHERE tenant_id = '%s' AND status = 'converted'",
	    f.tenant);
	cr_assert_eq(sms_to("9077900001"), 1);
	cr_assert_lt(reads, 2000, "the pass read %lld index entries", reads);
}

static void
deliveries_deadlocks_removed(void)
{
	deadlocks_removed("deliveries");
}

/*
 * Two passes' claims crossing, which MariaDB ends as a deadlock of one of
 * them: the claim is made again (up to DB_TX_TRIES times), the pass ends
 * 0 and the message leaves once (issue 18: a deadlock retried where
 * safe; a cron host's pass failed on it before).
 */
Test(deliver, claim_crossing_another_pass_is_made_again,
    .fini = deliveries_deadlocks_removed, .timeout = 60)
{
	struct fx	 f;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "cross", "sms", "live", NULL);
	abandoned_on(&f, "cross", 1, "090-7791-0001", "2036-02-10");
	deadlocks_planted("deliveries", "OLD.status = 'scheduled' AND "
	    "NEW.status = 'sending'", 2);
	cr_assert_eq(cron("formback-deliver", "--now 2036-02-10T03:10:00Z"), 0);
	cr_assert_eq(deadlocks_left("deliveries"), 0);
	cr_assert_str_eq(outcome_of(&f, 1), "sent - - 1");
	cr_assert_eq(sms_to("9077910001"), 1);
}

/*
 * Twilio (issue 44): formback-deliver with a copy of the configuration
 * that selects it (sms_provider = twilio, the stand-in as
 * twilio_api_base); the web server's own configuration holds only
 * twilio_auth_token, which is what verifying its callbacks needs.
 */

/* The copy's path into out; `more` is added to it ("" for nothing). */
static void
twilio_conf(char *out, size_t n, const char *more)
{
	char	 cmd[2048];

	snprintf(out, n, "%s.twilio", getenv("FORMBACK_CONF"));
	snprintf(cmd, sizeof(cmd), "cp \"$FORMBACK_CONF\" '%s' && printf "
	    "'%%s\\n' 'sms_provider = twilio' \"twilio_account_sid = "
	    "$FB_TWILIO_SID\" \"twilio_api_base = $FB_TWILIO_URL\" "
	    "'sms_from = +815012340000' %s >> '%s'", out, more, out);
	cr_assert_eq(system(cmd), 0);
}

static int
deliver_with(const char *conf, const char *day_time)
{
	char	 cmd[2048];

	snprintf(cmd, sizeof(cmd), "FORMBACK_CONF='%s' \"$FB_CTL_DIR/"
	    "formback-deliver\" --now %s", conf, day_time);
	return system(cmd);
}

/* The Twilio stand-in's knob ("fail", "invalid") set to value, or removed. */
static void
twilio_knob(const char *knob, const char *value)
{
	char	 p[1024];
	FILE	*f;

	snprintf(p, sizeof(p), "%s.%s", getenv("FB_TWILIO_FILE"), knob);
	if (value == NULL) {
		unlink(p);
		return;
	}
	cr_assert_not_null(f = fopen(p, "w"), "%s", p);
	fprintf(f, "%s\n", value);
	fclose(f);
}

static void
twilio_normal(void)
{
	twilio_knob("fail", NULL);
	twilio_knob("invalid", NULL);
}

/* The last request the stand-in recorded that sent to `to` (E.164). */
static json_object *
twilio_request_to(const char *to)
{
	const char	*t = file_tail(getenv("FB_TWILIO_FILE"));
	const char	*l, *hit = NULL;
	char		 needle[64], line[16384];
	size_t		 n;

	snprintf(needle, sizeof(needle), "\"To\": \"%s\"", to);
	for (l = t; (l = strstr(l, needle)) != NULL; l++)
		hit = l;
	if (hit == NULL)
		return NULL;
	while (hit > t && hit[-1] != '\n')
		hit--;
	n = strcspn(hit, "\n");
	snprintf(line, sizeof(line), "%.*s", (int)n, hit);
	return json_tokener_parse(line);
}

/*
 * The stand-in posts Twilio's status callback of message `sid` to its
 * StatusCallback, signed as `sign` says (good, bad, none); the web
 * server's answer's status, its body into body (bodysz).
 */
static long
twilio_callback(const char *sid, const char *status, const char *error,
    const char *sign, char *body, size_t bodysz)
{
	char		 b[512];
	struct resp	*r;
	long		 st;

	snprintf(b, sizeof(b), "MessageSid=%s&MessageStatus=%s&sign=%s%s%s",
	    sid, status, sign, error != NULL ? "&ErrorCode=" : "",
	    error != NULL ? error : "");
	http_base = getenv("FB_TWILIO_URL");
	r = http("POST", "/_test/callback", NULL, b,
	    "Content-Type: application/x-www-form-urlencoded");
	http_base = NULL;
	cr_assert_eq(r->status, 200, "%s", r->body);
	st = atol(jget(r->json, "status"));
	snprintf(body, bodysz, "%s", jget(r->json, "body"));
	resp_free(r);
	return st;
}

/* The delivery of visitor v: "status error_code provider_id". */
static const char *
delivery_of(const struct fx *f, int v)
{
	return sql_row("SELECT CONCAT_WS(' ', d.status, IFNULL(d.error_code, "
	    "'-'), IFNULL(d.provider_id, '-')) FROM deliveries d JOIN leads l "
	    "ON l.id = d.lead_id WHERE d.tenant_id = '%s' AND l.visitor_id = "
	    "'%08d-5555-4555-8555-555555555555'", f->tenant, v);
}

Test(deliver, twilio_sends_and_its_signed_callback_counts,
    .fini = twilio_normal, .timeout = 90)
{
	struct fx	 f;
	struct resp	*r;
	json_object	*q;
	char		 conf[1024], sid[64], want[256], body[1024];

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "tw", "sms", "live", NULL);
	twilio_conf(conf, sizeof(conf), "");
	abandoned_on(&f, "tw", 1, "090-7810-0001", "2036-02-01");
	cr_assert_eq(deliver_with(conf, "2036-02-01T03:10:00Z"), 0);
	/* at Twilio: the account's basic auth, the form as documented */
	cr_assert_not_null(q = twilio_request_to("+819078100001"));
	cr_assert_str_eq(jget(q, "answer"), "201");
	cr_assert_str_eq(jget(q, "user"), getenv("FB_TWILIO_SID"));
	cr_assert_str_eq(jget(q, "auth_ok"), "true");
	snprintf(want, sizeof(want), "/2010-04-01/Accounts/%s/Messages.json",
	    getenv("FB_TWILIO_SID"));
	cr_assert_str_eq(jget(q, "path"), want);
	cr_assert_str_eq(jget(q, "content_type"),
	    "application/x-www-form-urlencoded");
	cr_assert_str_eq(jget(q, "form.From"), "+815012340000");
	cr_assert_null(jget(q, "form.MessagingServiceSid"));
	snprintf(want, sizeof(want), "%s/hooks/sms/twilio",
	    getenv("FB_TEST_URL"));
	cr_assert_str_eq(jget(q, "form.StatusCallback"), want);
	cr_assert_not_null(strstr(jget(q, "form.Body"), "/r/"), "%s",
	    jget(q, "form.Body"));
	/* libcurl's escaping: '+' and the Japanese text as %XX */
	cr_assert_eq(strncmp(jget(q, "raw"), "To=%2B819078100001&From=%2B81",
	    29),
	    0, "%s", jget(q, "raw"));
	snprintf(sid, sizeof(sid), "%s", jget(q, "sid"));
	json_object_put(q);
	/* the delivery keeps the sid; nothing went to the gateway */
	snprintf(want, sizeof(want), "sent - %s", sid);
	cr_assert_str_eq(delivery_of(&f, 1), want);
	cr_assert_eq(sms_to("9078100001"), 0);
	/* a step on the way changes nothing */
	cr_assert_eq(twilio_callback(sid, "sent", NULL, "good", body,
	    sizeof(body)), 204, "%s", body);
	cr_assert_str_eq(delivery_of(&f, 1), want);
	/* forged or unsigned: refused, nothing changed */
	cr_assert_eq(twilio_callback(sid, "delivered", NULL, "bad", body,
	    sizeof(body)), 403, "%s", body);
	cr_assert_not_null(strstr(body, "\"signature_invalid\""), "%s", body);
	cr_assert_not_null(strstr(body, "\"permission_error\""), "%s", body);
	cr_assert_eq(twilio_callback(sid, "undelivered", "30003", "none", body,
	    sizeof(body)), 403, "%s", body);
	r = http("POST", "/hooks/sms/twilio", NULL, "MessageSid=x",
	    "X-Twilio-Signature: 0/KCTR6DLpKmkAf8muzZqo1nDgQ=\n"
	    "Content-Type: application/x-www-form-urlencoded");
	expect_error(r, 403, "permission_error", "signature_invalid",
	    "X-Twilio-Signature");
	resp_free(r);
	/* Formback's own receipt, with the hook token, is not Twilio's */
	snprintf(body, sizeof(body), "{\"id\":\"%s\",\"status\":\"failed\"}",
	    sid);
	r = http("POST", "/hooks/sms/twilio", NULL, body,
	    "Authorization: Bearer stand-in-hook-token");
	expect_error(r, 403, "permission_error", "signature_invalid",
	    "X-Twilio-Signature");
	resp_free(r);
	cr_assert_str_eq(delivery_of(&f, 1), want);
	/* signed, delivered: the delivery is */
	cr_assert_eq(twilio_callback(sid, "delivered", NULL, "good", body,
	    sizeof(body)), 204, "%s", body);
	snprintf(want, sizeof(want), "delivered - %s", sid);
	cr_assert_str_eq(delivery_of(&f, 1), want);
	r = http("GET", "/api/v1/deliveries?status=delivered", f.live, NULL,
	    NULL);
	cr_assert_eq(json_object_array_length(jobj(r->json, "data")), 1, "%s",
	    r->body);
	resp_free(r);
}

Test(deliver, twilio_refusals_are_final_and_its_busy_answers_retried,
    .fini = twilio_normal, .timeout = 120)
{
	struct fx	 f;
	json_object	*q;
	char		 conf[1024], sid[64], body[1024];

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "twr", "sms", "live", NULL);
	twilio_conf(conf, sizeof(conf), "");
	/* 400, Twilio's 21211: failed at once, the code kept */
	abandoned_on(&f, "twr", 1, "090-7760-0001", "2036-03-01");
	twilio_knob("invalid", "+819077600001");
	cr_assert_eq(deliver_with(conf, "2036-03-01T03:10:00Z"), 0);
	cr_assert_str_eq(delivery_of(&f, 1), "failed twilio_21211 -");
	cr_assert_str_eq(outcome_of(&f, 1), "failed - - 1");
	twilio_normal();
	/* 503, then 429: tried again later, then sent once */
	abandoned_on(&f, "twr", 2, "090-7760-0002", "2036-03-02");
	twilio_knob("fail", "503");
	cr_assert_eq(deliver_with(conf, "2036-03-02T03:10:00Z"), 0);
	cr_assert_str_eq(outcome_of(&f, 2), "scheduled - - 1");
	twilio_knob("fail", "429");
	cr_assert_eq(deliver_with(conf, "2036-03-02T03:20:00Z"), 0);
	cr_assert_str_eq(outcome_of(&f, 2), "scheduled - - 2");
	twilio_normal();
	cr_assert_eq(deliver_with(conf, "2036-03-02T03:40:00Z"), 0);
	cr_assert_eq(strncmp(outcome_of(&f, 2), "sent ", 5), 0, "%s",
	    outcome_of(&f, 2));
	cr_assert_not_null(q = twilio_request_to("+819077600002"));
	snprintf(sid, sizeof(sid), "%s", jget(q, "sid"));
	json_object_put(q);
	/* undelivered, signed: failed with Twilio's error code, told once */
	cr_assert_eq(twilio_callback(sid, "undelivered", "30003", "good", body,
	    sizeof(body)), 204, "%s", body);
	cr_assert_eq(strncmp(delivery_of(&f, 2), "failed twilio_30003 SM", 22),
	    0, "%s", delivery_of(&f, 2));
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM outbox WHERE tenant_id = "
	    "'%s' AND event_type = 'delivery.failed' AND JSON_VALUE(payload, "
	    "'$.error_code') = 'twilio_30003'", f.tenant), "1");
	/* a Messaging Service in place of a sender number */
	twilio_conf(conf, sizeof(conf), "'twilio_messaging_service_sid = "
	    "MG00000000000000000000000000000044'");
	abandoned_on(&f, "twr", 3, "090-7760-0003", "2036-03-03");
	cr_assert_eq(deliver_with(conf, "2036-03-03T03:10:00Z"), 0);
	cr_assert_not_null(q = twilio_request_to("+819077600003"));
	cr_assert_str_eq(jget(q, "form.MessagingServiceSid"),
	    "MG00000000000000000000000000000044");
	cr_assert_null(jget(q, "form.From"));
	json_object_put(q);
	cr_assert_eq(strncmp(delivery_of(&f, 3), "sent - SM", 9), 0, "%s",
	    delivery_of(&f, 3));
	/* a late "delivered" does not undo the failure */
	cr_assert_eq(twilio_callback(sid, "delivered", NULL, "good", body,
	    sizeof(body)), 204, "%s", body);
	cr_assert_eq(strncmp(delivery_of(&f, 2), "failed twilio_30003 SM", 22),
	    0, "%s", delivery_of(&f, 2));
}

/*
 * Signed with twilio_signature() itself (the unit test checks it against
 * Twilio's example): a sid no delivery has is 404, a status Twilio does
 * not list or a malformed sid 400; the query is signed too.
 */
Test(deliver, twilio_callback_names_a_delivery_of_ours)
{
	struct form_field fl[3];
	struct resp	*r;
	char		 url[512], sig[TWILIO_SIGNATURE_LEN + 1], hdr[256];
	const char	*tok = getenv("FB_TWILIO_TOKEN");
	static const char *const sids[] = {
	    "SM00000000000000000000000000000404",
	    "SM00000000000000000000000000000404", "SMx" };
	static const char *const sts[] = { "delivered", "exploded", "failed" };
	static const char *const params[] = { "MessageSid", "MessageStatus",
	    "MessageSid" };
	static const long codes[] = { 404, 400, 400 };
	char		 b[256];
	size_t		 i;

	snprintf(url, sizeof(url), "%s/hooks/sms/twilio",
	    getenv("FB_TEST_URL"));
	for (i = 0; i < NELEM(sids); i++) {
		fl[0] = (struct form_field){ "MessageSid", sids[i] };
		fl[1] = (struct form_field){ "MessageStatus", sts[i] };
		fl[2] = (struct form_field){ "ErrorCode", "30008" };
		cr_assert(twilio_signature(tok, url, fl, 3, sig));
		snprintf(hdr, sizeof(hdr), "X-Twilio-Signature: %s", sig);
		snprintf(b, sizeof(b), "MessageStatus=%s&ErrorCode=30008&"
		    "MessageSid=%s", sts[i], sids[i]);
		r = http("POST", "/hooks/sms/twilio", NULL, b, hdr);
		expect_error(r, codes[i], codes[i] == 404 ? "not_found" :
		    "invalid_request", codes[i] == 404 ? "not_found" :
		    "parameter_invalid", params[i]);
		resp_free(r);
	}
	/* the same fields posted with a query Twilio was not given */
	fl[0] = (struct form_field){ "MessageSid", sids[0] };
	fl[1] = (struct form_field){ "MessageStatus", "delivered" };
	cr_assert(twilio_signature(tok, url, fl, 2, sig));
	snprintf(hdr, sizeof(hdr), "X-Twilio-Signature: %s", sig);
	snprintf(b, sizeof(b), "MessageSid=%s&MessageStatus=delivered",
	    sids[0]);
	r = http("POST", "/hooks/sms/twilio?x=1", NULL, b, hdr);
	expect_error(r, 403, "permission_error", "signature_invalid",
	    "X-Twilio-Signature");
	resp_free(r);
}
