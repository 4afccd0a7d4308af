/* The stop rules of formback-webhooks (hookrules.h; issue 40). */
#include <stddef.h>
#include <stdio.h>

#include "hookrules.h"

/* contract: Events, delivery rule 1: the waits after attempts 1 to 5 */
static const long retry_after[HOOK_ATTEMPTS_MAX - 1] = {
	60, 5 * 60, 30 * 60, 2 * 3600, 6 * 3600
};
/* the pauses of an endpoint that does not answer, the last one repeated */
static const long pause_for[] = { 60, 5 * 60, 30 * 60, 3600 };

enum hook_answer
hook_answer(long status, bool sent)
{
	if (!sent)
		return HOOK_UNSENT;
	if (status >= 200 && status < 300)
		return HOOK_OK;
	if (status == 410)
		return HOOK_GONE;
	return status > 0 ? HOOK_FAILED : HOOK_UNANSWERED;
}

long
hook_retry_after(int attempts)
{
	if (attempts < 1 || attempts >= HOOK_ATTEMPTS_MAX)
		return -1;
	return retry_after[attempts - 1];
}

void
hook_record_after(int attempts, enum hook_answer a, long long at,
    struct hook_next *out)
{
	long	 wait = hook_retry_after(attempts + 1);

	out->next = 0;
	if (a == HOOK_OK)
		out->status = "succeeded";
	else if (a == HOOK_GONE || wait < 0)
		out->status = "failed";
	else {
		out->status = "pending";
		out->next = at + wait;
	}
}

long
hook_pause_for(long long trips)
{
	size_t	 n = sizeof(pause_for) / sizeof(pause_for[0]);

	if (trips < 1)
		return 0;
	return pause_for[(size_t)trips > n ? n - 1 : (size_t)trips - 1];
}

bool
hook_paused(const struct hook_endpoint *e, long long now)
{
	return e->trips > 0 && e->paused_until > now;
}

int
hook_inflight(const struct hook_endpoint *e, long long now)
{
	if (hook_paused(e, now))
		return 0;
	return e->trips > 0 ? 1 : HOOK_INFLIGHT;
}

/* Forget the failures: a success, or an owner's enable. */
static void
clear_failures(struct hook_endpoint *e)
{
	e->failures = e->unanswered = e->trips = 0;
	e->failing_since = e->paused_until = 0;
}

void
hook_endpoint_enable(struct hook_endpoint *e)
{
	e->enabled = true;
	e->disabled_reason[0] = '\0';
	e->disabled_at = 0;
	clear_failures(e);
}

static enum hook_mail
disable(struct hook_endpoint *e, const char *reason, long long at)
{
	if (!e->enabled)
		return HOOK_MAIL_NONE;
	e->enabled = false;
	snprintf(e->disabled_reason, sizeof(e->disabled_reason), "%s", reason);
	e->disabled_at = at;
	/* a stopped endpoint is not paused: enabling it starts afresh */
	e->trips = e->paused_until = 0;
	return HOOK_MAIL_DISABLED;
}

enum hook_mail
hook_endpoint_after(struct hook_endpoint *e, enum hook_answer a, long long at)
{
	enum hook_mail	 mail = HOOK_MAIL_NONE;

	if (a == HOOK_UNSENT)
		return HOOK_MAIL_NONE;
	if (a == HOOK_OK) {
		clear_failures(e);
		if (at > e->last_success)
			e->last_success = at;
		return HOOK_MAIL_NONE;
	}
	e->failures++;
	e->last_failure = at;
	if (e->failing_since == 0 || e->failing_since > at) {
		/* failures start: the owner hears of it, once a day at most */
		e->failing_since = at;
		if (e->enabled && (e->mailed_at == 0 ||
		    at - e->mailed_at >= HOOK_MAIL_EVERY)) {
			e->mailed_at = at;
			mail = HOOK_MAIL_FAILING;
		}
	}
	if (a == HOOK_UNANSWERED) {
		e->unanswered++;
		/*
		 * a probe without an answer, or too many: paused (again);
		 * an attempt started before the pause leaves it as it is
		 */
		if (!hook_paused(e, at) && (e->trips > 0 ||
		    e->unanswered >= HOOK_BREAKER_AFTER)) {
			e->trips++;
			e->paused_until = at + hook_pause_for(e->trips);
		}
	} else {
		/* an answer: the receiver is there, whatever it said */
		e->unanswered = e->trips = e->paused_until = 0;
	}
	if (a == HOOK_GONE)
		return disable(e, "gone", at) == HOOK_MAIL_DISABLED ?
		    HOOK_MAIL_DISABLED : mail;
	if (e->failures >= HOOK_DISABLE_FAILURES &&
	    at - e->failing_since >= HOOK_DISABLE_SPAN &&
	    disable(e, "consecutive_failures", at) == HOOK_MAIL_DISABLED)
		return HOOK_MAIL_DISABLED;
	return mail;
}
