/* SQL of tenants, members, API keys, sites, consent and the delivery switch. */
#include <stdio.h>
#include <string.h>

#include "store.h"

enum {
	TEN_CREATE,
	TEN_CONSENT_CREATE,
	TEN_EXISTS,
	TEN_MEMBER_CREATE,
	TEN_MEMBER_STATUS,
	TEN_MEMBER_TENANT,
	TEN_KEY_CREATE,
	TEN_KEY_REVOKE,
	TEN_KEY_TENANT,
	TEN_SITE_CREATE,
	TEN_SITE_TENANT,
	TEN_SITE_LIST,
	TEN_SITE_GET,
	TEN_SITE_SNIPPETS,
	TEN_CONSENT_GET,
	TEN_TEMPLATES,
	TEN_DSW_GET,
	TEN_DSW_SET,
	TEN_QUIET,
	TEN_SITE_RENAME,
	TEN_CONSENT_UPDATE,
	TEN__MAX
};

static const struct dbstmt ten_sql[TEN__MAX] = {
	/* TEN_CREATE */
	{ "tenant_create",
	  "INSERT INTO tenants (id, name, plan, rate_limit) VALUES (?, ?, ?, "
	  "?)" },
	/* TEN_CONSENT_CREATE */
	{ "tenant_consent_create",
	  "INSERT INTO consent_settings (tenant_id, optout_body) VALUES (?, "
	  "'今後のご案内が不要な場合は、下のボタンから配信を停止できます。')" },
	/* TEN_EXISTS */
	{ "tenant_exists", "SELECT 1 FROM tenants WHERE id = ?" },
	/* TEN_MEMBER_CREATE */
	{ "member_create",
	  "INSERT INTO members (id, tenant_id, email, role) VALUES (?, ?, ?, "
	  "?)" },
	/* TEN_MEMBER_STATUS */
	{ "member_set_status",
	  "UPDATE members SET status = ?, updated_at = NOW(6) WHERE id = ?" },
	/* TEN_MEMBER_TENANT */
	{ "member_tenant",
	    "SELECT tenant_id, role, status FROM members WHERE id = ?" },
	/* TEN_KEY_CREATE */
	{ "apikey_create",
	  "INSERT INTO api_keys (id, tenant_id, member_id, kind, key_hash, "
	  "key_prefix, scopes) VALUES (?, ?, ?, ?, ?, ?, ?)" },
	/* TEN_KEY_REVOKE */
	{ "apikey_revoke",
	  "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, NOW(6)) "
	  "WHERE id = ?" },
	/* TEN_KEY_TENANT */
	{ "apikey_tenant", "SELECT tenant_id FROM api_keys WHERE id = ?" },
	/* TEN_SITE_CREATE */
	{ "site_create",
	  "INSERT INTO sites (id, tenant_id, name, domain, public_key) "
	  "VALUES (?, ?, ?, ?, ?)" },
	/* TEN_SITE_TENANT: the owner of a site (operator path) */
	{ "site_tenant", "SELECT tenant_id FROM sites WHERE id = ?" },
	/* TEN_SITE_LIST */
	{ "site_list",
	  "SELECT " DB_SELECT(SITE_COLS) " FROM sites WHERE tenant_id = ? "
	  "AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?" },
	/* TEN_SITE_GET */
	{ "site_get",
	  "SELECT " DB_SELECT(SITE_COLS) " FROM sites WHERE tenant_id = ? AND "
	  "id = ?" },
	/*
	 * TEN_SITE_SNIPPETS: the site and the campaigns its snippets name,
	 * kept on its row by triggers (migration 0010): one look-up.
	 */
	{ "site_with_campaigns",
	  "SELECT " DB_SELECT(SITE_COLS) ", snippet_campaigns FROM sites "
	  "WHERE tenant_id = ? AND id = ?" },
	/* TEN_CONSENT_GET */
	{ "consent_get",
	  "SELECT " DB_SELECT(CONSENT_COLS) " FROM consent_settings "
	  "WHERE tenant_id = ?" },
	/* TEN_TEMPLATES */
	{ "consent_templates",
	  "SELECT " DB_SELECT(CONSENT_TEMPLATE_COLS) " FROM consent_templates "
	  "ORDER BY position" },
	/* TEN_DSW_GET */
	{ "delivery_status",
	  "SELECT " DB_SELECT(DELIVERY_STATUS_COLS) " FROM tenants WHERE id = "
	  "?" },
	/* TEN_DSW_SET */
	{ "delivery_switch",
	  "UPDATE tenants SET delivery_enabled_at = CASE "
	  "WHEN ? = 'off' THEN NULL "
	  "WHEN delivery_mode = 'off' THEN NOW(6) "
	  "ELSE delivery_enabled_at END, "
	  "delivery_mode = ?, updated_at = NOW(6) WHERE id = ?" },
	/* TEN_QUIET */
	{ "tenant_quiet_hours",
	  "UPDATE tenants SET sms_quiet_start = ?, sms_quiet_end = ?, "
	  "updated_at = NOW(6) WHERE id = ?" },
	/* TEN_SITE_RENAME */
	{ "site_rename",
	  "UPDATE sites SET name = ?, updated_at = NOW(6) WHERE tenant_id = ? "
	  "AND id = ?" },
	/* TEN_CONSENT_UPDATE: NULL keeps a field */
	{ "consent_update",
	  "UPDATE consent_settings SET "
	  "consent_checkbox_enabled = COALESCE(?, consent_checkbox_enabled), "
	  "consent_default_checked = COALESCE(?, consent_default_checked), "
	  "consent_optout_link_enabled = COALESCE(?, "
	  "consent_optout_link_enabled), consent_template_key = COALESCE(?, "
	  "consent_template_key), consent_mode = COALESCE(?, consent_mode), "
	  "optout_title = COALESCE(?, optout_title), "
	  "optout_body = COALESCE(?, optout_body), "
	  "optout_link_label = COALESCE(?, optout_link_label), "
	  "updated_at = NOW(6) WHERE tenant_id = ?" },
};

