/* Text from outside, checked and cut as it may be kept (formback.h). */
#include <stdint.h>
#include <string.h>

#include "formback.h"

bool
ident_ok(const char *s, size_t max)
{
	size_t	 n = strlen(s);

	return n >= 1 && n <= max && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

bool
text_blank(const char *s)
{
	/* ASCII white space and the ideographic space U+3000 */
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' ||
	    strncmp(s, "\xe3\x80\x80", 3) == 0)
		s += (unsigned char)*s < 0x80 ? 1 : 3;
	return *s == '\0';
}

bool
text_line(const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/*
 * The UTF-8 sequence at p: its length, its code point in *cp; 0 when invalid.
 */
static int
utf8_next(const unsigned char *p, uint32_t *cp)
{
	int	 k, i;

	if (*p < 0x80)
		k = 0, *cp = *p;
	else if ((*p & 0xe0) == 0xc0)
		k = 1, *cp = *p & 0x1f;
	else if ((*p & 0xf0) == 0xe0)
		k = 2, *cp = *p & 0x0f;
	else if ((*p & 0xf8) == 0xf0)
		k = 3, *cp = *p & 0x07;
	else
		return 0;
	for (i = 1; i <= k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (p[i] & 0x3f);
	}
	if ((k == 1 && *cp < 0x80) || (k == 2 && *cp < 0x800) ||
	    (k == 3 && (*cp < 0x10000 || *cp > 0x10ffff)) ||
	    (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return k + 1;
}

long
utf8_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	long		 n = 0;
	int		 k;
	uint32_t	 cp;

	for (; *p != '\0'; p += k, n++)
		if ((k = utf8_next(p, &cp)) == 0)
			return -1;
	return n;
}

void
text_clip(const char *in, size_t maxchars, char *out, size_t outsz)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t		 o = 0, n = 0;
	uint32_t	 cp;
	int		 k;

	for (; *p != '\0' && n < maxchars; p += k > 0 ? k : 1, n++) {
		if ((k = utf8_next(p, &cp)) == 0 || cp < 0x20 || cp == 0x7f ||
		    (cp >= 0x80 && cp < 0xa0)) {
			/* an invalid byte or a control character: a '?' */
			if (o + 1 >= outsz)
				break;
			out[o++] = '?';
			continue;
		}
		if (o + (size_t)k >= outsz)
			break;
		memcpy(out + o, p, (size_t)k);
		o += (size_t)k;
	}
	if (outsz > 0)
		out[o] = '\0';
}

bool
header_ok(const char *name, const char *value)
{
	static const char tchar[] = "!#$%&'*+-.^_`|~0123456789"
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	const unsigned char *v;

	if (name[0] == '\0' || strspn(name, tchar) != strlen(name))
		return false;
	for (v = (const unsigned char *)value; *v != '\0'; v++)
		if ((*v < 0x20 && *v != '\t') || *v >= 0x7f)
			return false;
	return true;
}

uint32_t
fnv1a(uint32_t h, const char *s)
{
	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

bool
one_of(const char *s, const char *const *set)
{
	for (; *set != NULL; set++)
		if (strcmp(s, *set) == 0)
			return true;
	return false;
}
