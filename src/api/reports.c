/*
 * Reports (contract: Reports, FunnelReportOut; Endpoints, Reports;
 * formback.fcgi(8) "Reports").  The funnel is counted exactly from the
 * raw rows of the range (db/report.c), each count by its own reference
 * time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/*
 * A ratio of two counts (ReportMetricOut); value null when nothing to divide.
 */
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
	if (id == NULL ||
	    db_campaign_get(r->db, r->auth.tenant_id, id, &c) != FB_OK)
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
		const char *id = i < ev->n ? e[i].campaign_id :
		    l[i - ev->n].campaign_id;

		if (i >= ev->n) {
			for (seen = false, k = 0; k < ev->n && !seen; k++)
				seen = (id == NULL &&
				    e[k].campaign_id == NULL) ||
				    (id != NULL && e[k].campaign_id != NULL &&
				    strcmp(id, e[k].campaign_id) == 0);
			if (seen)
				continue;
		}
		for (m = NULL, k = 0; k < ld->n && m == NULL; k++)
			if ((id == NULL && l[k].campaign_id == NULL) ||
			    (id != NULL &&
			    l[k].campaign_id != NULL && strcmp(id,
			    l[k].campaign_id) == 0))
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
		jg_int(j, "converted_hash_match",
		    m != NULL ? m->hash_match : 0);
		jg_obj_end(j);
	}
	jg_arr_end(j);
}

