/* Tag configuration: build, match, publish (see publish.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "publish.h"
#include "store.h"

enum fb_err
live_rules_load(struct db *db, const char *tenant, const char *site,
    struct live_rules *lr)
{
	enum fb_err	 e;
	size_t		 i;
	const char	*last = NULL;
	int		 order = -1;
	char		 why[128];

	memset(lr, 0, sizeof(*lr));
	if ((e = db_published_rules(db, tenant, site, &lr->res)) != FB_OK)
		return e;
	if (lr->res.nrows == 0)
		return FB_OK;
	if ((lr->rules = calloc(lr->res.nrows, sizeof(*lr->rules))) == NULL) {
		dbres_free(&lr->res);
		return FB_ENOMEM;
	}
	lr->n = lr->res.nrows;
	for (i = 0; i < lr->n; i++) {
		struct url_rule	*r = &lr->rules[i];
		const char	*cid = dbres_get(&lr->res, (unsigned)i, PUBR_C_CAMPAIGN_ID);

		if (last == NULL || strcmp(last, cid) != 0)
			order++;
		last = cid;
		r->campaign = dbres_get(&lr->res, (unsigned)i, PUBR_C_KEY);
		r->campaign_order = order;
		r->position = (int)dbres_int(&lr->res, (unsigned)i, PUBR_C_POSITION);
		r->role = (enum rule_role)rule_role_parse(dbres_get(&lr->res,
		    (unsigned)i, PUBR_C_ROLE));
		r->type = (enum match_type)match_type_parse(dbres_get(&lr->res,
		    (unsigned)i, PUBR_C_TYPE));
		r->pattern = dbres_get(&lr->res, (unsigned)i, PUBR_C_PATTERN);
		r->priority = dbres_get(&lr->res, (unsigned)i, PUBR_C_PRIORITY) != NULL ?
		    (long)dbres_int(&lr->res, (unsigned)i, PUBR_C_PRIORITY) : -1;
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
	dbres_free(&lr->res);
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

enum fb_err
tagconf_build(struct db *db, const struct conf *c, const char *tenant,
    const char *site, json_object **out)
{
	struct dbres	 cs, tpl, camps;
	struct dbrows	 s;
	struct live_rules lr;
	json_object	*o, *consent, *text, *arr, *co, *fp;
	char		 collect[1024];
	const char	*key;
	unsigned	 i;
	size_t		 j;
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
	snprintf(collect, sizeof(collect), "%s/tag/v1/events", c->base_url);
	jadd_str(o, "collect", collect);
	consent = json_object_new_object();
	jadd_str(consent, "mode", dbres_get(&cs, 0, CONSENT_C_MODE));
	jadd_bool(consent, "checkbox_enabled", dbres_int(&cs, 0, CONSENT_C_CHECKBOX));
	jadd_bool(consent, "default_checked", dbres_int(&cs, 0, CONSENT_C_DEFAULT_CHECKED));
	jadd_bool(consent, "optout_link_enabled", dbres_int(&cs, 0, CONSENT_C_OPTOUT_LINK));
	key = dbres_get(&cs, 0, CONSENT_C_TEMPLATE);
	text = NULL;
	for (i = 0; i < tpl.nrows; i++)
		if (key != NULL && strcmp(key, dbres_get(&tpl, i, TPL_C_KEY)) == 0) {
			text = json_object_new_object();
			jadd_str(text, "main", dbres_get(&tpl, i, TPL_C_MAIN));
			jadd_str(text, "note", dbres_get(&tpl, i, TPL_C_NOTE));
		}
	json_object_object_add(consent, "text", text);
	json_object_object_add(o, "consent", consent);
	arr = json_object_new_array();
	for (i = 0; i < camps.nrows; i++) {
		co = json_object_new_object();
		jadd_str(co, "key", dbres_get(&camps, i, PUBC_C_KEY));
		jadd_str(co, "status", dbres_get(&camps, i, PUBC_C_STATUS));
		fp = json_object_new_object();
		json_object_object_add(fp, "tel_selectors",
		    json_or(dbres_get(&camps, i, PUBC_C_TEL), false));
		json_object_object_add(fp, "email_selectors",
		    json_or(dbres_get(&camps, i, PUBC_C_EMAIL), false));
		jadd_str(fp, "consent_selector", dbres_get(&camps, i, PUBC_C_CONSENT));
		json_object_object_add(fp, "tel_split_selectors",
		    json_or(dbres_get(&camps, i, PUBC_C_SPLIT), true));
		jadd_str(fp, "detected_by", dbres_get(&camps, i, PUBC_C_BY) != NULL ?
		    dbres_get(&camps, i, PUBC_C_BY) : "auto");
		json_object_object_add(co, "form_profile", fp);
		json_object_array_add(arr, co);
	}
	json_object_object_add(o, "campaigns", arr);
	arr = json_object_new_array();
	for (j = 0; j < lr.n; j++)
		json_object_array_add(arr, match_rule_json(&lr.rules[j]));
	json_object_object_add(o, "rules", arr);
	*out = o;
	live_rules_free(&lr);
out4:
	dbres_free(&camps);
out3:
	dbres_free(&tpl);
out2:
	dbres_free(&cs);
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
