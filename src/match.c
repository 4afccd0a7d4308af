/*
 * URL rules: parse, validate, order and decide (contract: UrlRulesIn,
 * Match test; design 3).  The semantics are tests/data/url-match.json's,
 * which tag.js follows too:
 *   prefix  pathname starts with the pattern
 *   glob    the whole pathname; * any run of characters, ? one
 *   regex   ECMAScript RegExp, no flags, tested anywhere in pathname+search
 *   query   search has the parameter: "name", or "name=value" exactly
 *           (the URL's side decoded as URLSearchParams does; the
 *           pattern compared as written)
 *   host    hostname equals the pattern, or for "*.rest" ends with ".rest"
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>

#include <idn2.h>
#include <pcre2.h>
#include <sodium.h>

#include "match.h"
#include "pii.h"

const char *const match_type_names[MT__MAX] = {
	/* MT_PREFIX */	"prefix",
	/* MT_GLOB */	"glob",
	/* MT_REGEX */	"regex",
	/* MT_QUERY */	"query",
	/* MT_HOST */	"host",
};

const char *const rule_role_names[ROLE__MAX] = {
	/* ROLE_LANDING */	"landing",
	/* ROLE_FORM */		"form",
	/* ROLE_THANKS */	"thanks",
};

static int
lookup(const char *const *t, size_t n, const char *s)
{
	size_t	 i;

	for (i = 0; s != NULL && i < n; i++)
		if (strcmp(t[i], s) == 0)
			return (int)i;
	return -1;
}

int
match_type_parse(const char *s)
{
	return lookup(match_type_names, MT__MAX, s);
}

int
rule_role_parse(const char *s)
{
	return lookup(rule_role_names, ROLE__MAX, s);
}

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
	    c == '<' || c == '>' || c == '?' || c == '`' || c == '{' || c == '}';
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
	return (n == 1 && s[0] == '.') || (n == 3 && strncasecmp(s, "%2e", 3) == 0);
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
			if (!enc_append(dst, dstsz, &o, s + seg, len, in_path_set))
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
			*v = 0x100000000ull;	/* too big; refused by the caller */
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
	snprintf(out, outsz, "%llu.%llu.%llu.%llu", addr >> 24, (addr >> 16) & 255,
	    (addr >> 8) & 255, addr & 255);
	return 1;
}

