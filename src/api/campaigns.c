/*
 * Campaigns (contract: Campaign, CampaignListItemOut, CampaignIn; States,
 * Campaign; Endpoints, Campaigns).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../api.h"
#include "../publish.h"
#include "../db/store.h"

#define CAMPAIGN_NAME_MAX	200
#define WAIT_DEFAULT		30
/*
 * The takeover check's time budget, wall clock: past it the save goes on
 * with the warnings found so far (formback.fcgi(8), URL rules).
 */
#define TAKEOVER_BUDGET_MS	200

/* The one writer of a campaign's common fields (list row and detail). */
static void
campaign_gen(struct jgen *j, const struct campaign_row *c)
{
	jg_str(j, "id", c->id);
	jg_str(j, "object", "campaign");
	jg_str(j, "site_id", c->site_id);
	jg_str(j, "key", c->key);
	jg_str(j, "name", c->name);
	jg_str(j, "product_name", c->product_name);
	jg_str(j, "status", c->status);
	jg_int(j, "abandon_wait_minutes", c->abandon_wait_minutes);
	jg_time(j, "created_at", c->created_at);
	jg_time(j, "updated_at", c->updated_at);
}

/* The campaign a one-row read gave. */
static const struct campaign_row *
campaign_of(const struct dbrows *rows)
{
	return rows->row;
}

static void
url_rules_gen(struct jgen *j, const struct dbrows *rr)
{
	const struct url_rule_row *u = rr->row;
	size_t		 i;

	jg_arr(j, "url_rules");
	for (i = 0; i < rr->n; i++) {
		jg_obj(j, NULL);
		jg_str(j, "id", u[i].id);
		jg_str(j, "role", u[i].role);
		jg_str(j, "match_type", u[i].match_type);
		jg_str(j, "pattern", u[i].pattern);
		if (u[i].priority >= 0)
			jg_int(j, "priority", u[i].priority);
		else
			jg_str(j, "priority", NULL);
		jg_int(j, "position", u[i].position);
		jg_obj_end(j);
	}
	jg_arr_end(j);
}

/* FormProfileOut; automatic detection when the campaign has no profile. */
static void
form_profile_out(struct jgen *j, const struct dbrows *p)
{
	const struct form_profile_row *f = p->n > 0 ? p->row : NULL;

	jg_obj(j, "form_profile");
	form_profile_gen(j, f);
	jg_time(j, "detected_at", f != NULL ? f->detected_at : NULL);
	jg_obj_end(j);
}

/*
 * What a save adds to its answer (CampaignDetailOut's warnings and
 * publish_failed): the takeover warnings as a JSON array's text, and the
 * site whose configuration could not be written, if any.
 */
struct save {
	struct buf	 warnings;
	bool		 failed;
	char		 site[UUID_STRLEN + 1];
};

static void
save_init(struct save *sv)
{
	memset(sv, 0, sizeof(*sv));
	buf_init(&sv->warnings, TAGCONF_MAX);
}

/*
 * The rows of campaign `id`'s detail; else FB_ENOTFOUND when it is not
 * the tenant's, or another error, with nothing to free.
 */
static enum fb_err
detail_read(struct req *r, const char *id, struct dbrows *c,
    struct dbrows *s, struct dbrows *rules, struct dbrows *prof)
{
	enum fb_err	 e;

	if ((e = db_campaign_get(r->db, r->auth.tenant_id, id, c)) != FB_OK)
		return e;
	e = db_site_get(r->db, r->auth.tenant_id, campaign_of(c)->site_id, s);
	if (e == FB_OK && (e = db_url_rules(r->db, r->auth.tenant_id, id,
	    rules)) != FB_OK)
		dbrows_free(s);
	if (e == FB_OK && (e = db_form_profile(r->db, r->auth.tenant_id, id,
	    prof)) != FB_OK) {
		dbrows_free(s);
		dbrows_free(rules);
	}
	if (e != FB_OK)
		dbrows_free(c);
	return e == FB_ENOTFOUND ? FB_EDB : e;
}

/*
 * CampaignDetailOut for campaign `id`: 404 when it is not the tenant's.
 * `sv` (NULL: a read) gives warnings and publish_failed, and is released.
 */
