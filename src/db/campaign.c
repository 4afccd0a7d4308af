/* SQL of campaigns. */
#include <stdio.h>
#include <string.h>

#include "store.h"

enum {
	CAMP_INSERT,
	CAMP_GET,
	CAMP_LIST,
	CAMP_SET_STATUS,
	CAMP_TENANT,
	CAMP__MAX
};

static const struct dbstmt camp_sql[CAMP__MAX] = {
	/* CAMP_INSERT */
	{ "campaign_insert",
	  "INSERT INTO campaigns (id, tenant_id, site_id, campaign_key, name, "
	  "product_name, status, abandon_wait_minutes, first_activated_at) "
	  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, IF(? = 'active', NOW(6), NULL))" },
	/* CAMP_GET */
	{ "campaign_get",
	  "SELECT " DB_SELECT(CAMPAIGN_COLS) " FROM campaigns c "
	  "WHERE c.tenant_id = ? AND c.id = ?" },
	/* CAMP_LIST */
	{ "campaign_list",
	  "SELECT " DB_SELECT(CAMPAIGN_COLS) " FROM campaigns c WHERE "
	  "c.tenant_id = ? AND (? IS NULL OR c.site_id = ?) AND (? IS NULL OR "
	  "c.status = ?) AND (? IS NULL OR c.id < ?) ORDER BY c.id DESC "
	  "LIMIT ?" },
	/* CAMP_SET_STATUS */
	{ "campaign_set_status",
	  "UPDATE campaigns SET status = ?, updated_at = NOW(6), "
	  "first_activated_at = IF(? = 'active', "
	  "COALESCE(first_activated_at, NOW(6)), first_activated_at) "
	  "WHERE id = ?" },
	/* CAMP_TENANT */
	{ "campaign_tenant", "SELECT tenant_id FROM campaigns WHERE id = ?" },
};

static enum fb_err
run(struct db *db, int id, const struct dbp *p, size_t n, struct dbres *r)
{
	return db_run(db, DBSET_CAMPAIGN, id, &camp_sql[id], p, n, r);
}

enum fb_err
db_campaign_insert(struct db *db, const char *id, const char *tenant,
    const char *site, const char *key, const char *name, const char *product,
    const char *status, long long wait)
{
	return run(db, CAMP_INSERT, DBPARAMS(P_STR(id), P_STR(tenant),
	    P_STR(site), P_STR(key), P_STR(name), P_STR(product),
	    P_STR(status), P_INT(wait), P_STR(status)), NULL);
}

#define DB_ROW struct campaign_row
static const struct dbcol campaign_cols[] = { DB_COLUMNS(CAMPAIGN_COLS) };
#undef DB_ROW

enum fb_err
db_campaign_get(struct db *db, const char *tenant, const char *id,
    struct dbrows *out)
{
	return db_rows(db, DBSET_CAMPAIGN, CAMP_GET, &camp_sql[CAMP_GET],
	    DBPARAMS(P_STR(tenant),
	    P_STR(id)), campaign_cols, NELEM(campaign_cols),
	    sizeof(struct campaign_row), true, out);
}

enum fb_err
db_campaign_list(struct db *db, const char *tenant, const char *site,
    const char *status, const char *after, int n, struct dbrows *out)
{
	return db_rows(db, DBSET_CAMPAIGN, CAMP_LIST, &camp_sql[CAMP_LIST],
	    DBPARAMS(P_STR(tenant), P_STR(site), P_STR(site), P_STR(status),
	    P_STR(status), P_STR(after), P_STR(after), P_INT(n)), campaign_cols,
	    NELEM(campaign_cols), sizeof(struct campaign_row), false, out);
}

enum fb_err
db_campaign_set_status(struct db *db, const char *id, const char *status,
    char tenant_out[UUID_STRLEN + 1])
{
	enum fb_err	 e;

	if ((e = db_tenant_of(db, DBSET_CAMPAIGN, CAMP_TENANT,
	    &camp_sql[CAMP_TENANT], id, tenant_out)) != FB_OK)
		return e;
	return run(db, CAMP_SET_STATUS, DBPARAMS(P_STR(status), P_STR(status),
	    P_STR(id)), NULL);
}
