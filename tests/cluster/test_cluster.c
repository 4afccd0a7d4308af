/*
 * Formback scaled out (issue 19), against what scripts/cluster starts: a
 * 3-node MariaDB Galera cluster, HAProxy writing through one node at a
 * time, web host A (through HAProxy) and web host B (db_host lists the
 * three nodes), and two cron hosts (the cron jobs with A's and with B's
 * configuration).  scripts/cluster exports, besides the integration
 * suite's variables (harness.h; FB_TEST_URL is host A, FB_DB_SOCKET a
 * node's socket):
 *   FB_TEST_URL_B    web host B
 *   FORMBACK_CONF_B  host B's configuration (cron host B)
 *   FB_CLUSTER       scripts/cluster, for node-kill N and node-start N
 *   FB_CLUSTER_DIR   its directory (nodeN/mysql.sock)
 *   FB_CLUSTER_SECS  how long the load of the failover test runs
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <curl/curl.h>

#include "../integ/harness.h"

/* Milliseconds of the wall clock: the load's children and the test compare. */
static long long
now_ms(void)
{
	struct timespec	 t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* scripts/cluster's command `what` ("node-kill 1"); its exit status. */
static int
cluster(const char *what)
{
	char	 cmd[1024];

	snprintf(cmd, sizeof(cmd), "\"$FB_CLUSTER\" %s >&2", what);
	return system(cmd);
}

/* Point sql() at node n's socket (the harness reads FB_DB_SOCKET each time). */
static void
sql_on(int n)
{
	char	 s[512];

	snprintf(s, sizeof(s), "%s/node%d/mysql.sock", getenv("FB_CLUSTER_DIR"),
	    n);
	setenv("FB_DB_SOCKET", s, 1);
}

/* A cron job of host `h` ('a' or 'b'): "FORMBACK_CONF=... bin args". */
static void
cron_cmd(char *out, size_t n, char h, const char *bin, const char *args)
{
	snprintf(out, n, "FORMBACK_CONF=\"$%s\" exec \"$FB_CTL_DIR/%s\" %s",
	    h == 'a' ? "FORMBACK_CONF" : "FORMBACK_CONF_B", bin, args);
}

/* Lines of `path` (a stand-in's log) that contain `needle`. */
static int
count_in(const char *path, const char *needle)
{
	char	 line[65536];
	FILE	*f = fopen(path, "r");
	int	 n = 0;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, needle) != NULL)
			n++;
	if (f != NULL)
		fclose(f);
	return n;
}

/* `n` GETs of the site to `base`, 4 at a time, in the background: each
 * status on a line of `out`. */
static pid_t
burst(const char *base, const struct fx *f, int n, const char *out)
{
	return spawn("seq %d | xargs -P 4 -I{} curl -s -o /dev/null --max-time "
	    "30 -w '%%{http_code}\\n' -H 'Authorization: Bearer %s' "
	    "'%s/api/v1/sites/%s' > '%s'", n, f->live, base, f->site, out);
}

/*
 * The rate limit is one count in InnoDB, replicated: with a tenant limit
 * of 40 requests per 60 seconds, 100 requests spread at once over both
 * web hosts admit exactly 40 (contract: Limits).
 */
Test(cluster, rate_limit_exact_across_both_web_hosts, .timeout = 120)
{
	struct fx	 f;
	char		 out[2][512];
	pid_t		 p[2];
	int		 i;

	fx_new(&f, "pro", 40);
	for (i = 0; i < 2; i++) {
		snprintf(out[i], sizeof(out[i]), "%s/burst.%d",
		    getenv("FB_CLUSTER_DIR"), i);
		p[i] = burst(getenv(i == 0 ? "FB_TEST_URL" : "FB_TEST_URL_B"),
		    &f, 50,
		    out[i]);
	}
	for (i = 0; i < 2; i++)
		cr_assert_eq(reap(p[i], 60), 0);
	cr_assert_eq(count_in(out[0], "200") + count_in(out[1], "200"), 40,
	    "admitted: host A %d, host B %d", count_in(out[0], "200"),
	    count_in(out[1], "200"));
	cr_assert_eq(count_in(out[0], "429") + count_in(out[1], "429"), 60);
	cr_assert_gt(count_in(out[0], "200"), 0);
	cr_assert_gt(count_in(out[1], "200"), 0);
}

