/*
 * pass.c: what every cron pass shares (design 1; issue 40): its command
 * line, its bounds, its turns over tenants and the record of the pass.
 *
 * A pass runs until its work is done or its time budget is spent
 * (--budget seconds, a default below its cron interval); --limit is an
 * optional cap on the items it takes.  Work is taken in turns (struct
 * ring): a round takes at most a share from each key (a tenant, a webhook
 * endpoint) that has due work, each key's oldest first, so one tenant's
 * backlog delays another's by one share a round, never by its whole
 * size.  At its end a pass says what it left for the next one: on
 * standard error with -v, and in cron_passes (formbackctl status).
 */
#ifndef PASS_H
#define PASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formback.h"

struct db;
struct dbrows;

#define PASS_JOBS_MAX	32
#define PASS_LIMIT_MAX	10000000L	/* --limit */
#define PASS_BUDGET_MAX	86400L		/* --budget, seconds */

struct pass {
	const char	*prog;		/* "formback-abandon": messages */
	const char	*job;		/* "abandon": cron_passes.job */
	long long	 now;		/* --now, else the clock: UTC seconds */
	long		 limit;		/* --limit: items at most; 0: no cap */
	/* --budget: seconds; the job's default */
	long		 budget;
	/* --jobs; 0: the job has no such option */
	long		 jobs;
	/* --tenant, when tenant_opt: one tenant */
	const char	*tenant;
	bool		 tenant_opt;	/* the job takes --tenant */
	int		 verbose;	/* how many -v */
	/* time_mono() when the options were read */
	int64_t		 began;
	long		 done;		/* items handled: pass_took() */
	long		 left;		/* items known left for the next pass */
	bool		 failed;	/* a part of the pass failed */
};

/*
 * Parse the options every pass shares: --now <ISO 8601 with Z or offset>,
 * --limit N (1 to PASS_LIMIT_MAX), --budget seconds (1 to
 * PASS_BUDGET_MAX), -v, --help; --jobs N (1 to PASS_JOBS_MAX) when
 * p->jobs holds the job's default (non-zero), --tenant <uuid> when
 * p->tenant_opt.  Set prog, job, budget (and jobs) first; limit is 0
 * unless given.  Starts the budget's clock.  Returns -1 to go on, or the
 * exit status to end with (design 1): 0 after the usage for --help, 2
 * after an error or the usage on standard error.
 */
int	pass_opts(struct pass *, int argc, char *argv[]);
/*
 * Begin a cron binary (design 1): pass_opts(), then the log as p->prog
 * (level `loud` with -v, warnings and errors without), then
 * formback.conf into *c (conf_load()).  Returns -1 to go on, or the exit
 * status to end with: pass_opts()'s, or 2 when the configuration cannot
 * be read, said on standard error as "<prog>: <why>".
 */
int	pass_start(struct pass *, int argc, char *argv[], enum log_level loud,
	    struct conf *);
/*
 * Connect to the database (db_open()).  False after saying "<prog>:
 * cannot connect to the database" on standard error: the binary then
 * exits 1 (design 1).
 */
bool	pass_db_open(const struct pass *, struct db *, const struct conf *);
/* Seconds since pass_opts(), on the monotonic clock. */
int64_t	pass_elapsed(const struct pass *);
/*
 * The pass's clock, UTC seconds: --now (or the start's time) moved on by
 * the time the pass has taken, so what falls due during a long pass is
 * seen by it.
 */
long long pass_clock(const struct pass *);
/* Whether the pass must stop taking work: its budget spent or its cap met. */
bool	pass_over(const struct pass *);
/*
 * How many of `want` items the pass may take now: want, less what
 * --limit leaves room for; 0 once pass_over().
 */
long	pass_room(const struct pass *, long want);
/* Count n items taken (against --limit). */
void	pass_took(struct pass *, long n);
/*
 * Note what the pass leaves for the next one: n items of `what` (a
 * plural noun, "due leads"), added to p->left and said on standard error
 * with -v.  n == 0 says nothing.
 */
void	pass_leave(struct pass *, const char *what, long n);
/*
 * Record the pass in cron_passes (formbackctl status; migration 0022,
 * 0032): its start, outcome (!p->failed), items done and left, on a
 * connection of its own (a failure is logged, not fatal).  Returns the
 * exit status: 1 when the pass failed, else 0.
 */
int	pass_end(struct pass *, const struct conf *);

/*
 * Turns over keys (tenant or endpoint ids) that have due work.  A round
 * visits each key once, in the order added (each key's oldest due work
 * first is the caller's query's); a key found drained is dropped.  The
 * ring owns its copies of the keys.
 */
struct ring {
	char		(*key)[UUID_STRLEN + 1];
	size_t		 n;		/* keys in the ring */
	size_t		 cap;
	size_t		 at;		/* the next key of the round */
	long		 rounds;	/* rounds begun */
};

void	ring_init(struct ring *);
/* Free the keys; the ring is empty and usable again. */
void	ring_release(struct ring *);
/* Add a key at the end; the caller adds distinct keys.  FB_ENOMEM. */
enum fb_err ring_add(struct ring *, const char *key) FB_WUR;
/*
 * Copy the next up to `max` keys of the round into out[], wrapping to a
 * new round at the end of the ring; returns how many (0: the ring is
 * empty).  One call never returns a key twice.
 */
size_t	ring_next(struct ring *, char out[][UUID_STRLEN + 1], size_t max);
/*
 * Add the keys of `rows` (struct key_row: a query's distinct keys, the
 * ring being empty); FB_ENOMEM.
 */
enum fb_err ring_fill(struct ring *, const struct dbrows *rows) FB_WUR;
/* Drop a key (drained); no-op when absent. */
void	ring_drop(struct ring *, const char *key);

#endif
