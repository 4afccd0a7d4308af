/*
 * Tenant settings read by API keys: consent settings (contract: Consent
 * settings) and the delivery switch (contract: Delivery switch).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../api.h"
#include "../ops/status.h"
#include "../ops/usage.h"
#include "../publish.h"
#include "../db/store.h"

/* ConsentTemplateOut, under `key` (NULL in an array). */
static void
template_gen(struct jgen *j, const char *key,
    const struct consent_template_row *t)
{
	jg_obj(j, key);
	jg_str(j, "key", t->key);
	jg_str(j, "main", t->main);
	jg_str(j, "note", t->note);
	jg_obj_end(j);
}

/* The template in use: the chosen one, else "standard", else the first. */
static const struct consent_template_row *
template_current(const struct consent_row *c, const struct dbrows *tpl)
{
	const struct consent_template_row *t = tpl->row;
	const char	*want = c->template_key != NULL ? c->template_key :
	    "standard";
	size_t		 i;

	for (i = 0; i < tpl->n; i++)
		if (strcmp(t[i].key, want) == 0)
			return &t[i];
	return tpl->n > 0 ? &t[0] : NULL;
}

/* ConsentSettingsOut's members but publish_failed. */
static void
consent_gen(struct jgen *j, const struct consent_row *c,
    const struct dbrows *tpl)
{
	const struct consent_template_row *cur = template_current(c, tpl);
	size_t		 i;

	jg_str(j, "object", "consent_settings");
	jg_bool(j, "consent_checkbox_enabled", c->checkbox_enabled);
	jg_bool(j, "consent_default_checked", c->default_checked);
	jg_str(j, "consent_template_key", c->template_key);
	if (cur != NULL)
		template_gen(j, "template", cur);
	else
		jg_str(j, "template", NULL);
	jg_arr(j, "templates");
	for (i = 0; i < tpl->n; i++)
		template_gen(j, NULL,
		    &((const struct consent_template_row *)tpl->row)[i]);
	jg_arr_end(j);
	jg_bool(j, "consent_optout_link_enabled", c->optout_link_enabled);
	jg_str(j, "consent_mode", c->mode);
	jg_obj(j, "optout_text");
	jg_str(j, "title", c->optout_title);
	jg_str(j, "body", c->optout_body);
	jg_str(j, "link_label", c->optout_link_label);
	jg_obj_end(j);
}

/*
 * The consent settings as GET answers them, with publish_failed: the
 * ids of the sites of `sites` (NULL: none) whose `failed` is set.
 */
static enum fb_err
consent_answer(struct req *r, const struct dbrows *sites, const bool *failed)
{
	struct dbrows	 cs, tpl;
	struct jgen	 j;
	size_t		 i;
	enum fb_err	 e;

	e = db_consent_get(r->db, r->auth.tenant_id, &cs);
	if (e != FB_OK)
		return e == FB_ENOTFOUND ? api_error(r, AC_NOT_FOUND, NULL) : e;
	if ((e = db_consent_templates(r->db, &tpl)) != FB_OK) {
		dbrows_free(&cs);
		return e;
	}
	req_gen_begin(r, &j);
	consent_gen(&j, cs.row, &tpl);
	jg_arr(&j, "publish_failed");
	for (i = 0; sites != NULL && i < sites->n; i++)
		if (failed[i])
			jg_str(&j, NULL,
			    ((const struct site_row *)sites->row)[i].id);
	jg_arr_end(&j);
	dbrows_free(&cs);
	dbrows_free(&tpl);
	return req_gen_end(r, &j, 200);
}

enum fb_err
api_consent_get(struct req *r)
{
	return consent_answer(r, NULL, NULL);
}

/*
 * PATCH /api/v1/admin/consent_settings (owner, admin; issue 16): the
 * fields of ConsentSettingsOut, each optional; optout_text's title (200
 * characters), body (2000) and link_label (100).  Every site of the
 * tenant publishes its tag configuration again (the consent checkbox and
 * mode are in it); the sites whose file could not be written are in
 * publish_failed.
 */
