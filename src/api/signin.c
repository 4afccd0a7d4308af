/*
 * The sign-in throttle (issue 16; issue 43, item 3): what the password
 * step (admin.c) and the second factor (twofactor.c) share.  A failure
 * counts against the two subjects of signin_subjects() (session.h), the
 * account (or the browser's device cookie) and the client's address;
 * either blocked holds the sign-in back with 429 signin_throttled.
 */
#include <stdio.h>

#include "../api.h"
#include "../session.h"
#include "../db/store.h"

enum fb_err
signin_wait(struct req *r, const unsigned char *acct,
    const unsigned char *addr, bool *held)
{
	char		 wait_s[24];
	long long	 wait;
	enum fb_err	 e;

	*held = false;
	if ((e = db_throttle_wait(r->db, acct, addr, &wait)) != FB_OK)
		return e;
	if (wait <= 0)
		return FB_OK;
	*held = true;
	snprintf(wait_s, sizeof(wait_s), "%lld", wait);
	req_header(r, "Retry-After", wait_s);
	logx(LOG_INFO, "sign-in refused: throttled for %lld s", wait);
	return api_error(r, AC_SIGNIN_THROTTLED, NULL);
}

enum fb_err
signin_fail(struct req *r, const unsigned char *acct, const unsigned char *addr)
{
	enum fb_err	 e;

	if ((e = db_throttle_fail(r->db, acct, SIGNIN_FREE_ACCOUNT)) != FB_OK)
		return e;
	return db_throttle_fail(r->db, addr, SIGNIN_FREE_ADDRESS);
}
