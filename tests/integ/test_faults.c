/*
 * The database failing under a running service: the contract's api_error
 * answers (Errors: 500 internal_error, 503 service_unavailable), never a
 * crash or a hang, and the service recovering once the database is back.
 * Each test undoes what it breaks in its .fini, even when it fails.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

static void
restore_sites(void)
{
	if (strcmp(sql("SELECT COUNT(*) FROM information_schema.tables WHERE "
	    "table_schema = DATABASE() AND table_name = "
	    "'sites_away'"), "1") == 0)
		sql("RENAME TABLE sites_away TO sites");
}

/* A query the database refuses (here: a table gone) is a 500 envelope. */
Test(faults, database_error_is_500_internal_error, .fini = restore_sites)
{
	struct fx	 f;
	struct resp	*r;
	char		 path[128];

	fx_new(&f, "pro", 0);
	/* the list: a worker may answer a site's read from its kept answers */
	snprintf(path, sizeof(path), "/api/v1/sites");
	r = http("GET", path, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200);
	resp_free(r);

	sql("RENAME TABLE sites TO sites_away");
	r = http("GET", path, f.live, NULL, NULL);
	expect_error(r, 500, "api_error", "internal_error", NULL);
	cr_assert_not_null(jget(r->json, "error.request_id"));
	/* the envelope names nothing of the database */
	cr_assert_null(strstr(r->body, "sites_away"));
	resp_free(r);

	restore_sites();
	r = http("GET", path, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200);
	resp_free(r);
}

static void
suppressions_writable(void)
{
	inserts_allowed("suppressions");
}

/*
 * A write the server gives up for a state of its own, nothing of it kept:
 * a Galera view change under the commit (1180, wsrep's "error during
 * commit"; the cluster test's kill of the written node once met it as a
 * 500), a statement interrupted (1317).  The 503 envelope with
 * Retry-After, nothing stored, and the same Idempotency-Key then
 * succeeds, once.
 */
Test(faults, write_given_up_by_the_server_is_503_then_retried,
    .fini = suppressions_writable)
{
	static const int errnos[] = { 1180, 1317 };
	struct fx	 f;
	struct resp	*r;
	char		 body[128], hdr[128];
	size_t		 i;

	fx_new(&f, "pro", 0);
	for (i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
		snprintf(body, sizeof(body), "{\"value\":\"090-7788-%04zu\"}",
		    i);
		snprintf(hdr, sizeof(hdr), "Idempotency-Key: given-up-%d",
		    errnos[i]);
		inserts_refused("suppressions", errnos[i]);
		r = http("POST", "/api/v1/suppressions", f.live, body, hdr);
		expect_error(r, 503, "api_error", "service_unavailable", NULL);
		cr_assert_not_null(resp_header(r, "Retry-After"));
		resp_free(r);
		cr_assert_str_eq(sql("SELECT COUNT(*) FROM suppressions WHERE "
		    "tenant_id = '%s'", f.tenant), i == 0 ? "0" : "1");
		suppressions_writable();
		r = http("POST", "/api/v1/suppressions", f.live, body, hdr);
		cr_assert_eq(r->status, 201, "%d: %ld %s", errnos[i], r->status,
		    r->body);
		resp_free(r);
		r = http("POST", "/api/v1/suppressions", f.live, body, hdr);
		cr_assert_eq(r->status, 201);
		cr_assert_str_eq(resp_header(r, "Idempotency-Replayed"),
		    "true");
		resp_free(r);
		cr_assert_str_eq(sql("SELECT COUNT(*) FROM suppressions WHERE "
		    "tenant_id = '%s'", f.tenant), i == 0 ? "1" : "2");
	}
}

static void
unlock_account(void)
{
	sql("ALTER USER 'formback'@'localhost' ACCOUNT UNLOCK");
	sql("ALTER USER 'formback'@'127.0.0.1' ACCOUNT UNLOCK");
}