static enum fb_err
campaign_detail(struct req *r, const char *id, int status, struct save *sv)
{
	struct dbrows	 rules, prof, c, s;
	const struct site_row *sr;
	struct jgen	 j;
	enum fb_err	 e;

	e = detail_read(r, id, &c, &s, &rules, &prof);
	if (e != FB_OK && sv != NULL)
		buf_release(&sv->warnings);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "campaign_id");
	if (e != FB_OK)
		return e;
	req_gen_begin(r, &j);
	campaign_gen(&j, campaign_of(&c));
	sr = s.row;
	jg_obj(&j, "site");
	jg_str(&j, "id", sr->id);
	jg_str(&j, "name", sr->name);
	jg_str(&j, "domain", sr->domain);
	jg_obj_end(&j);
	url_rules_gen(&j, &rules);
	form_profile_out(&j, &prof);
	jg_raw(&j, "warnings", sv != NULL && sv->warnings.len > 0 ?
	    sv->warnings.data : "[]");
	if (sv != NULL) {
		jg_arr(&j, "publish_failed");
		if (sv->failed)
			jg_str(&j, NULL, sv->site);
		jg_arr_end(&j);
		buf_release(&sv->warnings);
	}
	dbrows_free(&c);
	dbrows_free(&s);
	dbrows_free(&rules);
	dbrows_free(&prof);
	return req_gen_end(r, &j, status);
}

enum fb_err
api_campaigns_get(struct req *r)
{
	return campaign_detail(r, req_pathvar(r, "campaign_id"), 200, NULL);
}

/* CampaignListItemOut: the common fields and the scenario counts. */
static void
campaign_row_gen(struct jgen *j, const void *row)
{
	const struct campaign_row *c = row;

	campaign_gen(j, c);
	jg_int(j, "scenario_count", c->scenario_count);
	jg_int(j, "active_scenario_count", c->active_scenario_count);
}

enum fb_err
api_campaigns_list(struct req *r)
{
	struct page	 pg;
	struct dbrows	 rows;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	if ((e = db_campaign_list(r->db, r->auth.tenant_id,
	    req_query(r, "site_id"), req_query(r, "status"),
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct campaign_row),
	    offsetof(struct campaign_row, id), campaign_row_gen, NULL);
}

static enum fb_err after_save(struct req *, const char *,
    const struct live_rules *, struct save *);

enum fb_err
api_campaigns_create(struct req *r)
{
	const char	*site, *key, *name, *product, *status;
	struct save	 sv;
	long long	 wait = WAIT_DEFAULT;
	char		 id[UUID_STRLEN + 1], site_id[UUID_STRLEN + 1];
	struct dbrows	 s;
	enum fb_err	 e;

	if (body_str(r, "site_id", true, UUID_STRLEN, &site) < 0 ||
	    body_str(r, "key", true, CAMPAIGN_KEY_MAX, &key) < 0 ||
	    body_line(r, "name", true, CAMPAIGN_NAME_MAX, &name) < 0 ||
	    body_line(r, "product_name", false, CAMPAIGN_NAME_MAX,
	    &product) < 0 ||
	    body_str(r, "status", false, 16, &status) < 0 ||
	    body_int(r, "abandon_wait_minutes", false,
	    ABANDON_WAIT_MIN, ABANDON_WAIT_MAX, &wait) < 0)
		return FB_OK;
	if (!uuid_valid(site))
		return api_error(r, AC_PARAMETER_INVALID, "site_id");
	if (!ident_ok(key, CAMPAIGN_KEY_MAX))
		return api_error(r, AC_PARAMETER_INVALID, "key");
	if (text_blank(name))
		return api_error(r, AC_PARAMETER_INVALID, "name");
	if (status != NULL && strcmp(status, "active") != 0 &&
	    strcmp(status, "paused") != 0 && strcmp(status, "archived") != 0)
		return api_error(r, AC_PARAMETER_INVALID, "status");
	/* contract: CampaignIn, status; States, Campaign */
	if (!r->auth.session && status != NULL && strcmp(status, "paused") != 0)
		return api_error(r, AC_API_KEY_DRAFT_ONLY, "status");
	if (status == NULL)
		status = r->auth.session ? "active" : "paused";
	snprintf(site_id, sizeof(site_id), "%s", site);
	uuid_lower(site_id);
	e = db_site_get(r->db, r->auth.tenant_id, site_id, &s);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "site_id");
	if (e != FB_OK)
		return e;
	dbrows_free(&s);
	uuid_v7(id);
	e = db_campaign_insert(r->db, id, r->auth.tenant_id, site_id, key, name,
	    product, status, wait);
	if (e == FB_EDUP)
		return api_error(r, AC_CAMPAIGN_KEY_TAKEN, "key");
	if (e != FB_OK)
		return e;
	r->audit_type = "campaign";
	memcpy(r->audit_id, id, sizeof(id));
	/* a never-run paused campaign is not published (design 2) */
	if (strcmp(status, "paused") == 0)
		return campaign_detail(r, id, 201, NULL);
	/* a session's: published now; without rules it takes no page over */
	if ((e = after_save(r, id, NULL, &sv)) != FB_OK) {
		buf_release(&sv.warnings);
		return e;
	}
	return campaign_detail(r, id, 201, &sv);
}

