/*
 * Deliveries and suppressions (contract: Delivery, Suppression; Endpoints,
 * Leads deliveries and delivery switch, Suppressions).  Destinations and
 * suppressed contacts are only ever answered masked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../api.h"
#include "../pii.h"
#include "../db/store.h"

static const char *const dlv_date_fields[] = { "created_at", "scheduled_at", "sent_at" };

static json_object *
summary(const char *id, const char *k1, const char *v1, const char *k2, const char *v2)
{
	json_object	*o;

	if (id == NULL)
		return NULL;
	o = json_object_new_object();
	jadd_str(o, "id", id);
	jadd_str(o, k1, v1);
	if (k2 != NULL)
		jadd_str(o, k2, v2);
	return o;
}

/* Opt-outs and complaints are the recipient's word: they stay (contract). */
static bool
deletable(const struct suppression_row *s)
{
	return strcmp(s->reason, "opt_out") != 0 && strcmp(s->reason, "complaint") != 0;
}

/* The one writer of a delivery (DeliveryOut). */
static json_object *
delivery_json(const void *row)
{
	const struct delivery_row *d = row;
	json_object	*o = json_object_new_object(), *st;

	jadd_str(o, "id", d->id);
	jadd_str(o, "object", "delivery");
	jadd_str(o, "lead_id", d->lead_id);
	jadd_str(o, "status", d->status);
	jadd_str(o, "channel", d->channel);
	jadd_str(o, "to_masked", d->to_masked);
	jadd_str(o, "pii_state", d->pii_state);
	json_object_object_add(o, "campaign", summary(d->campaign_id, "key",
	    d->campaign_key, "name", d->campaign_name));
	json_object_object_add(o, "scenario", summary(d->scenario_id, "name",
	    d->scenario_name, NULL, NULL));
	st = NULL;
	if (d->step_id != NULL) {
		st = json_object_new_object();
		jadd_str(st, "id", d->step_id);
		jadd_int(st, "position", d->step_no);
	}
	json_object_object_add(o, "step", st);
	jadd_time(o, "scheduled_at", d->scheduled_at);
	jadd_time(o, "sent_at", d->sent_at);
	jadd_time(o, "created_at", d->created_at);
	jadd_str(o, "cancel_reason", d->cancel_reason);
	jadd_str(o, "error_code", d->error_code);
	/* the SMS parts as sent (contract: Messages, the estimate's note) */
	json_object_object_add(o, "segments", d->segments != NULL ?
	    json_object_new_int64(strtoll(d->segments, NULL, 10)) : NULL);
	return o;
}

