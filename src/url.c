/*
 * URLs from outside (the URL Standard, WHATWG): parsed as a browser's
 * location gives them, written back as the parser serializes them, their
 * contacts scrubbed; and query strings and percent-decoding, written
 * once for every reader (the API's queries, the rules' query match,
 * UTM parameters, the scrub).  See url.h.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>

#include <idn2.h>
#include <sodium.h>

#include "contact.h"
#include "url.h"

/*
 * The URL Standard's (WHATWG) parsing of an http(s) URL, as far as the
 * three parts of a location go, so that the match test and the collector
 * judge a URL as the browser the tag runs in sees it: tabs and newlines
 * dropped, leading and trailing spaces and controls trimmed, '\' read as
 * '/', any number of slashes after the scheme, user info dropped, the
 * host lower-cased, IDNA (UTS #46, libidn2), IPv4 numbers in any of the
 * forms the standard reads written dotted-decimal and IPv6 compressed,
 * dot segments removed, and the path and query percent-encoded with the
 * standard's sets for special schemes.
 */

/* Percent-encode set of the path (URL Standard: path percent-encode set). */
static bool
in_path_set(unsigned char c)
{
	return c < 0x20 || c > 0x7e || c == ' ' || c == '"' || c == '#' ||
	    c == '<' || c == '>' || c == '?' || c == '`' ||
	    c == '{' || c == '}';
}

/* ... and of a special URL's query (special-query percent-encode set). */
static bool
in_query_set(unsigned char c)
{
	return c < 0x20 || c > 0x7e || c == ' ' || c == '"' || c == '#' ||
	    c == '<' || c == '>' || c == '\'';
}

/* ... and of the fragment (fragment percent-encode set). */
static bool
in_fragment_set(unsigned char c)
{
	return c < 0x20 || c > 0x7e || c == ' ' || c == '"' || c == '<' ||
	    c == '>' || c == '`';
}

/* Append [s, s+n) to dst at *o, percent-encoding the bytes of `set`. */
static bool
enc_append(char *dst, size_t dstsz, size_t *o, const char *s, size_t n,
    bool (*set)(unsigned char))
{
	static const char hex[] = "0123456789ABCDEF";
	size_t		 i;
	unsigned char	 c;

	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (set(c)) {
			if (*o + 3 >= dstsz)
				return false;
			dst[(*o)++] = '%';
			dst[(*o)++] = hex[c >> 4];
			dst[(*o)++] = hex[c & 15];
		} else {
			if (*o + 1 >= dstsz)
				return false;
			dst[(*o)++] = (char)c;
		}
	}
	dst[*o] = '\0';
	return true;
}

/* "." or its percent-encoded form (URL Standard: single-dot segment). */
static bool
single_dot(const char *s, size_t n)
{
	return (n == 1 && s[0] == '.') || (n == 3 &&
	    strncasecmp(s, "%2e", 3) == 0);
}

/* ".." and its percent-encoded forms (double-dot segment). */
static bool
double_dot(const char *s, size_t n)
{
	return (n == 2 && strncmp(s, "..", 2) == 0) ||
	    (n == 4 && (strncasecmp(s, ".%2e", 4) == 0 ||
	    strncasecmp(s, "%2e.", 4) == 0)) ||
	    (n == 6 && strncasecmp(s, "%2e%2e", 6) == 0);
}

/*
 * The path state of the URL Standard over [s, s+n) (the part after the
 * host up to '?' or '#', every '\' already '/'): segments appended, "."
 * and ".." applied, each segment percent-encoded.
 */
static bool
path_parse(char *dst, size_t dstsz, const char *s, size_t n)
{
	size_t		 o = 0, i = 0, seg, len, nseg = 0;
	size_t		 ends[URL_MAX / 2];	/* where each segment ends */
	bool		 last, add;

	if (n > 0 && s[0] == '/')
		i = 1;
	for (;;) {
		seg = i;
		while (i < n && s[i] != '/')
			i++;
		len = i - seg;
		last = i >= n;
		add = true;
		if (double_dot(s + seg, len)) {
			if (nseg > 0) {
				nseg--;
				o = nseg > 0 ? ends[nseg - 1] : 0;
			}
			len = 0;
			add = last;	/* "/a/.." is "/" */
		} else if (single_dot(s + seg, len)) {
			len = 0;
			add = last;
		}
		if (add) {
			if (o + 1 >= dstsz || nseg == NELEM(ends))
				return false;
			dst[o++] = '/';
			if (!enc_append(dst, dstsz, &o, s + seg, len,
			    in_path_set))
				return false;
			ends[nseg++] = o;
		}
		if (last)
			break;
		i++;	/* the '/' */
	}
	if (o == 0)
		dst[o++] = '/';
	dst[o] = '\0';
	return true;
}

