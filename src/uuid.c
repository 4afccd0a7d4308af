/* UUIDv7 (RFC 9562 section 5.7) from libsodium randomness. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "formback.h"

void
uuid_v7(char out[UUID_STRLEN + 1])
{
	unsigned char	 b[16];
	struct timespec	 ts;
	uint64_t	 ms;
	static const char hex[] = "0123456789abcdef";
	size_t		 i, o = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	randombytes_buf(b + 6, 10);
	for (i = 0; i < 6; i++)
		b[i] = (unsigned char)(ms >> (40 - 8 * i));
	b[6] = (unsigned char)(0x70 | (b[6] & 0x0f));
	b[8] = (unsigned char)(0x80 | (b[8] & 0x3f));
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[b[i] >> 4];
		out[o++] = hex[b[i] & 0xf];
	}
	out[o] = '\0';
}

bool
uuid_valid(const char *s)
{
	size_t	 i;

	if (s == NULL || strlen(s) != UUID_STRLEN)
		return false;
	for (i = 0; i < UUID_STRLEN; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!isxdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

void
uuid_lower(char *s)
{
	for (; *s != '\0'; s++)
		*s = (char)tolower((unsigned char)*s);
}
