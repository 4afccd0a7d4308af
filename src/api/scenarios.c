/*
 * Scenarios and steps (contract: Scenario, States Scenario; Endpoints,
 * Scenarios; Limits, steps per scenario).  API keys create drafts only
 * and cannot change a status; formbackctl scenario set-status is the
 * operator's way, with the activation checks of scenario_ready().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../api.h"
#include "../message.h"
#include "../ops/scenario.h"
#include "../db/store.h"

#define SCENARIO_NAME_MAX	200
#define DELAY_MAX		43200	/* 30 days */

/* The one writer of a scenario (contract: Scenario), with its steps. */
static void
scenario_gen(struct jgen *j, const struct scenario_row *s,
    const struct dbrows *steps)
{
	const struct step_row *st = steps->row;
	size_t		 i;

	jg_str(j, "id", s->id);
	jg_str(j, "object", "scenario");
	jg_str(j, "campaign_id", s->campaign_id);
	jg_str(j, "name", s->name);
	jg_str(j, "status", s->status);
	if (s->abandon_wait_minutes >= 0)
		jg_int(j, "abandon_wait_minutes", s->abandon_wait_minutes);
	else
		jg_str(j, "abandon_wait_minutes", NULL);
	jg_arr(j, "steps");
	for (i = 0; i < steps->n; i++) {
		jg_obj(j, NULL);
		jg_str(j, "id", st[i].id);
		jg_int(j, "position", st[i].position + 1);
		jg_str(j, "message_id", st[i].message_id);
		jg_str(j, "channel", st[i].channel);
		jg_int(j, "delay_minutes", st[i].delay_minutes);
		jg_obj_end(j);
	}
	jg_arr_end(j);
	jg_int(j, "step_count", (long long)steps->n);
	jg_time(j, "created_at", s->created_at);
	jg_time(j, "updated_at", s->updated_at);
}

/* The scenario the request names; 404 answered when it is not the tenant's. */
static enum fb_err
scenario_load(struct req *r, const char *id, struct dbrows *s, bool *found)
{
	enum fb_err	 e;

	*found = false;
	e = db_scenario_get(r->db, r->auth.tenant_id, id, s);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "scenario_id");
	*found = e == FB_OK;
	return e;
}

static const struct scenario_row *
scenario_of(const struct dbrows *s)
{
	return s->row;
}

static enum fb_err
scenario_answer(struct req *r, const char *id, int status)
{
	struct dbrows	 s, st;
	struct jgen	 j;
	bool		 found;
	enum fb_err	 e;

	if ((e = scenario_load(r, id, &s, &found)) != FB_OK || !found)
		return e;
	if ((e = db_steps_list(r->db, r->auth.tenant_id, id, &st)) != FB_OK) {
		dbrows_free(&s);
		return e;
	}
	req_gen_begin(r, &j);
	scenario_gen(&j, scenario_of(&s), &st);
	dbrows_free(&s);
	dbrows_free(&st);
	return req_gen_end(r, &j, status);
}

/* The tenant's limit on steps per scenario (contract: Limits). */
static enum fb_err
steps_limit(struct db *db, const char *tenant, int *limit)
{
	enum plan	 pl;
	enum fb_err	 e;

	if ((e = db_tenant_plan(db, tenant, &pl)) != FB_OK)
		return e;
	*limit = plans[pl].steps_per_scenario;
	return FB_OK;
}

static bool
campaign_exists(struct req *r, const char *id, enum fb_err *e)
{
	struct dbrows	 c;

	*e = db_campaign_get(r->db, r->auth.tenant_id, id, &c);
	if (*e == FB_OK) {
		dbrows_free(&c);
		return true;
	}
	if (*e == FB_ENOTFOUND)
		*e = FB_OK;
	return false;
}