static enum fb_err
run(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	return db_run(db, DBSET_TENANT, id, &ten_sql[id], p, n, r);
}

#define DB_ROW struct site_row
static const struct dbcol site_cols[] = { DB_COLUMNS(SITE_COLS) };
/* the site is the first member: its fields are where site_row has them */
static const struct dbcol site_snippets_cols[] = { DB_COLUMNS(SITE_COLS)
	{ "snippet_campaigns", DBT_TEXT,
	  offsetof(struct site_snippets_row, snippet_campaigns) } };
#undef DB_ROW

/* A typed read (db_rows()); with `one`, no row is FB_ENOTFOUND. */
static enum fb_err
rows(struct db *db, int id, const struct dbp *p, size_t n,
    const struct dbcol *cols,
    size_t ncols, size_t rowsize, bool one, struct dbrows *out)
{
	return db_rows(db, DBSET_TENANT, id, &ten_sql[id], p, n, cols, ncols,
	    rowsize, one, out);
}

/* Run a look-up that must give one row; FB_ENOTFOUND otherwise. */
static enum fb_err
run_one(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	enum fb_err	 e;

	if ((e = run(db, id, p, n, r)) != FB_OK)
		return e;
	if (r->nrows == 0) {
		dbres_free(r);
		return FB_ENOTFOUND;
	}
	return FB_OK;
}

/* Run an update of one row by id and give that row's tenant. */
static enum fb_err
update_one(struct db *db, int upd, const struct dbp *p, size_t n, int tenant_q,
    const char *id, char tenant_out[UUID_STRLEN + 1])
{
	enum fb_err	 e;

	if ((e = db_tenant_of(db, DBSET_TENANT, tenant_q, &ten_sql[tenant_q],
	    id, tenant_out)) != FB_OK)
		return e;
	return run(db, upd, p, n, NULL);
}

enum fb_err
db_tenant_create(struct db *db, const char *id, const char *name,
    const char *plan, int rate_limit)
{
	enum fb_err	 e;

	if ((e = run(db, TEN_CREATE, DBPARAMS(P_STR(id), P_STR(name),
	    P_STR(plan), rate_limit < 0 ? P_NULL : P_INT(rate_limit)),
	    NULL)) != FB_OK)
		return e;
	return run(db, TEN_CONSENT_CREATE, DBPARAMS(P_STR(id)), NULL);
}

enum fb_err
db_tenant_exists(struct db *db, const char *tenant)
{
	struct dbres	 r;
	enum fb_err	 e;

	if ((e = run_one(db, TEN_EXISTS, DBPARAMS(P_STR(tenant)), &r)) == FB_OK)
		dbres_free(&r);
	return e;
}

enum fb_err
db_member_create(struct db *db, const char *id, const char *tenant,
    const char *email, const char *role)
{
	return run(db, TEN_MEMBER_CREATE, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(email), P_STR(role)), NULL);
}

enum fb_err
db_member_set_status(struct db *db, const char *id, const char *status,
    char tenant_out[UUID_STRLEN + 1])
{
	return update_one(db, TEN_MEMBER_STATUS, DBPARAMS(P_STR(status),
	    P_STR(id)), TEN_MEMBER_TENANT, id, tenant_out);
}

enum fb_err
db_member_tenant(struct db *db, const char *id,
    char tenant_out[UUID_STRLEN + 1],
    char *role_out, size_t rolesz, char *status_out, size_t statussz)
{
	struct dbres	 r;
	enum fb_err	 e;

	if ((e = run_one(db, TEN_MEMBER_TENANT, DBPARAMS(P_STR(id)),
	    &r)) != FB_OK)
		return e;
	snprintf(tenant_out, UUID_STRLEN + 1, "%s", dbres_get(&r, 0, 0));
	snprintf(role_out, rolesz, "%s", dbres_get(&r, 0, 1));
	snprintf(status_out, statussz, "%s", dbres_get(&r, 0, 2));
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_apikey_create(struct db *db, const char *id, const char *tenant,
    const char *member, const char *kind, const unsigned char *hash,
    const char *prefix, const char *scopes)
{
	return run(db, TEN_KEY_CREATE, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(member), P_STR(kind), P_BIN(hash, SECRET_HASH_LEN),
	    P_STR(prefix), P_STR(scopes)), NULL);
}

