/*
 * formback-abandon: judges captured leads abandoned (design 1; contract:
 * Lead, Events lead.abandoned).  A lead is abandoned once the wait of its
 * campaign's active scenario, else the campaign's abandon_wait_minutes,
 * has passed since its last activity and it has not converted.
 *
 * One pass (pass.h; issue 40) runs until no lead is due or its budget is
 * spent.  It takes the tenants with due leads in turns (struct ring): a
 * round judges at most SHARE of each one's longest idle leads, so one
 * shop's backlog delays another's by SHARE leads a round, not by its
 * whole size.  A tenant's share is read without locks, then claimed with
 * SELECT ... FOR UPDATE SKIP LOCKED and judged in one transaction that
 * also writes each lead's outbox event and deliveries, so several copies
 * on several hosts never judge a lead twice (design 6).  The pass first
 * applies the collector's intake queue (tag_apply(), waiting for its
 * turn) as it stands when the pass begins, so that every event received
 * before the pass counts as activity.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formback.h"
#include "ingest.h"
#include "pass.h"
#include "db/store.h"

#define SHARE		48	/* a tenant's leads a round, one transaction */
#define CHUNK		16	/* judged with one statement of each kind */
#define TURN		16	/* tenants a turn of the ring */
#define TENANTS_READ	10000	/* tenants with due leads read at once */
#define LEFT_CAP	1000000	/* due leads left, counted up to */
#define BUDGET		50	/* seconds; cron starts it every minute */

struct abandon {
	struct pass	 p;
	struct conf	 conf;
	struct db	 db;
	struct ring	 ring;
	int		 judged, failed, applied;
};

/* LeadAbandonedData (contract: Events) of lead l at `at` into b. */
static enum fb_err
abandoned_data(struct buf *b, const struct lead_owner_row *l, const char *at)
{
	struct jgen	 j;

	buf_init(b, 512);
	jgen_begin(&j, b);
	jg_obj(&j, NULL);
	jg_str(&j, "lead_id", l->id);
	jg_str(&j, "campaign_id", l->campaign_id);
	jg_str(&j, "abandoned_at", at);
	jg_obj_end(&j);
	return jgen_end(&j);
}

/*
 * Judge leads l[0 .. n) (1 .. CHUNK, one tenant's) in the caller's
 * transaction: those still captured and held by no other pass are
 * abandoned, each with its lead.abandoned event and the active
 * scenario's deliveries.  *judged counts them.
 */
static enum fb_err
judge(struct db *db, const struct lead_owner_row *l, size_t n, long long now,
    int *judged)
{
	struct lead_owner_row took[CHUNK];
	struct outbox_row ev[CHUNK];
	struct buf	 body[CHUNK];
	const char	*ids[CHUNK];
	char		 at[32], eid[CHUNK][UUID_STRLEN + 1];
	bool		 taken[CHUNK];
	size_t		 i, k = 0;
	int		 scheduled;
	enum fb_err	 e;

	for (i = 0; i < n; i++)
		ids[i] = l[i].id;
	if ((e = db_leads_abandon(db, l->tenant_id, ids, n, now,
	    taken)) != FB_OK)
		return e;
	time_iso8601(now, at);
	for (i = 0; i < n && e == FB_OK; i++) {
		if (!taken[i])
			/* converted meanwhile, or another pass's */
			continue;
		took[k] = l[i];
		uuid_v7(eid[k]);
		e = abandoned_data(&body[k], &l[i], at);
		ev[k] = (struct outbox_row){ eid[k], l[i].tenant_id, "webhook",
		    "lead.abandoned", body[k].data };
		k++;
	}
	if (e == FB_OK && k > 0 && (e = db_outbox_insert(db, ev, k)) == FB_OK &&
	    (e = db_deliveries_schedule(db, l->tenant_id, took, k, now,
	    &scheduled)) == FB_OK)
		*judged += (int)k;
	for (i = 0; i < k; i++)
		buf_release(&body[i]);
	return e;
}

/* Judge leads [i, n) in one transaction, CHUNK at a time. */
static enum fb_err
judge_tx(struct db *db, const struct lead_owner_row *l, size_t i, size_t n,
    long long now, int *judged)
{
	int		 k = 0;
	size_t		 m;
	enum fb_err	 e;

	if ((e = db_begin(db)) != FB_OK)
		return e;
	for (; i < n && e == FB_OK; i += m) {
		m = n - i < CHUNK ? n - i : CHUNK;
		e = judge(db, &l[i], m, now, &k);
	}
	if (e == FB_OK && (e = db_commit(db)) == FB_OK) {
		*judged += k;
		return FB_OK;
	}
	db_rollback(db);
	return e;
}

/*
 * One tenant's turn: up to SHARE of its due leads judged, together; one
 * by one when that fails, so one lead at fault stops only itself.
 * *drained when it had fewer due than it was asked for, or none of them
 * could be judged (another pass holds them, or they fail): it comes back
 * with the next refill.
 */
