/*
 * The allow-list of an email's direct HTML (body_html; issue 16):
 * owners and admins may enter it, and what is kept is only what an email
 * client shows and nothing that runs.  formback.fcgi(8), "Direct HTML",
 * lists it for users.
 */
#ifndef FORMBACK_SANITIZE_H
#define FORMBACK_SANITIZE_H

#include "formback.h"

#define HTML_IN_MAX	(200 * 1024)	/* bytes of body_html accepted */

/*
 * Rewrite the HTML `in` into out keeping only:
 * - the elements a b big blockquote br center code div em font h1-h6 hr
 *   i img li ol p pre s small span strong sub sup table tbody td tfoot th
 *   thead tr u ul, written lower-cased with double-quoted, escaped
 *   attribute values;
 * - the attributes align alt bgcolor border cellpadding cellspacing
 *   color colspan dir face height rowspan size style title valign width,
 *   href on a (http, https, mailto or tel URLs as the URL parser writes
 *   them, or {{link_url}} / {{optout_url}}) and src on img (http or https
 *   only); style only without "expression", "url(", "javascript",
 *   "@import", "behavior" or a backslash;
 * - text, its character references kept when well formed and '&'
 *   escaped otherwise.
 * Everything else goes: comments, doctypes, processing instructions,
 * other elements (script, style, iframe, object, embed, template,
 * noscript, textarea, title, svg and math with all they hold; the others'
 * text is kept), event handlers and every other attribute.  An unclosed
 * tag at the end is dropped.  Bounded: one pass over `in`.
 * Returns FB_OK, FB_EINVAL when `in` is not valid UTF-8 or longer than
 * HTML_IN_MAX, FB_ENOMEM when out is full.
 */
enum fb_err	html_sanitize(const char *in, struct buf *out) FB_WUR;

#endif
