/*
 * The queues and the cron jobs, read for GET /api/v1/metrics
 * (api/settings.c) and as one JSON object for formbackctl status
 * (status.h).
 */
#include <stdbool.h>
#include <string.h>

#include "ops/status.h"
#include "db/store.h"

bool
job_stalled(const struct cron_pass_row *j)
{
	return j->age > (strcmp(j->job, "aggregate") == 0 ? STALL_AGGREGATE :
	    STALL_MINUTELY);
}

/* The queues' object: one member per queue. */
static json_object *
queues_json(const struct dbrows *q)
{
	const struct queue_row *qr = q->row;
	json_object	*qs = json_object_new_object(), *x;
	size_t		 i;

	for (i = 0; i < q->n; i++) {
		x = json_object_new_object();
		jadd_int(x, "depth", qr[i].depth);
		jadd_time(x, "oldest_due_at", qr[i].oldest);
		jadd_int(x, "age_seconds", qr[i].age);
		jadd_bool(x, "stalled", qr[i].age > STALL_QUEUE);
		json_object_object_add(qs, qr[i].name, x);
	}
	return qs;
}

/* The jobs' object: one member per job, its last pass. */
static json_object *
jobs_json(const struct dbrows *jb)
{
	const struct cron_pass_row *jr = jb->row;
	json_object	*js = json_object_new_object(), *x;
	size_t		 i;

	for (i = 0; i < jb->n; i++) {
		x = json_object_new_object();
		jadd_str(x, "host", jr[i].host);
		jadd_time(x, "last_pass_at", jr[i].finished_at);
		jadd_str(x, "outcome", jr[i].outcome);
		jadd_int(x, "items", jr[i].items);
		jadd_int(x, "left", jr[i].left_items);
		jadd_time(x, "last_ok_at", jr[i].last_ok_at);
		jadd_int(x, "age_seconds", jr[i].age);
		jadd_int(x, "failures_this_hour", jr[i].failures_hour);
		jadd_bool(x, "stalled", job_stalled(&jr[i]));
		json_object_object_add(js, jr[i].job, x);
	}
	return js;
}

enum fb_err
ops_status_read(struct db *db, struct ops_status *st)
{
	enum fb_err	 e;

	memset(st, 0, sizeof(*st));
	if ((e = db_schema_version(db, st->schema)) != FB_OK ||
	    (e = db_ops_queues(db, &st->queues)) != FB_OK)
		return e;
	if ((e = db_ops_jobs(db, &st->jobs)) != FB_OK)
		dbrows_free(&st->queues);
	return e;
}

void
ops_status_free(struct ops_status *st)
{
	dbrows_free(&st->queues);
	dbrows_free(&st->jobs);
}

enum fb_err
ops_status(struct db *db, json_object **out)
{
	struct ops_status st;
	json_object	*o;
	enum fb_err	 e;

	*out = NULL;
	if ((e = ops_status_read(db, &st)) != FB_OK)
		return e;
	o = json_object_new_object();
	jadd_str(o, "schema", st.schema);
	json_object_object_add(o, "queues", queues_json(&st.queues));
	json_object_object_add(o, "jobs", jobs_json(&st.jobs));
	ops_status_free(&st);
	*out = o;
	return FB_OK;
}
