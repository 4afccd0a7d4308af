/* One-time passwords and recovery codes (see totp.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sodium.h>

#include "totp.h"

static const char b32[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

long
hotp(const unsigned char *key, size_t keylen, uint64_t counter, int digits)
{
	unsigned char	 msg[8], md[EVP_MAX_MD_SIZE];
	unsigned int	 mdlen = 0;
	uint32_t	 bin, mod = 1;
	int		 i, off;

	if (digits < 6 || digits > 8)
		return -1;
	for (i = 7; i >= 0; i--, counter >>= 8)
		msg[i] = (unsigned char)(counter & 0xff);
	if (HMAC(EVP_sha1(), key, (int)keylen, msg, sizeof(msg), md,
	    &mdlen) == NULL || mdlen != 20)
		return -1;
	/* dynamic truncation (RFC 4226 section 5.4) */
	off = md[19] & 0x0f;
	bin = ((uint32_t)(md[off] & 0x7f) << 24) |
	    ((uint32_t)md[off + 1] << 16) | ((uint32_t)md[off + 2] << 8) |
	    (uint32_t)md[off + 3];
	sodium_memzero(md, sizeof(md));
	for (i = 0; i < digits; i++)
		mod *= 10;
	return (long)(bin % mod);
}

int64_t
totp_step(int64_t t)
{
	/* floor, for the (unused) times before 1970 too */
	return t >= 0 ? t / TOTP_STEP_SECONDS :
	    -((-t + TOTP_STEP_SECONDS - 1) / TOTP_STEP_SECONDS);
}

/* The code's digits, spaces between them dropped; false if not 6. */
static bool
code_digits(const char *in, char out[TOTP_DIGITS + 1])
{
	size_t	 n = 0;

	for (; *in != '\0'; in++) {
		if (*in == ' ')
			continue;
		if (!isdigit((unsigned char)*in) || n == TOTP_DIGITS)
			return false;
		out[n++] = *in;
	}
	out[n] = '\0';
	return n == TOTP_DIGITS;
}

bool
totp_check(const unsigned char *key, size_t keylen, const char *code,
    int64_t now, int64_t last_step, int64_t *step)
{
	char	 given[TOTP_DIGITS + 1], want[24];
	int64_t	 s, at = totp_step(now);
	bool	 shaped, hit = false;
	long	 c;

	shaped = code_digits(code, given);
	if (!shaped)
		snprintf(given, sizeof(given), "xxxxxx");
	*step = -1;
	/* every step of the window is computed and compared, hit or not */
	for (s = at - TOTP_DRIFT_STEPS; s <= at + TOTP_DRIFT_STEPS; s++) {
		c = hotp(key, keylen, (uint64_t)s, TOTP_DIGITS);
		snprintf(want, sizeof(want), "%06ld", c < 0 ? 0L : c);
		if (sodium_memcmp(want, given, TOTP_DIGITS) == 0 && c >= 0 &&
		    shaped && s > last_step && !hit) {
			hit = true;
			*step = s;
		}
	}
	sodium_memzero(want, sizeof(want));
	return hit;
}

size_t
base32_encode(const unsigned char *in, size_t n, char *out, size_t outsz)
{
	size_t		 i, o = 0;
	unsigned	 acc = 0, bits = 0;

	if (outsz < (n * 8 + 4) / 5 + 1)
		return 0;
	for (i = 0; i < n; i++) {
		acc = (acc << 8) | in[i];
		bits += 8;
		while (bits >= 5) {
			out[o++] = b32[(acc >> (bits - 5)) & 31];
			bits -= 5;
		}
	}
	if (bits > 0)
		out[o++] = b32[(acc << (5 - bits)) & 31];
	out[o] = '\0';
	return o;
}

long
base32_decode(const char *in, unsigned char *out, size_t outsz)
{
	const char	*p;
	unsigned	 acc = 0, bits = 0;
	size_t		 o = 0;
	int		 v;

	for (; *in != '\0'; in++) {
		if (*in == ' ')
			continue;
		if ((p = strchr(b32, toupper((unsigned char)*in))) == NULL)
			return -1;
		v = (int)(p - b32);
		acc = ((acc << 5) | (unsigned)v) & 0xfff;
		if ((bits += 5) >= 8) {
			if (o == outsz)
				return -1;
			out[o++] = (unsigned char)(acc >> (bits - 8));
			bits -= 8;
		}
	}
	/* the bits left over are padding and must be zero (RFC 4648 3.5) */
	if ((acc & ((1u << bits) - 1)) != 0)
		return -1;
	return (long)o;
}

void
totp_secret_new(char out[TOTP_SECRET_B32_LEN + 1])
{
	unsigned char	 k[TOTP_SECRET_BYTES];

	randombytes_buf(k, sizeof(k));
	(void)base32_encode(k, sizeof(k), out, TOTP_SECRET_B32_LEN + 1);
	sodium_memzero(k, sizeof(k));
}

/* Percent-encode s into out (RFC 3986 section 2.3: unreserved kept). */
static bool
pct(const char *s, char *out, size_t outsz)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t		 o = 0;
	unsigned char	 c;

	for (; *s != '\0'; s++) {
		c = (unsigned char)*s;
		if (o + 4 > outsz)
			return false;
		if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~')
			out[o++] = (char)c;
		else {
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	out[o] = '\0';
	return true;
}

bool
totp_uri(const char *account, const char *secret, char out[TOTP_URI_MAX])
{
	char	 acct[3 * 254 + 1];
	int	 n;

	if (!pct(account, acct, sizeof(acct)))
		return false;
	n = snprintf(out, TOTP_URI_MAX, "otpauth://totp/%s:%s?secret=%s&"
	    "issuer=%s&algorithm=SHA1&digits=%d&period=%d", TOTP_ISSUER, acct,
	    secret, TOTP_ISSUER, TOTP_DIGITS, TOTP_STEP_SECONDS);
	return n > 0 && n < TOTP_URI_MAX;
}

void
recovery_code_new(char out[RECOVERY_CODE_LEN + 1])
{
	unsigned char	 r[RECOVERY_CODE_CHARS];
	size_t		 i, o = 0;

	randombytes_buf(r, sizeof(r));
	for (i = 0; i < RECOVERY_CODE_CHARS; i++) {
		if (i == RECOVERY_CODE_CHARS / 2)
			out[o++] = '-';
		/* 32 divides 256: each character uniform */
		out[o++] = (char)tolower((unsigned char)b32[r[i] & 31]);
	}
	out[o] = '\0';
	sodium_memzero(r, sizeof(r));
}

bool
recovery_code_norm(const char *in, char out[RECOVERY_CODE_CHARS + 1])
{
	size_t	 n = 0;
	int	 c;

	for (; *in != '\0'; in++) {
		if (*in == ' ' || *in == '-')
			continue;
		c = toupper((unsigned char)*in);
		if (c == '\0' || strchr(b32, c) == NULL ||
		    n == RECOVERY_CODE_CHARS)
			return false;
		out[n++] = (char)tolower(c);
	}
	out[n] = '\0';
	return n == RECOVERY_CODE_CHARS;
}
