/*
 * A capped growable buffer, always NUL-terminated (after curl's dynbuf
 * and git's strbuf).  An append past the cap fails and leaves the buffer
 * valid and unchanged.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

/*
 * What an empty buffer points to, so that data is a string from
 * buf_init() on (git's strbuf_slopbuf); never written: cap 0 says so.
 */
static char	 buf_empty[1];

void
buf_init(struct buf *b, size_t max)
{
	b->data = buf_empty;
	b->len = b->cap = 0;
	b->max = max;
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->cap > 0)
		b->data[0] = '\0';
}

void
buf_release(struct buf *b)
{
	if (b->cap > 0)
		free(b->data);
	b->data = buf_empty;
	b->len = b->cap = 0;
}

char *
buf_detach(struct buf *b)
{
	char	*s;

	s = b->cap > 0 ? b->data : strdup("");
	b->data = buf_empty;
	b->len = b->cap = 0;
	return s;
}

static enum fb_err
buf_grow(struct buf *b, size_t need)
{
	size_t	 ncap;
	char	*p;

	if (need > b->max)
		return FB_ENOMEM;
	if (need + 1 <= b->cap)
		return FB_OK;
	ncap = b->cap ? b->cap : 256;
	while (ncap < need + 1)
		ncap *= 2;
	if (ncap > b->max + 1)
		ncap = b->max + 1;
	if ((p = realloc(b->cap > 0 ? b->data : NULL, ncap)) == NULL)
		return FB_ENOMEM;
	b->data = p;
	b->cap = ncap;
	return FB_OK;
}

/* buf_reserve() when the room is not allocated yet */
enum fb_err
buf_reserve_grow(struct buf *b, size_t n)
{
	if (n > b->max - b->len)
		return FB_ENOMEM;
	return buf_grow(b, b->len + n);
}

/* buf_add() when the bytes do not fit in what is allocated */
enum fb_err
buf_add_grow(struct buf *b, const void *p, size_t n)
{
	if (n > b->max - b->len || buf_grow(b, b->len + n) != FB_OK)
		return FB_ENOMEM;
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return FB_OK;
}

enum fb_err
buf_addstr(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

enum fb_err
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return FB_EINVAL;
	if ((size_t)n > b->max - b->len || buf_grow(b, b->len + n) != FB_OK)
		return FB_ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
	return FB_OK;
}
