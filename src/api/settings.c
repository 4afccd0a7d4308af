/*
 * Tenant settings read by API keys: consent settings (contract: Consent
 * settings) and the delivery switch (contract: Delivery switch).
 */
#include <string.h>

#include "../api.h"
#include "../store.h"

static json_object *
template_json(const struct dbres *t, unsigned i)
{
	json_object	*o = json_object_new_object();

	jadd_str(o, "key", dbres_get(t, i, TPL_C_KEY));
	jadd_str(o, "main", dbres_get(t, i, TPL_C_MAIN));
	jadd_str(o, "note", dbres_get(t, i, TPL_C_NOTE));
	return o;
}

enum fb_err
api_consent_get(struct req *r)
{
	struct dbres	 cs, tpl;
	json_object	*o, *list, *opt, *cur = NULL;
	const char	*key;
	unsigned	 i;
	enum fb_err	 e;

	e = db_consent_get(r->db, r->auth.tenant_id, &cs);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, NULL);
	if (e != FB_OK)
		return e;
	if ((e = db_consent_templates(r->db, &tpl)) != FB_OK) {
		dbres_free(&cs);
		return e;
	}
	key = dbres_get(&cs, 0, CONSENT_C_TEMPLATE);
	o = json_object_new_object();
	jadd_str(o, "object", "consent_settings");
	jadd_bool(o, "consent_checkbox_enabled", dbres_int(&cs, 0, CONSENT_C_CHECKBOX));
	jadd_bool(o, "consent_default_checked",
	    dbres_int(&cs, 0, CONSENT_C_DEFAULT_CHECKED));
	jadd_str(o, "consent_template_key", key);
	list = json_object_new_array();
	for (i = 0; i < tpl.nrows; i++) {
		json_object_array_add(list, template_json(&tpl, i));
		if (cur == NULL && strcmp(dbres_get(&tpl, i, TPL_C_KEY),
		    key != NULL ? key : "standard") == 0)
			cur = template_json(&tpl, i);
	}
	if (cur == NULL && tpl.nrows > 0)
		cur = template_json(&tpl, 0);
	json_object_object_add(o, "template", cur);
	json_object_object_add(o, "templates", list);
	jadd_bool(o, "consent_optout_link_enabled",
	    dbres_int(&cs, 0, CONSENT_C_OPTOUT_LINK));
	jadd_str(o, "consent_mode", dbres_get(&cs, 0, CONSENT_C_MODE));
	opt = json_object_new_object();
	jadd_str(opt, "title", dbres_get(&cs, 0, CONSENT_C_OPTOUT_TITLE));
	jadd_str(opt, "body", dbres_get(&cs, 0, CONSENT_C_OPTOUT_BODY));
	jadd_str(opt, "link_label", dbres_get(&cs, 0, CONSENT_C_OPTOUT_LABEL));
	json_object_object_add(o, "optout_text", opt);
	json_object_object_add(o, "publish_failed", json_object_new_array());
	dbres_free(&cs);
	dbres_free(&tpl);
	return req_json(r, 200, o);
}

enum fb_err
api_delivery_status_get(struct req *r)
{
	struct dbres	 res;
	json_object	*o;
	const char	*mode;
	enum fb_err	 e;

	e = db_delivery_status(r->db, r->auth.tenant_id, &res);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, NULL);
	if (e != FB_OK)
		return e;
	mode = dbres_get(&res, 0, DSW_C_MODE);
	o = json_object_new_object();
	jadd_str(o, "object", "delivery_status");
	jadd_bool(o, "enabled", strcmp(mode, "off") != 0);
	jadd_time(o, "enabled_at", dbres_get(&res, 0, DSW_C_ENABLED_AT));
	jadd_str(o, "mode", mode);
	dbres_free(&res);
	return req_json(r, 200, o);
}