/* Every connection of the service killed and no new one allowed: 503. */
Test(faults, database_gone_is_503_then_recovers, .fini = unlock_account)
{
	struct fx	 f;
	struct resp	*r;
	struct tag_ev	 ev = { .type = "page_view",
	    .visitor = "abcdef01-0000-4000-8000-000000000001",
	    .url = "https://shop.example.jp/", .consent = TAG_CONSENT_ABSENT };
	char		 path[128];
	const char	*ids;
	char		*list, *id, *save;
	int		 i;

	fx_new(&f, "pro", 0);
	snprintf(path, sizeof(path), "/api/v1/sites/%s", f.site);
	sql("ALTER USER 'formback'@'localhost' ACCOUNT LOCK");
	sql("ALTER USER 'formback'@'127.0.0.1' ACCOUNT LOCK");
	ids = sql("SELECT GROUP_CONCAT(id) FROM information_schema.processlist "
	    "WHERE user = 'formback'");
	list = strdup(ids);
	cr_assert_not_null(list);
	for (id = strtok_r(list, ",", &save); id != NULL;
	    id = strtok_r(NULL, ",", &save))
		sql("KILL CONNECTION %s", id);
	free(list);

	/* enough requests to reach every pre-forked worker */
	for (i = 0; i < 8; i++) {
		r = http("GET", path, f.live, NULL, NULL);
		expect_error(r, 503, "api_error", "service_unavailable", NULL);
		resp_free(r);
	}
	/* the collector too: the event is not taken, and says so */
	for (i = 0; i < 8; i++) {
		r = tag_ev_send(&f, &ev);
		expect_error(r, 503, "api_error", "service_unavailable", NULL);
		resp_free(r);
	}

	unlock_account();
	for (i = 0; i < 8; i++) {
		r = http("GET", path, f.live, NULL, NULL);
		cr_assert_eq(r->status, 200, "request %d after the database "
		    "came back: %ld %s", i, r->status, r->body);
		resp_free(r);
	}
}

/*
 * A file of the harness's work folder, where harness.sh keeps the
 * servers' pid files beside the MariaDB socket (static storage).
 */
static const char *
work_file(const char *name)
{
	static char	 p[1024];

	snprintf(p, sizeof(p), "%s", getenv("FB_DB_SOCKET"));
	snprintf(strrchr(p, '/'), sizeof(p) - (size_t)(strrchr(p, '/') - p),
	    "/%s", name);
	return p;
}

/* The test MariaDB's process. */
static pid_t
mariadbd_pid(void)
{
	const char	*p = work_file("mysql.pid");
	FILE		*f;
	long		 pid = 0;

	cr_assert_not_null(f = fopen(p, "r"), "%s", p);
	cr_assert_eq(fscanf(f, "%ld", &pid), 1);
	fclose(f);
	return (pid_t)pid;
}

static void
thaw(void)
{
	kill(mariadbd_pid(), SIGCONT);
}

/*
 * A database that stops answering (issue 11, finding 4: SIGSTOP made
 * every request wait the whole outage): the read timeout ends the wait,
 * the answer is the 503 envelope with Retry-After, and the service is
 * back as soon as the database is.
 */
Test(faults, frozen_database_is_503_with_retry_after, .fini = thaw,
    .timeout = 120)
{
	struct fx	 f;
	struct resp	*r;
	struct tag_ev	 ev = { .type = "page_view",
	    .visitor = "abcdef02-0000-4000-8000-000000000001",
	    .url = "https://shop.example.jp/", .consent = TAG_CONSENT_ABSENT };
	char		 path[128];
	int		 i;

	fx_new(&f, "pro", 0);
	snprintf(path, sizeof(path), "/api/v1/sites/%s", f.site);
	/* both workers have a connection and know the key and the site */
	for (i = 0; i < 4; i++) {
		r = http("GET", path, f.live, NULL, NULL);
		cr_assert_eq(r->status, 200);
		resp_free(r);
		r = tag_ev_send(&f, &ev);
		cr_assert_eq(r->status, 204);
		resp_free(r);
	}
	tag_autosettle = false;
	cr_assert_eq(kill(mariadbd_pid(), SIGSTOP), 0);
	r = http("GET", path, f.live, NULL, NULL);
	expect_error(r, 503, "api_error", "service_unavailable", NULL);
	cr_assert_not_null(resp_header(r, "Retry-After"));
	resp_free(r);
	r = tag_ev_send(&f, &ev);
	expect_error(r, 503, "api_error", "service_unavailable", NULL);
	cr_assert_not_null(resp_header(r, "Retry-After"));
	resp_free(r);
	thaw();
	tag_autosettle = true;
	for (i = 0; i < 4; i++) {
		r = http("GET", path, f.live, NULL, NULL);
		cr_assert_eq(r->status, 200,
		    "request %d after the database came "
		    "back: %ld %s", i, r->status, r->body);
		resp_free(r);
	}
}

