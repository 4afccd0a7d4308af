/*
 * SQL of capture configuration: campaign updates and copies, URL rules,
 * form profiles, what a site publishes, and takeover look-backs.
 */
#include <stdio.h>
#include <string.h>

#include "store.h"

enum {
	CAP_CAMP_UPDATE,
	CAP_CAMP_BY_KEY,
	CAP_CAMP_COPY,
	CAP_RULES_LIST,
	CAP_RULES_DELETE,
	CAP_RULE_INSERT,
	CAP_PROFILE_GET,
	CAP_PROFILE_PUT,
	CAP_PROFILE_DELETE,
	CAP_PUB_CAMPAIGNS,
	CAP_PUB_RULES,
	CAP_SITE_PUBLISHED,
	CAP_EVENT_CONTEXT,
	CAP_EVENT_CONTEXT_SITE,
	CAP_SITES_ALL,
	CAP_TAKEOVER_PAGES,
	CAP__MAX
};

/* Campaigns a site publishes (design 2; contract: States, Campaign). */
#define PUBLISHED DB_CAMPAIGN_PUBLISHED

/* The site found by `by`, its consent mode and its tenant's campaign by key. */
#define EVENT_CONTEXT(by) \
	"SELECT " DB_SELECT(EVENT_CONTEXT_COLS) " FROM sites s " \
	"JOIN consent_settings cs ON cs.tenant_id = s.tenant_id " \
	"LEFT JOIN campaigns c ON c.tenant_id = s.tenant_id AND " \
	"c.campaign_key = ? WHERE " by " = ?"

static const struct dbstmt cap_sql[CAP__MAX] = {
	/*
	 * CAP_CAMP_UPDATE: NULL leaves a column as it is; ? = 1 clears
	 * product_name
	 */
	{ "campaign_update",
	  "UPDATE campaigns SET name = COALESCE(?, name), "
	  "product_name = IF(?, ?, product_name), "
	  "abandon_wait_minutes = COALESCE(?, abandon_wait_minutes), "
	  "updated_at = NOW(6) WHERE tenant_id = ? AND id = ?" },
	/* CAP_CAMP_BY_KEY */
	{ "campaign_by_key",
	  "SELECT c.id FROM campaigns c WHERE c.tenant_id = ? AND "
	  "c.campaign_key = ?" },
	/* CAP_CAMP_COPY: paused and never run (contract: States, Campaign) */
	{ "campaign_copy",
	  "INSERT INTO campaigns (id, tenant_id, site_id, campaign_key, name, "
	  "product_name, status, abandon_wait_minutes) SELECT ?, tenant_id, "
	  "site_id, ?, ?, product_name, 'paused', abandon_wait_minutes "
	  "FROM campaigns WHERE tenant_id = ? AND id = ?" },
	/* CAP_RULES_LIST */
	{ "url_rules_list",
	  "SELECT " DB_SELECT(URL_RULE_COLS) " FROM url_rules r "
	  "WHERE r.tenant_id = ? AND r.campaign_id = ? ORDER BY r.position" },
	/* CAP_RULES_DELETE */
	{ "url_rules_delete",
	  "DELETE FROM url_rules WHERE tenant_id = ? AND campaign_id = ?" },
	/* CAP_RULE_INSERT */
	{ "url_rule_insert",
	  "INSERT INTO url_rules (id, tenant_id, campaign_id, position, role, "
	  "match_type, pattern, priority) VALUES (?, ?, ?, ?, ?, ?, ?, ?)" },
	/* CAP_PROFILE_GET */
	{ "form_profile_get",
	  "SELECT " DB_SELECT(FORM_PROFILE_COLS) " FROM form_profiles p "
	  "WHERE p.tenant_id = ? AND p.campaign_id = ?" },
	/* CAP_PROFILE_PUT */
	{ "form_profile_put",
	  "INSERT INTO form_profiles (campaign_id, tenant_id, tel_selectors, "
	  "email_selectors, consent_selector, tel_split_selectors, "
	  "detected_by, detected_at) VALUES (?, ?, ?, ?, ?, ?, ?, IF(? = "
	  "'auto', NULL, NOW(6))) ON DUPLICATE KEY UPDATE tel_selectors = "
	  "VALUES(tel_selectors), email_selectors = VALUES(email_selectors), "
	  "consent_selector = VALUES(consent_selector), "
	  "tel_split_selectors = VALUES(tel_split_selectors), "
	  "detected_by = VALUES(detected_by), detected_at = "
	  "VALUES(detected_at), updated_at = NOW(6)" },
	/* CAP_PROFILE_DELETE */
	{ "form_profile_delete",
	  "DELETE FROM form_profiles WHERE tenant_id = ? AND campaign_id = ?" },
	/* CAP_PUB_CAMPAIGNS: oldest first, with their profiles */
	{ "published_campaigns",
	  "SELECT " DB_SELECT(FORM_PROFILE_COLS) ", "
	  DB_SELECT(PUBLISHED_CAMPAIGN_COLS) " FROM campaigns c LEFT JOIN "
	  "form_profiles p ON p.campaign_id = c.id WHERE c.tenant_id = ? AND "
	  "c.site_id = ? AND " PUBLISHED " ORDER BY c.id" },
	/*
	 * CAP_PUB_RULES: in evaluation order (priority, null last; campaign;
	 * position)
	 */
	{ "published_rules",
	  "SELECT " DB_SELECT(PUBLISHED_RULE_COLS) " FROM url_rules r "
	  "JOIN campaigns c ON c.id = r.campaign_id "
	  "WHERE c.tenant_id = ? AND c.site_id = ? AND " PUBLISHED
	  " ORDER BY r.priority IS NULL, r.priority, c.id, r.position" },
	/* CAP_SITE_PUBLISHED */
	{ "site_published",
	  "UPDATE sites SET published_at = IF(? IS NULL, NOW(6), "
	  "published_at), publish_error = ? WHERE tenant_id = ? AND id = ?" },
	/* CAP_EVENT_CONTEXT: what the collector needs, in one round trip */
	{ "event_context", EVENT_CONTEXT("s.public_key") },
	/* CAP_EVENT_CONTEXT_SITE: the same by site id */
	{ "event_context_site", EVENT_CONTEXT("s.id") },
	/* CAP_SITES_ALL */
	{ "sites_all",
	    "SELECT " DB_SELECT(SITE_REF_COLS) " FROM sites ORDER BY id" },
	/* CAP_TAKEOVER_PAGES: what an active campaign handled in 30 days */
	{ "takeover_pages",
	  "SELECT DISTINCT " DB_SELECT(PAGE_COLS) " FROM tag_events "
	  "WHERE tenant_id = ? AND campaign_id = ? "
	  "AND event_type = 'page_view' "
	  "AND received_at > NOW(6) - INTERVAL 30 DAY LIMIT 1000" },
};