enum fb_err
api_scenarios_list(struct req *r)
{
	struct dbrows	 s, st;
	const struct scenario_row *sr;
	struct jgen	 j;
	size_t		 i;
	enum fb_err	 e;

	if (!campaign_exists(r, req_pathvar(r, "campaign_id"), &e))
		return e != FB_OK ? e : api_error(r, AC_NOT_FOUND,
		    "campaign_id");
	if ((e = db_scenario_list(r->db, r->auth.tenant_id,
	    req_pathvar(r, "campaign_id"), &s)) != FB_OK)
		return e;
	req_gen_begin(r, &j);
	jg_str(&j, "object", "list");
	jg_arr(&j, "data");
	for (i = 0, sr = s.row; i < s.n && e == FB_OK; i++) {
		if ((e = db_steps_list(r->db, r->auth.tenant_id, sr[i].id,
		    &st)) != FB_OK)
			break;
		jg_obj(&j, NULL);
		scenario_gen(&j, &sr[i], &st);
		jg_obj_end(&j);
		dbrows_free(&st);
	}
	jg_arr_end(&j);
	dbrows_free(&s);
	if (e != FB_OK) {
		req_reset_response(r);
		return e;
	}
	return req_gen_end(r, &j, 200);
}

enum fb_err
api_scenarios_create(struct req *r)
{
	const char	*campaign = req_pathvar(r,
	    "campaign_id"), *name, *status;
	long long	 wait = 0;
	char		 id[UUID_STRLEN + 1];
	int		 has_wait;
	enum fb_err	 e;

	if (body_line(r, "name", true, SCENARIO_NAME_MAX, &name) < 0 ||
	    body_str(r, "status", false, 16, &status) < 0 ||
	    (has_wait = body_int(r, "abandon_wait_minutes", false,
	    ABANDON_WAIT_MIN, ABANDON_WAIT_MAX, &wait)) < 0)
		return FB_OK;
	if (name[strspn(name, " \t")] == '\0')
		return api_error(r, AC_PARAMETER_INVALID, "name");
	if (status != NULL && strcmp(status, "draft") != 0 &&
	    strcmp(status, "active") != 0 && strcmp(status, "paused") != 0)
		return api_error(r, AC_PARAMETER_INVALID, "status");
	if (status != NULL && strcmp(status, "draft") != 0)
		return api_error(r, AC_API_KEY_DRAFT_ONLY, "status");
	if (!campaign_exists(r, campaign, &e))
		return e != FB_OK ? e : api_error(r, AC_NOT_FOUND,
		    "campaign_id");
	uuid_v7(id);
	if ((e = db_scenario_insert(r->db, r->auth.tenant_id, id, campaign,
	    name, has_wait ? wait : -1)) != FB_OK)
		return e;
	r->audit_type = "scenario";
	memcpy(r->audit_id, id, sizeof(id));
	return scenario_answer(r, id, 201);
}

enum fb_err
api_scenarios_get(struct req *r)
{
	return scenario_answer(r, req_pathvar(r, "scenario_id"), 200);
}

enum fb_err
api_scenarios_update(struct req *r)
{
	const char	*id = req_pathvar(r, "scenario_id"), *name, *status;
	char		 campaign[UUID_STRLEN + 1];
	long long	 wait = 0;
	struct dbrows	 s;
	int		 w;
	bool		 found, other, refused;
	enum fb_err	 e;

	if (body_line(r, "name", false, SCENARIO_NAME_MAX, &name) < 0 ||
	    body_str(r, "status", false, 16, &status) < 0 ||
	    (w = body_int(r, "abandon_wait_minutes", false,
	    ABANDON_WAIT_MIN, ABANDON_WAIT_MAX, &wait)) < 0)
		return FB_OK;
	if (name != NULL && name[strspn(name, " \t")] == '\0')
		return api_error(r, AC_PARAMETER_INVALID, "name");
	if (status != NULL && strcmp(status, "draft") != 0 &&
	    strcmp(status, "active") != 0 && strcmp(status, "paused") != 0)
		return api_error(r, AC_PARAMETER_INVALID, "status");
	if ((e = scenario_load(r, id, &s, &found)) != FB_OK || !found)
		return e;
	other = status != NULL && strcmp(status, scenario_of(&s)->status) != 0;
	snprintf(campaign, sizeof(campaign), "%s",
	    scenario_of(&s)->campaign_id);
	dbrows_free(&s);
	/* a status change needs a session (contract: Authentication 9) */
	if (other && !r->auth.session)
		return api_error(r, AC_SESSION_REQUIRED, "status");
	if ((e = db_scenario_update(r->db, r->auth.tenant_id, id, name,
	    body_has(r, "abandon_wait_minutes"), w > 0 ? wait : -1)) != FB_OK)
		return e;
	if (other) {
		/* activation: the checks of formbackctl scenario set-status */
		if (strcmp(status, "active") == 0 &&
		    ((e = scenario_keep_sendable(r, id, campaign,
		    &refused)) != FB_OK ||
		    refused))
			return e;
		if ((e = db_scenario_set_status(r->db, r->auth.tenant_id, id,
		    status)) != FB_OK)
			return e;
	}
	r->audit_type = "scenario";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	return scenario_answer(r, id, 200);
}