/*
 * Wait (30 s at most) until `path` (a stand-in's log) holds `n` lines
 * with `needle`: the pass that sends them is under way.
 */
static void
wait_lines(const char *path, const char *needle, int n)
{
	int	 i;

	for (i = 0; i < 3000 && count_in(path, needle) < n; i++)
		usleep(10000);
	cr_assert_geq(count_in(path, needle), n,
	    "no pass under way: %d of %d %s",
	    count_in(path, needle), n, needle);
}

/* Did the wait status `st` come of the kill, not of the pass's end? */
static bool
killed_mid_pass(int st)
{
	return st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

/*
 * Webhook deliveries of the receiver's log under `path`: total, distinct ids.
 */
static void
hooks_received(const char *path, int *total, int *distinct)
{
	char	 cmd[1024];
	FILE	*p;

	snprintf(cmd, sizeof(cmd),
	    "grep -F '\"path\": \"%s\"' \"$FB_HOOK_FILE\" 2>/dev/null | "
	    "grep -o '\"webhook-id\": \"[^\"]*\"' | sort | uniq -c | "
	    "awk '{ t += $1; d++ } END { print t + 0, d + 0 }'", path);
	cr_assert_not_null(p = popen(cmd, "r"));
	cr_assert_eq(fscanf(p, "%d %d", total, distinct), 2);
	pclose(p);
}

/*
 * Two cron hosts drain one backlog of deliveries and of webhooks, one of
 * them killed mid-pass: every lead gets its one delivery, nobody is
 * messaged twice, every event reaches the endpoint; the passes claim with
 * token and lease in InnoDB (design 6), so what the killed host held is
 * taken over once its lease has run out.
 */
Test(cluster, two_cron_hosts_drain_one_backlog, .fini = sms_gateway_normal,
    .timeout = 300)
{
	enum { N = 60 };
	struct fx	 f;
	struct resp	*r;
	char		 cmd[2][2048], b[1024], at[2][32], path[64], tel[16];
	const char	*base[2] = { getenv("FB_TEST_URL"),
	    getenv("FB_TEST_URL_B") };
	pid_t		 a, bb;
	int		 i, sent, unknown, total, distinct, events;
	time_t		 t;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "cl", "sms", "live", NULL);
	snprintf(path, sizeof(path), "/cluster-%.8s", f.tenant);
	snprintf(b, sizeof(b),
	    "{\"url\":\"https://hooks.formback.test:%s/slow%s\","
	    "\"events\":[\"lead.captured\"]}", getenv("FB_HOOK_PORT"), path);
	r = http("POST", "/api/v1/webhook_endpoints", f.live, b, NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	snprintf(path, sizeof(path), "/slow/cluster-%.8s", f.tenant);
	/* the leads come in through both web hosts */
	tag_autosettle = false;
	for (i = 0; i < N; i++) {
		snprintf(tel, sizeof(tel), "090-8801-%04d", i + 1);
		http_base = base[i % 2];
		cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){
		    .type = "capture",
		    .visitor = "%08d-1919-4919-8919-191919191911", .n = i + 1,
		    .campaign = "cl", .role = "form", .tel = tel }), 204);
	}
	http_base = NULL;
	tag_autosettle = true;
	tag_settle();
	cron_cmd(cmd[0], sizeof(cmd[0]), 'a', "formback-abandon",
	    "--now 2035-06-06T03:00:00Z");
	cr_assert_eq(system(cmd[0]), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND status = 'scheduled'", f.tenant), "60");

	/* deliveries: both hosts at once over a slow gateway, A killed */
	sms_gateway("delay", "0.1");
	cron_cmd(cmd[0], sizeof(cmd[0]), 'a', "formback-deliver",
	    "--now 2035-06-06T03:10:00Z --jobs 2");
	cron_cmd(cmd[1], sizeof(cmd[1]), 'b', "formback-deliver",
	    "--now 2035-06-06T03:10:00Z --jobs 2");
	/* A first: once its first sends are out it holds claimed batches
	 * (16 a claimer, 1.6 s each); B joins, then A is killed */
	a = spawn("%s", cmd[0]);
	wait_lines(getenv("FB_SMS_FILE"), "\"to\": \"+81908801", 2);
	bb = spawn("%s", cmd[1]);
	usleep(100000);
	(void)kill(a, SIGKILL);
	cr_assert(killed_mid_pass(reap(a, 5)),
	    "cron host A's pass ended before its kill");
	cr_assert_eq(reap(bb, 120), 0, "cron host B's pass failed");
	/* past the lease of what A held: host B takes it over */
	cron_cmd(cmd[1], sizeof(cmd[1]), 'b', "formback-deliver",
	    "--now 2035-06-06T03:40:00Z --jobs 2");
	cr_assert_eq(system(cmd[1]), 0);
	sms_gateway_normal();
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads l WHERE l.tenant_id = "
	    "'%s' AND (SELECT COUNT(*) FROM deliveries d WHERE d.lead_id = "
	    "l.id) <> 1", f.tenant),
	    "0", "a lead without its one delivery");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND NOT (status = 'sent' OR (status = 'failed' AND "
	    "error_code = 'outcome_unknown'))", f.tenant), "0", "%s",
	    sql_row("SELECT GROUP_CONCAT(DISTINCT CONCAT(status, ' ', "
	    "IFNULL(error_code, ''))) FROM deliveries WHERE tenant_id = '%s'",
	    f.tenant));
	sent = atoi(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id = "
	    "'%s' AND status = 'sent'", f.tenant));
	unknown = N - sent;
	/* at most the sends A had in flight: two jobs */
	cr_assert_leq(unknown, 2, "%d deliveries of unknown outcome", unknown);
	for (i = 0; i < N; i++) {
		snprintf(b, sizeof(b), "\"to\": \"+819088%02d%04d\"", 1, i + 1);
		cr_assert_leq(count_in(getenv("FB_SMS_FILE"), b), 1,
		    "%s messaged twice", b);
		if (count_in(getenv("FB_SMS_FILE"), b) == 0)
			cr_assert_str_eq(sql("SELECT d.status FROM deliveries "
			    "d JOIN leads l ON l.id = d.lead_id WHERE "
			    "d.tenant_id = '%s' AND l.visitor_id = "
			    "'%08d-1919-4919-8919-191919191911'", f.tenant,
			    i + 1), "failed",
			    "lead %d: sent, but not at the gateway", i + 1);
	}

	/* webhooks: the same, over the receiver's slow path */
	events = atoi(sql("SELECT COUNT(*) FROM outbox WHERE tenant_id = '%s' "
	    "AND event_type = 'lead.captured'", f.tenant));
	cr_assert_eq(events, N);
	t = time(NULL);
	strftime(at[0], sizeof(at[0]), "%Y-%m-%dT%H:%M:%SZ",
	    gmtime(&(time_t){ t + 5 }));
	strftime(at[1], sizeof(at[1]), "%Y-%m-%dT%H:%M:%SZ",
	    gmtime(&(time_t){ t + 400 }));
	snprintf(b, sizeof(b), "--limit 100000 --jobs 4 --now %s", at[0]);
	cron_cmd(cmd[0], sizeof(cmd[0]), 'a', "formback-webhooks", b);
	cron_cmd(cmd[1], sizeof(cmd[1]), 'b', "formback-webhooks", b);
	a = spawn("%s", cmd[0]);
	wait_lines(getenv("FB_HOOK_FILE"), path, 2);
	bb = spawn("%s", cmd[1]);
	usleep(100000);
	(void)kill(a, SIGKILL);
	cr_assert(killed_mid_pass(reap(a, 5)),
	    "cron host A's webhook pass ended before its kill");
	cr_assert_eq(reap(bb, 120), 0, "cron host B's webhook pass failed");
	hooks_received(path, &total, &distinct);
	cr_assert_eq(total, distinct,
	    "%d of %d events sent twice while both ran",
	    total - distinct, distinct);
	snprintf(b, sizeof(b), "--limit 100000 --jobs 4 --now %s", at[1]);
	cron_cmd(cmd[1], sizeof(cmd[1]), 'b', "formback-webhooks", b);
	cr_assert_eq(system(cmd[1]), 0);
	hooks_received(path, &total, &distinct);
	cr_assert_eq(distinct, N, "%d of %d events arrived", distinct, N);
	/* at least once (contract: Events): again only what A had in flight */
	cr_assert_leq(total - distinct, 4, "%d events sent twice",
	    total - distinct);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_deliveries d JOIN "
	    "webhook_endpoints e ON e.id = d.endpoint_id WHERE e.tenant_id = "
	    "'%s' AND d.status <> 'succeeded'", f.tenant), "0");
}

