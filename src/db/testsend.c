/*
 * SQL of test recipients members add and confirm, and of test sends (store.h).
 */
#include <stdio.h>
#include <string.h>

#include "store.h"

enum {
	TS_RCPT_GET, TS_RCPT_REMOVE, TS_RCPT_CODE, TS_RCPT_TRY, TS_RCPT_CONFIRM,
	TS_CODE_CLAIM, TS_CODE_SENT, TS_REACHABLE, TS_ADD, TS_GET, TS_LIST,
	TS_CLAIM, TS_DONE,
	TS__MAX
};

static const struct dbstmt ts_sql[TS__MAX] = {
	{ "test_recipient_get",
	  "SELECT " DB_SELECT(TEST_RECIPIENT_COLS) " FROM test_recipients "
	  "WHERE tenant_id = ? AND id = ?" },
	{ "test_recipient_remove",
	  "DELETE FROM test_recipients WHERE tenant_id = ? AND id = ?" },
	{ "test_recipient_code",
	  "SELECT " DB_SELECT(RCPT_CODE_COLS) " FROM test_recipients "
	  "WHERE tenant_id = ? AND id = ? FOR UPDATE" },
	{ "test_recipient_try",
	  "UPDATE test_recipients SET code_tries = code_tries + 1 WHERE id = "
	  "?" },
	{ "test_recipient_confirm",
	  "UPDATE test_recipients SET confirmed_at = NOW(6), code_hash = NULL "
	  "WHERE id = ?" },
	{ "test_recipient_code_claim",
	  "SELECT " DB_SELECT(RCPT_SEND_COLS) " FROM test_recipients "
	  "WHERE confirmed_at IS NULL AND code_sent_at IS NULL "
	  "AND contact_sealed IS NOT NULL ORDER BY created_at LIMIT 20 "
	  "FOR UPDATE SKIP LOCKED" },
	{ "test_recipient_code_sent",
	  "UPDATE test_recipients SET code_hash = ?, code_sent_at = NOW(6), "
	  "code_tries = 0 WHERE id = ?" },
	{ "test_recipients_reachable",
	  "SELECT " DB_SELECT(RCPT_SEND_COLS) " FROM test_recipients "
	  "WHERE tenant_id = ? AND kind = ? AND confirmed_at IS NOT NULL "
	  "AND contact_sealed IS NOT NULL ORDER BY id LIMIT 20" },
	{ "test_send_add",
	  "INSERT INTO test_sends (id, tenant_id, message_id, recipient_id, "
	  "member_id) VALUES (?, ?, ?, ?, ?)" },
	{ "test_send_get",
	  "SELECT " DB_SELECT(TEST_SEND_COLS) " FROM test_sends t "
	  "WHERE t.tenant_id = ? AND t.id = ?" },
	{ "test_send_list",
	  "SELECT " DB_SELECT(TEST_SEND_COLS) " FROM test_sends t "
	  "WHERE t.tenant_id = ? AND t.id < ? ORDER BY t.id DESC LIMIT ?" },
	{ "test_send_claim",
	  "SELECT " DB_SELECT(TEST_SEND_JOB_COLS) " FROM test_sends t "
	  "JOIN test_recipients r ON r.id = t.recipient_id "
	  "JOIN messages m ON m.id = t.message_id "
	  "WHERE t.status = 'pending' ORDER BY t.created_at LIMIT 20 "
	  "FOR UPDATE SKIP LOCKED" },
	{ "test_send_done",
	  "UPDATE test_sends SET status = ?, error = ?, sent_at = "
	  "IF(? = 'sent', NOW(6), NULL) WHERE id = ?" },
};

#define COLS(name, COLSET) \
	static const struct dbcol name[] = { DB_COLUMNS(COLSET) }
#define DB_ROW struct test_recipient_row
COLS(rcpt_cols, TEST_RECIPIENT_COLS);
#undef DB_ROW
#define DB_ROW struct rcpt_code_row
COLS(code_cols, RCPT_CODE_COLS);
#undef DB_ROW
#define DB_ROW struct rcpt_send_row
COLS(rcpt_send_cols, RCPT_SEND_COLS);
#undef DB_ROW
#define DB_ROW struct test_send_row
COLS(send_cols, TEST_SEND_COLS);
#undef DB_ROW
#define DB_ROW struct test_send_job_row
COLS(job_cols, TEST_SEND_JOB_COLS);
#undef DB_ROW
#undef COLS

