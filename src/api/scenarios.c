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
#include "../sms.h"
#include "../store.h"

#define SCENARIO_NAME_MAX	200
#define DELAY_MAX		43200	/* 30 days */
#define WAIT_MIN		1
#define WAIT_MAX		10080

static json_object *
scenario_json(const struct dbres *s, unsigned i, const struct dbres *steps)
{
	json_object	*o = json_object_new_object(), *a, *st;
	unsigned	 j;

	jadd_str(o, "id", dbres_get(s, i, SCN_C_ID));
	jadd_str(o, "object", "scenario");
	jadd_str(o, "campaign_id", dbres_get(s, i, SCN_C_CAMPAIGN));
	jadd_str(o, "name", dbres_get(s, i, SCN_C_NAME));
	jadd_str(o, "status", dbres_get(s, i, SCN_C_STATUS));
	if (dbres_get(s, i, SCN_C_WAIT) != NULL)
		jadd_int(o, "abandon_wait_minutes", dbres_int(s, i, SCN_C_WAIT));
	else
		jadd_str(o, "abandon_wait_minutes", NULL);
	a = json_object_new_array();
	for (j = 0; steps != NULL && j < steps->nrows; j++) {
		st = json_object_new_object();
		jadd_str(st, "id", dbres_get(steps, j, STEP_C_ID));
		jadd_int(st, "position", dbres_int(steps, j, STEP_C_POSITION) + 1);
		jadd_str(st, "message_id", dbres_get(steps, j, STEP_C_MESSAGE));
		jadd_str(st, "channel", dbres_get(steps, j, STEP_C_CHANNEL));
		jadd_int(st, "delay_minutes", dbres_int(steps, j, STEP_C_DELAY));
		json_object_array_add(a, st);
	}
	json_object_object_add(o, "steps", a);
	jadd_int(o, "step_count", steps != NULL ? steps->nrows : 0);
	jadd_time(o, "created_at", dbres_get(s, i, SCN_C_CREATED));
	jadd_time(o, "updated_at", dbres_get(s, i, SCN_C_UPDATED));
	return o;
}

static enum fb_err
scenario_load(struct req *r, const char *id, struct dbres *s)
{
	enum fb_err	 e;

	if ((e = db_sq(r->db, SQ_SCN_GET, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(id)), s)) != FB_OK)
		return e;
	if (s->nrows == 0) {
		dbres_free(s);
		return FB_ENOTFOUND;
	}
	return FB_OK;
}

static enum fb_err
scenario_answer(struct req *r, const char *id, int status)
{
	struct dbres	 s, st;
	enum fb_err	 e;

	e = scenario_load(r, id, &s);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "scenario_id");
	if (e != FB_OK)
		return e;
	if ((e = db_sq(r->db, SQ_STEPS_LIST, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(id)), &st)) != FB_OK) {
		dbres_free(&s);
		return e;
	}
	e = req_json(r, status, scenario_json(&s, 0, &st));
	dbres_free(&s);
	dbres_free(&st);
	return e;
}

/* The tenant's limit on steps per scenario (contract: Limits). */
static enum fb_err
steps_limit(struct db *db, const char *tenant, int *limit)
{
	struct dbres	 p;
	enum plan	 pl = PLAN_FREE;
	enum fb_err	 e;

	if ((e = db_sq(db, SQ_PLAN, DBPARAMS(P_STR(tenant)), &p)) != FB_OK)
		return e;
	if (p.nrows == 1 && !plan_parse(dbres_get(&p, 0, 0), &pl))
		pl = PLAN_FREE;
	dbres_free(&p);
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
	struct dbres	 s, st;
	json_object	*o, *data;
	unsigned	 i;
	enum fb_err	 e;

	if (!campaign_exists(r, req_pathvar(r, "campaign_id"), &e))
		return e != FB_OK ? e : api_error(r, AC_NOT_FOUND, "campaign_id");
	if ((e = db_sq(r->db, SQ_SCN_LIST, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(req_pathvar(r, "campaign_id"))), &s)) != FB_OK)
		return e;
	data = json_object_new_array();
	for (i = 0; i < s.nrows && e == FB_OK; i++) {
		if ((e = db_sq(r->db, SQ_STEPS_LIST, DBPARAMS(P_STR(r->auth.tenant_id),
		    P_STR(dbres_get(&s, i, SCN_C_ID))), &st)) != FB_OK)
			break;
		json_object_array_add(data, scenario_json(&s, i, &st));
		dbres_free(&st);
	}
	dbres_free(&s);
	if (e != FB_OK) {
		json_object_put(data);
		return e;
	}
	o = json_object_new_object();
	jadd_str(o, "object", "list");
	json_object_object_add(o, "data", data);
	return req_json(r, 200, o);
}

