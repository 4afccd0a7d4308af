/*
 * Twilio's side of formback.fcgi (issue 44; sms.h): the signature of its
 * requests, and its status callback read into a receipt for hooks.c.
 * No libcurl here, as formback.fcgi links none: Twilio's send is in
 * sms.c with the other drivers'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <sodium.h>

#include "api.h"
#include "sms.h"
#include "url.h"

/* bytes of URL and form signed, at most */
#define SIGNED_MAX	(4u << 20)
#define ERROR_CODE_DIGITS 10		/* Twilio's error codes: 5 digits */

static int
field_cmp(const void *a, const void *b)
{
	const struct form_field *x = a, *y = b;
	int		 c = strcmp(x->name, y->name);

	return c != 0 ? c : strcmp(x->value, y->value);
}

bool
twilio_signature(const char *token, const char *url, struct form_field *f,
    size_t n, char out[TWILIO_SIGNATURE_LEN + 1])
{
	struct buf	 b;
	unsigned char	 mac[EVP_MAX_MD_SIZE];
	size_t		 maclen = 0, i;
	bool		 ok;

	if (n > 1)
		qsort(f, n, sizeof(*f), field_cmp);
	buf_init(&b, SIGNED_MAX);
	ok = buf_addstr(&b, url) == FB_OK;
	for (i = 0; ok && i < n; i++)
		ok = buf_addstr(&b, f[i].name) == FB_OK &&
		    buf_addstr(&b, f[i].value) == FB_OK;
	ok = ok && EVP_Q_mac(NULL, "HMAC", NULL, "SHA1", NULL, token,
	    strlen(token), (const unsigned char *)b.data, b.len, mac,
	    sizeof(mac), &maclen) != NULL && maclen == 20;
	if (ok)
		sodium_bin2base64(out, TWILIO_SIGNATURE_LEN + 1, mac, maclen,
		    sodium_base64_VARIANT_ORIGINAL);
	sodium_memzero(mac, sizeof(mac));
	buf_release(&b);
	return ok;
}

/*
 * The form of r's body (application/x-www-form-urlencoded: '+' a space,
 * %XX a byte; a broken escape or %00 refused) into f, at most
 * TWILIO_PARAMS_MAX fields, each string decoded into dec, which holds
 * 2 * body length + 2 bytes (a field's name and value never decode
 * longer than they are, and each takes a NUL).  False for a form that
 * cannot be read.
 */
static bool
form_parse(const struct req *r, char *dec, struct form_field *f, size_t *n)
{
	const char	*p = r->body.data;
	struct query_pair q;
	size_t		 left = r->body.len * 2 + 2, k;

	*n = 0;
	while (query_next(&p, &q)) {
		if (*n == TWILIO_PARAMS_MAX || !pct_decode(q.name, q.name_len,
		    PCT_PLUS | PCT_STRICT, dec, left))
			return false;
		f[*n].name = dec;
		k = strlen(dec) + 1;
		dec += k, left -= k;
		if (!pct_decode(q.value, q.value_len, PCT_PLUS | PCT_STRICT,
		    dec, left))
			return false;
		f[(*n)++].value = dec;
		k = strlen(dec) + 1;
		dec += k, left -= k;
	}
	return true;
}

/* Is X-Twilio-Signature the signature of this request (constant time)? */
static bool
signed_ok(const struct req *r, struct form_field *f, size_t n)
{
	const char	*given = r->twilio_signature;
	char		 url[URL_MAX + 64], want[TWILIO_SIGNATURE_LEN + 1];
	int		 k;

	if (r->conf->twilio_auth_token == NULL ||
	    r->conf->twilio_auth_token[0] == '\0' || given == NULL ||
	    strlen(given) != TWILIO_SIGNATURE_LEN)
		return false;
	/* the URL Twilio was given (sms.c): base_url and the path */
	k = snprintf(url, sizeof(url), "%s/hooks/sms/twilio%s%s",
	    r->conf->base_url, r->query != NULL && *r->query != '\0' ? "?" : "",
	    r->query != NULL ? r->query : "");
	if (k < 0 || (size_t)k >= sizeof(url) ||
	    !twilio_signature(r->conf->twilio_auth_token, url, f, n, want))
		return false;
	return sodium_memcmp(want, given, TWILIO_SIGNATURE_LEN) == 0;
}

/* The value of field `name`, or NULL. */
static const char *
field(const struct form_field *f, size_t n, const char *name)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return f[i].value;
	return NULL;
}

/* A Message SID: "SM" (or "MM", a multimedia one) and 32 hex digits. */
static bool
sid_ok(const char *s)
{
	return s != NULL && strlen(s) == 34 && (strncmp(s, "SM", 2) == 0 ||
	    strncmp(s, "MM",
	    2) == 0) && strspn(s + 2, "0123456789abcdef") == 32;
}

/*
 * MessageStatus (Twilio, "Message resource": Message Status values) as
 * a receipt's status: the final ones as the generic receipt's; the
 * steps on the way NULL.  False for a value not in the list.
 */
static bool
status_map(const char *st, const char **out)
{
	static const char *const on_the_way[] = { "accepted", "scheduled",
	    "queued", "sending", "sent" };
	size_t	 i;

	*out = NULL;
	for (i = 0; i < NELEM(on_the_way); i++)
		if (strcmp(st, on_the_way[i]) == 0)
			return true;
	if (strcmp(st, "delivered") == 0)
		*out = "delivered";
	else if (strcmp(st, "undelivered") == 0 || strcmp(st, "failed") == 0 ||
	    strcmp(st, "canceled") == 0)
		*out = "failed";
	return *out != NULL;
}

enum fb_err
twilio_receipt(struct req *r, struct receipt *out)
{
	struct form_field f[TWILIO_PARAMS_MAX];
	const char	*sid, *st, *ec, *bad = NULL;
	char		*dec;
	size_t		 n;

	if ((dec = malloc(r->body.len * 2 + 2)) == NULL)
		return FB_ENOMEM;
	if (!form_parse(r, dec, f, &n))
		bad = "body";
	/* nothing of an unsigned request is read further (issue 44) */
	else if (!signed_ok(r, f, n)) {
		free(dec);
		return api_error(r, AC_SIGNATURE_INVALID, "X-Twilio-Signature");
	}
	if (bad == NULL) {
		sid = field(f, n, "MessageSid");
		st = field(f, n, "MessageStatus");
		ec = field(f, n, "ErrorCode");
		if (!sid_ok(sid))
			bad = "MessageSid";
		else if (st == NULL || !status_map(st, &out->status))
			bad = "MessageStatus";
		else if (ec != NULL && (strlen(ec) > ERROR_CODE_DIGITS ||
		    strspn(ec, "0123456789") != strlen(ec)))
			bad = "ErrorCode";
	}
	if (bad != NULL) {
		free(dec);
		return api_error(r, AC_EVENT_INVALID, bad);
	}
	snprintf(out->id_buf, sizeof(out->id_buf), "%s", sid);
	out->provider_id = out->id_buf;
	out->param = "MessageSid";
	if (out->status != NULL && strcmp(out->status, "failed") == 0) {
		if (ec != NULL && *ec != '\0')
			snprintf(out->error_buf, sizeof(out->error_buf),
			    "twilio_%s", ec);
		else
			snprintf(out->error_buf, sizeof(out->error_buf), "%s",
			    st);
		out->error = out->error_buf;
	}
	free(dec);
	return FB_OK;
}
