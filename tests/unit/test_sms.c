/* sms.c: the carriers' worst case (70 / 67 / 660), variables, blocks. */
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/message.h"

static struct sms_count
count(const char *body)
{
	struct sms_count c;

	cr_assert(sms_count(body, "https://fb.example.jp", &c), "%s", body);
	return c;
}

static char *
rep(const char *unit, int n)
{
	static char	 b[8192];
	size_t		 l = strlen(unit);
	int		 i;

	for (i = 0; i < n; i++)
		memcpy(b + (size_t)i * l, unit, l);
	b[(size_t)n * l] = '\0';
	return b;
}

Test(sms, edges_70_71_660_661)
{
	cr_assert_eq(count(rep("あ", 70)).segments, 1);
	cr_assert_eq(count(rep("あ", 70)).characters, 70);
	cr_assert_eq(count(rep("あ", 71)).segments, 2);
	cr_assert_eq(count(rep("a", 134)).segments, 2);
	cr_assert_eq(count(rep("a", 135)).segments, 3);
	cr_assert_eq(count(rep("あ", 660)).characters, 660);
	cr_assert_eq(count(rep("あ", 660)).segments, 10);
	cr_assert_eq(count(rep("あ", 661)).characters, 661);
	cr_assert_eq(count("").segments, 0);
}

Test(sms, surrogate_pairs_and_half_width_kana)
{
	/* an emoji outside the BMP is two UCS-2 units */
	cr_assert_eq(count("😀").characters, 2);
	cr_assert_eq(count(rep("😀", 35)).segments, 1);
	cr_assert_eq(count(rep("😀", 36)).segments, 2);
	/* half-width kana: one unit each */
	cr_assert_eq(count("ｱｲｳｴｵ").characters, 5);
	cr_assert_eq(count(rep("ｶ", 70)).segments, 1);
}

Test(sms, variables_expand_to_fixed_lengths)
{
	/* https://fb.example.jp + /r/ + 10 = 34 */
	cr_assert_eq(count("{{link_url}}").characters, 34);
	cr_assert_eq(count("{{optout_url}}").characters, 34);
	cr_assert_eq(count("{{product_name}}").characters, 16);
	cr_assert_eq(count("x{{unknown}}").characters, 12);
	cr_assert_eq(count("{{link_url}}").raw, 12);
}

Test(sms, refuses_bad_utf8)
{
	struct sms_count c;

	cr_assert(!sms_count("\xff", "https://x", &c));
}

Test(blocks, escaping)
{
	json_object	*b = json_tokener_parse("[{\"type\":\"text\","
	    "\"text\":\"<script>alert(1)</script>\"},"
	    "{\"type\":\"button\",\"text\":\"\\\"><b>\","
	    "\"url\":\"https://x.jp/?a=1&b=2\"},"
	    "{\"type\":\"heading\",\"text\":\"{{product_name}}\"}]");
	struct buf	 h;
	char		 param[64];

	cr_assert(blocks_ok(b, param, sizeof(param)));
	buf_init(&h, 1 << 20);
	cr_assert_eq(blocks_html(b, "<i>美容液</i>", "L", "O", NULL, &h), FB_OK);
	cr_assert_null(strstr(h.data, "<script>"));
	cr_assert_not_null(strstr(h.data, "&lt;script&gt;"));
	cr_assert_null(strstr(h.data, "\"><b>"));
	cr_assert_not_null(strstr(h.data, "a=1&amp;b=2"));
	cr_assert_not_null(strstr(h.data, "&lt;i&gt;美容液"));
	buf_release(&h);
	json_object_put(b);
}

/* An email as sent ends with its opt-out link and open pixel, in the body. */
Test(blocks, footer)
{
	json_object	*b = json_tokener_parse("[{\"type\":\"text\","
	    "\"text\":\"x\"}]");
	struct buf	 h;
	const char	*foot;

	buf_init(&h, 1 << 20);
	cr_assert_eq(blocks_html(b, "P", "L", "https://f.jp/u/a\"b",
	    "https://f.jp/o/c",
	    &h), FB_OK);
	foot = strstr(h.data,
	    "<p style=\"font-size:small\">"
	    "<a href=\"https://f.jp/u/a&quot;b\">");
	cr_assert_not_null(foot, "%s", h.data);
	cr_assert_not_null(strstr(foot,
	    "<img src=\"https://f.jp/o/c\" width=\"1\""));
	cr_assert_str_eq(h.data + h.len - strlen("</body></html>"),
	    "</body></html>");
	buf_reset(&h);
	cr_assert_eq(blocks_html(b, "P", "L", "O", NULL, &h), FB_OK);
	cr_assert_null(strstr(h.data, "<img"), "a preview has no pixel");
	buf_release(&h);
	json_object_put(b);
}

Test(blocks, validation)
{
	char		 param[64];
	json_object	*b;

	b = json_tokener_parse("[{\"type\":\"video\"}]");
	cr_assert(!blocks_ok(b, param, sizeof(param)));
	cr_assert_str_eq(param, "blocks[0].type");
	json_object_put(b);
	b = json_tokener_parse("[{\"type\":\"button\","
	    "\"url\":\"javascript:alert(1)\"}]");
	cr_assert(!blocks_ok(b, param, sizeof(param)));
	cr_assert_str_eq(param, "blocks[0].url");
	json_object_put(b);
	b = json_tokener_parse("{}");
	cr_assert(!blocks_ok(b, param, sizeof(param)));
	json_object_put(b);
}