enum fb_err
api_scenarios_create(struct req *r)
{
	const char	*campaign = req_pathvar(r, "campaign_id"), *name, *status;
	long long	 wait = 0;
	char		 id[UUID_STRLEN + 1];
	int		 has_wait;
	enum fb_err	 e;

	if (body_str(r, "name", true, SCENARIO_NAME_MAX, &name) < 0 ||
	    body_str(r, "status", false, 16, &status) < 0 ||
	    (has_wait = body_int(r, "abandon_wait_minutes", false, WAIT_MIN,
	    WAIT_MAX, &wait)) < 0)
		return FB_OK;
	if (name[strspn(name, " \t")] == '\0')
		return api_error(r, AC_PARAMETER_INVALID, "name");
	if (status != NULL && strcmp(status, "draft") != 0 &&
	    strcmp(status, "active") != 0 && strcmp(status, "paused") != 0)
		return api_error(r, AC_PARAMETER_INVALID, "status");
	if (status != NULL && strcmp(status, "draft") != 0)
		return api_error(r, AC_API_KEY_DRAFT_ONLY, "status");
	if (!campaign_exists(r, campaign, &e))
		return e != FB_OK ? e : api_error(r, AC_NOT_FOUND, "campaign_id");
	uuid_v7(id);
	if ((e = db_sq(r->db, SQ_SCN_INSERT, DBPARAMS(P_STR(id),
	    P_STR(r->auth.tenant_id), P_STR(campaign), P_STR(name),
	    has_wait ? P_INT(wait) : P_NULL), NULL)) != FB_OK)
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
	long long	 wait = 0;
	struct dbres	 s;
	int		 w;
	enum fb_err	 e;

	if (body_str(r, "name", false, SCENARIO_NAME_MAX, &name) < 0 ||
	    body_str(r, "status", false, 16, &status) < 0 ||
	    (w = body_int(r, "abandon_wait_minutes", false, WAIT_MIN, WAIT_MAX, &wait)) < 0)
		return FB_OK;
	if (name != NULL && name[strspn(name, " \t")] == '\0')
		return api_error(r, AC_PARAMETER_INVALID, "name");
	if (status != NULL && strcmp(status, "draft") != 0 &&
	    strcmp(status, "active") != 0 && strcmp(status, "paused") != 0)
		return api_error(r, AC_PARAMETER_INVALID, "status");
	e = scenario_load(r, id, &s);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "scenario_id");
	if (e != FB_OK)
		return e;
	if (status != NULL && strcmp(status, dbres_get(&s, 0, SCN_C_STATUS)) != 0) {
		dbres_free(&s);
		return api_error(r, AC_SESSION_REQUIRED, "status");
	}
	dbres_free(&s);
	if ((e = db_sq(r->db, SQ_SCN_UPDATE, DBPARAMS(P_STR(name),
	    P_INT(body_has(r, "abandon_wait_minutes")), w > 0 ? P_INT(wait) : P_NULL,
	    P_STR(r->auth.tenant_id), P_STR(id)), NULL)) != FB_OK)
		return e;
	r->audit_type = "scenario";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	return scenario_answer(r, id, 200);
}