enum fb_err
db_apikey_revoke(struct db *db, const char *id,
    char tenant_out[UUID_STRLEN + 1])
{
	return update_one(db, TEN_KEY_REVOKE, DBPARAMS(P_STR(id)),
	    TEN_KEY_TENANT, id, tenant_out);
}

enum fb_err
db_site_create(struct db *db, const char *id, const char *tenant,
    const char *name, const char *domain, const char *public_key)
{
	return run(db, TEN_SITE_CREATE, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(name), P_STR(domain), P_STR(public_key)), NULL);
}

enum fb_err
db_site_tenant(struct db *db, const char *id, char tenant_out[UUID_STRLEN + 1])
{
	return db_tenant_of(db, DBSET_TENANT, TEN_SITE_TENANT,
	    &ten_sql[TEN_SITE_TENANT], id, tenant_out);
}

enum fb_err
db_site_list(struct db *db, const char *tenant, const char *after, int n,
    struct dbrows *out)
{
	return rows(db, TEN_SITE_LIST, DBPARAMS(P_STR(tenant), P_STR(after),
	    P_STR(after), P_INT(n)), site_cols, NELEM(site_cols),
	    sizeof(struct site_row), false, out);
}

enum fb_err
db_site_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, TEN_SITE_GET, DBPARAMS(P_STR(tenant), P_STR(id)),
	    site_cols, NELEM(site_cols), sizeof(struct site_row), true, out);
}

enum fb_err
db_site_with_campaigns(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return rows(db, TEN_SITE_SNIPPETS, DBPARAMS(P_STR(tenant), P_STR(id)),
	    site_snippets_cols, NELEM(site_snippets_cols),
	    sizeof(struct site_snippets_row), true, out);
}

enum fb_err
db_consent_get(struct db *db, const char *tenant, struct dbrows *out)
{
#define DB_ROW struct consent_row
	static const struct dbcol cols[] = { DB_COLUMNS(CONSENT_COLS) };
#undef DB_ROW

	return rows(db, TEN_CONSENT_GET, DBPARAMS(P_STR(tenant)), cols,
	    NELEM(cols), sizeof(struct consent_row), true, out);
}

enum fb_err
db_consent_templates(struct db *db, struct dbrows *out)
{
#define DB_ROW struct consent_template_row
	static const struct dbcol cols[] = {
	    DB_COLUMNS(CONSENT_TEMPLATE_COLS) };
#undef DB_ROW

	return rows(db, TEN_TEMPLATES, DBNOPARAMS, cols, NELEM(cols),
	    sizeof(struct consent_template_row), false, out);
}

enum fb_err
db_delivery_status(struct db *db, const char *tenant, struct dbrows *out)
{
#define DB_ROW struct delivery_status_row
	static const struct dbcol cols[] = { DB_COLUMNS(DELIVERY_STATUS_COLS) };
#undef DB_ROW

	return rows(db, TEN_DSW_GET, DBPARAMS(P_STR(tenant)), cols, NELEM(cols),
	    sizeof(struct delivery_status_row), true, out);
}

enum fb_err
db_delivery_switch(struct db *db, const char *tenant, const char *mode)
{
	struct dbres	 r;
	enum fb_err	 e;

	if ((e = run(db, TEN_DSW_SET, DBPARAMS(P_STR(mode), P_STR(mode),
	    P_STR(tenant)), &r)) != FB_OK)
		return e;
	dbres_free(&r);
	return db_tenant_exists(db, tenant);
}

enum fb_err
db_tenant_quiet_hours(struct db *db, const char *tenant, int start, int end)
{
	return run(db, TEN_QUIET,
	    DBPARAMS(P_INT(start), P_INT(end), P_STR(tenant)), NULL);
}

enum fb_err
db_site_rename(struct db *db, const char *tenant, const char *id,
    const char *name)
{
	return run(db, TEN_SITE_RENAME, DBPARAMS(P_STR(name), P_STR(tenant),
	    P_STR(id)), NULL);
}

static struct dbp
tri(int v)
{
	return v < 0 ? P_NULL : P_INT(v);
}

enum fb_err
db_consent_update(struct db *db, const char *tenant,
    const struct consent_patch *p)
{
	return run(db, TEN_CONSENT_UPDATE, DBPARAMS(tri(p->checkbox),
	    tri(p->default_checked), tri(p->optout_link),
	    P_STR(p->template_key), P_STR(p->mode), P_STR(p->optout_title),
	    P_STR(p->optout_body), P_STR(p->optout_link_label),
	    P_STR(tenant)), NULL);
}
