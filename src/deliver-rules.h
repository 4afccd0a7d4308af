/*
 * deliver-rules.c: what stops a claimed delivery right before its send
 * (contract: Lead suppress_reason, Delivery cancel_reason; issue 40):
 * plain functions over the claimed rows and their outcomes, no database
 * and no clock of their own, so that each rule is tested alone
 * (tests/unit/test_deliver.c).  formback-deliver (cron-deliver.c) reads
 * the rows, asks these, and writes what they decide.
 */
#ifndef DELIVER_RULES_H
#define DELIVER_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "db/store.h"

#define DAILY_CAP	3	/* messages per channel, recipient, JST day */
#define HELD_RETRY	600	/* seconds: held leads' deliveries look again */
#define POSTPONE_SECS	60	/* seconds: what is not seen through waits */

/* The outcome of one claimed delivery, decided before and after its send. */
struct outcome {
	/* sent, failed, cancelled, suppressed, scheduled */
	const char	*status;
	const char	*cancel_reason;
	const char	*error_code;
	const char	*lead_reason;	/* lead.suppress_reason */
	char		 provider_id[128];
	long long	 reschedule;	/* unix seconds, for scheduled */
	int		 give_back;	/* attempts to return (quiet hours) */
	int		 segments;	/* SMS parts as sent; 0: none */
	bool		 go;		/* passed every check: to be sent */
	bool		 counted;	/* counted against the monthly quota */
	/* counted near a threshold (80%, 100%) */
	bool		 near;
	bool		 recorded;	/* finished right after its send */
	bool		 reached;	/* its lead is sent already */
	char		 error_buf[64];
};

/*
 * Whether the contact of a claimed row is one of its tenant's confirmed
 * test recipients: the caller's look-up (the database's), asked only
 * when the tenant's delivery switch is test_only.
 */
typedef bool (*test_recipient_fn)(void *arg, const struct claim_row *);

/*
 * Decide row i of the batch `rows` (in the batch's order) at `now` (unix
 * seconds) into outs[i], the earlier rows' outcomes already decided:
 * outs[i].go when it may leave; otherwise its outcome (cancelled,
 * suppressed with the lead's reason, or scheduled again with no attempt
 * spent).  The rules in order: step removed, lead converted, lead held
 * by a flood's quarantine (or its site, as before migration 0034) or
 * discarded with it, delivery switch (off; test_only and not a test recipient),
 * campaign and
 * scenario state, contact missing or not SMS-capable, consent mode none,
 * the suppression list (opt-out first), the daily cap (DAILY_CAP), SMS
 * quiet hours (sms_quiet_until()).
 */
void	deliver_check(const struct claim_row *rows, size_t i,
	    struct outcome *outs, long long now, test_recipient_fn, void *arg);
/*
 * Whether row i's recipient has had DAILY_CAP messages on its channel
 * from its tenant this JST day: those that left and those other claims
 * are sending (rows[i].day_sends), and the earlier rows of the batch
 * that passed their checks.
 */
bool	deliver_capped(const struct claim_row *rows, size_t i,
	    const struct outcome *outs);
/*
 * Not seen through at `now`: scheduled POSTPONE_SECS later, its attempt
 * given back.
 */
void	deliver_postpone(struct outcome *, long long now);
/* Whether row i is the first counted row of its tenant in the batch. */
bool	deliver_first_of_tenant(const struct claim_row *rows,
	    const struct outcome *outs, size_t i);
/* Row i's send is recorded: the later rows of its lead need not mark it. */
void	deliver_reached(const struct claim_row *rows, struct outcome *outs,
	    size_t n, size_t i);
/*
 * The blind index of the contact a claimed row goes to, in slot s (0 or
 * 1; pii.h struct bidx_keys): a bin with p NULL when the slot is empty.
 */
const struct dbbin *deliver_bidx(const struct claim_row *, int s);
/*
 * Whether rows a and b go to the same contact: the same index in either
 * slot (a slot under one key in one row and another in the other never
 * matches, and the slot in force is in every row).
 */
bool	deliver_same_contact(const struct claim_row *a,
	    const struct claim_row *b);

#endif
