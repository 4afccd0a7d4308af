/*
 * The quarantine of a flood's leads (issue 40; outside the contract,
 * Conventions 6; formback.fcgi(8) "Abuse limits"): the tenant's batches
 * listed, and each released (its leads back in the normal flow) or
 * discarded (suppressed, nothing sent) once, by a member's session
 * (owners and admins: the route table).  The dispatcher writes the
 * audit row of a decision (action releaseQuarantine or
 * discardQuarantine, target quarantine).
 */
#include <stdio.h>
#include <string.h>

#include "../api.h"
#include "../rowjson.h"
#include "../db/store.h"

/* GET /api/v1/admin/quarantines: newest first, of a status or all. */
enum fb_err
api_quarantines_list(struct req *r)
{
	struct page	 pg;
	struct dbrows	 rows;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	if ((e = db_flood_batch_list(r->db, r->auth.tenant_id,
	    req_query(r, "status"), pg.has_after ? pg.after : NULL,
	    pg.limit + 1, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct flood_batch_row),
	    offsetof(struct flood_batch_row, id), quarantine_json, NULL);
}

/*
 * POST .../release and .../discard: 404 for no batch of the tenant, 409
 * quarantine_decided for one released or discarded already; the batch
 * as it is now otherwise.
 */
static enum fb_err
decide(struct req *r, bool release)
{
	const char		*id = req_pathvar(r, "quarantine_id");
	unsigned long long	 n;
	struct dbrows		 q;
	bool			 decided;
	enum fb_err		 e;

	if ((e = db_flood_batch_decide(r->db, r->auth.tenant_id, id, release,
	    &decided, &n)) != FB_OK)
		return e;
	e = db_flood_batch_get(r->db, r->auth.tenant_id, id, &q);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "quarantine_id");
	if (e != FB_OK)
		return e;
	if (!decided) {
		dbrows_free(&q);
		return api_error(r, AC_QUARANTINE_DECIDED, "quarantine_id");
	}
	logx(LOG_INFO, "quarantine %s %s: %llu leads", id, release ?
	    "released" : "discarded", n);
	r->audit_type = "quarantine";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	e = req_row(r, 200, quarantine_json, q.row);
	dbrows_free(&q);
	return e;
}

enum fb_err
api_quarantine_release(struct req *r)
{
	return decide(r, true);
}

enum fb_err
api_quarantine_discard(struct req *r)
{
	return decide(r, false);
}
