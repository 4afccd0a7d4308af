/*
 * Test recipients and test sends (issue 16; contract: Authentication 9,
 * test sends are not for API keys).  A member adds a phone number or an
 * address; formback-deliver sends it a 6-digit code; typed back, the
 * recipient counts for the test_only delivery mode and test sends.  A
 * test send is a message rendered with sample values for each confirmed
 * recipient of its channel, sent by the next formback-deliver pass, never
 * a delivery to a lead and never counted in the usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "../api.h"
#include "../pii.h"
#include "../rowjson.h"
#include "../testsend.h"
#include "../db/store.h"

static void
recipient_gen(struct jgen *j, const void *row)
{
	const struct test_recipient_row *t = row;

	test_recipient_json(j, row);
	jg_str(j, "status", t->confirmed_at != NULL ? "confirmed" : "pending");
}

static enum fb_err
recipient_answer(struct req *r, const char *id, int status)
{
	struct dbrows	 t;
	enum fb_err	 e;

	if ((e = db_test_recipient_get(r->db, r->auth.tenant_id, id,
	    &t)) != FB_OK)
		return e;
	e = req_row(r, status, recipient_gen, t.row);
	dbrows_free(&t);
	return e;
}

/* GET /api/v1/admin/test_recipients: all of them (a handful), oldest first. */
enum fb_err
api_test_recipients_list(struct req *r)
{
	struct dbrows	 t;
	struct jgen	 j;
	size_t		 i;
	enum fb_err	 e;

	if ((e = db_test_recipient_list(r->db, r->auth.tenant_id, &t)) != FB_OK)
		return e;
	req_gen_begin(r, &j);
	jg_str(&j, "object", "list");
	jg_arr(&j, "data");
	for (i = 0; i < t.n; i++) {
		jg_obj(&j, NULL);
		recipient_gen(&j, (const struct test_recipient_row *)t.row + i);
		jg_obj_end(&j);
	}
	jg_arr_end(&j);
	jg_str(&j, "next_cursor", NULL);
	jg_bool(&j, "has_more", false);
	dbrows_free(&t);
	return req_gen_end(r, &j, 200);
}

/*
 * POST /api/v1/admin/test_recipients {contact}: pending until its code
 * is typed back; the contact kept sealed, answered masked.
 */
enum fb_err
api_test_recipients_add(struct req *r)
{
	const char	*contact, *kind;
	unsigned char	 sealed[PII_SEALED_MAX(254)];
	char		 masked[300], id[UUID_STRLEN + 1], norm[256];
	enum tel_kind	 tk;
	struct bidx	 b;
	struct dbbin	 sb;
	enum fb_err	 e;

	if (body_str(r, "contact", true, 254, &contact) < 0)
		return FB_OK;
	if (!contact_bidx(bidx_cur(r->conf), r->auth.tenant_id, contact, &kind,
	    &b, masked))
		return api_error(r, AC_PARAMETER_INVALID, "contact");
	/* sealed as a lead's contact is: normalised (pii.h) */
	if (strcmp(kind, "tel") == 0 ? !contact_tel_normalize(contact, norm,
	    &tk) :
	    !contact_email_normalize(contact, norm))
		return api_error(r, AC_PARAMETER_INVALID, "contact");
	uuid_v7(id);
	sb.p = sealed;
	sb.n = pii_seal(r->conf->master_key, r->auth.tenant_id, id,
	    "test_recipient", norm, sealed);
	sodium_memzero(norm, sizeof(norm));
	e = db_test_recipient_add(r->db, id, r->auth.tenant_id, kind, &b,
	    masked, &sb, (int)r->conf->master_key_id, false);
	if (e == FB_EDUP)
		return api_error(r, AC_TEST_RECIPIENT_EXISTS, "contact");
	if (e != FB_OK)
		return e;
	r->audit_type = "test_recipient";
	memcpy(r->audit_id, id, sizeof(id));
	return recipient_answer(r, id, 201);
}

/*
 * POST /api/v1/admin/test_recipients/{id}/confirm {code}: the code sent
 * within 30 minutes, 5 tries; a wrong one is counted even though the
 * answer is an error (committed here).
 */
