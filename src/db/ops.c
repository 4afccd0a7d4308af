/*
 * SQL of what an operator watches (store.h; issue 18): the queues' depth
 * and age, the cron jobs' last passes; and the database settings
 * Formback needs (issue 19).
 */
#include <stdio.h>
#include <string.h>

#include "store.h"

enum { OPS_QUEUES, OPS_JOBS, OPS_PASS, OPS_CHECK, OPS__MAX };

#define QUEUE(name, from, due) \
	"SELECT '" name "' AS name, COUNT(*) AS depth, " \
	"MIN(" due ") AS oldest, " \
	"COALESCE(TIMESTAMPDIFF(SECOND, MIN(" due "), NOW(6)), 0) AS age " \
	"FROM " from

static const struct dbstmt ops_sql[OPS__MAX] = {
	/* each on an index of its own: the due rows, oldest first */
	{ "ops_queues",
	  QUEUE("intake", "tag_ingest WHERE attempts < 3", "received_at")
	  " UNION ALL " QUEUE("deliveries", "deliveries WHERE status = "
	  "'scheduled' AND scheduled_at <= NOW(6)", "scheduled_at")
	  " UNION ALL " QUEUE("webhooks", "webhook_deliveries WHERE status = "
	  "'pending' AND next_attempt_at <= NOW(6)", "next_attempt_at")
	  " UNION ALL " QUEUE("outbox", "outbox WHERE topic IN ('webhook', "
	  "'email', 'publish') AND processed_at IS NULL", "created_at")
	  " UNION ALL " QUEUE("test_sends", "test_sends WHERE status = "
	  "'pending'",
	  "created_at") },
	{ "ops_jobs",
	  "SELECT " DB_SELECT(CRON_PASS_COLS) " FROM cron_passes ORDER BY "
	  "job" },
	/* the failures of this clock hour, the count reset at a new one */
	{ "ops_pass",
	  "INSERT INTO cron_passes (job, host, started_at, finished_at, "
	  "outcome, items, left_items, last_ok_at, hour_start, failures_hour) "
	  "VALUES (?, ?, FROM_UNIXTIME(?), NOW(6), ?, ?, ?, IF(? = 'ok', "
	  "NOW(6), NULL), DATE_FORMAT(NOW(), '%Y-%m-%d %H:00:00'), ? = "
	  "'failed') ON DUPLICATE KEY UPDATE host = VALUES(host), left_items = "
	  "VALUES(left_items), "
	  "started_at = VALUES(started_at), finished_at = VALUES(finished_at), "
	  "failures_hour = IF(hour_start = VALUES(hour_start), failures_hour, "
	  "0) + (VALUES(outcome) = 'failed'), hour_start = VALUES(hour_start), "
	  "outcome = VALUES(outcome), items = VALUES(items), "
	  "last_ok_at = IF(VALUES(outcome) = 'ok', VALUES(finished_at), "
	  "last_ok_at)" },
	/*
	 * OPS_CHECK: a row per check; a server variable a build lacks is NULL
	 */
	{ "ops_check",
	  "SELECT 'engine' AS name, IFNULL(GROUP_CONCAT(table_name ORDER BY "
	  "table_name), '') AS value, COUNT(*) = 0 AS ok, 'ALTER TABLE ... "
	  "ENGINE=InnoDB for each table named (Galera replicates InnoDB only)' "
	  "AS fix FROM information_schema.tables WHERE table_schema = "
	  "DATABASE() AND table_type = 'BASE TABLE' AND engine <> 'InnoDB' "
	  "UNION ALL SELECT 'primary_key', IFNULL(GROUP_CONCAT(t.table_name "
	  "ORDER BY t.table_name), ''), COUNT(*) = 0, 'give each table named a "
	  "primary key' FROM information_schema.tables t WHERE t.table_schema "
	  "= DATABASE() AND t.table_type = 'BASE TABLE' AND NOT EXISTS (SELECT "
	  "1 FROM information_schema.table_constraints c WHERE c.table_schema "
	  "= t.table_schema AND c.table_name = t.table_name AND "
	  "c.constraint_type = 'PRIMARY KEY') "
	  "UNION ALL SELECT 'binlog_format', CONCAT(IF(@@log_bin, 'log_bin ON, "
	  "', 'log_bin OFF, '), @@binlog_format), NOT @@log_bin OR "
	  "@@binlog_format = 'ROW', 'binlog_format = ROW in the server "
	  "configuration' UNION ALL SELECT 'log_bin_trust_function_creators', "
	  "CAST(@@log_bin_trust_function_creators AS CHAR), NOT @@log_bin OR "
	  "@@log_bin_trust_function_creators, 'log_bin_trust_function_creators "
	  "= 1 in the server configuration (SET GLOBAL too), or GRANT SUPER to "
	  "this user: with the binary log on, migration 0010 creates triggers' "
	  "UNION ALL SELECT 'transaction_isolation', @@tx_isolation, "
	  "@@tx_isolation IN ('REPEATABLE-READ', 'READ-COMMITTED'), "
	  "'transaction_isolation = REPEATABLE-READ in the server "
	  "configuration' UNION ALL SELECT 'innodb_autoinc_lock_mode', "
	  "CAST(@@innodb_autoinc_lock_mode AS CHAR), IFNULL((SELECT "
	  "variable_value FROM information_schema.global_variables WHERE "
	  "variable_name = 'WSREP_ON'), 'OFF') <> 'ON' OR "
	  "@@innodb_autoinc_lock_mode = 2, 'innodb_autoinc_lock_mode = 2 in "
	  "the server configuration (Galera)' UNION ALL SELECT "
	  "'wsrep_local_state_comment', IFNULL((SELECT variable_value FROM "
	  "information_schema.global_status WHERE variable_name = "
	  "'WSREP_LOCAL_STATE_COMMENT'), ''), IFNULL((SELECT variable_value "
	  "FROM information_schema.global_variables WHERE variable_name = "
	  "'WSREP_ON'), 'OFF') <> 'ON' OR (SELECT variable_value FROM "
	  "information_schema.global_status WHERE variable_name = "
	  "'WSREP_LOCAL_STATE_COMMENT') = 'Synced', 'this Galera node is not "
	  "synced: wait for it, or write through one that is' UNION ALL SELECT "
	  "'character_set_database', @@character_set_database, "
	  "@@character_set_database = 'utf8mb4', 'ALTER DATABASE ... CHARACTER "
	  "SET utf8mb4 COLLATE utf8mb4_bin'" },
};