/* The takeover check of one save (takeover_warnings()). */
struct takeover {
	const char	*campaign, *key, *name;	/* the saved campaign */
	const struct live_rules *before;	/* the rules before the save */
	struct live_rules lr;			/* the rules after it */
	struct timespec	 t0;
	bool		 spent;			/* past its time budget */
};

/* What the save took from one other campaign. */
struct taken {
	unsigned	 count;			/* pages */
	unsigned	 nex;
	char		 ex[3][URL_MAX + 1];	/* the first of them */
	/* the rule that took the last */
	long		 rule;
};

/* Past the check's time budget, whatever the rules (issue 11)? */
static bool
takeover_spent(struct takeover *tk)
{
	struct timespec	 t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	if ((t.tv_sec - tk->t0.tv_sec) * 1000 +
	    (t.tv_nsec - tk->t0.tv_nsec) / 1000000 <= TAKEOVER_BUDGET_MS)
		return false;
	logx(LOG_WARN, "takeover check of campaign %s stopped at its %d ms "
	    "budget", tk->campaign, TAKEOVER_BUDGET_MS);
	return tk->spent = true;
}

/* The pages of campaign `lost` this save takes over, into tn. */
static enum fb_err
takeover_pages(struct req *r, struct takeover *tk, const char *lost,
    struct taken *tn)
{
	struct dbrows	 pages;
	const struct page_row *pg;
	struct url_loc	 loc;
	size_t		 j, evaluated;
	long		 hit, prev;
	enum fb_err	 e;

	memset(tn, 0, sizeof(*tn));
	if ((e = db_takeover_pages(r->db, r->auth.tenant_id, lost, &pages)) !=
	    FB_OK)
		return e;
	for (j = 0, pg = pages.row; j < pages.n && !takeover_spent(tk); j++) {
		if (!url_parse(pg[j].url, &loc))
			continue;
		hit = rules_decide(tk->lr.rules, tk->lr.n, &loc, &evaluated);
		if (hit < 0 || strcmp(tk->lr.rules[hit].campaign, tk->key) != 0)
			continue;
		/* taken over by this save, not by an earlier one */
		prev = rules_decide(tk->before->rules, tk->before->n, &loc,
		    &evaluated);
		if (prev >= 0 &&
		    strcmp(tk->before->rules[prev].campaign, tk->key) == 0)
			continue;
		if (tn->count++ < 3)
			snprintf(tn->ex[tn->nex++], sizeof(tn->ex[0]), "%s",
			    pg[j].url);
		tn->rule = hit;
	}
	dbrows_free(&pages);
	return FB_OK;
}

/* UrlTakeoverWarning (contract: Errors) of what tn took from cr. */
static void
warning_gen(struct jgen *j, const struct takeover *tk,
    const struct campaign_row *cr, const struct taken *tn)
{
	unsigned	 i;

	jg_obj(j, NULL);
	jg_str(j, "code", "url_takeover");
	jg_obj(j, "lost_campaign");
	jg_str(j, "id", cr->id);
	jg_str(j, "key", cr->key);
	jg_str(j, "name", cr->name);
	jg_obj_end(j);
	jg_obj(j, "taking_campaign");
	jg_str(j, "id", tk->campaign);
	jg_str(j, "key", tk->key);
	jg_str(j, "name", tk->name);
	jg_obj_end(j);
	jg_int(j, "page_count", tn->count);
	jg_arr(j, "example_pages");
	for (i = 0; i < tn->nex; i++)
		jg_str(j, NULL, tn->ex[i]);
	jg_arr_end(j);
	match_rule_gen(j, "rule", &tk->lr.rules[tn->rule]);
	jg_obj_end(j);
}