/* The host, as the URL Standard's host parser writes it, into loc. */
static bool
host_parse(const char *s, size_t n, struct url_loc *loc)
{
	char		 raw[512], v4[32], *ascii = NULL, hx[3] = "";
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
		if (s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) &&
		    isxdigit((unsigned char)s[i + 2])) {
			hx[0] = s[i + 1];
			hx[1] = s[i + 2];
			raw[o++] = (char)strtol(hx, NULL, 16);
			i += 2;
		} else
			raw[o++] = s[i];
	}
	raw[o] = '\0';
	for (i = 0; raw[i] != '\0' && (unsigned char)raw[i] < 0x80; i++)
		continue;
	if (raw[i] != '\0') {
		/* domain to ASCII: UTS #46, non-transitional, as browsers */
		if (idn2_to_ascii_8z(raw, &ascii, IDN2_NFC_INPUT |
		    IDN2_NONTRANSITIONAL) != IDN2_OK || strlen(ascii) >= sizeof(raw)) {
			free(ascii);
			return false;
		}
		snprintf(raw, sizeof(raw), "%s", ascii);
		free(ascii);
	}
	for (i = 0; raw[i] != '\0'; i++) {
		unsigned char	 c = (unsigned char)raw[i];

		/* forbidden domain code points */
		if (c <= 0x20 || c >= 0x7f || strchr("#%/:<>?@[\\]^|", c) != NULL)
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
			if (!enc_append(loc->hash, sizeof(loc->hash), &o, frag + 1,
			    strlen(frag + 1), in_fragment_set))
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

	n = snprintf(out, outsz, "%s//%s%s%s%s%s%s", loc->protocol, loc->hostname,
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

/*
 * Percent-decode s[0..n) into out (outsz bytes, NUL-terminated; what
 * does not fit is cut); a bad escape stays as it is; '+' is a space when
 * plus_space (a query, as URLSearchParams reads it).
 */
static void
pct_decode(const char *s, size_t n, bool plus_space, char *out, size_t outsz)
{
	static const char hex[] = "0123456789abcdef";
	size_t	 i, o = 0;

	for (i = 0; i < n && o + 1 < outsz; i++) {
		if (s[i] == '+' && plus_space)
			out[o++] = ' ';
		else if (s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) &&
		    isxdigit((unsigned char)s[i + 2])) {
			out[o++] = (char)((strchr(hex, tolower((unsigned char)s[i + 1])) -
			    hex) << 4 | (strchr(hex, tolower((unsigned char)s[i + 2])) - hex));
			i += 2;
		} else
			out[o++] = s[i];
	}
	out[o] = '\0';
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
	const char	*beg[SCRUB_PARAMS];
	size_t		 len[SCRUB_PARAMS], np = 0, i, j, o = 0;
	bool		 drop[SCRUB_PARAMS], dropped = false, group[SCRUB_PARAMS];
	char		 name[URL_MAX], value[URL_MAX], joined[32], norm[16];
	const char	*p, *amp, *eq;
	enum tel_kind	 kind;

	for (p = s; np < SCRUB_PARAMS; p = amp + 1) {
		amp = p + strcspn(p, "&");
		beg[np] = p;
		len[np] = (size_t)(amp - p);
		eq = memchr(p, '=', len[np]);
		pct_decode(p, eq != NULL ? (size_t)(eq - p) : len[np], true, name,
		    sizeof(name));
		pct_decode(eq != NULL ? eq + 1 : amp, eq != NULL ?
		    (size_t)(amp - eq - 1) : 0, true, value, sizeof(value));
		drop[np] = contact_name(name) || contact_in_text(name, strlen(name)) ||
		    contact_in_text(value, strlen(value));
		group[np] = digit_group(value);
		np++;
		if (*amp == '\0')
			break;
	}
	if (np == SCRUB_PARAMS && *p != '\0') {
		/* more parameters than anyone's form has: keep none */
		out[0] = '\0';
		return true;
	}
	/* a number typed into two or three fields */
	for (i = 0; i + 1 < np; i++) {
		for (j = i, joined[0] = '\0'; j < np && j < i + 3 && group[j]; j++) {
			eq = memchr(beg[j], '=', len[j]);
			pct_decode(eq + 1, len[j] - (size_t)(eq + 1 - beg[j]), true,
			    value, sizeof(value));
			o = strlen(joined);
			snprintf(joined + o, sizeof(joined) - o, "%s", value);
			if (j > i && contact_tel_normalize(joined, norm, &kind)) {
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
		if (drop[i] || len[i] == 0) {
			dropped |= drop[i];
			continue;
		}
		if (o + len[i] + 2 > outsz)
			break;
		if (o > 0)
			out[o++] = '&';
		memcpy(out + o, beg[i], len[i]);
		o += len[i];
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
		pct_decode(p + 1, n, false, seg, sizeof(seg));
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
		pct_decode(loc->hash + 1, strlen(loc->hash + 1), false, seg,
		    sizeof(seg));
		if (contact_in_text(seg, strlen(seg))) {
			loc->hash[0] = '\0';
			taken = true;
		}
		sodium_memzero(seg, sizeof(seg));
	}
	return taken;
}

static bool
fail(char *why, size_t whysz, const char *msg)
{
	snprintf(why, whysz, "%s", msg);
	return false;
}

#define RE_GROUPS_MAX	16	/* nesting of groups */
#define RE_UNBOUNDED_MAX 6	/* quantifiers that repeat without bound */
#define RE_COUNT_MAX	256	/* n and m of {n,m} */

/* What a group holds, for the quantifier that may follow it. */
struct re_group {
	bool	 rep;	/* a quantifier, of any kind */
	bool	 alt;	/* an alternation */
};

/*
 * The ECMAScript/PCRE2 common subset, and what keeps a match bounded
 * (see match.h): RULE_OK, RULE_INVALID or RULE_UNBOUNDED with a reason.
 */
static enum rule_check
regex_check(const char *p, char *why, size_t whysz)
{
	static const char esc_ok[] = "dDwWsSbBnrtf.\\/^$*+?()[]{}|-";
	static const char cls_esc_ok[] = "dDwWsSnrtf\\]^-[./";
	struct re_group	 g[RE_GROUPS_MAX + 1], last = { false, false };
	size_t		 depth = 0, unbounded = 0;
	bool		 atom = false;	/* a quantifier may follow */
	bool		 quantified = false;
	bool		 group = false;	/* the atom before is a group: `last` */
	bool		 repeats;
	long		 n, m;
	const char	*s;

	memset(g, 0, sizeof(g));
#define INVALID(msg) do { fail(why, whysz, msg); return RULE_INVALID; } while (0)
#define UNBOUNDED(msg) do { fail(why, whysz, msg); return RULE_UNBOUNDED; } while (0)
	for (s = p; *s != '\0'; s++) {
		switch (*s) {
		case '\\':
			s++;
			if (*s == '\0' || strchr(esc_ok, *s) == NULL)
				INVALID("escape not allowed");
			atom = *s != 'b' && *s != 'B';
			quantified = group = false;
			break;
		case '(':
			if (s[1] == '?' && s[2] != ':')
				INVALID("only (...) and (?:...) groups are allowed");
			if (s[1] == '?')
				s += 2;
			if (depth == RE_GROUPS_MAX)
				UNBOUNDED("groups nested more than 16 deep");
			depth++;
			g[depth].rep = g[depth].alt = false;
			atom = quantified = group = false;
			break;
		case ')':
			if (depth == 0)
				INVALID("unbalanced parenthesis");
			last = g[depth--];
			/* what a group holds, its parent holds too */
			g[depth].rep |= last.rep;
			g[depth].alt |= last.alt;
			atom = group = true;
			quantified = false;
			break;
		case '[':
			s++;
			if (*s == '^')
				s++;
			if (*s == ']')
				INVALID("empty class");
			for (; *s != ']'; s++) {
				if (*s == '\0')
					INVALID("unterminated class");
				if (*s == '[' && s[1] == ':')
					INVALID("POSIX classes are not allowed");
				if (*s == '\\') {
					s++;
					if (*s == '\0' || strchr(cls_esc_ok, *s) == NULL)
						INVALID("escape not allowed in class");
				}
			}
			atom = true;
			quantified = group = false;
			break;
		case '*':
		case '+':
		case '?':
		case '{':
			if (!atom || quantified)
				INVALID("nothing to repeat");
			if (*s == '{') {
				const char *e = s + 1;

				if (!isdigit((unsigned char)*e))
					INVALID("bad {n,m} quantifier");
				n = m = strtol(e, NULL, 10);
				while (isdigit((unsigned char)*e))
					e++;
				if (*e == ',') {
					e++;
					m = isdigit((unsigned char)*e) ? strtol(e, NULL, 10) : -1;
					while (isdigit((unsigned char)*e))
						e++;
				}
				if (*e != '}' || (m >= 0 && m < n))
					INVALID("bad {n,m} quantifier");
				if (n > RE_COUNT_MAX || m > RE_COUNT_MAX)
					UNBOUNDED("a {n,m} count above 256");
				s = e;
			} else
				m = *s == '?' ? 1 : -1;
			if (s[1] == '?')
				s++;
			else if (s[1] == '+')
				INVALID("possessive quantifiers are not allowed");
			/*
			 * A quantifier that repeats, over a group that holds
			 * a quantifier or an alternation, can try
			 * exponentially many ways ("(a+)+", "(a|aa)+",
			 * "(a?)+"): refused.  "?" and {0,1} do not repeat, so
			 * "(x.*)?" is fine.
			 */
			repeats = m < 0 || m > 1;
			if (repeats && group && last.rep)
				UNBOUNDED("a repeated group that repeats inside");
			if (repeats && group && last.alt)
				UNBOUNDED("a repeated group with an alternation");
			if (m < 0 && ++unbounded > RE_UNBOUNDED_MAX)
				UNBOUNDED("more than 6 unbounded quantifiers");
			g[depth].rep = true;	/* even "?": "(a?)+" is "(a|)+" */
			quantified = true;
			break;
		case '}':
		case ']':
			INVALID("unbalanced bracket");
		case '|':
			g[depth].alt = true;
			atom = quantified = group = false;
			break;
		case '^':
		case '$':
			atom = quantified = group = false;
			break;
		default:
			if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
				INVALID("only printable ASCII is allowed");
			atom = true;
			quantified = group = false;
		}
	}
#undef INVALID
#undef UNBOUNDED
	return RULE_OK;
}

static void *
regex_compile(const char *p, char *why, size_t whysz)
{
	pcre2_code	*re;
	int		 err;
	PCRE2_SIZE	 off;
	PCRE2_UCHAR	 msg[128];

	re = pcre2_compile((PCRE2_SPTR)p, PCRE2_ZERO_TERMINATED,
	    PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_UTF | PCRE2_NEVER_UCP,
	    &err, &off, NULL);
	if (re == NULL) {
		pcre2_get_error_message(err, msg, sizeof(msg));
		snprintf(why, whysz, "regex: %s at offset %zu", (char *)msg, (size_t)off);
	}
	return re;
}

enum rule_check
rule_pattern_ok(enum match_type t, const char *p, char *why, size_t whysz)
{
	size_t		 n = strlen(p), i;
	pcre2_code	*re;
	enum rule_check	 c;
	const char	*bad = NULL;

	if (n == 0)
		bad = "empty pattern";
	else if (n > RULE_PATTERN_MAX)
		bad = "pattern longer than 512 bytes";
	else
		switch (t) {
		case MT_PREFIX:
		case MT_GLOB:
			if (p[0] != '/') {
				bad = "a path pattern starts with /";
				break;
			}
			for (i = 0; i < n && bad == NULL; i++)
				if ((unsigned char)p[i] <= 0x20 ||
				    (unsigned char)p[i] >= 0x7f ||
				    (p[i] == '?' && t == MT_PREFIX) || p[i] == '#')
					bad = "a path pattern is printable ASCII without "
					    "spaces, ? or # (percent-encode the rest)";
			break;
		case MT_REGEX:
			if ((c = regex_check(p, why, whysz)) != RULE_OK)
				return c;
			if ((re = regex_compile(p, why, whysz)) == NULL)
				return RULE_INVALID;
			pcre2_code_free(re);
			break;
		case MT_QUERY:
			if (p[0] == '=' || p[0] == '&' || strchr(p, '&') != NULL)
				bad = "a query pattern is name or name=value";
			break;
		case MT_HOST:
			for (i = 0; i < n && bad == NULL; i++)
				if (!(isalnum((unsigned char)p[i]) || p[i] == '-' ||
				    p[i] == '.' || (p[i] == '*' && i == 0 && p[1] == '.')))
					bad = "a host pattern is a host name or *.name";
			if (strcmp(p, "*.") == 0)
				bad = "a host pattern is a host name or *.name";
			break;
		default:
			bad = "unknown match type";
		}
	if (bad != NULL) {
		fail(why, whysz, bad);
		return RULE_INVALID;
	}
	return RULE_OK;
}

bool
rules_prepare(struct url_rule *r, size_t n, char *why, size_t whysz)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		r[i].re = NULL;
		if (r[i].type == MT_REGEX &&
		    (r[i].re = regex_compile(r[i].pattern, why, whysz)) == NULL)
			return false;
	}
	return true;
}

void
rules_free(struct url_rule *r, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		pcre2_code_free(r[i].re);
		r[i].re = NULL;
	}
}

