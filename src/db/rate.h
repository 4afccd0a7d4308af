/*
 * src/db/rate.c: the rate ring's arithmetic (the same as core.c's SQL);
 * store.h includes every such header.
 */
#ifndef FORMBACK_DB_RATE_H
#define FORMBACK_DB_RATE_H

#include "db.h"

#define RATE_SLOTS	61
#define RATE_DIGITS	12
#define RATE_RING_LEN	(RATE_SLOTS * RATE_DIGITS)

/*
 * The window of a rate ring at `now`: the requests admitted in the 60
 * seconds up to `now` (*count) and the oldest second among them (*oldest,
 * 0 when none).  Pure; the SQL of db/core.c applies the same shift.
 */
void	rate_window(const char *ring, long long base, long long total,
	    long long now, long long *count, long long *oldest);
/*
 * The contract's rate headers from a ring as the admission left it:
 * remaining slots, reset (unix seconds when one more slot frees: the
 * oldest counted second plus 60) and, when refused, retry_after seconds.
 */
void	rate_result_from(const char *ring, long long base, long long total,
	    long long now, int limit, bool admitted, struct rate_result *);

#endif
