/*
 * formback-aggregate: recounts JST days into the tables behind
 * /reports/daily (design 1; contract: Reports; formback-aggregate(8)).
 *
 * One bounded pass: for every tenant, the last 3 JST days of the clock
 * (today's figures move, and the two before may still receive late rows)
 * and every day of the 35 before them that was never done, at most
 * --limit days in all, oldest first per tenant.  A day is recounted from
 * the raw rows in one transaction holding its row of
 * report_aggregations (db_aggregate_day()): a rerun writes the same rows,
 * and copies on several hosts take turns on a day instead of mixing.
 *
 * Before its days, the tenant's hours behind the funnel and the days'
 * traffic: the next whole UTC hours that can no longer change,
 * HOURS_PER_TX of them a transaction (db_roll_hours()), each transaction
 * one unit of --limit like a day.
 */
#include <stdio.h>
#include <time.h>
#include <string.h>

#include "formback.h"
#include "pass.h"
#include "db/store.h"

#define RECENT_DAYS	3	/* recounted every pass */
#define BACKFILL_DAYS	35	/* before them, done once */
#define HOURS_PER_TX	6	/* rolled in one transaction */

/* The JST date of UTC seconds `t` (a JST midnight), "YYYY-MM-DD". */
static void
jst_day(int64_t t, char out[32])
{
	time_iso8601(t + 9 * 3600, out);
	out[10] = '\0';
}

int
main(int argc, char *argv[])
{
	struct pass	 o = { .prog = "formback-aggregate", .job = "aggregate",
			    .budget = 540, .tenant_opt = true };
	struct conf	 conf;
	struct db	 db;
	struct dbres	 tenants, have;
	char		 err[512], day[32], first[32], end[32], from[32], to[32];
	char		 now[32];
	const char	*only;
	int64_t		 today, d;
	long		 done = 0, days = 0, hours = 0;
	int		 ch, failed = 0, n;
	unsigned	 t, k;
	bool		 known;
	enum fb_err	 e;

	if ((ch = pass_opts(&o, argc, argv)) >= 0)
		return ch;
	only = o.tenant;
	if (o.limit == 0)
		o.limit = 1000;
	log_init("formback-aggregate", o.verbose ? LOG_DEBUG : LOG_WARN);
	if (conf_load(&conf, NULL, err, sizeof(err)) != FB_OK) {
		fprintf(stderr, "formback-aggregate: %s\n", err);
		return 2;
	}
	if (db_open(&db, &conf) != FB_OK) {
		fprintf(stderr, "formback-aggregate: cannot connect to the database\n");
		return 1;
	}
	if ((e = db_aggregate_tenants(&db, &tenants)) != FB_OK) {
		fprintf(stderr, "formback-aggregate: cannot read the tenants: %s\n",
		    fb_strerror(e));
		db_close(&db);
		return 1;
	}
	today = time_jst_midnight(o.now);
	jst_day(today - (int64_t)(RECENT_DAYS - 1 + BACKFILL_DAYS) * 86400, first);
	jst_day(today + 86400, end);
	time_sql(o.now, now);
	for (t = 0; t < tenants.nrows && done < o.limit; t++) {
		const char *tenant = dbres_get(&tenants, t, 0);

		if (only != NULL && strcmp(only, tenant) != 0)
			continue;
		/* the hours first: the days read them */
		while (done < o.limit) {
			if ((e = db_roll_hours(&db, tenant, now, HOURS_PER_TX,
			    &n)) != FB_OK) {
				fprintf(stderr, "formback-aggregate: tenant %s, "
				    "hours: %s\n", tenant, fb_strerror(e));
				failed++;
				break;
			}
			if (n == 0)
				break;
			hours += n;
			done++;
		}
		if ((e = db_aggregate_have(&db, tenant, first, end, &have)) != FB_OK) {
			fprintf(stderr, "formback-aggregate: tenant %s: %s\n", tenant,
			    fb_strerror(e));
			failed++;
			continue;
		}
		for (d = today - (int64_t)(RECENT_DAYS - 1 + BACKFILL_DAYS) * 86400;
		    d <= today && done < o.limit; d += 86400) {
			jst_day(d, day);
			for (known = false, k = 0; k < have.nrows && !known; k++)
				known = strcmp(dbres_get(&have, k, 0), day) == 0;
			if (known && d < today - (int64_t)(RECENT_DAYS - 1) * 86400)
				continue;
			time_sql(d, from);
			time_sql(d + 86400, to);
			if ((e = db_aggregate_day(&db, tenant, day, from, to)) != FB_OK) {
				fprintf(stderr, "formback-aggregate: tenant %s, %s: %s\n",
				    tenant, day, fb_strerror(e));
				failed++;
				if (e == FB_EGONE)
					break;
			} else {
				done++;
				days++;
			}
		}
		dbres_free(&have);
	}
	dbres_free(&tenants);
	if (o.verbose)
		fprintf(stderr, "formback-aggregate: %ld day(s) recounted, %ld "
		    "hour(s) rolled, %d failed\n", days, hours, failed);
	db_close(&db);
	o.failed = failed > 0;
	pass_took(&o, done);
	ch = pass_end(&o, &conf);
	conf_free(&conf);
	return ch;
}
