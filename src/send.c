/* Email by SMTP and SMS by the HTTP gateway, through libcurl (send.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <sodium.h>

#include "formback.h"
#include "send.h"
#include "store.h"

struct reader {
	const char	*p;
	size_t		 left;
};

/* One handle per kind for the whole pass: libcurl keeps its connection. */
static CURL	*smtp_handle, *sms_handle;

static CURL *
handle(CURL **h)
{
	if (*h == NULL)
		*h = curl_easy_init();
	else
		curl_easy_reset(*h);
	return *h;
}

static size_t
read_cb(char *dst, size_t sz, size_t n, void *ud)
{
	struct reader	*r = ud;
	size_t		 k = sz * n < r->left ? sz * n : r->left;

	memcpy(dst, r->p, k);
	r->p += k;
	r->left -= k;
	return k;
}

/* Base64 of s, folded at 76 columns (RFC 2045). */
static enum fb_err
b64_fold(struct buf *b, const char *s)
{
	size_t	 n = strlen(s), elen = sodium_base64_encoded_len(n,
	    sodium_base64_VARIANT_ORIGINAL), i, len;
	char	*e = malloc(elen);
	enum fb_err rc = FB_OK;

	if (e == NULL)
		return FB_ENOMEM;
	sodium_bin2base64(e, elen, (const unsigned char *)s, n,
	    sodium_base64_VARIANT_ORIGINAL);
	len = strlen(e);
	for (i = 0; i < len && rc == FB_OK; i += 76)
		rc = buf_printf(b, "%.76s\r\n", e + i);
	free(e);
	return rc;
}

/* The domain of the From address ("Shop <a@shop.example>" or "a@shop.example"). */
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

enum send_result
send_email(const struct conf *c, const char *to, const char *subject,
    const char *text, const char *html, const char *unsub, const char *ref,
    char *error, size_t errsz)
{
	CURL			*h;
	struct curl_slist	*rcpt = NULL;
	struct buf		 m;
	struct reader		 rd;
	char			 date[64], boundary[40], subj_b64[1024], mid[320];
	char			 env_to[300], env_from[300];
	const char		*lt;
	unsigned char		 rnd[12];
	time_t			 now = time(NULL);
	struct tm		 tm;
	CURLcode		 rc;
	long			 code = 0;
	enum send_result	 res;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	randombytes_buf(rnd, sizeof(rnd));
	sodium_bin2hex(boundary, sizeof(boundary), rnd, sizeof(rnd));
	if (ref != NULL)
		snprintf(mid, sizeof(mid), "%s@%s", ref, from_domain(c->smtp_from));
	else {
		sodium_bin2hex(mid, sizeof(mid), rnd, 8);
		snprintf(mid + strlen(mid), sizeof(mid) - strlen(mid), "@%s",
		    from_domain(c->smtp_from));
	}
	sodium_bin2base64(subj_b64, sizeof(subj_b64), (const unsigned char *)subject,
	    strlen(subject) > 700 ? 700 : strlen(subject),
	    sodium_base64_VARIANT_ORIGINAL);
	buf_init(&m, 8u << 20);
	if (buf_printf(&m, "Date: %s\r\nFrom: %s\r\nTo: <%s>\r\n"
	    "Subject: =?UTF-8?B?%s?=\r\nMessage-ID: <%s>\r\n"
	    "MIME-Version: 1.0\r\n", date, c->smtp_from, to, subj_b64, mid) != FB_OK ||
	    (unsub != NULL && buf_printf(&m, "List-Unsubscribe: <%s>\r\n"
	    "List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n", unsub) != FB_OK) ||
	    buf_printf(&m, "Content-Type: multipart/alternative; boundary=\"%s\"\r\n\r\n"
	    "--%s\r\nContent-Type: text/plain; charset=UTF-8\r\n"
	    "Content-Transfer-Encoding: base64\r\n\r\n", boundary, boundary) != FB_OK ||
	    b64_fold(&m, text) != FB_OK ||
	    buf_printf(&m, "--%s\r\nContent-Type: text/html; charset=UTF-8\r\n"
	    "Content-Transfer-Encoding: base64\r\n\r\n", boundary) != FB_OK ||
	    b64_fold(&m, html) != FB_OK ||
	    buf_printf(&m, "--%s--\r\n", boundary) != FB_OK) {
		buf_release(&m);
		snprintf(error, errsz, "message_too_large");
		return SEND_FAIL;
	}
	rd.p = m.data;
	rd.left = m.len;
	h = handle(&smtp_handle);
	/* the envelope takes the bare addresses: "<a@b>" */
	snprintf(env_to, sizeof(env_to), "<%s>", to);
	lt = strchr(c->smtp_from, '<');
	snprintf(env_from, sizeof(env_from), lt != NULL ? "%s" : "<%s>",
	    lt != NULL ? lt : c->smtp_from);
	rcpt = curl_slist_append(rcpt, env_to);
	curl_easy_setopt(h, CURLOPT_URL, c->smtp_url);
	curl_easy_setopt(h, CURLOPT_MAIL_FROM, env_from);
	curl_easy_setopt(h, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(h, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(h, CURLOPT_READDATA, &rd);
	curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 30L);
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
	curl_slist_free_all(rcpt);
	buf_release(&m);
	return res;
}

static size_t
collect(char *p, size_t sz, size_t n, void *ud)
{
	struct buf	*b = ud;

	return buf_add(b, p, sz * n) == FB_OK ? sz * n : 0;
}

enum send_result
send_sms(const struct conf *c, const char *to, const char *body,
    const char *reference, char *provider_id, size_t idsz, char *error,
    size_t errsz)
{
	CURL			*h;
	struct curl_slist	*hdr = NULL;
	json_object		*o, *reply, *id;
	char			 intl[32], auth[1024];
	struct buf		 answer;
	CURLcode		 rc;
	long			 code = 0;
	enum send_result	 res;

	provider_id[0] = '\0';
	if (c->sms_gateway_url == NULL) {
		snprintf(error, errsz, "sms_gateway_not_configured");
		return SEND_FAIL;
	}
	/* E.164: 09012345678 -> +819012345678 */
	snprintf(intl, sizeof(intl), "+81%s", to[0] == '0' ? to + 1 : to);
	o = json_object_new_object();
	jadd_str(o, "to", intl);
	jadd_str(o, "from", c->sms_from);
	jadd_str(o, "body", body);
	jadd_str(o, "reference", reference);
	buf_init(&answer, 64 * 1024);
	h = handle(&sms_handle);
	hdr = curl_slist_append(hdr, "Content-Type: application/json; charset=utf-8");
	if (c->sms_gateway_token != NULL) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", c->sms_gateway_token);
		hdr = curl_slist_append(hdr, auth);
	}
	curl_easy_setopt(h, CURLOPT_URL, c->sms_gateway_url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, json_text(o));
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &answer);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	if (rc != CURLE_OK) {
		snprintf(error, errsz, "gateway_unreachable");
		res = SEND_RETRY;
	} else if (code >= 200 && code < 300) {
		res = SEND_OK;
		if ((reply = json_tokener_parse(answer.data)) != NULL) {
			if (json_object_object_get_ex(reply, "id", &id) && id != NULL)
				snprintf(provider_id, idsz, "%s", json_object_get_string(id));
			json_object_put(reply);
		}
	} else {
		snprintf(error, errsz, "gateway_%ld", code);
		res = code >= 400 && code < 500 ? SEND_FAIL : SEND_RETRY;
	}
	json_object_put(o);
	buf_release(&answer);
	curl_slist_free_all(hdr);
	return res;
}
