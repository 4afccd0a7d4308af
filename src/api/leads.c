/*
 * Leads (contract: Lead, LeadListOut; Endpoints, Leads).  The one writer
 * of a lead receives masked contacts only: the queries never read a
 * sealed value (STYLE 11).  The list reads the list's columns only.
 */
#include <stdio.h>
#include <string.h>

#include "../api.h"
#include "../db/store.h"

static const char *const date_fields[] = {
	"created_at", "captured_at", "abandoned_at", "converted_at"
};

/* The one writer of a lead (list and detail): masked contacts only. */
static void
lead_gen(struct jgen *j, const void *row)
{
	const struct lead_row *l = row;

	jg_str(j, "id", l->id);
	jg_str(j, "object", "lead");
	jg_obj(j, "site");
	jg_str(j, "id", l->site_id);
	jg_str(j, "name", l->site_name);
	jg_str(j, "domain", l->site_domain);
	jg_obj_end(j);
	jg_obj(j, "campaign");
	jg_str(j, "id", l->campaign_id);
	jg_str(j, "key", l->campaign_key);
	jg_str(j, "name", l->campaign_name);
	jg_obj_end(j);
	jg_str(j, "status", l->status);
	jg_str(j, "consent_state", l->consent_state);
	jg_str(j, "email_masked", l->email_masked);
	jg_str(j, "tel_masked", l->tel_masked);
	jg_str(j, "pii_state", l->pii_state);
	jg_str(j, "tel_kind", l->tel_kind);
	jg_bool(j, "sms_capable", l->sms_capable);
	jg_time(j, "created_at", l->created_at);
	jg_time(j, "captured_at", l->captured_at);
	jg_time(j, "abandoned_at", l->abandoned_at);
	jg_time(j, "converted_at", l->converted_at);
	jg_str(j, "conversion_source", l->conversion_source);
	jg_str(j, "suppress_reason", l->suppress_reason);
}

enum fb_err
api_leads_list(struct req *r)
{
	struct page		 pg;
	struct lead_filter	 f;
	struct dbrows		 rows;
	json_object		*extra;
	const char		*df, *v;
	int64_t			 t;
	unsigned		 i;
	enum fb_err		 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	memset(&f, 0, sizeof(f));
	f.site = req_query(r, "site_id");
	f.campaign = req_query(r, "campaign_id");
	f.status = req_query(r, "status");
	df = req_query(r, "date_field");
	for (i = 0; df != NULL && i < NELEM(date_fields); i++)
		if (strcmp(df, date_fields[i]) == 0)
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
	if ((e = db_lead_list(r->db, r->auth.tenant_id, &f,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	extra = json_object_new_object();
	jadd_str(extra, "date_field", date_fields[f.date_field]);
	return page_answer(r, &pg, &rows, sizeof(struct lead_row),
	    offsetof(struct lead_row, id), lead_gen, extra);
}

/* utm_* parameters of the landing URL, decoded (display only). */
static json_object *
utm_json(const char *stored)
{
	json_object	*o = stored != NULL ? json_tokener_parse(stored) : NULL;

	return o != NULL ? o : json_object_new_object();
}

enum fb_err
api_leads_get(struct req *r)
{
	struct dbrows	 l, tl;
	const struct lead_detail_row *d;
	const struct timeline_row *t;
	struct jgen	 j;
	json_object	*utm;
	size_t		 i;
	enum fb_err	 e;

	e = db_lead_get(r->db, r->auth.tenant_id, req_pathvar(r, "lead_id"), &l);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "lead_id");
	if (e != FB_OK)
		return e;
	d = l.row;
	if ((e = db_lead_timeline(r->db, r->auth.tenant_id, d->lead.site_id,
	    d->visitor_id, &tl)) != FB_OK) {
		dbrows_free(&l);
		return e;
	}
	req_gen_begin(r, &j);
	lead_gen(&j, &d->lead);
	jg_str(&j, "landing_url", d->landing_url);
	jg_str(&j, "referrer", d->referrer);
	utm = utm_json(d->utm);
	jg_json(&j, "utm", utm);
	json_object_put(utm);
	jg_str(&j, "lp_key", d->lp_key);
	jg_arr(&j, "timeline");
	for (i = 0, t = tl.row; i < tl.n; i++, t++) {
		jg_obj(&j, NULL);
		jg_str(&j, "type", t->type);
		jg_str(&j, "role", t->role);
		jg_str(&j, "path", t->path);
		jg_str(&j, "campaign", t->campaign);
		jg_time(&j, "at", t->at);
		jg_obj_end(&j);
	}
	jg_arr_end(&j);
	dbrows_free(&tl);
	dbrows_free(&l);
	return req_gen_end(r, &j, 200);
}
