/*
 * The SMS drivers of SMS_DRIVERS (sms.h; design 5): the generic HTTP
 * gateway and Twilio, through libcurl, and send_sms(), which sends
 * through the one formback.conf's sms_provider names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <sodium.h>

#include "formback.h"
#include "sms.h"
#include "url.h"

/* The pass's SMS handle (send_handle()): libcurl keeps its connection. */
static CURL	*sms_handle;

static size_t
collect(char *p, size_t sz, size_t n, void *ud)
{
	struct buf	*b = ud;

	return buf_add(b, p, sz * n) == FB_OK ? sz * n : 0;
}

bool
sms_e164(const char *to, char *out, size_t outsz)
{
	int	 n;

	if (to[0] == '+')
		n = snprintf(out, outsz, "%s", to);
	else
		n = snprintf(out, outsz, "+81%s", to[0] == '0' ? to + 1 : to);
	return n > 0 && (size_t)n < outsz;
}

/*
 * What every SMS driver shares (design 5): POST `body` to `url` on the
 * pass's SMS handle with the headers `hdr` and, when user is not NULL,
 * HTTP basic auth user:password; SEND_TIMEOUT, no redirect followed.
 * The answer into `answer`, its status into *code (0: none came).  The
 * outcome: a 2xx SEND_OK; a broken connection or a 5xx SEND_RETRY, and
 * a 429 too when the driver says the provider means "later"; any other
 * status SEND_FAIL.  On failure error receives "<prefix>_unreachable"
 * or "<prefix>_<status>" (a driver may write a better one).
 */
static enum send_result
sms_post(const char *url, struct curl_slist *hdr, const char *user,
    const char *password, const char *body, bool retry_429,
    const char *prefix, struct buf *answer, long *code, char *error,
    size_t errsz)
{
	CURL		*h = send_handle(&sms_handle);
	CURLcode	 rc;

	*code = 0;
	if (h == NULL) {
		snprintf(error, errsz, "%s_unreachable", prefix);
		return SEND_RETRY;
	}
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	if (user != NULL) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERNAME, user);
		curl_easy_setopt(h, CURLOPT_PASSWORD, password);
	}
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, answer);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, (long)SEND_TIMEOUT);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, code);
	/* the handle is reset before its next use: nothing points here then */
	if (rc != CURLE_OK) {
		snprintf(error, errsz, "%s_unreachable", prefix);
		return SEND_RETRY;
	}
	if (*code >= 200 && *code < 300)
		return SEND_OK;
	snprintf(error, errsz, "%s_%ld", prefix, *code);
	return *code >= 500 || (*code == 429 && retry_429) ? SEND_RETRY :
	    SEND_FAIL;
}

/* The string member k of the JSON object text s into out, or false. */
static bool
reply_str(const char *s, const char *k, char *out, size_t outsz)
{
	json_object	*o, *v;
	bool		 ok = false;

	if ((o = json_tokener_parse(s)) == NULL)
		return false;
	if (json_object_object_get_ex(o, k, &v) && v != NULL &&
	    (json_object_is_type(v, json_type_string) ||
	    json_object_is_type(v, json_type_int)))
		ok = snprintf(out, outsz, "%s", json_object_get_string(v)) > 0;
	json_object_put(o);
	return ok;
}

/*
 * The generic gateway (design 5): POST {sms_gateway_url}, Bearer
 * {sms_gateway_token}, {"to","from","body","reference"}; a JSON reply's
 * "id" is the provider's message id.  Every 4xx is final.
 */
enum send_result
sms_gateway_send(const struct conf *c, const char *to, const char *body,
    const char *reference, char *provider_id, size_t idsz, char *error,
    size_t errsz)
{
	struct curl_slist	*hdr = NULL, *n;
	json_object		*o;
	char			 intl[32], auth[1024];
	struct buf		 answer;
	long			 code;
	enum send_result	 res;

	provider_id[0] = '\0';
	if (c->sms_gateway_url == NULL) {
		snprintf(error, errsz, "sms_gateway_not_configured");
		return SEND_FAIL;
	}
	if (!sms_e164(to, intl, sizeof(intl))) {
		snprintf(error, errsz, "invalid_contact");
		return SEND_FAIL;
	}
	o = json_object_new_object();
	jadd_str(o, "to", intl);
	jadd_str(o, "from", c->sms_from);
	jadd_str(o, "body", body);
	jadd_str(o, "reference", reference);
	buf_init(&answer, 64 * 1024);
	hdr = curl_slist_append(hdr,
	    "Content-Type: application/json; charset=utf-8");
	if (c->sms_gateway_token != NULL) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		    c->sms_gateway_token);
		if ((n = curl_slist_append(hdr, auth)) != NULL)
			hdr = n;
		sodium_memzero(auth, sizeof(auth));
	}
	res = sms_post(c->sms_gateway_url, hdr, NULL, NULL, json_text(o), false,
	    "gateway", &answer, &code, error, errsz);
	if (res == SEND_OK && answer.len > 0)
		(void)reply_str(answer.data, "id", provider_id, idsz);
	json_object_put(o);
	buf_release(&answer);
	curl_slist_free_all(hdr);
	return res;
}

