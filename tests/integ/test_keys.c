/*
 * A master key rotation that ends (issue 43 item 7; formback.conf(5)
 * "KEY ROTATION", formbackctl(8) "keys rotate"): contacts sealed and
 * indexed under the harness's key 0, a new key 7 made current (the
 * service restarted with it), the rotation killed midway through the
 * re-seal and through the blind indexes' re-key and run again to its
 * end while the service captures, looks contacts up and sends; then key
 * 0 dropped from the file and everything still works: sign-in, list
 * cursors, suppressions, the personal-data export; last, the data goes
 * back to key 0 for the tests after.
 */
#include <dirent.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <sodium.h>

#include "formback.h"
#include "harness.h"
#include "pii.h"

#define PW	"correct horse battery"

static char	 dir[] = "/tmp/fbkeysXXXXXX";

/* Visitor n of the tests below. */
#define VISITOR	"%08d-3333-4333-8333-333333333333"

/*
 * A configuration as the harness's with pii_key_file `name`.key holding
 * `keys` (lines "id:hex"); its path in out.
 */
static void
key_conf(const char *name, const char *keys, char out[300])
{
	char	 line[4096], path[300];
	FILE	*in, *o;

	snprintf(path, sizeof(path), "%s/%s.key", dir, name);
	cr_assert_not_null(o = fopen(path, "w"));
	fputs(keys, o);
	fclose(o);
	snprintf(out, 300, "%s/%s.conf", dir, name);
	cr_assert_not_null(o = fopen(out, "w"));
	cr_assert_not_null(in = fopen(getenv("FORMBACK_CONF"), "r"));
	while (fgets(line, sizeof(line), in) != NULL)
		if (strncmp(line, "pii_key_file", 12) == 0)
			fprintf(o, "pii_key_file = %s\n", path);
		else
			fputs(line, o);
	fclose(in);
	fclose(o);
}

/* formbackctl -c conf keys <args>: its answer (caller puts it). */
static json_object *
keys(const char *conf, const char *args)
{
	json_object	*o = NULL;

	cr_assert_eq(ctl(&o, "-c %s keys %s", conf, args), 0, "keys %s", args);
	cr_assert_not_null(o);
	return o;
}

/* Key `id`'s entry of a keys status answer, as "needed/index_key". */
static const char *
key_entry(json_object *st, unsigned id, const char *member)
{
	static char	 p[64];
	char		 want[16];
	int		 i;

	snprintf(want, sizeof(want), "%u", id);
	for (i = 0; i < 8; i++) {
		snprintf(p, sizeof(p), "keys.%d.id", i);
		if (jget(st, p) != NULL && strcmp(jget(st, p), want) == 0) {
			snprintf(p, sizeof(p), "keys.%d.%s", i, member);
			return jget(st, p);
		}
	}
	return NULL;
}

/* Every sealed column of the tenant's rows opens under the file of c. */
static void
all_open(const struct conf *c, const char *tenant)
{
	static const char *const q[] = {
	    "SELECT GROUP_CONCAT(CONCAT_WS(',', id, pii_key_id, "
	    "IFNULL(HEX(tel_sealed), '-'), IFNULL(HEX(email_sealed), '-')) "
	    "SEPARATOR ';') FROM leads WHERE tenant_id = '%s'",
	    "SELECT GROUP_CONCAT(CONCAT_WS(',', id, secret_key_id, "
	    "HEX(secret_sealed), '-') SEPARATOR ';') FROM webhook_endpoints "
	    "WHERE tenant_id = '%s'",
	    "SELECT GROUP_CONCAT(CONCAT_WS(',', id, pii_key_id, "
	    "HEX(contact_sealed), '-') SEPARATOR ';') FROM test_recipients "
	    "WHERE tenant_id = '%s' AND contact_sealed IS NOT NULL",
	    "SELECT GROUP_CONCAT(CONCAT_WS(',', member_id, secret_key_id, "
	    "HEX(secret_sealed), '-') SEPARATOR ';') FROM member_totp "
	    "WHERE tenant_id = '%s'",
	    "SELECT GROUP_CONCAT(CONCAT_WS(',', id, code_key_id, "
	    "HEX(code_sealed), '-') SEPARATOR ';') FROM member_recovery_codes "
	    "WHERE tenant_id = '%s'" };
	static const char *const fields[][2] = { { "tel", "email" },
	    { "webhook_secret", NULL }, { "test_recipient", NULL },
	    { "totp_secret", NULL }, { "recovery_code", NULL } };
	char		*all, *row, *sp, *id, *key, *col[2], out[600];
	unsigned char	 bin[700];
	size_t		 n, i, k, opened = 0;

	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		cr_assert_not_null(all = strdup(sql(q[i], tenant)));
		for (row = strtok_r(all, ";", &sp); row != NULL;
		    row = strtok_r(NULL, ";", &sp)) {
			id = strsep(&row, ",");
			key = strsep(&row, ",");
			col[0] = strsep(&row, ",");
			col[1] = row;
			for (k = 0; k < 2; k++) {
				if (col[k] == NULL || strcmp(col[k], "-") == 0)
					continue;
				cr_assert_eq(sodium_hex2bin(bin, sizeof(bin),
				    col[k], strlen(col[k]), NULL, &n, NULL), 0);
				cr_assert(pii_open_any(c, atoll(key), tenant,
				    id, fields[i][k], bin, n, out, sizeof(out),
				    NULL), "%s %s does not open", id,
				    fields[i][k]);
				opened++;
			}
		}
		free(all);
	}
	cr_assert_geq(opened, 12, "only %zu opened", opened);
}