enum fb_err
api_scenarios_delete(struct req *r)
{
	const char	*id = req_pathvar(r, "scenario_id");
	struct dbres	 s;
	enum fb_err	 e;

	e = scenario_load(r, id, &s);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "scenario_id");
	if (e != FB_OK)
		return e;
	if (strcmp(dbres_get(&s, 0, SCN_C_STATUS), "active") == 0) {
		dbres_free(&s);
		return api_error(r, AC_SCENARIO_ACTIVE, NULL);
	}
	dbres_free(&s);
	if ((e = db_sq(r->db, SQ_STEPS_DELETE, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(id)), NULL)) != FB_OK ||
	    (e = db_sq(r->db, SQ_SCN_DELETE, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(id)), NULL)) != FB_OK)
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
	struct dbres	 s, m;
	char		 param[64], sid[UUID_STRLEN + 1];
	char		 campaign[UUID_STRLEN + 1];
	size_t		 i, n, had;
	int		 limit;
	bool		 active, refused = false;
	enum fb_err	 e;

	if (!json_object_object_get_ex(r->json, "steps", &steps) || steps == NULL)
		return api_error(r, AC_PARAMETER_MISSING, "steps");
	if (!json_object_is_type(steps, json_type_array))
		return api_error(r, AC_PARAMETER_INVALID, "steps");
	n = json_object_array_length(steps);
	e = scenario_load(r, id, &s);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "scenario_id");
	if (e != FB_OK)
		return e;
	active = strcmp(dbres_get(&s, 0, SCN_C_STATUS), "active") == 0;
	snprintf(campaign, sizeof(campaign), "%s", dbres_get(&s, 0, SCN_C_CAMPAIGN));
	dbres_free(&s);
	for (i = 0; i < n; i++) {
		it = json_object_array_get_idx(steps, i);
		snprintf(param, sizeof(param), "steps[%zu]", i);
		if (!json_object_is_type(it, json_type_object))
			return api_error(r, AC_PARAMETER_INVALID, param);
		snprintf(param, sizeof(param), "steps[%zu].message_id", i);
		if (!json_object_object_get_ex(it, "message_id", &v) || v == NULL)
			return api_error(r, AC_PARAMETER_MISSING, param);
		if (!json_object_is_type(v, json_type_string) ||
		    !uuid_valid(json_object_get_string(v)))
			return api_error(r, AC_PARAMETER_INVALID, param);
		snprintf(sid, sizeof(sid), "%s", json_object_get_string(v));
		uuid_lower(sid);
		if ((e = db_sq(r->db, SQ_MSG_GET, DBPARAMS(P_STR(r->auth.tenant_id),
		    P_STR(sid)), &m)) != FB_OK)
			return e;
		if (m.nrows == 0) {
			dbres_free(&m);
			return api_error(r, AC_PARAMETER_INVALID, param);
		}
		dbres_free(&m);
		snprintf(param, sizeof(param), "steps[%zu].delay_minutes", i);
		if (!json_object_object_get_ex(it, "delay_minutes", &v) || v == NULL)
			return api_error(r, AC_PARAMETER_MISSING, param);
		if (!json_object_is_type(v, json_type_int) ||
		    json_object_get_int64(v) < 0 || json_object_get_int64(v) > DELAY_MAX)
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
	if ((e = db_sq(r->db, SQ_STEPS_LIST, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(id)), &s)) != FB_OK)
		return e;
	had = s.nrows;
	dbres_free(&s);
	if ((e = db_sq(r->db, SQ_STEPS_TRIM, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(id), P_INT((long long)n)), NULL)) != FB_OK)
		return e;
	for (i = 0; i < n && e == FB_OK; i++) {
		it = json_object_array_get_idx(steps, i);
		json_object_object_get_ex(it, "message_id", &v);
		snprintf(sid, sizeof(sid), "%s", json_object_get_string(v));
		uuid_lower(sid);
		mid = sid;
		json_object_object_get_ex(it, "delay_minutes", &v);
		if (i < had)
			e = db_sq(r->db, SQ_STEP_UPDATE, DBPARAMS(P_STR(mid),
			    P_INT(json_object_get_int64(v)), P_STR(r->auth.tenant_id),
			    P_STR(id), P_INT((long long)i)), NULL);
		else {
			char	 stid[UUID_STRLEN + 1];

			uuid_v7(stid);
			e = db_sq(r->db, SQ_STEP_INSERT, DBPARAMS(P_STR(stid),
			    P_STR(r->auth.tenant_id), P_STR(id), P_INT((long long)i),
			    P_STR(mid), P_INT(json_object_get_int64(v))), NULL);
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
	struct dbres	 s, st;
	char		 mid[UUID_STRLEN + 1], stid[UUID_STRLEN + 1];
	unsigned	 i;
	enum fb_err	 e;

	if ((e = scenario_load(r, from, &s)) != FB_OK)
		return e;
	uuid_v7(id);
	e = db_sq(r->db, SQ_SCN_INSERT, DBPARAMS(P_STR(id), P_STR(r->auth.tenant_id),
	    P_STR(to), P_STR(name != NULL ? name : dbres_get(&s, 0, SCN_C_NAME)),
	    dbres_get(&s, 0, SCN_C_WAIT) != NULL ? P_INT(dbres_int(&s, 0, SCN_C_WAIT)) :
	    P_NULL), NULL);
	dbres_free(&s);
	if (e != FB_OK)
		return e;
	if ((e = db_sq(r->db, SQ_STEPS_LIST, DBPARAMS(P_STR(r->auth.tenant_id),
	    P_STR(from)), &st)) != FB_OK)
		return e;
	for (i = 0; i < st.nrows && e == FB_OK; i++) {
		if ((e = message_copy(r, dbres_get(&st, i, STEP_C_MESSAGE), mid)) != FB_OK)
			break;
		uuid_v7(stid);
		e = db_sq(r->db, SQ_STEP_INSERT, DBPARAMS(P_STR(stid),
		    P_STR(r->auth.tenant_id), P_STR(id), P_INT(i), P_STR(mid),
		    P_INT(dbres_int(&st, i, STEP_C_DELAY))), NULL);
	}
	dbres_free(&st);
	return e;
}

enum fb_err
api_scenarios_duplicate(struct req *r)
{
	const char	*from = req_pathvar(r, "scenario_id"), *cid, *name;
	char		 id[UUID_STRLEN + 1], to[UUID_STRLEN + 1];
	struct dbres	 s;
	enum fb_err	 e;

	if (body_str(r, "campaign_id", false, UUID_STRLEN, &cid) < 0 ||
	    body_str(r, "name", false, SCENARIO_NAME_MAX, &name) < 0)
		return FB_OK;
	if (cid != NULL && !uuid_valid(cid))
		return api_error(r, AC_PARAMETER_INVALID, "campaign_id");
	e = scenario_load(r, from, &s);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "scenario_id");
	if (e != FB_OK)
		return e;
	snprintf(to, sizeof(to), "%s", cid != NULL ? cid : dbres_get(&s, 0, SCN_C_CAMPAIGN));
	uuid_lower(to);
	dbres_free(&s);
	/* another campaign of the same tenant; a foreign one is 404 */
	if (!campaign_exists(r, to, &e))
		return e != FB_OK ? e : api_error(r, AC_NOT_FOUND, "campaign_id");
	if ((e = scenario_copy(r, from, to, name, id)) != FB_OK)
		return e;
	r->audit_type = "scenario";
	memcpy(r->audit_id, id, sizeof(id));
	return scenario_answer(r, id, 201);
}