enum fb_err
api_scenarios_delete(struct req *r)
{
	const char	*id = req_pathvar(r, "scenario_id");
	struct dbrows	 s;
	bool		 found, active;
	enum fb_err	 e;

	if ((e = scenario_load(r, id, &s, &found)) != FB_OK || !found)
		return e;
	active = strcmp(scenario_of(&s)->status, "active") == 0;
	dbrows_free(&s);
	if (active)
		return api_error(r, AC_SCENARIO_ACTIVE, NULL);
	if ((e = db_scenario_delete(r->db, r->auth.tenant_id, id)) != FB_OK)
		return e;
	r->audit_type = "scenario";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	req_empty(r, 204);
	return FB_OK;
}

/* PUT /scenarios/{id}/steps: all or nothing (contract: Errors). */
enum fb_err
api_scenarios_steps(struct req *r)
{
	const char	*id = req_pathvar(r, "scenario_id"), *mid;
	json_object	*steps, *it, *v;
	struct dbrows	 s, m;
	char		 param[64], sid[UUID_STRLEN + 1];
	char		 campaign[UUID_STRLEN + 1];
	size_t		 i, n, had;
	int		 limit;
	bool		 active, found, refused = false;
	enum fb_err	 e;

	if (!json_object_object_get_ex(r->json, "steps", &steps) ||
	    steps == NULL)
		return api_error(r, AC_PARAMETER_MISSING, "steps");
	if (!json_object_is_type(steps, json_type_array))
		return api_error(r, AC_PARAMETER_INVALID, "steps");
	n = json_object_array_length(steps);
	if ((e = scenario_load(r, id, &s, &found)) != FB_OK || !found)
		return e;
	active = strcmp(scenario_of(&s)->status, "active") == 0;
	snprintf(campaign, sizeof(campaign), "%s",
	    scenario_of(&s)->campaign_id);
	dbrows_free(&s);
	for (i = 0; i < n; i++) {
		it = json_object_array_get_idx(steps, i);
		snprintf(param, sizeof(param), "steps[%zu]", i);
		if (!json_object_is_type(it, json_type_object))
			return api_error(r, AC_PARAMETER_INVALID, param);
		snprintf(param, sizeof(param), "steps[%zu].message_id", i);
		if (!json_object_object_get_ex(it, "message_id", &v) ||
		    v == NULL)
			return api_error(r, AC_PARAMETER_MISSING, param);
		if (!json_object_is_type(v, json_type_string) ||
		    !uuid_valid(json_object_get_string(v)))
			return api_error(r, AC_PARAMETER_INVALID, param);
		snprintf(sid, sizeof(sid), "%s", json_object_get_string(v));
		uuid_lower(sid);
		e = db_message_get(r->db, r->auth.tenant_id, sid, &m);
		if (e == FB_ENOTFOUND)
			return api_error(r, AC_PARAMETER_INVALID, param);
		if (e != FB_OK)
			return e;
		dbrows_free(&m);
		snprintf(param, sizeof(param), "steps[%zu].delay_minutes", i);
		if (!json_object_object_get_ex(it, "delay_minutes", &v) ||
		    v == NULL)
			return api_error(r, AC_PARAMETER_MISSING, param);
		if (!json_object_is_type(v, json_type_int) ||
		    json_object_get_int64(v) < 0 ||
		    json_object_get_int64(v) > DELAY_MAX)
			return api_error(r, AC_PARAMETER_INVALID, param);
	}
	if ((e = steps_limit(r->db, r->auth.tenant_id, &limit)) != FB_OK)
		return e;
	if ((int)n > limit)
		return api_error(r, AC_PLAN_LIMIT_EXCEEDED, "steps");
	/*
	 * Position by position: an existing step keeps its id (its pending
	 * deliveries go on, with the new message and delay); positions past
	 * the new list go, and their pending deliveries are cancelled.
	 */
	if ((e = db_steps_list(r->db, r->auth.tenant_id, id, &s)) != FB_OK)
		return e;
	had = s.n;
	dbrows_free(&s);
	if ((e = db_steps_trim(r->db, r->auth.tenant_id, id,
	    (long long)n)) != FB_OK)
		return e;
	for (i = 0; i < n && e == FB_OK; i++) {
		it = json_object_array_get_idx(steps, i);
		json_object_object_get_ex(it, "message_id", &v);
		snprintf(sid, sizeof(sid), "%s", json_object_get_string(v));
		uuid_lower(sid);
		mid = sid;
		json_object_object_get_ex(it, "delay_minutes", &v);
		if (i < had)
			e = db_step_update(r->db, r->auth.tenant_id, id,
			    (long long)i, mid, json_object_get_int64(v));
		else {
			char	 stid[UUID_STRLEN + 1];

			uuid_v7(stid);
			e = db_step_insert(r->db, r->auth.tenant_id, stid, id,
			    (long long)i, mid, json_object_get_int64(v));
		}
	}
	/* a step removed cancels its pending deliveries (step_removed) */
	if (e == FB_OK)
		e = db_steps_gone_cancel(r->db, r->auth.tenant_id, id);
	if (e == FB_OK && active)
		e = scenario_keep_sendable(r, id, campaign, &refused);
	if (e != FB_OK || refused)
		return e;
	r->audit_type = "scenario";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	return scenario_answer(r, id, 200);
}

