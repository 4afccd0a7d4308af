/* RFC 4180 records in UTF-8 or Shift_JIS (csv.h). */
#include <errno.h>
#include <iconv.h>
#include <stdio.h>
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
	    (n >= 2 &&
	    ((unsigned char)in[0] == 0xff || (unsigned char)in[0] == 0xfe) &&
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
				/* text after the closing quote */
				return -1;
		} else {
			for (; p < c->end && *p != ',' && *p != '\n' &&
			    *p != '\r'; p++) {
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

void
csvw_begin(struct csvw *w, struct buf *out)
{
	w->out = out;
	w->err = FB_OK;
	w->first = true;
}

static void
csv_put(struct csvw *w, const char *p, size_t n)
{
	if (w->err == FB_OK)
		w->err = buf_add(w->out, p, n);
}

/* One field, quoted when it must be, after "'" when `formula`. */
static void
csv_field(struct csvw *w, const char *v, bool formula)
{
	const char	*q;

	if (!w->first)
		csv_put(w, ",", 1);
	w->first = false;
	if (v == NULL)
		return;
	if (v[strcspn(v, ",\"\r\n")] == '\0' && !formula) {
		csv_put(w, v, strlen(v));
		return;
	}
	csv_put(w, formula ? "\"'" : "\"", formula ? 2 : 1);
	for (; (q = strchr(v, '"')) != NULL; v = q + 1) {
		csv_put(w, v, (size_t)(q - v) + 1);
		csv_put(w, "\"", 1);
	}
	csv_put(w, v, strlen(v));
	csv_put(w, "\"", 1);
}

void
csv_cell(struct csvw *w, const char *v)
{
	csv_field(w, v, v != NULL && *v != '\0' && strchr("=+-@\t\r", *v) !=
	    NULL);
}

void
csv_plain(struct csvw *w, const char *v)
{
	csv_field(w, v, false);
}

void
csv_int(struct csvw *w, long long v)
{
	char	 n[24];

	snprintf(n, sizeof(n), "%lld", v);
	csv_field(w, n, false);
}

void
csv_time(struct csvw *w, const char *v)
{
	char	 t[32];

	csv_field(w, time_out(v, t), false);
}

void
csv_end(struct csvw *w)
{
	csv_put(w, "\r\n", 2);
	w->first = true;
}