/*
 * Append "name=value" to a form body, '&' before all but the first,
 * the value escaped by libcurl (RFC 3986: all but the unreserved
 * characters as %XX).  False when memory or the buffer's cap runs out.
 */
static bool
form_add(CURL *h, struct buf *b, const char *name, const char *value)
{
	char	*v = curl_easy_escape(h, value, 0);
	bool	 ok;

	ok = v != NULL && buf_printf(b, "%s%s=%s", b->len > 0 ? "&" : "", name,
	    v) == FB_OK;
	curl_free(v);
	return ok;
}

/*
 * Twilio Programmable Messaging (issue 44): POST {twilio_api_base}
 * /2010-04-01/Accounts/{twilio_account_sid}/Messages.json, basic auth
 * account SID : auth token, the form To, MessagingServiceSid (when
 * twilio_messaging_service_sid is set) or From (sms_from), Body and
 * StatusCallback {base_url}/hooks/sms/twilio (twilio.c reads it).  The
 * reply's "sid" is the provider's message id.  A 4xx is final, its error
 * "twilio_<Twilio's code>" ("twilio_21211": not a valid phone number),
 * else "twilio_<status>"; a 429 and a 5xx are retried.
 */
enum send_result
sms_twilio_send(const struct conf *c, const char *to, const char *body,
    const char *reference, char *provider_id, size_t idsz, char *error,
    size_t errsz)
{
	CURL			*h;
	struct curl_slist	*hdr = NULL;
	char			 intl[32], code_s[32], url[URL_MAX + 128];
	char			 cb[URL_MAX + 32];
	struct buf		 form, answer;
	long			 code;
	bool			 ok;
	enum send_result	 res;

	/* Twilio keeps none: the sid names the message */
	(void)reference;
	provider_id[0] = '\0';
	if (!sms_e164(to, intl, sizeof(intl))) {
		snprintf(error, errsz, "invalid_contact");
		return SEND_FAIL;
	}
	snprintf(url, sizeof(url), "%s/2010-04-01/Accounts/%s/Messages.json",
	    c->twilio_api_base, c->twilio_account_sid);
	snprintf(cb, sizeof(cb), "%s/hooks/sms/twilio", c->base_url);
	if ((h = send_handle(&sms_handle)) == NULL) {
		snprintf(error, errsz, "twilio_unreachable");
		return SEND_RETRY;
	}
	/* the escaping needs a handle: sms_post() resets it, keeping ours */
	buf_init(&form, 64 * 1024);
	ok = form_add(h, &form, "To", intl) &&
	    (c->twilio_messaging_service_sid != NULL ?
	    form_add(h, &form, "MessagingServiceSid",
	    c->twilio_messaging_service_sid) :
	    form_add(h, &form, "From", c->sms_from)) &&
	    form_add(h, &form, "Body", body) &&
	    form_add(h, &form, "StatusCallback", cb);
	if (!ok) {
		buf_release(&form);
		snprintf(error, errsz, "message_invalid");
		return SEND_FAIL;
	}
	buf_init(&answer, 64 * 1024);
	hdr = curl_slist_append(hdr, "Accept: application/json");
	res = sms_post(url, hdr, c->twilio_account_sid, c->twilio_auth_token,
	    form.data, true, "twilio", &answer, &code, error, errsz);
	if (res == SEND_OK)
		(void)reply_str(answer.data, "sid", provider_id, idsz);
	/* Twilio's error: {"code": 21211, "message": ..., "status": 400} */
	else if (code >= 400 && code < 500 && code != 429 &&
	    reply_str(answer.data, "code", code_s, sizeof(code_s)))
		snprintf(error, errsz, "twilio_%s", code_s);
	buf_release(&form);
	buf_release(&answer);
	curl_slist_free_all(hdr);
	return res;
}

/* The driver sms_provider names (SMS_DRIVERS, sms.h). */
#define SMS_SEND(e, name, send, receipt, keys)	[e] = send,
static const sms_send_fn sms_sends[SMS_PROVIDER__MAX] = {
	SMS_DRIVERS(SMS_SEND)
};
#undef SMS_SEND

enum send_result
send_sms(const struct conf *c, const char *to, const char *body,
    const char *reference, char *provider_id, size_t idsz, char *error,
    size_t errsz)
{
	if (c->sms_provider < 0 || c->sms_provider >= SMS_PROVIDER__MAX) {
		provider_id[0] = '\0';
		snprintf(error, errsz, "sms_provider_invalid");
		return SEND_FAIL;
	}
	return sms_sends[c->sms_provider](c, to, body, reference, provider_id,
	    idsz, error, errsz);
}
