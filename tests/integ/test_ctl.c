/* formbackctl's fixed output and errors (design 4). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

Test(ctl, migrate_is_idempotent_and_prints_current)
{
	json_object	*o;
	char		 args[1024];

	snprintf(args, sizeof(args), "migrate --dir %s",
	    getenv("FB_MIGRATIONS"));
	cr_assert_eq(ctl(&o, "%s", args), 0);
	cr_assert_eq(json_object_array_length(jobj(o, "applied")), 0);
	cr_assert_eq(strlen(jget(o, "current")), 4);
	json_object_put(o);
}

/* The schema's shape: every column and index (static storage). */
static const char *
schema_shape(void)
{
	return sql("SELECT MD5(CONCAT((SELECT GROUP_CONCAT(CONCAT_WS(':', "
	    "table_name, column_name, column_type, is_nullable, "
	    "IFNULL(column_default, '-')) ORDER BY table_name, "
	    "ordinal_position SEPARATOR ',') FROM information_schema.columns "
	    "WHERE table_schema = DATABASE()), (SELECT "
	    "GROUP_CONCAT(CONCAT_WS(':', table_name, index_name, seq_in_index, "
	    "column_name, non_unique) ORDER BY table_name, index_name, "
	    "seq_in_index SEPARATOR ',') FROM information_schema.statistics "
	    "WHERE table_schema = DATABASE()), (SELECT "
	    "GROUP_CONCAT(CONCAT_WS(':', trigger_name, action_statement) "
	    "ORDER BY trigger_name) FROM information_schema.triggers WHERE "
	    "trigger_schema = DATABASE())))");
}

/*
 * Every migration can be run again over the schema it made (issue 19:
 * after a failure halfway, the operator runs `formbackctl migrate` again
 * and the file's finished statements pass): each file, in order, as the
 * service's user, changes nothing the second time.
 */
Test(ctl, every_migration_runs_again, .timeout = 120)
{
	char	 before[64], cmd[2048];

	snprintf(before, sizeof(before), "%s", schema_shape());
	snprintf(cmd, sizeof(cmd),
	    "for f in \"$FB_MIGRATIONS\"/[0-9][0-9][0-9][0-9]_*.sql; "
	    "do mariadb --no-defaults -uformback -pformback "
	    "--socket=\"$FB_DB_SOCKET\" formback < \"$f\" || { echo \"$f\" "
	    ">&2; exit 1; }; done");
	cr_assert_eq(system(cmd), 0, "a migration cannot be run again");
	cr_assert_str_eq(schema_shape(), before);
}

Test(ctl, output_shapes)
{
	json_object	*o;
	struct fx	 f;

	fx_new(&f, "starter", 0);
	cr_assert_eq(ctl(&o,
	    "site create --tenant %s --name s --domain "
	    "s.example.jp", f.tenant), 0);
	cr_assert_eq(json_object_object_length(o), 2);
	cr_assert_eq(strlen(jget(o, "id")), 36);
	cr_assert_eq(strncmp(jget(o, "public_key"), "pk_", 3), 0);
	json_object_put(o);
	/* an internationalised domain is kept as browsers send it */
	cr_assert_eq(ctl(&o,
	    "site create --tenant %s --name j --domain ショップ.example",
	    f.tenant), 0);
	cr_assert_str_eq(sql("SELECT domain FROM sites WHERE id = '%s'",
	    jget(o, "id")),
	    "xn--xckya1d0c.example");
	json_object_put(o);
	cr_assert_eq(strncmp(f.live, "fb_live_", 8), 0);
	cr_assert_eq(strlen(f.live), 40);
	cr_assert_eq(strncmp(f.test, "fb_test_", 8), 0);
}

