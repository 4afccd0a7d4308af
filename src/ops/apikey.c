/*
 * API keys: issue and revoke, shared by formbackctl apikey and the admin
 * API (api/admin.c).  In the caller's transaction (apikey.h).
 */
#include <stdio.h>

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
