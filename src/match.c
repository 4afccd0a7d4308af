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

#include <pcre2.h>

#include "match.h"

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

/* Copy [s, s+n) percent-encoding what a browser encodes in a URL. */
static bool
enc_copy(char *dst, size_t dstsz, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t		 o = 0, i;
	unsigned char	 c;

	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (c >= 0x80 || c <= 0x20 || c == '"' || c == '<' || c == '>' ||
		    c == '`' || c == 0x7f) {
			if (o + 3 >= dstsz)
				return false;
			dst[o++] = '%';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
		} else {
			if (o + 1 >= dstsz)
				return false;
			dst[o++] = (char)c;
		}
	}
	dst[o] = '\0';
	return true;
}

bool
url_parse(const char *url, struct url_loc *loc)
{
	const char	*p, *h, *he, *path, *q, *frag, *pe;
	size_t		 n, i;

	memset(loc, 0, sizeof(*loc));
	if (strncasecmp(url, "https://", 8) == 0)
		p = url + 8;
	else if (strncasecmp(url, "http://", 7) == 0)
		p = url + 7;
	else
		return false;
	if (strlen(url) > URL_MAX)
		return false;
	h = p;
	he = h + strcspn(h, "/?#");
	path = he;
	/* no user info; strip the port */
	if (memchr(h, '@', (size_t)(he - h)) != NULL)
		return false;
	n = (size_t)(he - h);
	for (i = 0; i < n && h[i] != ':'; i++)
		continue;
	n = i;
	if (n == 0 || n >= sizeof(loc->hostname))
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)h[i];

		if (!(isalnum(c) || c == '-' || c == '.' || c == '[' || c == ']'))
			return false;
		loc->hostname[i] = (char)tolower(c);
	}
	frag = path + strcspn(path, "#");
	q = memchr(path, '?', (size_t)(frag - path));
	pe = q != NULL ? q : frag;
	if (pe == path) {
		/* no path: a browser shows "/" */
		loc->pathname[0] = '/';
		loc->pathname[1] = '\0';
	} else if (!enc_copy(loc->pathname, sizeof(loc->pathname), path,
	    (size_t)(pe - path)))
		return false;
	/* a lone "?" gives an empty search, as in a browser */
	if (q != NULL && frag - q > 1 &&
	    !enc_copy(loc->search, sizeof(loc->search), q, (size_t)(frag - q)))
		return false;
	return true;
}

static bool
fail(char *why, size_t whysz, const char *msg)
{
	snprintf(why, whysz, "%s", msg);
	return false;
}

