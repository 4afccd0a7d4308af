/* UUIDv7 (RFC 9562 section 5.7) from libsodium randomness. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "formback.h"

/*
 * The 12-bit rand_a field holds the fraction of the millisecond, in
 * 4096ths (RFC 9562 section 6.2, method 3): ids made one after the other
 * in different processes of one host (the workers filing the collector's
 * events of one visitor) sort in the order they were made, not only to
 * the millisecond.  Within one process they are strictly increasing: an
 * id that would not be is the last one's plus one (method 1).
 */
void
uuid_v7(char out[UUID_STRLEN + 1])
{
	static uint64_t	 last_ms;
	static unsigned	 last_frac;
	unsigned char	 b[16];
	struct timespec	 ts;
	uint64_t	 ms;
	unsigned	 frac;
	size_t		 i;

	clock_gettime(CLOCK_REALTIME, &ts);
	ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	frac = (unsigned)(((uint64_t)(ts.tv_nsec % 1000000) << 12) / 1000000);
	randombytes_buf(b + 8, 8);
	if (ms < last_ms || (ms == last_ms && frac <= last_frac)) {
		ms = last_ms;
		if ((frac = last_frac + 1) > 0xfff) {
			ms++;
			frac = 0;
		}
	}
	last_ms = ms;
	last_frac = frac;
	for (i = 0; i < 6; i++)
		b[i] = (unsigned char)(ms >> (40 - 8 * i));
	b[6] = (unsigned char)(0x70 | frac >> 8);
	b[7] = (unsigned char)frac;
	b[8] = (unsigned char)(0x80 | (b[8] & 0x3f));
	uuid_from_bytes(b, out);
}

void
uuid_from_bytes(const unsigned char b[16], char out[UUID_STRLEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	size_t	 i, o = 0;

	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[b[i] >> 4];
		out[o++] = hex[b[i] & 0xf];
	}
	out[o] = '\0';
}

bool
uuid_to_bytes(const char *s, unsigned char b[16])
{
	size_t	 n;

	/* the dashes are libsodium's to pass over */
	return uuid_valid(s) && sodium_hex2bin(b, 16, s, UUID_STRLEN, "-", &n,
	    NULL) == 0 && n == 16;
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