enum fb_err
api_consent_update(struct req *r)
{
	static const char *const modes[] = { "none", "notice_optout",
	    "explicit",
	    NULL };
	struct consent_patch p;
	struct dbrows	 tpl, sites;
	const struct site_row *st;
	json_object	*ot = NULL, *v;
	size_t		 i;
	int		 k[3];
	bool		 found, b[3], *failed;
	enum fb_err	 e;

	memset(&p, 0, sizeof(p));
	if ((k[0] = body_bool(r, "consent_checkbox_enabled", false,
	    &b[0])) < 0 ||
	    (k[1] = body_bool(r, "consent_default_checked", false,
	    &b[1])) < 0 ||
	    (k[2] = body_bool(r, "consent_optout_link_enabled", false,
	    &b[2])) < 0 ||
	    body_str(r, "consent_template_key", false, 16,
	    &p.template_key) < 0 ||
	    body_str(r, "consent_mode", false, 16, &p.mode) < 0)
		return FB_OK;
	p.checkbox = k[0] > 0 ? b[0] : -1;
	p.default_checked = k[1] > 0 ? b[1] : -1;
	p.optout_link = k[2] > 0 ? b[2] : -1;
	if (p.mode != NULL && !one_of(p.mode, modes))
		return api_error(r, AC_PARAMETER_INVALID, "consent_mode");
	if (json_object_object_get_ex(r->json, "optout_text", &ot) &&
	    ot != NULL) {
		if (!json_object_is_type(ot, json_type_object))
			return api_error(r, AC_PARAMETER_INVALID,
			    "optout_text");
#define OT(k, max, field) do {						\
	if (json_object_object_get_ex(ot, k, &v) && v != NULL) {	\
		if (!json_object_is_type(v, json_type_string) ||	\
		    utf8_len(json_object_get_string(v)) < 1 ||		\
		    utf8_len(json_object_get_string(v)) > (max) ||	\
		    text_blank(json_object_get_string(v)))		\
			return api_error(r, AC_PARAMETER_INVALID,	\
			    "optout_text." k);				\
		p.field = json_object_get_string(v);			\
	}								\
} while (0)
		OT("title", 200, optout_title);
		OT("body", 2000, optout_body);
		OT("link_label", 100, optout_link_label);
#undef OT
	}
	if (p.template_key != NULL) {
		if ((e = db_consent_templates(r->db, &tpl)) != FB_OK)
			return e;
		for (i = 0, found = false; i < tpl.n; i++)
			if (strcmp(((const struct consent_template_row *)
			    tpl.row)[i].key, p.template_key) == 0)
				found = true;
		dbrows_free(&tpl);
		if (!found)
			return api_error(r, AC_PARAMETER_INVALID,
			    "consent_template_key");
	}
	if ((e = db_consent_update(r->db, r->auth.tenant_id, &p)) != FB_OK)
		return e;
	r->audit_type = "tenant";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", r->auth.tenant_id);
	if ((e = db_site_list(r->db, r->auth.tenant_id, NULL, 1000,
	    &sites)) != FB_OK)
		return e;
	if ((failed = calloc(sites.n + 1, sizeof(*failed))) == NULL) {
		dbrows_free(&sites);
		return FB_ENOMEM;
	}
	for (i = 0, st = sites.row; i < sites.n; i++)
		failed[i] = !publish_site(r, r->auth.tenant_id, st[i].id);
	e = consent_answer(r, &sites, failed);
	free(failed);
	dbrows_free(&sites);
	return e;
}

enum fb_err
api_delivery_status_get(struct req *r)
{
	struct dbrows	 res;
	const struct delivery_status_row *d;
	struct jgen	 j;
	enum fb_err	 e;

	e = db_delivery_status(r->db, r->auth.tenant_id, &res);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, NULL);
	if (e != FB_OK)
		return e;
	d = res.row;
	req_gen_begin(r, &j);
	jg_str(&j, "object", "delivery_status");
	jg_bool(&j, "enabled", strcmp(d->mode, "off") != 0);
	jg_time(&j, "enabled_at", d->enabled_at);
	jg_str(&j, "mode", d->mode);
	dbrows_free(&res);
	return req_gen_end(r, &j, 200);
}

/*
 * PUT /api/v1/admin/delivery_status (owner, admin; issue 16): the switch
 * of formbackctl delivery-switch, answered as the GET answers it.
 */
enum fb_err
api_delivery_status_set(struct req *r)
{
	static const char *const switch_modes[] = { "off", "test_only", "live",
	    NULL };
	const char	*mode;
	enum fb_err	 e;

	if (body_str(r, "mode", true, 16, &mode) < 0)
		return FB_OK;
	if (!one_of(mode, switch_modes))
		return api_error(r, AC_PARAMETER_INVALID, "mode");
	if ((e = db_delivery_switch(r->db, r->auth.tenant_id, mode)) != FB_OK)
		return e;
	r->audit_type = "tenant";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", r->auth.tenant_id);
	return api_delivery_status_get(r);
}

/*
 * GET /api/v1/admin/usage (any member; issue 17): this JST month's sends
 * against the quota, as formbackctl usage prints them.
 */
enum fb_err
api_usage_get(struct req *r)
{
	char		 month[8];
	struct usage	 u;
	struct jgen	 j;
	enum fb_err	 e;

	time_jst_month((int64_t)time(NULL), month);
	if ((e = usage_month(r->db, r->auth.tenant_id, month, &u)) != FB_OK)
		return e;
	req_gen_begin(r, &j);
	jg_str(&j, "object", "usage");
	jg_str(&j, "month", month);
	jg_str(&j, "plan", plans[u.plan].name);
	jg_int(&j, "sends", u.sends);
	jg_int(&j, "quota", u.quota);
	return req_gen_end(r, &j, 200);
}

