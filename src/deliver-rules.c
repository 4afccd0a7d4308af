/*
 * What stops a claimed delivery before its send (deliver-rules.h): pure
 * functions over the claimed rows and their outcomes.
 */
#include <string.h>

#include "formback.h"
#include "deliver-rules.h"
#include "message.h"

const struct dbbin *
deliver_bidx(const struct claim_row *d, int s)
{
	if (strcmp(d->d.channel, "sms") == 0)
		return s == 0 ? &d->tel_bidx : &d->tel_bidx2;
	return s == 0 ? &d->email_bidx : &d->email_bidx2;
}

bool
deliver_same_contact(const struct claim_row *a, const struct claim_row *b)
{
	const struct dbbin *x, *y;
	int		 s;

	for (s = 0; s < 2; s++) {
		x = deliver_bidx(a, s);
		y = deliver_bidx(b, s);
		if (x->p != NULL && y->p != NULL && x->n == y->n &&
		    memcmp(x->p, y->p, x->n) == 0)
			return true;
	}
	return false;
}

bool
deliver_capped(const struct claim_row *d, size_t i, const struct outcome *o)
{
	long long	 n = 0;
	size_t		 j;

	for (j = 0; j < i; j++)
		if (o[j].go && strcmp(d[j].d.channel, d[i].d.channel) == 0 &&
		    strcmp(d[j].d.tenant_id, d[i].d.tenant_id) == 0 &&
		    deliver_same_contact(&d[j], &d[i]))
			n++;
	return n + d[i].day_sends >= DAILY_CAP;
}

void
deliver_postpone(struct outcome *o, long long now)
{
	o->go = false;
	o->status = "scheduled";
	o->cancel_reason = o->error_code = o->lead_reason = NULL;
	o->reschedule = now + POSTPONE_SECS;
	o->give_back = 1;
}

/* Scheduled again at `at` without spending an attempt (waiting is none). */
static void
wait_until(struct outcome *o, long long at)
{
	o->status = "scheduled";
	o->reschedule = at;
	o->give_back = 1;
}

void
deliver_check(const struct claim_row *rows, size_t i, struct outcome *outs,
    long long now, test_recipient_fn is_test, void *arg)
{
	const struct claim_row *d = &rows[i];
	struct outcome	*o = &outs[i];
	bool		 sms = strcmp(d->d.channel, "sms") == 0;
	const struct dbbin *sealed = sms ? &d->tel_sealed : &d->email_sealed;
	long long	 q;

	memset(o, 0, sizeof(*o));
	o->status = "sent";
	o->reached = strcmp(d->lead_status, "sent") == 0;
#define STOP(st, cr, lr) do { o->status = st; o->cancel_reason = cr; \
	o->lead_reason = lr; return; } while (0)
	if (d->step_gone)
		STOP("cancelled", "step_removed", NULL);
	if (strcmp(d->lead_status, "converted") == 0)
		STOP("cancelled", "converted", NULL);
	/*
	 * a flood's quarantine holds the lead (issue 40), or one of 0014
	 * the site: wait for the release; a discarded one is not sent
	 */
	if (d->site_held || (d->quarantine != NULL &&
	    strcmp(d->quarantine, "quarantined") == 0)) {
		wait_until(o, now + HELD_RETRY);
		return;
	}
	if (d->quarantine != NULL && strcmp(d->quarantine, "discarded") == 0)
		STOP("suppressed", NULL, "lead_ineligible");
	if (strcmp(d->delivery_mode, "off") == 0)
		STOP("suppressed", NULL, "delivery_disabled");
	if (strcmp(d->delivery_mode, "test_only") == 0 && !is_test(arg, d))
		STOP("suppressed", NULL, "not_test_recipient");
	if (strcmp(d->campaign_status, "active") != 0)
		STOP("suppressed", NULL,
		    strcmp(d->campaign_status, "paused") == 0 ?
		    "campaign_paused" : "campaign_inactive");
	if (d->scenario_deleted || strcmp(d->scenario_status, "active") != 0)
		STOP("suppressed", NULL,
		    strcmp(d->scenario_status, "paused") == 0 ?
		    "scenario_paused" : "scenario_inactive");
	if (sealed->p == NULL || (sms && !d->sms_capable))
		STOP("suppressed", NULL, "no_contact");
	/* captured under consent mode none: the visitor was told nothing */
	if (strcmp(d->consent_state, "none") == 0)
		STOP("suppressed", NULL, "lead_ineligible");
	/* the suppression list as the claim read it, right before the sends */
	if (d->suppression != NULL && strcmp(d->suppression, "opt_out") == 0)
		STOP("cancelled", "opted_out", "opted_out");
	if (d->suppression != NULL)
		STOP("cancelled", "suppressed", "suppressed");
	if (deliver_capped(rows, i, outs))
		STOP("cancelled", "cap_exceeded", "cap_exceeded");
	if (sms &&
	    (q = sms_quiet_until(now, d->quiet_start, d->quiet_end)) > 0) {
		wait_until(o, q);
		return;
	}
#undef STOP
	o->go = true;
}

bool
deliver_first_of_tenant(const struct claim_row *d, const struct outcome *o,
    size_t i)
{
	size_t	 j;

	for (j = 0; j < i; j++)
		if (o[j].counted &&
		    strcmp(d[j].d.tenant_id, d[i].d.tenant_id) == 0)
			return false;
	return true;
}

void
deliver_reached(const struct claim_row *d, struct outcome *o, size_t n,
    size_t i)
{
	size_t	 k;

	for (k = i + 1; k < n; k++)
		if (strcmp(d[k].d.lead_id, d[i].d.lead_id) == 0)
			o[k].reached = true;
}
