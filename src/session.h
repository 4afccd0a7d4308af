/*
 * Members' sign-in (issue 16): password hashing and policy, the session
 * cookie, its CSRF token and the same-origin rule of the admin UI.  The
 * SQL is in db/member.c, the operations in api/admin.c, the checks of
 * every request in dispatch.c.  Documented in formback.fcgi(8), SESSIONS.
 */
#ifndef FORMBACK_SESSION_H
#define FORMBACK_SESSION_H

#include <sodium.h>

#include "formback.h"

struct req;

#define SESSION_IDLE_SECONDS	7200	/* 2 h without a request ends it */
#define SESSION_MAX_SECONDS	43200	/* 12 h after sign-in at most */
/* an invitation link lives 72 h */
#define INVITE_SECONDS		(72 * 3600)
#define RESET_SECONDS		3600	/* a password-reset link lives 1 h */
#define PASSWORD_MIN_CHARS	12	/* characters (code points) */
#define PASSWORD_MAX_BYTES	1024
#define PASSWORD_HASH_MAX	crypto_pwhash_STRBYTES
/* sign-in failures before delays start: per account, per client address */
#define SIGNIN_FREE_ACCOUNT	5
#define SIGNIN_FREE_ADDRESS	20
#define CSRF_TOKEN_LEN		43	/* base64url of 32 bytes */
#define CSRF_HEADER		"X-CSRF-Token"

#define MEMBER_EMAIL_MAX	254

/*
 * A member's address as it is stored and looked up (migration 0020): an
 * address as contact_email_normalize() (pii.h) takes one, its domain in
 * ASCII by IDNA, then ASCII lower-cased whole into out; false when it is
 * no address or longer than MEMBER_EMAIL_MAX bytes.
 */
bool		 member_email(const char *in, char out[MEMBER_EMAIL_MAX + 1]);
/*
 * Whether `pw` may be a password: valid UTF-8 of PASSWORD_MIN_CHARS
 * characters or more and at most PASSWORD_MAX_BYTES bytes, no control
 * characters, not the member's email address (ASCII case ignored).
 */
bool		 password_acceptable(const char *pw, const char *email);
/*
 * Argon2id of `pw` with libsodium's interactive limits
 * (crypto_pwhash_str: 2 passes, 64 MiB), as a self-describing string in
 * out.  FB_ENOMEM when the memory cannot be had.
 */
enum fb_err	 password_hash(const char *pw,
    char out[PASSWORD_HASH_MAX]) FB_WUR;
/*
 * Whether `pw` matches the stored string.  With stored NULL (no such
 * account, or no password yet) it checks against a fixed hash of the
 * same cost and answers false, so the time taken says nothing.
 */
bool		 password_verify(const char *stored, const char *pw);

/*
 * The cookie's name: "__Host-fb_session" when base_url is https, else
 * "fb_session".
 */
const char	*session_cookie_name(const struct conf *);
/*
 * The value of cookie `name` in a Cookie header (RFC 6265 section 5.4)
 * when it has the shape of a session token, copied into out; false
 * otherwise.
 */
bool		 session_cookie_get(const char *header, const char *name,
		    char out[TOKEN_LEN + 1]);
/*
 * Set-Cookie for `token` (RFC 6265 section 4.1): HttpOnly, SameSite=Lax,
 * Path=/, Max-Age; Secure under https.  token NULL clears the cookie.
 */
enum fb_err	 session_cookie_set(struct req *, const char *token);
/*
 * The session's CSRF token: BLAKE2b keyed by the session token over a
 * fixed label, base64url; a page that holds it can only have read it
 * from an answer to the session itself.
 */
void		 session_csrf(const char *token, char out[CSRF_TOKEN_LEN + 1]);
/* Whether `given` (a header value, maybe NULL) is the session's CSRF token. */
bool		 session_csrf_ok(const char *token, const char *given);
/*
 * Whether `origin` (an Origin header, maybe NULL) is base_url's origin
 * (scheme, host and port; RFC 6454): the admin UI's own pages.
 */
bool		 session_origin_ok(const struct conf *, const char *origin);

/*
 * Device cookies (OWASP, Authentication Cheat Sheet, "Device Cookies";
 * issue 43): a browser that signed in as an address before shows it on
 * its next sign-in, and its failures count against that cookie alone,
 * never against the account, so failures from elsewhere cannot lock the
 * owner's own browser out.  The value is a random token ("fbd_", as
 * token_generate()) and, after a '.', base64url of a BLAKE2b MAC keyed
 * by the index key over the address and the token.
 */
#define DEVICE_COOKIE_LEN	(TOKEN_LEN + 1 + 43)
#define DEVICE_COOKIE_DAYS	365
/* "__Host-fb_device" when base_url is https, else "fb_device". */
const char	*device_cookie_name(const struct conf *);
/*
 * Whether the Cookie header (maybe NULL) holds a device cookie made for
 * `email` (the normalised address); its token into tok when it does.
 */
bool		 device_cookie_ok(const struct conf *, const char *header,
		    const char *email, char tok[TOKEN_LEN + 1]);
/*
 * A new device cookie for `email`, as Set-Cookie (RFC 6265 section 4.1):
 * HttpOnly, SameSite=Strict, Path=/, a year's Max-Age; Secure under
 * https.  FB_EINVAL or FB_ENOMEM as req_header().
 */
enum fb_err	 device_cookie_set(struct req *, const char *email);
/*
 * The two subjects a sign-in's failures count against (issue 43), as
 * db_throttle_wait() takes them: into acct the hash of "device:<token>"
 * when the request carries a device cookie made for `email` (the
 * normalised address), else of "account:<email>"; into addr the hash of
 * "address:<client address>".  The password step and the second factor
 * (a code, a recovery code) count alike.
 */
void		 signin_subjects(const struct req *, const char *email,
		    unsigned char acct[SECRET_HASH_LEN],
		    unsigned char addr[SECRET_HASH_LEN]);

#endif