/* Copy scenario `from` into campaign `to` as draft `id`, messages copied. */
enum fb_err
scenario_copy(struct req *r, const char *from, const char *to, const char *name,
    char id[UUID_STRLEN + 1])
{
	struct dbrows	 s, st;
	const struct scenario_row *sr;
	const struct step_row *p;
	char		 mid[UUID_STRLEN + 1], stid[UUID_STRLEN + 1];
	size_t		 i;
	enum fb_err	 e;

	if ((e = db_scenario_get(r->db, r->auth.tenant_id, from, &s)) != FB_OK)
		return e;
	uuid_v7(id);
	sr = s.row;
	e = db_scenario_insert(r->db, r->auth.tenant_id, id, to, name != NULL ?
	    name : sr->name, sr->abandon_wait_minutes);
	dbrows_free(&s);
	if (e != FB_OK)
		return e;
	if ((e = db_steps_list(r->db, r->auth.tenant_id, from, &st)) != FB_OK)
		return e;
	for (i = 0, p = st.row; i < st.n && e == FB_OK; i++) {
		if ((e = message_copy(r, p[i].message_id, mid)) != FB_OK)
			break;
		uuid_v7(stid);
		e = db_step_insert(r->db, r->auth.tenant_id, stid, id,
		    (long long)i, mid, p[i].delay_minutes);
	}
	dbrows_free(&st);
	return e;
}

