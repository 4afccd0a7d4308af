/*
 * Conditional requests (RFC 9110 section 13; issue 44): the entity tag
 * of every JSON answer of a GET, If-None-Match answered 304, and
 * If-Match on PATCH, PUT and DELETE answered 412 precondition_failed
 * when the resource changed since the client read it.
 *
 * A resource's tag is a strong one of the bytes of its GET answer
 * ("<32 hex digits of its BLAKE2b-128>"): the same bytes, the same tag,
 * on every worker and host, with nothing stored.  A write's resource is
 * the GET route of its path, or else of its parent path (PUT
 * /campaigns/{id}/url-rules changes GET /campaigns/{id}), read in the
 * write's own transaction; a write whose path has none refuses any
 * If-Match but "*".
 */
#ifndef FORMBACK_COND_H
#define FORMBACK_COND_H

#include "req.h"

/*
 * After a GET's handler answered 200 with JSON: its ETag header, and
 * 304 with no body when If-None-Match names it (weak comparison,
 * RFC 9110 13.1.2).
 */
void		cond_read(struct req *);
/*
 * Before a PATCH, PUT or DELETE handler runs, in its transaction: with
 * If-Match, the resource read and its tag compared (strong comparison,
 * 13.1.1).  Returns FB_OK to go on, FB_OK with the answer written (the
 * resource's own error, 404 say, or 412 precondition_failed naming
 * If-Match) when it must not, or an internal error.
 */
enum fb_err	cond_write_check(struct req *, bool *go) FB_WUR;
/*
 * After a PATCH or PUT with If-Match succeeded: the ETag header of the
 * resource as the write left it, so the client can chain If-Match (a
 * write without one reads nothing more).  Errors are internal.
 */
enum fb_err	cond_write_tag(struct req *) FB_WUR;

#endif