/*
 * Signal the workers of the harness's web server (kill's -SIG): every
 * formback.fcgi descended from it (lighttpd's children; under Apache,
 * mod_fcgid's process manager's, or with apache_proxy() those of
 * formback.fcgi's own supervisor).  Fails when there is none.
 */
static int
workers_signal(const char *sig)
{
	char	 cmd[2048];

	snprintf(cmd, sizeof(cmd), "top=$(cat '%s'); n=0; for p in $(pgrep -x "
	    "formback.fcgi); do a=$p; while [ \"${a:-1}\" -gt 1 ]; do "
	    "a=$(ps -o ppid= -p \"$a\" | tr -d ' '); if [ \"$a\" = \"$top\" ]; "
	    "then kill -%s \"$p\" && n=$((n + 1)); break; fi; done; done; [ $n "
	    "-gt 0 ]",
	    work_file(apache_proxy() ? "fcgi.pid" : "httpd.pid"), sig);
	return system(cmd);
}

static void
workers_go_on(void)
{
	(void)workers_signal("CONT");
}

/*
 * A worker killed mid-request (issue 11, finding 9: lighttpd answered
 * 500): the client is told 503 with Retry-After in the JSON envelope
 * (under Apache, mod_fcgid's 500 in the envelope), and the next requests
 * are served by the respawned workers.  Behind mod_proxy_fcgi the
 * request waits on formback.fcgi's own socket, which outlives its
 * workers: a respawned one answers it.
 */
