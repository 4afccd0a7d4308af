/* authcache.c: a worker's cache of API key look-ups (see there). */
#ifndef FORMBACK_AUTHCACHE_H
#define FORMBACK_AUTHCACHE_H

#include "formback.h"

struct authcache_entry {
	bool		 used;
	unsigned char	 hash[SECRET_HASH_LEN];
	char		 key_id[UUID_STRLEN + 1];
	char		 tenant_id[UUID_STRLEN + 1];
	char		 member_id[UUID_STRLEN + 1];
	bool		 test;
	uint32_t	 scopes;
	int		 rate_limit;
	long long	 epoch;		/* the tenant's auth epoch when read */
	long long	 expires;	/* monotonic seconds */
};

/* The usable entry for this key hash, or NULL.  Borrowed. */
const struct authcache_entry *authcache_get(
	    const unsigned char hash[SECRET_HASH_LEN]);
/* Store a look-up (copied), replacing whatever shared its slot. */
void	authcache_put(const struct authcache_entry *);
/* Forget this key hash's entry, if any. */
void	authcache_drop(const unsigned char hash[SECRET_HASH_LEN]);

#endif
