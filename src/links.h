/*
 * Short links of sent messages (design 2; links.c): /r/{token} click
 * redirects, /o/{token} open pixels, /u/{token} opt-out pages.
 */
#ifndef FORMBACK_LINKS_H
#define FORMBACK_LINKS_H

#include "formback.h"

struct db;
struct delivery_ref;
struct req;

/*
 * A new short link of `kind` (click, open, optout) for delivery `d`, to
 * `url` (click links; NULL otherwise) as url_normalize() wrote it; its
 * token (LINK_TOKEN_LEN base62 characters) in `token`, in the caller's
 * transaction.
 */
enum fb_err	link_create(struct db *, const struct delivery_ref *d,
		    const char *kind, const char *url,
		    char token[LINK_TOKEN_LEN + 1]) FB_WUR;
/*
 * The links' routes (design 2): GET /r/{token} (302 to the link's URL),
 * GET /o/{token} (the open pixel), GET /u/{token} (the opt-out page) and
 * POST /u/{token} (the opt-out, in the dispatcher's transaction).  Each
 * counts the visit; an unknown token, or one of another kind, is a 404
 * page.  Return FB_OK after answering, or the database's error.
 */
enum fb_err	links_click(struct req *);
enum fb_err	links_open(struct req *);
enum fb_err	links_optout_page(struct req *);
enum fb_err	links_optout(struct req *);

#endif
