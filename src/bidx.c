/*
 * The blind index keys a process holds (pii.h, bidx_refresh()): what
 * index_keys said at most BIDX_TTL seconds ago.  One copy a process:
 * every worker is a process of its own (prefork.c).
 */
#include <string.h>
#include <time.h>

#include "pii.h"
#include "db/store.h"

static struct {
	const struct conf *c;		/* the conf the keys point into */
	time_t		 at;		/* when read; 0: never */
	struct bidx_keys k;
	long long	 warned[2];	/* a missing key id logged once */
} held = { .warned = { -1, -1 } };

/* Slot 1 under the lowest id, in force: before any re-key. */
static void
held_default(const struct conf *c)
{
	memset(&held.k, 0, sizeof(held.k));
	held.c = c;
	held.k.k[0] = c->index_key;
	held.k.id[0] = c->index_key_id;
	held.k.id[1] = -1;
	held.k.in_force = 0;
}

/* Slot s under key id `id` (-1: none), as far as the file holds it. */
static void
held_slot(const struct conf *c, int s, long long id)
{
	held.k.id[s] = id;
	held.k.k[s] = id >= 0 ? conf_master_key(c, (unsigned)id) : NULL;
	if (id >= 0 && held.k.k[s] == NULL) {
		held.k.id[s] = -1;
		if (held.warned[s] != id)
			logx(LOG_WARN, "blind index slot %d: key id %lld "
			    "is not in the key file; the slot is left out",
			    s + 1, id);
		held.warned[s] = id;
	}
}

enum fb_err
bidx_refresh(struct db *db, const struct conf *c)
{
	struct index_keys_row	 r;
	time_t			 now = time(NULL);
	enum fb_err		 e;

	if (held.c == c && held.at != 0 && now - held.at < BIDX_TTL &&
	    now >= held.at)
		return FB_OK;
	if ((e = db_index_keys_get(db, false, &r)) != FB_OK)
		return e;
	held_default(c);
	held.at = now;
	held.k.in_force = r.in_force == 2 ? 1 : 0;
	/* no slot with a key: slot 1 under the lowest id, as before 0041 */
	held_slot(c, 0, r.slot1_key < 0 && r.slot2_key < 0 ?
	    c->index_key_id : r.slot1_key);
	held_slot(c, 1, r.slot2_key);
	/*
	 * neither key in this file (a host not given the new key): what it
	 * indexes matches nothing others write; signed, at least, as before
	 */
	if (held.k.k[0] == NULL && held.k.k[1] == NULL) {
		logx(LOG_ERR, "blind indexes: no key of index_keys is in the "
		    "key file; put the new key in it and restart");
		held.k.k[held.k.in_force] = c->index_key;
		held.k.id[held.k.in_force] = c->index_key_id;
	}
	return FB_OK;
}

const struct bidx_keys *
bidx_cur(const struct conf *c)
{
	if (held.c != c)
		held_default(c);
	return &held.k;
}
