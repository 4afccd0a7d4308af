/* Messages: SMS counting, variables, email blocks (see message.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "url.h"
#include "message.h"

static long
utf16_units(const char *s, size_t n, bool *ok)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + n;
	long		 u = 0;

	*ok = true;
	while (p < e) {
		if (*p < 0x80)
			p += 1, u += 1;
		else if ((*p & 0xe0) == 0xc0 && p + 1 < e)
			p += 2, u += 1;
		else if ((*p & 0xf0) == 0xe0 && p + 2 < e)
			p += 3, u += 1;
		else if ((*p & 0xf8) == 0xf0 && p + 3 < e)
			p += 4, u += 2;	/* a surrogate pair */
		else {
			*ok = false;
			return u;
		}
	}
	return u;
}

bool
sms_count(const char *body, const char *base_url, struct sms_count *c)
{
	long		 link = (long)strlen(base_url) + 3 + LINK_TOKEN_LEN;
	const char	*p = body, *v;
	bool		 ok;

	if (utf8_len(body) < 0)
		return false;
	c->raw = utf16_units(body, strlen(body), &ok);
	c->characters = 0;
	while ((v = strstr(p, "{{")) != NULL) {
		c->characters += utf16_units(p, (size_t)(v - p), &ok);
		if (strncmp(v, "{{link_url}}", 12) == 0) {
			c->characters += link;
			p = v + 12;
		} else if (strncmp(v, "{{optout_url}}", 14) == 0) {
			c->characters += link;
			p = v + 14;
		} else if (strncmp(v, "{{product_name}}", 16) == 0) {
			c->characters += SMS_PRODUCT_NAME_CHARS;
			p = v + 16;
		} else {
			c->characters += 2;
			p = v + 2;
		}
	}
	c->characters += utf16_units(p, strlen(p), &ok);
	if (c->characters <= SMS_SINGLE_CHARS)
		c->segments = c->characters > 0 ? 1 : 0;
	else
		c->segments = (int)((c->characters + SMS_PART_CHARS - 1) /
		    SMS_PART_CHARS);
	return true;
}

/*
 * A block's URL as saved: a URL kept as the parser writes it (then put
 * back into the block in that form), or a template with variables, whose
 * expansion is checked when it is rendered (block_url()).
 */
static bool
block_url_ok(json_object *b, const char *u)
{
	char	 href[URL_MAX + 1];

	if (strstr(u, "{{") != NULL)
		return strlen(u) <= URL_MAX;
	if (!url_normalize(u, href))
		return false;
	json_object_object_add(b, "url", json_object_new_string(href));
	return true;
}

bool
blocks_ok(json_object *blocks, char *param, size_t paramsz)
{
	static const char *const types[] = { "heading", "text", "image",
	    "button",
	    "divider" };
	static const char *const fields[] = { "text", "url", "alt" };
	json_object	*b, *v;
	size_t		 i, j, n;
	const char	*t;

	if (!json_object_is_type(blocks, json_type_array) ||
	    (n = json_object_array_length(blocks)) > 50) {
		snprintf(param, paramsz, "blocks");
		return false;
	}
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(blocks, i);
		if (!json_object_is_type(b, json_type_object)) {
			snprintf(param, paramsz, "blocks[%zu]", i);
			return false;
		}
		snprintf(param, paramsz, "blocks[%zu].type", i);
		if (!json_object_object_get_ex(b, "type", &v) ||
		    !json_object_is_type(v, json_type_string))
			return false;
		t = json_object_get_string(v);
		for (j = 0; j < NELEM(types) && strcmp(types[j], t) != 0; j++)
			continue;
		if (j == NELEM(types))
			return false;
		for (j = 0; j < NELEM(fields); j++) {
			if (!json_object_object_get_ex(b, fields[j], &v) ||
			    v == NULL)
				continue;
			snprintf(param, paramsz, "blocks[%zu].%s", i,
			    fields[j]);
			if (!json_object_is_type(v, json_type_string) ||
			    utf8_len(json_object_get_string(v)) < 0 ||
			    utf8_len(json_object_get_string(v)) > 2000 ||
			    strlen(json_object_get_string(v)) !=
			    (size_t)json_object_get_string_len(v))
				return false;
			if (strcmp(fields[j], "url") == 0 &&
			    !block_url_ok(b, json_object_get_string(v)))
				return false;
		}
	}
	return true;
}