enum fb_err
api_scenario_presets(struct req *r)
{
	struct dbres	 p, ex;
	json_object	*o, *data, *x, *steps, *st, *in;
	int		 limit;
	size_t		 j, n;
	unsigned	 i;
	enum fb_err	 e;

	if ((e = steps_limit(r->db, r->auth.tenant_id, &limit)) != FB_OK)
		return e;
	if ((e = db_sq(r->db, SQ_PRESETS, DBPARAMS(P_NULL, P_NULL), &p)) != FB_OK)
		return e;
	if ((e = db_sq(r->db, SQ_EXAMPLES, DBPARAMS(P_NULL, P_NULL, P_NULL, P_NULL),
	    &ex)) != FB_OK) {
		dbres_free(&p);
		return e;
	}
	data = json_object_new_array();
	for (i = 0; i < p.nrows; i++) {
		x = json_object_new_object();
		jadd_str(x, "key", dbres_get(&p, i, 0));
		jadd_str(x, "name", dbres_get(&p, i, 1));
		jadd_str(x, "description", dbres_get(&p, i, 2));
		in = json_tokener_parse(dbres_get(&p, i, 3));
		n = in != NULL ? json_object_array_length(in) : 0;
		steps = json_object_new_array();
		for (j = 0; j < n; j++) {
			json_object *s = json_object_array_get_idx(in, j), *k, *d;
			unsigned     q;

			json_object_object_get_ex(s, "example", &k);
			json_object_object_get_ex(s, "delay_minutes", &d);
			st = json_object_new_object();
			jadd_int(st, "position", (long long)j + 1);
			jadd_str(st, "example_key", json_object_get_string(k));
			for (q = 0; q < ex.nrows; q++)
				if (strcmp(dbres_get(&ex, q, 0), json_object_get_string(k)) == 0)
					jadd_str(st, "channel", dbres_get(&ex, q, 1));
			jadd_int(st, "delay_minutes", json_object_get_int64(d));
			json_object_array_add(steps, st);
		}
		json_object_put(in);
		json_object_object_add(x, "steps", steps);
		jadd_int(x, "step_count", (long long)n);
		jadd_bool(x, "available", (int)n <= limit);
		json_object_array_add(data, x);
	}
	dbres_free(&p);
	dbres_free(&ex);
	o = json_object_new_object();
	jadd_str(o, "object", "list");
	jadd_int(o, "steps_per_scenario_limit", limit);
	json_object_object_add(o, "data", data);
	return req_json(r, 200, o);
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
	struct dbres	 p, ex;
	json_object	*in = NULL, *s, *k, *d;
	char		 id[UUID_STRLEN + 1], mid[UUID_STRLEN + 1], stid[UUID_STRLEN + 1];
	int		 limit;
	size_t		 j, n;
	struct sms_count c;
	enum fb_err	 e;

	if (body_str(r, "preset_key", true, 32, &key) < 0 ||
	    body_str(r, "name", false, SCENARIO_NAME_MAX, &name) < 0)
		return FB_OK;
	if (!campaign_exists(r, campaign, &e))
		return e != FB_OK ? e : api_error(r, AC_NOT_FOUND, "campaign_id");
	/* no such preset: nothing else than its alphabet can name one */
	if (!ident_ok(key, 32))
		return api_error(r, AC_PARAMETER_INVALID, "preset_key");
	if ((e = db_sq(r->db, SQ_PRESETS, DBPARAMS(P_STR(key), P_STR(key)), &p)) != FB_OK)
		return e;
	if (p.nrows == 0) {
		dbres_free(&p);
		return api_error(r, AC_PARAMETER_INVALID, "preset_key");
	}
	in = json_tokener_parse(dbres_get(&p, 0, 3));
	n = in != NULL ? json_object_array_length(in) : 0;
	if ((e = steps_limit(r->db, r->auth.tenant_id, &limit)) != FB_OK)
		goto out;
	if ((int)n > limit) {
		e = api_error(r, AC_PLAN_LIMIT_EXCEEDED, "preset_key");
		goto out;
	}
	uuid_v7(id);
	if ((e = db_sq(r->db, SQ_SCN_INSERT, DBPARAMS(P_STR(id),
	    P_STR(r->auth.tenant_id), P_STR(campaign),
	    P_STR(name != NULL ? name : dbres_get(&p, 0, 1)), P_NULL), NULL)) != FB_OK)
		goto out;
	for (j = 0; j < n && e == FB_OK; j++) {
		s = json_object_array_get_idx(in, j);
		json_object_object_get_ex(s, "example", &k);
		json_object_object_get_ex(s, "delay_minutes", &d);
		if ((e = db_sq(r->db, SQ_EXAMPLES, DBPARAMS(P_NULL, P_NULL,
		    P_STR(json_object_get_string(k)), P_STR(json_object_get_string(k))),
		    &ex)) != FB_OK)
			break;
		if (ex.nrows != 1) {
			dbres_free(&ex);
			e = FB_EDB;
			break;
		}
		c.segments = 0;
		if (dbres_get(&ex, 0, 5) != NULL)
			(void)sms_count(dbres_get(&ex, 0, 5), r->conf->base_url, &c);
		uuid_v7(mid);
		e = db_sq(r->db, SQ_MSG_INSERT, DBPARAMS(P_STR(mid), P_STR(r->auth.tenant_id),
		    P_STR(dbres_get(&ex, 0, 1)), P_STR(dbres_get(&ex, 0, 6)),
		    P_STR(dbres_get(&ex, 0, 5)), P_NULL, P_NULL, P_NULL, P_STR("{}"),
		    P_STR(dbres_get(&ex, 0, 7)),
		    strcmp(dbres_get(&ex, 0, 1), "sms") == 0 ? P_INT(c.segments) : P_NULL),
		    NULL);
		dbres_free(&ex);
		if (e != FB_OK)
			break;
		uuid_v7(stid);
		e = db_sq(r->db, SQ_STEP_INSERT, DBPARAMS(P_STR(stid),
		    P_STR(r->auth.tenant_id), P_STR(id), P_INT((long long)j), P_STR(mid),
		    P_INT(json_object_get_int64(d))), NULL);
	}
	if (e != FB_OK)
		goto out;
	r->audit_type = "scenario";
	memcpy(r->audit_id, id, sizeof(id));
	e = scenario_answer(r, id, 201);
out:
	json_object_put(in);
	dbres_free(&p);
	return e;
}

