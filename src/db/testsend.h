/*
 * src/db/testsend.c: test sends; store.h includes every such header.
 */
#ifndef FORMBACK_DB_TESTSEND_H
#define FORMBACK_DB_TESTSEND_H

#include "db.h"

/*
 * db/testsend.c: test recipients members add and confirm, and test sends
 * (migration 0021; issue 16).
 */
/* One struct test_recipient_row of the tenant; FB_ENOTFOUND when none. */
enum fb_err db_test_recipient_get(struct db *, const char *tenant,
    const char *id, struct dbrows *out) FB_WUR;
enum fb_err db_test_recipient_remove(struct db *, const char *tenant,
	    const char *id, bool *found) FB_WUR;
/* The code check of a recipient, locked. */
#define RCPT_CODE_COLS(F, N) F(code_hash, BIN, "code_hash") \
	N(tries, INT, "code_tries") \
	N(live, BOOL, "code_sent_at > NOW(6) - INTERVAL 30 MINUTE") \
	N(confirmed, BOOL, "confirmed_at IS NOT NULL")
struct rcpt_code_row { DB_FIELDS(RCPT_CODE_COLS) };
enum fb_err db_test_recipient_code(struct db *, const char *tenant,
    const char *id, struct dbrows *out) FB_WUR;
/* A wrong code: one more try counted. */
enum fb_err db_test_recipient_try(struct db *, const char *id) FB_WUR;
enum fb_err db_test_recipient_confirm(struct db *, const char *id) FB_WUR;
/* A recipient to send a code to, or one a test send goes to. */
#define RCPT_SEND_COLS(F, N) F(id, TEXT, "id") N(tenant_id, TEXT, "tenant_id") \
	N(kind, TEXT, "kind") N(sealed, BIN, "contact_sealed") \
	N(key_id, INT, "COALESCE(pii_key_id, 0)")
struct rcpt_send_row { DB_FIELDS(RCPT_SEND_COLS) };
/* Up to 20 recipients waiting for their code, locked, no other pass's. */
enum fb_err db_test_recipient_code_claim(struct db *,
    struct dbrows *out) FB_WUR;
enum fb_err db_test_recipient_code_sent(struct db *, const char *id,
	    const unsigned char *hash) FB_WUR;
/* The tenant's confirmed recipients of `kind` that a test send can reach. */
enum fb_err db_test_recipients_reachable(struct db *, const char *tenant,
	    const char *kind, struct dbrows *out) FB_WUR;
/* A test send (TestSendOut). */
#define TEST_SEND_COLS(F, N) F(id, TEXT, "t.id") N(message_id, TEXT, \
    "t.message_id") \
	N(recipient_id, TEXT, "t.recipient_id") \
	N(masked, TEXT, \
	    "(SELECT r.masked FROM test_recipients r WHERE r.id = " \
	    "t.recipient_id)") \
	N(status, TEXT, "t.status") N(error, TEXT, "t.error") \
	N(sent_at, TIME, "t.sent_at") N(created_at, TIME, "t.created_at")
struct test_send_row { DB_FIELDS(TEST_SEND_COLS) };
enum fb_err db_test_send_add(struct db *, const char *id, const char *tenant,
	    const char *message, const char *recipient,
	    const char *member) FB_WUR;
enum fb_err db_test_send_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *out) FB_WUR;
enum fb_err db_test_send_list(struct db *, const char *tenant,
    const char *before, int n, struct dbrows *out) FB_WUR;
/* A pending test send with its message and recipient, for the sender. */
#define TEST_SEND_JOB_COLS(F, N) F(id, TEXT, "t.id") \
	N(tenant_id, TEXT, "t.tenant_id") \
	N(recipient_id, TEXT, "t.recipient_id") \
	N(kind, TEXT, "r.kind") N(sealed, BIN, "r.contact_sealed") \
	N(key_id, INT, "COALESCE(r.pii_key_id, 0)") \
	N(channel, TEXT, "m.channel") \
	N(subject, TEXT, "m.subject") N(body, TEXT, "m.body") \
	N(blocks, TEXT, "m.blocks") \
	N(body_html, TEXT, "m.body_html")
struct test_send_job_row { DB_FIELDS(TEST_SEND_JOB_COLS) };
/* Up to 20 pending test sends, locked, no other pass's. */
enum fb_err db_test_send_claim(struct db *, struct dbrows *out) FB_WUR;
enum fb_err db_test_send_done(struct db *, const char *id, bool sent,
	    const char *error) FB_WUR;

#endif
