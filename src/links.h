/*
 * Short links of sent messages (design 2; links.c): /r/{token} click
 * redirects, /o/{token} open pixels, /u/{token} opt-out pages.
 */
#ifndef FORMBACK_LINKS_H
#define FORMBACK_LINKS_H

#include "formback.h"

struct db;
struct req;

/*
 * A new short link of `kind` (click, open, optout) for a delivery; the
 * token (10 base62 characters) in `token`, in the caller's transaction.
 */
enum fb_err	link_create(struct db *, const char *tenant, const char *delivery,
		    const char *lead, const char *kind, const char *url,
		    char token[LINK_TOKEN_LEN + 1]) FB_WUR;
/* GET /r/{token}, GET /o/{token}, GET and POST /u/{token} (design 2). */
void	links_handle(struct req *);

#endif