static enum fb_err
run(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	return db_run(db, DBSET_TESTSEND, id, &ts_sql[id], p, n, r);
}

static enum fb_err
rows(struct db *db, int id, const struct dbp *p, size_t n,
    const struct dbcol *cols,
    size_t ncols, size_t rowsize, bool one, struct dbrows *out)
{
	return db_rows(db, DBSET_TESTSEND, id, &ts_sql[id], p, n, cols, ncols,
	    rowsize, one, out);
}

enum fb_err
db_test_recipient_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, TS_RCPT_GET, DBPARAMS(P_STR(tenant), P_STR(id)),
	    rcpt_cols,
	    NELEM(rcpt_cols), sizeof(struct test_recipient_row), true, out);
}

enum fb_err
db_test_recipient_remove(struct db *db, const char *tenant, const char *id,
    bool *found)
{
	unsigned long long n = 0;
	enum fb_err	 e;

	e = db_changed(db, DBSET_TESTSEND, TS_RCPT_REMOVE,
	    &ts_sql[TS_RCPT_REMOVE], DBPARAMS(P_STR(tenant), P_STR(id)), &n);
	*found = n > 0;
	return e;
}

enum fb_err
db_test_recipient_code(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, TS_RCPT_CODE, DBPARAMS(P_STR(tenant), P_STR(id)),
	    code_cols,
	    NELEM(code_cols), sizeof(struct rcpt_code_row), true, out);
}

enum fb_err
db_test_recipient_try(struct db *db, const char *id)
{
	return run(db, TS_RCPT_TRY, DBPARAMS(P_STR(id)), NULL);
}

enum fb_err
db_test_recipient_confirm(struct db *db, const char *id)
{
	return run(db, TS_RCPT_CONFIRM, DBPARAMS(P_STR(id)), NULL);
}

enum fb_err
db_test_recipient_code_claim(struct db *db, struct dbrows *out)
{
	return rows(db, TS_CODE_CLAIM, DBNOPARAMS, rcpt_send_cols,
	    NELEM(rcpt_send_cols), sizeof(struct rcpt_send_row), false, out);
}

enum fb_err
db_test_recipient_code_sent(struct db *db, const char *id,
    const unsigned char *hash)
{
	return run(db, TS_CODE_SENT, DBPARAMS(P_BIN(hash, SECRET_HASH_LEN),
	    P_STR(id)), NULL);
}

enum fb_err
db_test_recipients_reachable(struct db *db, const char *tenant,
    const char *kind, struct dbrows *out)
{
	return rows(db, TS_REACHABLE, DBPARAMS(P_STR(tenant), P_STR(kind)),
	    rcpt_send_cols, NELEM(rcpt_send_cols), sizeof(struct rcpt_send_row),
	    false, out);
}

enum fb_err
db_test_send_add(struct db *db, const char *id, const char *tenant,
    const char *message, const char *recipient, const char *member)
{
	return run(db, TS_ADD,
	    DBPARAMS(P_STR(id), P_STR(tenant), P_STR(message),
	    P_STR(recipient), P_STR(member)), NULL);
}

enum fb_err
db_test_send_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, TS_GET, DBPARAMS(P_STR(tenant), P_STR(id)), send_cols,
	    NELEM(send_cols), sizeof(struct test_send_row), true, out);
}

enum fb_err
db_test_send_list(struct db *db, const char *tenant, const char *before, int n,
    struct dbrows *out)
{
	return rows(db, TS_LIST, DBPARAMS(P_STR(tenant),
	    P_STR(before != NULL ? before : DB_MAX_ID), P_INT(n)), send_cols,
	    NELEM(send_cols), sizeof(struct test_send_row), false, out);
}

enum fb_err
db_test_send_claim(struct db *db, struct dbrows *out)
{
	return rows(db, TS_CLAIM, DBNOPARAMS, job_cols, NELEM(job_cols),
	    sizeof(struct test_send_job_row), false, out);
}

enum fb_err
db_test_send_done(struct db *db, const char *id, bool sent, const char *error)
{
	const char	*st = sent ? "sent" : "failed";

	return run(db, TS_DONE, DBPARAMS(P_STR(st), P_STR(error), P_STR(st),
	    P_STR(id)), NULL);
}
