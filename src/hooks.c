/*
 * Provider callbacks (design 2): POST /hooks/sms/{provider} and
 * POST /hooks/email/{provider} record what the provider says became of a
 * sent message.  Formback's own format, for every provider (document it
 * to yours, or translate in front):
 *
 *   Authorization: Bearer {hook_token}
 *   {"reference": "<delivery id>" | "id": "<provider message id>"
 *      | "message_id": "<the email's Message-ID>",
 *    "status": "delivered" | "failed" | "bounced",
 *    "bounce": "hard" | "soft", "error": "<provider's code>"}
 *
 * delivered sets the delivery delivered; failed and bounced set it failed
 * with the error; a hard bounce also adds a tenant-wide `bounce`
 * suppression of that contact, so no later send goes to it.  Answers 204,
 * 400 for a malformed body, 401 for a wrong token (or none configured),
 * 404 for an unknown delivery.  Rows of the route table (route.c): the
 * dispatcher runs the receipt in its transaction.  Emails carry Message-ID
 * <delivery id@domain of smtp_from>, so a bounce that quotes it is enough.
 *
 * An SMS driver whose provider posts a format of its own names a receipt
 * parser in its row of SMS_DRIVERS (sms.h): POST /hooks/sms/{its name}
 * is read by it (Twilio's signed form, twilio.c), every other name by
 * ours.  So the SMS route's body is raw (R_RAW), parsed here as JSON for
 * our receipt, with the dispatcher's rules (400 invalid_json).  Every
 * parser's receipt is applied alike (apply()).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "api.h"
#include "events.h"
#include "sms.h"
#include "db/store.h"

#define ERROR_CODE_MAX	64	/* characters of deliveries.error_code */

static bool
token_ok(const struct req *r)
{
	const char	*a = r->authorization;
	size_t		 n;

	if (r->conf->hook_token == NULL || r->conf->hook_token[0] == '\0' ||
	    a == NULL || strncmp(a, "Bearer ", 7) != 0)
		return false;
	n = strlen(r->conf->hook_token);
	return strlen(a + 7) == n && sodium_memcmp(a + 7, r->conf->hook_token,
	    n) == 0;
}

static const char *
str(json_object *o, const char *k)
{
	json_object	*v;

	return json_object_object_get_ex(o, k, &v) && v != NULL &&
	    json_object_is_type(v,
	    json_type_string) ? json_object_get_string(v) : NULL;
}

/*
 * The delivery id a Message-ID made by send_email() (send.c) names
 * ("<id@host>", brackets optional), lower-cased into out; false when it
 * names none.  Defined here, not in send.c, so that formback.fcgi does
 * not link libcurl.
 */
static bool
message_id_reference(const char *mid, char out[UUID_STRLEN + 1])
{
	while (*mid == ' ' || *mid == '<')
		mid++;
	if (strlen(mid) < UUID_STRLEN + 1 || mid[UUID_STRLEN] != '@')
		return false;
	snprintf(out, UUID_STRLEN + 1, "%.*s", UUID_STRLEN, mid);
	if (!uuid_valid(out))
		return false;
	uuid_lower(out);
	return true;
}

static enum fb_err
apply(struct req *r, const struct receipt *rc, bool *found)
{
	const char	*ref = rc->reference, *st = rc->status;
	const char	*err = rc->error;
	struct dbrows	 d;
	const struct receipt_row *rd;
	struct suppression_new sn;
	struct bidx	 b;
	char		 id[UUID_STRLEN + 1];
	char		 errbuf[ERROR_CODE_MAX * 4 + 1];
	bool		 changed, sms, added;
	enum fb_err	 e;

	*found = false;
	/*
	 * kept as deliveries.error_code holds it: never refused for its length
	 */
	if (err != NULL) {
		text_clip(err, ERROR_CODE_MAX, errbuf, sizeof(errbuf));
		err = errbuf;
	}
	if ((e = db_receipt_delivery(r->db, ref != NULL &&
	    uuid_valid(ref) ? ref : NULL, rc->provider_id, &d)) != FB_OK)
		return e;
	if (d.n == 0) {
		dbrows_free(&d);
		return FB_OK;
	}
	*found = true;
	rd = d.row;
	e = db_receipt_result(r->db, rd->id, strcmp(st, "delivered") == 0 ?
	    "delivered" : "failed", strcmp(st, "delivered") == 0 ? NULL :
	    (err != NULL ? err : st), &changed);
	/* a failure the provider reports is final: delivery.failed (Events) */
	if (e == FB_OK && changed && strcmp(st, "delivered") != 0)
		e = delivery_event(r->db, rd->tenant_id, rd->id, rd->lead_id,
		    rd->campaign_id, rd->channel, rd->step_no, "failed",
		    err != NULL ? err : st);
	/* a hard bounce: nothing more to that contact, tenant-wide */
	sms = strcmp(rd->channel, "sms") == 0;
	if (sms)
		db_bidx_copy(&rd->tel_bidx, &rd->tel_bidx2, rd->bidx_key,
		    rd->bidx2_key, &b);
	else
		db_bidx_copy(&rd->email_bidx, &rd->email_bidx2, rd->bidx_key,
		    rd->bidx2_key, &b);
	if (e == FB_OK && strcmp(st, "bounced") == 0 && rc->bounce != NULL &&
	    strcmp(rc->bounce, "hard") == 0 && (b.has[0] || b.has[1])) {
		uuid_v7(id);
		sn = (struct suppression_new){ id, rd->tenant_id,
		    sms ? "tel" : "email", &b,
		    sms ? rd->tel_masked : rd->email_masked, "tenant", NULL,
		    "bounce", "ハードバウンス", NULL };
		e = db_suppression_add(r->db, &sn, &added);
	}
	dbrows_free(&d);
	return e;
}