/* One IPv4 part: decimal, 0x hex or 0-led octal (URL Standard: IPv4 number). */
static bool
ipv4_number(const char *s, size_t n, unsigned long long *v)
{
	unsigned	 base = 10, d;
	size_t		 i;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2, n -= 2;
	else if (n >= 2 && s[0] == '0')
		base = 8, s += 1, n -= 1;
	*v = 0;
	for (i = 0; i < n; i++) {
		if (isdigit((unsigned char)s[i]))
			d = (unsigned)(s[i] - '0');
		else if (base == 16 && isxdigit((unsigned char)s[i]))
			d = (unsigned)(tolower((unsigned char)s[i]) - 'a' + 10);
		else
			return false;
		if (d >= base)
			return false;
		*v = *v * base + d;
		if (*v > 0xffffffffull)
			/* too big; refused by the caller */
			*v = 0x100000000ull;
	}
	return true;
}

/*
 * A host whose last label is a number is an IPv4 address (URL Standard:
 * ends-in-a-number checker, IPv4 parser): written dotted-decimal in out.
 * Returns 1 when so, 0 when it is a domain, -1 when invalid.
 */
static int
ipv4_host(const char *h, char *out, size_t outsz)
{
	const char	*part[5];
	size_t		 len[5], np = 0, n = strlen(h), i, l;
	unsigned long long v[5], addr = 0;
	const char	*d;

	if (n > 0 && h[n - 1] == '.')
		n--;	/* one trailing dot */
	for (i = 0;; i += l + 1) {
		d = memchr(h + i, '.', n - i);
		l = d != NULL ? (size_t)(d - (h + i)) : n - i;
		if (np == NELEM(part))
			return strspn(h + i, "0123456789") == n - i ? -1 : 0;
		part[np] = h + i;
		len[np++] = l;
		if (d == NULL)
			break;
	}
	/* the last label decides: digits, or a whole IPv4 number */
	l = len[np - 1];
	if (l == 0 || (strspn(part[np - 1], "0123456789") < l &&
	    !ipv4_number(part[np - 1], l, &v[np - 1])))
		return 0;
	if (np > 4)
		return -1;
	for (i = 0; i < np; i++)
		if (len[i] == 0 || !ipv4_number(part[i], len[i], &v[i]) ||
		    (i < np - 1 && v[i] > 255))
			return -1;
	if (v[np - 1] >= (1ull << (8 * (5 - np))))
		return -1;
	for (i = 0; i < np - 1; i++)
		addr |= v[i] << (8 * (3 - i));
	addr += v[np - 1];
	snprintf(out, outsz, "%llu.%llu.%llu.%llu", addr >> 24,
	    (addr >> 16) & 255, (addr >> 8) & 255, addr & 255);
	return 1;
}

