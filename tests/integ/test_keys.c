/*
 * A master key rotation that ends (issue 43 item 7; formback.conf(5)
 * "KEY ROTATION", formbackctl(8) "keys rotate"): contacts sealed under
 * the harness's key 0, a new key 7 made current, the rotation killed
 * midway and run again to its end while the service captures, then a
 * key 9 over it, key 7 dropped from the file, and every contact still
 * opens, a suppression still holds, a contact captured twice has one
 * index, a lead is found by its contact; last, the data goes back to
 * key 0 for the tests after.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <sodium.h>

#include "formback.h"
#include "harness.h"
#include "pii.h"

#define PW	"correct horse battery"

static char	 dir[] = "/tmp/fbkeysXXXXXX";

/* A visitor `n` of campaign `key` who typed `tel` and `email` and left. */
static void
capture(const struct fx *f, int n, const char *tel, const char *email)
{
	char		 b[1024];
	struct resp	*r;

	snprintf(b, sizeof(b), "{\"v\":1,\"site\":\"%s\",\"visitor\":"
	    "\"%08d-3333-4333-8333-333333333333\",\"session\":"
	    "\"%08d-3333-4333-8333-333333333333\",\"type\":\"capture\","
	    "\"url\":\"https://shop.example.jp/form\",\"campaign\":\"keys\","
	    "\"role\":\"form\",\"contact\":{\"tel\":\"%s\",\"email\":\"%s\"},"
	    "\"consent\":true}", f->site_pk, n, n, tel, email);
	r = http("POST", "/tag/v1/events", NULL, b, NULL);
	cr_assert_eq(r->status, 204, "%s", r->body);
	resp_free(r);
}

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
	    "WHERE tenant_id = '%s' AND contact_sealed IS NOT NULL" };
	static const char *const fields[][2] = { { "tel", "email" },
	    { "webhook_secret", NULL }, { "test_recipient", NULL } };
	char		*all, *row, *sp, *id, *key, *col[2], out[600];
	unsigned char	 bin[700];
	size_t		 n, i, k, opened = 0;

	for (i = 0; i < 3; i++) {
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
				    id,
				    fields[i][k], bin, n, out, sizeof(out), NULL),
				    "%s %s does not open", id, fields[i][k]);
				opened++;
			}
		}
		free(all);
	}
	cr_assert_geq(opened, 10, "only %zu opened", opened);
}

