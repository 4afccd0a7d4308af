/* RFC 4180 records in UTF-8 or Shift_JIS (csv.h). */
#include <errno.h>
#include <iconv.h>
#include <string.h>

#include "csv.h"

enum fb_err
csv_text(const char *in, size_t n, struct buf *out, const char **encoding)
{
	iconv_t		 cd;
	char		*ip, *op, chunk[8192];
	size_t		 il, ol, rc;
	enum fb_err	 e = FB_OK;

	if (memchr(in, '\0', n) != NULL ||
	    (n >= 2 && ((unsigned char)in[0] == 0xff || (unsigned char)in[0] == 0xfe) &&
	    ((unsigned char)in[1] == 0xfe || (unsigned char)in[1] == 0xff)))
		return FB_EINVAL;
	if (n >= 3 && memcmp(in, "\xef\xbb\xbf", 3) == 0) {
		*encoding = "utf-8-bom";
		in += 3, n -= 3;
	} else
		*encoding = "utf-8";
	if ((e = buf_add(out, in, n)) != FB_OK)
		return e;
	if (utf8_len(out->data) >= 0)
		return FB_OK;
	if (strcmp(*encoding, "utf-8-bom") == 0)
		return FB_EINVAL;
	/* not UTF-8: Shift_JIS as Windows writes it */
	buf_reset(out);
	*encoding = "shift_jis";
	if ((cd = iconv_open("UTF-8", "CP932")) == (iconv_t)-1)
		return FB_EINVAL;
	ip = (char *)in;
	il = n;
	while (il > 0 && e == FB_OK) {
		op = chunk;
		ol = sizeof(chunk);
		rc = iconv(cd, &ip, &il, &op, &ol);
		if (rc == (size_t)-1 && errno != E2BIG)
			e = FB_EINVAL;
		else
			e = buf_add(out, chunk, sizeof(chunk) - ol);
	}
	iconv_close(cd);
	if (e == FB_OK && utf8_len(out->data) < 0)
		e = FB_EINVAL;
	return e;
}

void
csv_init(struct csv *c, const char *s, size_t n)
{
	memset(c, 0, sizeof(*c) - sizeof(c->store));
	c->p = s;
	c->end = s + n;
}

int
csv_next(struct csv *c)
{
	const char	*p = c->p;
	char		*w = c->store, *f;
	bool		 quoted;

	if (p >= c->end)
		return 0;
	c->record++;
	c->nfields = 0;
	for (;;) {
		if (c->nfields == CSV_MAX_FIELDS)
			return -1;
		f = c->field[c->nfields++] = w;
		quoted = p < c->end && *p == '"';
		if (quoted) {
			for (p++; ; p++) {
				if (p >= c->end)
					return -1;	/* a quote left open */
				if (*p == '"') {
					if (p + 1 < c->end && p[1] == '"')
						p++;
					else
						break;
				}
				if (w - f == CSV_MAX_FIELD)
					return -1;
				*w++ = *p;
			}
			p++;
			if (p < c->end && *p != ',' && *p != '\n' && *p != '\r')
				return -1;	/* text after the closing quote */
		} else {
			for (; p < c->end && *p != ',' && *p != '\n' && *p != '\r'; p++) {
				if (*p == '"' || w - f == CSV_MAX_FIELD)
					return -1;
				*w++ = *p;
			}
		}
		*w++ = '\0';
		if (p < c->end && *p == ',') {
			p++;
			continue;
		}
		if (p < c->end && *p == '\r')
			p++;
		if (p < c->end && *p == '\n')
			p++;
		c->p = p;
		return 1;
	}
}