/* The funnel's totals (contract: Reports, GET /reports/funnel). */
static void
funnel_gen(struct jgen *j, const struct funnel_filter *f, const char *from,
    const char *to, const struct funnel_event_row *e,
    const struct funnel_lead_row *l, const struct funnel_delivery_row *d)
{
	char		 share[32];

	jg_str(j, "object", "funnel_report");
	jg_obj(j, "range");
	jg_str(j, "from", from);
	jg_str(j, "to", to);
	jg_str(j, "site_id", f->site);
	jg_str(j, "campaign_id", f->campaign);
	jg_obj_end(j);
	jg_str(j, "unit", "訪問(ページタグのセッション)。1回の訪問は、その中の"
	    "ページ閲覧や入力の回数によらず、各段階で1と数え、その段階の最初の"
	    "イベントがある期間に数えます(期間の前に始まった訪問は数えません)。");
	jg_arr(j, "faces");
	face(j, "visited", "訪問", e->visits, "visit", "received_at");
	face(j, "form_started", "入力開始", e->form_visits, "visit", "received_at");
	face(j, "captured", "連絡先の取得", e->capture_visits, "visit",
	    "received_at");
	face(j, "abandoned", "離脱", l->abandoned, "lead", "abandoned_at");
	face(j, "messaged", "フォロー送信", d->messaged, "lead", "sent_at");
	face(j, "recovered", "回復(離脱後のコンバージョン)", l->recovered, "lead",
	    "converted_at");
	jg_arr_end(j);
	jg_arr(j, "metrics");
	metric(j, "form_start_rate", "入力開始率", e->form_visits, e->visits);
	metric(j, "capture_rate", "連絡先取得率", e->capture_visits, e->form_visits);
	metric(j, "recovery_rate", "回復率", l->recovered, l->abandoned);
	jg_arr_end(j);
	jg_obj(j, "volumes");
	jg_int(j, "page_view", e->page_view);
	jg_int(j, "form_start", e->form_start);
	jg_int(j, "capture", e->capture);
	jg_int(j, "consent", e->consent);
	jg_int(j, "conversion", e->conversion);
	jg_int(j, "message_sent", d->sent);
	jg_int(j, "message_delivered", d->delivered);
	jg_obj_end(j);
	jg_int(j, "conversion_events", e->conversion);
	jg_int(j, "converted", l->converted);
	jg_int(j, "converted_spillover", l->spillover);
	jg_int(j, "converted_hash_match", l->hash_match);
	jg_int(j, "delivered_inferred", d->inferred);
	/* beyond the contract: messages that left after their lead converted */
	jg_int(j, "sent_after_conversion", d->after_conversion);
	jg_int(j, "excluded_no_session", e->no_session);
	jg_int(j, "imputed_by_visitor", e->by_visitor);
	/* under a campaign filter no page is outside a campaign: null */
	if (f->campaign == NULL && e->page_view > 0) {
		ratio_text(e->unassigned_views, e->page_view, share);
		jg_number(j, "unassigned_share", share);
	} else
		jg_str(j, "unassigned_share", NULL);
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
	char		 from[32], to[32], fs[32], ts[32];
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
	f = (struct funnel_filter){ .from = fs, .to = ts,
	    .site = req_query(r, "site_id"),
	    .campaign = req_query(r, "campaign_id") };
	if (filters_ok(r, &f, &err) != 0)
		return err;
	/* the totals and the groups count the same split of the range */
	if ((err = db_funnel_parts(r->db, r->auth.tenant_id, &f)) != FB_OK)
		return err;
	memset(&gev, 0, sizeof(gev));
	memset(&gld, 0, sizeof(gld));
	if ((err = db_funnel_events(r->db, r->auth.tenant_id, &f, false,
	    &ev)) != FB_OK)
		return err;
	if ((err = db_funnel_leads(r->db, r->auth.tenant_id, &f, false,
	    &ld)) != FB_OK) {
		dbrows_free(&ev);
		return err;
	}
	if ((err = db_funnel_deliveries(r->db, r->auth.tenant_id, &f,
	    &dl)) != FB_OK ||
	    (by && ((err = db_funnel_events(r->db, r->auth.tenant_id, &f, true,
	    &gev)) != FB_OK ||
	    (err = db_funnel_leads(r->db, r->auth.tenant_id, &f, true,
	    &gld)) != FB_OK))) {
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
	funnel_gen(&j, &f, from, to, e, l, d);
	if (by)
		groups_gen(r, &j, &gev, &gld);
	dbrows_free(&ev);
	dbrows_free(&ld);
	dbrows_free(&dl);
	dbrows_free(&gev);
	dbrows_free(&gld);
	return req_gen_end(r, &j, 200);
}

/* the longest range of the daily report, in days (formback.fcgi(8)) */
#define DAILY_DAYS_MAX	366


/* An integer, or null (a day not aggregated; under a scenario filter the
 * faces not about messages). */
static void
jg_int_or_null(struct jgen *j, const char *key, long long v, bool null)
{
	if (null)
		jg_str(j, key, NULL);
	else
		jg_int(j, key, v);
}

/* The counts of one day, one channel (DeliveryCountsOut). */
struct dlv { long long sent, delivered, opened, clicked, converted, after; };
struct day {
	bool		 computed;	/* no row left uncounted */
	long long	 page_view, visits, form_start, capture;
	long long	 captured, abandoned, recovered, spillover, hash_match;
	struct dlv	 sms, email;
};

static void
dlv_gen(struct jgen *j, const char *key, const struct dlv *d, bool sms)
{
	jg_obj(j, key);
	jg_int_or_null(j, "sent", d != NULL ? d->sent : 0, d == NULL);
	jg_int_or_null(j, "delivered", d != NULL ? d->delivered : 0, d == NULL);
	/* an SMS has no open */
	jg_int_or_null(j, "opened", d != NULL ? d->opened : 0, d == NULL ||
	    sms);
	jg_int_or_null(j, "clicked", d != NULL ? d->clicked : 0, d == NULL);
	jg_int_or_null(j, "converted", d != NULL ? d->converted : 0, d == NULL);
	jg_obj_end(j);
}

static void
dlv_add(struct dlv *to, const struct dlv *a)
{
	to->sent += a->sent;
	to->delivered += a->delivered;
	to->opened += a->opened;
	to->clicked += a->clicked;
	to->converted += a->converted;
	to->after += a->after;
}

static void
day_gen(struct jgen *j, const char *date, const struct day *d, bool scen)
{
	struct dlv	 all = { 0 };
	bool		 none = !d->computed, faceless = none || scen;

	dlv_add(&all, &d->sms);
	dlv_add(&all, &d->email);
	jg_obj(j, NULL);
	jg_str(j, "date", date);
	jg_bool(j, "computed", d->computed);
	jg_obj(j, "counts");
	if (faceless)
		jg_str(j, "traffic", NULL);
	else {
		jg_obj(j, "traffic");
		jg_int(j, "page_view", d->page_view);
		jg_int(j, "visits", d->visits);
		jg_int(j, "form_start", d->form_start);
		jg_int(j, "capture", d->capture);
		jg_obj_end(j);
	}
	jg_obj(j, "capture");
	jg_int_or_null(j, "captured", d->captured, faceless);
	jg_int_or_null(j, "abandoned", d->abandoned, faceless);
	jg_obj_end(j);
	jg_obj(j, "conversion");
	jg_int_or_null(j, "abandoned", d->abandoned, faceless);
	jg_int_or_null(j, "converted", d->recovered, faceless);
	jg_obj_end(j);
	dlv_gen(j, "delivery", none ? NULL : &all, false);
	jg_obj_end(j);
	jg_obj(j, "delivery_by_channel");
	dlv_gen(j, "sms", none ? NULL : &d->sms, true);
	dlv_gen(j, "email", none ? NULL : &d->email, false);
	jg_obj_end(j);
	jg_int_or_null(j, "converted_spillover", d->spillover, faceless);
	jg_int_or_null(j, "converted_hash_match", d->hash_match, faceless);
	/* beyond the contract: messages sent after their lead converted */
	jg_int_or_null(j, "sent_after_conversion", all.after, none);
	jg_obj_end(j);
}

/* The day index of a row ("YYYY-MM-DD"), or -1 outside the range. */
static long
day_index(const char *day, int64_t from, long ndays)
{
	int64_t	 t = time_jst_date(day);
	long	 i;

	if (t < 0)
		return -1;
	i = (long)((t - from) / 86400);
	return i >= 0 && i < ndays ? i : -1;
}

/* GET /reports/daily: the request's range, filters and counts. */
struct daily {
	struct daily_filter f;
	char		 site_of[UUID_STRLEN + 1];
	int64_t		 from;		/* the range's first JST day, UTC s */
	long		 n;		/* its days */
	struct day	*days;		/* n of them */
	struct day	 tot;
	char		 refreshed[32];	/* the latest count, or "" */
	bool		 scen, steps;
};

/*
 * The range (DAILY_DAYS_MAX days at most) and the filters of the
 * request, their resources found: 0, or -1 answered (*e).
 */
static int
daily_filters(struct req *r, struct daily *d, enum fb_err *e)
{
	struct funnel_filter ff;
	struct dbrows	 cr, s;
	int64_t		 b;

	*e = FB_OK;
	if ((d->from = time_jst_date(req_query(r, "from"))) < 0)
		return *e = api_error(r, AC_QUERY_INVALID, "from"), -1;
	if ((b = time_jst_date(req_query(r, "to"))) < 0)
		return *e = api_error(r, AC_QUERY_INVALID, "to"), -1;
	d->n = (long)((b - d->from) / 86400);
	if (d->n < 1 || d->n > DAILY_DAYS_MAX)
		return *e = api_error(r, AC_QUERY_INVALID, "to"), -1;
	d->f = (struct daily_filter){ req_query(r, "from"),
	    req_query(r, "to"), req_query(r, "site_id"),
	    req_query(r, "campaign_id"), req_query(r, "scenario_id"), "*",
	    "*" };
	ff = (struct funnel_filter){ .site = d->f.site,
	    .campaign = d->f.campaign };
	if (filters_ok(r, &ff, e) != 0)
		return -1;
	/* the traffic row of the filters' grain (visits do not add up) */
	if (d->f.site != NULL)
		d->f.site_key = d->f.site;
	if (d->f.campaign != NULL) {
		if ((*e = db_campaign_get(r->db, r->auth.tenant_id,
		    d->f.campaign, &cr)) != FB_OK)
			return -1;
		snprintf(d->site_of, sizeof(d->site_of), "%s",
		    ((const struct campaign_row *)cr.row)->site_id);
		dbrows_free(&cr);
		if (d->f.site == NULL)
			d->f.site_key = d->site_of;
		d->f.campaign_key = d->f.campaign;
	}
	if (d->f.scenario != NULL) {
		*e = db_scenario_get(r->db, r->auth.tenant_id, d->f.scenario,
		    &s);
		if (*e == FB_ENOTFOUND) {
			*e = api_error(r, AC_NOT_FOUND, "scenario_id");
			return -1;
		}
		if (*e != FB_OK)
			return -1;
		dbrows_free(&s);
	}
	d->scen = d->f.scenario != NULL;
	return 0;
}

/*
 * Which days are computed: all but those with rows not counted yet
 * (their mark, migration 0035); refreshed_at is the latest count of
 * the computed ones.
 */
static enum fb_err
daily_computed(struct req *r, struct daily *d)
{
	struct dbrows	 rs;
	const struct report_mark_row *m;
	const struct day_aggregated_row *g;
	size_t		 x;
	long		 i;
	enum fb_err	 e;

	for (i = 0; i < d->n; i++)
		d->days[i].computed = true;
	if ((e = db_daily_marked(r->db, r->auth.tenant_id, d->f.from,
	    d->f.to, &rs)) != FB_OK)
		return e;
	for (x = 0, m = rs.row; x < rs.n; x++, m++)
		if ((i = day_index(m->day, d->from, d->n)) >= 0)
			d->days[i].computed = false;
	dbrows_free(&rs);
	if ((e = db_daily_aggregated(r->db, r->auth.tenant_id, d->f.from,
	    d->f.to, &rs)) != FB_OK)
		return e;
	/* the latest time, "YYYY-MM-DD HH:MM:SS.ffffff", sorts as text */
	for (x = 0, g = rs.row; x < rs.n; x++, g++)
		if ((i = day_index(g->day, d->from, d->n)) >= 0 &&
		    d->days[i].computed && g->aggregated_at != NULL &&
		    strcmp(g->aggregated_at, d->refreshed) > 0)
			snprintf(d->refreshed, sizeof(d->refreshed), "%s",
			    g->aggregated_at);
	dbrows_free(&rs);
	return FB_OK;
}

/* One count row of part p into its day. */
static void
day_count(struct day *d, enum daily_part p, const struct day_count_row *c)
{
	struct dlv	 dv;

	switch (p) {
	case DAILY_TRAFFIC:
		d->page_view = c->n1;
		d->visits = c->n2;
		d->form_start = c->n3;
		d->capture = c->n4;
		break;
	case DAILY_CAPTURED:
		d->captured = c->n1;
		break;
	case DAILY_ABANDONED:
		d->abandoned = c->n1;
		break;
	case DAILY_CONVERTED:
		d->recovered = c->n1;
		d->spillover = c->n2;
		d->hash_match = c->n3;
		break;
	case DAILY_DELIVERY:
		dv = (struct dlv){ c->n1, c->n2, c->n3, c->n4, c->n5, c->n6 };
		dlv_add(c->channel != NULL && strcmp(c->channel, "sms") == 0 ?
		    &d->sms : &d->email, &dv);
		break;
	default:
		break;
	}
}

/* The computed days' counts, part by part, and their total. */
static enum fb_err
daily_counts(struct req *r, struct daily *d)
{
	struct dbrows	 rows;
	const struct day_count_row *c;
	size_t		 x;
	long		 i;
	int		 p;
	enum fb_err	 e;

	for (p = DAILY_TRAFFIC; p <= DAILY_DELIVERY; p++) {
		if ((e = db_daily(r->db, r->auth.tenant_id, &d->f,
		    (enum daily_part)p, &rows)) != FB_OK)
			return e;
		for (x = 0, c = rows.row; x < rows.n; x++, c++)
			if ((i = day_index(c->day, d->from, d->n)) >= 0 &&
			    d->days[i].computed)
				day_count(&d->days[i], (enum daily_part)p, c);
		dbrows_free(&rows);
	}
	for (i = 0; i < d->n; i++) {
		d->tot.visits += d->days[i].visits;
		d->tot.form_start += d->days[i].form_start;
		d->tot.capture += d->days[i].capture;
		d->tot.captured += d->days[i].captured;
		d->tot.abandoned += d->days[i].abandoned;
		d->tot.recovered += d->days[i].recovered;
		d->tot.spillover += d->days[i].spillover;
		d->tot.hash_match += d->days[i].hash_match;
		dlv_add(&d->tot.sms, &d->days[i].sms);
		dlv_add(&d->tot.email, &d->days[i].email);
	}
	return FB_OK;
}

/* The range's faces and metrics (contract: Reports), all channels. */
static void
daily_faces_gen(struct jgen *j, const struct daily *d)
{
	struct dlv	 dv = d->tot.sms;

	dlv_add(&dv, &d->tot.email);
	jg_arr(j, "faces");
	if (!d->scen) {
		face(j, "captured", "連絡先の取得", d->tot.captured, "lead",
		    "captured_at");
		face(j, "abandoned", "離脱", d->tot.abandoned, "lead",
		    "abandoned_at");
	}
	face(j, "sent", "フォロー送信", dv.sent, "message", "sent_at");
	face(j, "clicked", "リンクのクリック", dv.clicked, "message",
	    "sent_at");
	face(j, "converted_after_message", "送信後のコンバージョン",
	    dv.converted, "message", "sent_at");
	if (!d->scen)
		face(j, "recovered", "回復(離脱後のコンバージョン)",
		    d->tot.recovered, "lead", "converted_at");
	jg_arr_end(j);
	jg_arr(j, "metrics");
	if (!d->scen)
		metric(j, "recovery_rate", "回復率", d->tot.recovered,
		    d->tot.abandoned);
	metric(j, "click_rate", "クリック率", dv.clicked, dv.sent);
	metric(j, "delivered_rate", "到達率", dv.delivered, dv.sent);
	jg_arr_end(j);
	jg_int_or_null(j, "converted_spillover", d->tot.spillover, d->scen);
	jg_int_or_null(j, "converted_hash_match", d->tot.hash_match, d->scen);
	jg_int(j, "sent_after_conversion", dv.after);
}

/* The report's notes, in Japanese (contract: Reports). */
static void
daily_notes_gen(struct jgen *j)
{
	jg_obj(j, "notes");
	jg_str(j, "recovered_cv", "回復は、離脱と判定された後にサンクスページ"
	    "のタグでコンバージョンしたリードの数です(コンバージョンした日に"
	    "数えます)。ほかのキャンペーンのコンバージョンや同じ連絡先による"
	    "停止は含みません。");
	jg_str(j, "traffic_unit", "訪問はページタグのセッションです。1回の訪問"
	    "はページ閲覧の回数によらず、最初のページ閲覧の日に1と数えます。"
	    "日付は日本時間です。");
	jg_str(j, "delivery", "送信・到達・開封・クリック・送信後のコンバー"
	    "ジョンは、メッセージを送信した日に数えます。SMS には開封がない"
	    "ため null です。シナリオで絞り込むと、送信以外の数は null に"
	    "なります。");
	jg_obj_end(j);
}

/* group_by=step: one group a step of the range's sends. */
static void
daily_steps_gen(struct jgen *j, const struct dbrows *st)
{
	const struct day_count_row *c;
	struct dlv	 dv;
	size_t		 x;

	jg_arr(j, "groups");
	for (x = 0, c = st->row; x < st->n; x++, c++) {
		dv = (struct dlv){ c->n1, c->n2, c->n3, c->n4, c->n5, c->n6 };
		jg_obj(j, NULL);
		/* a step whose row is gone keeps no id: "deleted" */
		jg_str(j, "step_id", c->step_id != NULL ? c->step_id :
		    "deleted");
		if (c->step_no != NULL)
			jg_int(j, "step_no", strtol(c->step_no, NULL, 10));
		else
			jg_str(j, "step_no", NULL);
		jg_str(j, "channel", c->channel);
		jg_bool(j, "step_deleted", c->deleted);
		dlv_gen(j, "counts", &dv, c->channel != NULL &&
		    strcmp(c->channel, "sms") == 0);
		jg_arr(j, "metrics");
		metric(j, "click_rate", "クリック率", dv.clicked, dv.sent);
		metric(j, "delivered_rate", "到達率", dv.delivered, dv.sent);
		jg_arr_end(j);
		jg_obj_end(j);
	}
	jg_arr_end(j);
}

/* The JST date of day i of the range, "YYYY-MM-DD". */
static void
daily_date(const struct daily *d, long i, char date[32])
{
	time_iso8601(d->from + (int64_t)i * 86400 + 9 * 3600, date);
	date[10] = '\0';
}

/* The report (contract: Reports, GET /reports/daily). */
static enum fb_err
daily_gen(struct req *r, const struct daily *d, const struct dbrows *st)
{
	struct jgen	 j;
	char		 date[32];
	long		 i;

	req_gen_begin(r, &j);
	jg_str(&j, "object", "daily_report");
	jg_obj(&j, "range");
	jg_str(&j, "from", d->f.from);
	jg_str(&j, "to", d->f.to);
	jg_str(&j, "timezone", "Asia/Tokyo");
	jg_str(&j, "site_id", d->f.site);
	jg_str(&j, "campaign_id", d->f.campaign);
	jg_str(&j, "scenario_id", d->f.scenario);
	jg_obj_end(&j);
	jg_time(&j, "refreshed_at", d->refreshed[0] != '\0' ? d->refreshed :
	    NULL);
	jg_arr(&j, "not_computed_dates");
	for (i = 0; i < d->n; i++)
		if (!d->days[i].computed) {
			daily_date(d, i, date);
			jg_str(&j, NULL, date);
		}
	jg_arr_end(&j);
	daily_faces_gen(&j, d);
	jg_arr(&j, "days");
	for (i = 0; i < d->n; i++) {
		daily_date(d, i, date);
		day_gen(&j, date, &d->days[i], d->scen);
	}
	jg_arr_end(&j);
	daily_notes_gen(&j);
	if (d->steps)
		daily_steps_gen(&j, st);
	return req_gen_end(r, &j, 200);
}

/* GET /reports/daily */
enum fb_err
api_reports_daily(struct req *r)
{
	struct daily	 d = { 0 };
	struct dbrows	 st = { 0 };
	const char	*gb = req_query(r, "group_by");
	enum fb_err	 e;

	d.steps = gb != NULL && strcmp(gb, "step") == 0;
	if (daily_filters(r, &d, &e) != 0)
		return e;
	if ((d.days = calloc((size_t)d.n, sizeof(*d.days))) == NULL)
		return FB_ENOMEM;
	if ((e = daily_computed(r, &d)) == FB_OK &&
	    (e = daily_counts(r, &d)) == FB_OK && d.steps)
		e = db_daily(r->db, r->auth.tenant_id, &d.f, DAILY_STEPS, &st);
	if (e == FB_OK)
		e = daily_gen(r, &d, &st);
	dbrows_free(&st);
	free(d.days);
	return e;
}
