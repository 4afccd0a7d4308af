/* Sites (contract: Endpoints, Sites): list and detail with snippets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../api.h"
#include "../contact.h"
#include "../ops/site.h"
#include "../netguard.h"
#include "../publish.h"
#include "../rowjson.h"
#include "../db/store.h"

enum fb_err
api_sites_list(struct req *r)
{
	struct page	 pg;
	struct dbrows	 rows;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	if ((e = db_site_list(r->db, r->auth.tenant_id,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct site_row),
	    offsetof(struct site_row, id), site_json, NULL);
}

/*
 * The installation snippet of campaign `c` ({"id","key","name"}) of the
 * site with public key `pk` (design 3).  With nonce, every script tag
 * carries the placeholder the caller replaces per response (contract:
 * Endpoints, Sites).
 */
static void
snippet_gen(struct jgen *j, struct req *r, const char *pk, json_object *c,
    bool nonce)
{
	json_object	*v;
	const char	*id = NULL, *key = NULL, *name = NULL;
	struct buf	 b;

	if (json_object_object_get_ex(c, "id", &v))
		id = json_object_get_string(v);
	if (json_object_object_get_ex(c, "key", &v))
		key = json_object_get_string(v);
	if (json_object_object_get_ex(c, "name", &v))
		name = json_object_get_string(v);
	buf_init(&b, 4096);
	if (buf_printf(&b, "<script%s async src=\"%s/tag.js\" data-site=\"%s\" "
	    "data-campaign=\"%s\"></script>", nonce ? " "
	    "nonce=\"__CSP_NONCE__\"" : "",
	    r->conf->base_url, pk, key != NULL ? key : "") != FB_OK)
		buf_reset(&b);
	jg_obj(j, NULL);
	jg_str(j, "campaign_id", id);
	jg_str(j, "campaign_key", key);
	jg_str(j, "campaign_name", name);
	jg_str(j, "html", b.data);
	jg_obj_end(j);
	buf_release(&b);
}

/*
 * A worker's answers of GET /sites/{site_id} (issue 13), one slot per
 * (tenant, site, nonce) hash, each kept with the tenant's data epoch of
 * the admission before it was read (r->rate.data_epoch).  Every change
 * to a site row bumps that epoch in its own transaction (migration 0027:
 * its fields, its snippets, its sending hold), so an answer is written
 * again only to requests admitted at the same epoch, which would read
 * the same row: exact, and nothing shared between workers or hosts.
 */
#define KEPT_SITES	64

struct kept_site {
	char		 tenant_id[UUID_STRLEN + 1];
	char		 site_id[UUID_STRLEN + 1];
	bool		 nonce;
	long long	 epoch;
	char		*body;		/* NULL: an empty slot */
	size_t		 len;
};

static struct kept_site kept_sites[KEPT_SITES];

static enum fb_err site_read(struct req *, const char *, bool);

/* The slot of (tenant, site, nonce): FNV-1a of the ids, nonce its low bit. */
static struct kept_site *
kept_site_slot(const char *tenant, const char *site, bool nonce)
{
	uint32_t	 h = fnv1a(fnv1a(FNV1A_INIT, tenant), site);

	return &kept_sites[(h ^ nonce) % KEPT_SITES];
}

enum fb_err
api_sites_get(struct req *r)
{
	struct kept_site *a = NULL;
	enum fb_err	 e;
	const char	*id = req_pathvar(r, "site_id"), *nonce;
	bool		 with_nonce;

	nonce = req_query(r, "nonce");
	with_nonce = nonce != NULL && (strcmp(nonce, "true") == 0 ||
	    strcmp(nonce, "1") == 0);
	/* only after an admission, which read the epoch */
	if (r->rate.set && strlen(id) <= UUID_STRLEN) {
		a = kept_site_slot(r->auth.tenant_id, id, with_nonce);
		if (a->body != NULL && a->epoch == r->rate.data_epoch &&
		    a->nonce == with_nonce && strcmp(a->site_id, id) == 0 &&
		    strcmp(a->tenant_id, r->auth.tenant_id) == 0) {
			buf_reset(&r->out);
			r->status = 200;
			return buf_add(&r->out, a->body, a->len);
		}
	}
	if ((e = site_read(r, id, with_nonce)) != FB_OK || r->status != 200 ||
	    a == NULL)
		return e;
	free(a->body);
	if ((a->body = malloc(r->out.len)) != NULL) {
		memcpy(a->body, r->out.data, r->out.len);
		a->len = r->out.len;
		a->epoch = r->rate.data_epoch;
		a->nonce = with_nonce;
		snprintf(a->tenant_id, sizeof(a->tenant_id), "%s",
		    r->auth.tenant_id);
		snprintf(a->site_id, sizeof(a->site_id), "%s", id);
	}
	return FB_OK;
}