enum fb_err
api_scenarios_duplicate(struct req *r)
{
	const char	*from = req_pathvar(r, "scenario_id"), *cid, *name;
	char		 id[UUID_STRLEN + 1], to[UUID_STRLEN + 1];
	struct dbrows	 s;
	bool		 found;
	enum fb_err	 e;

	if (body_str(r, "campaign_id", false, UUID_STRLEN, &cid) < 0 ||
	    body_line(r, "name", false, SCENARIO_NAME_MAX, &name) < 0)
		return FB_OK;
	if (cid != NULL && !uuid_valid(cid))
		return api_error(r, AC_PARAMETER_INVALID, "campaign_id");
	if ((e = scenario_load(r, from, &s, &found)) != FB_OK || !found)
		return e;
	snprintf(to, sizeof(to), "%s", cid != NULL ? cid :
	    scenario_of(&s)->campaign_id);
	uuid_lower(to);
	dbrows_free(&s);
	/* another campaign of the same tenant; a foreign one is 404 */
	if (!campaign_exists(r, to, &e))
		return e != FB_OK ? e : api_error(r, AC_NOT_FOUND,
		    "campaign_id");
	if ((e = scenario_copy(r, from, to, name, id)) != FB_OK)
		return e;
	r->audit_type = "scenario";
	memcpy(r->audit_id, id, sizeof(id));
	return scenario_answer(r, id, 201);
}

/* A preset's steps (stored as [{example, delay_minutes}]), as PresetOut's. */
static size_t
preset_steps_gen(struct jgen *j, const char *stored, const struct dbrows *ex)
{
	const struct example_row *er = ex->row;
	json_object	*in, *st, *k, *d;
	size_t		 i, n, q;

	in = stored != NULL ? json_tokener_parse(stored) : NULL;
	n = in != NULL && json_object_is_type(in, json_type_array) ?
	    json_object_array_length(in) : 0;
	jg_arr(j, "steps");
	for (i = 0; i < n; i++) {
		st = json_object_array_get_idx(in, i);
		json_object_object_get_ex(st, "example", &k);
		json_object_object_get_ex(st, "delay_minutes", &d);
		jg_obj(j, NULL);
		jg_int(j, "position", (long long)i + 1);
		jg_str(j, "example_key", json_object_get_string(k));
		for (q = 0; q < ex->n; q++)
			if (strcmp(er[q].key, json_object_get_string(k)) == 0)
				jg_str(j, "channel", er[q].channel);
		jg_int(j, "delay_minutes", json_object_get_int64(d));
		jg_obj_end(j);
	}
	jg_arr_end(j);
	json_object_put(in);
	return n;
}

enum fb_err
api_scenario_presets(struct req *r)
{
	struct dbrows	 p, ex;
	const struct preset_row *pr;
	struct jgen	 j;
	int		 limit;
	size_t		 i, n;
	enum fb_err	 e;

	if ((e = steps_limit(r->db, r->auth.tenant_id, &limit)) != FB_OK)
		return e;
	if ((e = db_presets(r->db, NULL, &p)) != FB_OK)
		return e;
	if ((e = db_examples(r->db, NULL, NULL, &ex)) != FB_OK) {
		dbrows_free(&p);
		return e;
	}
	req_gen_begin(r, &j);
	jg_str(&j, "object", "list");
	jg_int(&j, "steps_per_scenario_limit", limit);
	jg_arr(&j, "data");
	for (i = 0, pr = p.row; i < p.n; i++) {
		jg_obj(&j, NULL);
		jg_str(&j, "key", pr[i].key);
		jg_str(&j, "name", pr[i].name);
		jg_str(&j, "description", pr[i].description);
		n = preset_steps_gen(&j, pr[i].steps, &ex);
		jg_int(&j, "step_count", (long long)n);
		jg_bool(&j, "available", (int)n <= limit);
		jg_obj_end(&j);
	}
	jg_arr_end(&j);
	dbrows_free(&p);
	dbrows_free(&ex);
	return req_gen_end(r, &j, 200);
}

/*
 * POST /campaigns/{id}/scenarios/from_preset: the scenario (draft), its
 * messages from the examples and its steps, in this one transaction, so a
 * failure midway leaves nothing behind.
 */
