/* API key strings (design 1) and their stored hash (design 6). */
#include <ctype.h>
#include <string.h>

#include <sodium.h>

#include "formback.h"

static const char b62[] =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

void
apikey_generate(bool test, char out[APIKEY_MAX_LEN + 1])
{
	const char	*pfx = test ? "fb_test_" : "fb_live_";
	size_t		 n = strlen(pfx), i;

	memcpy(out, pfx, n);
	for (i = 0; i < APIKEY_RANDOM_LEN; i++)
		out[n + i] = b62[randombytes_uniform(62)];
	out[n + i] = '\0';
}

bool
apikey_shape_ok(const char *s, bool *test)
{
	size_t	 i;

	if (strncmp(s, "fb_live_", 8) == 0)
		*test = false;
	else if (strncmp(s, "fb_test_", 8) == 0)
		*test = true;
	else
		return false;
	if (strlen(s + 8) != APIKEY_RANDOM_LEN)
		return false;
	for (i = 8; s[i] != '\0'; i++)
		if (strchr(b62, s[i]) == NULL)
			return false;
	return true;
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
