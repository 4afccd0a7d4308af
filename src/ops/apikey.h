/*
 * ops/apikey.c: API keys as formbackctl and the admin API both issue and
 * revoke them (contract: Authentication; design 6).
 *
 * Like every ops function, these run in the caller's transaction: the
 * caller began it (the dispatcher for a request, formbackctl for its
 * command), writes the audit row, and commits or rolls back.  Nothing
 * here begins, commits or prints; errors are returned as enum fb_err.
 */
#ifndef OPS_APIKEY_H
#define OPS_APIKEY_H

#include <stdbool.h>
#include <stdint.h>

#include "formback.h"

struct db;

/*
 * Issue an API key of `tenant` by `member`, of kind test (true) or live,
 * with the scope bits `scopes` (scope_parse()).  The member must be an
 * active owner or admin (contract: Authentication 4, 5): the caller
 * checks.  The key string goes into `key` (shown once: the caller wipes
 * it with sodium_memzero()), its new id into `id`; only its hash and a
 * 12-character prefix are stored (design 6).  Errors: FB_ENOMEM when the
 * scope list cannot be written, else the database's.
 */
enum fb_err	apikey_issue(struct db *, const char *tenant,
		    const char *member, bool test, uint32_t scopes,
		    char id[UUID_STRLEN + 1],
		    char key[APIKEY_MAX_LEN + 1]) FB_WUR;

/*
 * Revoke API key `id`, whichever tenant holds it, its tenant into
 * `tenant`, and bump that tenant's authentication epoch so that no host
 * keeps the key in its cache (contract: Authentication 5: revoked at
 * once).  A key revoked already keeps its first revocation time.  A
 * caller acting for one tenant checks first that the key is that
 * tenant's.  FB_ENOTFOUND when there is no such key, else the database's
 * errors.
 */
enum fb_err	apikey_revoke(struct db *, const char *id,
		    char tenant[UUID_STRLEN + 1]) FB_WUR;

/* What apikey_follow_role() did. */
struct key_changes {
	long	 narrowed;	/* keys left with fewer scopes */
	long	 revoked;	/* keys left with none, revoked */
};

/*
 * Keys follow roles (issue 43): after member `member` of `tenant` took
 * the role `role`, each key it issued and did not revoke keeps only the
 * scopes that role may use (role_scopes()); a key left with none is
 * revoked.  A later promotion widens nothing: a key's scopes only
 * narrow.  The tenant's authentication epoch is bumped when a key
 * changed, so no worker keeps the old scopes.  Counts into ch.  Errors:
 * FB_ENOMEM, else the database's.
 */
enum fb_err	apikey_follow_role(struct db *, const char *tenant,
		    const char *member, const char *role,
		    struct key_changes *ch) FB_WUR;

#endif
