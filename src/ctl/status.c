/*
 * formbackctl tag-queue, status, check-db: what an operator watches --
 * the collector's intake queue, the queues and cron jobs (ops/status.h),
 * and the database's settings (formbackctl(8)).  They take no options.
 */
#include <stdio.h>
#include <string.h>

#include "ctl/ctl.h"
#include "ingest.h"
#include "ops/status.h"
#include "db/store.h"

/*
 * The collector's intake queue (formback.fcgi(8), Event collector): how
 * many events wait, how many are parked after three failed applications,
 * and the oldest one's receive time; `retry-parked` gives the parked
 * ones three more tries.
 */
static void
tag_queue(struct ctl *c)
{
	struct dbrows	 r;
	const struct ingest_status_row *q;
	json_object	*out;
	long long	 n = 0;
	bool		 retry;

	retry = c->argc == 1 && strcmp(c->argv[0], "retry-parked") == 0;
	if (c->argc > 1 || (c->argc == 1 && !retry))
		ctl_usage(c);
	ctl_connect(c);
	if (retry)
		ctl_check(c, db_ingest_retry(&c->db, &n),
		    "retry the parked events");
	ctl_check(c, db_ingest_status(&c->db, &r), "read the queue");
	out = json_object_new_object();
	q = r.row;
	jadd_int(out, "queued", q->queued);
	jadd_int(out, "parked", q->parked);
	jadd_time(out, "oldest_received_at", q->oldest_received_at);
	if (retry)
		jadd_int(out, "retried", n);
	dbrows_free(&r);
	if (db_commit(&c->db) != FB_OK)
		ctl_die(c, 1, "cannot commit (see above)");
	ctl_print(out);
}

/* status: the queues and the cron jobs (formbackctl(8), STATUS). */
static void
status(struct ctl *c)
{
	json_object	*out;

	if (c->argc != 0)
		ctl_usage(c);
	ctl_connect(c);
	ctl_check(c, ops_status(&c->db, &out), "read the status");
	db_rollback(&c->db);
	ctl_print(out);
}

/*
 * check-db: the database settings Formback needs (db_check_settings(),
 * issue 19), each with the value seen and its fix; exit 1 and an error
 * line naming the settings when one is not fine.
 */
static void
check_db(struct ctl *c)
{
	struct dbrows	 r;
	const struct db_check_row *k;
	json_object	*out, *list, *x;
	char		 bad[512] = "";
	size_t		 i;

	if (c->argc != 0)
		ctl_usage(c);
	ctl_connect(c);
	ctl_check(c, db_check_settings(&c->db, &r),
	    "read the database settings");
	db_rollback(&c->db);
	list = json_object_new_array();
	for (i = 0, k = r.row; i < r.n; i++) {
		x = json_object_new_object();
		jadd_str(x, "name", k[i].name);
		jadd_str(x, "value", k[i].value);
		json_object_object_add(x, "ok",
		    json_object_new_boolean(k[i].ok));
		jadd_str(x, "fix", k[i].ok ? NULL : k[i].fix);
		json_object_array_add(list, x);
		if (!k[i].ok)
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
			    "%s%s", bad[0] != '\0' ? ", " : "", k[i].name);
	}
	dbrows_free(&r);
	out = json_object_new_object();
	json_object_object_add(out, "ok",
	    json_object_new_boolean(bad[0] == '\0'));
	json_object_object_add(out, "checks", list);
	ctl_print(out);
	if (bad[0] != '\0')
		ctl_die(c, 1, "database settings to fix: %s", bad);
}

const struct ctl_cmd ctl_tag_queue_cmd = {
	"tag-queue", NULL, "[retry-parked]", CTL_RAW, tag_queue
};
const struct ctl_cmd ctl_status_cmd = {
	"status", NULL, "", CTL_RAW, status
};
const struct ctl_cmd ctl_check_db_cmd = {
	"check-db", NULL, "", CTL_RAW, check_db
};
