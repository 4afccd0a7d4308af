/*
 * The rate ring's window (contract: Limits; design 6).  A ring is 61
 * slots of 12 decimal digits: the running total of admitted requests at
 * the end of each second from base-60 (leftmost) to base (rightmost).
 * Shifted to `now`, the seconds after base keep the total; the requests
 * of the last 60 seconds are total minus the leftmost slot, and the
 * oldest of them fell in the first second whose slot grew.
 */
#include <string.h>

#include "store.h"

static long long
slot(const char *ring, long long i)
{
	long long	 v = 0;
	int		 k;

	for (k = 0; k < RATE_DIGITS; k++) {
		char	 c = ring[i * RATE_DIGITS + k];

		v = v * 10 + (c >= '0' && c <= '9' ? c - '0' : 0);
	}
	return v;
}

void
rate_window(const char *ring, long long base, long long total, long long now,
    long long *count, long long *oldest)
{
	long long	 shift = now - base, i, prev, cur;

	*count = 0;
	*oldest = 0;
	if (ring == NULL || strlen(ring) != RATE_RING_LEN)
		return;
	if (shift < 0)
		shift = 0;
	if (shift > RATE_SLOTS)
		shift = RATE_SLOTS;
	/* slot i of the shifted ring is slot i + shift of the stored one,
	 * or the total when that falls past the stored ring's end */
	prev = shift < RATE_SLOTS ? slot(ring, shift) : total;
	*count = total - prev;
	for (i = 1; i < RATE_SLOTS; i++) {
		cur = i + shift < RATE_SLOTS ? slot(ring, i + shift) : total;
		if (cur > prev) {
			/* the shifted ring ends at max(now, base) */
			*oldest = (now > base ? now : base) -
			    (RATE_SLOTS - 1) + i;
			break;
		}
		prev = cur;
	}
}

void
rate_result_from(const char *ring, long long base, long long total,
    long long now, int limit, bool admitted, struct rate_result *out)
{
	long long	 count, oldest;

	rate_window(ring, base, total, now, &count, &oldest);
	if (oldest == 0)
		oldest = now;
	out->admitted = admitted;
	out->remaining = limit > count ? (int)(limit - count) : 0;
	out->reset = oldest + 60;
	out->retry_after = admitted ? 0 :
	    (out->reset - now > 0 ? out->reset - now : 1);
}
