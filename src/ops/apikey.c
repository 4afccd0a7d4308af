/*
 * API keys: issue and revoke, shared by formbackctl apikey and the admin
 * API (api/admin.c).  In the caller's transaction (apikey.h).
 */
#include <stdio.h>
#include <string.h>

#include "ops/apikey.h"
#include "db/store.h"

enum fb_err
apikey_issue(struct db *db, const char *tenant, const char *member, bool test,
    uint32_t scopes, char id[UUID_STRLEN + 1], char key[APIKEY_MAX_LEN + 1])
{
	unsigned char	 hash[SECRET_HASH_LEN];
	char		 prefix[16];
	struct buf	 sb;
	enum fb_err	 e;

	apikey_generate(test, key);
	secret_hash(key, hash);
	snprintf(prefix, sizeof(prefix), "%.12s", key);
	buf_init(&sb, 1024);
	if ((e = scope_format(scopes, &sb)) == FB_OK) {
		uuid_v7(id);
		e = db_apikey_create(db, id, tenant, member,
		    test ? "test" : "live", hash, prefix, sb.data);
	}
	buf_release(&sb);
	return e;
}

enum fb_err
apikey_revoke(struct db *db, const char *id, char tenant[UUID_STRLEN + 1])
{
	enum fb_err	 e;

	if ((e = db_apikey_revoke(db, id, tenant)) != FB_OK)
		return e;
	return db_auth_epoch_bump(db, tenant);
}

/* Narrow one key to `allowed`, or revoke it when nothing is left. */
static enum fb_err
key_narrow(struct db *db, const struct apikey_row *k, uint32_t allowed,
    struct key_changes *ch)
{
	char		 tenant[UUID_STRLEN + 1];
	struct buf	 sb;
	uint32_t	 have;
	enum fb_err	 e;

	if (!scope_parse(k->scopes, &have))
		have = 0;
	if ((have & allowed) == have)
		return FB_OK;
	if ((have & allowed) == 0) {
		ch->revoked++;
		return db_apikey_revoke(db, k->id, tenant);
	}
	ch->narrowed++;
	buf_init(&sb, 1024);
	if ((e = scope_format(have & allowed, &sb)) == FB_OK)
		e = db_apikey_scopes(db, k->id, sb.data);
	buf_release(&sb);
	return e;
}

enum fb_err
apikey_follow_role(struct db *db, const char *tenant, const char *member,
    const char *role, struct key_changes *ch)
{
	struct dbrows	 keys;
	const struct apikey_row *k;
	uint32_t	 allowed = role_scopes(role) & SCOPES_ALL;
	size_t		 i;
	enum fb_err	 e;

	memset(ch, 0, sizeof(*ch));
	if ((e = db_apikey_of_member(db, tenant, member, &keys)) != FB_OK)
		return e;
	for (i = 0, k = keys.row; i < keys.n && e == FB_OK; i++)
		e = key_narrow(db, &k[i], allowed, ch);
	dbrows_free(&keys);
	if (e == FB_OK && ch->narrowed + ch->revoked > 0)
		e = db_auth_epoch_bump(db, tenant);
	return e;
}