static enum fb_err
run(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	return db_run(db, DBSET_CAPTURE, id, &cap_sql[id], p, n, r);
}

static enum fb_err
rows(struct db *db, int id, const struct dbp *p, size_t n,
    const struct dbcol *cols,
    size_t ncols, size_t rowsize, bool one, struct dbrows *out)
{
	return db_rows(db, DBSET_CAPTURE, id, &cap_sql[id], p, n, cols, ncols,
	    rowsize, one, out);
}

#define DB_ROW struct event_context_row
static const struct dbcol event_context_cols[] = {
	DB_COLUMNS(EVENT_CONTEXT_COLS) };
#undef DB_ROW
#define DB_ROW struct url_rule_row
static const struct dbcol url_rule_cols[] = { DB_COLUMNS(URL_RULE_COLS) };
#undef DB_ROW
#define DB_ROW struct form_profile_row
#define FORM_PROFILE_COLUMNS DB_COLUMNS(FORM_PROFILE_COLS)
static const struct dbcol form_profile_cols[] = { FORM_PROFILE_COLUMNS };
static const struct dbcol published_campaign_cols[] = { FORM_PROFILE_COLUMNS
#undef DB_ROW
#define DB_ROW struct published_campaign_row
	DB_COLUMNS(PUBLISHED_CAMPAIGN_COLS) };
#undef DB_ROW
#undef FORM_PROFILE_COLUMNS

enum fb_err
db_campaign_update(struct db *db, const char *tenant, const char *id,
    const char *name, bool set_product, const char *product, long long wait)
{
	return run(db, CAP_CAMP_UPDATE,
	    DBPARAMS(P_STR(name), P_INT(set_product),
	    P_STR(product), wait > 0 ? P_INT(wait) : P_NULL, P_STR(tenant),
	    P_STR(id)), NULL);
}

enum fb_err
db_campaign_key_taken(struct db *db, const char *tenant, const char *key,
    bool *taken)
{
	struct dbres	 r;
	enum fb_err	 e;

	*taken = false;
	if ((e = run(db, CAP_CAMP_BY_KEY, DBPARAMS(P_STR(tenant), P_STR(key)),
	    &r)) != FB_OK)
		return e;
	*taken = r.nrows > 0;
	dbres_free(&r);
	return FB_OK;
}

enum fb_err
db_campaign_copy(struct db *db, const char *tenant, const char *from,
    const char *id, const char *key, const char *name)
{
	return run(db, CAP_CAMP_COPY,
	    DBPARAMS(P_STR(id), P_STR(key), P_STR(name),
	    P_STR(tenant), P_STR(from)), NULL);
}

enum fb_err
db_url_rules(struct db *db, const char *tenant, const char *campaign,
    struct dbrows *out)
{
	return rows(db, CAP_RULES_LIST,
	    DBPARAMS(P_STR(tenant), P_STR(campaign)),
	    url_rule_cols, NELEM(url_rule_cols), sizeof(struct url_rule_row),
	    false, out);
}

enum fb_err
db_url_rules_delete(struct db *db, const char *tenant, const char *campaign)
{
	return run(db, CAP_RULES_DELETE,
	    DBPARAMS(P_STR(tenant), P_STR(campaign)), NULL);
}

