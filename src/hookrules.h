/*
 * hookrules.h: the stop rules of formback-webhooks (issue 40;
 * formback-webhooks(8), "Retries, pauses and stopped endpoints"), plain
 * functions over one attempt and the state of its endpoint as the pass
 * read it locked: no I/O, no clock of their own (tests/unit/
 * test_hookrules.c drives them).
 *
 * - The retry schedule of a record (contract: Events, delivery rule 1):
 *   six attempts, 1 m, 5 m, 30 m, 2 h and 6 h apart.
 * - The pause (a circuit breaker) of an endpoint that does not answer:
 *   HOOK_BREAKER_AFTER attempts in a row without an answer (a timeout, a
 *   refused or dropped connection, a TLS failure, the address rule)
 *   pause the whole endpoint for 1 m, then 5 m, 30 m and 1 h at most;
 *   while it is paused none of its records is tried, so none spends an
 *   attempt; when the pause ends one record is tried (the probe): an
 *   answer of any kind resumes the endpoint, no answer pauses it again.
 * - When an endpoint is stopped (contract: Events, delivery rule 3): a
 *   410 Gone at once; otherwise HOOK_DISABLE_FAILURES failed attempts in
 *   a row that also span HOOK_DISABLE_SPAN (72 hours, as Stripe counts
 *   days of failures, not a burst): a one-minute outage never stops it.
 * - The owner's mail: when failures start (the first failure after a
 *   success, at most once a day) and when the endpoint is stopped.
 */
#ifndef FORMBACK_HOOKRULES_H
#define FORMBACK_HOOKRULES_H

#include <stdbool.h>

#define HOOK_ATTEMPTS_MAX	6	/* contract: Events, delivery rule 1 */
#define HOOK_INFLIGHT		2	/* attempts in flight to one endpoint */
#define HOOK_DISABLE_FAILURES	15	/* failed attempts in a row, and */
#define HOOK_DISABLE_SPAN	(72LL * 3600)	/* seconds they must span */
#define HOOK_BREAKER_AFTER	5	/* unanswered in a row: paused */
#define HOOK_MAIL_EVERY		86400LL	/* "failing" mails at most this often */

/* What an attempt got. */
enum hook_answer {
	HOOK_OK,		/* a 2xx answer */
	HOOK_FAILED,		/* another answer (not 410) */
	HOOK_GONE,		/* 410 Gone */
	HOOK_UNANSWERED,	/* no answer at all, whatever the reason */
	HOOK_UNSENT		/* not sent, for a reason of ours */
};

/*
 * The answer of a finished transfer: `status` the HTTP status received
 * (0: none), `sent` false when no request could be made.
 */
enum hook_answer hook_answer(long status, bool sent);

/*
 * Seconds to wait after attempt `attempts` (1-based) before the next
 * one; -1 when it was the last (HOOK_ATTEMPTS_MAX).
 */
long	hook_retry_after(int attempts);

/* What becomes of a record after an attempt. */
struct hook_next {
	const char	*status;	/* "succeeded", "pending" or "failed" */
	long long	 next;		/* pending: its next attempt, UTC s */
};
/*
 * The record that had made `attempts` attempts before this one, which
 * got `a` at `at` (UTC seconds).  HOOK_UNSENT spends an attempt too, so
 * that a record that can never be sent ends.
 */
void	hook_record_after(int attempts, enum hook_answer a, long long at,
	    struct hook_next *out);

/*
 * An endpoint's delivery state (webhook_endpoints; migrations 0015,
 * 0033).  Times are UTC seconds, 0 for none.
 */
struct hook_endpoint {
	bool		 enabled;
	char		 disabled_reason[32];	/* "": none */
	long long	 failures;	/* failed attempts in a row */
	long long	 unanswered;	/* of them, in a row unanswered */
	long long	 trips;		/* pauses in a row; 0: not paused */
	long long	 failing_since;	/* the first of the failures */
	long long	 paused_until;	/* the pause's end */
	long long	 mailed_at;	/* the last "failing" mail */
	long long	 disabled_at;
	long long	 last_success;
	long long	 last_failure;
};

/* Mail to the owners and admins that an outcome calls for. */
enum hook_mail {
	HOOK_MAIL_NONE,
	HOOK_MAIL_FAILING,	/* failures started (webhook_failing) */
	HOOK_MAIL_DISABLED	/* it was stopped (webhook_disabled) */
};

/*
 * Apply an attempt's answer `a` at `at` to the endpoint: its failures,
 * pause and status.  A stopped endpoint stays stopped (its counts still
 * follow).  HOOK_UNSENT changes nothing.  Returns the mail to queue.
 */
enum hook_mail hook_endpoint_after(struct hook_endpoint *, enum hook_answer a,
	    long long at);

/* Seconds of the `trips`-th pause in a row (1-based): 1 m to 1 h. */
long	hook_pause_for(long long trips);

/* Whether the endpoint is paused at `now`. */
bool	hook_paused(const struct hook_endpoint *, long long now);

/*
 * Attempts the pass may have in flight to the endpoint at `now`: none
 * while paused, one (the probe) once a pause has ended, else
 * HOOK_INFLIGHT.
 */
int	hook_inflight(const struct hook_endpoint *, long long now);

/*
 * Enable the endpoint again (an owner's or admin's operation): enabled,
 * no reason, no failures, no pause.  Its history (last success, last
 * failure, the last mail) is kept.
 */
void	hook_endpoint_enable(struct hook_endpoint *);

#endif