/* The harness's own key file (its conf's pii_key_file) set to `keys`. */
static void
harness_keys(const char *keys)
{
	char	 line[4096], path[300] = "";
	FILE	*in, *o;

	cr_assert_not_null(in = fopen(getenv("FORMBACK_CONF"), "r"));
	while (fgets(line, sizeof(line), in) != NULL)
		if (sscanf(line, "pii_key_file = %299s", path) == 1)
			break;
	fclose(in);
	cr_assert_neq(path[0], '\0');
	cr_assert_not_null(o = fopen(path, "w"));
	fputs(keys, o);
	fclose(o);
}

/* The pid in file `name` of the harness's folder, 0 without one. */
static pid_t
harness_pid(const char *name)
{
	char	 conf[300], path[400];
	FILE	*f;
	long	 pid = 0;

	snprintf(conf, sizeof(conf), "%s", getenv("FORMBACK_CONF"));
	snprintf(path, sizeof(path), "%s/%s", dirname(conf), name);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	return (pid_t)pid;
}

/* Whether process pid runs (a zombie does not). */
static bool
running(long pid)
{
	char	 path[64], state = 'Z';
	FILE	*f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return false;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 'Z';
	fclose(f);
	return state != 'Z';
}

/*
 * formback.fcgi started again, so that it reads its key file again (as
 * an operator restarts it, formback.conf(5) "KEY ROTATION"): the
 * supervisor's workers replaced (SIGHUP), or lighttpd's backends ended
 * for lighttpd to start them again.  False under mod_fcgid.
 */