/*
 * The load of the failover test: one client per web host, each taking
 * turns at a suppression (POST with an Idempotency-Key of its own, the
 * same key on every retry) and a tag event (a capture of a visitor of its
 * own), each retried on 503 (with the Retry-After the answer gives, at
 * most 1 s here) until answered, 90 s at most.  One line per answer:
 * "kind client index status started_ms ended_ms".
 */
struct load {
	const char	*base;
	const char	*key;
	const char	*site_pk;
	int		 client;
	long long	 until;
	FILE		*log;
};

static size_t
discard(char *p, size_t sz, size_t n, void *u)
{
	(void)p;
	(void)u;
	return sz * n;
}

static long
load_send(CURL *c, const struct load *l, const char *kind, int i,
    const char *path,
    const char *body, const char *hdr)
{
	struct curl_slist *h = NULL;
	char		 url[512];
	long		 st = 0;
	long long	 t0 = now_ms();

	snprintf(url, sizeof(url), "%s%s", l->base, path);
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	h = curl_slist_append(h, "Content-Type: application/json");
	if (hdr != NULL)
		h = curl_slist_append(h, hdr);
	if (strcmp(kind, "w") == 0) {
		char	 auth[160];

		snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		    l->key);
		h = curl_slist_append(h, auth);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &st);
	curl_slist_free_all(h);
	fprintf(l->log, "%s %d %d %ld %lld %lld\n", kind, l->client, i, st, t0,
	    now_ms());
	fflush(l->log);
	return st;
}

