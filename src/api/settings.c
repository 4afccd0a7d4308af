/*
 * Tenant settings read by API keys: consent settings (contract: Consent
 * settings) and the delivery switch (contract: Delivery switch).
 */
#include <stdio.h>
#include <string.h>

#include "../api.h"
#include "../db/store.h"

static json_object *
template_json(const struct consent_template_row *t)
{
	json_object	*o = json_object_new_object();

	jadd_str(o, "key", t->key);
	jadd_str(o, "main", t->main);
	jadd_str(o, "note", t->note);
	return o;
}

enum fb_err
api_consent_get(struct req *r)
{
	struct dbrows	 cs, tpl;
	const struct consent_row *c;
	const struct consent_template_row *t;
	json_object	*o, *list, *opt, *cur = NULL;
	size_t		 i;
	enum fb_err	 e;

	e = db_consent_get(r->db, r->auth.tenant_id, &cs);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, NULL);
	if (e != FB_OK)
		return e;
	if ((e = db_consent_templates(r->db, &tpl)) != FB_OK) {
		dbrows_free(&cs);
		return e;
	}
	c = cs.row;
	t = tpl.row;
	o = json_object_new_object();
	jadd_str(o, "object", "consent_settings");
	jadd_bool(o, "consent_checkbox_enabled", c->checkbox_enabled);
	jadd_bool(o, "consent_default_checked", c->default_checked);
	jadd_str(o, "consent_template_key", c->template_key);
	list = json_object_new_array();
	for (i = 0; i < tpl.n; i++) {
		json_object_array_add(list, template_json(&t[i]));
		if (cur == NULL && strcmp(t[i].key, c->template_key != NULL ?
		    c->template_key : "standard") == 0)
			cur = template_json(&t[i]);
	}
	if (cur == NULL && tpl.n > 0)
		cur = template_json(&t[0]);
	json_object_object_add(o, "template", cur);
	json_object_object_add(o, "templates", list);
	jadd_bool(o, "consent_optout_link_enabled", c->optout_link_enabled);
	jadd_str(o, "consent_mode", c->mode);
	opt = json_object_new_object();
	jadd_str(opt, "title", c->optout_title);
	jadd_str(opt, "body", c->optout_body);
	jadd_str(opt, "link_label", c->optout_link_label);
	json_object_object_add(o, "optout_text", opt);
	json_object_object_add(o, "publish_failed", json_object_new_array());
	dbrows_free(&cs);
	dbrows_free(&tpl);
	return req_json(r, 200, o);
}

enum fb_err
api_delivery_status_get(struct req *r)
{
	struct dbrows	 res;
	const struct delivery_status_row *d;
	json_object	*o;
	enum fb_err	 e;

	e = db_delivery_status(r->db, r->auth.tenant_id, &res);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, NULL);
	if (e != FB_OK)
		return e;
	d = res.row;
	o = json_object_new_object();
	jadd_str(o, "object", "delivery_status");
	jadd_bool(o, "enabled", strcmp(d->mode, "off") != 0);
	jadd_time(o, "enabled_at", d->enabled_at);
	jadd_str(o, "mode", d->mode);
	dbrows_free(&res);
	return req_json(r, 200, o);
}

/*
 * PUT /api/v1/admin/delivery_status (owner, admin; issue 16): the switch
 * of formbackctl delivery-switch, answered as the GET answers it.
 */
enum fb_err
api_delivery_status_set(struct req *r)
{
	const char	*mode;
	enum fb_err	 e;

	if (body_str(r, "mode", true, 16, &mode) < 0)
		return FB_OK;
	if (strcmp(mode, "off") != 0 && strcmp(mode, "test_only") != 0 &&
	    strcmp(mode, "live") != 0)
		return api_error(r, AC_PARAMETER_INVALID, "mode");
	if ((e = db_delivery_switch(r->db, r->auth.tenant_id, mode)) != FB_OK)
		return e;
	r->audit_type = "tenant";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", r->auth.tenant_id);
	return api_delivery_status_get(r);
}