/*
 * One warning: into the array open in `out`, and as the notice to the
 * tenant's owners and admins in the outbox and an audit row.
 */
static enum fb_err
takeover_warn(struct req *r, const struct takeover *tk,
    const struct campaign_row *cr, const struct taken *tn, struct jgen *out)
{
	struct buf	 text;
	struct jgen	 j;
	json_object	*mail;
	enum fb_err	 e;

	buf_init(&text, TAGCONF_MAX);
	jgen_begin(&j, &text);
	warning_gen(&j, tk, cr, tn);
	if ((e = jgen_end(&j)) != FB_OK) {
		buf_release(&text);
		return e;
	}
	jg_raw(out, NULL, text.data);
	mail = json_object_new_object();
	json_object_object_add(mail, "warning", json_tokener_parse(text.data));
	e = db_opmail_add(r->db, r->auth.tenant_id, "url_takeover", mail);
	if (e == FB_OK)
		e = db_audit_add(r->db, r->auth.tenant_id, req_actor_type(r),
		    req_actor_id(r), r->request_id, "url_takeover", "campaign",
		    tk->campaign, text.data);
	json_object_put(mail);
	buf_release(&text);
	return e;
}

/*
 * URL takeover (contract: Errors, last paragraph): pages an active
 * campaign of the site handled in the last 30 days that the live rules
 * now give to tk's campaign and the rules before this save did not.  One
 * warning per campaign that lost pages, written into the array open in
 * `out` (takeover_warn()); the notices and audit rows are written in
 * this transaction, so a dry run leaves neither.
 */
static enum fb_err
takeover_warnings(struct req *r, const char *site, struct takeover *tk,
    struct jgen *out)
{
	struct dbrows	 camps;
	const struct campaign_row *cr;
	struct taken	 tn;
	size_t		 i;
	enum fb_err	 e;

	clock_gettime(CLOCK_MONOTONIC, &tk->t0);
	if ((e = live_rules_load(r->db, r->auth.tenant_id, site, &tk->lr)) !=
	    FB_OK)
		return e;
	if ((e = db_campaign_list(r->db, r->auth.tenant_id, site, "active",
	    NULL, 1000, &camps)) != FB_OK) {
		live_rules_free(&tk->lr);
		return e;
	}
	for (i = 0, cr = camps.row; i < camps.n && e == FB_OK && !tk->spent;
	    i++) {
		if (strcmp(cr[i].id, tk->campaign) == 0)
			continue;
		if ((e = takeover_pages(r, tk, cr[i].id, &tn)) == FB_OK &&
		    tn.count > 0)
			e = takeover_warn(r, tk, &cr[i], &tn, out);
	}
	dbrows_free(&camps);
	live_rules_free(&tk->lr);
	return e;
}

/*
 * After a save: publish the site's configuration and compute takeover
 * warnings against the live rules `before` the save (NULL: the save
 * changed no rule, so it took nothing over), into sv (save_init()ed
 * here; campaign_detail() releases it, else the caller).
 */
static enum fb_err
after_save(struct req *r, const char *campaign,
    const struct live_rules *before, struct save *sv)
{
	struct dbrows	 c;
	struct takeover	 tk;
	struct jgen	 j;
	enum fb_err	 e;

	save_init(sv);
	if ((e = db_campaign_get(r->db, r->auth.tenant_id, campaign, &c)) !=
	    FB_OK)
		return e;
	snprintf(sv->site, sizeof(sv->site), "%s", campaign_of(&c)->site_id);
	jgen_begin(&j, &sv->warnings);
	jg_arr(&j, NULL);
	if (before != NULL) {
		memset(&tk, 0, sizeof(tk));
		tk.campaign = campaign;
		tk.key = campaign_of(&c)->key;
		tk.name = campaign_of(&c)->name;
		tk.before = before;
		e = takeover_warnings(r, sv->site, &tk, &j);
	}
	jg_arr_end(&j);
	dbrows_free(&c);
	if (e == FB_OK)
		e = jgen_end(&j);
	if (e != FB_OK)
		return e;
	sv->failed = !publish_site(r, r->auth.tenant_id, sv->site);
	return FB_OK;
}

static enum fb_err campaign_ready(struct req *, const char *, bool *);