static void
load_run(const struct load *l)
{
	CURL		*c = curl_easy_init();
	char		 body[1024], hdr[128], v[40];
	int		 i;
	long		 st;
	long long	 giveup;

	for (i = 1; now_ms() < l->until; i++) {
		snprintf(body, sizeof(body),
		    "{\"value\":\"090-99%02d-%04d\",\"memo\":"
		    "\"failover %d-%d\"}", l->client, i, l->client, i);
		snprintf(hdr, sizeof(hdr), "Idempotency-Key: failover-%d-%d-%s",
		    l->client, i,
		    l->site_pk);
		giveup = now_ms() + 90000;
		while ((st = load_send(c, l, "w", i, "/api/v1/suppressions",
		    body, hdr)) != 201 &&
		    now_ms() < giveup)
			usleep(st == 503 ? 1000000 : 200000);
		snprintf(v, sizeof(v), "%08d-2929-4929-8929-29292929292%d",
		    i, l->client);
		tag_ev_body(NULL, &(struct tag_ev){ .type = "page_view",
		    .visitor = v, .url = "https://shop.example.jp/",
		    .consent = TAG_CONSENT_ABSENT, .site = l->site_pk },
		    body, sizeof(body));
		giveup = now_ms() + 90000;
		while ((st = load_send(c, l, "e", i, "/tag/v1/events", body,
		    NULL)) != 204 &&
		    now_ms() < giveup)
			usleep(st == 503 ? 1000000 : 200000);
	}
	curl_easy_cleanup(c);
}

