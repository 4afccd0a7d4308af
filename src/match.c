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

/* A class "[...]" at s: its closing ']', or NULL with *why. */
static const char *
re_class(const char *s, char *why, size_t whysz)
{
	static const char cls_esc_ok[] = "dDwWsSnrtf\\]^-[./";
	const char	*msg = NULL;

	s++;
	if (*s == '^')
		s++;
	if (*s == ']')
		msg = "empty class";
	for (; msg == NULL && *s != ']'; s++) {
		if (*s == '\0')
			msg = "unterminated class";
		else if (*s == '[' && s[1] == ':')
			msg = "POSIX classes are not allowed";
		else if (*s == '\\' && (*++s == '\0' ||
		    strchr(cls_esc_ok, *s) == NULL))
			msg = "escape not allowed in class";
	}
	if (msg == NULL)
		return s;
	(void)fail(why, whysz, msg);
	return NULL;
}

/*
 * A {n,m} count at s: its closing '}' and *m (-1: no upper bound), or
 * NULL with *r (RULE_INVALID, RULE_UNBOUNDED above RE_COUNT_MAX) and *why.
 */
static const char *
re_count(const char *s, long *m, enum rule_check *r, char *why, size_t whysz)
{
	const char	*e = s + 1;
	long		 n;

	*r = RULE_INVALID;
	if (!isdigit((unsigned char)*e)) {
		(void)fail(why, whysz, "bad {n,m} quantifier");
		return NULL;
	}
	n = *m = strtol(e, NULL, 10);
	while (isdigit((unsigned char)*e))
		e++;
	if (*e == ',') {
		e++;
		*m = isdigit((unsigned char)*e) ? strtol(e, NULL, 10) : -1;
		while (isdigit((unsigned char)*e))
			e++;
	}
	if (*e != '}' || (*m >= 0 && *m < n)) {
		(void)fail(why, whysz, "bad {n,m} quantifier");
		return NULL;
	}
	if (n > RE_COUNT_MAX || *m > RE_COUNT_MAX) {
		*r = RULE_UNBOUNDED;
		(void)fail(why, whysz, "a {n,m} count above 256");
		return NULL;
	}
	return e;
}

/*
 * The quantifier at *sp, after an atom (the group `last` when `group`):
 * RULE_OK with *sp at its last character, or why it is refused.  A
 * quantifier that repeats, over a group that holds a quantifier or an
 * alternation, can try exponentially many ways ("(a+)+", "(a|aa)+",
 * "(a?)+"): refused.  "?" and {0,1} do not repeat, so "(x.*)?" is fine.
 */
static enum rule_check
re_quantifier(const char **sp, bool group, struct re_group last,
    size_t *unbounded, char *why, size_t whysz)
{
	const char	*s = *sp;
	enum rule_check	 r;
	long		 m;
	bool		 repeats;

	if (*s == '{') {
		if ((s = re_count(s, &m, &r, why, whysz)) == NULL)
			return r;
	} else
		m = *s == '?' ? 1 : -1;
	if (s[1] == '?')
		s++;
	else if (s[1] == '+') {
		(void)fail(why, whysz,
		    "possessive quantifiers are not allowed");
		return RULE_INVALID;
	}
	repeats = m < 0 || m > 1;
	r = RULE_UNBOUNDED;
	if (repeats && group && last.rep)
		(void)fail(why, whysz, "a repeated group that repeats inside");
	else if (repeats && group && last.alt)
		(void)fail(why, whysz, "a repeated group with an alternation");
	else if (m < 0 && ++*unbounded > RE_UNBOUNDED_MAX)
		(void)fail(why, whysz, "more than 6 unbounded quantifiers");
	else
		r = RULE_OK;
	*sp = s;
	return r;
}

/*
 * The ECMAScript/PCRE2 common subset, and what keeps a match bounded
 * (see match.h): RULE_OK, RULE_INVALID or RULE_UNBOUNDED with a reason.
 */
