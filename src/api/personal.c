/*
 * Data-subject requests through the admin API (issue 43; openapi.md, op
 * exportPersonalData and erasePersonalData): one contact's data written
 * out or erased by ops/personal.h, in the dispatcher's transaction with
 * its audit row, which names the contact by its blind index only.
 * Session-only, owners and admins (the route rows).
 */
#include <stdio.h>
#include <string.h>

#include "../api.h"
#include "../ops/personal.h"
#include "../db/store.h"

/* The body's contact as a subject; false with 400 answered when bad. */
static bool
subject_of(struct req *r, struct pd_subject *s)
{
	const char	*contact;

	if (body_str(r, "contact", true, 254, &contact) < 0)
		return false;
	if (!pd_subject(r->conf, r->auth.tenant_id, contact, s)) {
		(void)api_error(r, AC_PARAMETER_INVALID, "contact");
		return false;
	}
	snprintf(r->audit_bidx, sizeof(r->audit_bidx), "%s", s->bidx_hex);
	r->audit_type = "contact";
	return true;
}

/*
 * POST /api/v1/admin/personal_data/export {"contact"}: 200, the export
 * (ops/personal.h pd_export()).  It holds the contacts opened, so an
 * Idempotency-Key's stored answer is a redacted one: a replay says to
 * ask again (as a webhook secret is hidden in a replay).
 */
enum fb_err
api_personal_export(struct req *r)
{
	struct pd_subject s;
	struct jgen	 j;
	enum fb_err	 e;

	if (!subject_of(r, &s))
		return FB_OK;
	req_gen_begin(r, &j);
	jg_str(&j, "object", "personal_data_export");
	jg_bool(&j, "redacted", true);
	if ((e = req_gen_end(r, &j, 200)) != FB_OK ||
	    (e = req_keep_for_replay(r)) != FB_OK)
		return e;
	req_gen_begin(r, &j);
	if ((e = pd_export(r->db, r->conf, r->auth.tenant_id, &s,
	    &j)) != FB_OK) {
		buf_reset(&r->out);
		return e;
	}
	return req_gen_end(r, &j, 200);
}

/*
 * POST /api/v1/admin/personal_data/erase {"contact", "stop"}: 200, what
 * was done per kind (ops/personal.h pd_erase()); again, found false.
 */
enum fb_err
api_personal_erase(struct req *r)
{
	struct pd_subject s;
	struct pd_erased o;
	struct jgen	 j;
	bool		 stop = false;
	enum fb_err	 e;

	if (!subject_of(r, &s) || body_bool(r, "stop", false, &stop) < 0)
		return FB_OK;
	if ((e = pd_erase(r->db, r->auth.tenant_id, &s, stop, &o)) != FB_OK)
		return e;
	req_gen_begin(r, &j);
	pd_erased_json(&j, &s, stop, &o);
	return req_gen_end(r, &j, 200);
}
