/*
 * ops/status.c: what an operator watches -- the queues and the cron
 * jobs -- as formbackctl status prints it and GET /api/v1/metrics
 * exposes it (formbackctl(8), STATUS; issue 18).
 *
 * In the caller's transaction; reads only.
 */
#ifndef OPS_STATUS_H
#define OPS_STATUS_H

#include <json-c/json.h>

#include "formback.h"
#include "db/db.h"

struct db;

/* Alert thresholds (formbackctl(8), STATUS): seconds. */
#define STALL_QUEUE	600	/* the oldest due item waiting */
#define STALL_MINUTELY	300	/* since the last pass of a minutely job */
#define STALL_AGGREGATE	1800	/* since formback-aggregate's (10 minutes) */

/* The status as the database holds it: typed rows (db/ops.h). */
struct ops_status {
	char		 schema[16];	/* the migration applied last */
	struct dbrows	 queues;	/* struct queue_row */
	struct dbrows	 jobs;		/* struct cron_pass_row, one a job */
};

/*
 * Read it into *st, which ops_status_free() releases.  Errors: the
 * database's (then there is nothing to free).
 */
enum fb_err	ops_status_read(struct db *, struct ops_status *st) FB_WUR;
void		ops_status_free(struct ops_status *);
struct cron_pass_row;
/* A job whose last pass is older than its threshold (STALL_*). */
bool		job_stalled(const struct cron_pass_row *);

/*
 * {"schema", "queues": {name: {depth, oldest_due_at, age_seconds,
 * stalled}}, "jobs": {job: {host, last_pass_at, outcome, items, left,
 * last_ok_at, age_seconds, failures_this_hour, stalled}}} into *out,
 * which the caller puts (json_object_put()).  Errors: the database's
 * (then *out is NULL).
 */
enum fb_err	ops_status(struct db *, json_object **out) FB_WUR;

#endif
