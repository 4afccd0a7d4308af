/*
 * src/db/ppcheck.c: privacy-policy checks; store.h includes every such
 * header.
 */
#ifndef FORMBACK_DB_PPCHECK_H
#define FORMBACK_DB_PPCHECK_H

#include "db.h"

/*
 * Privacy-policy checks (db/ppcheck.c; contract: Endpoints, Sites,
 * pp-checks; migration 0016).  One check as the API shows it (PpCheckOut).
 */
#define PP_CHECK_COLS(F, N) F(id, TEXT, "id") N(site_id, TEXT, "site_id") \
	N(url, TEXT, "url") N(consent_mode, TEXT, "consent_mode") \
	N(status, TEXT, "status") N(http_status, TEXT, "http_status") \
	N(findings, TEXT, "findings") N(page_sha256, TEXT, "page_sha256") \
	N(error, TEXT, "error") N(checked_at, TIME, "checked_at")
struct pp_check_row { DB_FIELDS(PP_CHECK_COLS) };
/* Rows of struct pp_check_row of a site, newest first, n max, ids < after. */
enum fb_err db_pp_check_list(struct db *, const char *tenant, const char *site,
	    const char *after, int n, struct dbrows *) FB_WUR;
/* One struct pp_check_row; FB_ENOTFOUND when not the tenant's site's. */
enum fb_err db_pp_check_get(struct db *, const char *tenant, const char *site,
	    const char *id, struct dbrows *) FB_WUR;
/* Set (or with NULL clear) a site's privacy-policy URL (operator path). */
enum fb_err db_site_set_pp_url(struct db *, const char *tenant,
    const char *site, const char *url) FB_WUR;
/* A site whose policy is due for a check, with its tenant's consent mode. */
#define PP_DUE_COLS(F, N) F(site_id, TEXT, "s.id") \
	N(tenant_id, TEXT, "s.tenant_id") N(url, TEXT, "s.privacy_policy_url") \
	N(consent_mode, TEXT, "COALESCE(cs.consent_mode, 'notice_optout')")
struct pp_due_row { DB_FIELDS(PP_DUE_COLS) };
/* Up to n sites whose URL has no check since `since`, or none at all. */
enum fb_err db_pp_due(struct db *, const char *since, int n,
    struct dbrows *) FB_WUR;
/* A new check (findings: a JSON array). */
struct pp_check_new {
	const char	*id, *tenant, *site, *url, *consent_mode, *status;
	int		 http_status;	/* 0: no answer */
	const char	*findings, *page_sha256, *error, *checked_at;
};
enum fb_err db_pp_check_add(struct db *, const struct pp_check_new *) FB_WUR;

#endif