/* The host, as the URL Standard's host parser writes it, into loc. */
static bool
host_parse(const char *s, size_t n, struct url_loc *loc)
{
	char		 raw[512], v4[32], hx[3] = "";
	unsigned char	 a6[16];
	size_t		 i, o;
	int		 rc;

	if (n == 0 || n >= sizeof(raw))
		return false;
	if (s[0] == '[') {
		if (n < 3 || s[n - 1] != ']')
			return false;
		memcpy(raw, s + 1, n - 2);
		raw[n - 2] = '\0';
		if (inet_pton(AF_INET6, raw, a6) != 1)
			return false;
		loc->hostname[0] = '[';
		if (inet_ntop(AF_INET6, a6, loc->hostname + 1,
		    sizeof(loc->hostname) - 2) == NULL)
			return false;
		o = strlen(loc->hostname);
		loc->hostname[o] = ']';
		loc->hostname[o + 1] = '\0';
		return true;
	}
	/* percent-decoded first */
	for (i = o = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n &&
		    isxdigit((unsigned char)s[i + 1]) &&
		    isxdigit((unsigned char)s[i + 2])) {
			hx[0] = s[i + 1];
			hx[1] = s[i + 2];
			raw[o++] = (char)strtol(hx, NULL, 16);
			i += 2;
		} else
			raw[o++] = s[i];
	}
	raw[o] = '\0';
	if (!domain_ascii(raw, strlen(raw), raw, sizeof(raw)))
		return false;
	for (i = 0; raw[i] != '\0'; i++) {
		unsigned char	 c = (unsigned char)raw[i];

		/* forbidden domain code points */
		if (c <= 0x20 || c >= 0x7f ||
		    strchr("#%/:<>?@[\\]^|", c) != NULL)
			return false;
		raw[i] = (char)tolower(c);
	}
	if ((rc = ipv4_host(raw, v4, sizeof(v4))) < 0)
		return false;
	if (rc > 0)
		snprintf(raw, sizeof(raw), "%s", v4);
	if (raw[0] == '\0' || strlen(raw) >= sizeof(loc->hostname))
		return false;
	snprintf(loc->hostname, sizeof(loc->hostname), "%s", raw);
	return true;
}

bool
url_parse(const char *url, struct url_loc *loc)
{
	char		 buf[URL_MAX + 1], *p, *h, *he, *port, *q, *frag, *e;
	size_t		 n, i, o;
	long		 pn;

	memset(loc, 0, sizeof(*loc));
	if (strlen(url) > URL_MAX)
		return false;
	/* trim C0 controls and spaces; drop tabs and newlines */
	while (*url != '\0' && (unsigned char)*url <= 0x20)
		url++;
	n = strlen(url);
	while (n > 0 && (unsigned char)url[n - 1] <= 0x20)
		n--;
	for (i = o = 0; i < n; i++)
		if (url[i] != '\t' && url[i] != '\n' && url[i] != '\r')
			buf[o++] = url[i];
	buf[o] = '\0';
	if (strncasecmp(buf, "https:", 6) == 0)
		p = buf + 6;
	else if (strncasecmp(buf, "http:", 5) == 0)
		p = buf + 5;
	else
		return false;
	snprintf(loc->protocol, sizeof(loc->protocol), "%s", p[-2] == 's' ||
	    p[-2] == 'S' ? "https:" : "http:");
	/* the fragment apart; in a special URL '\' is '/' before the query */
	frag = p + strcspn(p, "#");
	if (*frag == '#') {
		*frag = '\0';
		/* a lone "#" gives an empty hash, as in a browser */
		if (frag[1] != '\0') {
			o = 0;
			loc->hash[o++] = '#';
			if (!enc_append(loc->hash, sizeof(loc->hash), &o,
			    frag + 1, strlen(frag + 1), in_fragment_set))
				return false;
		}
	}
	for (e = p; *e != '\0' && *e != '?'; e++)
		if (*e == '\\')
			*e = '/';
	/* any number of slashes before the authority */
	while (*p == '/')
		p++;
	h = p;
	he = h + strcspn(h, "/?");
	/* user info goes (up to the last '@'); the port goes */
	for (e = h; e < he; e++)
		if (*e == '@')
			h = e + 1;
	if (h < he && *h == '[') {
		if ((port = memchr(h, ']', (size_t)(he - h))) == NULL)
			return false;
		port++;
		if (port < he && *port != ':')
			return false;
	} else if ((port = memchr(h, ':', (size_t)(he - h))) == NULL)
		port = he;
	if (port < he && (he - port - 1 > 5 || strspn(port + 1, "0123456789") <
	    (size_t)(he - port - 1) || strtol(port + 1, NULL, 10) > 65535))
		return false;
	/* the port as a number; none when empty or the scheme's default */
	if (port + 1 < he) {
		pn = strtol(port + 1, NULL, 10);
		if (pn != (strcmp(loc->protocol, "https:") == 0 ? 443 : 80))
			snprintf(loc->port, sizeof(loc->port), "%ld", pn);
	}
	if (!host_parse(h, (size_t)(port - h), loc))
		return false;
	q = strchr(he, '?');
	if (!path_parse(loc->pathname, sizeof(loc->pathname), he,
	    (size_t)((q != NULL ? q : he + strlen(he)) - he)))
		return false;
	/* a lone "?" gives an empty search, as in a browser */
	if (q != NULL && q[1] != '\0') {
		o = 0;
		if (!enc_append(loc->search, sizeof(loc->search), &o, q,
		    strlen(q), in_query_set))
			return false;
	}
	return true;
}

