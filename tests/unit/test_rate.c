/* rate.c: the rate ring's window (contract: Limits; design 6). */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/db/store.h"

/* A ring whose slot i holds v[i] (61 values). */
static void
mkring(char out[RATE_RING_LEN + 1], const long long *v)
{
	int	 i;

	for (i = 0; i < RATE_SLOTS; i++)
		snprintf(out + i * RATE_DIGITS, RATE_DIGITS + 1, "%012lld",
		    v[i]);
}

Test(rate, empty_ring)
{
	char		 ring[RATE_RING_LEN + 1];
	long long	 v[RATE_SLOTS] = { 0 }, count, oldest;

	mkring(ring, v);
	rate_window(ring, 0, 0, 1795000000, &count, &oldest);
	cr_assert_eq(count, 0);
	cr_assert_eq(oldest, 0);
}

Test(rate, window_and_oldest)
{
	char		 ring[RATE_RING_LEN + 1];
	long long	 v[RATE_SLOTS], count, oldest, base = 1000;
	int		 i;

	/* 5 requests at second base-30, 2 at base */
	for (i = 0; i < RATE_SLOTS; i++)
		v[i] = i >= 30 ? (i == 60 ? 7 : 5) : 0;
	mkring(ring, v);
	rate_window(ring, base, 7, base, &count, &oldest);
	cr_assert_eq(count, 7);
	cr_assert_eq(oldest, base - 30);
	/* 29 seconds later the first five are still in */
	rate_window(ring, base, 7, base + 29, &count, &oldest);
	cr_assert_eq(count, 7);
	cr_assert_eq(oldest, base - 30);
	/* 30 seconds later they have left: only the two of base remain */
	rate_window(ring, base, 7, base + 30, &count, &oldest);
	cr_assert_eq(count, 2);
	cr_assert_eq(oldest, base);
	rate_window(ring, base, 7, base + 59, &count, &oldest);
	cr_assert_eq(count, 2);
	rate_window(ring, base, 7, base + 60, &count, &oldest);
	cr_assert_eq(count, 0);
	cr_assert_eq(oldest, 0);
	rate_window(ring, base, 7, base + 100000, &count, &oldest);
	cr_assert_eq(count, 0);
	/* a clock behind base reads the ring as it is */
	rate_window(ring, base, 7, base - 5, &count, &oldest);
	cr_assert_eq(count, 7);
}

Test(rate, malformed_ring_counts_nothing)
{
	long long	 count, oldest;

	rate_window("123", 0, 5, 10, &count, &oldest);
	cr_assert_eq(count, 0);
	rate_window(NULL, 0, 5, 10, &count, &oldest);
	cr_assert_eq(count, 0);
}
