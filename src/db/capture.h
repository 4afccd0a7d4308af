/*
 * src/db/capture.c: URL rules, form profiles, what a site publishes;
 * store.h includes every such header.
 */
#ifndef FORMBACK_DB_CAPTURE_H
#define FORMBACK_DB_CAPTURE_H

#include "db.h"

/*
 * Update a campaign's editable fields: NULL name, wait <= 0 leave them;
 * set_product false leaves product_name, true sets it (NULL clears).
 */
enum fb_err db_campaign_update(struct db *, const char *tenant, const char *id,
	    const char *name, bool set_product, const char *product,
	    long long wait) FB_WUR;
/* Whether the tenant has a campaign with this key. */
enum fb_err db_campaign_key_taken(struct db *, const char *tenant,
	    const char *key, bool *taken) FB_WUR;
/* Copy a campaign as `id` with key and name, paused and never run. */
enum fb_err db_campaign_copy(struct db *, const char *tenant, const char *from,
	    const char *id, const char *key, const char *name) FB_WUR;
/* Copy URL rules and the form profile of campaign `from` to `to`. */
enum fb_err db_campaign_copy_children(struct db *, const char *tenant,
	    const char *from, const char *to) FB_WUR;
/* A URL rule (contract: UrlRuleOut); priority -1 for none. */
#define URL_RULE_COLS(F, N) F(id, TEXT, "r.id") N(role, TEXT, "r.role") \
	N(match_type, TEXT, "r.match_type") N(pattern, TEXT, "r.pattern") \
	N(priority, INT, "COALESCE(r.priority, -1)") \
	N(position, INT, "r.position")
struct url_rule_row { DB_FIELDS(URL_RULE_COLS) };
/* The campaign's rules in their order: rows of struct url_rule_row. */
enum fb_err db_url_rules(struct db *, const char *tenant, const char *campaign,
	    struct dbrows *) FB_WUR;
enum fb_err db_url_rules_delete(struct db *, const char *tenant,
	    const char *campaign) FB_WUR;
/* priority < 0: NULL */
enum fb_err db_url_rule_insert(struct db *, const char *tenant,
	    const char *campaign, int position, const char *role,
	    const char *type, const char *pattern, long priority) FB_WUR;
/*
 * A campaign's form profile (contract: FormProfileOut): selectors as JSON
 * arrays in text; all NULL when the campaign has none (detection auto).
 */
#define FORM_PROFILE_COLS(F, N) F(tel_selectors, TEXT, "p.tel_selectors") \
	N(email_selectors, TEXT, "p.email_selectors") \
	N(consent_selector, TEXT, "p.consent_selector") \
	N(tel_split_selectors, TEXT, "p.tel_split_selectors") \
	N(detected_by, TEXT, "p.detected_by") \
	N(detected_at, TIME, "p.detected_at")
struct form_profile_row { DB_FIELDS(FORM_PROFILE_COLS) };
/* Zero or one struct form_profile_row. */
enum fb_err db_form_profile(struct db *, const char *tenant,
    const char *campaign, struct dbrows *) FB_WUR;
enum fb_err db_form_profile_put(struct db *, const char *tenant,
	    const char *campaign, const char *tel_json, const char *email_json,
	    const char *consent, const char *split_json,
	    const char *detected_by) FB_WUR;
/* A campaign a site publishes, with its form profile (design 2). */
#define PUBLISHED_CAMPAIGN_COLS(F, N) F(id, TEXT, "c.id") \
	N(key, TEXT, "c.campaign_key") N(status, TEXT, "c.status")
struct published_campaign_row {
	/* first: its columns come first */
	struct form_profile_row	 profile;
	DB_FIELDS(PUBLISHED_CAMPAIGN_COLS)
};
/*
 * The site's published campaigns, oldest first: struct published_campaign_row.
 */
enum fb_err db_published_campaigns(struct db *, const char *tenant,
	    const char *site, struct dbrows *) FB_WUR;
/* A rule of a published campaign (contract: MatchRuleOut). */
#define PUBLISHED_RULE_COLS(F, N) F(campaign_key, TEXT, "c.campaign_key") \
	N(campaign_id, TEXT, "c.id") N(role, TEXT, "r.role") \
	N(match_type, TEXT, "r.match_type") N(pattern, TEXT, "r.pattern") \
	N(priority, INT, "COALESCE(r.priority, -1)") \
	N(position, INT, "r.position")
struct published_rule_row { DB_FIELDS(PUBLISHED_RULE_COLS) };
/*
 * Their rules in evaluation order (priority, none last; campaign;
 * position): rows of struct published_rule_row.
 */
enum fb_err db_published_rules(struct db *, const char *tenant,
    const char *site, struct dbrows *) FB_WUR;
/* Record a publish: error NULL for success. */
enum fb_err db_site_published(struct db *, const char *tenant, const char *site,
	    const char *error) FB_WUR;
/* A campaign whose configuration the tag is given (design 2). */
#define DB_CAMPAIGN_PUBLISHED "(c.status = 'active' OR (c.status = 'paused' " \
	"AND c.first_activated_at IS NOT NULL))"
/*
 * A site, its tenant's consent mode, and the tenant's campaign of a key
 * (NULL campaign fields when none): what the collector files an event by.
 */
#define EVENT_CONTEXT_COLS(F, N) F(site_id, TEXT, "s.id") \
	N(tenant_id, TEXT, "s.tenant_id") N(domain, TEXT, "s.domain") \
	N(consent_mode, TEXT, "cs.consent_mode") N(campaign_id, TEXT, "c.id") \
	N(campaign_site_id, TEXT, "c.site_id") \
	N(campaign_status, TEXT, "c.status") \
	N(published, BOOL, DB_CAMPAIGN_PUBLISHED)
struct event_context_row { DB_FIELDS(EVENT_CONTEXT_COLS) };
/*
 * One struct event_context_row for the site with public key `pk`;
 * FB_ENOTFOUND for an unknown site.
 */
enum fb_err db_event_context(struct db *, const char *pk,
    const char *campaign_key, struct dbrows *) FB_WUR;
/* The same, for the site with this id (the intake queue's events). */
enum fb_err db_event_context_site(struct db *, const char *site,
	    const char *campaign_key, struct dbrows *) FB_WUR;
/* Every site, across tenants (formbackctl publish). */
#define SITE_REF_COLS(F, N) F(tenant_id, TEXT, "tenant_id") N(id, TEXT, "id")
struct site_ref_row { DB_FIELDS(SITE_REF_COLS) };
enum fb_err db_sites_all(struct db *, struct dbrows *) FB_WUR;
/* A page a campaign handled. */
#define PAGE_COLS(F, N) F(url, TEXT, "url")
struct page_row { DB_FIELDS(PAGE_COLS) };
/*
 * The distinct page URLs the campaign handled in the last 30 days (1000
 * at most): rows of struct page_row.
 */
enum fb_err db_takeover_pages(struct db *, const char *tenant,
	    const char *campaign, struct dbrows *) FB_WUR;

#endif
