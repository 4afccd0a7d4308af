/*
 * TOTP and HOTP against the RFCs' vectors (issue 43, item 4): RFC 4226
 * Appendix D, RFC 6238 Appendix B (SHA1, 8 digits), the replay guard,
 * base32 (RFC 4648 section 10) and recovery codes.
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/totp.h"

static const unsigned char rfc_key[] = "12345678901234567890";

Test(totp, rfc4226_appendix_d)
{
	static const long want[] = { 755224, 287082, 359152, 969429, 338314,
	    254676, 287922, 162583, 399871, 520489 };
	uint64_t	 i;

	for (i = 0; i < 10; i++)
		cr_assert_eq(hotp(rfc_key, 20, i, 6), want[i], "count %llu",
		    (unsigned long long)i);
}

Test(totp, rfc6238_appendix_b_sha1)
{
	static const struct { int64_t t; long code; } v[] = {
		{ 59, 94287082 }, { 1111111109, 7081804 },
		{ 1111111111, 14050471 }, { 1234567890, 89005924 },
		{ 2000000000, 69279037 }, { 20000000000LL, 65353130 },
	};
	size_t		 i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		cr_assert_eq(hotp(rfc_key, 20, (uint64_t)totp_step(v[i].t), 8),
		    v[i].code, "T=%lld", (long long)v[i].t);
		/* 6 digits are the last 6 of the 8 */
		cr_assert_eq(hotp(rfc_key, 20, (uint64_t)totp_step(v[i].t), 6),
		    v[i].code % 1000000);
	}
}

Test(totp, window_and_replay)
{
	int64_t		 now = 1111111111, at = totp_step(now), step;
	char		 c[48];

	snprintf(c, sizeof(c), "%06ld", hotp(rfc_key, 20, (uint64_t)at, 6));
	cr_assert(totp_check(rfc_key, 20, c, now, -1, &step));
	cr_assert_eq(step, at);
	/* the same code again: refused once its step was accepted */
	cr_assert_not(totp_check(rfc_key, 20, c, now, at, &step));
	/* one step either way is accepted, two are not */
	snprintf(c, sizeof(c), "%06ld", hotp(rfc_key, 20, (uint64_t)at + 1, 6));
	cr_assert(totp_check(rfc_key, 20, c, now, at, &step));
	cr_assert_eq(step, at + 1);
	snprintf(c, sizeof(c), "%06ld", hotp(rfc_key, 20, (uint64_t)at - 1, 6));
	cr_assert(totp_check(rfc_key, 20, c, now, -1, &step));
	cr_assert_not(totp_check(rfc_key, 20, c, now, at, &step));
	snprintf(c, sizeof(c), "%06ld", hotp(rfc_key, 20, (uint64_t)at + 2, 6));
	cr_assert_not(totp_check(rfc_key, 20, c, now, -1, &step));
	/* spaces between digits; anything else is no code */
	snprintf(c, sizeof(c), "%03ld %03ld", hotp(rfc_key, 20, (uint64_t)at,
	    6) / 1000, hotp(rfc_key, 20, (uint64_t)at, 6) % 1000);
	cr_assert(totp_check(rfc_key, 20, c, now, -1, &step));
	cr_assert_not(totp_check(rfc_key, 20, "12345", now, -1, &step));
	cr_assert_not(totp_check(rfc_key, 20, "1234567", now, -1, &step));
	cr_assert_not(totp_check(rfc_key, 20, "abcdef", now, -1, &step));
}

Test(totp, base32_rfc4648)
{
	static const struct { const char *in, *out; } v[] = {
		{ "", "" }, { "f", "MY" }, { "fo", "MZXQ" }, { "foo", "MZXW6" },
		{ "foob", "MZXW6YQ" }, { "fooba", "MZXW6YTB" },
		{ "foobar", "MZXW6YTBOI" },
	};
	char		 out[64];
	unsigned char	 back[64];
	size_t		 i;
	long		 n;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		base32_encode((const unsigned char *)v[i].in, strlen(v[i].in),
		    out, sizeof(out));
		cr_assert_str_eq(out, v[i].out);
		n = base32_decode(v[i].out, back, sizeof(back));
		cr_assert_eq(n, (long)strlen(v[i].in));
		cr_assert(memcmp(back, v[i].in, (size_t)n) == 0);
	}
	cr_assert_eq(base32_decode("mzxw6ytboi", back, sizeof(back)), 6);
	cr_assert_eq(base32_decode("MZ1", back, sizeof(back)), -1);
	cr_assert_eq(base32_decode("MZ", back, 0), -1);
	/* trailing bits set: not a canonical encoding */
	cr_assert_eq(base32_decode("MZ7", back, sizeof(back)), -1);
}

Test(totp, secret_uri_and_recovery_codes)
{
	char		 s[TOTP_SECRET_B32_LEN + 1], uri[TOTP_URI_MAX];
	char		 rc[RECOVERY_CODE_LEN + 1];
	char		 norm[RECOVERY_CODE_CHARS + 1];

	totp_secret_new(s);
	cr_assert_eq(strlen(s), 32);
	cr_assert(totp_uri("a+b@example.jp", "JBSWY3DPEHPK3PXP", uri));
	cr_assert_str_eq(uri, "otpauth://totp/Formback:a%2Bb%40example.jp?"
	    "secret=JBSWY3DPEHPK3PXP&issuer=Formback&algorithm=SHA1&"
	    "digits=6&period=30");
	recovery_code_new(rc);
	cr_assert_eq(strlen(rc), 11);
	cr_assert_eq(rc[5], '-');
	cr_assert(recovery_code_norm(rc, norm));
	cr_assert(recovery_code_norm("ABCDE FGHIJ", norm));
	cr_assert_str_eq(norm, "abcdefghij");
	cr_assert_not(recovery_code_norm("abcde-fghi", norm));
	cr_assert_not(recovery_code_norm("abcde-fghi1", norm));
}