/*
 * What activating a scenario needs (contract: States, Scenario): steps,
 * no other active scenario in the campaign, and every message sendable --
 * an SMS with a body within 660 characters, an email with a subject and
 * content, and nowhere the unreplaced store-name placeholder.  Sets *ok;
 * when false, `why` holds the reason and `param` the first offending
 * field ("steps", "steps[2].body").
 */
enum fb_err
scenario_ready(struct db *db, const struct conf *conf, const char *tenant,
    const char *scenario, const char *campaign, bool *ok, char *why,
    size_t whysz, char *param, size_t paramsz)
{
	struct dbres	 m, other;
	struct sms_count c;
	unsigned	 i;
	const char	*ch, *subj, *body, *blocks;
	enum fb_err	 e;

	*ok = false;
	if ((e = db_sq(db, SQ_STEP_MESSAGES, DBPARAMS(P_STR(tenant),
	    P_STR(scenario)), &m)) != FB_OK)
		return e;
	if (m.nrows == 0) {
		snprintf(why, whysz, "the scenario has no steps");
		snprintf(param, paramsz, "steps");
		dbres_free(&m);
		return FB_OK;
	}
	for (i = 0; i < m.nrows; i++) {
		ch = dbres_get(&m, i, 2);
		subj = dbres_get(&m, i, 3);
		body = dbres_get(&m, i, 4);
		blocks = dbres_get(&m, i, 5);
#define BAD(f, ...) do { snprintf(param, paramsz, "steps[%u].%s", i, f); \
	snprintf(why, whysz, __VA_ARGS__); dbres_free(&m); return FB_OK; } while (0)
		if ((subj != NULL && strstr(subj, STORE_PLACEHOLDER) != NULL))
			BAD("subject", "step %u: the subject still holds %s", i + 1, STORE_PLACEHOLDER);
		if ((body != NULL && strstr(body, STORE_PLACEHOLDER) != NULL))
			BAD("body", "step %u: the message still holds %s", i + 1, STORE_PLACEHOLDER);
		if ((blocks != NULL && strstr(blocks, STORE_PLACEHOLDER) != NULL))
			BAD("blocks", "step %u: the blocks still hold %s", i + 1, STORE_PLACEHOLDER);
		if (strcmp(ch, "sms") == 0) {
			if (body == NULL || *body == '\0')
				BAD("body", "step %u: the SMS has no body", i + 1);
			if (!sms_count(body, conf->base_url, &c) || c.characters > SMS_MAX_CHARS)
				BAD("body", "step %u: the SMS is longer than %d characters",
				    i + 1, SMS_MAX_CHARS);
		} else {
			if (subj == NULL || *subj == '\0')
				BAD("subject", "step %u: the email has no subject", i + 1);
			if ((blocks == NULL || strcmp(blocks, "[]") == 0) &&
			    dbres_get(&m, i, 6) == NULL)
				BAD("blocks", "step %u: the email has no content", i + 1);
		}
#undef BAD
	}
	dbres_free(&m);
	if ((e = db_sq(db, SQ_SCN_OTHER_ACTIVE, DBPARAMS(P_STR(tenant),
	    P_STR(campaign), P_STR(scenario)), &other)) != FB_OK)
		return e;
	if (other.nrows > 0) {
		snprintf(why, whysz, "scenario '%s' (%s) is already active in this "
		    "campaign; pause it first", dbres_get(&other, 0, 1),
		    dbres_get(&other, 0, 0));
		snprintf(param, paramsz, "status");
		dbres_free(&other);
		return FB_OK;
	}
	dbres_free(&other);
	*ok = true;
	return FB_OK;
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