static int
rule_cmp(const void *a, const void *b)
{
	const struct url_rule *x = a, *y = b;

	if ((x->priority < 0) != (y->priority < 0))
		return x->priority < 0 ? 1 : -1;
	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	if (x->campaign_order != y->campaign_order)
		return x->campaign_order < y->campaign_order ? -1 : 1;
	return x->position < y->position ? -1 : x->position > y->position;
}

void
rules_sort(struct url_rule *r, size_t n)
{
	qsort(r, n, sizeof(*r), rule_cmp);
}

static bool
glob_match(const char *p, const char *s)
{
	const char	*star = NULL, *back = NULL;

	while (*s != '\0') {
		if (*p == '*') {
			star = ++p;
			back = s;
		} else if (*p == '?' || *p == *s) {
			p++;
			s++;
		} else if (star != NULL) {
			p = star;
			s = ++back;
		} else
			return false;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

static bool
query_match(const char *pattern, const char *search)
{
	char		 name[RULE_PATTERN_MAX + 1], value[RULE_PATTERN_MAX + 1];
	char		 qn[URL_MAX], qv[URL_MAX];
	const char	*eq = strchr(pattern, '='), *p, *amp, *e;
	size_t		 len;

	snprintf(name, sizeof(name), "%.*s", (int)(eq != NULL ?
	    (size_t)(eq - pattern) : strlen(pattern)), pattern);
	snprintf(value, sizeof(value), "%s", eq != NULL ? eq + 1 : "");
	if (*search == '?')
		search++;
	for (p = search; *p != '\0'; p = amp + 1) {
		amp = p + strcspn(p, "&");
		len = (size_t)(amp - p);
		if (len > 0) {
			e = memchr(p, '=', len);
			pct_decode(p, e != NULL ? (size_t)(e - p) : len, true, qn,
			    sizeof(qn));
			pct_decode(e != NULL ? e + 1 : p + len, e != NULL ?
			    (size_t)(amp - e - 1) : 0, true, qv, sizeof(qv));
			if (strcmp(qn, name) == 0 &&
			    (eq == NULL || strcmp(qv, value) == 0))
				return true;
		}
		if (*amp == '\0')
			break;
	}
	return false;
}

/*
 * Every match runs under limits (issue 11: one tenant's pattern must not
 * stall the others): MATCH_LIMIT steps of the matcher, MATCH_DEPTH of
 * backtracking depth, MATCH_HEAP KiB of heap.  regex_check() refuses
 * what can blow up on saving; these hold for patterns of older releases.
 */
#define MATCH_LIMIT	100000
#define MATCH_DEPTH	1000
#define MATCH_HEAP	1024

static pcre2_match_context *
match_context(void)
{
	static pcre2_match_context *mc;

	if (mc == NULL && (mc = pcre2_match_context_create(NULL)) != NULL) {
		pcre2_set_match_limit(mc, MATCH_LIMIT);
		pcre2_set_depth_limit(mc, MATCH_DEPTH);
		pcre2_set_heap_limit(mc, MATCH_HEAP);
	}
	return mc;
}

/* A match that ran into its limits counts as no match; said once a process. */
static void
limit_hit(const char *pattern)
{
	static bool	 said;

	if (!said) {
		logx(LOG_WARN, "regex '%.80s' ran into its match limits: taken as "
		    "no match", pattern);
		said = true;
	}
}

bool
rule_match(const struct url_rule *r, const struct url_loc *loc)
{
	char			 subject[URL_MAX * 2];
	pcre2_match_data	*md;
	int			 rc;
	size_t			 n, hn;

	switch (r->type) {
	case MT_PREFIX:
		return strncmp(loc->pathname, r->pattern, strlen(r->pattern)) == 0;
	case MT_GLOB:
		return glob_match(r->pattern, loc->pathname);
	case MT_REGEX:
		if (r->re == NULL)
			return false;
		n = (size_t)snprintf(subject, sizeof(subject), "%s%s",
		    loc->pathname, loc->search);
		md = pcre2_match_data_create_from_pattern(r->re, NULL);
		rc = pcre2_match(r->re, (PCRE2_SPTR)subject, n, 0, 0, md,
		    match_context());
		pcre2_match_data_free(md);
		if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
		    rc == PCRE2_ERROR_HEAPLIMIT)
			limit_hit(r->pattern);
		return rc >= 0;
	case MT_QUERY:
		return query_match(r->pattern, loc->search);
	case MT_HOST:
		if (r->pattern[0] == '*') {
			n = strlen(r->pattern + 1);	/* ".rest" */
			hn = strlen(loc->hostname);
			return hn > n && strcasecmp(loc->hostname + hn - n,
			    r->pattern + 1) == 0;
		}
		return strcasecmp(loc->hostname, r->pattern) == 0;
	default:
		return false;
	}
}

long
rules_decide(const struct url_rule *r, size_t n, const struct url_loc *loc,
    size_t *evaluated)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (rule_match(&r[i], loc)) {
			*evaluated = i + 1;
			return (long)i;
		}
	*evaluated = n;
	return -1;
}
