/*
 * Leads (contract: Lead, LeadListOut; Endpoints, Leads).  The one writer
 * of a lead receives masked contacts only: the queries never read a
 * sealed value (STYLE 11).
 */
#include <stdio.h>
#include <string.h>

#include "../api.h"
#include "../store.h"

static const char *const date_fields[] = {
	"created_at", "captured_at", "abandoned_at", "converted_at"
};

static json_object *
lead_json(const struct dbres *l, unsigned i)
{
	json_object	*o = json_object_new_object(), *s, *c;

	jadd_str(o, "id", dbres_get(l, i, LEAD_C_ID));
	jadd_str(o, "object", "lead");
	s = json_object_new_object();
	jadd_str(s, "id", dbres_get(l, i, LEAD_C_SITE_ID));
	jadd_str(s, "name", dbres_get(l, i, LEAD_C_SITE_NAME));
	jadd_str(s, "domain", dbres_get(l, i, LEAD_C_SITE_DOMAIN));
	json_object_object_add(o, "site", s);
	c = json_object_new_object();
	jadd_str(c, "id", dbres_get(l, i, LEAD_C_CAMPAIGN_ID));
	jadd_str(c, "key", dbres_get(l, i, LEAD_C_CAMPAIGN_KEY));
	jadd_str(c, "name", dbres_get(l, i, LEAD_C_CAMPAIGN_NAME));
	json_object_object_add(o, "campaign", c);
	jadd_str(o, "status", dbres_get(l, i, LEAD_C_STATUS));
	jadd_str(o, "consent_state", dbres_get(l, i, LEAD_C_CONSENT));
	jadd_str(o, "email_masked", dbres_get(l, i, LEAD_C_EMAIL_MASKED));
	jadd_str(o, "tel_masked", dbres_get(l, i, LEAD_C_TEL_MASKED));
	jadd_str(o, "pii_state", dbres_get(l, i, LEAD_C_PII_STATE));
	jadd_str(o, "tel_kind", dbres_get(l, i, LEAD_C_TEL_KIND));
	jadd_bool(o, "sms_capable", dbres_int(l, i, LEAD_C_SMS) != 0);
	jadd_time(o, "created_at", dbres_get(l, i, LEAD_C_CREATED));
	jadd_time(o, "captured_at", dbres_get(l, i, LEAD_C_CAPTURED));
	jadd_time(o, "abandoned_at", dbres_get(l, i, LEAD_C_ABANDONED));
	jadd_time(o, "converted_at", dbres_get(l, i, LEAD_C_CONVERTED));
	jadd_str(o, "conversion_source", dbres_get(l, i, LEAD_C_SOURCE));
	jadd_str(o, "suppress_reason", dbres_get(l, i, LEAD_C_SUPPRESS));
	return o;
}

enum fb_err
api_leads_list(struct req *r)
{
	struct page		 pg;
	struct lead_filter	 f;
	struct dbres		 res;
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
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &res)) != FB_OK)
		return e;
	extra = json_object_new_object();
	jadd_str(extra, "date_field", date_fields[f.date_field]);
	return page_answer(r, &pg, &res, LEAD_C_ID, lead_json, extra);
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
	struct dbres	 l, tl;
	json_object	*o, *timeline, *ev;
	unsigned	 i;
	enum fb_err	 e;

	e = db_lead_get(r->db, r->auth.tenant_id, req_pathvar(r, "lead_id"), &l);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "lead_id");
	if (e != FB_OK)
		return e;
	if ((e = db_lead_timeline(r->db, dbres_get(&l, 0, LEAD_C_SITE_ID),
	    dbres_get(&l, 0, LEAD_C_VISITOR), &tl)) != FB_OK) {
		dbres_free(&l);
		return e;
	}
	o = lead_json(&l, 0);
	jadd_str(o, "landing_url", dbres_get(&l, 0, LEAD_C_LANDING));
	jadd_str(o, "referrer", dbres_get(&l, 0, LEAD_C_REFERRER));
	json_object_object_add(o, "utm", utm_json(dbres_get(&l, 0, LEAD_C_UTM)));
	jadd_str(o, "lp_key", dbres_get(&l, 0, LEAD_C_LP_KEY));
	timeline = json_object_new_array();
	for (i = 0; i < tl.nrows; i++) {
		ev = json_object_new_object();
		jadd_str(ev, "type", dbres_get(&tl, i, TL_C_TYPE));
		jadd_str(ev, "role", dbres_get(&tl, i, TL_C_ROLE));
		jadd_str(ev, "path", dbres_get(&tl, i, TL_C_PATH));
		jadd_str(ev, "campaign", dbres_get(&tl, i, TL_C_CAMPAIGN));
		jadd_time(ev, "at", dbres_get(&tl, i, TL_C_AT));
		json_object_array_add(timeline, ev);
	}
	json_object_object_add(o, "timeline", timeline);
	dbres_free(&tl);
	dbres_free(&l);
	return req_json(r, 200, o);
}