Test(faults, killed_worker_is_503, .fini = workers_go_on, .timeout = 60)
{
	struct fx	 f;
	struct resp	*r;
	char		 path[128], cmd[4096], out[512];
	FILE		*p;
	int		 i;

	fx_new(&f, "pro", 0);
	snprintf(path, sizeof(path), "/api/v1/sites/%s", f.site);
	snprintf(out, sizeof(out), "%s.killed", getenv("FB_SMS_FILE"));
	cr_assert_eq(workers_signal("STOP"), 0);
	/* the request waits for a worker; then every worker is killed */
	snprintf(cmd, sizeof(cmd), "rm -f '%s'; (curl -s -i --max-time 30 -H "
	    "'Authorization: Bearer %s' '%s%s' > '%s.tmp' 2>&1; mv '%s.tmp' "
	    "'%s') </dev/null >/dev/null 2>&1 "
	    "&", out, f.live, getenv("FB_TEST_URL"), path,
	    out, out, out);
	cr_assert_eq(system(cmd), 0);
	/*
	 * the request is at a worker's door once the web server has
	 * connected to a worker's socket (lighttpd's fcgi.sock-N, mod_fcgid's
	 * and formback.fcgi's own under fcgid/): a connection not yet
	 * accepted, waiting in the stopped worker's backlog, is a socket of
	 * that path in state 02 (connecting) in /proc/net/unix
	 */
	snprintf(cmd, sizeof(cmd), "i=0; until awk -v d='%s' '$6 == \"02\" && "
	    "index($8, d) == 1 { f = 1 } END { exit !f }' /proc/net/unix; do "
	    "[ $i -lt 400 ] || exit 1; i=$((i + 1)); sleep 0.025; done",
	    work_file("fcgi"));
	cr_assert_eq(system(cmd), 0,
	    "the request never reached a worker's socket");
	cr_assert_eq(workers_signal("KILL"), 0);
	for (i = 0; i < 200 && access(out, R_OK) != 0; i++)
		usleep(50 * 1000);
	cr_assert_not_null(p = fopen(out, "r"), "no answer");
	i = (int)fread(cmd, 1, sizeof(cmd) - 1, p);
	cmd[i > 0 ? i : 0] = '\0';
	fclose(p);
	if (apache_proxy())
		cr_assert_not_null(strstr(cmd, "HTTP/1.1 200"), "%s", cmd);
	else if (apache()) {
		/* mod_fcgid says 500 and no more; the fragment's document */
		cr_assert_not_null(strstr(cmd, "HTTP/1.1 500"), "%s", cmd);
		cr_assert_not_null(strstr(cmd, "\"code\":\"internal_error\""),
		    "%s", cmd);
	} else {
		cr_assert_not_null(strstr(cmd, "HTTP/1.1 503"), "%s", cmd);
		cr_assert_not_null(strstr(cmd, "Retry-After: 5"), "%s", cmd);
		cr_assert_not_null(strstr(cmd,
		    "\"code\":\"service_unavailable\""), "%s", cmd);
	}
	cr_assert_not_null(strstr(cmd,
	    "Content-Type: application/json; charset=utf-8"), "%s", cmd);
	/* the respawned workers answer */
	for (i = 0; i < 50; i++) {
		r = http("GET", path, f.live, NULL, NULL);
		if (r->status == 200)
			break;
		resp_free(r);
		r = NULL;
		usleep(100 * 1000);
	}
	cr_assert_not_null(r, "no worker came back");
	resp_free(r);
}

/*
 * SIGKILL between the commit and the answer (issue 18): the client gets
 * the web server's error, retries with the same Idempotency-Key and gets
 * the stored answer replayed; one effect.  The kill is the test build's
 * fault point (configure --enable-fault-points, X-Formback-Fault).
 */
Test(faults, killed_after_commit_then_the_retry_replays, .timeout = 60)
{
	struct fx	 f;
	struct resp	*r;
	char		 id[40];

	fx_new(&f, "pro", 0);
	r = http("POST", "/api/v1/suppressions", f.live,
	    "{\"value\":\"09012345678\"}",
	    "Idempotency-Key: killed-after-commit\nX-Formback-Fault: "
	    "kill-after-commit");
	cr_assert(r->status == 503 || r->status == 500, "the worker answered "
	    "(a build without --enable-fault-points?): %ld "
	    "%s", r->status, r->body);
	cr_assert_not_null(jget(r->json, "error.code"), "%s", r->body);
	/* behind lighttpd and mod_proxy_fcgi, 503 with Retry-After */
	if (!apache() || apache_proxy()) {
		cr_assert_eq(r->status, 503, "%s", r->body);
		cr_assert_str_eq(resp_header(r, "Retry-After"), "5");
	}
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM suppressions WHERE "
	    "tenant_id = '%s'",
	    f.tenant), "1", "the write was not committed before the kill");
	snprintf(id, sizeof(id), "%s", sql("SELECT id FROM suppressions WHERE "
	    "tenant_id = '%s'", f.tenant));
	r = http("POST", "/api/v1/suppressions", f.live,
	    "{\"value\":\"09012345678\"}",
	    "Idempotency-Key: killed-after-commit");
	cr_assert_eq(r->status, 201, "%s", r->body);
	cr_assert_str_eq(resp_header(r, "Idempotency-Replayed"), "true");
	cr_assert_str_eq(jget(r->json, "id"), id);
	resp_free(r);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM suppressions WHERE "
	    "tenant_id = '%s'",
	    f.tenant), "1");
}

