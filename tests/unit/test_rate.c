/*
 * The rate limiter's ring (contract: Limits; design 6): a sliding log
 * exact to the second, with Reset when one more slot frees.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/store.h"

static unsigned char ring[480];

Test(rate, admits_limit_then_refuses)
{
	bool		 ok;
	int		 rem, i;
	long long	 reset, retry, now = 1795000000;

	memset(ring, 0, sizeof(ring));
	for (i = 0; i < 60; i++) {
		rate_ring_admit(ring, now, 60, &ok, &rem, &reset, &retry);
		cr_assert(ok, "request %d", i + 1);
		cr_assert_eq(rem, 59 - i);
		cr_assert_eq(reset, now + 60);
	}
	rate_ring_admit(ring, now, 60, &ok, &rem, &reset, &retry);
	cr_assert(!ok);
	cr_assert_eq(rem, 0);
	cr_assert_eq(reset, now + 60);
	cr_assert_eq(retry, 60);
	/* 59 seconds later still full; at +60 the first second frees */
	rate_ring_admit(ring, now + 59, 60, &ok, &rem, &reset, &retry);
	cr_assert(!ok);
	cr_assert_eq(retry, 1);
	rate_ring_admit(ring, now + 60, 60, &ok, &rem, &reset, &retry);
	cr_assert(ok);
	cr_assert_eq(rem, 59);
}

Test(rate, sliding_not_fixed_window)
{
	bool		 ok;
	int		 rem, i;
	long long	 reset, retry, now = 1795000000;

	memset(ring, 0, sizeof(ring));
	/* 30 at t, 30 at t+30: full until t+60, then 30 free until t+90 */
	for (i = 0; i < 30; i++)
		rate_ring_admit(ring, now, 60, &ok, &rem, &reset, &retry);
	for (i = 0; i < 30; i++)
		rate_ring_admit(ring, now + 30, 60, &ok, &rem, &reset, &retry);
	cr_assert(ok);
	rate_ring_admit(ring, now + 45, 60, &ok, &rem, &reset, &retry);
	cr_assert(!ok);
	cr_assert_eq(reset, now + 60);
	cr_assert_eq(retry, 15);
	for (i = 0; i < 30; i++) {
		rate_ring_admit(ring, now + 61, 60, &ok, &rem, &reset, &retry);
		cr_assert(ok, "slot %d", i);
	}
	rate_ring_admit(ring, now + 61, 60, &ok, &rem, &reset, &retry);
	cr_assert(!ok);
	cr_assert_eq(reset, now + 90);
}

Test(rate, stale_slots_are_reused)
{
	bool		 ok;
	int		 rem;
	long long	 reset, retry, now = 1795000000;

	memset(ring, 0, sizeof(ring));
	rate_ring_admit(ring, now, 1, &ok, &rem, &reset, &retry);
	cr_assert(ok);
	/* same slot index 60 s later: the old count must not leak */
	rate_ring_admit(ring, now + 60, 1, &ok, &rem, &reset, &retry);
	cr_assert(ok);
	rate_ring_admit(ring, now + 120, 1, &ok, &rem, &reset, &retry);
	cr_assert(ok);
	cr_assert_eq(rem, 0);
	/* a clock that goes backwards does not admit from "future" slots */
	rate_ring_admit(ring, now + 119, 1, &ok, &rem, &reset, &retry);
	cr_assert(ok);
}