/* The ECMAScript/PCRE2 common subset (see match.h). */
static bool
regex_subset_ok(const char *p, char *why, size_t whysz)
{
	static const char esc_ok[] = "dDwWsSbBnrtf.\\/^$*+?()[]{}|-";
	static const char cls_esc_ok[] = "dDwWsSnrtf\\]^-[./";
	bool		 atom = false;	/* a quantifier may follow */
	bool		 quantified = false;
	const char	*s;

	for (s = p; *s != '\0'; s++) {
		switch (*s) {
		case '\\':
			s++;
			if (*s == '\0' || strchr(esc_ok, *s) == NULL)
				return fail(why, whysz, "escape not allowed");
			atom = *s != 'b' && *s != 'B';
			quantified = false;
			break;
		case '(':
			if (s[1] == '?' && s[2] != ':')
				return fail(why, whysz, "only (...) and (?:...) groups are allowed");
			if (s[1] == '?')
				s += 2;
			atom = false;
			quantified = false;
			break;
		case ')':
			atom = true;
			quantified = false;
			break;
		case '[':
			s++;
			if (*s == '^')
				s++;
			if (*s == ']')
				return fail(why, whysz, "empty class");
			for (; *s != ']'; s++) {
				if (*s == '\0')
					return fail(why, whysz, "unterminated class");
				if (*s == '[' && s[1] == ':')
					return fail(why, whysz, "POSIX classes are not allowed");
				if (*s == '\\') {
					s++;
					if (*s == '\0' || strchr(cls_esc_ok, *s) == NULL)
						return fail(why, whysz, "escape not allowed in class");
				}
			}
			atom = true;
			quantified = false;
			break;
		case '*':
		case '+':
		case '?':
			if (!atom || quantified)
				return fail(why, whysz, "nothing to repeat");
			if (s[1] == '?')
				s++;
			else if (s[1] == '+')
				return fail(why, whysz, "possessive quantifiers are not allowed");
			quantified = true;
			break;
		case '{': {
			const char *e = s + 1;

			if (!atom || quantified)
				return fail(why, whysz, "nothing to repeat");
			if (!isdigit((unsigned char)*e))
				return fail(why, whysz, "bad {n,m} quantifier");
			while (isdigit((unsigned char)*e))
				e++;
			if (*e == ',') {
				e++;
				while (isdigit((unsigned char)*e))
					e++;
			}
			if (*e != '}')
				return fail(why, whysz, "bad {n,m} quantifier");
			s = e;
			if (s[1] == '?')
				s++;
			else if (s[1] == '+')
				return fail(why, whysz, "possessive quantifiers are not allowed");
			quantified = true;
			break;
		}
		case '}':
		case ']':
			return fail(why, whysz, "unbalanced bracket");
		case '|':
		case '^':
		case '$':
			atom = false;
			quantified = false;
			break;
		default:
			if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
				return fail(why, whysz, "only printable ASCII is allowed");
			atom = true;
			quantified = false;
		}
	}
	return true;
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

bool
rule_pattern_ok(enum match_type t, const char *p, char *why, size_t whysz)
{
	size_t		 n = strlen(p), i;
	pcre2_code	*re;

	if (n == 0)
		return fail(why, whysz, "empty pattern");
	if (n > RULE_PATTERN_MAX)
		return fail(why, whysz, "pattern longer than 512 bytes");
	switch (t) {
	case MT_PREFIX:
	case MT_GLOB:
		if (p[0] != '/')
			return fail(why, whysz, "a path pattern starts with /");
		for (i = 0; i < n; i++)
			if ((unsigned char)p[i] <= 0x20 || (unsigned char)p[i] >= 0x7f ||
			    (p[i] == '?' && t == MT_PREFIX) || p[i] == '#')
				return fail(why, whysz, "a path pattern is printable "
				    "ASCII without spaces, ? or # (percent-encode the rest)");
		return true;
	case MT_REGEX:
		if (!regex_subset_ok(p, why, whysz))
			return false;
		if ((re = regex_compile(p, why, whysz)) == NULL)
			return false;
		pcre2_code_free(re);
		return true;
	case MT_QUERY:
		if (p[0] == '=' || p[0] == '&' || strchr(p, '&') != NULL)
			return fail(why, whysz, "a query pattern is name or name=value");
		return true;
	case MT_HOST:
		for (i = 0; i < n; i++)
			if (!(isalnum((unsigned char)p[i]) || p[i] == '-' || p[i] == '.' ||
			    (p[i] == '*' && i == 0 && p[1] == '.')))
				return fail(why, whysz, "a host pattern is a host name or *.name");
		if (strcmp(p, "*.") == 0)
			return fail(why, whysz, "a host pattern is a host name or *.name");
		return true;
	default:
		return fail(why, whysz, "unknown match type");
	}
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

static int
hexv(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decode as URLSearchParams: '+' is a space, bad escapes stay as they are. */
static void
form_decode(const char *s, size_t n, char *out, size_t outsz)
{
	size_t	 i, o = 0;

	for (i = 0; i < n && o + 1 < outsz; i++) {
		if (s[i] == '+')
			out[o++] = ' ';
		else if (s[i] == '%' && i + 2 < n &&
		    hexv((unsigned char)s[i + 1]) >= 0 &&
		    hexv((unsigned char)s[i + 2]) >= 0) {
			out[o++] = (char)(hexv((unsigned char)s[i + 1]) << 4 |
			    hexv((unsigned char)s[i + 2]));
			i += 2;
		} else
			out[o++] = s[i];
	}
	out[o] = '\0';
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
			form_decode(p, e != NULL ? (size_t)(e - p) : len, qn, sizeof(qn));
			form_decode(e != NULL ? e + 1 : p + len, e != NULL ?
			    (size_t)(amp - e - 1) : 0, qv, sizeof(qv));
			if (strcmp(qn, name) == 0 &&
			    (eq == NULL || strcmp(qv, value) == 0))
				return true;
		}
		if (*amp == '\0')
			break;
	}
	return false;
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
		rc = pcre2_match(r->re, (PCRE2_SPTR)subject, n, 0, 0, md, NULL);
		pcre2_match_data_free(md);
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