#define DB_ROW struct queue_row
static const struct dbcol queue_cols[] = { DB_COLUMNS(QUEUE_COLS) };
#undef DB_ROW
#define DB_ROW struct cron_pass_row
static const struct dbcol pass_cols[] = { DB_COLUMNS(CRON_PASS_COLS) };
#undef DB_ROW
#define DB_ROW struct db_check_row
static const struct dbcol check_cols[] = { DB_COLUMNS(DB_CHECK_COLS) };
#undef DB_ROW

enum fb_err
db_ops_queues(struct db *db, struct dbrows *out)
{
	return db_rows(db, DBSET_OPS, OPS_QUEUES, &ops_sql[OPS_QUEUES],
	    DBNOPARAMS, queue_cols, NELEM(queue_cols), sizeof(struct queue_row),
	    false, out);
}

enum fb_err
db_ops_jobs(struct db *db, struct dbrows *out)
{
	return db_rows(db, DBSET_OPS, OPS_JOBS, &ops_sql[OPS_JOBS], DBNOPARAMS,
	    pass_cols, NELEM(pass_cols), sizeof(struct cron_pass_row),
	    false, out);
}

enum fb_err
db_cron_pass(struct db *db, const char *job, const char *host,
    long long started, bool ok, long long items, long long left)
{
	const char	*o = ok ? "ok" : "failed";

	return db_run(db, DBSET_OPS, OPS_PASS, &ops_sql[OPS_PASS], DBPARAMS(
	    P_STR(job), P_STR(host), P_INT(started), P_STR(o), P_INT(items),
	    P_INT(left), P_STR(o), P_STR(o)), NULL);
}

enum fb_err
db_check_settings(struct db *db, struct dbrows *out)
{
	return db_rows(db, DBSET_OPS, OPS_CHECK, &ops_sql[OPS_CHECK],
	    DBNOPARAMS,
	    check_cols, NELEM(check_cols), sizeof(struct db_check_row),
	    false, out);
}
