/*
 * Short links of sent messages (design 2; links.c): /r/{token} click
 * redirects, /o/{token} open pixels, /u/{token} opt-out pages.
 */
#ifndef FORMBACK_LINKS_H
#define FORMBACK_LINKS_H

#include "formback.h"

struct db;
struct link_new;
struct req;

/*
 * New short links (their kind, delivery and URL given in l[0..n), n at
 * most LINKS_ADD_MAX): each gets a fresh token of LINK_TOKEN_LEN base62
 * characters (about 59 bits from libsodium's randombytes_uniform()), and
 * all are added in one statement, in the caller's transaction.
 */
enum fb_err	links_create(struct db *, struct link_new *l, size_t n) FB_WUR;
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
