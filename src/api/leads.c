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
static json_object *
lead_json(const void *row)
{
	const struct lead_row *l = row;
	json_object	*o = json_object_new_object(), *s, *c;

	jadd_str(o, "id", l->id);
	jadd_str(o, "object", "lead");
	s = json_object_new_object();
	jadd_str(s, "id", l->site_id);
	jadd_str(s, "name", l->site_name);
	jadd_str(s, "domain", l->site_domain);
	json_object_object_add(o, "site", s);
	c = json_object_new_object();
	jadd_str(c, "id", l->campaign_id);
	jadd_str(c, "key", l->campaign_key);
	jadd_str(c, "name", l->campaign_name);
	json_object_object_add(o, "campaign", c);
	jadd_str(o, "status", l->status);
	jadd_str(o, "consent_state", l->consent_state);
	jadd_str(o, "email_masked", l->email_masked);
	jadd_str(o, "tel_masked", l->tel_masked);
	jadd_str(o, "pii_state", l->pii_state);
	jadd_str(o, "tel_kind", l->tel_kind);
	jadd_bool(o, "sms_capable", l->sms_capable);
	jadd_time(o, "created_at", l->created_at);
	jadd_time(o, "captured_at", l->captured_at);
	jadd_time(o, "abandoned_at", l->abandoned_at);
	jadd_time(o, "converted_at", l->converted_at);
	jadd_str(o, "conversion_source", l->conversion_source);
	jadd_str(o, "suppress_reason", l->suppress_reason);
	return o;
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
	    offsetof(struct lead_row, id), lead_json, extra);
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
	json_object	*o, *timeline, *ev;
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
	o = lead_json(&d->lead);
	jadd_str(o, "landing_url", d->landing_url);
	jadd_str(o, "referrer", d->referrer);
	json_object_object_add(o, "utm", utm_json(d->utm));
	jadd_str(o, "lp_key", d->lp_key);
	timeline = json_object_new_array();
	for (i = 0, t = tl.row; i < tl.n; i++, t++) {
		ev = json_object_new_object();
		jadd_str(ev, "type", t->type);
		jadd_str(ev, "role", t->role);
		jadd_str(ev, "path", t->path);
		jadd_str(ev, "campaign", t->campaign);
		jadd_time(ev, "at", t->at);
		json_object_array_add(timeline, ev);
	}
	json_object_object_add(o, "timeline", timeline);
	dbrows_free(&tl);
	dbrows_free(&l);
	return req_json(r, 200, o);
}
