/*
 * src/db/ops.c: what an operator watches (formbackctl status, the
 * metrics); store.h includes every such header.
 */
#ifndef FORMBACK_DB_OPS_H
#define FORMBACK_DB_OPS_H

#include "db.h"

/* A queue: its due rows, the oldest one's due time and its age. */
#define QUEUE_COLS(F, N) F(name, TEXT, "name") N(depth, INT, "depth") \
	N(oldest, TIME, "oldest") N(age, INT, "age")
struct queue_row { DB_FIELDS(QUEUE_COLS) };
/* The queues: intake, deliveries, webhooks, outbox, test_sends. */
enum fb_err db_ops_queues(struct db *, struct dbrows *out) FB_WUR;
/* A cron job's last pass (migration 0022). */
#define CRON_PASS_COLS(F, N) F(job, TEXT, "job") N(host, TEXT, "host") \
	N(started_at, TIME, "started_at") N(finished_at, TIME, "finished_at") \
	N(outcome, TEXT, "outcome") N(items, INT, "items") \
	N(left_items, INT, "left_items") \
	N(last_ok_at, TIME, "last_ok_at") \
	N(age, INT, "TIMESTAMPDIFF(SECOND, finished_at, NOW(6))") \
	N(failures_hour, INT, \
	    "IF(hour_start = DATE_FORMAT(NOW(), '%Y-%m-%d %H:00:00'), " \
	    "failures_hour, 0)")
struct cron_pass_row { DB_FIELDS(CRON_PASS_COLS) };
enum fb_err db_ops_jobs(struct db *, struct dbrows *out) FB_WUR;
/*
 * Record a job's pass (started: unix seconds; items done, and left for
 * the next pass), autocommit.
 */
enum fb_err db_cron_pass(struct db *, const char *job, const char *host,
	    long long started, bool ok, long long items, long long left) FB_WUR;
/*
 * The database settings Formback needs (formbackctl check-db; issue 19):
 * one row per check, its setting's name, the value seen, whether it is
 * fine, and the fix.  Tables InnoDB with a primary key (Galera replicates
 * nothing else), the binary log's needs (binlog_format ROW; the triggers
 * of migration 0010 need log_bin_trust_function_creators or SUPER), the
 * isolation level, Galera's (innodb_autoinc_lock_mode 2, a node synced in
 * the primary component), the database's character set.
 */
#define DB_CHECK_COLS(F, N) F(name, TEXT, "name") N(value, TEXT, "value") \
	N(ok, BOOL, "ok") N(fix, TEXT, "fix")
struct db_check_row { DB_FIELDS(DB_CHECK_COLS) };
enum fb_err db_check_settings(struct db *, struct dbrows *out) FB_WUR;

#endif
