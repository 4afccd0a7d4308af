/*
 * The capped growable buffer (after curl's dynbuf and git's strbuf).
 * Implemented in buf.c; the common appends are inline here.
 */
#ifndef FB_BUF_H
#define FB_BUF_H

#include <stddef.h>
#include <string.h>

#include "cdefs.h"
#include "err.h"

/*
 * A capped growable byte buffer, always NUL-terminated: `data` is a
 * string from buf_init() on ("" until something is added), never NULL.
 * An append that would pass `max` bytes fails with FB_ENOMEM and leaves
 * the buffer as it was.  Lifecycle: buf_init, buf_reset (keep memory),
 * buf_release (free), buf_detach (hand the string to the caller, who
 * frees it; NULL only when memory runs out).
 */
struct buf {
	char	*data;
	size_t	 len;
	size_t	 cap;
	size_t	 max;
};

void		 buf_init(struct buf *, size_t max);
void		 buf_reset(struct buf *);
void		 buf_release(struct buf *);
char		*buf_detach(struct buf *);
enum fb_err	 buf_add_grow(struct buf *, const void *, size_t) FB_WUR;
enum fb_err	 buf_reserve_grow(struct buf *, size_t) FB_WUR;
enum fb_err	 buf_addstr(struct buf *, const char *) FB_WUR;
enum fb_err	 buf_printf(struct buf *, const char *, ...)
		    FB_PRINTF(2, 3) FB_WUR;

/*
 * Append n bytes of p.  Inline for the common case, room already there
 * (a JSON generator hands over thousands of small pieces per response);
 * buf_add_grow() otherwise.
 */
static inline enum fb_err FB_WUR
buf_add(struct buf *b, const void *p, size_t n)
{
	if (n >= b->cap - b->len)
		return buf_add_grow(b, p, n);
	if (n == 1)
		b->data[b->len] = *(const char *)p;
	else
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return FB_OK;
}

/*
 * Make room for n more bytes and the NUL after them, so that they can be
 * written at data + len (then len advanced and the NUL written by the
 * caller).  FB_ENOMEM past `max` or out of memory; the buffer unchanged.
 * Inline when the room is there, as buf_add().
 */
static inline enum fb_err FB_WUR
buf_reserve(struct buf *b, size_t n)
{
	return n < b->cap - b->len ? FB_OK : buf_reserve_grow(b, n);
}

#endif /* FB_BUF_H */
