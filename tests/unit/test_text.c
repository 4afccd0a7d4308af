/*
 * The rules of text.c, time.c, sms_quiet_until() and mail_subject(),
 * tested directly (issue 12).
 */
#include <sys/types.h>

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <sodium.h>

#include "formback.h"
#include "send.h"
#include "message.h"

Test(text, clip_keeps_whole_characters)
{
	char	 out[16];

	text_clip("abcdef", 3, out, sizeof(out));
	cr_assert_str_eq(out, "abc");
	/* characters, not bytes: three of 3 bytes each */
	text_clip("ご案内です", 3, out, sizeof(out));
	cr_assert_str_eq(out, "ご案内");
	/* a buffer too small for the next character ends before it */
	text_clip("ご案内", 3, out, 8);
	cr_assert_str_eq(out, "ご案");
	/* controls and invalid bytes are '?', never cut into */
	text_clip("a\r\nb\x01\xff" "c", 10, out, sizeof(out));
	cr_assert_str_eq(out, "a??b??c");
	text_clip("\xc2\x85x", 10, out, sizeof(out));	/* C1 control NEL */
	cr_assert_str_eq(out, "?x");
	text_clip("", 5, out, sizeof(out));
	cr_assert_str_eq(out, "");
}

Test(text, blank)
{
	cr_assert(text_blank(""));
	cr_assert(text_blank(" \t\r\n"));
	cr_assert(text_blank("\xe3\x80\x80 \xe3\x80\x80"));	/* U+3000 */
	cr_assert_not(text_blank(" a "));
	cr_assert_not(text_blank("\xe3\x81\x82"));
}

Test(text, line)
{
	cr_assert(text_line(""));
	cr_assert(text_line("秋のキャンペーン 2026"));
	cr_assert_not(text_line("a\nb"));
	cr_assert_not(text_line("a\rb"));
	cr_assert_not(text_line("a\tb"));
	cr_assert_not(text_line("a\x7f"));
}

/* Response splitting and header injection (issue 11; CWE-113, CWE-93). */
Test(text, header_refuses_control_characters)
{
	cr_assert(header_ok("Location", "https://a.jp/x?y=1#z"));
	cr_assert(header_ok("Content-Security-Policy",
	    "default-src 'none';\tx"));
	cr_assert_not(header_ok("Location",
	    "https://a.jp/\r\nSet-Cookie: a=b"));
	cr_assert_not(header_ok("Location", "https://a.jp/\nx"));
	cr_assert_not(header_ok("Location", "https://a.jp/\rx"));
	cr_assert_not(header_ok("X", "a\x01" "b"));
	cr_assert_not(header_ok("X", "a\x7f"));
	cr_assert_not(header_ok("X", "\xc3\xa9"));
	cr_assert_not(header_ok("X-A\r\nB", "v"));
	cr_assert_not(header_ok("X A", "v"));
	cr_assert_not(header_ok("", "v"));
}

/* JST is UTC+9 all year: the day and the month turn at 15:00 UTC. */
Test(time, jst_day_and_month)
{
	int64_t	 t, mid;
	char	 m[8];

	cr_assert(time_parse_iso8601("2026-11-30T14:59:59Z", &t));
	time_jst_month(t, m);
	cr_assert_str_eq(m, "2026-11");
	cr_assert(time_parse_iso8601("2026-11-30T15:00:00Z", &t));
	time_jst_month(t, m);
	cr_assert_str_eq(m, "2026-12");
	cr_assert(time_parse_iso8601("2026-12-31T15:00:00Z", &t));
	time_jst_month(t, m);
	cr_assert_str_eq(m, "2027-01");
	/* midnight JST of 2026-11-25 is 2026-11-24T15:00Z */
	cr_assert(time_parse_iso8601("2026-11-24T15:00:00Z", &mid));
	cr_assert(time_parse_iso8601("2026-11-25T03:04:05Z", &t));
	cr_assert_eq(time_jst_midnight(t), mid);
	cr_assert(time_parse_iso8601("2026-11-24T14:59:59Z", &t));
	cr_assert_eq(time_jst_midnight(t), mid - 86400);
}

