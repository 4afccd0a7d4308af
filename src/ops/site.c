/*
 * Creating a site: its checks, its public key and its row, shared by
 * formbackctl site create and the admin API (api/sites.c; site.h).
 */
#include <string.h>

#include "ops/site.h"
#include "contact.h"
#include "db/store.h"

bool
site_name_ok(const char *name)
{
	long	 n = utf8_len(name);

	return !text_blank(name) && text_line(name) && n >= 1 &&
	    n <= SITE_NAME_MAX;
}

bool
site_domain(const char *in, char out[SITE_DOMAIN_MAX + 1])
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:";
	size_t		 n;

	if (utf8_len(in) < 0 ||
	    !domain_ascii(in, strlen(in), out, SITE_DOMAIN_MAX + 1))
		return false;
	n = strlen(out);
	return n >= 1 && out[0] != '.' && out[0] != '-' && strspn(out, ok) == n;
}

void
site_public_key(char out[SITE_KEY_SIZE])
{
	memcpy(out, "pk_", 3);
	random_b62(out + 3, 24);
}

enum fb_err
site_create(struct db *db, const char *tenant, const char *name,
    const char *domain, char id[UUID_STRLEN + 1], char pk[SITE_KEY_SIZE])
{
	uuid_v7(id);
	site_public_key(pk);
	return db_site_create(db, id, tenant, name, domain, pk);
}
