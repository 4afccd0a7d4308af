/* Tag configuration: build, match, publish (see publish.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "publish.h"
#include "db/store.h"

enum fb_err
live_rules_load(struct db *db, const char *tenant, const char *site,
    struct live_rules *lr)
{
	const struct published_rule_row *p;
	enum fb_err	 e;
	size_t		 i;
	const char	*last = NULL;
	int		 order = -1;
	char		 why[128];

	memset(lr, 0, sizeof(*lr));
	if ((e = db_published_rules(db, tenant, site, &lr->rows)) != FB_OK)
		return e;
	if (lr->rows.n == 0)
		return FB_OK;
	if ((lr->rules = calloc(lr->rows.n, sizeof(*lr->rules))) == NULL) {
		dbrows_free(&lr->rows);
		return FB_ENOMEM;
	}
	lr->n = lr->rows.n;
	for (i = 0, p = lr->rows.row; i < lr->n; i++) {
		struct url_rule	*r = &lr->rules[i];

		if (last == NULL || strcmp(last, p[i].campaign_id) != 0)
			order++;
		last = p[i].campaign_id;
		r->campaign = p[i].campaign_key;
		r->campaign_order = order;
		r->position = (int)p[i].position;
		r->role = (enum rule_role)rule_role_parse(p[i].role);
		r->type = (enum match_type)match_type_parse(p[i].match_type);
		r->pattern = p[i].pattern;
		r->priority = (long)p[i].priority;
	}
	if (!rules_prepare(lr->rules, lr->n, why, sizeof(why)))
		logx(LOG_WARN, "stored rule does not compile: %s", why);
	return FB_OK;
}

void
live_rules_free(struct live_rules *lr)
{
	rules_free(lr->rules, lr->n);
	free(lr->rules);
	dbrows_free(&lr->rows);
	memset(lr, 0, sizeof(*lr));
}

json_object *
match_rule_json(const struct url_rule *r)
{
	json_object	*o = json_object_new_object();

	jadd_str(o, "campaign", r->campaign);
	jadd_str(o, "role", rule_role_names[r->role]);
	jadd_str(o, "match_type", match_type_names[r->type]);
	jadd_str(o, "pattern", r->pattern);
	if (r->priority >= 0)
		jadd_int(o, "priority", r->priority);
	else
		jadd_str(o, "priority", NULL);
	return o;
}

/* A stored JSON array as an object, or an empty array. */
static json_object *
json_or(const char *text, bool null_when_missing)
{
	json_object	*o = text != NULL ? json_tokener_parse(text) : NULL;

	if (o == NULL && !null_when_missing)
		o = json_object_new_array();
	return o;
}

json_object *
form_profile_json(const struct form_profile_row *p)
{
	static const struct form_profile_row none;
	json_object	*o = json_object_new_object();

	if (p == NULL)
		p = &none;
	json_object_object_add(o, "tel_selectors", json_or(p->tel_selectors, false));
	json_object_object_add(o, "email_selectors",
	    json_or(p->email_selectors, false));
	jadd_str(o, "consent_selector", p->consent_selector);
	json_object_object_add(o, "tel_split_selectors",
	    json_or(p->tel_split_selectors, true));
	jadd_str(o, "detected_by", p->detected_by != NULL ? p->detected_by : "auto");
	return o;
}

enum fb_err
tagconf_build(struct db *db, const struct conf *conf, const char *tenant,
    const char *site, json_object **out)
{
	struct dbrows	 s, cs, tpl, camps;
	const struct consent_row *c;
	const struct consent_template_row *t;
	const struct published_campaign_row *pc;
	struct live_rules lr;
	json_object	*o, *consent, *text, *arr, *co;
	char		 collect[1024];
	size_t		 i;
	enum fb_err	 e;

	*out = NULL;
	if ((e = db_site_get(db, tenant, site, &s)) != FB_OK)
		return e;
	if ((e = db_consent_get(db, tenant, &cs)) != FB_OK) {
		dbrows_free(&s);
		return e;
	}
	if ((e = db_consent_templates(db, &tpl)) != FB_OK)
		goto out2;
	if ((e = db_published_campaigns(db, tenant, site, &camps)) != FB_OK)
		goto out3;
	if ((e = live_rules_load(db, tenant, site, &lr)) != FB_OK)
		goto out4;
	o = json_object_new_object();
	jadd_int(o, "v", 1);
	jadd_str(o, "site", ((const struct site_row *)s.row)->public_key);
	snprintf(collect, sizeof(collect), "%s/tag/v1/events", conf->base_url);
	jadd_str(o, "collect", collect);
	consent = json_object_new_object();
	c = cs.row;
	jadd_str(consent, "mode", c->mode);
	jadd_bool(consent, "checkbox_enabled", c->checkbox_enabled);
	jadd_bool(consent, "default_checked", c->default_checked);
	jadd_bool(consent, "optout_link_enabled", c->optout_link_enabled);
	text = NULL;
	for (i = 0, t = tpl.row; i < tpl.n; i++)
		if (c->template_key != NULL && strcmp(c->template_key, t[i].key) == 0) {
			text = json_object_new_object();
			jadd_str(text, "main", t[i].main);
			jadd_str(text, "note", t[i].note);
		}
	json_object_object_add(consent, "text", text);
	json_object_object_add(o, "consent", consent);
	arr = json_object_new_array();
	for (i = 0, pc = camps.row; i < camps.n; i++) {
		co = json_object_new_object();
		jadd_str(co, "key", pc[i].key);
		jadd_str(co, "status", pc[i].status);
		json_object_object_add(co, "form_profile",
		    form_profile_json(&pc[i].profile));
		json_object_array_add(arr, co);
	}
	json_object_object_add(o, "campaigns", arr);
	arr = json_object_new_array();
	for (i = 0; i < lr.n; i++)
		json_object_array_add(arr, match_rule_json(&lr.rules[i]));
	json_object_object_add(o, "rules", arr);
	*out = o;
	live_rules_free(&lr);
out4:
	dbrows_free(&camps);
out3:
	dbrows_free(&tpl);
out2:
	dbrows_free(&cs);
	dbrows_free(&s);
	return e;
}