enum fb_err
db_url_rule_insert(struct db *db, const char *tenant, const char *campaign,
    int position, const char *role, const char *type, const char *pattern,
    long priority)
{
	char	 id[UUID_STRLEN + 1];

	uuid_v7(id);
	return run(db, CAP_RULE_INSERT, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(campaign), P_INT(position), P_STR(role), P_STR(type),
	    P_STR(pattern), priority < 0 ? P_NULL : P_INT(priority)), NULL);
}

enum fb_err
db_form_profile(struct db *db, const char *tenant, const char *campaign,
    struct dbrows *out)
{
	return rows(db, CAP_PROFILE_GET,
	    DBPARAMS(P_STR(tenant), P_STR(campaign)),
	    form_profile_cols, NELEM(form_profile_cols),
	    sizeof(struct form_profile_row), false, out);
}

enum fb_err
db_form_profile_put(struct db *db, const char *tenant, const char *campaign,
    const char *tel, const char *email, const char *consent, const char *split,
    const char *detected_by)
{
	return run(db, CAP_PROFILE_PUT, DBPARAMS(P_STR(campaign), P_STR(tenant),
	    P_STR(tel), P_STR(email), P_STR(consent), P_STR(split),
	    P_STR(detected_by), P_STR(detected_by)), NULL);
}

enum fb_err
db_published_campaigns(struct db *db, const char *tenant, const char *site,
    struct dbrows *out)
{
	return rows(db, CAP_PUB_CAMPAIGNS, DBPARAMS(P_STR(tenant), P_STR(site)),
	    published_campaign_cols, NELEM(published_campaign_cols),
	    sizeof(struct published_campaign_row), false, out);
}

enum fb_err
db_published_rules(struct db *db, const char *tenant, const char *site,
    struct dbrows *out)
{
#define DB_ROW struct published_rule_row
	static const struct dbcol cols[] = { DB_COLUMNS(PUBLISHED_RULE_COLS) };
#undef DB_ROW

	return rows(db, CAP_PUB_RULES, DBPARAMS(P_STR(tenant), P_STR(site)),
	    cols, NELEM(cols), sizeof(struct published_rule_row), false, out);
}

enum fb_err
db_site_published(struct db *db, const char *tenant, const char *site,
    const char *error)
{
	return run(db, CAP_SITE_PUBLISHED, DBPARAMS(P_STR(error), P_STR(error),
	    P_STR(tenant), P_STR(site)), NULL);
}

enum fb_err
db_event_context(struct db *db, const char *pk, const char *campaign_key,
    struct dbrows *out)
{
	return rows(db, CAP_EVENT_CONTEXT,
	    DBPARAMS(P_STR(campaign_key), P_STR(pk)),
	    event_context_cols, NELEM(event_context_cols),
	    sizeof(struct event_context_row), true, out);
}

enum fb_err
db_event_context_site(struct db *db, const char *site, const char *campaign_key,
    struct dbrows *out)
{
	return rows(db, CAP_EVENT_CONTEXT_SITE, DBPARAMS(P_STR(campaign_key),
	    P_STR(site)), event_context_cols, NELEM(event_context_cols),
	    sizeof(struct event_context_row), true, out);
}

enum fb_err
db_sites_all(struct db *db, struct dbrows *out)
{
#define DB_ROW struct site_ref_row
	static const struct dbcol cols[] = { DB_COLUMNS(SITE_REF_COLS) };
#undef DB_ROW

	return rows(db, CAP_SITES_ALL, DBNOPARAMS, cols, NELEM(cols),
	    sizeof(struct site_ref_row), false, out);
}

enum fb_err
db_takeover_pages(struct db *db, const char *tenant, const char *campaign,
    struct dbrows *out)
{
#define DB_ROW struct page_row
	static const struct dbcol cols[] = { DB_COLUMNS(PAGE_COLS) };
#undef DB_ROW

	return rows(db, CAP_TAKEOVER_PAGES, DBPARAMS(P_STR(tenant),
	    P_STR(campaign)), cols, NELEM(cols), sizeof(struct page_row), false,
	    out);
}

enum fb_err
db_campaign_copy_children(struct db *db, const char *tenant, const char *from,
    const char *to)
{
	struct dbrows	 r;
	const struct url_rule_row *u;
	const struct form_profile_row *p;
	enum fb_err	 e;
	size_t		 i;

	/* URL rules, in their order */
	if ((e = db_url_rules(db, tenant, from, &r)) != FB_OK)
		return e;
	for (i = 0, u = r.row; i < r.n && e == FB_OK; i++)
		e = db_url_rule_insert(db, tenant, to, (int)u[i].position,
		    u[i].role,
		    u[i].match_type, u[i].pattern, (long)u[i].priority);
	dbrows_free(&r);
	if (e != FB_OK)
		return e;
	/* the form profile */
	if ((e = db_form_profile(db, tenant, from, &r)) != FB_OK)
		return e;
	if (r.n == 1) {
		p = r.row;
		e = db_form_profile_put(db, tenant, to, p->tel_selectors,
		    p->email_selectors, p->consent_selector,
		    p->tel_split_selectors, p->detected_by);
	}
	dbrows_free(&r);
	return e;
}