/* The answer of GET /sites/{site_id} read from the database. */
static enum fb_err
site_read(struct req *r, const char *id, bool with_nonce)
{
	struct dbrows	 rows;
	const struct site_snippets_row *site;
	struct jgen	 j;
	json_object	*list = NULL;
	size_t		 i, n;
	enum fb_err	 e;
	char		 tag[1024];

	e = db_site_with_campaigns(r->db, r->auth.tenant_id, id, &rows);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "site_id");
	if (e != FB_OK)
		return e;
	site = rows.row;
	req_gen_begin(r, &j);
	site_json(&j, &site->site);
	snprintf(tag, sizeof(tag), "%s/tag.js", r->conf->base_url);
	jg_str(&j, "tag_url", tag);
	/* oldest campaign first, as the triggers keep them */
	jg_arr(&j, "snippets");
	if (site->snippet_campaigns != NULL &&
	    (list = json_tokener_parse(site->snippet_campaigns)) != NULL &&
	    json_object_is_type(list, json_type_array)) {
		n = json_object_array_length(list);
		for (i = 0; i < n; i++)
			snippet_gen(&j, r, site->site.public_key,
			    json_object_array_get_idx(list, i), with_nonce);
	} else if (site->snippet_campaigns != NULL)
		logx(LOG_ERR, "site %s: snippet_campaigns is not a JSON array",
		    id);
	jg_arr_end(&j);
	json_object_put(list);
	dbrows_free(&rows);
	return req_gen_end(r, &j, 200);
}

/* GET /sites/{id}/tag-config: the live configuration, free-form. */
enum fb_err
api_sites_tag_config(struct req *r)
{
	struct jgen	 j;
	enum fb_err	 e;

	req_gen_begin(r, &j);
	e = tagconf_gen(r->db, r->conf, r->auth.tenant_id,
	    req_pathvar(r, "site_id"), &j);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "site_id");
	if (e != FB_OK)
		return e;
	return req_gen_end(r, &j, 200);
}

/* MatchTestOut: the URL, its parts, and the rules the tag evaluated. */
static void
match_test_gen(struct jgen *j, const char *url, const struct url_loc *loc,
    const struct live_rules *lr, long hit, size_t evaluated)
{
	size_t	 i;

	jg_str(j, "url", url);
	jg_obj(j, "location");
	jg_str(j, "hostname", loc->hostname);
	jg_str(j, "pathname", loc->pathname);
	jg_str(j, "search", loc->search);
	jg_obj_end(j);
	jg_bool(j, "assigned", hit >= 0);
	jg_str(j, "campaign", hit >= 0 ? lr->rules[hit].campaign : NULL);
	jg_str(j, "role", hit >= 0 ? rule_role_names[lr->rules[hit].role] :
	    NULL);
	if (hit >= 0)
		match_rule_gen(j, "matched", &lr->rules[hit]);
	else
		jg_str(j, "matched", NULL);
	jg_arr(j, "evaluated");
	for (i = 0; i < evaluated; i++)
		match_rule_gen(j, NULL, &lr->rules[i]);
	jg_arr_end(j);
}

/*
 * POST /sites/{id}/url-rules/test (contract: Match test): the live
 * configuration evaluated in the tag's order; writes nothing.
 */
enum fb_err
api_sites_match_test(struct req *r)
{
	const char		*url, *site = req_pathvar(r, "site_id");
	struct url_loc		 loc;
	struct live_rules	 lr;
	struct dbrows		 s;
	struct jgen		 j;
	size_t			 evaluated;
	long			 hit;
	enum fb_err		 e;

	if (body_str(r, "url", true, URL_MAX, &url) < 0)
		return FB_OK;
	if (!url_parse(url, &loc))
		return api_error(r, AC_PARAMETER_INVALID, "url");
	e = db_site_get(r->db, r->auth.tenant_id, site, &s);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "site_id");
	if (e != FB_OK)
		return e;
	dbrows_free(&s);
	if ((e = live_rules_load(r->db, r->auth.tenant_id, site, &lr)) !=
	    FB_OK)
		return e;
	hit = rules_decide(lr.rules, lr.n, &loc, &evaluated);
	req_gen_begin(r, &j);
	match_test_gen(&j, url, &loc, &lr, hit, evaluated);
	live_rules_free(&lr);
	return req_gen_end(r, &j, 200);
}

/* The one writer of a privacy-policy check (PpCheckOut). */
static void
pp_check_gen(struct jgen *j, const void *row)
{
	const struct pp_check_row *c = row;

	jg_str(j, "id", c->id);
	jg_str(j, "object", "pp_check");
	jg_str(j, "site_id", c->site_id);
	jg_str(j, "url", c->url);
	jg_str(j, "status", c->status);
	jg_str(j, "consent_mode", c->consent_mode);
	if (c->http_status != NULL)
		jg_int(j, "http_status", strtol(c->http_status, NULL, 10));
	else
		jg_str(j, "http_status", NULL);
	jg_raw(j, "findings", c->findings != NULL ? c->findings : "[]");
	jg_str(j, "page_sha256", c->page_sha256);
	jg_str(j, "error", c->error);
	jg_time(j, "checked_at", c->checked_at);
}