/*
 * GET /api/v1/health (no key; outside the contract; issue 18): for load
 * balancers and monitors.  200 {"status":"ok","schema":"0021"} when the
 * database answers; 503 {"status":"unavailable"} with Retry-After
 * otherwise.  Says nothing about any tenant.
 */
enum fb_err
api_health(struct req *r)
{
	char		 v[16];
	struct jgen	 j;
	bool		 up;

	up = db_ensure(r->db) == FB_OK && db_schema_version(r->db, v) == FB_OK;
	if (!up)
		(void)req_header(r, "Retry-After", "5");
	req_gen_begin(r, &j);
	jg_str(&j, "status", up ? "ok" : "unavailable");
	if (up)
		jg_str(&j, "schema", v);
	return req_gen_end(r, &j, up ? 200 : 503);
}

/*
 * GET /api/v1/metrics (no key; outside the contract; off unless
 * `metrics = yes`; the web server fragment restricts who may read it):
 * ops_status() in the Prometheus text format (exposition format 0.0.4).
 */
/* The queues' gauges, in the exposition format. */
static enum fb_err
metrics_queues(struct buf *b, const struct dbrows *q)
{
	const struct queue_row *qr = q->row;
	size_t		 i;
	enum fb_err	 e;

	e = buf_addstr(b, "# HELP formback_queue_depth Items due now.\n"
	    "# TYPE formback_queue_depth gauge\n");
	for (i = 0; i < q->n && e == FB_OK; i++)
		e = buf_printf(b, "formback_queue_depth{queue=\"%s\"} %lld\n",
		    qr[i].name, (long long)qr[i].depth);
	if (e == FB_OK)
		e = buf_addstr(b, "# HELP formback_queue_oldest_age_seconds "
		    "How long the oldest due item has waited.\n"
		    "# TYPE formback_queue_oldest_age_seconds gauge\n");
	for (i = 0; i < q->n && e == FB_OK; i++)
		e = buf_printf(b, "formback_queue_oldest_age_seconds"
		    "{queue=\"%s\"} %lld\n", qr[i].name, (long long)qr[i].age);
	return e;
}

/* The jobs' gauges, each job's four in turn. */
static enum fb_err
metrics_jobs(struct buf *b, const struct dbrows *jb)
{
	const struct cron_pass_row *j = jb->row;
	size_t		 i;
	enum fb_err	 e;

	e = buf_addstr(b, "# HELP formback_job_last_pass_age_seconds Since "
	    "the job's last pass.\n"
	    "# TYPE formback_job_last_pass_age_seconds gauge\n"
	    "# HELP formback_job_last_pass_ok 1 when the last pass "
	    "succeeded.\n# TYPE formback_job_last_pass_ok gauge\n"
	    "# HELP formback_job_failures_this_hour Failed passes this clock "
	    "hour.\n# TYPE formback_job_failures_this_hour gauge\n"
	    "# HELP formback_job_left_items Items the last pass left for the "
	    "next.\n# TYPE formback_job_left_items gauge\n");
	for (i = 0; i < jb->n && e == FB_OK; i++)
		e = buf_printf(b,
		    "formback_job_last_pass_age_seconds{job=\"%s\"} %lld\n"
		    "formback_job_last_pass_ok{job=\"%s\"} %d\n"
		    "formback_job_failures_this_hour{job=\"%s\"} %lld\n"
		    "formback_job_left_items{job=\"%s\"} %lld\n",
		    j[i].job, (long long)j[i].age, j[i].job,
		    j[i].outcome != NULL && strcmp(j[i].outcome, "ok") == 0,
		    j[i].job, (long long)j[i].failures_hour,
		    j[i].job, (long long)j[i].left_items);
	return e;
}

/*
 * GET /api/v1/metrics (no key; outside the contract; off unless
 * `metrics = yes`; the web server fragment restricts who may read it):
 * ops_status_read() in the Prometheus text format (exposition format
 * 0.0.4).
 */
enum fb_err
api_metrics(struct req *r)
{
	struct ops_status st;
	enum fb_err	 e;

	if (!r->conf->metrics)
		return api_error(r, AC_NOT_FOUND, NULL);
	if ((e = db_ensure(r->db)) != FB_OK ||
	    (e = ops_status_read(r->db, &st)) != FB_OK)
		return e;
	buf_reset(&r->out);
	if ((e = metrics_queues(&r->out, &st.queues)) == FB_OK)
		e = metrics_jobs(&r->out, &st.jobs);
	ops_status_free(&st);
	if (e != FB_OK)
		return e;
	r->out_type = "text/plain; version=0.0.4; charset=utf-8";
	r->status = 200;
	return FB_OK;
}