/*
 * Formback's own receipt (the comment at the top) into *rc: the body as
 * JSON (the dispatcher has parsed it unless the route is R_RAW), the
 * token, the status.  A refusal is answered here (r->status set).
 */
static enum fb_err
own_receipt(struct req *r, struct receipt *rc)
{
	const char	*st, *mid;
	size_t		 i;

	if (r->json == NULL) {
		for (i = 0; i < r->body.len &&
		    isspace((unsigned char)r->body.data[i]); i++)
			continue;
		r->json = i == r->body.len ? json_object_new_object() :
		    json_parse_object(r->body.data, r->body.len,
		    r->conf->max_json_depth);
		if (r->json == NULL)
			return api_error(r, AC_INVALID_JSON, "body");
	}
	if (!token_ok(r))
		return api_error(r, AC_API_KEY_INVALID, NULL);
	st = str(r->json, "status");
	if (st == NULL ||
	    (strcmp(st, "delivered") != 0 && strcmp(st, "failed") != 0 &&
	    strcmp(st, "bounced") != 0))
		return api_error(r, AC_EVENT_INVALID, "status");
	rc->status = st;
	rc->reference = str(r->json, "reference");
	rc->provider_id = str(r->json, "id");
	rc->bounce = str(r->json, "bounce");
	rc->error = str(r->json, "error");
	mid = str(r->json, "message_id");
	if (rc->reference == NULL && mid != NULL &&
	    message_id_reference(mid, rc->id_buf))
		rc->reference = rc->id_buf;
	return FB_OK;
}

/* The receipt parsers of the SMS drivers (SMS_DRIVERS, sms.h). */
#define SMS_RECEIPT(e, name, send, receipt, keys)	{ name, receipt },
static const struct {
	const char	*name;
	sms_receipt_fn	 parse;		/* NULL: Formback's own receipt */
} sms_receipts[SMS_PROVIDER__MAX] = {
	SMS_DRIVERS(SMS_RECEIPT)
};
#undef SMS_RECEIPT

/* The parser of POST /hooks/sms/{provider}: the driver's, else ours. */
static sms_receipt_fn
receipt_parser(const struct req *r)
{
	const char	*p = req_pathvar(r, "provider");
	size_t		 i;

	if (p == NULL || strncmp(r->route->path, "/hooks/sms/", 11) != 0)
		return own_receipt;
	for (i = 0; i < SMS_PROVIDER__MAX; i++)
		if (strcmp(p, sms_receipts[i].name) == 0 &&
		    sms_receipts[i].parse != NULL)
			return sms_receipts[i].parse;
	return own_receipt;
}

enum fb_err
hooks_receipt(struct req *r)
{
	struct receipt	 rc;
	bool		 found;
	enum fb_err	 e;

	memset(&rc, 0, sizeof(rc));
	if ((e = receipt_parser(r)(r, &rc)) != FB_OK || r->status != 0)
		return e;
	/* a step on the way (Twilio's queued, sent): nothing to record */
	if (rc.status == NULL) {
		req_empty(r, 204);
		return FB_OK;
	}
	if ((e = apply(r, &rc, &found)) != FB_OK)
		return e;
	if (!found)
		return api_error(r, AC_NOT_FOUND, rc.param != NULL ? rc.param :
		    "reference");
	req_empty(r, 204);
	return FB_OK;
}
