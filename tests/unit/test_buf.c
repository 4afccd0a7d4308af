/* buf.c: the capped growable buffer (STYLE 8). */
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/formback.h"

Test(buf, add_and_printf)
{
	struct buf	 b;

	buf_init(&b, 1024);
	cr_assert_eq(buf_addstr(&b, "abc"), FB_OK);
	cr_assert_eq(buf_printf(&b, "-%d-%s", 42, "x"), FB_OK);
	cr_assert_str_eq(b.data, "abc-42-x");
	cr_assert_eq(b.len, 8);
	buf_reset(&b);
	cr_assert_eq(b.len, 0);
	cr_assert_str_eq(b.data, "");
	buf_release(&b);
	cr_assert_str_eq(b.data, "");
}

Test(buf, add_past_cap_fails_and_keeps_contents)
{
	struct buf	 b;
	char		 big[100];

	memset(big, 'x', sizeof(big));
	buf_init(&b, 10);
	cr_assert_eq(buf_addstr(&b, "12345"), FB_OK);
	cr_assert_eq(buf_add(&b, big, 6), FB_ENOMEM);
	cr_assert_str_eq(b.data, "12345");
	cr_assert_eq(buf_printf(&b, "%s", "abcdef"), FB_ENOMEM);
	cr_assert_str_eq(b.data, "12345");
	cr_assert_eq(buf_add(&b, big, 5), FB_OK);
	cr_assert_eq(b.len, 10);
	cr_assert_eq(buf_add(&b, "", 0), FB_OK);
	cr_assert_eq(buf_add(&b, "y", 1), FB_ENOMEM);
	buf_release(&b);
}

Test(buf, detach_hands_over_the_string)
{
	struct buf	 b;
	char		*s;

	buf_init(&b, 64);
	s = buf_detach(&b);
	cr_assert_str_eq(s, "");
	free(s);
	cr_assert_eq(buf_addstr(&b, "hello"), FB_OK);
	s = buf_detach(&b);
	cr_assert_str_eq(s, "hello");
	cr_assert_str_eq(b.data, "", "a detached buffer is empty again");
	free(s);
}

/* data is a string from the start: no caller guards it. */
Test(buf, empty_is_a_string)
{
	struct buf	 b;

	buf_init(&b, 64);
	cr_assert_str_eq(b.data, "");
	buf_reset(&b);
	cr_assert_str_eq(b.data, "");
	cr_assert_eq(buf_add(&b, "", 0), FB_OK);
	cr_assert_str_eq(b.data, "");
	buf_release(&b);
	cr_assert_str_eq(b.data, "");
	buf_release(&b);
}
