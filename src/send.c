/*
 * Email by SMTP, through libcurl (send.h).  The SMS drivers are in
 * sms.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <sodium.h>

#include "formback.h"
#include "send.h"

/* The pass's SMTP handle: libcurl keeps its connection. */
static CURL	*smtp_handle;

CURL *
send_handle(CURL **h)
{
	if (*h == NULL)
		*h = curl_easy_init();
	else
		curl_easy_reset(*h);
	return *h;
}

/*
 * The domain of the From address ("Shop <a@shop.example>" or "a@shop.example").
 */
static const char *
from_domain(const char *from)
{
	static char	 d[256];
	const char	*at = strrchr(from, '@');
	size_t		 n;

	if (at == NULL)
		return "formback.invalid";
	at++;
	n = strcspn(at, "> \t");
	if (n == 0 || n >= sizeof(d))
		return "formback.invalid";
	memcpy(d, at, n);
	d[n] = '\0';
	return d;
}

/*
 * Append the header "name: value" to a list; false when header_ok()
 * refuses it or memory runs out (the message is not sent).
 */
static bool
header_add(struct curl_slist **l, const char *name, const char *value)
{
	struct curl_slist *n = NULL;
	struct buf	 b;

	if (!header_ok(name, value))
		return false;
	buf_init(&b, 8192);
	if (buf_printf(&b, "%s: %s", name, value) == FB_OK &&
	    (n = curl_slist_append(*l, b.data)) != NULL)
		*l = n;
	buf_release(&b);
	return n != NULL;
}

/* base64 of 45 bytes is 60: 72 with =?UTF-8?B??= */
#define WORD_BYTES	45
#define FIRST_BYTES	36	/* 48, 60: 69 after "Subject: " (76 at most) */

bool
mail_subject(struct buf *b, const char *subject)
{
	const unsigned char *s = (const unsigned char *)subject;
	size_t		 n = strlen(subject), k;
	char		 b64[sodium_base64_ENCODED_LEN(WORD_BYTES,
			    sodium_base64_VARIANT_ORIGINAL)], word[96];

	while (n > 0) {
		k = s == (const unsigned char *)subject ? FIRST_BYTES :
		    WORD_BYTES;
		if (k > n)
			k = n;
		while (k < n && k > 1 && (s[k] & 0xc0) == 0x80)
			k--;	/* back to the first byte of a character */
		sodium_bin2base64(b64, sizeof(b64), s, k,
		    sodium_base64_VARIANT_ORIGINAL);
		snprintf(word, sizeof(word), "=?UTF-8?B?%s?=", b64);
		if (!header_ok("Subject", word) || buf_printf(b, "%s%s",
		    s == (const unsigned char *)subject ? "" : "\r\n ",
		    word) != FB_OK)
			return false;
		s += k;
		n -= k;
	}
	return true;
}

/*
 * The Subject header (mail_subject()): libcurl writes the folded entry as is.
 */
static bool
subject_add(struct curl_slist **l, const char *subject)
{
	struct curl_slist *h = NULL;
	struct buf	 v;

	buf_init(&v, 16384);
	if (buf_addstr(&v, "Subject: ") == FB_OK && mail_subject(&v, subject) &&
	    (h = curl_slist_append(*l, v.data)) != NULL)
		*l = h;
	buf_release(&v);
	return h != NULL;
}

/* A text part of `type` ("text/plain", "text/html"), UTF-8 in base64. */
static bool
text_part(curl_mime *m, const char *type, const char *text)
{
	curl_mimepart	*p = curl_mime_addpart(m);

	return p != NULL && curl_mime_data(p, text, CURL_ZERO_TERMINATED) ==
	    CURLE_OK && curl_mime_type(p, type) == CURLE_OK &&
	    curl_mime_encoder(p, "base64") == CURLE_OK;
}

