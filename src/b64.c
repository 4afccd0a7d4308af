/* base64url without padding (RFC 4648 section 5), for cursors. */
#include <string.h>

#include <sodium.h>

#include "formback.h"

size_t
b64url_len(size_t n)
{
	return sodium_base64_encoded_len(n,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING) - 1;
}

void
b64url_encode(const unsigned char *in, size_t n, char *out)
{
	sodium_bin2base64(out, b64url_len(n) + 1, in, n,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

long
b64url_decode(const char *in, unsigned char *out, size_t outmax)
{
	size_t	 len;

	if (sodium_base642bin(out, outmax, in, strlen(in), NULL, &len, NULL,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0)
		return -1;
	return (long)len;
}
