/*
 * formback-abandon: judges captured leads abandoned (design 1; contract:
 * Lead, Events lead.abandoned).  A lead is abandoned once the wait of its
 * campaign's active scenario, else the campaign's abandon_wait_minutes,
 * has passed since its last activity and it has not converted.  One
 * bounded pass: candidates are read without locks, then each is claimed
 * with SELECT ... FOR UPDATE SKIP LOCKED in its own short transaction that
 * also writes its outbox event, so several copies on several hosts never
 * judge a lead twice (design 6).  The pass first applies the collector's
 * intake queue (tag_apply(), waiting for its turn) as it stands when the
 * pass begins, so that every event received before the pass counts as
 * activity.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formback.h"
#include "ingest.h"
#include "db/store.h"

static enum fb_err
judge(struct db *db, const struct lead_owner_row *l, long long now, bool *done)
{
	json_object	*d;
	char		 at[32];
	int		 scheduled = 0;
	bool		 claimed;
	enum fb_err	 e;

	*done = false;
	if ((e = db_begin(db)) != FB_OK)
		return e;
	if ((e = db_lead_abandon(db, l->tenant_id, l->id, now, &claimed)) != FB_OK)
		goto fail;
	if (!claimed) {
		/* converted meanwhile, or another pass holds it */
		db_rollback(db);
		return FB_OK;
	}
	time_iso8601(now, at);
	d = json_object_new_object();
	jadd_str(d, "lead_id", l->id);
	jadd_str(d, "campaign_id", l->campaign_id);
	jadd_str(d, "abandoned_at", at);
	e = db_outbox_add(db, l->tenant_id, "webhook", "lead.abandoned", json_text(d));
	json_object_put(d);
	/* the active scenario's deliveries, in the same transaction */
	if (e == FB_OK)
		e = db_deliveries_schedule(db, l->tenant_id, l->id, l->campaign_id,
		    now, &scheduled);
	if (e == FB_OK && (e = db_commit(db)) == FB_OK) {
		*done = true;
		return FB_OK;
	}
fail:
	db_rollback(db);
	return e;
}

int
main(int argc, char *argv[])
{
	struct cron_opts	 o = { .limit = 1000 };
	long long	 started = (long long)time(NULL);
	struct conf	 conf;
	struct db	 db;
	struct dbrows	 due;
	const struct lead_owner_row *l;
	unsigned long long pruned = 0;
	char		 err[512];
	long long	 now;
	long		 limit;
	int		 ch, verbose, judged = 0, failed = 0, applied = 0;
	unsigned	 i;
	bool		 done;
	enum fb_err	 e;

	if ((ch = cron_opts(argc, argv, "formback-abandon", &o)) >= 0)
		return ch;
	now = o.now;
	limit = o.limit;
	verbose = o.verbose;
	log_init("formback-abandon", verbose ? LOG_DEBUG : LOG_WARN);
	if (conf_load(&conf, NULL, err, sizeof(err)) != FB_OK) {
		fprintf(stderr, "formback-abandon: %s\n", err);
		return 2;
	}
	if (db_open(&db, &conf) != FB_OK) {
		fprintf(stderr, "formback-abandon: cannot connect to the database\n");
		return 1;
	}
	/*
	 * What was queued when the pass began: under a flood that outruns
	 * the applier a pass still ends, and judges.
	 */
	if ((e = tag_apply_backlog(&db, &conf, &applied)) != FB_OK) {
		fprintf(stderr, "formback-abandon: cannot apply queued tag "
		    "events: %s\n", fb_strerror(e));
		db_close(&db);
		return 1;
	}
	if ((e = db_leads_abandon_due(&db, now, (int)limit, &due)) != FB_OK) {
		fprintf(stderr, "formback-abandon: cannot read due leads: %s\n",
		    fb_strerror(e));
		db_close(&db);
		return 1;
	}
	for (i = 0, l = due.row; i < due.n; i++) {
		if ((e = judge(&db, &l[i], now, &done)) != FB_OK) {
			fprintf(stderr, "formback-abandon: lead '%s': %s\n",
			    l[i].id, fb_strerror(e));
			failed++;
			if (e == FB_EGONE)
				break;
		} else if (done)
			judged++;
	}
	dbrows_free(&due);
	/* the collector's counts of hours that no longer matter (issue 11) */
	if ((e = db_tag_flood_prune(&db, &pruned)) != FB_OK) {
		fprintf(stderr, "formback-abandon: cannot prune the collector's "
		    "counts: %s\n", fb_strerror(e));
		failed++;
	}
	if (verbose)
		fprintf(stderr, "formback-abandon: %d queued tag event(s) "
		    "applied, %d lead(s) judged abandoned, %d failed, %llu "
		    "old count(s) pruned\n", applied, judged, failed, pruned);
	db_close(&db);
	cron_pass(&conf, "abandon", started, failed == 0, applied + judged);
	conf_free(&conf);
	return failed > 0 ? 1 : 0;
}