Test(ctl, usage_and_failures)
{
	struct fx	 f;
	json_object	*o;
	char		 m[40];

	cr_assert_eq(ctl(NULL, "nonsense"), 2);
	cr_assert_eq(ctl(NULL, "tenant create --name x --plan platinum"), 2);
	cr_assert_eq(ctl(NULL, "tenant create --name x --rate-limit 0"), 2);
	cr_assert_eq(ctl(NULL, "site create --tenant nope --name x --domain d"),
	    2);
	cr_assert_eq(ctl(NULL,
	    "site create --tenant 01900000-0000-7000-8000-000000000000 "
	    "--name x --domain d.example"), 1);
	fx_new(&f, "free", 0);
	cr_assert_eq(ctl(NULL,
	    "apikey create --tenant %s --member %s --kind live "
	    "--scopes sites:read,bogus:write", f.tenant, f.member), 2);
	/*
	 * keys are issued to owners and admins only (contract: Authentication
	 * 4)
	 */
	cr_assert_eq(ctl(&o, "member create --tenant %s --email m@x.example",
	    f.tenant), 0);
	snprintf(m, sizeof(m), "%s", jget(o, "id"));
	json_object_put(o);
	cr_assert_eq(ctl(NULL,
	    "apikey create --tenant %s --member %s --kind live "
	    "--scopes all", f.tenant, m), 1);
	cr_assert_eq(ctl(NULL, "member create --tenant %s --email m@x.example",
	    f.tenant), 1);
	cr_assert_eq(ctl(NULL,
	    "apikey revoke --id 01900000-0000-7000-8000-000000000000"), 1);
	/* a blank name; an admin who is suspended, then deleted for good */
	cr_assert_eq(ctl(NULL, "tenant create --name '　 '"), 2);
	cr_assert_eq(ctl(&o,
	    "member create --tenant %s --email a@x.example --role admin",
	    f.tenant), 0);
	snprintf(m, sizeof(m), "%s", jget(o, "id"));
	json_object_put(o);
	cr_assert_eq(ctl(NULL, "member suspend --id %s", m), 0);
	cr_assert_eq(ctl(NULL,
	    "apikey create --tenant %s --member %s --kind live "
	    "--scopes all", f.tenant, m), 1);
	cr_assert_eq(ctl(NULL, "member delete --id %s", m), 0);
	cr_assert_eq(ctl(NULL, "member suspend --id %s", m), 1);
	cr_assert_str_eq(sql("SELECT status FROM members WHERE id = '%s'", m),
	    "deleted");
	/* an unknown command says so on one line before the usage */
	cr_assert_eq(system("$FB_CTL member frob 2>&1 | head -n 1 | grep -q "
	    "\"^formbackctl: unknown or incomplete command 'member "
	    "frob'$\""), 0);
	/* keys are stored as hashes only */
	cr_assert_str_eq(sql("SELECT COUNT(*) FROM api_keys WHERE tenant_id = "
	    "'%s' AND LENGTH(key_hash) = 32 AND key_prefix = LEFT('%s', "
	    "12)", f.tenant, f.live), "1");
}

/* formbackctl status and the metrics: a stalled job shows (issue 18). */
Test(ctl, status_and_metrics_show_a_stalled_job)
{
	json_object	*o;
	struct resp	*r;

	cr_assert_eq(system("\"$FB_CTL_DIR/formback-deliver\" >/dev/null 2>&1"),
	    0);
	cr_assert_eq(ctl(&o, "status"), 0);
	cr_assert_not_null(jobj(o, "queues.deliveries"));
	cr_assert_not_null(jobj(o, "queues.intake"));
	cr_assert_not_null(jobj(o, "queues.webhooks"));
	cr_assert_str_eq(jget(o, "jobs.deliver.outcome"), "ok");
	cr_assert_str_eq(jget(o, "jobs.deliver.stalled"), "false");
	json_object_put(o);
	/* deliver has not run for 11 minutes */
	sql("UPDATE cron_passes SET finished_at = NOW(6) - INTERVAL 11 MINUTE "
	    "WHERE job = 'deliver'");
	cr_assert_eq(ctl(&o, "status"), 0);
	cr_assert_str_eq(jget(o, "jobs.deliver.stalled"), "true");
	cr_assert(atoi(jget(o, "jobs.deliver.age_seconds")) >= 660);
	json_object_put(o);
	r = http("GET", "/api/v1/metrics", NULL, NULL, NULL);
	cr_assert_eq(r->status, 200, "%s", r->body);
	cr_assert_not_null(strstr(resp_header(r, "Content-Type"),
	    "text/plain"));
	cr_assert_not_null(strstr(r->body,
	    "formback_job_last_pass_age_seconds{job=\"deliver\"} 6"),
	    "%s", r->body);
	cr_assert_not_null(strstr(r->body,
	    "formback_queue_depth{queue=\"deliveries\"}"));
	resp_free(r);
	sql("UPDATE cron_passes SET finished_at = NOW(6) WHERE job = "
	    "'deliver'");
}

static void
drop_odd_tables(void)
{
	sql("DROP TABLE IF EXISTS zz_memory, zz_no_key");
}

/*
 * check-db (issue 19): fine on the test database; a MEMORY table and a
 * table with no primary key are named, with the fix, and exit 1.
 */
Test(ctl, check_db_names_what_to_fix, .fini = drop_odd_tables)
{
	json_object	*o;
	size_t		 i;
	int		 bad = 0;

	cr_assert_eq(ctl(&o, "check-db"), 0);
	cr_assert(json_object_get_boolean(jobj(o, "ok")));
	cr_assert_geq(json_object_array_length(jobj(o, "checks")), 8);
	json_object_put(o);
	sql("CREATE TABLE zz_memory (id INT PRIMARY KEY) ENGINE=MEMORY");
	sql("CREATE TABLE zz_no_key (x INT) ENGINE=InnoDB");
	cr_assert_eq(ctl(&o, "check-db"), 1);
	cr_assert_not_null(o);
	cr_assert(!json_object_get_boolean(jobj(o, "ok")));
	for (i = 0; i < json_object_array_length(jobj(o, "checks")); i++) {
		json_object	*c = json_object_array_get_idx(jobj(o,
		    "checks"), i);

		if (json_object_get_boolean(jobj(c, "ok")))
			continue;
		bad++;
		cr_assert_not_null(jget(c, "fix"));
		if (strcmp(jget(c, "name"), "engine") == 0)
			cr_assert_str_eq(jget(c, "value"), "zz_memory");
		else
			cr_assert_str_eq(jget(c, "value"), "zz_no_key", "%s",
			    jget(c, "name"));
	}
	cr_assert_eq(bad, 2);
	json_object_put(o);
}