enum fb_err
api_test_recipients_confirm(struct req *r)
{
	const char	*id = req_pathvar(r, "recipient_id"), *code;
	unsigned char	 want[SECRET_HASH_LEN];
	struct dbrows	 c;
	const struct rcpt_code_row *k;
	bool		 confirmed, ok;
	enum fb_err	 e;

	if (body_str(r, "code", true, 6, &code) < 0)
		return FB_OK;
	e = db_test_recipient_code(r->db, r->auth.tenant_id, id, &c);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "recipient_id");
	if (e != FB_OK)
		return e;
	k = c.row;
	confirmed = k->confirmed;
	testsend_code_hash(id, code, want);
	ok = !confirmed && k->live && k->tries < TESTSEND_CODE_TRIES &&
	    k->code_hash.p != NULL && k->code_hash.n == sizeof(want) &&
	    sodium_memcmp(k->code_hash.p, want, sizeof(want)) == 0;
	dbrows_free(&c);
	if (!confirmed && !ok) {
		/* counted though refused (R_KEEP) */
		if ((e = db_test_recipient_try(r->db, id)) != FB_OK)
			return e;
		return api_error(r, AC_CONFIRMATION_CODE_INVALID, "code");
	}
	if (ok && (e = db_test_recipient_confirm(r->db, id)) != FB_OK)
		return e;
	r->audit_type = "test_recipient";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	return recipient_answer(r, id, 200);
}

enum fb_err
api_test_recipients_delete(struct req *r)
{
	const char	*id = req_pathvar(r, "recipient_id");
	bool		 found;
	enum fb_err	 e;

	if ((e = db_test_recipient_remove(r->db, r->auth.tenant_id, id,
	    &found)) != FB_OK)
		return e;
	if (!found)
		return api_error(r, AC_NOT_FOUND, "recipient_id");
	r->audit_type = "test_recipient";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	req_empty(r, 204);
	return FB_OK;
}

/*
 * POST /api/v1/test_sends {message_id}: one test send per confirmed
 * recipient of the message's channel (at most 20), queued for the next
 * formback-deliver pass: 202 with them.
 */
enum fb_err
api_test_sends_create(struct req *r)
{
	const char	*mid;
	char		 message[UUID_STRLEN + 1], id[UUID_STRLEN + 1];
	struct dbrows	 m, rc, t;
	const struct rcpt_send_row *to;
	struct jgen	 j;
	bool		 sms;
	size_t		 i;
	enum fb_err	 e, ge;

	if (body_str(r, "message_id", true, UUID_STRLEN, &mid) < 0)
		return FB_OK;
	if (!uuid_valid(mid))
		return api_error(r, AC_PARAMETER_INVALID, "message_id");
	snprintf(message, sizeof(message), "%s", mid);
	uuid_lower(message);
	e = db_message_get(r->db, r->auth.tenant_id, message, &m);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "message_id");
	if (e != FB_OK)
		return e;
	sms = strcmp(((const struct message_row *)m.row)->channel, "sms") == 0;
	dbrows_free(&m);
	if ((e = db_test_recipients_reachable(r->db, r->auth.tenant_id,
	    sms ? "tel" : "email", &rc)) != FB_OK)
		return e;
	if (rc.n == 0) {
		dbrows_free(&rc);
		return api_error(r, AC_NO_TEST_RECIPIENTS, "message_id");
	}
	req_gen_begin(r, &j);
	jg_str(&j, "object", "list");
	jg_arr(&j, "data");
	for (i = 0, to = rc.row; e == FB_OK && i < rc.n; i++) {
		uuid_v7(id);
		if ((e = db_test_send_add(r->db, id, r->auth.tenant_id, message,
		    to[i].id, r->auth.member_id)) != FB_OK ||
		    (e = db_test_send_get(r->db, r->auth.tenant_id, id,
		    &t)) != FB_OK)
			break;
		jg_obj(&j, NULL);
		test_send_json(&j, t.row);
		jg_obj_end(&j);
		dbrows_free(&t);
	}
	dbrows_free(&rc);
	jg_arr_end(&j);
	jg_str(&j, "next_cursor", NULL);
	jg_bool(&j, "has_more", false);
	r->audit_type = "message";
	memcpy(r->audit_id, message, sizeof(message));
	/* the generator is closed whatever happened: it owns a handle */
	ge = req_gen_end(r, &j, 202);
	return e != FB_OK ? e : ge;
}

/* GET /api/v1/admin/test_sends: newest first, with their outcome. */
enum fb_err
api_test_sends_list(struct req *r)
{
	struct page	 pg;
	struct dbrows	 rows;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	if ((e = db_test_send_list(r->db, r->auth.tenant_id,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct test_send_row),
	    offsetof(struct test_send_row, id), test_send_json, NULL);
}