/* Quiet hours: a window in a day, one across midnight, none. */
Test(sms, quiet_until)
{
	int64_t	 day, t;

	/* 2026-11-25 00:00 JST */
	cr_assert(time_parse_iso8601("2026-11-24T15:00:00Z", &day));
	/* 21:00-08:00: at 22:00 it ends tomorrow 08:00, at 02:00 today 08:00 */
	t = day + 22 * 3600;
	cr_assert_eq(sms_quiet_until(t, 21 * 60, 8 * 60),
	    day + 86400 + 8 * 3600);
	t = day + 2 * 3600;
	cr_assert_eq(sms_quiet_until(t, 21 * 60, 8 * 60), day + 8 * 3600);
	t = day + 8 * 3600;	/* the end is not quiet */
	cr_assert_eq(sms_quiet_until(t, 21 * 60, 8 * 60), 0);
	t = day + 21 * 3600;	/* the start is */
	cr_assert_neq(sms_quiet_until(t, 21 * 60, 8 * 60), 0);
	/* 12:00-13:00 */
	t = day + 12 * 3600 + 1800;
	cr_assert_eq(sms_quiet_until(t, 12 * 60, 13 * 60), day + 13 * 3600);
	cr_assert_eq(sms_quiet_until(day + 14 * 3600, 12 * 60, 13 * 60), 0);
	/* start == end: no window */
	cr_assert_eq(sms_quiet_until(t, 600, 600), 0);
}

/* Decode one "=?UTF-8?B?...?=" word into out; its length, or -1. */
static int
word_decode(const char *w, size_t len, unsigned char *out, size_t outsz)
{
	size_t	 n;

	if (len < 12 || strncmp(w, "=?UTF-8?B?", 10) != 0 ||
	    strncmp(w + len - 2, "?=", 2) != 0 ||
	    sodium_base642bin(out, outsz, w + 10, len - 12, NULL, &n, NULL,
	    sodium_base64_VARIANT_ORIGINAL) != 0)
		return -1;
	return (int)n;
}

/*
 * RFC 2047: words of at most 75 characters, each holding whole UTF-8
 * characters, lines of at most 76 with "Subject: ", decoding back to
 * the subject.
 */
Test(mail, subject_words)
{
	const char	*subj[] = { "", "a", "お手続きのご案内",
	    "éご案内😀aéご案内😀aéご案内😀aéご案内😀aéご案内😀aéご案内😀a"
	    "éご案内😀aéご案内😀aéご案内😀aéご案内😀aéご案内😀aéご案内😀a",
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx😀" };
	unsigned char	 part[128];
	char		 back[2048];
	const char	*p, *e;
	struct buf	 b;
	size_t		 i, n, line;
	int		 k;

	for (i = 0; i < sizeof(subj) / sizeof(subj[0]); i++) {
		buf_init(&b, 1 << 16);
		cr_assert(mail_subject(&b, subj[i]));
		back[0] = '\0';
		n = 0;
		for (p = b.data, line = 0; *p != '\0'; p = e, line++) {
			if (line > 0) {
				cr_assert_eq(strncmp(p, "\r\n ", 3), 0, "%s",
				    b.data);
				p += 3;
			}
			e = strstr(p, "\r\n");
			if (e == NULL)
				e = p + strlen(p);
			cr_assert_leq(e - p, 75, "a word of %zd",
			    (ssize_t)(e - p));
			cr_assert_leq((line == 0 ? 9 : 1) + (e - p), 76);
			k = word_decode(p, (size_t)(e - p), part, sizeof(part));
			cr_assert_geq(k, 1, "%.*s", (int)(e - p), p);
			/* whole characters: each word is valid UTF-8 alone */
			part[k] = '\0';
			cr_assert_geq(utf8_len((const char *)part), 0, "%s",
			    part);
			memcpy(back + n, part, (size_t)k);
			n += (size_t)k;
		}
		back[n] = '\0';
		cr_assert_str_eq(back, subj[i]);
		buf_release(&b);
	}
}
