/*
 * Reports (contract: Reports, FunnelReportOut; Endpoints, Reports;
 * formback.fcgi(8) "Reports").  The funnel is counted exactly from the
 * raw rows of the range (db/report.c), each count by its own reference
 * time.
 */
#include <stdio.h>
#include <string.h>

#include "../api.h"
#include "../db/store.h"

/* the longest range a funnel covers (formback.fcgi(8)) */
#define FUNNEL_SPAN_MAX	(93LL * 86400)

/* num / den to 4 decimals, trailing zeros dropped ("0.5", "0.3333", "1"). */
static void
ratio_text(long long num, long long den, char out[32])
{
	size_t	 n;

	snprintf(out, 32, "%.4f", (double)num / (double)den);
	n = strlen(out);
	while (n > 1 && out[n - 1] == '0')
		out[--n] = '\0';
	if (n > 1 && out[n - 1] == '.')
		out[--n] = '\0';
}

/* One stage of the funnel (ReportFaceOut). */
static void
face(struct jgen *j, const char *key, const char *label, long long value,
    const char *unit, const char *reference)
{
	jg_obj(j, NULL);
	jg_str(j, "key", key);
	jg_str(j, "label", label);
	jg_int(j, "value", value);
	jg_str(j, "unit", unit);
	jg_str(j, "reference", reference);
	jg_obj_end(j);
}

/* A ratio of two counts (ReportMetricOut); value null when nothing to divide. */
static void
metric(struct jgen *j, const char *key, const char *label, long long num,
    long long den)
{
	char	 v[32];

	jg_obj(j, NULL);
	jg_str(j, "key", key);
	jg_str(j, "label", label);
	if (den > 0) {
		ratio_text(num, den, v);
		jg_number(j, "value", v);
	} else
		jg_str(j, "value", NULL);
	jg_int(j, "numerator", num);
	jg_int(j, "denominator", den);
	jg_obj_end(j);
}

/* The site and campaign filters name the tenant's own, else 404. */
static int
filters_ok(struct req *r, const struct funnel_filter *f, enum fb_err *e)
{
	struct dbrows	 x;

	*e = FB_OK;
	if (f->site != NULL) {
		if ((*e = db_site_get(r->db, r->auth.tenant_id, f->site, &x)) ==
		    FB_ENOTFOUND) {
			*e = api_error(r, AC_NOT_FOUND, "site_id");
			return -1;
		}
		if (*e != FB_OK)
			return -1;
		dbrows_free(&x);
	}
	if (f->campaign != NULL) {
		if ((*e = db_campaign_get(r->db, r->auth.tenant_id, f->campaign,
		    &x)) == FB_ENOTFOUND) {
			*e = api_error(r, AC_NOT_FOUND, "campaign_id");
			return -1;
		}
		if (*e != FB_OK)
			return -1;
		dbrows_free(&x);
	}
	return 0;
}

/* The campaign's key and name, for a group (NULL when it has none). */
static void
group_names(struct req *r, const char *id, char key[128], char name[512])
{
	struct dbrows	 c;
	const struct campaign_row *row;

	key[0] = name[0] = '\0';
	if (id == NULL || db_campaign_get(r->db, r->auth.tenant_id, id, &c) != FB_OK)
		return;
	row = c.row;
	snprintf(key, 128, "%s", row->key != NULL ? row->key : "");
	snprintf(name, 512, "%s", row->name != NULL ? row->name : "");
	dbrows_free(&c);
}

static void
groups_gen(struct req *r, struct jgen *j, const struct dbrows *ev,
    const struct dbrows *ld)
{
	const struct funnel_event_row *e = ev->row;
	const struct funnel_lead_row *l = ld->row, *m;
	char		 key[128], name[512];
	size_t		 i, k;
	bool		 seen;

	jg_arr(j, "groups");
	/* every campaign with events, then those with lead counts only */
	for (i = 0; i < ev->n + ld->n; i++) {
		const char *id = i < ev->n ? e[i].campaign_id : l[i - ev->n].campaign_id;

		if (i >= ev->n) {
			for (seen = false, k = 0; k < ev->n && !seen; k++)
				seen = (id == NULL && e[k].campaign_id == NULL) ||
				    (id != NULL && e[k].campaign_id != NULL &&
				    strcmp(id, e[k].campaign_id) == 0);
			if (seen)
				continue;
		}
		for (m = NULL, k = 0; k < ld->n && m == NULL; k++)
			if ((id == NULL && l[k].campaign_id == NULL) || (id != NULL &&
			    l[k].campaign_id != NULL && strcmp(id, l[k].campaign_id) == 0))
				m = &l[k];
		group_names(r, id, key, name);
		jg_obj(j, NULL);
		jg_str(j, "campaign_id", id);
		jg_str(j, "campaign_key", id != NULL ? key : NULL);
		jg_str(j, "campaign_name", id != NULL ? name : "キャンペーン外");
		jg_int(j, "page_view", i < ev->n ? e[i].page_view : 0);
		jg_int(j, "form_start", i < ev->n ? e[i].form_start : 0);
		jg_int(j, "capture", i < ev->n ? e[i].capture : 0);
		jg_int(j, "conversion", i < ev->n ? e[i].conversion : 0);
		jg_int(j, "abandoned", m != NULL ? m->abandoned : 0);
		jg_int(j, "converted", m != NULL ? m->converted : 0);
		jg_int(j, "converted_spillover", m != NULL ? m->spillover : 0);
		jg_int(j, "converted_hash_match", m != NULL ? m->hash_match : 0);
		jg_obj_end(j);
	}
	jg_arr_end(j);
}

