/*
 * src/db/tenant.c: tenants, sites, consent settings, the delivery switch;
 * store.h includes every such header.
 */
#ifndef FORMBACK_DB_TENANT_H
#define FORMBACK_DB_TENANT_H

#include "db.h"

enum fb_err db_tenant_create(struct db *, const char *id, const char *name,
	    const char *plan, int rate_limit /* <0: none */) FB_WUR;
/* FB_ENOTFOUND when no such tenant. */
enum fb_err db_tenant_exists(struct db *, const char *tenant) FB_WUR;
enum fb_err db_member_create(struct db *, const char *id, const char *tenant,
	    const char *email, const char *role) FB_WUR;
/* Set a member's status (active|suspended|deleted); FB_ENOTFOUND if none. */
enum fb_err db_member_set_status(struct db *, const char *id,
    const char *status, char tenant_out[UUID_STRLEN + 1]) FB_WUR;
/*
 * The tenant, role and status (active|suspended|deleted) of member `id`,
 * FB_ENOTFOUND if none.
 */
enum fb_err db_member_tenant(struct db *, const char *id,
	    char tenant_out[UUID_STRLEN + 1], char *role_out, size_t rolesz,
	    char *status_out, size_t statussz) FB_WUR;
enum fb_err db_apikey_create(struct db *, const char *id, const char *tenant,
	    const char *member, const char *kind, const unsigned char *hash,
	    const char *prefix, const char *scopes) FB_WUR;
enum fb_err db_apikey_revoke(struct db *, const char *id,
	    char tenant_out[UUID_STRLEN + 1]) FB_WUR;
enum fb_err db_site_create(struct db *, const char *id, const char *tenant,
	    const char *name, const char *domain,
	    const char *public_key) FB_WUR;
enum fb_err db_site_rename(struct db *, const char *tenant, const char *id,
	    const char *name) FB_WUR;

/* A site (contract: SiteOut): typed rows, see db.h. */
#define SITE_COLS(F, N) F(id, TEXT, "id") N(name, TEXT, "name") \
	N(domain, TEXT, "domain") N(public_key, TEXT, "public_key") \
	N(created_at, TIME, "created_at") N(updated_at, TIME, "updated_at") \
	N(sending_held_at, TIME, "sending_held_at")
struct site_row { DB_FIELDS(SITE_COLS) };
/* ... with the campaigns its snippets name: [{"id","key","name"}] or NULL */
struct site_snippets_row {
	struct site_row	 site;		/* first: its columns come first */
	const char	*snippet_campaigns;
};
/* The tenant of site `id` (operator path); FB_ENOTFOUND when none. */
enum fb_err db_site_tenant(struct db *, const char *id,
	    char tenant_out[UUID_STRLEN + 1]) FB_WUR;
/*
 * The tenant's sites newest first, after id `after` (NULL: from the top),
 * n rows max: rows of struct site_row.
 */
enum fb_err db_site_list(struct db *, const char *tenant, const char *after,
	    int n, struct dbrows *) FB_WUR;
/* One struct site_row; FB_ENOTFOUND when the site is not the tenant's. */
enum fb_err db_site_get(struct db *, const char *tenant, const char *id,
	    struct dbrows *) FB_WUR;
/*
 * One struct site_snippets_row: the site and the campaigns that are not
 * archived, oldest first (kept by triggers, migration 0010), in one
 * look-up; FB_ENOTFOUND when the site is not the tenant's.
 */
enum fb_err db_site_with_campaigns(struct db *, const char *tenant,
	    const char *id, struct dbrows *) FB_WUR;

/* A tenant's consent settings (contract: Consent settings). */
#define CONSENT_COLS(F, N) \
	F(checkbox_enabled, BOOL, "consent_checkbox_enabled") \
	N(default_checked, BOOL, "consent_default_checked") \
	N(template_key, TEXT, "consent_template_key") \
	N(optout_link_enabled, BOOL, "consent_optout_link_enabled") \
	N(mode, TEXT, "consent_mode") N(optout_title, TEXT, "optout_title") \
	N(optout_body, TEXT, "optout_body") \
	N(optout_link_label, TEXT, "optout_link_label")
struct consent_row { DB_FIELDS(CONSENT_COLS) };
/* A change of the consent settings: NULL or -1 keeps a field. */
struct consent_patch {
	/* 0, 1, -1 */
	int		 checkbox, default_checked, optout_link;
	const char	*template_key, *mode;
	const char	*optout_title, *optout_body, *optout_link_label;
};
enum fb_err db_consent_update(struct db *, const char *tenant,
	    const struct consent_patch *) FB_WUR;
/* One struct consent_row; FB_ENOTFOUND when the tenant has none. */
enum fb_err db_consent_get(struct db *, const char *tenant,
    struct dbrows *) FB_WUR;
/* The consent texts a tenant may pick from, in their order. */
#define CONSENT_TEMPLATE_COLS(F, N) F(key, TEXT, "template_key") \
	N(main, TEXT, "main") N(note, TEXT, "note")
struct consent_template_row { DB_FIELDS(CONSENT_TEMPLATE_COLS) };
enum fb_err db_consent_templates(struct db *, struct dbrows *) FB_WUR;

/* The delivery switch (contract: Delivery switch). */
#define DELIVERY_STATUS_COLS(F, N) F(mode, TEXT, "delivery_mode") \
	N(enabled_at, TIME, "delivery_enabled_at")
struct delivery_status_row { DB_FIELDS(DELIVERY_STATUS_COLS) };
/* One struct delivery_status_row; FB_ENOTFOUND when no such tenant. */
enum fb_err db_delivery_status(struct db *, const char *tenant,
	    struct dbrows *) FB_WUR;
enum fb_err db_delivery_switch(struct db *, const char *tenant,
    const char *mode) FB_WUR;
/* SMS quiet hours in minutes after midnight JST; start == end: none. */
enum fb_err db_tenant_quiet_hours(struct db *, const char *tenant, int start,
	    int end) FB_WUR;

#endif
