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

void
match_rule_gen(struct jgen *j, const char *key, const struct url_rule *r)
{
	jg_obj(j, key);
	jg_str(j, "campaign", r->campaign);
	jg_str(j, "role", rule_role_names[r->role]);
	jg_str(j, "match_type", match_type_names[r->type]);
	jg_str(j, "pattern", r->pattern);
	if (r->priority >= 0)
		jg_int(j, "priority", r->priority);
	else
		jg_str(j, "priority", NULL);
	jg_obj_end(j);
}

/* A stored JSON array (a selector list), or `missing` when there is none. */
static void
json_or(struct jgen *j, const char *key, const char *text, const char *missing)
{
	jg_raw(j, key, text != NULL ? text : missing);
}

void
form_profile_gen(struct jgen *j, const struct form_profile_row *p)
{
	static const struct form_profile_row none;

	if (p == NULL)
		p = &none;
	json_or(j, "tel_selectors", p->tel_selectors, "[]");
	json_or(j, "email_selectors", p->email_selectors, "[]");
	jg_str(j, "consent_selector", p->consent_selector);
	json_or(j, "tel_split_selectors", p->tel_split_selectors, NULL);
	jg_str(j, "detected_by", p->detected_by != NULL ? p->detected_by :
	    "auto");
}

/* What the configuration is made of, read in one go. */
struct tagconf {
	struct dbrows	 s, cs, tpl, camps;
	struct live_rules lr;
};

static void
tagconf_free(struct tagconf *t)
{
	live_rules_free(&t->lr);
	dbrows_free(&t->camps);
	dbrows_free(&t->tpl);
	dbrows_free(&t->cs);
	dbrows_free(&t->s);
}

static enum fb_err
tagconf_load(struct db *db, const char *tenant, const char *site,
    struct tagconf *t)
{
	enum fb_err	 e;

	memset(t, 0, sizeof(*t));
	if ((e = db_site_get(db, tenant, site, &t->s)) != FB_OK ||
	    (e = db_consent_get(db, tenant, &t->cs)) != FB_OK ||
	    (e = db_consent_templates(db, &t->tpl)) != FB_OK ||
	    (e = db_published_campaigns(db, tenant, site, &t->camps)) !=
	    FB_OK ||
	    (e = live_rules_load(db, tenant, site, &t->lr)) != FB_OK)
		tagconf_free(t);
	return e;
}

/* The consent member: the mode, the switches and the template's text. */
static void
tagconf_consent(struct jgen *j, const struct tagconf *t)
{
	const struct consent_row *c = t->cs.row;
	const struct consent_template_row *tp = t->tpl.row, *text = NULL;
	size_t		 i;

	for (i = 0; i < t->tpl.n; i++)
		if (c->template_key != NULL &&
		    strcmp(c->template_key, tp[i].key) == 0)
			text = &tp[i];
	jg_obj(j, "consent");
	jg_str(j, "mode", c->mode);
	jg_bool(j, "checkbox_enabled", c->checkbox_enabled);
	jg_bool(j, "default_checked", c->default_checked);
	jg_bool(j, "optout_link_enabled", c->optout_link_enabled);
	if (text != NULL) {
		jg_obj(j, "text");
		jg_str(j, "main", text->main);
		jg_str(j, "note", text->note);
		jg_obj_end(j);
	} else
		jg_str(j, "text", NULL);
	jg_obj_end(j);
}