enum fb_err
html_escape(struct buf *b, const char *s)
{
	enum fb_err	 e = FB_OK;

	for (; *s != '\0' && e == FB_OK; s++)
		switch (*s) {
		case '&': e = buf_addstr(b, "&amp;"); break;
		case '<': e = buf_addstr(b, "&lt;"); break;
		case '>': e = buf_addstr(b, "&gt;"); break;
		case '"': e = buf_addstr(b, "&quot;"); break;
		case '\'': e = buf_addstr(b, "&#39;"); break;
		default: e = buf_add(b, s, 1);
		}
	return e;
}

enum fb_err
vars_expand(struct buf *b, const char *s, const char *product,
    const char *link, const char *optout)
{
	const char	*v;
	enum fb_err	 e = FB_OK;

	while (e == FB_OK && (v = strstr(s, "{{")) != NULL) {
		if ((e = buf_add(b, s, (size_t)(v - s))) != FB_OK)
			break;
		if (strncmp(v, "{{product_name}}", 16) == 0) {
			e = buf_addstr(b, product != NULL ? product : "");
			s = v + 16;
		} else if (strncmp(v, "{{link_url}}", 12) == 0) {
			e = buf_addstr(b, link);
			s = v + 12;
		} else if (strncmp(v, "{{optout_url}}", 14) == 0) {
			e = buf_addstr(b, optout);
			s = v + 14;
		} else {
			e = buf_add(b, v, 2);
			s = v + 2;
		}
	}
	return e == FB_OK ? buf_addstr(b, s) : e;
}

/* A block field with its variables replaced, then escaped, into b. */
static enum fb_err
field_html(struct buf *b, json_object *blk, const char *k, const char *product,
    const char *link, const char *optout)
{
	json_object	*v;
	struct buf	 t;
	enum fb_err	 e;

	if (!json_object_object_get_ex(blk, k, &v) || v == NULL)
		return FB_OK;
	buf_init(&t, 64 * 1024);
	e = vars_expand(&t, json_object_get_string(v), product, link, optout);
	if (e == FB_OK)
		e = html_escape(b, t.data);
	buf_release(&t);
	return e;
}

/*
 * A block's URL with its variables replaced, checked after the expansion
 * (a product name may hold anything) and written as the parser writes
 * it, escaped, into b.  *ok false (nothing written) when it is not an
 * http(s) URL then.
 */
static enum fb_err
block_url(struct buf *b, json_object *blk, const char *product,
    const char *link, const char *optout, bool *ok)
{
	json_object	*v;
	struct buf	 t;
	char		 href[URL_MAX + 1];
	enum fb_err	 e;

	*ok = false;
	if (!json_object_object_get_ex(blk, "url", &v) || v == NULL)
		return FB_OK;
	buf_init(&t, 64 * 1024);
	e = vars_expand(&t, json_object_get_string(v), product, link, optout);
	if (e == FB_OK && url_normalize(t.data, href)) {
		*ok = true;
		e = html_escape(b, href);
	}
	buf_release(&t);
	return e;
}

/* The head of an email's HTML document, into b. */
static enum fb_err
doc_head(struct buf *b)
{
	return buf_addstr(b,
	    "<!DOCTYPE html><html lang=\"ja\"><head><meta charset=\"utf-8\">"
	    "</head><body "
	    "style=\"font-family:sans-serif;max-width:600px;margin:auto\">");
}

/* Its foot: with open_pixel (as sent), the opt-out link and the pixel. */
static enum fb_err
doc_foot(struct buf *b, const char *optout, const char *open_pixel)
{
	enum fb_err	 e = FB_OK;

	if (open_pixel != NULL) {
		e = buf_addstr(b, "<p style=\"font-size:small\"><a href=\"");
		if (e == FB_OK) e = html_escape(b, optout);
		if (e == FB_OK) e = buf_addstr(b, "\">配信停止</a></p><img src=\"");
		if (e == FB_OK) e = html_escape(b, open_pixel);
		if (e == FB_OK) e = buf_addstr(b,
		    "\" width=\"1\" height=\"1\" alt=\"\">");
	}
	return e == FB_OK ? buf_addstr(b, "</body></html>") : e;
}

