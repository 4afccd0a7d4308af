/* The allow-list of direct HTML (sanitize.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sanitize.h"
#include "message.h"
#include "url.h"

static const char *const elements[] = {
	"a", "b", "big", "blockquote", "br", "center", "code", "div", "em",
	"font", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "li",
	"ol", "p", "pre", "s", "small", "span", "strong", "sub", "sup",
	"table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul", NULL
};
static const char *const voids[] = { "br", "hr", "img", NULL };
/* dropped with everything they hold */
static const char *const opaque[] = {
	"script", "style", "iframe", "object", "embed", "template", "noscript",
	"textarea", "title", "svg", "math", "xmp", "noembed", "noframes",
	"plaintext", "select", NULL
};
static const char *const attributes[] = {
	"align", "alt", "bgcolor", "border", "cellpadding", "cellspacing",
	"color", "colspan", "dir", "face", "height", "rowspan", "size", "style",
	"title", "valign", "width", NULL
};
static const char *const style_bad[] = {
	"expression", "url(", "javascript", "@import", "behavior", "\\", NULL
};

#define NAME_MAX_	32
#define VALUE_MAX	(URL_MAX + 1)

/* A tag or attribute name at p, lower-cased into out; its length (0: none). */
static size_t
name_at(const char *p, const char *stop, char out[NAME_MAX_ + 1])
{
	size_t	 n;

	for (n = 0; p[n] != '\0' && strchr(stop, p[n]) == NULL &&
	    !isspace((unsigned char)p[n]); n++)
		if (n < NAME_MAX_)
			out[n] = (char)tolower((unsigned char)p[n]);
	out[n < NAME_MAX_ ? n : NAME_MAX_] = '\0';
	return n;
}

/* The length of a well-formed character reference at p ('&'), else 0. */
static size_t
charref(const char *p)
{
	size_t	 n = 1, d;

	if (p[1] == '#') {
		n = 2;
		if (p[2] == 'x' || p[2] == 'X') {
			for (n = 3, d = 0; isxdigit((unsigned char)p[n]) &&
			    d < 6; n++, d++)
				continue;
		} else
			for (d = 0; isdigit((unsigned char)p[n]) && d < 7; n++,
			    d++)
				continue;
		return d > 0 && p[n] == ';' ? n + 1 : 0;
	}
	for (d = 0; isalnum((unsigned char)p[n]) && d < 32; n++, d++)
		continue;
	return d > 0 && p[n] == ';' ? n + 1 : 0;
}

