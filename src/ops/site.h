/*
 * ops/site.c: what creating a site takes, as formbackctl site create and
 * the admin API (POST /api/v1/admin/sites) both do it: the checks of its
 * name and domain, its public key, its row (design 1, 3).
 *
 * site_create() runs in the caller's transaction: the caller began it,
 * writes the audit row, commits or rolls back, and publishes.
 */
#ifndef OPS_SITE_H
#define OPS_SITE_H

#include <stdbool.h>

#include "formback.h"

struct db;

#define SITE_DOMAIN_MAX	253	/* bytes of a domain in its IDNA form */
#define SITE_NAME_MAX	200	/* characters of a site's or tenant's name */
#define SITE_KEY_SIZE	32	/* a public key's buffer: "pk_" + 24 + NUL */

/*
 * A site's (or tenant's) name: 1 to SITE_NAME_MAX characters of UTF-8 on
 * one line (text_line()), not all spaces.
 */
bool		site_name_ok(const char *name);

/*
 * A site's domain as browsers send it: an internationalised name in its
 * IDNA form (UTS #46, libidn2), letters, digits, '.', '-' (and ':' for a
 * port), into out; false when `in` is no host name.
 */
bool		site_domain(const char *in, char out[SITE_DOMAIN_MAX + 1]);

/* A new site public key into out: "pk_" and 24 random base62 (design 1). */
void		site_public_key(char out[SITE_KEY_SIZE]);

/*
 * A new site of `tenant` named `name` (site_name_ok()) on `domain` (as
 * site_domain() wrote it): its new id into `id` and its new public key
 * into `pk`.  The caller checks that the tenant exists.  Errors: the
 * database's.
 */
enum fb_err	site_create(struct db *, const char *tenant, const char *name,
		    const char *domain, char id[UUID_STRLEN + 1],
		    char pk[SITE_KEY_SIZE]) FB_WUR;

#endif