/* Write the site's configuration to a temporary file; its path in tmp. */
static bool
write_temp(struct db *db, const struct conf *c, const char *tenant,
    const char *site, char *tmp, size_t tmpsz, char *final, size_t finalsz,
    char *err, size_t errsz)
{
	json_object	*o;
	struct dbrows	 s;
	const char	*text, *pk;
	unsigned char	 rnd[6];
	char		 hex[13];
	int		 fd;
	size_t		 len;
	bool		 ok;

	if (tagconf_build(db, c, tenant, site, &o) != FB_OK) {
		snprintf(err, errsz, "cannot build the configuration");
		return false;
	}
	if (db_site_get(db, tenant, site, &s) != FB_OK) {
		json_object_put(o);
		snprintf(err, errsz, "cannot read the site");
		return false;
	}
	randombytes_buf(rnd, sizeof(rnd));
	sodium_bin2hex(hex, sizeof(hex), rnd, sizeof(rnd));
	pk = ((const struct site_row *)s.row)->public_key;
	snprintf(final, finalsz, "%s/%s.json", c->publish_dir, pk);
	snprintf(tmp, tmpsz, "%s/.%s.%s.tmp", c->publish_dir, pk, hex);
	dbrows_free(&s);
	text = json_text(o);
	len = strlen(text);
	ok = false;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0)
		snprintf(err, errsz, "cannot create '%s': %s", tmp, strerror(errno));
	else if (write(fd, text, len) != (ssize_t)len || fsync(fd) != 0) {
		snprintf(err, errsz, "cannot write '%s': %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
	} else if (close(fd) != 0) {
		snprintf(err, errsz, "cannot close '%s': %s", tmp, strerror(errno));
		unlink(tmp);
	} else
		ok = true;
	json_object_put(o);
	return ok;
}

bool
publish_site(struct req *r, const char *tenant, const char *site)
{
	char	 tmp[4096], final[4096], err[512];
	size_t	 i;

	if (r->dry_run)
		return true;
	for (i = 0; i < r->npublish; i++)
		if (strcmp(r->publish_site[i], site) == 0)
			return true;
	if (r->npublish == REQ_MAX_PUBLISH)
		return false;
	if (!write_temp(r->db, r->conf, tenant, site, tmp, sizeof(tmp), final,
	    sizeof(final), err, sizeof(err))) {
		logx(LOG_ERR, "publish of site '%s' failed: %s", site, err);
		if (db_site_published(r->db, tenant, site, "write failed") != FB_OK)
			logx(LOG_ERR, "cannot record the publish failure");
		return false;
	}
	if (db_site_published(r->db, tenant, site, NULL) != FB_OK)
		logx(LOG_ERR, "cannot record the publish of site '%s'", site);
	snprintf(r->publish_site[r->npublish], sizeof(r->publish_site[0]), "%s", site);
	r->publish_tmp[r->npublish] = strdup(tmp);
	r->publish_final[r->npublish] = strdup(final);
	r->npublish++;
	return true;
}

void
publish_commit(struct req *r)
{
	size_t	 i;

	for (i = 0; i < r->npublish; i++) {
		if (r->publish_tmp[i] != NULL && r->publish_final[i] != NULL &&
		    rename(r->publish_tmp[i], r->publish_final[i]) != 0) {
			logx(LOG_ERR, "cannot rename '%s': %s", r->publish_tmp[i],
			    strerror(errno));
			unlink(r->publish_tmp[i]);
		}
		free(r->publish_tmp[i]);
		free(r->publish_final[i]);
		r->publish_tmp[i] = r->publish_final[i] = NULL;
	}
	r->npublish = 0;
}

void
publish_abort(struct req *r)
{
	size_t	 i;

	for (i = 0; i < r->npublish; i++) {
		if (r->publish_tmp[i] != NULL)
			unlink(r->publish_tmp[i]);
		free(r->publish_tmp[i]);
		free(r->publish_final[i]);
		r->publish_tmp[i] = r->publish_final[i] = NULL;
	}
	r->npublish = 0;
}

enum fb_err
publish_now(struct db *db, const struct conf *c, const char *tenant,
    const char *site, char *err, size_t errsz)
{
	char	 tmp[4096], final[4096];

	if (!write_temp(db, c, tenant, site, tmp, sizeof(tmp), final,
	    sizeof(final), err, errsz))
		return FB_EIO;
	if (rename(tmp, final) != 0) {
		snprintf(err, errsz, "cannot rename '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		return FB_EIO;
	}
	return db_site_published(db, tenant, site, NULL);
}