/* PATCH /campaigns/{id} (contract: CampaignPatch; States, Campaign). */
enum fb_err
api_campaigns_update(struct req *r)
{
	const char	*id = req_pathvar(r,
	    "campaign_id"), *name, *product, *status;
	long long	 wait = 0;
	struct dbrows	 c;
	struct live_rules before;
	struct save	 sv;
	char		 site[UUID_STRLEN + 1], owner[UUID_STRLEN + 1];
	bool		 set_product, change, ready;
	enum fb_err	 e;

	if (body_line(r, "name", false, CAMPAIGN_NAME_MAX, &name) < 0 ||
	    body_line(r, "product_name", false, CAMPAIGN_NAME_MAX,
	    &product) < 0 ||
	    body_str(r, "status", false, 16, &status) < 0 ||
	    body_int(r, "abandon_wait_minutes", false,
	    ABANDON_WAIT_MIN, ABANDON_WAIT_MAX, &wait) < 0)
		return FB_OK;
	if (name != NULL && text_blank(name))
		return api_error(r, AC_PARAMETER_INVALID, "name");
	if (status != NULL && strcmp(status, "active") != 0 &&
	    strcmp(status, "paused") != 0 && strcmp(status, "archived") != 0)
		return api_error(r, AC_PARAMETER_INVALID, "status");
	e = db_campaign_get(r->db, r->auth.tenant_id, id, &c);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "campaign_id");
	if (e != FB_OK)
		return e;
	/* a status change needs a session (contract: Authentication 9) */
	change = status != NULL && strcmp(status, campaign_of(&c)->status) != 0;
	snprintf(site, sizeof(site), "%s", campaign_of(&c)->site_id);
	dbrows_free(&c);
	if (change && !r->auth.session)
		return api_error(r, AC_SESSION_REQUIRED, "status");
	if (change && strcmp(status, "active") == 0) {
		if ((e = campaign_ready(r, id, &ready)) != FB_OK || !ready)
			return e;
	}
	set_product = body_has(r, "product_name");
	if ((e = db_campaign_update(r->db, r->auth.tenant_id, id, name,
	    set_product, product, wait)) != FB_OK)
		return e;
	r->audit_type = "campaign";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	if (!change) {
		/* name, product and wait decide no page */
		if ((e = after_save(r, id, NULL, &sv)) != FB_OK) {
			buf_release(&sv.warnings);
			return e;
		}
		return campaign_detail(r, id, 200, &sv);
	}
	/* the status decides pages: published anew, takeovers warned of */
	if ((e = live_rules_load(r->db, r->auth.tenant_id, site,
	    &before)) != FB_OK)
		return e;
	save_init(&sv);
	if ((e = db_campaign_set_status(r->db, id, status, owner)) == FB_OK)
		e = after_save(r, id, &before, &sv);
	live_rules_free(&before);
	if (e != FB_OK) {
		buf_release(&sv.warnings);
		return e;
	}
	/*
	 * active only when its tag configuration is out: else nothing changes
	 */
	if (strcmp(status, "active") == 0 && sv.failed) {
		buf_release(&sv.warnings);
		return api_error(r, AC_CAMPAIGN_NOT_READY, "tag_config");
	}
	return campaign_detail(r, id, 200, &sv);
}

/*
 * Whether a session may activate the campaign (issue 16): it has URL
 * rules, and an active scenario (kept sendable: scenario_keep_sendable())
 * to send from; otherwise 422 campaign_not_ready naming url_rules or
 * scenarios, and *ready false.
 */
static enum fb_err
campaign_ready(struct req *r, const char *id, bool *ready)
{
	struct dbrows	 q;
	size_t		 n;
	enum fb_err	 e;

	*ready = false;
	if ((e = db_url_rules(r->db, r->auth.tenant_id, id, &q)) != FB_OK)
		return e;
	n = q.n;
	dbrows_free(&q);
	if (n == 0)
		return api_error(r, AC_CAMPAIGN_NOT_READY, "url_rules");
	if ((e = db_scenario_other_active(r->db, r->auth.tenant_id, id,
	    DB_MIN_ID, &q)) != FB_OK)
		return e;
	n = q.n;
	dbrows_free(&q);
	if (n == 0)
		return api_error(r, AC_CAMPAIGN_NOT_READY, "scenarios");
	*ready = true;
	return FB_OK;
}

