/*
 * What headers and paths carry: cursors, base64url, percent-decoding,
 * UUIDs, API keys, session and link tokens, the Cookie header, the
 * Origin check.
 */
#include "fuzz.h"
#include "req.h"
#include "session.h"
#include "url.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static const unsigned char mk[32] = { 9 };
	char		*s = fuzz_str(data, n), id[UUID_STRLEN + 1], out[1024];
	char		 tok[TOKEN_LEN + 1];
	unsigned char	 raw[1024];
	struct conf	 c;
	bool		 test;

	if (s == NULL)
		return 0;
	(void)cursor_decode(mk, "sites", s, id);
	(void)b64url_decode(s, raw, sizeof(raw));
	(void)pct_decode(s, strlen(s), PCT_PLUS, out, sizeof(out));
	if (uuid_valid(s) && strlen(s) != UUID_STRLEN)
		abort();
	(void)apikey_shape_ok(s, &test);
	(void)token_shape_ok(s, "fbs_");
	if (session_cookie_get(s, "fb_session", tok) &&
	    !token_shape_ok(tok, "fbs_"))
		abort();
	memset(&c, 0, sizeof(c));
	c.base_url = "https://app.example.jp";
	(void)session_origin_ok(&c, s);
	(void)session_csrf_ok("fbs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	    s);
	(void)header_ok("X-Test", s);
	free(s);
	return 0;
}
