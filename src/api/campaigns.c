/*
 * Campaigns (contract: Campaign, CampaignListItemOut, CampaignIn; States,
 * Campaign; Endpoints, Campaigns).
 */
#include <stdio.h>
#include <string.h>

#include "../api.h"
#include "../store.h"

#define CAMPAIGN_KEY_MAX	64
#define CAMPAIGN_NAME_MAX	200
#define WAIT_DEFAULT		30
#define WAIT_MIN		1
#define WAIT_MAX		10080	/* 7 days */

/* The one writer of a campaign's common fields (list row and detail). */
static json_object *
campaign_json(const struct dbres *c, unsigned i)
{
	json_object	*o = json_object_new_object();

	jadd_str(o, "id", dbres_get(c, i, CAMP_C_ID));
	jadd_str(o, "object", "campaign");
	jadd_str(o, "site_id", dbres_get(c, i, CAMP_C_SITE_ID));
	jadd_str(o, "key", dbres_get(c, i, CAMP_C_KEY));
	jadd_str(o, "name", dbres_get(c, i, CAMP_C_NAME));
	jadd_str(o, "product_name", dbres_get(c, i, CAMP_C_PRODUCT));
	jadd_str(o, "status", dbres_get(c, i, CAMP_C_STATUS));
	jadd_int(o, "abandon_wait_minutes", dbres_int(c, i, CAMP_C_WAIT));
	jadd_time(o, "created_at", dbres_get(c, i, CAMP_C_CREATED));
	jadd_time(o, "updated_at", dbres_get(c, i, CAMP_C_UPDATED));
	return o;
}

/* CampaignDetailOut for campaign `id`: 404 when it is not the tenant's. */
static enum fb_err
campaign_detail(struct req *r, const char *id, int status)
{
	struct dbres	 c, s;
	json_object	*o, *site;
	enum fb_err	 e;

	e = db_campaign_get(r->db, r->auth.tenant_id, id, &c);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "campaign_id");
	if (e != FB_OK)
		return e;
	e = db_site_get(r->db, r->auth.tenant_id, dbres_get(&c, 0, CAMP_C_SITE_ID), &s);
	if (e != FB_OK) {
		dbres_free(&c);
		return e == FB_ENOTFOUND ? FB_EDB : e;
	}
	o = campaign_json(&c, 0);
	site = json_object_new_object();
	jadd_str(site, "id", dbres_get(&s, 0, SITE_C_ID));
	jadd_str(site, "name", dbres_get(&s, 0, SITE_C_NAME));
	jadd_str(site, "domain", dbres_get(&s, 0, SITE_C_DOMAIN));
	json_object_object_add(o, "site", site);
	json_object_object_add(o, "url_rules", json_object_new_array());
	json_object_object_add(o, "form_profile", NULL);
	json_object_object_add(o, "warnings", json_object_new_array());
	dbres_free(&c);
	dbres_free(&s);
	return req_json(r, status, o);
}

enum fb_err
api_campaigns_get(struct req *r)
{
	return campaign_detail(r, req_pathvar(r, "campaign_id"), 200);
}

enum fb_err
api_campaigns_list(struct req *r)
{
	struct page	 pg;
	struct dbres	 res;
	json_object	*o, *data, *row;
	unsigned	 i;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	if ((e = db_campaign_list(r->db, r->auth.tenant_id,
	    req_query(r, "site_id"), req_query(r, "status"),
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &res)) != FB_OK)
		return e;
	o = json_object_new_object();
	jadd_str(o, "object", "list");
	data = json_object_new_array();
	for (i = 0; i < res.nrows && i < (unsigned)pg.limit; i++) {
		row = campaign_json(&res, i);
		jadd_int(row, "scenario_count", dbres_int(&res, i, CAMP_C_SCENARIOS));
		jadd_int(row, "active_scenario_count",
		    dbres_int(&res, i, CAMP_C_ACTIVE_SCENARIOS));
		json_object_array_add(data, row);
	}
	json_object_object_add(o, "data", data);
	e = page_finish(r, o, &pg, res.nrows, res.nrows > (unsigned)pg.limit ?
	    dbres_get(&res, pg.limit - 1, CAMP_C_ID) : NULL);
	dbres_free(&res);
	if (e != FB_OK) {
		json_object_put(o);
		return e;
	}
	return req_json(r, 200, o);
}

/* A campaign key: 1 to 64 of [A-Za-z0-9_-], used in snippets and URLs. */
static bool
campaign_key_ok(const char *k)
{
	size_t	 n = strlen(k);

	return n >= 1 && n <= CAMPAIGN_KEY_MAX &&
	    strspn(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_-") == n;
}

static bool
blank(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

enum fb_err
api_campaigns_create(struct req *r)
{
	const char	*site, *key, *name, *product, *status;
	long long	 wait = WAIT_DEFAULT;
	char		 id[UUID_STRLEN + 1], site_id[UUID_STRLEN + 1];
	struct dbres	 s;
	enum fb_err	 e;

	if (body_str(r, "site_id", true, UUID_STRLEN, &site) < 0 ||
	    body_str(r, "key", true, CAMPAIGN_KEY_MAX, &key) < 0 ||
	    body_str(r, "name", true, CAMPAIGN_NAME_MAX, &name) < 0 ||
	    body_str(r, "product_name", false, CAMPAIGN_NAME_MAX, &product) < 0 ||
	    body_str(r, "status", false, 16, &status) < 0 ||
	    body_int(r, "abandon_wait_minutes", false, WAIT_MIN, WAIT_MAX, &wait) < 0)
		return FB_OK;
	if (!uuid_valid(site))
		return api_error(r, AC_PARAMETER_INVALID, "site_id");
	if (!campaign_key_ok(key))
		return api_error(r, AC_PARAMETER_INVALID, "key");
	if (blank(name))
		return api_error(r, AC_PARAMETER_INVALID, "name");
	if (status != NULL && strcmp(status, "active") != 0 &&
	    strcmp(status, "paused") != 0 && strcmp(status, "archived") != 0)
		return api_error(r, AC_PARAMETER_INVALID, "status");
	/* contract: CampaignIn, status; States, Campaign */
	if (status != NULL && strcmp(status, "paused") != 0)
		return api_error(r, AC_API_KEY_DRAFT_ONLY, "status");
	snprintf(site_id, sizeof(site_id), "%s", site);
	uuid_lower(site_id);
	e = db_site_get(r->db, r->auth.tenant_id, site_id, &s);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "site_id");
	if (e != FB_OK)
		return e;
	dbres_free(&s);
	uuid_v7(id);
	e = db_campaign_insert(r->db, id, r->auth.tenant_id, site_id, key, name,
	    product, "paused", wait);
	if (e == FB_EDUP)
		return api_error(r, AC_CAMPAIGN_KEY_TAKEN, "key");
	if (e != FB_OK)
		return e;
	r->audit_type = "campaign";
	memcpy(r->audit_id, id, sizeof(id));
	return campaign_detail(r, id, 201);
}