/* Decode the references an attribute value may hide a scheme behind. */
static void
decode(const char *in, size_t n, char *out, size_t outsz)
{
	static const struct { const char *ref; char c; } named[] = {
		{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' },
		{ "&quot;", '"' }, { "&apos;", '\'' }, { "&colon;", ':' },
		{ "&tab;", '\t' }, { "&newline;", '\n' },
	};
	size_t		 i = 0, o = 0, k, len;
	unsigned long	 cp;
	char		*end, c;
	bool		 hex;

	while (i < n && o + 5 < outsz) {
		c = 0;
		if (in[i] == '&' && (len = charref(in + i)) > 0 &&
		    len <= n - i) {
			hex = in[i + 2] == 'x' || in[i + 2] == 'X';
			if (in[i + 1] == '#') {
				cp = strtoul(in + i + 2 + hex, &end,
				    hex ? 16 : 10);
				/*
				 * non-ASCII stays a reference: no scheme hides
				 * there
				 */
				if (cp > 0 && cp < 0x80)
					c = (char)cp;
			} else
				for (k = 0; k < NELEM(named); k++)
					if (strlen(named[k].ref) == len &&
					    strncasecmp(in + i, named[k].ref,
					    len) == 0)
						c = named[k].c;
			if (c != 0) {
				out[o++] = c;
				i += len;
				continue;
			}
		}
		out[o++] = in[i++];
	}
	out[o] = '\0';
}

/* Is the decoded value v acceptable for attribute a of element el? */
static bool
value_ok(const char *el, const char *a, char *v)
{
	char		 href[URL_MAX + 1], low[VALUE_MAX];
	size_t		 i;

	for (i = 0; v[i] != '\0'; i++)
		if ((unsigned char)v[i] < 0x20 && v[i] != '\t')
			return false;
	if (strcmp(a, "href") == 0 && strcmp(el, "a") == 0) {
		if (strcmp(v, "{{link_url}}") == 0 ||
		    strcmp(v, "{{optout_url}}") == 0)
			return true;
		if (strncasecmp(v, "mailto:", 7) == 0 ||
		    strncasecmp(v, "tel:", 4) == 0)
			return strpbrk(v, " \t\"'<>") == NULL;
		if (!url_normalize(v, href))
			return false;
		snprintf(v, VALUE_MAX, "%s", href);
		return strncmp(v, "https://", 8) == 0 || strncmp(v, "http://",
		    7) == 0;
	}
	if (strcmp(a, "src") == 0 && strcmp(el, "img") == 0) {
		if (!url_normalize(v, href))
			return false;
		snprintf(v, VALUE_MAX, "%s", href);
		return strncmp(v, "https://", 8) == 0 || strncmp(v, "http://",
		    7) == 0;
	}
	if (!one_of(a, attributes))
		return false;
	/* CSS has no markup: a style holding some is not one */
	if (strcmp(a, "style") == 0 && strpbrk(v, "<>") != NULL)
		return false;
	if (strcmp(a, "style") == 0) {
		for (i = 0; i < sizeof(low) - 1 && v[i] != '\0'; i++)
			low[i] = (char)tolower((unsigned char)v[i]);
		low[i] = '\0';
		for (i = 0; style_bad[i] != NULL; i++)
			if (strstr(low, style_bad[i]) != NULL)
				return false;
	}
	return true;
}

/*
 * The attributes of a start tag from p to its '>', written to out when
 * `keep`; the position after the '>', or NULL when the tag is not closed.
 */
static const char *
attrs(const char *p, const char *el, bool keep, struct buf *out, enum fb_err *e)
{
	char		 a[NAME_MAX_ + 1], v[8 * VALUE_MAX];
	const char	*vs, *ve;
	size_t		 n;
	char		 q;

	for (;;) {
		while (isspace((unsigned char)*p) || *p == '/')
			p++;
		if (*p == '\0')
			return NULL;
		if (*p == '>')
			return p + 1;
		if ((n = name_at(p, "/>=", a)) == 0)
			n = 1;	/* a stray '=': skipped */
		p += n;
		while (isspace((unsigned char)*p))
			p++;
		vs = ve = NULL;
		if (*p == '=') {
			for (p++; isspace((unsigned char)*p); p++)
				continue;
			if (*p == '"' || *p == '\'') {
				q = *p++;
				if ((ve = strchr(p, q)) == NULL)
					return NULL;
				vs = p;
				p = ve + 1;
			} else {
				for (vs = p; *p != '\0' && *p != '>' &&
				    !isspace((unsigned char)*p); p++)
					continue;
				ve = p;
			}
		}
		/*
		 * A value is judged by its decoded length, so what this writes
		 * (escaped, up to 6 times longer) reads back the same.
		 */
		if (!keep || vs == NULL || (size_t)(ve - vs) >= sizeof(v) ||
		    n > NAME_MAX_)
			continue;
		decode(vs, (size_t)(ve - vs), v, sizeof(v));
		if (strlen(v) >= VALUE_MAX || !value_ok(el, a, v))
			continue;
		if (*e == FB_OK)
			*e = buf_printf(out, " %s=\"", a);
		if (*e == FB_OK)
			*e = html_escape(out, v);
		if (*e == FB_OK)
			*e = buf_addstr(out, "\"");
	}
}

/* Past the end tag of opaque element `el` from p, or NULL when none. */
static const char *
skip_opaque(const char *p, const char *el)
{
	size_t	 n = strlen(el);

	for (; (p = strchr(p, '<')) != NULL; p++)
		if (p[1] == '/' && strncasecmp(p + 2, el, n) == 0 &&
		    (p[2 + n] == '>' || isspace((unsigned char)p[2 + n]) ||
		    p[2 + n] == '/'))
			return (p = strchr(p, '>')) != NULL ? p + 1 : NULL;
	return NULL;
}

enum fb_err
html_sanitize(const char *in, struct buf *out)
{
	const char	*p = in, *q;
	char		 el[NAME_MAX_ + 1];
	size_t		 n, mark;
	bool		 keep;
	enum fb_err	 e = FB_OK;

	if (strlen(in) > HTML_IN_MAX || utf8_len(in) < 0)
		return FB_EINVAL;
	while (*p != '\0' && e == FB_OK) {
		if (*p == '&') {
			n = charref(p);
			e = n > 0 ? buf_add(out, p, n) : buf_addstr(out,
			    "&amp;");
			p += n > 0 ? n : 1;
			continue;
		}
		if (*p == '>') {
			e = buf_addstr(out, "&gt;");
			p++;
			continue;
		}
		if (*p != '<') {
			n = strcspn(p, "<>&");
			e = buf_add(out, p, n);
			p += n;
			continue;
		}
		if (strncmp(p, "<!--", 4) == 0) {
			if ((q = strstr(p + 4, "-->")) == NULL)
				break;
			p = q + 3;
		} else if (p[1] == '!' || p[1] == '?') {
			if ((q = strchr(p, '>')) == NULL)
				break;
			p = q + 1;
		} else if (p[1] == '/' && isalpha((unsigned char)p[2])) {
			n = name_at(p + 2, "/>", el);
			if ((q = strchr(p + 2 + n, '>')) == NULL)
				break;
			if (n <= NAME_MAX_ && one_of(el, elements) &&
			    !one_of(el, voids))
				e = buf_printf(out, "</%s>", el);
			p = q + 1;
		} else if (isalpha((unsigned char)p[1])) {
			n = name_at(p + 1, "/>", el);
			keep = n <= NAME_MAX_ && one_of(el, elements);
			mark = out->len;
			if (keep)
				e = buf_printf(out, "<%s", el);
			if ((q = attrs(p + 1 + n, el, keep, out, &e)) == NULL) {
				/* an unclosed tag at the end: dropped whole */
				out->len = mark;
				out->data[mark] = '\0';
				break;
			}
			if (keep && e == FB_OK)
				e = buf_addstr(out, ">");
			p = q;
			if (n <= NAME_MAX_ && one_of(el, opaque) &&
			    (p = skip_opaque(p, el)) == NULL)
				break;
		} else {
			e = buf_addstr(out, "&lt;");
			p++;
		}
	}
	return e;
}