static enum rule_check
regex_check(const char *p, char *why, size_t whysz)
{
	static const char esc_ok[] = "dDwWsSbBnrtf.\\/^$*+?()[]{}|-";
	struct re_group	 g[RE_GROUPS_MAX + 1], last = { false, false };
	enum rule_check	 r;
	size_t		 depth = 0, unbounded = 0;
	bool		 atom = false;	/* a quantifier may follow */
	bool		 quantified = false;
	bool		 group = false;	/* the atom before is a group: `last` */
	const char	*s;

	memset(g, 0, sizeof(g));
#define INVALID(msg) do { fail(why, whysz, \
    msg); return RULE_INVALID; } while (0)
#define UNBOUNDED(msg) do { fail(why, whysz, \
    msg); return RULE_UNBOUNDED; } while (0)
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
				INVALID("only (...) and (?:...) groups are "
				    "allowed");
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
			if ((s = re_class(s, why, whysz)) == NULL)
				return RULE_INVALID;
			atom = true;
			quantified = group = false;
			break;
		case '*':
		case '+':
		case '?':
		case '{':
			if (!atom || quantified)
				INVALID("nothing to repeat");
			if ((r = re_quantifier(&s, group, last, &unbounded, why,
			    whysz)) != RULE_OK)
				return r;
			/* even "?": "(a?)+" is "(a|)+" */
			g[depth].rep = true;
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
			if ((unsigned char)*s < 0x20 ||
			    (unsigned char)*s >= 0x7f)
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
		snprintf(why, whysz, "regex: %s at offset %zu", (char *)msg,
		    (size_t)off);
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
				    (p[i] == '?' &&
				    t == MT_PREFIX) || p[i] == '#')
					bad = "a path pattern is printable "
					    "ASCII without spaces, ? or # "
					    "(percent-encode the rest)";
			break;
		case MT_REGEX:
			if ((c = regex_check(p, why, whysz)) != RULE_OK)
				return c;
			if ((re = regex_compile(p, why, whysz)) == NULL)
				return RULE_INVALID;
			pcre2_code_free(re);
			break;
		case MT_QUERY:
			if (p[0] == '=' || p[0] == '&' ||
			    strchr(p, '&') != NULL)
				bad = "a query pattern is name or name=value";
			break;
		case MT_HOST:
			for (i = 0; i < n && bad == NULL; i++)
				if (!(isalnum((unsigned char)p[i]) ||
				    p[i] == '-' ||
				    p[i] == '.' || (p[i] == '*' && i == 0 &&
				    p[1] == '.')))
					bad = "a host pattern is a host name "
					    "or *.name";
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
	struct query_pair q;
	char		 name[RULE_PATTERN_MAX + 1];
	char		 value[RULE_PATTERN_MAX + 1];
	char		 qn[URL_MAX], qv[URL_MAX];
	const char	*eq = strchr(pattern, '='), *p;

	snprintf(name, sizeof(name), "%.*s", (int)(eq != NULL ?
	    (size_t)(eq - pattern) : strlen(pattern)), pattern);
	snprintf(value, sizeof(value), "%s", eq != NULL ? eq + 1 : "");
	for (p = *search == '?' ? search + 1 : search; query_next(&p, &q); ) {
		pct_decode(q.name, q.name_len, PCT_PLUS, qn, sizeof(qn));
		pct_decode(q.value, q.value_len, PCT_PLUS, qv, sizeof(qv));
		if (strcmp(qn, name) == 0 &&
		    (eq == NULL || strcmp(qv, value) == 0))
			return true;
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
		logx(LOG_WARN,
		    "regex '%.80s' ran into its match limits: taken as "
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
		return strncmp(loc->pathname, r->pattern,
		    strlen(r->pattern)) == 0;
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
		if (rc == PCRE2_ERROR_MATCHLIMIT ||
		    rc == PCRE2_ERROR_DEPTHLIMIT ||
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