static enum fb_err
turn(struct abandon *a, const char *tenant, bool *drained)
{
	struct dbrows	 due;
	const struct lead_owner_row *l;
	long		 want = pass_room(&a->p, SHARE);
	size_t		 i;
	int		 k;
	enum fb_err	 e;

	*drained = true;
	if (want == 0)
		return FB_OK;
	if ((e = db_leads_abandon_due(&a->db, tenant, a->p.now, (int)want,
	    &due)) != FB_OK)
		return e;
	pass_took(&a->p, (long)due.n);
	l = due.row;
	k = a->judged;
	if (due.n > 0 && judge_tx(&a->db, l, 0, due.n, a->p.now,
	    &a->judged) != FB_OK)
		for (i = 0; i < due.n; i++)
			if ((e = judge_tx(&a->db, l, i, i + 1, a->p.now,
			    &a->judged)) != FB_OK) {
				fprintf(stderr,
				    "formback-abandon: lead '%s': %s\n",
				    l[i].id, fb_strerror(e));
				a->failed++;
				if (e == FB_EGONE)
					break;
			}
	*drained = due.n < (size_t)want || a->judged == k;
	dbrows_free(&due);
	return e == FB_EGONE ? e : FB_OK;
}

/* Fill the empty ring with the tenants that have due leads now. */
static enum fb_err
refill(struct abandon *a)
{
	struct dbrows	 t;
	enum fb_err	 e;

	if ((e = db_leads_abandon_tenants(&a->db, a->p.now, TENANTS_READ,
	    &t)) != FB_OK)
		return e;
	e = ring_fill(&a->ring, &t);
	dbrows_free(&t);
	return e;
}

/*
 * The turns, until no lead is due or the pass is over.  The ring is
 * filled again when it is empty, unless its last filling judged nothing
 * (what is left is held by another pass, or fails).
 */
static enum fb_err
turns(struct abandon *a)
{
	char		 keys[TURN][UUID_STRLEN + 1];
	size_t		 n, k;
	int		 filled = -1;
	bool		 drained;
	enum fb_err	 e;

	while (!pass_over(&a->p)) {
		if (a->ring.n == 0) {
			if (filled == a->judged)
				return FB_OK;
			filled = a->judged;
			if ((e = refill(a)) != FB_OK || a->ring.n == 0)
				return e;
		}
		n = ring_next(&a->ring, keys, TURN);
		for (k = 0; k < n && !pass_over(&a->p); k++) {
			if ((e = turn(a, keys[k], &drained)) != FB_OK)
				return e;
			if (drained)
				ring_drop(&a->ring, keys[k]);
		}
	}
	return FB_OK;
}

/* The pass's end: what it left, the collector's old counts pruned. */
static void
finish(struct abandon *a)
{
	unsigned long long pruned = 0;
	long long	 left = 0;
	enum fb_err	 e;

	if (pass_over(&a->p) && db_leads_abandon_left(&a->db, a->p.now,
	    LEFT_CAP, &left) == FB_OK)
		pass_leave(&a->p, "due leads", (long)left);
	/* the collector's counts of hours that no longer matter (issue 11) */
	if ((e = db_tag_flood_prune(&a->db, &pruned)) != FB_OK) {
		fprintf(stderr,
		    "formback-abandon: cannot prune the collector's "
		    "counts: %s\n", fb_strerror(e));
		a->failed++;
	}
	if (a->p.verbose)
		fprintf(stderr, "formback-abandon: %d queued tag event(s) "
		    "applied, %d lead(s) judged abandoned in %ld round(s), %d "
		    "failed, %llu old count(s) pruned\n", a->applied, a->judged,
		    a->ring.rounds, a->failed, pruned);
}

int
main(int argc, char *argv[])
{
	static struct abandon a = { .p = { .prog = "formback-abandon",
	    .job = "abandon", .budget = BUDGET } };
	int		 ch;
	enum fb_err	 e;

	if ((ch = pass_start(&a.p, argc, argv, LOG_DEBUG, &a.conf)) >= 0)
		return ch;
	if (!pass_db_open(&a.p, &a.db, &a.conf))
		return 1;
	ring_init(&a.ring);
	/*
	 * What was queued when the pass began: under a flood that outruns
	 * the applier a pass still ends, and judges.
	 */
	if ((e = tag_apply_backlog(&a.db, &a.conf, &a.applied)) != FB_OK) {
		fprintf(stderr, "formback-abandon: cannot apply queued tag "
		    "events: %s\n", fb_strerror(e));
		a.failed++;
	} else if ((e = turns(&a)) != FB_OK) {
		fprintf(stderr,
		    "formback-abandon: cannot judge due leads: %s\n",
		    fb_strerror(e));
		a.failed++;
	}
	pass_took(&a.p, a.applied);
	finish(&a);
	ring_release(&a.ring);
	db_close(&a.db);
	a.p.failed = a.failed > 0;
	ch = pass_end(&a.p, &a.conf);
	conf_free(&a.conf);
	return ch;
}