enum fb_err
api_deliveries_list(struct req *r)
{
	struct page		 pg;
	struct delivery_filter	 f;
	struct dbrows		 rows;
	json_object		*extra;
	const char		*df = req_query(r, "date_field"), *v;
	int64_t			 t;
	unsigned		 i;
	enum fb_err		 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	memset(&f, 0, sizeof(f));
	f.status = req_query(r, "status");
	f.campaign = req_query(r, "campaign_id");
	f.scenario = req_query(r, "scenario_id");
	for (i = 0; df != NULL && i < NELEM(dlv_date_fields); i++)
		if (strcmp(df, dlv_date_fields[i]) == 0)
			f.date_field = (int)i;
	if ((v = req_query(r, "from")) != NULL && time_parse_iso8601(v, &t)) {
		f.has_from = true;
		f.from = t;
	}
	if ((v = req_query(r, "to")) != NULL && time_parse_iso8601(v, &t)) {
		f.has_to = true;
		f.to = t;
	}
	if (f.has_from && f.has_to && f.from >= f.to)
		return api_error(r, AC_QUERY_INVALID, "to");
	if ((e = db_delivery_list(r->db, r->auth.tenant_id, &f,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	extra = json_object_new_object();
	jadd_str(extra, "date_field", dlv_date_fields[f.date_field]);
	return page_answer(r, &pg, &rows, sizeof(struct delivery_row),
	    offsetof(struct delivery_row, id), delivery_json, extra);
}

enum fb_err
api_deliveries_get(struct req *r)
{
	struct dbrows	 d;
	enum fb_err	 e;

	e = db_delivery_get(r->db, r->auth.tenant_id, req_pathvar(r, "delivery_id"), &d);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "delivery_id");
	if (e != FB_OK)
		return e;
	e = req_json(r, 200, delivery_json(d.row));
	dbrows_free(&d);
	return e;
}

/* The one writer of a suppression: masked value only. */
static json_object *
suppression_json(const void *row)
{
	const struct suppression_row *s = row;
	json_object	*o = json_object_new_object();

	jadd_str(o, "id", s->id);
	jadd_str(o, "object", "suppression");
	jadd_str(o, "kind", s->kind);
	jadd_str(o, "value_masked", s->masked);
	jadd_str(o, "scope", s->scope);
	jadd_str(o, "campaign_id", s->campaign_id);
	jadd_str(o, "reason", s->reason);
	jadd_str(o, "memo", s->memo);
	jadd_time(o, "expires_at", s->expires_at);
	jadd_time(o, "created_at", s->created_at);
	jadd_bool(o, "deletable", deletable(s));
	return o;
}

/*
 * GET /suppressions: `q` is an exact contact, looked up through the blind
 * index (a phone number in any typed form, or an email address).
 */
enum fb_err
api_suppressions_list(struct req *r)
{
	struct page		 pg;
	struct suppression_filter f;
	struct dbrows		 rows;
	const char		*q = req_query(r, "q"), *kind;
	unsigned char		 bidx[PII_BIDXBYTES];
	char			 masked[300];
	enum fb_err		 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	memset(&f, 0, sizeof(f));
	f.kind = req_query(r, "kind");
	f.reason = req_query(r, "reason");
	f.scope = req_query(r, "scope");
	f.campaign = req_query(r, "campaign_id");
	if (q != NULL && *q != '\0') {
		if (!contact_key(r->conf->index_key, r->auth.tenant_id, q,
		    &kind, bidx, masked))
			memset(bidx, 0, sizeof(bidx));	/* matches nothing */
		f.bidx = bidx;
	}
	if ((e = db_suppression_list(r->db, r->auth.tenant_id, &f,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct suppression_row),
	    offsetof(struct suppression_row, id), suppression_json, NULL);
}

/* POST /suppressions: one entry (contract: SuppressionIn). */
enum fb_err
api_suppressions_create(struct req *r)
{
	const char	*scope, *cid, *expires, *memo, *value, *kind;
	unsigned char	 bidx[PII_BIDXBYTES];
	char		 masked[300], id[UUID_STRLEN + 1], camp[UUID_STRLEN + 1] = "";
	char		 exp[32];
	int64_t		 t;
	struct suppression_new sn;
	struct dbrows	 c;
	bool		 added;
	enum fb_err	 e;

	if (body_str(r, "scope", false, 16, &scope) < 0 ||
	    body_str(r, "campaign_id", false, UUID_STRLEN, &cid) < 0 ||
	    body_str(r, "expires_at", false, 40, &expires) < 0 ||
	    body_str(r, "memo", false, 500, &memo) < 0 ||
	    body_str(r, "value", true, 254, &value) < 0)
		return FB_OK;
	if (scope == NULL)
		scope = "tenant";
	if (strcmp(scope, "tenant") != 0 && strcmp(scope, "campaign") != 0)
		return api_error(r, AC_PARAMETER_INVALID, "scope");
	if (strcmp(scope, "campaign") == 0 && cid == NULL)
		return api_error(r, AC_PARAMETER_MISSING, "campaign_id");
	if (cid != NULL && !uuid_valid(cid))
		return api_error(r, AC_PARAMETER_INVALID, "campaign_id");
	if (expires != NULL) {
		/* an entry that would never be in force is a mistake */
		if (!time_parse_iso8601(expires, &t) || t <= time(NULL))
			return api_error(r, AC_PARAMETER_INVALID, "expires_at");
		time_sql(t, exp);
	}
	if (!contact_key(r->conf->index_key, r->auth.tenant_id, value, &kind,
	    bidx, masked))
		return api_error(r, AC_PARAMETER_INVALID, "value");
	if (cid != NULL) {
		snprintf(camp, sizeof(camp), "%s", cid);
		uuid_lower(camp);
		e = db_campaign_get(r->db, r->auth.tenant_id, camp, &c);
		if (e == FB_ENOTFOUND)
			return api_error(r, AC_NOT_FOUND, "campaign_id");
		if (e != FB_OK)
			return e;
		dbrows_free(&c);
	}
	/* a tenant-wide entry names no campaign */
	if (strcmp(scope, "tenant") == 0)
		camp[0] = '\0';
	uuid_v7(id);
	sn = (struct suppression_new){ id, r->auth.tenant_id, kind, bidx, masked,
	    scope, camp[0] != '\0' ? camp : NULL, "manual", memo,
	    expires != NULL ? exp : NULL };
	if ((e = db_suppression_add(r->db, &sn, &added)) != FB_OK)
		return e;
	if (!added)
		return api_error(r, AC_SUPPRESSION_EXISTS, "value");
	r->audit_type = "suppression";
	memcpy(r->audit_id, id, sizeof(id));
	if ((e = db_suppression_get(r->db, r->auth.tenant_id, id, &c)) != FB_OK)
		return e;
	e = req_json(r, 201, suppression_json(c.row));
	dbrows_free(&c);
	return e;
}

/* DELETE /suppressions/{id}: opt-outs and complaints stay (contract). */
enum fb_err
api_suppressions_delete(struct req *r)
{
	const char	*id = req_pathvar(r, "suppression_id");
	struct dbrows	 s;
	bool		 ok;
	enum fb_err	 e;

	e = db_suppression_get(r->db, r->auth.tenant_id, id, &s);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "suppression_id");
	if (e != FB_OK)
		return e;
	ok = deletable(s.row);
	dbrows_free(&s);
	if (!ok)
		return api_error(r, AC_SUPPRESSION_NOT_DELETABLE, NULL);
	if ((e = db_suppression_delete(r->db, r->auth.tenant_id, id)) != FB_OK)
		return e;
	r->audit_type = "suppression";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	req_empty(r, 204);
	return FB_OK;
}
