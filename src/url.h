/*
 * URLs from outside (url.c): parsed as a browser's location gives them
 * (the URL Standard, WHATWG), written back only as the parser serializes
 * them, their contacts taken out; and query strings and percent-decoding,
 * one reader for every caller.
 */
#ifndef FORMBACK_URL_H
#define FORMBACK_URL_H

#include "formback.h"

#define URL_MAX		2048

/*
 * A URL as a browser's location gives it: the three parts used for
 * judging (hostname, pathname, search), and what url_href() needs to
 * write the whole URL back.
 */
struct url_loc {
	char	 protocol[8];		/* "http:" or "https:" */
	char	 hostname[256];		/* lower case, no port */
	char	 port[8];		/* "" when the scheme's default */
	char	 pathname[URL_MAX];	/* percent-encoded, "/" when empty */
	char	 search[URL_MAX];	/* "" or "?..." percent-encoded */
	char	 hash[URL_MAX];		/* "" or "#..." percent-encoded */
};

/*
 * Parse an absolute http(s) URL into its location as a browser's URL
 * parser gives it (the URL Standard, WHATWG: trimming, '\' as '/', user
 * info and port dropped, IDNA and IPv4/IPv6 host forms, dot segments
 * removed, the path and query percent-encoded with the standard's sets).
 * Returns false for what a browser would not parse, or past URL_MAX.
 */
bool	url_parse(const char *url, struct url_loc *);
/*
 * Write the URL of `loc` as the URL Standard serializes it (href), user
 * info left out: only printable ASCII, never a space, quote, '<', '>' or
 * a control character, so it is safe in a header (Location) and in HTML
 * attributes.  Returns false when it does not fit in outsz bytes or
 * passes URL_MAX characters (out is then "").
 */
bool	url_href(const struct url_loc *, char *out, size_t outsz);
/*
 * The one way an outside URL is kept or emitted: parse `in` as a browser
 * would (url_parse) and write its href (url_href) into out (URL_MAX + 1
 * bytes).  Returns false when `in` is not an http(s) URL a browser would
 * load or its href passes URL_MAX; out is then "".  (STYLE 23: a URL is
 * stored and emitted only as the parser serialized it.)
 */
bool	url_normalize(const char *in, char out[URL_MAX + 1]);
/*
 * Take out of a parsed URL every part that may carry a contact, so that
 * no clear contact reaches the database or the logs through a URL (issue
 * 11; design 6): a path segment that holds one (contact_in_text(), after
 * percent-decoding) becomes "redacted"; a query or fragment parameter
 * goes when its name says it is a contact (tel, phone, mail, denwa,
 * keitai, mobile, contact) or its name or value holds one, and so do
 * neighbouring parameters of nothing but 2 to 5 digits that together
 * make a phone number (a number typed into split fields); a fragment
 * that is not parameters goes whole when it holds one.  Returns whether
 * anything was taken out.
 */
bool	url_scrub(struct url_loc *);
/*
 * Percent-decode s[0..n) into out (outsz bytes, always NUL-terminated).
 * PCT_PLUS: '+' is a space (a query, as URLSearchParams and forms read
 * it).  PCT_STRICT: a broken escape ('%' not followed by two hex digits)
 * or %00 is an error; without it a broken escape stays as it is.
 * Returns false for such an error, or when out was too small.
 */
#define PCT_PLUS	0x01
#define PCT_STRICT	0x02
bool	pct_decode(const char *s, size_t n, unsigned flags, char *out,
    size_t outsz);

/* One parameter of a query string: the raw (still encoded) parts. */
struct query_pair {
	const char	*all, *name, *value;	/* all: "name=value" */
	size_t		 all_len, name_len, value_len;
	bool		 has_value;		/* there was a '=' */
};
/*
 * The next parameter of the query string at *p (without its '?'; '&'
 * separates, empty ones are skipped), *p moved past it; false at the end.
 */
bool	query_next(const char **p, struct query_pair *);

#endif
