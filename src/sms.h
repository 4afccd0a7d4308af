/*
 * The SMS drivers (design 5; issue 44): the one table of providers, and
 * what a provider's receipt becomes.  docs/internals/sms.md says how a
 * driver is written.
 */
#ifndef FORMBACK_SMS_H
#define FORMBACK_SMS_H

#include "formback.h"
#include "send.h"

struct req;

/*
 * One row per provider, the only place the choice is made:
 *
 *   X(ENUM, "name", send, receipt, "keys")
 *
 * name is the value of formback.conf's sms_provider and the {provider}
 * of POST /hooks/sms/{provider}.  send (an sms_send_fn) is the driver's
 * request, in sms.c: libcurl, linked by the cron jobs only.  receipt
 * (an sms_receipt_fn) reads the provider's own callback at
 * /hooks/sms/{name}, for formback.fcgi, which links no libcurl; NULL
 * when the provider posts Formback's own receipt (hooks.c).  keys are
 * the formback.conf keys the driver needs once sms_provider names it,
 * space-separated, "a|b" for either; conf.c refuses a file without them,
 * naming the key.  A third provider is one more row, its send function
 * beside the others in sms.c, and its receipt parser in a file of its
 * own (twilio.c is the model).
 */
#define SMS_DRIVERS(X) \
	X(SMS_GATEWAY, "gateway", sms_gateway_send, NULL, "sms_gateway_url") \
	X(SMS_TWILIO, "twilio", sms_twilio_send, twilio_receipt, \
	    "twilio_account_sid twilio_auth_token " \
	    "twilio_messaging_service_sid|sms_from")

#define SMS_DRIVER_ENUM(e, name, send, receipt, keys)	e,
enum sms_provider {
	SMS_DRIVERS(SMS_DRIVER_ENUM)
	SMS_PROVIDER__MAX
};
#undef SMS_DRIVER_ENUM

/*
 * What a receipt says, whoever the provider (hooks.c applies it): the
 * delivery by our reference (its id) or by the provider's message id;
 * status "delivered", "failed" or "bounced", or NULL for a step on the
 * way (queued, sent) that changes nothing; bounce "hard" or "soft" or
 * NULL; the provider's error code or NULL.  The strings are the
 * request's, static, or in the struct's own room, where a parser copies
 * what it decoded.
 */
struct receipt {
	const char	*reference;
	const char	*provider_id;
	const char	*status;
	const char	*bounce;
	const char	*error;
	/* what a 404 names; NULL: "reference" */
	const char	*param;
	char		 id_buf[128];		/* deliveries.provider_id */
	char		 error_buf[64];		/* deliveries.error_code */
};

/*
 * A driver's send (sms.c): one SMS to `to`, the domestic form
 * "09012345678", text `body` (UTF-8), for the delivery `reference`.  The
 * provider's message id into provider_id (idsz bytes; "" when it gave
 * none), a short error code into error on failure.  SEND_OK, SEND_RETRY
 * (a broken connection, a 5xx, a 429 where the provider means "later")
 * or SEND_FAIL (refused for good: its 4xx).
 */
typedef enum send_result (*sms_send_fn)(const struct conf *, const char *to,
	    const char *body, const char *reference, char *provider_id,
	    size_t idsz, char *error, size_t errsz);
/*
 * A driver's receipt parser: the request (its raw body, headers, query
 * and the route's provider) into *out.  A request it refuses it answers
 * itself with api_error() (r->status is then set) and nothing is
 * applied.  Returns a database or memory error, else FB_OK.
 */
typedef enum fb_err (*sms_receipt_fn)(struct req *, struct receipt *out);

/* sms.c: the drivers' sends (a row's send names one). */
enum send_result sms_gateway_send(const struct conf *, const char *to,
	    const char *body, const char *reference, char *provider_id,
	    size_t idsz, char *error, size_t errsz);
enum send_result sms_twilio_send(const struct conf *, const char *to,
	    const char *body, const char *reference, char *provider_id,
	    size_t idsz, char *error, size_t errsz);

/*
 * The international form of a domestic Japanese number (E.164, ITU-T;
 * the leading trunk 0 replaced by +81): "09012345678" -> "+819012345678".
 * A number already "+..." is kept.  False when out (outsz) is too small.
 */
bool	sms_e164(const char *to, char *out, size_t outsz);

/*
 * Send one SMS through the driver formback.conf's sms_provider names
 * (SMS_DRIVERS, sms.h; design 5): the generic gateway's POST
 * {sms_gateway_url} with Bearer {sms_gateway_token} and
 * {"to":"+81...","from":sms_from,"body":...,"reference":<delivery id>},
 * or Twilio's Messages.json (sms_twilio_send()).  `to` is the domestic
 * form "09012345678", sent in E.164 (sms_e164()).  The provider's
 * message id into provider_id ("" when none), a short code into error
 * on failure.  SEND_OK on a 2xx; SEND_FAIL on a 4xx (the gateway's
 * every 4xx, Twilio's but 429); SEND_RETRY on a 5xx, a broken
 * connection, and Twilio's 429.
 */
enum send_result send_sms(const struct conf *, const char *to,
	    const char *body, const char *reference, char *provider_id,
	    size_t idsz, char *error, size_t errsz);

/* twilio.c */

/*
 * Twilio's receipt (issue 44): POST /hooks/sms/twilio, the form Twilio
 * posts to a message's StatusCallback (MessageSid, MessageStatus,
 * ErrorCode, ...).  Refused with 403 signature_invalid unless
 * X-Twilio-Signature is twilio_signature() of twilio_auth_token over
 * base_url "/hooks/sms/twilio" (and "?" and the query, if any) and the
 * form, compared in constant time; so also when no twilio_auth_token is
 * configured.  Then MessageStatus delivered is "delivered", undelivered
 * and failed are "failed" with the error "twilio_<ErrorCode>" (else the
 * status), canceled is "failed" with "canceled"; accepted, scheduled,
 * queued, sending and sent are steps on the way (status NULL).  400
 * parameter_invalid for a form that cannot be read, a MessageSid that
 * is not "SM" or "MM" and 32 hex digits, or another MessageStatus.
 */
enum fb_err	twilio_receipt(struct req *, struct receipt *out);

#define TWILIO_SIGNATURE_LEN	28	/* base64 of the 20 bytes of SHA-1 */
#define TWILIO_PARAMS_MAX	64	/* a callback's form fields, at most */

/* One field of a form, decoded. */
struct form_field {
	const char	*name;
	const char	*value;
};

/*
 * Twilio's request signature (Twilio, "Webhooks security"): the standard
 * base64 (padded) of HMAC-SHA1 under `token` over `url` (the URL Twilio
 * posted to, exactly as it was given to Twilio, query included) followed
 * by each of the n fields f, sorted by name (bytewise; equal names by
 * value), name then value with nothing between.  Into out, NUL-ended.
 * f is sorted in place.  False only when memory runs out.
 */
bool	twilio_signature(const char *token, const char *url,
	    struct form_field *f, size_t n, char out[TWILIO_SIGNATURE_LEN + 1])
	    FB_WUR;

#endif
