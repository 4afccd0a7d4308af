/*
 * formback-aggregate: recounts JST days into the tables behind
 * /reports/daily and rolls the hours behind /reports/funnel (design 1;
 * contract: Reports; formback-aggregate(8)).
 *
 * It follows changes, not tenants (issue 40): every write of a row the
 * reports count marks its tenant's JST day dirty in the same transaction
 * (the triggers of migration 0035), and a pass recounts the marked days,
 * the oldest mark first, each from the raw rows in one transaction that
 * begins by deleting its mark (db_aggregate_day()): a rerun writes the
 * same rows, copies on several hosts take turns on a day, and a tenant
 * with nothing new costs nothing.  A day marked again while the pass runs
 * waits for the next pass, behind the others.
 *
 * In turns with the days, the hours: the tenants with events after their
 * rolled hours (one index dive a tenant), a few transactions of
 * HOURS_PER_TX hours each a turn (db_roll_hours()).  The pass ends when
 * both are done or its budget is spent, and says what it left.
 */
#include <stdio.h>
#include <string.h>

#include "formback.h"
#include "pass.h"
#include "db/store.h"

#define BUDGET		540	/* seconds; cron starts it every 10 minutes */
#define HOURS_PER_TX	6	/* rolled in one transaction */
#define TXS_PER_TURN	4	/* a tenant's hour transactions a turn */
#define TURN		16	/* tenants a turn of the ring */
#define MARKS_READ	64	/* marked days read at once */
#define TENANTS_READ	10000	/* tenants with hours to roll read at once */

struct aggregate {
	struct pass	 p;
	struct conf	 conf;
	struct db	 db;
	struct ring	 ring;		/* tenants with hours to roll */
	char		 now[32];	/* the pass's clock, SQL datetime */
	char		 began[32];	/* its start, the database's clock */
	bool		 ring_read;	/* the ring was filled this pass */
	long		 days, hours;
	int		 failed;
};

/* One tenant's turn of hours; *drained when it has none left to roll. */
static void
hours_turn(struct aggregate *a, const char *tenant, bool *drained)
{
	int		 k, n = 0;
	enum fb_err	 e;

	*drained = false;
	for (k = 0; k < TXS_PER_TURN && pass_room(&a->p, 1) > 0; k++) {
		if ((e = db_roll_hours(&a->db, tenant, a->now, HOURS_PER_TX,
		    &n)) != FB_OK) {
			fprintf(stderr, "formback-aggregate: tenant %s, hours: "
			    "%s\n", tenant, fb_strerror(e));
			a->failed++;
			break;
		}
		if (n == 0)
			break;
		a->hours += n;
		pass_took(&a->p, 1);
	}
	*drained = e != FB_OK || n < HOURS_PER_TX;
}

/* A turn of the hours' ring, filled once a pass; false: nothing to do. */
static bool
hours_round(struct aggregate *a)
{
	char		 keys[TURN][UUID_STRLEN + 1];
	struct dbrows	 t;
	size_t		 n, k;
	bool		 drained;

	if (!a->ring_read) {
		a->ring_read = true;
		if (db_hours_tenants(&a->db, a->now, a->p.tenant, TENANTS_READ,
		    &t) != FB_OK) {
			fprintf(stderr, "formback-aggregate: cannot read the "
			    "tenants with hours to roll\n");
			a->failed++;
			return false;
		}
		if (ring_fill(&a->ring, &t) != FB_OK)
			a->failed++;
		dbrows_free(&t);
	}
	n = ring_next(&a->ring, keys, TURN);
	for (k = 0; k < n && !pass_over(&a->p); k++) {
		hours_turn(a, keys[k], &drained);
		if (drained)
			ring_drop(&a->ring, keys[k]);
	}
	return n > 0;
}

/* A batch of marked days, the oldest marks first; false: none left. */
static bool
days_batch(struct aggregate *a)
{
	struct dbrows	 m;
	const struct report_mark_row *d;
	char		 from[32], to[32];
	int64_t		 t;
	size_t		 i;
	bool		 done;
	enum fb_err	 e;

	if (db_aggregate_marks(&a->db, a->began, a->p.tenant, MARKS_READ,
	    &m) != FB_OK) {
		fprintf(stderr, "formback-aggregate: cannot read the marked "
		    "days\n");
		a->failed++;
		return false;
	}
	for (i = 0, d = m.row; i < m.n && pass_room(&a->p, 1) > 0; i++) {
		/* the JST day's UTC bounds */
		if ((t = time_jst_date(d[i].day)) < 0)
			continue;
		time_sql(t, from);
		time_sql(t + 86400, to);
		if ((e = db_aggregate_day(&a->db, d[i].tenant_id, d[i].day,
		    from, to, &done)) != FB_OK) {
			fprintf(stderr,
			    "formback-aggregate: tenant %s, %s: %s\n",
			    d[i].tenant_id, d[i].day, fb_strerror(e));
			a->failed++;
			if (e == FB_EGONE)
				break;
		} else if (done) {
			a->days++;
			pass_took(&a->p, 1);
		}
	}
	done = m.n == MARKS_READ;
	dbrows_free(&m);
	return done && a->failed == 0;
}

/* What the pass leaves: the marked days and the tenants' hours. */
static void
leave(struct aggregate *a)
{
	struct dbrows	 m;

	if (!pass_over(&a->p))
		return;
	if (db_aggregate_marks(&a->db, a->began, a->p.tenant, 100000,
	    &m) == FB_OK) {
		pass_leave(&a->p, "marked days", (long)m.n);
		dbrows_free(&m);
	}
	pass_leave(&a->p, "tenants' hours to roll", (long)a->ring.n);
}

int
main(int argc, char *argv[])
{
	static struct aggregate a = { .p = { .prog = "formback-aggregate",
	    .job = "aggregate", .budget = BUDGET, .tenant_opt = true } };
	int		 ch;
	bool		 hours = true, days = true;

	if ((ch = pass_start(&a.p, argc, argv, LOG_DEBUG, &a.conf)) >= 0)
		return ch;
	if (!pass_db_open(&a.p, &a.db, &a.conf))
		return 1;
	ring_init(&a.ring);
	time_sql(a.p.now, a.now);
	/* the marks made from now on wait for the next pass */
	if (db_aggregate_clock(&a.db, a.began) != FB_OK) {
		fprintf(stderr,
		    "formback-aggregate: cannot read the database's "
		    "clock\n");
		db_close(&a.db);
		return 1;
	}
	/* the hours and the days in turns, until both are done */
	while ((hours || days) && !pass_over(&a.p)) {
		if (hours)
			hours = hours_round(&a);
		if (days && !pass_over(&a.p))
			days = days_batch(&a);
	}
	leave(&a);
	if (a.p.verbose)
		fprintf(stderr, "formback-aggregate: %ld day(s) recounted, %ld "
		    "hour(s) rolled, %d failed\n", a.days, a.hours, a.failed);
	ring_release(&a.ring);
	db_close(&a.db);
	a.p.failed = a.failed > 0;
	ch = pass_end(&a.p, &a.conf);
	conf_free(&a.conf);
	return ch;
}