enum fb_err
api_scenarios_from_preset(struct req *r)
{
	const char	*campaign = req_pathvar(r, "campaign_id"), *key, *name;
	struct dbrows	 p, ex;
	const struct preset_row *pr;
	const struct example_row *x;
	struct message_fields f;
	json_object	*in = NULL, *s, *k, *d;
	char		 id[UUID_STRLEN + 1], mid[UUID_STRLEN + 1];
	char		 stid[UUID_STRLEN + 1];
	int		 limit;
	size_t		 j, n;
	struct sms_count c;
	enum fb_err	 e;

	if (body_str(r, "preset_key", true, 32, &key) < 0 ||
	    body_line(r, "name", false, SCENARIO_NAME_MAX, &name) < 0)
		return FB_OK;
	if (!campaign_exists(r, campaign, &e))
		return e != FB_OK ? e : api_error(r, AC_NOT_FOUND,
		    "campaign_id");
	/* no such preset: nothing else than its alphabet can name one */
	if (!ident_ok(key, 32))
		return api_error(r, AC_PARAMETER_INVALID, "preset_key");
	if ((e = db_presets(r->db, key, &p)) != FB_OK)
		return e;
	if (p.n == 0) {
		dbrows_free(&p);
		return api_error(r, AC_PARAMETER_INVALID, "preset_key");
	}
	pr = p.row;
	in = json_tokener_parse(pr->steps);
	n = in != NULL ? json_object_array_length(in) : 0;
	if ((e = steps_limit(r->db, r->auth.tenant_id, &limit)) != FB_OK)
		goto out;
	if ((int)n > limit) {
		e = api_error(r, AC_PLAN_LIMIT_EXCEEDED, "preset_key");
		goto out;
	}
	uuid_v7(id);
	if ((e = db_scenario_insert(r->db, r->auth.tenant_id, id, campaign,
	    name != NULL ? name : pr->name, -1)) != FB_OK)
		goto out;
	for (j = 0; j < n && e == FB_OK; j++) {
		s = json_object_array_get_idx(in, j);
		json_object_object_get_ex(s, "example", &k);
		json_object_object_get_ex(s, "delay_minutes", &d);
		if ((e = db_examples(r->db, NULL, json_object_get_string(k),
		    &ex)) != FB_OK)
			break;
		if (ex.n != 1) {
			dbrows_free(&ex);
			e = FB_EDB;
			break;
		}
		x = ex.row;
		c.segments = 0;
		if (x->body != NULL)
			(void)sms_count(x->body, r->conf->base_url, &c);
		memset(&f, 0, sizeof(f));
		f.channel = x->channel;
		f.subject = x->subject;
		f.body = x->body;
		f.link_params = "{}";
		f.blocks = x->blocks;
		f.sms_segments = strcmp(x->channel,
		    "sms") == 0 ? c.segments : -1;
		uuid_v7(mid);
		e = db_message_insert(r->db, r->auth.tenant_id, mid, &f);
		dbrows_free(&ex);
		if (e != FB_OK)
			break;
		uuid_v7(stid);
		e = db_step_insert(r->db, r->auth.tenant_id, stid, id,
		    (long long)j, mid, json_object_get_int64(d));
	}
	if (e != FB_OK)
		goto out;
	r->audit_type = "scenario";
	memcpy(r->audit_id, id, sizeof(id));
	e = scenario_answer(r, id, 201);
out:
	json_object_put(in);
	dbrows_free(&p);
	return e;
}

enum fb_err
scenario_keep_sendable(struct req *r, const char *scenario,
    const char *campaign, bool *refused)
{
	char		 why[256], param[64];
	bool		 ok;
	enum fb_err	 e;

	*refused = false;
	if ((e = scenario_ready(r->db, r->conf, r->auth.tenant_id, scenario,
	    campaign, &ok, why, sizeof(why), param, sizeof(param))) != FB_OK)
		return e;
	if (ok)
		return FB_OK;
	logx(LOG_INFO, "active scenario %s would not be sendable: %s", scenario,
	    why);
	*refused = true;
	return api_error(r, AC_SCENARIO_NOT_SENDABLE, param);
}