static bool
service_restart(void)
{
	struct resp	*r;
	struct dirent	*d;
	DIR		*p;
	FILE		*f;
	char		 path[300], comm[64];
	long		 ppid;
	pid_t		 web;
	char		*end;
	int		 i, ok = 0, n = 0;
	long		 pid, old[32];

	if (apache() && !apache_proxy())
		return false;
	if (apache_proxy())
		cr_assert_eq(kill(harness_pid("fcgi.pid"), SIGHUP), 0);
	else {
		cr_assert_neq(web = harness_pid("httpd.pid"), 0);
		cr_assert_not_null(p = opendir("/proc"));
		while ((d = readdir(p)) != NULL) {
			pid = strtol(d->d_name, &end, 10);
			if (*end != '\0' || pid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
			if ((f = fopen(path, "r")) == NULL)
				continue;
			if (fscanf(f, "%*d (%63[^)]) %*c %ld", comm,
			    &ppid) == 2 && ppid == (long)web &&
			    strcmp(comm, "formback.fcgi") == 0 && n < 32) {
				(void)kill((pid_t)pid, SIGTERM);
				old[n++] = pid;
			}
			fclose(f);
		}
		closedir(p);
	}
	/* the old ones gone: none applies the queue with the old keys */
	for (i = 0; i < n; i++) {
		for (ok = 0; ok < 100 && running(old[i]); ok++)
			usleep(100000);
		cr_assert_lt(ok, 100, "formback.fcgi %ld did not end", old[i]);
	}
	ok = 0;
	sleep(1);
	for (i = 0; i < 40 && ok < 3; i++) {
		r = http("GET", "/api/v1/openapi.json", NULL, NULL, NULL);
		ok = r->status == 200 ? ok + 1 : 0;
		resp_free(r);
		usleep(250000);
	}
	cr_assert_eq(ok, 3, "formback.fcgi did not come back");
	return true;
}

/* The tenant's personal data of `contact`: its found leads, suppressions. */
static void
export_finds(const struct sess *s, const char *contact, const char *leads,
    const char *suppressions)
{
	char		 b[256];
	struct resp	*r;

	snprintf(b, sizeof(b), "{\"contact\":\"%s\"}", contact);
	r = http("POST", "/api/v1/admin/personal_data/export", NULL, b, s->hdr);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_str_eq(jget(r->json, "found.leads"), leads, "%s", r->body);
	if (suppressions != NULL)
		cr_assert_not_null(jget(r->json, suppressions), "%s", r->body);
	resp_free(r);
}

/*
 * keys rotate a batch (of 1000: the suites before left many leads) at a
 * time until the re-key is on `phase`.
 */
static void
rotate_until(const char *conf, const char *phase)
{
	json_object	*o;
	int		 i;

	for (i = 0; i < 200; i++) {
		if (strcmp(sql("SELECT bidx_phase FROM key_rotations WHERE "
		    "to_key_id = 7"), phase) == 0 && strcmp(sql("SELECT "
		    "COALESCE(bidx_started_at, '') FROM key_rotations WHERE "
		    "to_key_id = 7"), "") != 0)
			return;
		o = keys(conf, "rotate --batch 1000 --batches 1");
		json_object_put(o);
	}
	cr_assert_fail("the re-key never reached %s", phase);
}

Test(keys, rotation_ends_while_the_service_runs, .timeout = 400)
{
	struct fx	 f;
	struct conf	 c0, cc;
	struct sess	 s;
	struct resp	*r;
	json_object	*o;
	char		 err[256], k0[65], k7[65], keysz[512], sup[64];
	char		 ca[300], cc_path[300], cmd[1024], email[128];
	char		 cur[256], path[400], tfm[40];
	unsigned char	 raw[32], sealed[PII_SEALED_MAX(64)];
	size_t		 n;
	int		 i;

	fx_new(&f, "pro", 0);
	/*
	 * what the suites before left that nothing can re-key (suppressions
	 * of contacts without a lead, recipients never sealed) would keep
	 * key 0 needed: the counts below are this tenant's
	 */
	sql("DELETE FROM suppressions WHERE tenant_id <> '%s'", f.tenant);
	sql("DELETE FROM test_recipients WHERE contact_sealed IS NULL");
	fx_one_step(&f, "keys", "sms", "live", "https://shop.example.jp/form");
	for (i = 1; i <= 4; i++) {
		snprintf(cmd, sizeof(cmd), "090-7700-000%d", i);
		snprintf(email, sizeof(email), "k%d@keys.example", i);
		cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){
		    .type = "capture", .visitor = VISITOR, .n = 950 + i,
		    .campaign = "keys", .role = "form", .tel = cmd,
		    .email = email }), 204);
	}
	r = http("POST", "/api/v1/suppressions", f.live,
	    "{\"value\":\"090-7700-0009\"}", NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	/* a suppression of a contact nothing else holds: not re-keyed */
	r = http("POST", "/api/v1/suppressions", f.live,
	    "{\"value\":\"090-7700-0099\"}", NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	snprintf(sup, sizeof(sup), "%s", jget(r->json, "id"));
	resp_free(r);
	cr_assert_eq(conf_load(&c0, NULL, err, sizeof(err)), FB_OK, "%s", err);
	sodium_bin2hex(k0, sizeof(k0), conf_master_key(&c0, 0), 32);
	/* a webhook secret and a test recipient, sealed under key 0 */
	n = pii_seal(c0.master_key, f.tenant,
	    "01900000-0000-7000-8000-00000000beef",
	    "webhook_secret", "whsec_keys", sealed);
	sodium_bin2hex(cmd, 2 * n + 1, sealed, n);
	sql("INSERT INTO webhook_endpoints (id, tenant_id, url, events, "
	    "secret_sealed, secret_key_id) VALUES "
	    "('01900000-0000-7000-8000-00000000beef', '%s', "
	    "'https://hooks.example/k', '[]', UNHEX('%s'), 0)",
	    f.tenant, cmd);
	cr_assert_eq(ctl(NULL, "test-recipient add --tenant %s --contact "
	    "090-7700-0008", f.tenant), 0);
	/* a member's TOTP secret and a recovery code, under key 0 */
	snprintf(email, sizeof(email), "totp@t%s.example", f.tenant);
	cr_assert_eq(ctl(&o, "member create --tenant %s --email %s --role "
	    "viewer", f.tenant, email), 0);
	snprintf(tfm, sizeof(tfm), "%s", jget(o, "id"));
	json_object_put(o);
	n = pii_seal(c0.master_key, f.tenant, tfm, "totp_secret",
	    "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", sealed);
	sodium_bin2hex(cmd, 2 * n + 1, sealed, n);
	sql("INSERT INTO member_totp (member_id, tenant_id, secret_sealed, "
	    "secret_key_id, confirmed_at) VALUES ('%s', '%s', UNHEX('%s'), 0, "
	    "NOW(6))", tfm, f.tenant, cmd);
	n = pii_seal(c0.master_key, f.tenant,
	    "01900000-0000-7000-8000-0000000c0de1", "recovery_code",
	    "abcdefghij", sealed);
	sodium_bin2hex(cmd, 2 * n + 1, sealed, n);
	sql("INSERT INTO member_recovery_codes (id, member_id, tenant_id, "
	    "code_sealed, code_key_id) VALUES ('01900000-0000-7000-8000-"
	    "0000000c0de1', '%s', '%s', UNHEX('%s'), 0)", tfm, f.tenant, cmd);
	conf_free(&c0);
	tag_settle();
	randombytes_buf(raw, sizeof(raw));
	sodium_bin2hex(k7, sizeof(k7), raw, sizeof(raw));
	cr_assert_not_null(mkdtemp(dir));
	snprintf(keysz, sizeof(keysz), "7:%s\n# the key before\n0:%s\n", k7,
	    k0);
	key_conf("a", keysz, ca);
	/* the new key first on the host, the service restarted with it */
	harness_keys(keysz);
	if (!service_restart()) {
		snprintf(keysz, sizeof(keysz), "%s\n", k0);
		harness_keys(keysz);
		cr_skip_test("formback.fcgi is not restarted under mod_fcgid");
	}
	cr_assert_eq(set_password(f.member, PW), 0);
	snprintf(email, sizeof(email), "owner@t%s.example", f.tenant);
	session_of(email, PW, &s);

	/* killed inside its third batch of one row: two batches kept */
	snprintf(cmd, sizeof(cmd),
	    "FB_FAULT_KEYS_KILL=2 \"$FB_CTL\" -c %s keys "
	    "rotate --batch 1 2>/dev/null", ca);
	cr_assert_neq(system(cmd), 0);
	cr_assert_str_eq(sql("SELECT CONCAT(batches, ' ', phase) "
	    "FROM key_rotations WHERE to_key_id = 7"), "2 leads");
	o = keys(ca, "status");
	cr_assert_str_eq(key_entry(o, 0, "needed"), "true");
	cr_assert_str_eq(jget(o, "rotation.phase"), "leads");
	cr_assert_null(jget(o, "removable_key_ids.0"));
	cr_assert_neq(strcmp(key_entry(o, 0, "rows.leads"), "0"), 0);
	json_object_put(o);

	/* on to the blind indexes: slot 2 under key 7, slot 1 in force */
	rotate_until(ca, "test_recipients");
	cr_assert_str_eq(sql("SELECT CONCAT_WS(' ', slot1_key, slot2_key, "
	    "in_force) FROM index_keys"), "0 7 1");
	o = keys(ca, "status");
	cr_assert_str_eq(jget(o, "index.slot2_key_id"), "7");
	cr_assert_str_eq(key_entry(o, 0, "index_key"), "true");
	cr_assert_str_eq(key_entry(o, 7, "index_key"), "true");
	json_object_put(o);
	/* the service meanwhile: a contact seen before, one suppressed */
	sleep(BIDX_TTL + 1);
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "capture",
	    .visitor = VISITOR, .n = 960, .campaign = "keys", .role = "form",
	    .tel = "090-7700-0001", .email = "k1@keys.example" }), 204);
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "capture",
	    .visitor = VISITOR, .n = 961, .campaign = "keys", .role = "form",
	    .tel = "090-7700-0009" }), 204);
	tag_settle();
	/* written in both slots by the service */
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE tenant_id = "
	    "'%s' AND visitor_id LIKE '00000960-%%' AND bidx2_key = 7 AND "
	    "tel_bidx2 IS NOT NULL AND tel_bidx IS NOT NULL", f.tenant), "1");
	/* look-ups mid-rotation: search, export, a suppression that holds */
	r = http("POST", "/api/v1/admin/leads/search", NULL,
	    "{\"contact\":\"09077000002\"}", s.hdr);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_not_null(jget(r->json, "data.0.id"), "%s", r->body);
	resp_free(r);
	export_finds(&s, "090-7700-0001", "2", NULL);
	export_finds(&s, "090-7700-0009", "1", "suppressions.0.id");
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-abandon\" "
	    "--now 2034-06-02T03:00:00Z"), 0);
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-deliver\" "
	    "--now 2034-06-02T03:10:00Z"), 0);
	cr_assert_eq(sms_to("9077000002"), 1);
	cr_assert_eq(sms_to("9077000009"), 0);

	/* killed inside the next batch of the re-key, then run to its end */
	snprintf(cmd, sizeof(cmd), "FB_FAULT_KEYS_KILL=%s \"$FB_CTL\" -c %s "
	    "keys rotate --batch 1 2>/dev/null", sql("SELECT batches FROM "
	    "key_rotations WHERE to_key_id = 7"), ca);
	cr_assert_neq(system(cmd), 0);
	cr_assert_str_eq(sql("SELECT in_force FROM index_keys"), "1");
	o = keys(ca, "rotate");
	cr_assert_str_eq(jget(o, "finished"), "true");
	cr_assert_str_eq(jget(o, "switched"), "true");
	json_object_put(o);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE tenant_id = "
	    "'%s' AND NOT (pii_key_id <=> 7) AND (tel_sealed IS NOT NULL OR "
	    "email_sealed IS NOT NULL)", f.tenant), "0");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE tenant_id = "
	    "'%s' AND NOT (bidx2_key <=> 7) AND (tel_sealed IS NOT NULL OR "
	    "email_sealed IS NOT NULL)", f.tenant), "0");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_endpoints WHERE "
	    "tenant_id = '%s' AND secret_key_id <> 7", f.tenant), "0");
	cr_assert_str_eq(sql("SELECT CONCAT((SELECT GROUP_CONCAT("
	    "secret_key_id) FROM member_totp WHERE tenant_id = '%s'), ' ', "
	    "(SELECT GROUP_CONCAT(code_key_id) FROM member_recovery_codes "
	    "WHERE tenant_id = '%s'))", f.tenant, f.tenant), "7 7");
	/* one contact, captured before and during the rotation: one index */
	cr_assert_str_eq(sql("SELECT CONCAT(COUNT(*), ' ', COUNT(DISTINCT "
	    "tel_bidx2)) FROM leads WHERE tenant_id = '%s' AND tel_masked LIKE "
	    "'%%0001'", f.tenant), "2 1");
	/* switched; key 0 kept for the suppression nothing re-keyed */
	o = keys(ca, "status");
	cr_assert_str_eq(jget(o, "index.in_force"), "2");
	cr_assert_str_eq(jget(o, "index.suppressions_unrekeyed"), "1");
	cr_assert_str_eq(jget(o, "index.test_recipients_unrekeyed"), "0");
	cr_assert_str_eq(key_entry(o, 0, "index_key"), "true");
	cr_assert_str_eq(key_entry(o, 0, "needed"), "true");
	cr_assert_null(jget(o, "removable_key_ids.0"));
	json_object_put(o);
	/* that suppression removed, a run again lets key 0 go */
	snprintf(path, sizeof(path), "/api/v1/suppressions/%s", sup);
	r = http("DELETE", path, f.live, NULL, NULL);
	cr_assert_lt(r->status, 300, "%s", r->body);
	resp_free(r);
	o = keys(ca, "rotate");
	cr_assert_str_eq(jget(o, "finished"), "true");
	json_object_put(o);
	o = keys(ca, "status");
	cr_assert_str_eq(key_entry(o, 0, "index_key"), "false");
	cr_assert_str_eq(key_entry(o, 0, "needed"), "false");
	cr_assert_str_eq(jget(o, "removable_key_ids.0"), "0");
	cr_assert_str_eq(jget(o, "index.slot2_key_id"), "7");
	json_object_put(o);
	cr_assert_str_eq(sql("SELECT slot1_key IS NULL FROM index_keys"), "1");
	/* one audit row a run, without key material */
	cr_assert_neq(strcmp(sql("SELECT COUNT(*) FROM audit_log WHERE "
	    "action = 'keys.rotate'"), "0"), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM audit_log WHERE "
	    "action = 'keys.rotate' AND (detail LIKE '%%%s%%' OR detail LIKE "
	    "'%%%s%%')", k7, k0), "0");

	/* key 0 gone from the file, the service restarted */
	snprintf(keysz, sizeof(keysz), "7:%s\n", k7);
	key_conf("c", keysz, cc_path);
	cr_assert_eq(conf_load(&cc, cc_path, err, sizeof(err)), FB_OK, "%s",
	    err);
	all_open(&cc, f.tenant);
	conf_free(&cc);
	harness_keys(keysz);
	cr_assert(service_restart());
	/* sign-in, search, export, a list cursor of after the switch */
	session_of(email, PW, &s);
	r = http("POST", "/api/v1/admin/leads/search", NULL,
	    "{\"contact\":\"09077000002\"}", s.hdr);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_not_null(jget(r->json, "data.0.id"), "%s", r->body);
	resp_free(r);
	export_finds(&s, "090-7700-0001", "2", NULL);
	export_finds(&s, "090-7700-0009", "1", "suppressions.0.id");
	r = http("GET", "/api/v1/leads?limit=1", f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_not_null(jget(r->json, "next_cursor"), "%s", r->body);
	snprintf(cur, sizeof(cur), "/api/v1/leads?limit=1&cursor=%s",
	    jget(r->json, "next_cursor"));
	resp_free(r);
	r = http("GET", cur, f.live, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	resp_free(r);
	/* a suppression made now holds; a contact not suppressed is sent */
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "capture",
	    .visitor = VISITOR, .n = 970, .campaign = "keys", .role = "form",
	    .tel = "090-7700-0005" }), 204);
	cr_assert_eq(tag_ev_post(&f, &(struct tag_ev){ .type = "capture",
	    .visitor = VISITOR, .n = 971, .campaign = "keys", .role = "form",
	    .tel = "090-7700-0006" }), 204);
	r = http("POST", "/api/v1/suppressions", f.live,
	    "{\"value\":\"09077000005\"}", NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	tag_settle();
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-abandon\" "
	    "--now 2034-06-09T03:00:00Z"), 0);
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-deliver\" "
	    "--now 2034-06-09T03:10:00Z"), 0);
	cr_assert_eq(sms_to("9077000006"), 1);
	cr_assert_eq(sms_to("9077000005"), 0);
	cr_assert_eq(sms_to("9077000009"), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND error_code = 'pii_error'", f.tenant), "0");

	/* back to key 0 for the tests after: the file, the data, the index */
	snprintf(keysz, sizeof(keysz), "0:%s\n7:%s\n", k0, k7);
	harness_keys(keysz);
	cr_assert(service_restart());
	o = keys(getenv("FORMBACK_CONF"), "rotate");
	cr_assert_str_eq(jget(o, "finished"), "true");
	json_object_put(o);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE tenant_id = "
	    "'%s' AND NOT (pii_key_id <=> 0) AND (tel_sealed IS NOT NULL OR "
	    "email_sealed IS NOT NULL)", f.tenant), "0");
	snprintf(keysz, sizeof(keysz), "%s\n", k0);
	harness_keys(keysz);
	cr_assert(service_restart());
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}