enum fb_err
tagconf_gen(struct db *db, const struct conf *conf, const char *tenant,
    const char *site, struct jgen *j)
{
	struct tagconf	 t;
	const struct published_campaign_row *pc;
	char		 collect[1024];
	size_t		 i;
	enum fb_err	 e;

	if ((e = tagconf_load(db, tenant, site, &t)) != FB_OK)
		return e;
	jg_int(j, "v", 1);
	jg_str(j, "site", ((const struct site_row *)t.s.row)->public_key);
	snprintf(collect, sizeof(collect), "%s/tag/v1/events", conf->base_url);
	jg_str(j, "collect", collect);
	tagconf_consent(j, &t);
	jg_arr(j, "campaigns");
	for (i = 0, pc = t.camps.row; i < t.camps.n; i++) {
		jg_obj(j, NULL);
		jg_str(j, "key", pc[i].key);
		jg_str(j, "status", pc[i].status);
		jg_obj(j, "form_profile");
		form_profile_gen(j, &pc[i].profile);
		jg_obj_end(j);
		jg_obj_end(j);
	}
	jg_arr_end(j);
	jg_arr(j, "rules");
	for (i = 0; i < t.lr.n; i++)
		match_rule_gen(j, NULL, &t.lr.rules[i]);
	jg_arr_end(j);
	tagconf_free(&t);
	return FB_OK;
}

/* The site's configuration as one JSON document, into out. */
static enum fb_err
tagconf_text(struct db *db, const struct conf *c, const char *tenant,
    const char *site, struct buf *out)
{
	struct jgen	 j;
	enum fb_err	 e;

	jgen_begin(&j, out);
	jg_obj(&j, NULL);
	if ((e = tagconf_gen(db, c, tenant, site, &j)) != FB_OK)
		return e;
	jg_obj_end(&j);
	return jgen_end(&j);
}

/* Write the site's configuration to a temporary file; its path in tmp. */
static bool
write_temp(struct db *db, const struct conf *c, const char *tenant,
    const char *site, char *tmp, size_t tmpsz, char *final, size_t finalsz,
    char *err, size_t errsz)
{
	struct buf	 text;
	struct dbrows	 s;
	const char	*pk;
	unsigned char	 rnd[6];
	char		 hex[13];
	int		 fd;
	bool		 ok;

	buf_init(&text, TAGCONF_MAX);
	if (tagconf_text(db, c, tenant, site, &text) != FB_OK) {
		buf_release(&text);
		snprintf(err, errsz, "cannot build the configuration");
		return false;
	}
	if (db_site_get(db, tenant, site, &s) != FB_OK) {
		buf_release(&text);
		snprintf(err, errsz, "cannot read the site");
		return false;
	}
	randombytes_buf(rnd, sizeof(rnd));
	sodium_bin2hex(hex, sizeof(hex), rnd, sizeof(rnd));
	pk = ((const struct site_row *)s.row)->public_key;
	snprintf(final, finalsz, "%s/%s.json", c->publish_dir, pk);
	snprintf(tmp, tmpsz, "%s/.%s.%s.tmp", c->publish_dir, pk, hex);
	dbrows_free(&s);
	ok = false;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0)
		snprintf(err, errsz, "cannot create '%s': %s", tmp,
		    strerror(errno));
	else if (write(fd, text.data, text.len) != (ssize_t)text.len ||
	    fsync(fd) != 0) {
		snprintf(err, errsz, "cannot write '%s': %s", tmp,
		    strerror(errno));
		close(fd);
		unlink(tmp);
	} else if (close(fd) != 0) {
		snprintf(err, errsz, "cannot close '%s': %s", tmp,
		    strerror(errno));
		unlink(tmp);
	} else
		ok = true;
	buf_release(&text);
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
		if (db_site_published(r->db, tenant, site,
		    "write failed") != FB_OK)
			logx(LOG_ERR, "cannot record the publish failure");
		return false;
	}
	if (db_site_published(r->db, tenant, site, NULL) != FB_OK)
		logx(LOG_ERR, "cannot record the publish of site '%s'", site);
	snprintf(r->publish_site[r->npublish], sizeof(r->publish_site[0]), "%s",
	    site);
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
			logx(LOG_ERR, "cannot rename '%s': %s",
			    r->publish_tmp[i], strerror(errno));
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
		snprintf(err, errsz, "cannot rename '%s': %s", tmp,
		    strerror(errno));
		unlink(tmp);
		return FB_EIO;
	}
	return db_site_published(db, tenant, site, NULL);
}
