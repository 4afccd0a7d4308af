/*
 * uuid.c, time.c, b64.c, keys.c, scope.c, page.c cursors, body.c utf8, jsonw.c.
 */
#include <sys/wait.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <sodium.h>

#include "../../src/api.h"
#include "../../src/csv.h"
#include "../../src/sanitize.h"
#include "../../src/session.h"

/* the 16 octets and the text, both ways (RFC 9562 section 4) */
Test(uuid, octets_both_ways)
{
	unsigned char	 b[16];
	char		 s[UUID_STRLEN + 1];

	cr_assert(uuid_to_bytes("0190A000-0000-7000-8000-00000000ABCD", b));
	cr_assert_eq(b[0], 0x01);
	cr_assert_eq(b[6], 0x70);
	cr_assert_eq(b[15], 0xcd);
	uuid_from_bytes(b, s);
	cr_assert_str_eq(s, "0190a000-0000-7000-8000-00000000abcd");
	cr_assert(!uuid_to_bytes("0190a000000070008000000000000abcd", b));
	cr_assert(!uuid_to_bytes("0190a000-0000-7000-8000-00000000abcx", b));
	cr_assert(!uuid_to_bytes("0190a000-0000-7000-8000-00000000abc", b));
}

Test(uuid, v7_shape_and_order)
{
	char	 a[UUID_STRLEN + 1], b[UUID_STRLEN + 1];

	uuid_v7(a);
	cr_assert(uuid_valid(a));
	cr_assert_eq(a[14], '7', "version nibble: %s", a);
	cr_assert(strchr("89ab", a[19]) != NULL, "variant: %s", a);
	usleep(2000);
	uuid_v7(b);
	cr_assert_lt(strcmp(a, b), 0, "time-ordered");
	/* strictly increasing within a process, even in one millisecond */
	{
		char	 p[UUID_STRLEN + 1], n[UUID_STRLEN + 1];
		int	 i;

		uuid_v7(p);
		for (i = 0; i < 10000; i++) {
			uuid_v7(n);
			cr_assert_lt(strcmp(p, n), 0, "%s then %s", p, n);
			memcpy(p, n, sizeof(p));
		}
	}
	/*
	 * one made in another process, then one here: in that order, also
	 * in one millisecond (two workers filing a visitor's events)
	 */
	{
		char	 c[UUID_STRLEN + 1], h[UUID_STRLEN + 1];
		int	 fd[2], i, st;
		pid_t	 pid;

		for (i = 0; i < 200; i++) {
			cr_assert_eq(pipe(fd), 0);
			if ((pid = fork()) == 0) {
				uuid_v7(c);
				_exit(write(fd[1], c,
				    sizeof(c)) == sizeof(c) ? 0 : 1);
			}
			cr_assert_eq(read(fd[0], c, sizeof(c)),
			    (ssize_t)sizeof(c));
			uuid_v7(h);
			close(fd[0]);
			close(fd[1]);
			cr_assert_eq(waitpid(pid, &st, 0), pid);
			cr_assert_lt(strcmp(c, h), 0,
			    "%s (another process) then %s", c, h);
		}
	}
	cr_assert(!uuid_valid("0190000000007000800000000000000000"));
	cr_assert(!uuid_valid("01900000-0000-7000-8000-00000000000g"));
	cr_assert(!uuid_valid(""));
	cr_assert(uuid_valid("01900000-0000-7000-8000-00000000000A"));
}

Test(time, iso8601_round_trip_and_offsets)
{
	int64_t	 t;
	char	 s[32];

	cr_assert(time_parse_iso8601("2026-11-22T00:00:00Z", &t));
	time_iso8601(t, s);
	cr_assert_str_eq(s, "2026-11-22T00:00:00Z");
	cr_assert(time_parse_iso8601("2026-11-22T09:00:00+09:00", &t));
	time_iso8601(t, s);
	cr_assert_str_eq(s, "2026-11-22T00:00:00Z");
	cr_assert(time_parse_iso8601("2024-02-29T12:30:15.123Z", &t));
	cr_assert(!time_parse_iso8601("2023-02-29T00:00:00Z", &t));
	cr_assert(!time_parse_iso8601("2026-11-22T00:00:00", &t));
	cr_assert(!time_parse_iso8601("2026-11-22", &t));
	cr_assert(!time_parse_iso8601("2026-13-01T00:00:00Z", &t));
	cr_assert(!time_parse_iso8601("2026-11-22T24:00:00Z", &t));
	cr_assert(!time_parse_iso8601("2026-11-22T00:00:00+0900", &t));
}

