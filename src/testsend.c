/*
 * Codes to test recipients and test sends, sent by formback-deliver
 * (testsend.h).
 */
#include <string.h>

#include <sodium.h>

#include "pii.h"
#include "send.h"
#include "sms.h"
#include "message.h"
#include "testsend.h"
#include "url.h"
#include "db/store.h"

/* The recipient's contact, opened; false when it cannot be. */
static bool
contact_of(const struct conf *c, const char *tenant, const char *id,
    const struct dbbin *sealed, long long key_id, char *to, size_t tosz)
{
	return sealed->p != NULL && pii_open_any(c, key_id, tenant, id,
	    "test_recipient", sealed->p, sealed->n, to, tosz, NULL);
}

static enum send_result
code_send(struct db *db, const struct conf *c, const struct rcpt_send_row *t)
{
	char		 to[256], code[8], text[512], err[64];
	char		 ref[UUID_STRLEN + 1];
	char		 pid[128], html[700];
	unsigned char	 hash[SECRET_HASH_LEN];
	enum send_result res;

	if (!contact_of(c, t->tenant_id, t->id, &t->sealed, t->key_id, to,
	    sizeof(to)))
		return SEND_FAIL;
	snprintf(code, sizeof(code), "%06u",
	    (unsigned)randombytes_uniform(1000000));
	testsend_code_hash(t->id, code, hash);
	snprintf(text, sizeof(text), "【Formback】テスト送信先の確認コード: %s"
	    "(30分有効)。管理画面に入力してください。", code);
	snprintf(ref, sizeof(ref), "%s", t->id);
	/* the text holds nothing to escape: digits and fixed Japanese */
	snprintf(html, sizeof(html), "<!DOCTYPE html><html><body><p>%s</p>"
	    "</body></html>", text);
	if (strcmp(t->kind, "tel") == 0)
		res = send_sms(c, to, text, ref, pid, sizeof(pid), err,
		    sizeof(err));
	else
		res = send_email(c, to, "【Formback】テスト送信先の確認コード", text,
		    html, NULL, NULL, err, sizeof(err));
	sodium_memzero(to, sizeof(to));
	sodium_memzero(code, sizeof(code));
	sodium_memzero(text, sizeof(text));
	sodium_memzero(html, sizeof(html));
	if (res == SEND_OK &&
	    db_test_recipient_code_sent(db, t->id, hash) != FB_OK)
		res = SEND_RETRY;
	return res;
}

static bool
job_send(const struct conf *c, const struct test_send_job_row *t, char *err,
    size_t errsz)
{
	char		 to[256], link[URL_MAX + 1], pid[128];
	struct buf	 body, html, subj;
	json_object	*blocks;
	enum send_result res = SEND_FAIL;

	if (!contact_of(c, t->tenant_id, t->recipient_id, &t->sealed, t->key_id,
	    to, sizeof(to))) {
		snprintf(err, errsz, "pii_error");
		return false;
	}
	snprintf(link, sizeof(link), "%s/", c->base_url);
	buf_init(&body, 1u << 20);
	buf_init(&html, 4u << 20);
	buf_init(&subj, 4096);
	snprintf(err, errsz, "render_failed");
	if (strcmp(t->channel, "sms") == 0) {
		if (vars_expand(&body, t->body != NULL ? t->body : "",
		    TESTSEND_PRODUCT, link, link) == FB_OK)
			res = send_sms(c, to, body.data, t->id, pid,
			    sizeof(pid), err, errsz);
	} else {
		blocks = t->blocks != NULL ?
		    json_tokener_parse(t->blocks) : NULL;
		if (blocks == NULL)
			blocks = json_object_new_array();
		if (buf_addstr(&subj, "[テスト] ") == FB_OK &&
		    vars_expand(&subj, t->subject != NULL ? t->subject : "",
		    TESTSEND_PRODUCT, link, link) == FB_OK &&
		    (t->body_html != NULL ? body_html_render(t->body_html,
		    TESTSEND_PRODUCT, link, link, NULL, &html) :
		    blocks_html(blocks, TESTSEND_PRODUCT, link, link, NULL,
		    &html)) == FB_OK &&
		    buf_printf(&body, "%s\n\n%s\n", subj.data, link) == FB_OK)
			res = send_email(c, to, subj.data, body.data, html.data,
			    NULL, t->id, err, errsz);
		json_object_put(blocks);
	}
	sodium_memzero(to, sizeof(to));
	buf_release(&body);
	buf_release(&html);
	buf_release(&subj);
	return res == SEND_OK;
}

enum fb_err
testsend_pass(struct db *db, const struct conf *c, int *codes, int *sends)
{
	struct dbrows	 r;
	const struct rcpt_send_row *t;
	const struct test_send_job_row *j;
	char		 err[64];
	bool		 ok;
	size_t		 i;
	enum fb_err	 e;

	*codes = *sends = 0;
	if ((e = db_begin(db)) != FB_OK)
		return e;
	if ((e = db_test_recipient_code_claim(db, &r)) != FB_OK) {
		db_rollback(db);
		return e;
	}
	for (i = 0, t = r.row; i < r.n; i++)
		if (code_send(db, c, &t[i]) == SEND_OK)
			(*codes)++;
	dbrows_free(&r);
	if ((e = db_commit(db)) != FB_OK)
		return e;
	if ((e = db_begin(db)) != FB_OK)
		return e;
	if ((e = db_test_send_claim(db, &r)) != FB_OK) {
		db_rollback(db);
		return e;
	}
	for (i = 0, j = r.row; e == FB_OK && i < r.n; i++) {
		err[0] = '\0';
		ok = job_send(c, &j[i], err, sizeof(err));
		if (ok)
			(*sends)++;
		e = db_test_send_done(db, j[i].id, ok, ok ? NULL : err);
	}
	dbrows_free(&r);
	if (e != FB_OK) {
		db_rollback(db);
		return e;
	}
	return db_commit(db);
}