#define RULES_MAX	100

/* PUT /campaigns/{id}/url-rules: all or nothing (contract: Errors). */
enum fb_err
api_campaigns_url_rules(struct req *r)
{
	const char	*id = req_pathvar(r, "campaign_id");
	json_object	*rules, *it, *v;
	struct save	 sv;
	struct dbrows	 c;
	struct live_rules before;
	char		 param[64], why[256], site[UUID_STRLEN + 1];
	size_t		 i, n;
	int		 role, type;
	long		 prio;
	const char	*pattern;
	enum rule_check	 check;
	enum fb_err	 e;

	if (!json_object_object_get_ex(r->json, "rules", &rules) ||
	    rules == NULL)
		return api_error(r, AC_PARAMETER_MISSING, "rules");
	if (!json_object_is_type(rules, json_type_array) ||
	    (n = json_object_array_length(rules)) > RULES_MAX)
		return api_error(r, AC_PARAMETER_INVALID, "rules");
	/* validate every rule before touching anything */
	for (i = 0; i < n; i++) {
		it = json_object_array_get_idx(rules, i);
		snprintf(param, sizeof(param), "rules[%zu]", i);
		if (!json_object_is_type(it, json_type_object))
			return api_error(r, AC_PARAMETER_INVALID, param);
		snprintf(param, sizeof(param), "rules[%zu].role", i);
		if (!json_object_object_get_ex(it, "role", &v) || v == NULL)
			return api_error(r, AC_PARAMETER_MISSING, param);
		if (!json_object_is_type(v, json_type_string) ||
		    rule_role_parse(json_object_get_string(v)) < 0)
			return api_error(r, AC_PARAMETER_INVALID, param);
		snprintf(param, sizeof(param), "rules[%zu].match_type", i);
		if (!json_object_object_get_ex(it, "match_type", &v) ||
		    v == NULL)
			return api_error(r, AC_PARAMETER_MISSING, param);
		if (!json_object_is_type(v, json_type_string) ||
		    (type = match_type_parse(json_object_get_string(v))) < 0)
			return api_error(r, AC_PARAMETER_INVALID, param);
		snprintf(param, sizeof(param), "rules[%zu].pattern", i);
		if (!json_object_object_get_ex(it, "pattern", &v) || v == NULL)
			return api_error(r, AC_PARAMETER_MISSING, param);
		if (!json_object_is_type(v, json_type_string) ||
		    utf8_len(json_object_get_string(v)) < 0 ||
		    strlen(json_object_get_string(v)) !=
		    (size_t)json_object_get_string_len(v))
			return api_error(r, AC_PARAMETER_INVALID, param);
		if ((check = rule_pattern_ok((enum match_type)type,
		    json_object_get_string(v), why, sizeof(why))) != RULE_OK) {
			logx(LOG_INFO, "%s refused: %s", param, why);
			return api_error(r, check == RULE_UNBOUNDED ?
			    AC_REGEX_TOO_COMPLEX : AC_PARAMETER_INVALID, param);
		}
		snprintf(param, sizeof(param), "rules[%zu].priority", i);
		if (json_object_object_get_ex(it, "priority", &v) &&
		    v != NULL &&
		    (!json_object_is_type(v, json_type_int) ||
		    json_object_get_int64(v) < 0 ||
		    json_object_get_int64(v) > 1000000))
			return api_error(r, AC_PARAMETER_INVALID, param);
	}
	e = db_campaign_get(r->db, r->auth.tenant_id, id, &c);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "campaign_id");
	if (e != FB_OK)
		return e;
	snprintf(site, sizeof(site), "%s", campaign_of(&c)->site_id);
	dbrows_free(&c);
	if ((e = live_rules_load(r->db, r->auth.tenant_id, site,
	    &before)) != FB_OK)
		return e;
	e = db_url_rules_delete(r->db, r->auth.tenant_id, id);
	for (i = 0; i < n && e == FB_OK; i++) {
		it = json_object_array_get_idx(rules, i);
		json_object_object_get_ex(it, "role", &v);
		role = rule_role_parse(json_object_get_string(v));
		json_object_object_get_ex(it, "match_type", &v);
		type = match_type_parse(json_object_get_string(v));
		json_object_object_get_ex(it, "pattern", &v);
		pattern = json_object_get_string(v);
		prio = json_object_object_get_ex(it, "priority",
		    &v) && v != NULL ?
		    (long)json_object_get_int64(v) : -1;
		e = db_url_rule_insert(r->db, r->auth.tenant_id, id, (int)i,
		    rule_role_names[role], match_type_names[type],
		    pattern, prio);
	}
	r->audit_type = "campaign";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	save_init(&sv);
	if (e == FB_OK)
		e = after_save(r, id, &before, &sv);
	live_rules_free(&before);
	if (e != FB_OK) {
		buf_release(&sv.warnings);
		return e;
	}
	return campaign_detail(r, id, 200, &sv);
}