Test(keys, rotation_ends_while_the_service_runs, .timeout = 300)
{
	struct fx	 f;
	struct conf	 c0, cc;
	struct sess	 s;
	struct resp	*r;
	json_object	*o;
	char		 err[256], k0[65], k7[65], k9[65], keysz[512];
	char		 ca[300], cb[300], cc_path[300], cr_path[300];
	char		 cmd[1024], email[128];
	unsigned char	 raw[32], sealed[PII_SEALED_MAX(64)];
	size_t		 n;
	int		 i;

	fx_new(&f, "pro", 0);
	fx_one_step(&f, "keys", "sms", "live", "https://shop.example.jp/form");
	for (i = 1; i <= 4; i++) {
		snprintf(cmd, sizeof(cmd), "090-7700-000%d", i);
		snprintf(email, sizeof(email), "k%d@keys.example", i);
		capture(&f, 950 + i, cmd, email);
	}
	r = http("POST", "/api/v1/suppressions", f.live,
	    "{\"value\":\"090-7700-0009\"}", NULL);
	cr_assert_eq(r->status, 201, "%s", r->body);
	resp_free(r);
	cr_assert_eq(conf_load(&c0, NULL, err, sizeof(err)), FB_OK, "%s", err);
	sodium_bin2hex(k0, sizeof(k0), conf_master_key(&c0, 0), 32);
	/* a webhook secret and a test recipient, sealed under key 0 */
	n = pii_seal(c0.master_key, f.tenant,
	    "01900000-0000-7000-8000-00000000beef",
	    "webhook_secret", "whsec_keys", sealed);
	sodium_bin2hex(cmd, 2 * n + 1, sealed, n);
	sql("INSERT INTO webhook_endpoints (id, tenant_id, url, events, "
	    "secret_sealed, secret_key_id) VALUES ('01900000-0000-7000-8000-"
	    "00000000beef', '%s', 'https://hooks.example/k', '[]', UNHEX('%s'), 0)",
	    f.tenant, cmd);
	n = pii_seal(c0.master_key, f.tenant,
	    "01900000-0000-7000-8000-00000000cafe",
	    "test_recipient", "09077000008", sealed);
	sodium_bin2hex(cmd, 2 * n + 1, sealed, n);
	sql("INSERT INTO test_recipients (id, tenant_id, kind, bidx, masked, "
	    "contact_sealed, pii_key_id, confirmed_at) VALUES ('01900000-0000-"
	    "7000-8000-00000000cafe', '%s', 'tel', UNHEX(SHA2(UUID(), 256)), "
	    "'090-****-0008', UNHEX('%s'), 0, NOW(6))", f.tenant, cmd);
	conf_free(&c0);
	tag_settle();
	randombytes_buf(raw, sizeof(raw));
	sodium_bin2hex(k7, sizeof(k7), raw, sizeof(raw));
	randombytes_buf(raw, sizeof(raw));
	sodium_bin2hex(k9, sizeof(k9), raw, sizeof(raw));
	cr_assert_not_null(mkdtemp(dir));
	snprintf(keysz, sizeof(keysz), "7:%s\n# the key before\n0:%s\n", k7,
	    k0);
	key_conf("a", keysz, ca);

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
	/* the service goes on meanwhile: a capture, a contact seen before */
	capture(&f, 960, "090-7700-0001", "k1@keys.example");
	capture(&f, 961, "090-7700-0009", "");
	tag_settle();
	o = keys(ca, "rotate --batch 1");
	cr_assert_str_eq(jget(o, "finished"), "true");
	json_object_put(o);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE tenant_id = "
	    "'%s' AND NOT (pii_key_id <=> 7) AND (tel_sealed IS NOT NULL OR "
	    "email_sealed IS NOT NULL)", f.tenant), "0");
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM webhook_endpoints WHERE "
	    "tenant_id = '%s' AND secret_key_id <> 7", f.tenant), "0");
	cr_assert_str_eq(sql("SELECT pii_key_id FROM test_recipients WHERE id "
	    "= '01900000-0000-7000-8000-00000000cafe'"), "7");
	o = keys(ca, "status");
	cr_assert_str_eq(key_entry(o, 0, "index_key"), "true");
	cr_assert_str_eq(key_entry(o, 0, "needed"), "true");
	cr_assert_not_null(jget(o, "rotation.finished_at"));
	json_object_put(o);

	/* a newer key over it: key 7 then holds nothing and may go */
	snprintf(keysz, sizeof(keysz), "9:%s\n7:%s\n0:%s\n", k9, k7, k0);
	key_conf("b", keysz, cb);
	o = keys(cb, "rotate --batch 2");
	cr_assert_str_eq(jget(o, "finished"), "true");
	json_object_put(o);
	o = keys(cb, "status");
	cr_assert_str_eq(key_entry(o, 7, "needed"), "false");
	cr_assert_str_eq(jget(o, "removable_key_ids.0"), "7");
	cr_assert_null(jget(o, "removable_key_ids.1"));
	json_object_put(o);
	snprintf(keysz, sizeof(keysz), "9:%s\n0:%s\n", k9, k0);
	key_conf("c", keysz, cc_path);
	/* without key 7: every contact opens */
	cr_assert_eq(conf_load(&cc, cc_path, err, sizeof(err)), FB_OK, "%s",
	    err);
	all_open(&cc, f.tenant);
	conf_free(&cc);
	/* a lead found by its contact */
	cr_assert_eq(set_password(f.member, PW), 0);
	snprintf(email, sizeof(email), "owner@t%s.example", f.tenant);
	session_of(email, PW, &s);
	r = http("POST", "/api/v1/admin/leads/search", NULL,
	    "{\"contact\":\"09077000002\"}", s.hdr);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_not_null(jget(r->json, "data.0.id"), "%s", r->body);
	resp_free(r);
	/* sent under key 9 alone; never to a suppressed contact */
	cr_assert_eq(system("\"$FB_CTL_DIR/formback-abandon\" "
	    "--now 2034-06-02T03:00:00Z"), 0);
	snprintf(cmd, sizeof(cmd), "FORMBACK_CONF=%s \"$FB_CTL_DIR/"
	    "formback-deliver\" --now 2034-06-02T03:10:00Z", cc_path);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(sms_to("9077000002"), 1);
	cr_assert_geq(sms_to("9077000001"), 1);
	/* one contact, captured before and during the rotation: one index */
	cr_assert_str_eq(sql("SELECT CONCAT(COUNT(*), ' ', COUNT(DISTINCT "
	    "tel_bidx)) FROM leads WHERE tenant_id = '%s' AND tel_masked LIKE "
	    "'%%0001'", f.tenant), "2 1");
	cr_assert_eq(sms_to("9077000009"), 0);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM deliveries WHERE tenant_id "
	    "= '%s' AND error_code = 'pii_error'", f.tenant), "0");

	/* back to key 0 for the tests after */
	snprintf(keysz, sizeof(keysz), "0:%s\n9:%s\n", k0, k9);
	key_conf("r", keysz, cr_path);
	o = keys(cr_path, "rotate");
	cr_assert_str_eq(jget(o, "finished"), "true");
	json_object_put(o);
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM leads WHERE tenant_id = "
	    "'%s' AND NOT (pii_key_id <=> 0) AND (tel_sealed IS NOT NULL OR "
	    "email_sealed IS NOT NULL)", f.tenant), "0");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}