bool
url_href(const struct url_loc *loc, char *out, size_t outsz)
{
	int	 n;

	n = snprintf(out, outsz, "%s//%s%s%s%s%s%s", loc->protocol,
	    loc->hostname,
	    loc->port[0] != '\0' ? ":" : "", loc->port, loc->pathname,
	    loc->search, loc->hash);
	if (n < 0 || (size_t)n >= outsz || n > URL_MAX) {
		if (outsz > 0)
			out[0] = '\0';
		return false;
	}
	return true;
}

bool
url_normalize(const char *in, char out[URL_MAX + 1])
{
	struct url_loc	*loc;
	bool		 ok;

	out[0] = '\0';
	/* a location is 6 KiB: off the stack of the callers' deep frames */
	if ((loc = malloc(sizeof(*loc))) == NULL)
		return false;
	ok = url_parse(in, loc) && url_href(loc, out, URL_MAX + 1);
	free(loc);
	return ok;
}

bool
pct_decode(const char *s, size_t n, unsigned flags, char *out, size_t outsz)
{
	static const char hex[] = "0123456789abcdef";
	size_t	 i, o = 0;
	bool	 ok = true;
	int	 c;

	for (i = 0; i < n && o + 1 < outsz; i++) {
		if (s[i] == '+' && (flags & PCT_PLUS) != 0)
			out[o++] = ' ';
		else if (s[i] == '%' && i + 2 < n &&
		    isxdigit((unsigned char)s[i + 1]) &&
		    isxdigit((unsigned char)s[i + 2])) {
			c = (int)((strchr(hex,
			    tolower((unsigned char)s[i + 1])) - hex) << 4 |
			    (strchr(hex,
			    tolower((unsigned char)s[i + 2])) - hex));
			if (c == 0 && (flags & PCT_STRICT) != 0)
				ok = false;
			out[o++] = (char)c;
			i += 2;
		} else {
			if (s[i] == '%' && (flags & PCT_STRICT) != 0)
				ok = false;
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return ok && i == n;
}

bool
query_next(const char **p, struct query_pair *q)
{
	const char	*s = *p, *amp, *eq;

	while (*s == '&')
		s++;
	if (*s == '\0')
		return false;
	amp = s + strcspn(s, "&");
	eq = memchr(s, '=', (size_t)(amp - s));
	q->all = s;
	q->all_len = (size_t)(amp - s);
	q->name = s;
	q->name_len = eq != NULL ? (size_t)(eq - s) : q->all_len;
	q->value = eq != NULL ? eq + 1 : amp;
	q->value_len = eq != NULL ? (size_t)(amp - eq - 1) : 0;
	q->has_value = eq != NULL;
	*p = *amp != '\0' ? amp + 1 : amp;
	return true;
}

/* A parameter name that says its value is a contact. */
static bool
contact_name(const char *name)
{
	static const char *const names[] = { "tel", "phone", "mail", "denwa",
	    "keitai", "mobile", "contact" };
	char	 n[64];
	size_t	 i;

	for (i = 0; name[i] != '\0' && i + 1 < sizeof(n); i++)
		n[i] = (char)tolower((unsigned char)name[i]);
	n[i] = '\0';
	for (i = 0; i < NELEM(names); i++)
		if (strstr(n, names[i]) != NULL)
			return true;
	return false;
}

/* A decoded value of 2 to 5 digits only: part of a split phone number? */
static bool
digit_group(const char *v)
{
	size_t	 n = strlen(v);

	return n >= 2 && n <= 5 && strspn(v, "0123456789") == n;
}

#define SCRUB_PARAMS	128

/*
 * url_scrub() for "name=value&..." at s (search without its '?', or a
 * fragment without its '#'): the parameters kept, joined by '&', into
 * out.  Returns whether one was dropped.
 */
static bool
scrub_params(const char *s, char *out, size_t outsz)
{
	struct query_pair q[SCRUB_PARAMS];
	size_t		 np = 0, i, j, o;
	bool		 drop[SCRUB_PARAMS], dropped = false;
	bool		 group[SCRUB_PARAMS];
	char		 name[URL_MAX], value[URL_MAX], joined[32], norm[16];
	const char	*p = s;
	enum tel_kind	 kind;

	while (np < SCRUB_PARAMS && query_next(&p, &q[np])) {
		pct_decode(q[np].name, q[np].name_len, PCT_PLUS, name,
		    sizeof(name));
		pct_decode(q[np].value, q[np].value_len, PCT_PLUS, value,
		    sizeof(value));
		drop[np] = contact_name(name) || contact_in_text(name,
		    strlen(name)) ||
		    contact_in_text(value, strlen(value));
		group[np] = digit_group(value);
		np++;
	}
	if (*p != '\0') {
		/* more parameters than anyone's form has: keep none */
		out[0] = '\0';
		return true;
	}
	/* a number typed into two or three fields */
	for (i = 0; i + 1 < np; i++) {
		for (j = i, joined[0] = '\0'; j < np && j < i + 3 &&
		    group[j]; j++) {
			pct_decode(q[j].value, q[j].value_len, PCT_PLUS, value,
			    sizeof(value));
			o = strlen(joined);
			snprintf(joined + o, sizeof(joined) - o, "%s", value);
			if (j > i &&
			    contact_tel_normalize(joined, norm, &kind)) {
				for (o = i; o <= j; o++)
					drop[o] = true;
				break;
			}
		}
	}
	sodium_memzero(name, sizeof(name));
	sodium_memzero(value, sizeof(value));
	sodium_memzero(joined, sizeof(joined));
	sodium_memzero(norm, sizeof(norm));
	for (i = o = 0; i < np; i++) {
		if (drop[i]) {
			dropped = true;
			continue;
		}
		if (o + q[i].all_len + 2 > outsz)
			break;
		if (o > 0)
			out[o++] = '&';
		memcpy(out + o, q[i].all, q[i].all_len);
		o += q[i].all_len;
	}
	out[o] = '\0';
	return dropped;
}

bool
url_scrub(struct url_loc *loc)
{
	char		 buf[URL_MAX], seg[URL_MAX];
	const char	*p, *e;
	size_t		 o = 0, n;
	bool		 taken = false;

	/* path segments */
	for (p = loc->pathname; *p == '/'; p = e) {
		e = p + 1 + strcspn(p + 1, "/");
		n = (size_t)(e - p - 1);
		pct_decode(p + 1, n, 0, seg, sizeof(seg));
		if (contact_in_text(seg, strlen(seg))) {
			p = "/redacted";
			n = 8;
			taken = true;
		}
		if (o + n + 2 > sizeof(buf))
			break;
		buf[o++] = '/';
		memcpy(buf + o, p + 1, n);
		o += n;
	}
	sodium_memzero(seg, sizeof(seg));
	buf[o] = '\0';
	snprintf(loc->pathname, sizeof(loc->pathname), "%s", buf);
	/* the query's parameters, and a fragment of parameters */
	if (loc->search[0] == '?' && scrub_params(loc->search + 1, buf,
	    sizeof(loc->search) - 1)) {
		taken = true;
		loc->search[0] = buf[0] != '\0' ? '?' : '\0';
		memcpy(loc->search + 1, buf, strlen(buf) + 1);
	}
	if (loc->hash[0] == '#' && strchr(loc->hash, '=') != NULL) {
		if (scrub_params(loc->hash + 1, buf, sizeof(loc->hash) - 1)) {
			taken = true;
			loc->hash[0] = buf[0] != '\0' ? '#' : '\0';
			memcpy(loc->hash + 1, buf, strlen(buf) + 1);
		}
	} else if (loc->hash[0] == '#') {
		/* a fragment of text goes whole */
		pct_decode(loc->hash + 1, strlen(loc->hash + 1), 0, seg,
		    sizeof(seg));
		if (contact_in_text(seg, strlen(seg))) {
			loc->hash[0] = '\0';
			taken = true;
		}
		sodium_memzero(seg, sizeof(seg));
	}
	return taken;
}

