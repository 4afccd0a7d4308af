/*
 * Messages: SMS length and segments, variables, and email blocks
 * (contract: Message, SmsEstimateIn, MessagePreviewIn).
 */
#ifndef FORMBACK_MESSAGE_H
#define FORMBACK_MESSAGE_H

#include "formback.h"

/*
 * Japanese carriers' long SMS (NTT docomo, au, SoftBank): a message is
 * UCS-2, 70 characters fit one SMS, a longer one is split into parts of
 * 67 (6 octets of each part go to the concatenation header), up to 660
 * characters in all.  The carrier is unknown when counting, so the worst
 * case is used: every UTF-16 code unit is a character (an emoji outside
 * the BMP counts 2; half-width kana 1 each, as UCS-2 sends them).
 */
#define SMS_MAX_CHARS		660
#define SMS_SINGLE_CHARS	70
#define SMS_PART_CHARS		67
#define SMS_PRODUCT_NAME_CHARS	16	/* {{product_name}} when unknown */

/* The placeholder of the examples that must be replaced before activation. */
#define STORE_PLACEHOLDER	"【店舗名】"

struct sms_count {
	long	 characters;	/* after expansion, UTF-16 code units */
	int	 segments;	/* billed parts */
	long	 raw;		/* before expansion */
};

/*
 * Count `body` as it will be sent: {{link_url}} and {{optout_url}} are
 * counted at the length of Formback's short links under base_url,
 * {{product_name}} as 16 characters (contract: Endpoints, estimate
 * rules).  Returns false when the body is not valid UTF-8.
 */
bool	sms_count(const char *body, const char *base_url, struct sms_count *);
/*
 * SMS quiet hours (formbackctl tenant set-quiet-hours; design 5): from minute
 * `start` to minute `end` after midnight JST, across midnight when start
 * > end, none when they are equal.  At `now` (unix seconds) inside the
 * window: the unix second the window ends, today's or tomorrow's end;
 * outside it: 0.
 */
long long sms_quiet_until(long long now, long start, long end);

/*
 * Check email blocks (an array of at most 50 objects of type heading,
 * text, image, button or divider, with string fields of at most 2000
 * characters and http(s) URLs, or URL templates with variables).  A URL
 * without variables is put back into its block as the parser writes it
 * (url_normalize()); a template's expansion is checked when rendered.
 * Returns true, or false with the offending field as "blocks[3].url" in
 * `param`.
 */
bool	blocks_ok(json_object *blocks, char *param, size_t paramsz);

/*
 * Render blocks to an HTML document into b, every user value escaped and
 * {{product_name}}, {{link_url}}, {{optout_url}} replaced by the given
 * values (escaped too).  A block URL is checked after its variables are
 * replaced and written only as the URL parser writes it: an image whose
 * URL is not an http(s) URL then is left out, such a button leads to
 * `link` (issue 11: "{{product_name}}" set to "javascript:...").  With
 * `open_pixel` (an email as sent), the foot of the body has the opt-out
 * link and the 1x1 open pixel of that URL; NULL for a preview.
 */
enum fb_err blocks_html(json_object *blocks, const char *product,
	    const char *link, const char *optout, const char *open_pixel,
	    struct buf *b) FB_WUR;
/*
 * An email's HTML document from a message's direct HTML (as
 * html_sanitize() kept it) into b: the variables replaced by the given
 * values, HTML-escaped; with `open_pixel`, the same foot as blocks_html().
 */
enum fb_err body_html_render(const char *html, const char *product,
	    const char *link, const char *optout, const char *open_pixel,
	    struct buf *b) FB_WUR;
/* HTML-escape s (& < > " ') into b. */
enum fb_err html_escape(struct buf *b, const char *s) FB_WUR;
/* Replace the variables in s into b (no escaping). */
enum fb_err vars_expand(struct buf *b, const char *s, const char *product,
	    const char *link, const char *optout) FB_WUR;

#endif