/* The test MariaDB started again as harness.sh started it (scripts/lib.sh). */
static void
db_up(void)
{
	char	 cmd[4096], dir[512];

	snprintf(dir, sizeof(dir), "%s", work_file("mysql.sock"));
	*strrchr(dir, '/') = '\0';
	snprintf(cmd, sizeof(cmd),
	    ". \"$FB_SRC/scripts/lib.sh\"; [ -S '%s/mysql.sock' ] && "
	    "mariadb-admin --no-defaults --socket='%s/mysql.sock' -uroot ping "
	    ">/dev/null 2>&1 || fb_db_start '%s' \"$FB_DB_PORT\" "
	    ">/dev/null", dir, dir, dir);
	(void)system(cmd);
}

/*
 * MariaDB stopped and started again while visitors' events and API reads
 * keep coming (issue 18): every answer is the result or the 503 envelope
 * with Retry-After, none waits longer than the timeouts (db_connect_timeout
 * + db_read_timeout, 15 s), the service recovers with nothing restarted
 * but the database, and every event acknowledged 204 is stored.
 */
Test(faults, database_restarted_under_load, .fini = db_up, .timeout = 240)
{
	enum { N = 400 };
	struct fx	 f;
	char		 cmd[8192], out[512], line[256], dir[512];
	FILE		*p;
	int		 n, acked = 0, down = 0, last_ok = 0, reads_ok = 0;

	fx_new(&f, "pro", 0);
	snprintf(out, sizeof(out), "%s.load", getenv("FB_SMS_FILE"));
	snprintf(dir, sizeof(dir), "%s", work_file("mysql.sock"));
	*strrchr(dir, '/') = '\0';
	/* the load: N events, each a visit of its own, and a read after each */
	snprintf(cmd, sizeof(cmd),
	    "rm -f '%s' '%s.done'; (i=0; while [ $i -lt %d ]; do "
	    "i=$((i + 1)); v=$(printf 'dbdbdbdb-0000-4000-8000-%%012d' $i); "
	    "curl -s -o /dev/null --max-time 60 -H 'Content-Type: text/plain' "
	    "-w \"ev|%%{http_code}|%%{time_total}|"
	    "%%header{retry-after}|%%{content_type}\\n\" "
	    "--data-binary \"{\\\"v\\\":1,\\\"site\\\":\\\"%s\\\","
	    "\\\"visitor\\\":\\\"$v\\\",\\\"session\\\":\\\"$v\\\","
	    "\\\"type\\\":\\\"page_view\\\",\\\"url\\\":"
	    "\\\"https://shop.example.jp/\\\"}\" '%s/tag/v1/events'; "
	    "curl -s -o /dev/null --max-time 60 -H 'Authorization: Bearer %s' "
	    "-w \"api|%%{http_code}|%%{time_total}|"
	    "%%header{retry-after}|%%{content_type}\\n\" "
	    "'%s/api/v1/sites/%s'; done >'%s' 2>&1; touch '%s.done') "
	    "</dev/null >/dev/null 2>&1 &", out, out, N, f.site_pk,
	    getenv("FB_TEST_URL"), f.live, getenv("FB_TEST_URL"), f.site,
	    out, out);
	cr_assert_eq(system(cmd), 0);
	/* a while of normal service, then the database goes */
	snprintf(cmd, sizeof(cmd),
	    "i=0; until [ \"$(grep -c '^ev|204' '%s' 2>/dev/null)\" "
	    "-ge 40 ] || [ $i -gt 600 ]; do sleep 0.05; i=$((i + 1)); "
	    "done", out);
	cr_assert_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd),
	    ". \"$FB_SRC/scripts/lib.sh\"; fb_db_stop '%s'; "
	    "[ ! -S '%s/mysql.sock' ] || ! mariadb-admin --no-defaults "
	    "--socket='%s/mysql.sock' -uroot ping >/dev/null "
	    "2>&1", dir, dir, dir);
	cr_assert_eq(system(cmd), 0, "the database did not stop");
	/* refused while it is away */
	snprintf(cmd, sizeof(cmd),
	    "i=0; until [ \"$(grep -c '^ev|503' '%s')\" -ge 10 ] || "
	    "[ $i -gt 600 ]; do sleep 0.05; i=$((i + 1)); done", out);
	cr_assert_eq(system(cmd), 0);
	db_up();
	snprintf(cmd, sizeof(cmd),
	    "i=0; until [ -f '%s.done' ] || [ $i -gt 3000 ]; do "
	    "sleep 0.05; i=$((i + 1)); done; [ -f '%s.done' ]", out, out);
	cr_assert_eq(system(cmd), 0, "the load did not end");

	cr_assert_not_null(p = fopen(out, "r"));
	for (n = 0; fgets(line, sizeof(line), p) != NULL; n++) {
		char	*l = line, *kind, *code, *secs, *ra, *ct;

		line[strcspn(line, "\n")] = '\0';
		kind = strsep(&l, "|");
		code = strsep(&l, "|");
		secs = strsep(&l, "|");
		ra = strsep(&l, "|");
		ct = l;
		cr_assert_not_null(ct, "%s", line);
		cr_assert_lt(strtod(secs, NULL), 15.5,
		    "an answer waited: %s|%s|%s",
		    kind, code, secs);
		if (strcmp(code, "503") == 0) {
			cr_assert_str_eq(ra, "5", "503 without Retry-After");
			cr_assert_str_eq(ct, "application/json; charset=utf-8");
			down++;
			last_ok = 0;
			continue;
		}
		if (strcmp(kind, "ev") == 0) {
			cr_assert_str_eq(code, "204", "an event answered %s %s",
			    code, ct);
			acked++;
		} else {
			cr_assert_str_eq(code, "200", "a read answered %s %s",
			    code, ct);
			reads_ok++;
		}
		last_ok++;
	}
	fclose(p);
	cr_assert_eq(n, 2 * N);
	cr_assert_geq(down, 10);
	/* back without restarting anything: the tail of the load all served */
	cr_assert_geq(last_ok, 20,
	    "the service did not recover (%d served at the end)",
	    last_ok);
	cr_assert_gt(reads_ok, 0);
	/* every acknowledged event kept (one refused as the database went may
	 * have been stored all the same: at least, never fewer) */
	tag_settle();
	cr_assert_str_eq(sql("SELECT COUNT(*) >= %d AND COUNT(*) <= %d FROM "
	    "tag_events WHERE site_id = '%s'", acked, N, f.site), "1", "%d "
	    "acknowledged, %s stored",
	    acked, sql("SELECT COUNT(*) FROM tag_events WHERE site_id = '%s'",
	    f.site));
}