enum fb_err
blocks_html(json_object *blocks, const char *product, const char *link,
    const char *optout, const char *open_pixel, struct buf *b)
{
	json_object	*blk, *tv;
	const char	*t;
	size_t		 i, mark;
	bool		 ok;
	enum fb_err	 e = FB_OK;

	e = doc_head(b);
	for (i = 0; e == FB_OK && i < json_object_array_length(blocks); i++) {
		blk = json_object_array_get_idx(blocks, i);
		json_object_object_get_ex(blk, "type", &tv);
		t = json_object_get_string(tv);
		if (strcmp(t, "heading") == 0) {
			e = buf_addstr(b, "<h1>");
			if (e == FB_OK) e = field_html(b, blk, "text", product,
			    link, optout);
			if (e == FB_OK) e = buf_addstr(b, "</h1>");
		} else if (strcmp(t, "text") == 0) {
			e = buf_addstr(b, "<p>");
			if (e == FB_OK) e = field_html(b, blk, "text", product,
			    link, optout);
			if (e == FB_OK) e = buf_addstr(b, "</p>");
		} else if (strcmp(t, "image") == 0) {
			/* an image whose URL is not one is left out */
			mark = b->len;
			e = buf_addstr(b, "<p><img src=\"");
			if (e == FB_OK) e = block_url(b, blk, product, link,
			    optout, &ok);
			if (e == FB_OK && !ok) {
				b->len = mark;
				b->data[mark] = '\0';
				continue;
			}
			if (e == FB_OK) e = buf_addstr(b, "\" alt=\"");
			if (e == FB_OK) e = field_html(b, blk, "alt", product,
			    link, optout);
			if (e == FB_OK) e = buf_addstr(b,
			    "\" style=\"max-width:100%\"></p>");
		} else if (strcmp(t, "button") == 0) {
			/*
			 * a button whose URL is not one leads to the message's
			 * link
			 */
			e = buf_addstr(b, "<p><a href=\"");
			if (e == FB_OK) e = block_url(b, blk, product, link,
			    optout, &ok);
			if (e == FB_OK && !ok) e = html_escape(b, link);
			if (e == FB_OK) e = buf_addstr(b,
			    "\" style=\"display:inline-block;"
			    "padding:12px 24px;background:#d33;color:#fff;"
			    "text-decoration:none;border-radius:4px\">");
			if (e == FB_OK) e = field_html(b, blk, "text", product,
			    link, optout);
			if (e == FB_OK) e = buf_addstr(b, "</a></p>");
		} else if (strcmp(t, "divider") == 0)
			e = buf_addstr(b, "<hr>");
	}
	return e == FB_OK ? doc_foot(b, optout, open_pixel) : e;
}

enum fb_err
body_html_render(const char *html, const char *product, const char *link,
    const char *optout, const char *open_pixel, struct buf *b)
{
	struct buf	 p, l, o;
	enum fb_err	 e;

	buf_init(&p, 4096);
	buf_init(&l, 8192);
	buf_init(&o, 8192);
	/* the values are text in HTML: escaped before they go in */
	if ((e = html_escape(&p, product != NULL ? product : "")) == FB_OK &&
	    (e = html_escape(&l, link)) == FB_OK &&
	    (e = html_escape(&o, optout)) == FB_OK &&
	    (e = doc_head(b)) == FB_OK &&
	    (e = vars_expand(b, html, p.data, l.data, o.data)) == FB_OK)
		e = doc_foot(b, optout, open_pixel);
	buf_release(&p);
	buf_release(&l);
	buf_release(&o);
	return e;
}

long long
sms_quiet_until(long long now, long start, long end)
{
	long long	 day = time_jst_midnight(now);
	long		 m = (long)((now - day) / 60);
	bool		 quiet;

	if (start == end)
		return 0;
	quiet = start < end ? (m >= start && m < end) : (m >= start || m < end);
	if (!quiet)
		return 0;
	/* the end of the window, today or tomorrow (local), back in UTC */
	return (m < end ? day : day + 86400) + end * 60;
}