/* The site of the path, or a 404 written; -1 then. */
static int
pp_site(struct req *r, const char **site, enum fb_err *e)
{
	struct dbrows	 s;

	*site = req_pathvar(r, "site_id");
	*e = db_site_get(r->db, r->auth.tenant_id, *site, &s);
	if (*e == FB_ENOTFOUND) {
		*e = api_error(r, AC_NOT_FOUND, "site_id");
		return -1;
	}
	if (*e != FB_OK)
		return -1;
	dbrows_free(&s);
	return 0;
}

/* GET /sites/{id}/pp-checks: newest first, 20 a page by default. */
enum fb_err
api_pp_checks_list(struct req *r)
{
	struct page	 pg;
	struct dbrows	 rows;
	const char	*site;
	enum fb_err	 e;

	if (page_from_req(r, &pg) != 0)
		return FB_OK;
	if (pp_site(r, &site, &e) != 0)
		return e;
	if ((e = db_pp_check_list(r->db, r->auth.tenant_id, site,
	    pg.has_after ? pg.after : NULL, pg.limit + 1, &rows)) != FB_OK)
		return e;
	return page_answer(r, &pg, &rows, sizeof(struct pp_check_row),
	    offsetof(struct pp_check_row, id), pp_check_gen, NULL);
}

enum fb_err
api_pp_checks_get(struct req *r)
{
	struct dbrows	 row;
	const char	*site;
	enum fb_err	 e;

	if (pp_site(r, &site, &e) != 0)
		return e;
	e = db_pp_check_get(r->db, r->auth.tenant_id, site,
	    req_pathvar(r, "check_id"), &row);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "check_id");
	if (e != FB_OK)
		return e;
	e = req_row(r, 200, pp_check_gen, row.row);
	dbrows_free(&row);
	return e;
}

/* A site as create and update answer it, with its privacy-policy URL. */
static enum fb_err
site_answer(struct req *r, const char *id, int status)
{
	struct dbrows	 s;
	enum fb_err	 e;

	if ((e = db_site_get(r->db, r->auth.tenant_id, id, &s)) != FB_OK)
		return e;
	e = req_row(r, status, site_json, s.row);
	dbrows_free(&s);
	return e;
}

/* POST /api/v1/admin/sites (owner, admin; issue 16). */
enum fb_err
api_sites_create(struct req *r)
{
	const char	*name, *domain;
	char		 host[SITE_DOMAIN_MAX + 1], id[UUID_STRLEN + 1];
	char		 pk[SITE_KEY_SIZE];
	enum fb_err	 e;

	if (body_str(r, "name", true, SITE_NAME_MAX, &name) < 0 ||
	    body_str(r, "domain", true, SITE_DOMAIN_MAX, &domain) < 0)
		return FB_OK;
	if (!site_name_ok(name))
		return api_error(r, AC_PARAMETER_INVALID, "name");
	if (!site_domain(domain, host))
		return api_error(r, AC_PARAMETER_INVALID, "domain");
	if ((e = site_create(r->db, r->auth.tenant_id, name, host, id,
	    pk)) != FB_OK)
		return e;
	r->audit_type = "site";
	memcpy(r->audit_id, id, sizeof(id));
	return site_answer(r, id, 201);
}

/*
 * PATCH /api/v1/admin/sites/{site_id}: name, privacy_policy_url (http or
 * https on a public address, as the URL parser serializes it; null or ""
 * clears it).  The domain and public key never change: the tag and its
 * snippets name them.
 */
enum fb_err
api_sites_update(struct req *r)
{
	const char	*id = req_pathvar(r, "site_id"), *name, *pp, *why;
	char		 url[URL_MAX + 1];
	struct dbrows	 s;
	enum fb_err	 e;

	if (body_str(r, "name", false, SITE_NAME_MAX, &name) < 0 ||
	    body_str(r, "privacy_policy_url", false, URL_MAX, &pp) < 0)
		return FB_OK;
	if (name != NULL && !site_name_ok(name))
		return api_error(r, AC_PARAMETER_INVALID, "name");
	e = db_site_get(r->db, r->auth.tenant_id, id, &s);
	if (e == FB_ENOTFOUND)
		return api_error(r, AC_NOT_FOUND, "site_id");
	if (e != FB_OK)
		return e;
	dbrows_free(&s);
	if (pp != NULL && *pp != '\0' &&
	    !net_url_ok(r->conf, pp, false, url, &why)) {
		logx(LOG_INFO, "privacy-policy url refused: %s", why);
		return api_error(r, AC_PARAMETER_INVALID, "privacy_policy_url");
	}
	if (name != NULL && (e = db_site_rename(r->db, r->auth.tenant_id, id,
	    name)) != FB_OK)
		return e;
	if (body_has(r, "privacy_policy_url") &&
	    (e = db_site_set_pp_url(r->db, r->auth.tenant_id, id,
	    pp != NULL && *pp != '\0' ? url : NULL)) != FB_OK)
		return e;
	r->audit_type = "site";
	snprintf(r->audit_id, sizeof(r->audit_id), "%s", id);
	return site_answer(r, id, 200);
}