Test(keys, generate_shape_and_hash)
{
	char		 k[APIKEY_MAX_LEN + 1];
	bool		 test;
	unsigned char	 h1[SECRET_HASH_LEN], h2[SECRET_HASH_LEN];

	cr_assert_eq(sodium_init() >= 0, 1);
	apikey_generate(false, k);
	cr_assert_eq(strlen(k), 8 + APIKEY_RANDOM_LEN);
	cr_assert(apikey_shape_ok(k, &test));
	cr_assert(!test);
	secret_hash(k, h1);
	secret_hash(k, h2);
	cr_assert_eq(memcmp(h1, h2, sizeof(h1)), 0);
	apikey_generate(true, k);
	cr_assert(apikey_shape_ok(k, &test));
	cr_assert(test);
	cr_assert(!apikey_shape_ok("fb_live_short", &test));
	cr_assert(!apikey_shape_ok("svc_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	    &test));
	cr_assert(!apikey_shape_ok("fb_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA-",
	    &test));
}

/*
 * Every character of the alphabet, each as often as the others: 620,000
 * draws, 10,000 expected of each (sd 99); a plain `byte % 62` would give
 * the first eight about 12,100 and the rest 9,700.
 */
Test(keys, random_b62_uniform)
{
	static const char abc[] =
	    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	static char	 s[1100];
	long		 count[62] = { 0 };
	const char	*p;
	size_t		 i, k, n;

	cr_assert_eq(sodium_init() >= 0, 1);
	s[0] = 'x';
	random_b62(s, 0);
	cr_assert_eq(s[0], '\0');
	for (k = 0, n = 1; k < 620000; k += n, n = n % 1000 + 37) {
		if (n > 620000 - k)
			n = 620000 - k;
		memset(s, 0x7f, sizeof(s));
		random_b62(s, n);
		cr_assert_eq(strlen(s), n);
		for (i = 0; i < n; i++) {
			cr_assert_not_null(p = strchr(abc, s[i]));
			count[p - abc]++;
		}
	}
	for (i = 0; i < 62; i++)
		cr_assert(count[i] > 9400 && count[i] < 10600,
		    "'%c' drawn %ld times of 620,000", abc[i], count[i]);
}

Test(scope, parse_format_and_cover)
{
	uint32_t	 b;
	struct buf	 s;

	cr_assert(scope_parse("all", &b));
	cr_assert_eq(b, SCOPES_ALL);
	cr_assert(scope_parse("sites:read,campaigns:write", &b));
	cr_assert_eq(b,
	    SCOPE_BIT(SC_SITES_READ) | SCOPE_BIT(SC_CAMPAIGNS_WRITE));
	cr_assert(!scope_parse("sites:read,", &b));
	cr_assert(!scope_parse("sites:readx", &b));
	cr_assert(!scope_parse("", &b));
	buf_init(&s, 256);
	cr_assert_eq(scope_format(SCOPE_BIT(SC_SITES_READ) |
	    SCOPE_BIT(SC_CAMPAIGNS_WRITE), &s), FB_OK);
	cr_assert_str_eq(s.data, "campaigns:write,sites:read");
	buf_release(&s);
	/* contract: Authentication 8, every scope of a multi-scope operation */
	b = SCOPE_BIT(SC_CAMPAIGNS_WRITE) | SCOPE_BIT(SC_MESSAGES_WRITE);
	cr_assert(!scope_covers(b, b | SCOPE_BIT(SC_SCENARIOS_WRITE)));
	cr_assert(scope_covers(b | SCOPE_BIT(SC_SCENARIOS_WRITE), b));
	cr_assert(scope_covers(b, 0));
}

Test(cursor, round_trip_and_refusals)
{
	unsigned char	 mk[32], other[32];
	char		 cur[128], id[UUID_STRLEN + 1];
	const char	*uid = "01900000-0000-7000-8000-0000000000ab";

	randombytes_buf(mk, sizeof(mk));
	randombytes_buf(other, sizeof(other));
	cursor_encode(mk, "listSites", uid, cur, sizeof(cur));
	cr_assert(cursor_decode(mk, "listSites", cur, id));
	cr_assert_str_eq(id, uid);
	cr_assert(!cursor_decode(mk, "listCampaigns", cur, id), "other list");
	cr_assert(!cursor_decode(other, "listSites", cur, id), "other key");
	cur[3] = cur[3] == 'A' ? 'B' : 'A';
	cr_assert(!cursor_decode(mk, "listSites", cur, id), "tampered");
	cr_assert(!cursor_decode(mk, "listSites", "", id));
	cr_assert(!cursor_decode(mk, "listSites", "!!!!", id));
}

Test(b64, url_safe_no_padding)
{
	char		 out[16];
	unsigned char	 back[16];

	b64url_encode((const unsigned char *)"\xfb\xff", 2, out);
	cr_assert_str_eq(out, "-_8");
	cr_assert_eq(b64url_decode(out, back, sizeof(back)), 2);
	cr_assert_eq(b64url_decode("a=", back, sizeof(back)), -1);
}

Test(utf8, length_and_validation)
{
	cr_assert_eq(utf8_len("abc"), 3);
	cr_assert_eq(utf8_len("春のキャンペーン"), 8);
	cr_assert_eq(utf8_len("😀"), 1);
	cr_assert_eq(utf8_len("\xc0\xaf"), -1);	/* overlong */
	cr_assert_eq(utf8_len("\xed\xa0\x80"), -1);	/* surrogate */
	cr_assert_eq(utf8_len("\xe3\x81"), -1);	/* truncated */
}

/*
 * jsonw.c: timestamps as the client library writes DATETIMEs, to the contract's
 * form.
 */
Test(jsonw, time_from_datetime)
{
	json_object	*o = json_object_new_object();

	jadd_time(o, "a", "2026-11-22 05:09:14.123456");
	jadd_time(o, "b", "2026-11-22 05:09:14");
	jadd_time(o, "c", "2026-11-22T05:09:14Z");
	jadd_time(o, "d", NULL);
	cr_assert_str_eq(json_text(o), "{\"a\":\"2026-11-22T05:09:14Z\","
	    "\"b\":\"2026-11-22T05:09:14Z\",\"c\":\"2026-11-22T05:09:14Z\","
	    "\"d\":null}");
	json_object_put(o);
}

/* json_parse_object() refuses each of bad[0..nbad) and takes good[0..ngood). */
static void
parse_cases(const char *const *bad, size_t nbad, const char *const *good,
    size_t ngood)
{
	json_object	*o;
	size_t		 i;

	for (i = 0; i < nbad; i++)
		cr_assert_null(json_parse_object(bad[i], strlen(bad[i]), 8),
		    "%s", bad[i]);
	for (i = 0; i < ngood; i++) {
		cr_assert_not_null(o = json_parse_object(good[i],
		    strlen(good[i]), 8),
		    "%s", good[i]);
		json_object_put(o);
	}
}

/* an escaped surrogate outside a pair is no character (RFC 8259 8.2) */
Test(jsonw, parse_refuses_lone_surrogates)
{
	static const char *const bad[] = {
		"{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00\"}",
		"{\"a\":\"x\\uDBFFy\"}",
		"{\"a\":\"\\ud800\\u0041\"}", "{\"a\":\"\\ud800\\n\"}",
		"{\"a\":\"\\ude00\\ud83d\"}", "{\"\\ud800\":1}",
	};
	static const char *const good[] = {
		"{\"a\":\"\\ud83d\\ude00\"}", "{\"a\":\"\\uD83D\\uDE00 "
		"\\u00e9\"}",
		"{\"a\":\"\\\\ud800\"}", "{\"a\":\"\\ufffd\"}",
		"{\"a\":\"\\\"\\\\\"}",
	};

	parse_cases(bad, sizeof(bad) / sizeof(bad[0]), good,
	    sizeof(good) / sizeof(good[0]));
}

/*
 * NaN and Infinity are no JSON (RFC 8259 6), though json-c takes them; a
 * number past a double's range is refused too (RFC 8259 9).
 */
Test(jsonw, parse_refuses_numbers_that_are_no_json)
{
	static const char *const bad[] = {
		"{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":-Infinity}",
		"{\"a\":[1,NaN]}", "{\"a\":{\"b\":{\"c\":Infinity}}}",
		"{\"a\":1e400}", "{\"a\":-1e309}",
	};
	static const char *const good[] = {
		"{\"a\":1.5e308}", "{\"a\":-0}", "{\"a\":1e-400}",
		"{\"a\":[0.1,{\"b\":-2.5E10}]}", "{\"a\":\"NaN\"}",
	};

	parse_cases(bad, sizeof(bad) / sizeof(bad[0]), good,
	    sizeof(good) / sizeof(good[0]));
}

/* jsonw.c: the streaming writer writes what json-c would, value by value. */
Test(jsonw, generator)
{
	struct jgen	 j;
	struct buf	 b;
	json_object	*o = json_tokener_parse("{\"x\":[1,2.5,\"y\"],"
	    "\"z\":{}}");

	buf_init(&b, 1 << 16);
	jgen_begin(&j, &b);
	jg_obj(&j, NULL);
	jg_str(&j, "a", "q\"\n/\xc3\xa9");
	jg_str(&j, "n", NULL);
	jg_int(&j, "i", -5);
	jg_bool(&j, "b", true);
	jg_time(&j, "t", "2026-11-22 05:09:14.123456");
	jg_arr(&j, "arr");
	jg_int(&j, NULL, 1);
	jg_obj(&j, NULL);
	jg_arr(&j, "k");
	jg_arr_end(&j);
	jg_obj_end(&j);
	jg_arr_end(&j);
	jg_json(&j, "o", o);
	jg_obj_end(&j);
	cr_assert_eq(jgen_end(&j), FB_OK);
	cr_assert_str_eq(b.data,
	    "{\"a\":\"q\\\"\\n/\xc3\xa9\",\"n\":null,\"i\":-5,"
	    "\"b\":true,\"t\":\"2026-11-22T05:09:14Z\",\"arr\":[1,{\"k\":[]}],"
	    "\"o\":{\"x\":[1,2.5,\"y\"],\"z\":{}}}");
	json_object_put(o);
	/* a call out of place, and a full buffer, stick */
	buf_reset(&b);
	jgen_begin(&j, &b);
	jg_obj_end(&j);
	jg_str(&j, NULL, "x");
	cr_assert_eq(jgen_end(&j), FB_EINVAL);
	buf_release(&b);
	buf_init(&b, 8);
	jgen_begin(&j, &b);
	jg_arr(&j, NULL);
	jg_str(&j, NULL, "longer than eight bytes");
	jg_arr_end(&j);
	cr_assert_eq(jgen_end(&j), FB_ENOMEM);
	buf_release(&b);
}

/* jsonw.c: escapes (RFC 8259 7), numbers, and calls out of place. */
Test(jsonw, generator_edges)
{
	struct jgen	 j;
	struct buf	 b;
	char		 s[300];
	int		 i, n;

	buf_init(&b, 1 << 16);
	jgen_begin(&j, &b);
	jg_arr(&j, NULL);
	jg_str(&j, NULL, "\x01\x1f\t\b\f\r\\\x7f");
	jg_int(&j, NULL, 0);
	jg_int(&j, NULL, -9223372036854775807LL - 1);
	jg_int(&j, NULL, 9223372036854775807LL);
	jg_number(&j, NULL, "0.1250");
	jg_bool(&j, NULL, false);
	jg_time(&j, NULL, NULL);
	jg_time(&j, NULL, "not a datetime");
	jg_obj(&j, NULL);
	jg_str(&j, "k\"ey", "");
	jg_obj_end(&j);
	jg_arr_end(&j);
	cr_assert_eq(jgen_end(&j), FB_OK);
	cr_assert_str_eq(b.data, "[\"\\u0001\\u001f\\t\\b\\f\\r\\\\\x7f\","
	    "0,-9223372036854775808,9223372036854775807,0.1250,false,null,"
	    "\"not a datetime\",{\"k\\\"ey\":\"\"}]");
	/* a string of escapes only grows the buffer as it goes */
	memset(s, '\n', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';
	buf_reset(&b);
	jgen_begin(&j, &b);
	jg_str(&j, NULL, s);
	cr_assert_eq(jgen_end(&j), FB_OK);
	cr_assert_eq(b.len, 2 + 2 * (sizeof(s) - 1));
	cr_assert_eq(strlen(b.data), b.len);
	/*
	 * an escape at each place of strings of every length up to three
	 * blocks of 16 (whole blocks and the overlapping last one; the two
	 * words, the two halves and the three bytes of a shorter one), among
	 * UTF-8 bytes
	 */
	for (n = 1; n <= 48; n++)
		for (i = 0; i < n; i++) {
			char	 in[49], want[64];

			memset(in, 'a', (size_t)n);
			if (n >= 7)
				memcpy(in + 4, "\xe3\x81\x82", 3);
			in[n] = '\0';
			in[i] = "\"\\\x1f"[(i + n) % 3];
			snprintf(want, sizeof(want), "\"%.*s%s%s\"", i, in,
			    (i + n) % 3 == 2 ? "\\u001f" : (i + n) % 3 == 1 ?
			    "\\\\" : "\\\"", in + i + 1);
			buf_reset(&b);
			jgen_begin(&j, &b);
			jg_str(&j, NULL, in);
			cr_assert_eq(jgen_end(&j), FB_OK);
			cr_assert_str_eq(b.data, want, "length %d, at %d", n,
			    i);
		}
	/* out of place: a key in an array, none in an object, two values */
	buf_reset(&b);
	jgen_begin(&j, &b);
	jg_arr(&j, NULL);
	jg_int(&j, "k", 1);
	cr_assert_eq(jgen_end(&j), FB_EINVAL);
	buf_reset(&b);
	jgen_begin(&j, &b);
	jg_obj(&j, NULL);
	jg_int(&j, NULL, 1);
	cr_assert_eq(jgen_end(&j), FB_EINVAL);
	buf_reset(&b);
	jgen_begin(&j, &b);
	jg_int(&j, NULL, 1);
	jg_int(&j, NULL, 2);
	cr_assert_eq(jgen_end(&j), FB_EINVAL);
	/* an array closed as an object; a document left open; none at all */
	buf_reset(&b);
	jgen_begin(&j, &b);
	jg_arr(&j, NULL);
	jg_obj_end(&j);
	cr_assert_eq(jgen_end(&j), FB_EINVAL);
	buf_reset(&b);
	jgen_begin(&j, &b);
	jg_obj(&j, NULL);
	cr_assert_eq(jgen_end(&j), FB_EINVAL);
	jgen_begin(&j, &b);
	cr_assert_eq(jgen_end(&j), FB_EINVAL);
	/* nesting: JGEN_DEPTH_MAX levels, not one more */
	buf_reset(&b);
	jgen_begin(&j, &b);
	for (i = 0; i < JGEN_DEPTH_MAX; i++)
		jg_arr(&j, NULL);
	for (i = 0; i < JGEN_DEPTH_MAX; i++)
		jg_arr_end(&j);
	cr_assert_eq(jgen_end(&j), FB_OK);
	buf_reset(&b);
	jgen_begin(&j, &b);
	for (i = 0; i <= JGEN_DEPTH_MAX; i++)
		jg_arr(&j, NULL);
	cr_assert_eq(jgen_end(&j), FB_EINVAL);
	/* the cap reached inside an escaped string */
	buf_release(&b);
	buf_init(&b, 40);
	jgen_begin(&j, &b);
	jg_str(&j, NULL, s);
	cr_assert_eq(jgen_end(&j), FB_ENOMEM);
	buf_release(&b);
}

/* text.c: FNV-1a, the published 32-bit test vectors. */
Test(text, fnv1a)
{
	cr_assert_eq(fnv1a(FNV1A_INIT, ""), 0x811c9dc5u);
	cr_assert_eq(fnv1a(FNV1A_INIT, "a"), 0xe40c292cu);
	cr_assert_eq(fnv1a(FNV1A_INIT, "foobar"), 0xbf9cf968u);
	cr_assert_eq(fnv1a(fnv1a(FNV1A_INIT, "foo"), "bar"), 0xbf9cf968u);
}

/* body.c: identifiers before SQL (issue 11). */
Test(body, ident_ok)
{
	cr_assert(ident_ok("spring-2026_A", 64));
	cr_assert_not(ident_ok("", 64));
	cr_assert_not(ident_ok("\xe2\x80\x99", 64));
	cr_assert_not(ident_ok("pk_\xc3\xa9", 32));
	cr_assert_not(ident_ok("a b", 64));
	cr_assert_not(ident_ok("abcd", 3));
}

Test(sessions, roles_passwords_cookies_and_origin)
{
	struct conf	 c;
	char		 tok[TOKEN_LEN + 1], got[TOKEN_LEN + 1];
	char		 csrf[CSRF_TOKEN_LEN + 1], hdr[256];
	char		 h[PASSWORD_HASH_MAX], e[MEMBER_EMAIL_MAX + 1];

	/* roles: each a superset of the one below; no key scope gives a role */
	cr_assert_eq(role_scopes("viewer"), SCOPES_READ);
	cr_assert_eq(role_scopes("member") & SCOPE_BIT(SC_WEBHOOKS_WRITE), 0);
	cr_assert_eq(role_scopes("member") & SCOPES_READ, SCOPES_READ);
	cr_assert_eq(role_scopes("admin") & ROLE_OWNER, 0);
	cr_assert_neq(role_scopes("admin") & ROLE_ADMIN, 0);
	cr_assert_eq(role_scopes("owner") & (ROLE_ADMIN | ROLE_OWNER),
	    ROLE_ADMIN | ROLE_OWNER);
	cr_assert_eq(role_scopes("root"), 0);
	cr_assert_eq(SCOPES_ALL & (ROLE_ADMIN | ROLE_OWNER), 0);

	/*
	 * password rule: 12 characters (not bytes), no control, not the address
	 */
	cr_assert(password_acceptable("パスワードは十二文字以上です", "a@b.jp"));
	cr_assert_not(password_acceptable("パスワード", "a@b.jp"));
	cr_assert_not(password_acceptable("short", NULL));
	cr_assert_not(password_acceptable("twelve chars\n ok", NULL));
	cr_assert_not(password_acceptable("Someone@Example.JP",
	    "someone@example.jp"));
	cr_assert_eq(password_hash("a long enough one", h), FB_OK);
	cr_assert(strncmp(h, "$argon2id$", 10) == 0);
	cr_assert(password_verify(h, "a long enough one"));
	cr_assert_not(password_verify(h, "a long enough two"));
	cr_assert_not(password_verify(NULL, "a long enough one"));

	cr_assert(member_email("Foo.Bar@Example.JP", e));
	cr_assert_str_eq(e, "foo.bar@example.jp");
	cr_assert_not(member_email("no-at.example", e));
	cr_assert_not(member_email("a@b@c", e));
	cr_assert_not(member_email("a b@c.jp", e));
	cr_assert_not(member_email("@c.jp", e));
	/* as contacts are: one spelling of an internationalised domain */
	cr_assert(member_email("Owner@例え.JP", e));
	cr_assert_str_eq(e, "owner@xn--r8jz45g.jp");
	cr_assert(member_email("OWNER@XN--R8JZ45G.jp", e));
	cr_assert_str_eq(e, "owner@xn--r8jz45g.jp");

	/* tokens, the cookie header and the CSRF token bound to the session */
	token_generate("fbs_", tok);
	cr_assert_eq(strlen(tok), TOKEN_LEN);
	cr_assert(token_shape_ok(tok, "fbs_"));
	cr_assert_not(token_shape_ok(tok, "fbi_"));
	snprintf(hdr, sizeof(hdr), "theme=dark; fb_session=%s; other=1", tok);
	cr_assert(session_cookie_get(hdr, "fb_session", got));
	cr_assert_str_eq(got, tok);
	cr_assert_not(session_cookie_get(hdr, "__Host-fb_session", got));
	cr_assert_not(session_cookie_get("fb_session=fbs_short", "fb_session",
	    got));
	snprintf(hdr, sizeof(hdr), "xfb_session=%s", tok);
	cr_assert_not(session_cookie_get(hdr, "fb_session", got));
	session_csrf(tok, csrf);
	cr_assert(session_csrf_ok(tok, csrf));
	cr_assert_not(session_csrf_ok(tok, NULL));
	token_generate("fbs_", got);
	cr_assert_not(session_csrf_ok(got, csrf));

	memset(&c, 0, sizeof(c));
	c.base_url = "https://app.formback.example/base";
	cr_assert_str_eq(session_cookie_name(&c), "__Host-fb_session");
	cr_assert(session_origin_ok(&c, "https://app.formback.example"));
	cr_assert(session_origin_ok(&c, "https://APP.formback.example"));
	cr_assert_not(session_origin_ok(&c, "http://app.formback.example"));
	cr_assert_not(session_origin_ok(&c,
	    "https://app.formback.example.evil"));
	cr_assert_not(session_origin_ok(&c,
	    "https://app.formback.example:444"));
	cr_assert_not(session_origin_ok(&c, NULL));
	c.base_url = "http://127.0.0.1:8080";
	cr_assert_str_eq(session_cookie_name(&c), "fb_session");
	cr_assert(session_origin_ok(&c, "http://127.0.0.1:8080"));
}

Test(csv, records_quotes_and_encodings)
{
	struct csv	*c = malloc(sizeof(*c));
	struct buf	 b;
	const char	*enc;
	const char	 s[] = "a,\"b,c\",\"d\"\"e\"\r\n"
	    "\"multi\nline\",\n\nlast";

	csv_init(c, s, sizeof(s) - 1);
	cr_assert_eq(csv_next(c), 1);
	cr_assert_eq(c->nfields, 3);
	cr_assert_str_eq(c->field[1], "b,c");
	cr_assert_str_eq(c->field[2], "d\"e");
	cr_assert_eq(csv_next(c), 1);
	cr_assert_str_eq(c->field[0], "multi\nline");
	cr_assert_str_eq(c->field[1], "");
	cr_assert_eq(csv_next(c), 1);
	cr_assert_eq(c->nfields, 1);
	cr_assert_str_eq(c->field[0], "");
	cr_assert_eq(csv_next(c), 1);
	cr_assert_str_eq(c->field[0], "last");
	cr_assert_eq(c->record, 4);
	cr_assert_eq(csv_next(c), 0);
	csv_init(c, "\"open", 5);
	cr_assert_eq(csv_next(c), -1);
	csv_init(c, "a\"b", 3);
	cr_assert_eq(csv_next(c), -1);
	csv_init(c, "\"a\"b", 4);
	cr_assert_eq(csv_next(c), -1);
	csv_init(c, ",,,,,,,,,,,,,,,,,", 17);
	cr_assert_eq(csv_next(c), -1);
	free(c);

	buf_init(&b, 1 << 16);
	cr_assert_eq(csv_text("\xef\xbb\xbf" "a,b", 6, &b, &enc), FB_OK);
	cr_assert_str_eq(enc, "utf-8-bom");
	cr_assert_str_eq(b.data, "a,b");
	buf_reset(&b);
	/* 電話 in Shift_JIS */
	cr_assert_eq(csv_text("\x93\x64\x98\x62", 4, &b, &enc), FB_OK);
	cr_assert_str_eq(enc, "shift_jis");
	cr_assert_str_eq(b.data, "電話");
	buf_reset(&b);
	cr_assert_eq(csv_text("\xff\xfe" "a\0", 4, &b, &enc), FB_EINVAL);
	buf_reset(&b);
	cr_assert_eq(csv_text("\xef\xbb\xbf\x93\x64", 5, &b, &enc), FB_EINVAL);
	buf_release(&b);
}

/* html_sanitize(in) as a string (static storage). */
static const char *
clean(const char *in)
{
	static char	 out[8192];
	struct buf	 b;

	buf_init(&b, 1 << 16);
	cr_assert_eq(html_sanitize(in, &b), FB_OK, "%s", in);
	snprintf(out, sizeof(out), "%s", b.data);
	buf_release(&b);
	return out;
}

Test(sanitize, allow_list_keeps_mail_html_and_nothing_that_runs)
{
	struct buf	 b;
	static const char *const hostile[] = {
		"<script>alert(1)</script>",
		"<img src=x onerror=alert(1)>",
		"<IMG SRC=\"javascript:alert(1)\">",
		"<a href=\"jav&#x61;script:alert(1)\">x</a>",
		"<a href=\"java\tscript:alert(1)\">x</a>",
		"<a href=\"  javascript:alert(1)\">x</a>",
		"<a href='data:text/html;base64,PHNjcmlwdD4='>x</a>",
		"<a href=\"vbscript:x\">x</a>",
		"<div style=\"background:url(javascript:alert(1))\">x</div>",
		"<div style=\"width: expression(alert(1))\">x</div>",
		"<div style=\"x:\\65xpression(1)\">x</div>",
		"<svg onload=alert(1)><script>alert(1)</script></svg>",
		"<iframe src=\"https://evil.example\"></iframe>",
		"<style>body{background:url(https://evil.example/x)}</style>",
		"<body onload=alert(1)>",
		"<p onclick=\"alert(1)\" title=\"t\">p</p>",
		"<<script>alert(1)//<</script>",
		"<a href=\"https://ok.example/\" onmouseover=alert(1)>x</a>",
		"<form action=\"https://evil.example\"><input name=a></form>",
		"<meta http-equiv=\"refresh\" "
		    "content=\"0;url=https://evil.example\">",
		"<base href=\"https://evil.example/\">",
		"<!--<script>alert(1)</script>-->",
		"<scr<script>ipt>alert(1)</script>",
		"<img src=\"https://ok.example/a.png\" alt=\"a\" "
		    "onerror=\"alert(1)\"",
		NULL
	};
	const char	*c;
	size_t		 i;

	for (i = 0; hostile[i] != NULL; i++) {
		c = clean(hostile[i]);
		cr_assert_null(strcasestr(c, "<script"), "%s -> %s", hostile[i],
		    c);
		cr_assert_null(strcasestr(c, "javascript:"), "%s -> %s",
		    hostile[i], c);
		cr_assert_null(strcasestr(c, "onerror"), "%s -> %s", hostile[i],
		    c);
		cr_assert_null(strcasestr(c, "onload"), "%s -> %s", hostile[i],
		    c);
		cr_assert_null(strcasestr(c, "onclick"), "%s -> %s", hostile[i],
		    c);
		cr_assert_null(strcasestr(c, "onmouseover"), "%s -> %s",
		    hostile[i], c);
		cr_assert_null(strcasestr(c, "expression"), "%s -> %s",
		    hostile[i], c);
		cr_assert_null(strcasestr(c, "<iframe"), "%s -> %s", hostile[i],
		    c);
		cr_assert_null(strcasestr(c, "<style"), "%s -> %s", hostile[i],
		    c);
		cr_assert_null(strcasestr(c, "<form"), "%s -> %s", hostile[i],
		    c);
		cr_assert_null(strcasestr(c, "<meta"), "%s -> %s", hostile[i],
		    c);
		cr_assert_null(strcasestr(c, "<base"), "%s -> %s", hostile[i],
		    c);
		cr_assert_null(strcasestr(c, "data:"), "%s -> %s", hostile[i],
		    c);
		cr_assert_null(strcasestr(c, "vbscript"), "%s -> %s",
		    hostile[i], c);
	}
	/* what mail needs stays, normalised */
	cr_assert_str_eq(clean("<P ALIGN=center "
	    "style='color:red'>お得な<B>情報</B>&amp; &copy; 1 < 2 & 3</P>"), "<p "
	    "align=\"center\" style=\"color:red\">お得な<b>情報</b>&amp; &copy; 1 "
	    "&lt; 2 &amp; 3</p>");
	cr_assert_str_eq(clean("<a href=\"{{link_url}}\" target=_blank>続き</a>"),
	    "<a href=\"{{link_url}}\">続き</a>");
	cr_assert_str_eq(clean("<a href=\"HTTPS://Shop.Example/a "
	    "b?q=1&amp;r=2\">x</a>"),
	    "<a href=\"https://shop.example/a%20b?q=1&amp;r=2\">x</a>");
	cr_assert_str_eq(clean("<img src=\"https://cdn.example/i.png\" "
	    "alt=\"商品\"><br/><hr></img>"),
	    "<img src=\"https://cdn.example/i.png\" alt=\"商品\"><br><hr>");
	cr_assert_str_eq(clean("<table border=0><tr><td "
	    "colspan=2>a</td></tr></table>"),
	    "<table border=\"0\"><tr><td colspan=\"2\">a</td></tr></table>");
	cr_assert_str_eq(clean("a<script>b</script>c<custom x=1>d</custom>"),
	    "acd");
	cr_assert_str_eq(clean("<p>unclosed <a href=\"https://x.example/"),
	    "<p>unclosed ");
	buf_init(&b, 1 << 16);
	cr_assert_eq(html_sanitize("\xff\xfe", &b), FB_EINVAL);
	buf_release(&b);
}