/*
 * db_host names several servers (issue 19): the first that answers is
 * used, a dead one before it costs its connect timeout at most.
 */
Test(faults, db_host_list_takes_the_next_server, .timeout = 60)
{
	char	 conf[512], cmd[4096];

	snprintf(conf, sizeof(conf), "%s.hosts.conf", getenv("FORMBACK_CONF"));
	/* the harness's file over TCP: port 9 answers nothing on loopback */
	snprintf(cmd, sizeof(cmd),
	    "grep -v -e '^db_socket' -e '^db_host' -e '^db_port' "
	    "\"$FORMBACK_CONF\" > '%s' && echo \"db_host = 127.0.0.1:9, "
	    "[::1]:9 , 127.0.0.1:$FB_DB_PORT\" >> '%s' && "
	    "\"$FB_CTL\" -c '%s' status >/dev/null", conf, conf, conf);
	cr_assert_eq(system(cmd), 0, "the third server was not reached");
	snprintf(cmd, sizeof(cmd), "grep -v -e '^db_host' '%s' > '%s.dead' && "
	    "echo 'db_host = 127.0.0.1:9' >> '%s.dead' && "
	    "\"$FB_CTL\" -c '%s.dead' status >/dev/null "
	    "2>&1", conf, conf, conf, conf);
	cr_assert_eq(WEXITSTATUS(system(cmd)), 1, "no server answers: exit 1");
}