#define SELECTORS_MAX	20
#define SELECTOR_LEN	256

/*
 * A selector list field: absent or null gives "[]" or NULL (nullable);
 * else an array of at most 20 non-empty strings of 256 bytes.  Returns
 * the JSON text in *out (owned by the caller), or -1 after a 422.
 */
static int
selectors(struct req *r, const char *name, bool nullable, char **out,
    size_t *count)
{
	json_object	*v, *s;
	size_t		 i, n;
	const char	*t;

	*out = NULL;
	*count = 0;
	if (!json_object_object_get_ex(r->json, name, &v) || v == NULL) {
		*out = nullable ? NULL : strdup("[]");
		return 0;
	}
	if (!json_object_is_type(v, json_type_array) ||
	    (n = json_object_array_length(v)) > SELECTORS_MAX) {
		(void)api_error(r, AC_PARAMETER_INVALID, name);
		return -1;
	}
	for (i = 0; i < n; i++) {
		s = json_object_array_get_idx(v, i);
		if (!json_object_is_type(s, json_type_string) ||
		    (t = json_object_get_string(s))[0] == '\0' ||
		    strlen(t) > SELECTOR_LEN || strlen(t) !=
		    (size_t)json_object_get_string_len(s) || utf8_len(t) < 0 ||
		    strpbrk(t, "\n\r{}") != NULL) {
			(void)api_error(r, AC_PARAMETER_INVALID, name);
			return -1;
		}
	}
	*out = strdup(json_text(v));
	*count = n;
	return 1;
}

/* PUT /campaigns/{id}/form-profile (contract: FormProfileIn). */
enum fb_err
api_campaigns_form_profile(struct req *r)
{
	const char	*id = req_pathvar(r, "campaign_id"), *consent;
	char		*tel = NULL, *email = NULL, *split = NULL;
	size_t		 ntel, nemail, nsplit;
	struct dbrows	 c;
	struct save	 sv;
	bool		 autodetect;
	enum fb_err	 e;

	if (selectors(r, "tel_selectors", false, &tel, &ntel) < 0 ||
	    selectors(r, "email_selectors", false, &email, &nemail) < 0 ||
	    selectors(r, "tel_split_selectors", true, &split, &nsplit) < 0 ||
	    body_str(r, "consent_selector", false, SELECTOR_LEN,
	    &consent) < 0) {
		e = FB_OK;
		goto out;
	}
	if (split != NULL && nsplit == 1) {
		e = api_error(r, AC_PARAMETER_INVALID, "tel_split_selectors");
		goto out;
	}
	e = db_campaign_get(r->db, r->auth.tenant_id, id, &c);
	if (e == FB_ENOTFOUND) {
		e = api_error(r, AC_NOT_FOUND, "campaign_id");
		goto out;
	}
	if (e != FB_OK)
		goto out;
	dbrows_free(&c);
	/* empty arrays restore automatic detection (contract: FormProfileIn) */
	autodetect = ntel == 0 && nemail == 0 && nsplit == 0;
	if ((e = db_form_profile_put(r->db, r->auth.tenant_id, id, tel, email,
	    autodetect ? NULL : consent, autodetect ? NULL : split,
	    autodetect ? "auto" : "manual")) != FB_OK)
		goto out;
	r->audit_type = "campaign";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	/* the form profile decides no page */
	if ((e = after_save(r, id, NULL, &sv)) != FB_OK) {
		buf_release(&sv.warnings);
		goto out;
	}
	e = campaign_detail(r, id, 200, &sv);
out:
	free(tel);
	free(email);
	free(split);
	return e;
}

#define COPY_KEYS_MAX	1000

