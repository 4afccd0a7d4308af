/* Passwords, the session cookie, its CSRF token and origin (session.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pii.h"
#include "req.h"
#include "session.h"

bool
member_email(const char *in, char out[MEMBER_EMAIL_MAX + 1])
{
	char		 norm[256];
	size_t		 i;

	/* at most 254 bytes (RFC 5321 4.5.3.1.3) */
	_Static_assert(MEMBER_EMAIL_MAX >= 254, "a normalised address fits");
	if (!contact_email_normalize(in, norm))
		return false;
	for (i = 0; norm[i] != '\0'; i++)
		out[i] = (char)tolower((unsigned char)norm[i]);
	out[i] = '\0';
	return true;
}

bool
password_acceptable(const char *pw, const char *email)
{
	const unsigned char *p;
	size_t		 n = strlen(pw);
	long		 chars;

	if (n > PASSWORD_MAX_BYTES ||
	    (chars = utf8_len(pw)) < PASSWORD_MIN_CHARS)
		return false;
	for (p = (const unsigned char *)pw; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return email == NULL || strcasecmp(pw, email) != 0;
}

enum fb_err
password_hash(const char *pw, char out[PASSWORD_HASH_MAX])
{
	if (crypto_pwhash_str(out, pw, strlen(pw),
	    crypto_pwhash_OPSLIMIT_INTERACTIVE,
	    crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0) {
		logx(LOG_ERR, "password hash: out of memory");
		return FB_ENOMEM;
	}
	return FB_OK;
}

bool
password_verify(const char *stored, const char *pw)
{
	static char	 dummy[PASSWORD_HASH_MAX];

	if (stored == NULL || strncmp(stored, "$argon2id$", 10) != 0) {
		/* the same work as a real check, whose answer is no */
		if (dummy[0] == '\0' &&
		    password_hash("formback: no such account", dummy) != FB_OK)
			return false;
		if (crypto_pwhash_str_verify(dummy, pw, strlen(pw)) == 0)
			logx(LOG_WARN,
			    "password check: the fixed hash matched");
		return false;
	}
	return crypto_pwhash_str_verify(stored, pw, strlen(pw)) == 0;
}

const char *
session_cookie_name(const struct conf *c)
{
	return strncmp(c->base_url, "https://", 8) == 0 ? "__Host-fb_session" :
	    "fb_session";
}

bool
session_cookie_get(const char *h, const char *name, char out[TOKEN_LEN + 1])
{
	size_t		 n = strlen(name), len;
	const char	*p, *v;

	for (p = h; p != NULL && *p != '\0'; ) {
		while (*p == ' ' || *p == ';')
			p++;
		if (strncmp(p, name, n) == 0 && p[n] == '=') {
			v = p + n + 1;
			len = strcspn(v, "; ");
			if (len == TOKEN_LEN) {
				memcpy(out, v, TOKEN_LEN);
				out[TOKEN_LEN] = '\0';
				if (token_shape_ok(out, "fbs_"))
					return true;
			}
		}
		if ((p = strchr(p, ';')) == NULL)
			break;
	}
	return false;
}

enum fb_err
session_cookie_set(struct req *r, const char *token)
{
	char		 v[256];
	bool		 tls = strncmp(r->conf->base_url, "https://", 8) == 0;

	snprintf(v, sizeof(v),
	    "%s=%s; Path=/; Max-Age=%d; HttpOnly; SameSite=Lax%s",
	    session_cookie_name(r->conf), token != NULL ? token : "",
	    token != NULL ? SESSION_MAX_SECONDS : 0, tls ? "; Secure" : "");
	return req_header(r, "Set-Cookie", v);
}

void
session_csrf(const char *token, char out[CSRF_TOKEN_LEN + 1])
{
	static const char label[] = "formback csrf v1";
	unsigned char	 mac[32];

	crypto_generichash(mac, sizeof(mac), (const unsigned char *)label,
	    sizeof(label) - 1, (const unsigned char *)token, strlen(token));
	b64url_encode(mac, sizeof(mac), out);
}

bool
session_csrf_ok(const char *token, const char *given)
{
	char	 want[CSRF_TOKEN_LEN + 1];

	if (given == NULL || strlen(given) != CSRF_TOKEN_LEN)
		return false;
	session_csrf(token, want);
	return sodium_memcmp(want, given, CSRF_TOKEN_LEN) == 0;
}

bool
session_origin_ok(const struct conf *c, const char *origin)
{
	const char	*b = c->base_url, *host;
	size_t		 n;

	if (origin == NULL || (host = strstr(b, "://")) == NULL)
		return false;
	/* the origin is base_url up to its path: scheme://host[:port] */
	n = (size_t)(host + 3 - b) + strcspn(host + 3, "/?#");
	return strlen(origin) == n && strncasecmp(origin, b, n) == 0;
}

const char *
device_cookie_name(const struct conf *c)
{
	return strncmp(c->base_url, "https://", 8) == 0 ? "__Host-fb_device" :
	    "fb_device";
}

/* The MAC of a device token for an address, base64url, into out. */
static void
device_mac(const unsigned char *key, const char *email, const char *tok,
    char out[44])
{
	static const char label[] = "formback device v1";
	crypto_generichash_state st;
	unsigned char	 mac[32];

	crypto_generichash_init(&st, key, 32, sizeof(mac));
	crypto_generichash_update(&st, (const unsigned char *)label,
	    sizeof(label));
	crypto_generichash_update(&st, (const unsigned char *)email,
	    strlen(email) + 1);
	crypto_generichash_update(&st, (const unsigned char *)tok, strlen(tok));
	crypto_generichash_final(&st, mac, sizeof(mac));
	b64url_encode(mac, sizeof(mac), out);
}

/*
 * A device cookie's MAC under either blind index slot's key (pii.h):
 * one signed before a re-key switched the slot in force still counts
 * while its key is in a slot.
 */
static bool
device_mac_ok(const struct bidx_keys *k, const char *email, const char *tok,
    const char *mac)
{
	char	 want[44];
	int	 s;

	for (s = 0; s < 2; s++) {
		if (k->k[s] == NULL)
			continue;
		device_mac(k->k[s], email, tok, want);
		if (sodium_memcmp(want, mac, 43) == 0)
			return true;
	}
	return false;
}

bool
device_cookie_ok(const struct conf *c, const char *h, const char *email,
    char tok[TOKEN_LEN + 1])
{
	const char	*name = device_cookie_name(c), *p, *v;
	size_t		 n = strlen(name);

	for (p = h; p != NULL && *p != '\0'; ) {
		while (*p == ' ' || *p == ';')
			p++;
		v = p + n + 1;
		if (strncmp(p, name, n) == 0 && p[n] == '=' &&
		    strcspn(v, "; ") == DEVICE_COOKIE_LEN &&
		    v[TOKEN_LEN] == '.') {
			memcpy(tok, v, TOKEN_LEN);
			tok[TOKEN_LEN] = '\0';
			if (token_shape_ok(tok, "fbd_") &&
			    device_mac_ok(bidx_cur(c), email, tok,
			    v + TOKEN_LEN + 1))
				return true;
		}
		if ((p = strchr(p, ';')) == NULL)
			break;
	}
	tok[0] = '\0';
	return false;
}

void
signin_subjects(const struct req *r, const char *email,
    unsigned char acct[SECRET_HASH_LEN], unsigned char addr[SECRET_HASH_LEN])
{
	char	 subject[320], dtok[TOKEN_LEN + 1];

	if (device_cookie_ok(r->conf, r->cookie, email, dtok))
		snprintf(subject, sizeof(subject), "device:%s", dtok);
	else
		snprintf(subject, sizeof(subject), "account:%s", email);
	secret_hash(subject, acct);
	snprintf(subject, sizeof(subject), "address:%s",
	    r->client_addr != NULL ? r->client_addr : "");
	secret_hash(subject, addr);
}

enum fb_err
device_cookie_set(struct req *r, const char *email)
{
	char		 tok[TOKEN_LEN + 1], mac[44], v[256];
	bool		 tls = strncmp(r->conf->base_url, "https://", 8) == 0;

	token_generate("fbd_", tok);
	device_mac(bidx_signing_key(bidx_cur(r->conf)), email, tok, mac);
	snprintf(v, sizeof(v), "%s=%s.%s; Path=/; Max-Age=%d; HttpOnly; "
	    "SameSite=Strict%s", device_cookie_name(r->conf), tok, mac,
	    DEVICE_COOKIE_DAYS * 86400, tls ? "; Secure" : "");
	return req_header(r, "Set-Cookie", v);
}