/* Start the load of client `n` on `base` in a child; its log in `path`. */
static pid_t
load_start(const struct fx *f, int n, const char *base, const char *path,
    long long until)
{
	struct load	 l = { base, f->live, f->site_pk, n, until, NULL };
	pid_t		 pid;

	cr_assert_neq(pid = fork(), -1);
	if (pid != 0)
		return pid;
	if ((l.log = fopen(path, "w")) == NULL)
		_exit(1);
	load_run(&l);
	fclose(l.log);
	_exit(0);
}

/*
 * The writer node killed (SIGKILL) under a load of API writes and tag
 * events through both web hosts: every answer is the result or the 503
 * envelope (never a hang, never a 5xx of another kind), the service
 * answers again within 30 s (README: Scaling out), every acknowledged
 * write is on the surviving nodes, a retried Idempotency-Key has one
 * effect and replays afterwards; then the node is started again with no
 * manual step, catches up (IST) and holds what the others hold.
 */
Test(cluster, writer_killed_under_load_then_rejoins, .timeout = 600)
{
	struct fx	 f;
	struct resp	*r;
	char		 logs[2][512], line[256], hdr[128], body[256], want[64];
	const char	*base[2] = { getenv("FB_TEST_URL"),
	    getenv("FB_TEST_URL_B") };
	const char	*secs = getenv("FB_CLUSTER_SECS");
	long long	 until, killed, last_ok[2] = { 0, 0 }, gap[2] = { 0,
	    0 }, worst;
	int		 i, k, writes = 0, events = 0, refused = 0, n;
	pid_t		 pid[2];
	FILE		*p;

	fx_new(&f, "pro", 1000000);
	sql_on(2);
	until = now_ms() + 1000LL * (secs != NULL ? atoi(secs) : 40);
	for (i = 0; i < 2; i++) {
		snprintf(logs[i], sizeof(logs[i]), "%s/load.%d",
		    getenv("FB_CLUSTER_DIR"), i);
		pid[i] = load_start(&f, i + 1, base[i], logs[i], until);
	}
	sleep(3);
	killed = now_ms();
	cr_assert_eq(cluster("node-kill 1"), 0);
	for (i = 0; i < 2; i++) {
		int	 st;

		cr_assert_eq(waitpid(pid[i], &st, 0), pid[i]);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "load %d: %d",
		    i, st);
	}

	/* every answer: the result, or 503; the outage each host saw */
	for (i = 0; i < 2; i++) {
		cr_assert_not_null(p = fopen(logs[i], "r"));
		last_ok[i] = killed;
		while (fgets(line, sizeof(line), p) != NULL) {
			char		 kind[4];
			int		 c, idx;
			long		 st;
			long long	 t0, t1;

			cr_assert_eq(sscanf(line, "%3s %d %d %ld %lld %lld",
			    kind, &c, &idx,
			    &st, &t0, &t1), 6, "%s", line);
			cr_assert_lt(t1 - t0, 16000,
			    "an answer waited %lld ms: %s", t1 - t0,
			    line);
			if (st == 503) {
				refused++;
				continue;
			}
			cr_assert_eq(st, kind[0] == 'w' ? 201 : 204,
			    "answered %ld: %s", st, line);
			if (kind[0] == 'w')
				writes++;
			else
				events++;
			if (t1 > killed && last_ok[i] >= killed &&
			    t1 - last_ok[i] > gap[i])
				gap[i] = t1 - last_ok[i];
			if (t1 > killed)
				last_ok[i] = t1;
		}
		fclose(p);
		cr_assert_gt(last_ok[i], killed,
		    "host %c never answered after the kill",
		    'A' + i);
	}
	worst = gap[0] > gap[1] ? gap[0] : gap[1];
	fprintf(stderr,
	    "cluster: writer killed: host A answered again after %lld ms, "
	    "host B after %lld ms; %d writes, %d events acknowledged, %d "
	    "answers 503\n",
	    gap[0], gap[1], writes, events, refused);
	cr_assert_leq(worst, 30000, "the service was away %lld ms", worst);

	/* every acknowledged write present, once, on the surviving nodes */
	for (n = 2; n <= 3; n++) {
		sql_on(n);
		cr_assert_str_eq(sql("SELECT COUNT(*) FROM suppressions WHERE "
		    "tenant_id = '%s'",
		    f.tenant), sql("SELECT %d", writes), "node%d", n);
	}
	tag_settle();
	cr_assert_str_eq(sql("SELECT COUNT(DISTINCT visitor_id) FROM "
	    "tag_events WHERE site_id = "
	    "'%s'", f.site), sql("SELECT %d", events));
	/* a retried key replays: same answer, no second effect */
	for (i = 0; i < 2; i++)
		for (k = 1; k <= 3; k++) {
			http_base = base[1 - i];
			snprintf(hdr, sizeof(hdr),
			    "Idempotency-Key: failover-%d-%d-%s", i + 1, k,
			    f.site_pk);
			snprintf(body, sizeof(body),
			    "{\"value\":\"090-99%02d-%04d\",\"memo\":"
			    "\"failover %d-%d\"}", i + 1, k, i + 1, k);
			r = http("POST", "/api/v1/suppressions", f.live, body,
			    hdr);
			cr_assert_eq(r->status, 201, "%s", r->body);
			cr_assert_str_eq(resp_header(r, "Idempotency-Replayed"),
			    "true");
			snprintf(want, sizeof(want), "%s",
			    sql("SELECT id FROM suppressions WHERE "
			    "tenant_id = '%s' AND memo = 'failover "
			    "%d-%d'", f.tenant, i + 1, k));
			cr_assert_str_eq(jget(r->json, "id"), want, "%s",
			    r->body);
			resp_free(r);
		}
	http_base = NULL;
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM suppressions WHERE "
	    "tenant_id = '%s'",
	    f.tenant), sql("SELECT %d", writes));

	/* node1 again: no manual step; it catches up and holds the same */
	cr_assert_eq(cluster("node-start 1"), 0);
	{
		char	 sums[3][256];

		for (n = 1; n <= 3; n++) {
			sql_on(n);
			snprintf(sums[n - 1], sizeof(sums[0]), "%s",
			    sql_row("SELECT COUNT(*), "
			    "BIT_XOR(CRC32(CONCAT(id, HEX(bidx), memo))) FROM "
			    "suppressions WHERE tenant_id = '%s'", f.tenant));
		}
		cr_assert_str_eq(sums[0], sums[1], "node1 and node2 differ");
		cr_assert_str_eq(sums[1], sums[2], "node2 and node3 differ");
	}
	/* and the service goes on through both hosts */
	for (i = 0; i < 2; i++) {
		int	 tries;

		http_base = base[i];
		for (tries = 0; tries < 60; tries++) {
			r = http("GET", "/api/v1/suppressions?limit=1", f.live,
			    NULL, NULL);
			if (r->status == 200)
				break;
			resp_free(r);
			r = NULL;
			sleep(1);
		}
		cr_assert_not_null(r,
		    "host %c did not answer after node1 rejoined", 'A' + i);
		resp_free(r);
	}
	http_base = NULL;
	sql_on(1);
}
