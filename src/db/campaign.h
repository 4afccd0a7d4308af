/*
 * src/db/campaign.c: campaigns; store.h includes every such header.
 */
#ifndef FORMBACK_DB_CAMPAIGN_H
#define FORMBACK_DB_CAMPAIGN_H

#include "db.h"

/* A campaign (contract: CampaignDetailOut, CampaignListItemOut). */
#define CAMPAIGN_COLS(F, N) F(id, TEXT, "c.id") N(site_id, TEXT, "c.site_id") \
	N(key, TEXT, "c.campaign_key") N(name, TEXT, "c.name") \
	N(product_name, TEXT, "c.product_name") N(status, TEXT, "c.status") \
	N(abandon_wait_minutes, INT, "c.abandon_wait_minutes") \
	N(created_at, TIME, "c.created_at") \
	N(updated_at, TIME, "c.updated_at") \
	N(scenario_count, INT, "(SELECT COUNT(*) FROM scenarios s WHERE " \
	    "s.tenant_id = c.tenant_id AND s.campaign_id = c.id AND " \
	    "s.deleted_at IS NULL)") \
	N(active_scenario_count, INT, \
	    "(SELECT COUNT(*) FROM scenarios s WHERE " \
	    "s.tenant_id = c.tenant_id AND s.campaign_id = c.id AND " \
	    "s.deleted_at IS NULL AND s.status = 'active')")
struct campaign_row { DB_FIELDS(CAMPAIGN_COLS) };
/* FB_EDUP when the key is taken in this tenant. */
enum fb_err db_campaign_insert(struct db *, const char *id, const char *tenant,
	    const char *site, const char *key, const char *name,
	    const char *product, const char *status, long long wait) FB_WUR;
/* One struct campaign_row; FB_ENOTFOUND when it is not the tenant's. */
enum fb_err db_campaign_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *) FB_WUR;
/* Rows of struct campaign_row; filters may be NULL.  Newest first, n max. */
enum fb_err db_campaign_list(struct db *, const char *tenant, const char *site,
	    const char *status, const char *after, int n,
	    struct dbrows *) FB_WUR;
/* Set status (operator/session path); FB_ENOTFOUND if none. */
enum fb_err db_campaign_set_status(struct db *, const char *id,
    const char *status, char tenant_out[UUID_STRLEN + 1]) FB_WUR;

#endif
