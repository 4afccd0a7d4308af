/*
 * Authentication and admission of a request (auth.c): what the
 * dispatcher asks before a route's scopes and handler.
 */
#ifndef FB_AUTH_H
#define FB_AUTH_H

#include "req.h"

/*
 * Authenticate r (contract: Authentication 1, 5, 6): its Bearer key, or
 * with none a member's session cookie (issue 16).  Returns FB_OK with
 * an error response written (401, 403 for a session's Origin or CSRF
 * token, 429); FB_OK with r->auth.cached set: the worker's cached
 * look-up of the key is in r->auth and r waits for auth_admit(); FB_OK
 * with r->authed set, admitted; or an internal error (nothing written).
 */
enum fb_err	auth_request(struct req *r) FB_WUR;

/*
 * Admit the requests among rs[0..n-1] that wait with a cached look-up
 * (contract: Limits): one statement per tenant for those of a tenant
 * that wait together (db_rate_admit_n()), their rate headers set, 429
 * for those over the limit; a look-up older than the tenant's data
 * epoch is read again and the request admitted alone.  An internal
 * error is answered (api_internal()).
 */
void		auth_admit(struct req **rs, size_t n);

#endif
