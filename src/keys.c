/* API key strings (design 1) and their stored hash (design 6). */
#include <ctype.h>
#include <string.h>

#include <sodium.h>

#include "formback.h"

static const char b62[] =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

void
random_b62(char *out, size_t n)
{
	unsigned char	 rnd[64];
	size_t		 i = 0, k = sizeof(rnd);

	while (i < n) {
		if (k == sizeof(rnd)) {
			randombytes_buf(rnd, sizeof(rnd));
			k = 0;
		}
		/* 248 = 4 * 62: a byte below it is uniform modulo 62 */
		if (rnd[k] < 248)
			out[i++] = b62[rnd[k] % 62];
		k++;
	}
	out[n] = '\0';
	sodium_memzero(rnd, sizeof(rnd));
}

bool
b62_is(const char *s, size_t n)
{
	return strlen(s) == n && strspn(s, b62) == n;
}

void
apikey_generate(bool test, char out[APIKEY_MAX_LEN + 1])
{
	const char	*pfx = test ? "fb_test_" : "fb_live_";
	size_t		 n = strlen(pfx);

	memcpy(out, pfx, n);
	random_b62(out + n, APIKEY_RANDOM_LEN);
}

bool
apikey_shape_ok(const char *s, bool *test)
{
	if (strncmp(s, "fb_live_", 8) == 0)
		*test = false;
	else if (strncmp(s, "fb_test_", 8) == 0)
		*test = true;
	else
		return false;
	return b62_is(s + 8, APIKEY_RANDOM_LEN);
}

void
secret_hash(const char *key, unsigned char out[SECRET_HASH_LEN])
{
	crypto_generichash(out, SECRET_HASH_LEN, (const unsigned char *)key,
	    strlen(key), NULL, 0);
}

void
token_generate(const char *prefix, char out[TOKEN_LEN + 1])
{
	unsigned char	 raw[32];

	memcpy(out, prefix, 4);
	randombytes_buf(raw, sizeof(raw));
	b64url_encode(raw, sizeof(raw), out + 4);
	sodium_memzero(raw, sizeof(raw));
	out[TOKEN_LEN] = '\0';
}

bool
token_shape_ok(const char *s, const char *prefix)
{
	size_t	 i;

	if (strncmp(s, prefix, 4) != 0)
		return false;
	for (i = 4; i < TOKEN_LEN; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_')
			return false;
	return s[TOKEN_LEN] == '\0';
}
