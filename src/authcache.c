/*
 * A worker's cache of API key look-ups, so that an authenticated request
 * costs one round trip (the rate admission) instead of two.
 *
 * Correctness never rests on it: every use is checked by the admission
 * statement against the tenant's auth epoch (db/core.c), which every
 * change to who may call bumps in the database (db_auth_epoch_bump), so a
 * revoked key or a suspended member is refused by every worker on every
 * host from the moment the change is made.  Entries also expire after
 * AUTHCACHE_TTL seconds.  Direct-mapped on the key hash; never holds the
 * key itself.
 */
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "authcache.h"

#define AUTHCACHE_SLOTS	64
#define AUTHCACHE_TTL	30

static struct authcache_entry	cache[AUTHCACHE_SLOTS];

static struct authcache_entry *
slot(const unsigned char hash[SECRET_HASH_LEN])
{
	return &cache[(hash[0] | hash[1] << 8) % AUTHCACHE_SLOTS];
}

const struct authcache_entry *
authcache_get(const unsigned char hash[SECRET_HASH_LEN])
{
	struct authcache_entry	*e = slot(hash);

	if (!e->used || sodium_memcmp(e->hash, hash, SECRET_HASH_LEN) != 0)
		return NULL;
	if (time_mono() >= e->expires) {
		e->used = false;
		return NULL;
	}
	return e;
}

void
authcache_put(const struct authcache_entry *in)
{
	struct authcache_entry	*e = slot(in->hash);

	*e = *in;
	e->used = true;
	e->expires = time_mono() + AUTHCACHE_TTL;
}

void
authcache_drop(const unsigned char hash[SECRET_HASH_LEN])
{
	struct authcache_entry	*e = slot(hash);

	if (e->used && sodium_memcmp(e->hash, hash, SECRET_HASH_LEN) == 0)
		e->used = false;
}