enum send_result
send_email(const struct conf *c, const char *to, const char *subject,
    const char *text, const char *html, const char *unsub, const char *ref,
    char *error, size_t errsz)
{
	CURL			*h;
	curl_mime		*mime = NULL, *alt = NULL;
	curl_mimepart		*part = NULL;
	struct curl_slist	*rcpt = NULL, *hdr = NULL;
	char			 date[64], mid[320], addr[300];
	char			 env_to[300], env_from[300], list[1100];
	const char		*lt;
	unsigned char		 rnd[8];
	time_t			 now = time(NULL);
	struct tm		 tm;
	CURLcode		 rc;
	long			 code = 0;
	bool			 ok;
	enum send_result	 res;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	if (ref != NULL)
		snprintf(mid, sizeof(mid), "<%s@%s>", ref,
		    from_domain(c->smtp_from));
	else {
		randombytes_buf(rnd, sizeof(rnd));
		mid[0] = '<';
		sodium_bin2hex(mid + 1, sizeof(mid) - 1, rnd, sizeof(rnd));
		snprintf(mid + strlen(mid), sizeof(mid) - strlen(mid), "@%s>",
		    from_domain(c->smtp_from));
	}
	snprintf(addr, sizeof(addr), "<%s>", to);
	h = send_handle(&smtp_handle);
	/*
	 * the message: its headers, then multipart/alternative (RFC 2046 5.1.4)
	 */
	ok = header_add(&hdr, "Date", date) && header_add(&hdr, "From",
	    c->smtp_from) && header_add(&hdr, "To", addr) &&
	    subject_add(&hdr, subject) && header_add(&hdr, "Message-ID", mid);
	if (ok && unsub != NULL) {
		/* one-click unsubscribe (RFC 8058) */
		snprintf(list, sizeof(list), "<%s>", unsub);
		ok = header_add(&hdr, "List-Unsubscribe", list) &&
		    header_add(&hdr, "List-Unsubscribe-Post",
		    "List-Unsubscribe=One-Click");
	}
	if (ok) {
		mime = curl_mime_init(h);
		alt = curl_mime_init(h);
		ok = mime != NULL && alt != NULL &&
		    text_part(alt, "text/plain; charset=UTF-8", text) &&
		    text_part(alt, "text/html; charset=UTF-8", html) &&
		    (part = curl_mime_addpart(mime)) != NULL &&
		    curl_mime_subparts(part, alt) == CURLE_OK;
		if (ok)
			alt = NULL;	/* the part owns it now */
		ok = ok && curl_mime_type(part,
		    "multipart/alternative") == CURLE_OK;
	}
	if (!ok) {
		curl_mime_free(alt);
		curl_mime_free(mime);
		curl_slist_free_all(hdr);
		snprintf(error, errsz, "message_invalid");
		return SEND_FAIL;
	}
	/* the envelope takes the bare addresses: "<a@b>" */
	snprintf(env_to, sizeof(env_to), "<%s>", to);
	lt = strchr(c->smtp_from, '<');
	snprintf(env_from, sizeof(env_from), lt != NULL ? "%s" : "<%s>",
	    lt != NULL ? lt : c->smtp_from);
	rcpt = curl_slist_append(rcpt, env_to);
	curl_easy_setopt(h, CURLOPT_URL, c->smtp_url);
	curl_easy_setopt(h, CURLOPT_MAIL_FROM, env_from);
	curl_easy_setopt(h, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_MIMEPOST, mime);
	curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, (long)SEND_TIMEOUT);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	/* smtps:// is TLS from the start; smtp:// upgrades when asked to */
	if (strncmp(c->smtp_url, "smtps://", 8) == 0 || c->smtp_starttls)
		curl_easy_setopt(h, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	if (rc == CURLE_OK)
		res = SEND_OK;
	else if (code >= 500 && code < 600) {
		snprintf(error, errsz, "smtp_%ld", code);
		res = SEND_FAIL;
	} else {
		snprintf(error, errsz, "smtp_%s", rc == CURLE_COULDNT_CONNECT ?
		    "unreachable" : "error");
		res = code >= 400 && code < 500 ? SEND_RETRY :
		    rc == CURLE_LOGIN_DENIED ? SEND_FAIL : SEND_RETRY;
	}
	/* the handle is reset before its next use: nothing points here then */
	curl_slist_free_all(rcpt);
	curl_slist_free_all(hdr);
	curl_mime_free(mime);
	return res;
}