/* GET /reports/funnel */
enum fb_err
api_reports_funnel(struct req *r)
{
	struct funnel_filter f;
	struct dbrows	 ev, ld, dl, gev, gld;
	const struct funnel_event_row *e;
	const struct funnel_lead_row *l;
	const struct funnel_delivery_row *d;
	const char	*gb = req_query(r, "group_by");
	char		 from[32], to[32], fs[32], ts[32], share[32];
	int64_t		 a, b;
	bool		 by = gb != NULL && strcmp(gb, "campaign") == 0;
	struct jgen	 j;
	enum fb_err	 err;

	/* the dispatcher checked both are date-times with an offset */
	if (!time_parse_iso8601(req_query(r, "from"), &a) ||
	    !time_parse_iso8601(req_query(r, "to"), &b))
		return api_error(r, AC_QUERY_INVALID, "from");
	if (b <= a || b - a > FUNNEL_SPAN_MAX)
		return api_error(r, AC_QUERY_INVALID, "to");
	time_sql(a, fs);
	time_sql(b, ts);
	f = (struct funnel_filter){ fs, ts, req_query(r, "site_id"),
	    req_query(r, "campaign_id") };
	if (filters_ok(r, &f, &err) != 0)
		return err;
	memset(&gev, 0, sizeof(gev));
	memset(&gld, 0, sizeof(gld));
	if ((err = db_funnel_events(r->db, r->auth.tenant_id, &f, false, &ev)) != FB_OK)
		return err;
	if ((err = db_funnel_leads(r->db, r->auth.tenant_id, &f, false, &ld)) != FB_OK) {
		dbrows_free(&ev);
		return err;
	}
	if ((err = db_funnel_deliveries(r->db, r->auth.tenant_id, &f, &dl)) != FB_OK ||
	    (by && ((err = db_funnel_events(r->db, r->auth.tenant_id, &f, true,
	    &gev)) != FB_OK || (err = db_funnel_leads(r->db, r->auth.tenant_id, &f,
	    true, &gld)) != FB_OK))) {
		dbrows_free(&ev);
		dbrows_free(&ld);
		dbrows_free(&dl);
		dbrows_free(&gev);
		return err;
	}
	e = ev.row;
	l = ld.row;
	d = dl.row;
	time_iso8601(a, from);
	time_iso8601(b, to);
	req_gen_begin(r, &j);
	jg_str(&j, "object", "funnel_report");
	jg_obj(&j, "range");
	jg_str(&j, "from", from);
	jg_str(&j, "to", to);
	jg_str(&j, "site_id", f.site);
	jg_str(&j, "campaign_id", f.campaign);
	jg_obj_end(&j);
	jg_str(&j, "unit", "訪問(ページタグのセッション)。1回の訪問は、その中の"
	    "ページ閲覧や入力の回数によらず、各段階で1と数えます。");
	jg_arr(&j, "faces");
	face(&j, "visited", "訪問", e->visits, "visit", "received_at");
	face(&j, "form_started", "入力開始", e->form_visits, "visit", "received_at");
	face(&j, "captured", "連絡先の取得", e->capture_visits, "visit", "received_at");
	face(&j, "abandoned", "離脱", l->abandoned, "lead", "abandoned_at");
	face(&j, "messaged", "フォロー送信", d->messaged, "lead", "sent_at");
	face(&j, "recovered", "回復(離脱後のコンバージョン)", l->recovered, "lead",
	    "converted_at");
	jg_arr_end(&j);
	jg_arr(&j, "metrics");
	metric(&j, "form_start_rate", "入力開始率", e->form_visits, e->visits);
	metric(&j, "capture_rate", "連絡先取得率", e->capture_visits, e->form_visits);
	metric(&j, "recovery_rate", "回復率", l->recovered, l->abandoned);
	jg_arr_end(&j);
	jg_obj(&j, "volumes");
	jg_int(&j, "page_view", e->page_view);
	jg_int(&j, "form_start", e->form_start);
	jg_int(&j, "capture", e->capture);
	jg_int(&j, "consent", e->consent);
	jg_int(&j, "conversion", e->conversion);
	jg_int(&j, "message_sent", d->sent);
	jg_int(&j, "message_delivered", d->delivered);
	jg_obj_end(&j);
	jg_int(&j, "conversion_events", e->conversion);
	jg_int(&j, "converted", l->converted);
	jg_int(&j, "converted_spillover", l->spillover);
	jg_int(&j, "converted_hash_match", l->hash_match);
	jg_int(&j, "delivered_inferred", d->inferred);
	jg_int(&j, "excluded_no_session", e->no_session);
	jg_int(&j, "imputed_by_visitor", e->by_visitor);
	/* under a campaign filter no page is outside a campaign: null */
	if (f.campaign == NULL && e->page_view > 0) {
		ratio_text(e->unassigned_views, e->page_view, share);
		jg_number(&j, "unassigned_share", share);
	} else
		jg_str(&j, "unassigned_share", NULL);
	if (by)
		groups_gen(r, &j, &gev, &gld);
	dbrows_free(&ev);
	dbrows_free(&ld);
	dbrows_free(&dl);
	dbrows_free(&gev);
	dbrows_free(&gld);
	return req_gen_end(r, &j, 200);
}