/* The n-th copy's key of `src`: "<src>-copy", "<src>-copy-2", ... */
static void
copy_key(const char *src, int n, char *out, size_t outsz)
{
	char	 suffix[16];

	snprintf(suffix, sizeof(suffix), n == 1 ? "-copy" : "-copy-%d", n);
	snprintf(out, outsz, "%.*s%s", (int)(CAMPAIGN_KEY_MAX - strlen(suffix)),
	    src, suffix);
}

/* POST /campaigns/{id}/duplicate (contract: CampaignDuplicateIn). */
enum fb_err
api_campaigns_duplicate(struct req *r)
{
	const char	*from = req_pathvar(r, "campaign_id"), *key, *name;
	char		 id[UUID_STRLEN + 1], newkey[CAMPAIGN_KEY_MAX + 1];
	char		 newname[CAMPAIGN_NAME_MAX * 4 + 64];
	char		 srckey[CAMPAIGN_KEY_MAX + 1];
	struct dbrows	 k, c;
	const struct scenario_row *s;
	size_t		 i;
	int		 n = 0;
	bool		 taken;
	enum fb_err	 e;

	if (body_str(r, "key", false, CAMPAIGN_KEY_MAX, &key) < 0 ||
	    body_line(r, "name", false, CAMPAIGN_NAME_MAX, &name) < 0)
		return FB_OK;
	if (key != NULL && !ident_ok(key, CAMPAIGN_KEY_MAX))
		return api_error(r, AC_PARAMETER_INVALID, "key");
	if (name != NULL && text_blank(name))
		return api_error(r, AC_PARAMETER_INVALID, "name");
	e = db_campaign_get(r->db, r->auth.tenant_id, from, &c);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "campaign_id");
	if (e != FB_OK)
		return e;
	if (key != NULL)
		snprintf(newkey, sizeof(newkey), "%s", key);
	else {
		/* "<key>-copy", then "<key>-copy-2", ...: the first free one */
		snprintf(srckey, sizeof(srckey), "%s", campaign_of(&c)->key);
		for (n = 1; n < COPY_KEYS_MAX; n++) {
			copy_key(srckey, n, newkey, sizeof(newkey));
			if ((e = db_campaign_key_taken(r->db, r->auth.tenant_id,
			    newkey, &taken)) != FB_OK) {
				dbrows_free(&c);
				return e;
			}
			if (!taken)
				break;
		}
	}
	if (name != NULL)
		snprintf(newname, sizeof(newname), "%s", name);
	else
		snprintf(newname, sizeof(newname), "%s のコピー",
		    campaign_of(&c)->name);
	if (utf8_len(newname) > CAMPAIGN_NAME_MAX) {
		/* keep it within the column: cut whole characters */
		size_t	 cut = strlen(newname);

		while (utf8_len(newname) > CAMPAIGN_NAME_MAX ||
		    utf8_len(newname) < 0)
			newname[--cut] = '\0';
	}
	dbrows_free(&c);
	uuid_v7(id);
	e = db_campaign_copy(r->db, r->auth.tenant_id, from, id, newkey,
	    newname);
	/*
	 * A key of our choosing that a concurrent duplicate took first: the
	 * next number (the failed INSERT undid only itself).
	 */
	while (e == FB_EDUP && key == NULL && ++n < COPY_KEYS_MAX) {
		copy_key(srckey, n, newkey, sizeof(newkey));
		e = db_campaign_copy(r->db, r->auth.tenant_id, from, id, newkey,
		    newname);
	}
	if (e == FB_EDUP)
		return api_error(r, AC_CAMPAIGN_KEY_TAKEN, "key");
	if (e != FB_OK)
		return e;
	if ((e = db_campaign_copy_children(r->db, r->auth.tenant_id, from,
	    id)) != FB_OK)
		return e;
	/*
	 * child scenarios as drafts, with their steps and copies of their
	 * messages
	 */
	if ((e = db_scenario_list(r->db, r->auth.tenant_id, from, &k)) != FB_OK)
		return e;
	for (i = 0, s = k.row; i < k.n && e == FB_OK; i++) {
		char	 sid[UUID_STRLEN + 1];

		e = scenario_copy(r, s[i].id, id, NULL, sid);
	}
	dbrows_free(&k);
	if (e != FB_OK)
		return e;
	r->audit_type = "campaign";
	memcpy(r->audit_id, id, sizeof(id));
	/* never run and paused: not published */
	return campaign_detail(r, id, 201, NULL);
}
