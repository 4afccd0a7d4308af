/*
 * Two-factor sign-in (issue 43, item 4): one-time passwords of RFC 6238
 * (TOTP) over RFC 4226 (HOTP, HMAC-SHA1 by OpenSSL), their secret in
 * base32 (RFC 4648 section 6) and as an otpauth:// URI (Google
 * Authenticator's Key Uri Format), and the one-time recovery codes.
 * Pure functions but for the random ones; the SQL is in db/member.c,
 * the operations in api/twofactor.c.  Documented in formback.fcgi(8),
 * SESSIONS, and openapi.md, "Two-factor sign-in".
 */
#ifndef FORMBACK_TOTP_H
#define FORMBACK_TOTP_H

#include "formback.h"

#define TOTP_SECRET_BYTES	20	/* 160 bits (RFC 4226 section 4, R6) */
#define TOTP_SECRET_B32_LEN	32	/* base32 of 20 bytes, no padding */
#define TOTP_STEP_SECONDS	30	/* X of RFC 6238 section 4.1 */
#define TOTP_DIGITS		6
#define TOTP_DRIFT_STEPS	1	/* one step either way (section 5.2) */
#define TOTP_URI_MAX		512
#define TOTP_ISSUER		"Formback"
/* recovery codes: 10, each 10 base32 characters (50 bits) as xxxxx-xxxxx */
#define RECOVERY_CODES		10
#define RECOVERY_CODE_CHARS	10
#define RECOVERY_CODE_LEN	(RECOVERY_CODE_CHARS + 1)
/* the sign-in's second step: its challenge lives 5 minutes, 5 codes */
#define CHALLENGE_SECONDS	300
#define CHALLENGE_TRIES		5

/*
 * HOTP (RFC 4226 section 5.3): HMAC-SHA1 of the 8-byte big-endian
 * `counter` under `key` (keylen bytes), dynamically truncated, modulo
 * 10^digits (6 to 8).  Returns the code as a number (print it with
 * leading zeros), or -1 when OpenSSL fails.
 */
long		 hotp(const unsigned char *key, size_t keylen,
		    uint64_t counter, int digits);
/*
 * The TOTP step of `unix_seconds` (RFC 6238 section 4.2: T0 = 0, X =
 * TOTP_STEP_SECONDS): the counter HOTP takes.
 */
int64_t		 totp_step(int64_t unix_seconds);
/*
 * Whether `code` (6 digits; spaces between them are allowed) is the
 * TOTP of `key` at the step of `now` or one step either side, at a step
 * after `last_step` (the member's last accepted; -1: none): a code
 * already accepted, or one of an earlier step, is refused (replay; RFC
 * 6238 section 5.2).  The matching step into *step.  The three codes
 * are computed and compared in constant time whatever the input.
 */
bool		 totp_check(const unsigned char *key, size_t keylen,
		    const char *code, int64_t now, int64_t last_step,
		    int64_t *step);

/*
 * Base32 (RFC 4648 section 6, upper case) of n bytes, without padding,
 * into out (outsz bytes, NUL-terminated).  Returns the length, or 0
 * when out is too small.
 */
size_t		 base32_encode(const unsigned char *in, size_t n, char *out,
		    size_t outsz);
/*
 * Decode base32 (either case, no padding, spaces ignored) into out (at
 * most outsz bytes).  Returns the length, or -1 on a character outside
 * the alphabet, trailing bits set, or overflow.
 */
long		 base32_decode(const char *in, unsigned char *out,
    size_t outsz);

/* A new secret, TOTP_SECRET_BYTES of libsodium's randombytes, as base32. */
void		 totp_secret_new(char out[TOTP_SECRET_B32_LEN + 1]);
/*
 * The otpauth:// URI of a secret for `account` (the member's address):
 * otpauth://totp/Formback:<account>?secret=..&issuer=Formback&
 * algorithm=SHA1&digits=6&period=30, the label percent-encoded (RFC
 * 3986).  false when it does not fit TOTP_URI_MAX.
 */
bool		 totp_uri(const char *account, const char *secret_b32,
		    char out[TOTP_URI_MAX]);

/* A new recovery code, "xxxxx-xxxxx" of lower-case base32. */
void		 recovery_code_new(char out[RECOVERY_CODE_LEN + 1]);
/*
 * A recovery code as typed (either case; spaces and hyphens ignored)
 * into its RECOVERY_CODE_CHARS lower-case characters; false when it is
 * not one.
 */
bool		 recovery_code_norm(const char *in,
		    char out[RECOVERY_CODE_CHARS + 1]);

#endif
