/* Conditional requests: entity tags, If-None-Match, If-Match (cond.h). */
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "cond.h"

/* '"', 32 hex digits, '"' */
#define ETAG_LEN	34

static void
etag_of(const struct buf *b, char tag[ETAG_LEN + 1])
{
	unsigned char	 h[16];

	crypto_generichash(h, sizeof(h), (const unsigned char *)b->data,
	    b->len, NULL, 0);
	tag[0] = '"';
	sodium_bin2hex(tag + 1, 33, h, sizeof(h));
	tag[33] = '"';
	tag[34] = '\0';
}

/*
 * Whether the header value v (a list of entity tags, or "*") names tag:
 * weak comparison ignores a W/ prefix, strong never matches a weak tag.
 */
static bool
etag_listed(const char *v, const char *tag, bool weak)
{
	size_t	 n = strlen(tag), k;

	while (v != NULL && *(v += strspn(v, " \t,")) != '\0') {
		if (*v == '*')
			return true;
		if (strncmp(v, "W/", 2) == 0) {
			if (!weak) {
				v += strcspn(v, ",");
				continue;
			}
			v += 2;
		}
		k = strcspn(v, ", \t");
		if (k == n && strncmp(v, tag, n) == 0)
			return true;
		v += k;
	}
	return false;
}

/* The GET route of a write's resource (cond.h), or NULL. */
static const struct route *
route_twin(const struct route *rt)
{
	const char	*cut = strrchr(rt->path, '/');
	size_t		 i, m = cut != NULL ? (size_t)(cut - rt->path) : 0;

	for (i = 0; i < routes_len; i++)
		if (strcmp(routes[i].method, "GET") == 0 &&
		    strcmp(routes[i].path, rt->path) == 0)
			return &routes[i];
	for (i = 0; i < routes_len && m > 0; i++)
		if (strcmp(routes[i].method, "GET") == 0 &&
		    strlen(routes[i].path) == m && rt->path[m - 1] == '}' &&
		    strncmp(routes[i].path, rt->path, m) == 0)
			return &routes[i];
	return NULL;
}

/*
 * Run the GET route twin for r's resource into a buffer of its own and
 * tag its answer; *status is its status.  r's answer is left as it was
 * unless the twin did not answer 200 and `keep` says to answer that.
 */
static enum fb_err
twin_tag(struct req *r, const struct route *twin, bool keep, int *status,
    char tag[ETAG_LEN + 1])
{
	const struct route *self = r->route;
	struct buf	 saved = r->out;
	const char	*type = r->out_type;
	int		 st = r->status;
	size_t		 nhdr = r->nhdr;
	enum fb_err	 e;

	buf_init(&r->out, saved.max);
	r->status = 0;
	r->route = twin;
	e = twin->fn(r);
	r->route = self;
	*status = r->status;
	if (e == FB_OK && r->status == 200)
		etag_of(&r->out, tag);
	if (e == FB_OK && r->status != 200 && keep) {
		buf_release(&saved);
		return FB_OK;
	}
	buf_release(&r->out);
	r->out = saved;
	r->status = st;
	r->out_type = type;
	while (r->nhdr > nhdr) {
		r->nhdr--;
		free(r->hdr_name[r->nhdr]);
		free(r->hdr_value[r->nhdr]);
	}
	return e;
}

/* A method whose If-Match this checks: PATCH, PUT, DELETE. */
static bool
conditional(const struct req *r)
{
	return strcmp(r->method, "PATCH") == 0 ||
	    strcmp(r->method, "PUT") == 0 || strcmp(r->method, "DELETE") == 0;
}

void
cond_read(struct req *r)
{
	char	 tag[ETAG_LEN + 1];

	if (r->status != 200 || r->out_type != NULL)
		return;
	etag_of(&r->out, tag);
	if (req_header(r, "ETag", tag) != FB_OK)
		return;
	if (etag_listed(r->if_none_match, tag, true)) {
		buf_reset(&r->out);
		r->status = 304;
	}
}

enum fb_err
cond_write_check(struct req *r, bool *go)
{
	const struct route *twin;
	char		 tag[ETAG_LEN + 1] = "";
	int		 st;
	enum fb_err	 e;

	*go = true;
	if (r->if_match == NULL || !conditional(r))
		return FB_OK;
	if ((twin = route_twin(r->route)) != NULL) {
		if ((e = twin_tag(r, twin, true, &st, tag)) != FB_OK)
			return e;
		if (st != 200) {
			*go = false;
			return FB_OK;
		}
	}
	/* "*": any current version; a tag: this one (RFC 9110 13.1.1) */
	if ((twin == NULL && strcmp(r->if_match, "*") != 0) ||
	    (twin != NULL && !etag_listed(r->if_match, tag, false))) {
		*go = false;
		return api_error(r, AC_PRECONDITION_FAILED, "If-Match");
	}
	return FB_OK;
}

enum fb_err
cond_write_tag(struct req *r)
{
	const struct route *twin;
	char		 tag[ETAG_LEN + 1];
	int		 st;
	enum fb_err	 e;

	/* for a client that writes conditionally: no read added otherwise */
	if (r->if_match == NULL || r->status >= 300 || !conditional(r) ||
	    strcmp(r->method, "DELETE") == 0 ||
	    (twin = route_twin(r->route)) == NULL)
		return FB_OK;
	if ((e = twin_tag(r, twin, false, &st, tag)) != FB_OK || st != 200)
		return e;
	return req_header(r, "ETag", tag) == FB_ENOMEM ? FB_ENOMEM : FB_OK;
}
