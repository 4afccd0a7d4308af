/*
 * The stop rules of formback-webhooks (src/hookrules.h; issue 40): the
 * retry schedule, the pause of an endpoint that does not answer, when an
 * endpoint is stopped, and the owner's mails.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/events.h"
#include "../../src/hookrules.h"

#define T0	1800000000LL	/* 2027-01-15T08:00:00Z */

/* An enabled endpoint that has never failed. */
static struct hook_endpoint
fresh(void)
{
	struct hook_endpoint	 e;

	memset(&e, 0, sizeof(e));
	e.enabled = true;
	return e;
}

Test(hookrules, answers)
{
	cr_assert_eq(hook_answer(200, true), HOOK_OK);
	cr_assert_eq(hook_answer(204, true), HOOK_OK);
	cr_assert_eq(hook_answer(299, true), HOOK_OK);
	cr_assert_eq(hook_answer(302, true), HOOK_FAILED);
	cr_assert_eq(hook_answer(500, true), HOOK_FAILED);
	cr_assert_eq(hook_answer(410, true), HOOK_GONE);
	cr_assert_eq(hook_answer(0, true), HOOK_UNANSWERED);
	cr_assert_eq(hook_answer(0, false), HOOK_UNSENT);
}

/* contract: Events, delivery rule 1: 6 attempts, 1 m, 5 m, 30 m, 2 h, 6 h */
Test(hookrules, retry_schedule)
{
	static const long want[] = { 60, 300, 1800, 7200, 21600 };
	struct hook_next n;
	int		 i;

	for (i = 1; i <= 5; i++)
		cr_assert_eq(hook_retry_after(i), want[i - 1], "after %d", i);
	cr_assert_eq(hook_retry_after(6), -1);
	cr_assert_eq(hook_retry_after(0), -1);
	for (i = 0; i < 5; i++) {
		hook_record_after(i, HOOK_FAILED, T0, &n);
		cr_assert_str_eq(n.status, "pending");
		cr_assert_eq(n.next, T0 + want[i]);
		hook_record_after(i, HOOK_UNANSWERED, T0, &n);
		cr_assert_str_eq(n.status, "pending");
		hook_record_after(i, HOOK_UNSENT, T0, &n);
		cr_assert_str_eq(n.status, "pending");
	}
	hook_record_after(5, HOOK_FAILED, T0, &n);
	cr_assert_str_eq(n.status, "failed");
	hook_record_after(5, HOOK_OK, T0, &n);
	cr_assert_str_eq(n.status, "succeeded");
	hook_record_after(0, HOOK_GONE, T0, &n);
	cr_assert_str_eq(n.status, "failed");
	hook_record_after(0, HOOK_OK, T0, &n);
	cr_assert_str_eq(n.status, "succeeded");
	cr_assert_eq(n.next, 0);
}

/* 18 failures within a minute: counted, mailed once, never stopped */
Test(hookrules, a_burst_never_stops_it)
{
	struct hook_endpoint	 e = fresh();
	int			 i, mails = 0;

	for (i = 0; i < 18; i++)
		if (hook_endpoint_after(&e, HOOK_FAILED, T0 + i * 3) ==
		    HOOK_MAIL_FAILING)
			mails++;
	cr_assert(e.enabled);
	cr_assert_str_empty(e.disabled_reason);
	cr_assert_eq(e.failures, 18);
	cr_assert_eq(e.failing_since, T0);
	cr_assert_eq(e.last_failure, T0 + 17 * 3);
	cr_assert_eq(mails, 1);
	/* answers, if failed ones: never paused */
	cr_assert_eq(e.trips, 0);
	cr_assert_eq(hook_inflight(&e, T0 + 60), HOOK_INFLIGHT);
}

/* 15 failures in a row are not enough until they span 72 hours */
Test(hookrules, failures_that_span_days_stop_it)
{
	struct hook_endpoint	 e = fresh();
	long long		 at = T0;
	int			 i;

	for (i = 0; i < 30; i++, at += 3600)
		cr_assert_neq(hook_endpoint_after(&e, HOOK_FAILED, at),
		    HOOK_MAIL_DISABLED, "failure %d", i + 1);
	cr_assert(e.enabled);
	/* 71 hours after the first: still enabled */
	cr_assert_eq(hook_endpoint_after(&e, HOOK_FAILED, T0 + 71 * 3600),
	    HOOK_MAIL_NONE);
	cr_assert(e.enabled);
	cr_assert_eq(hook_endpoint_after(&e, HOOK_FAILED,
	    T0 + HOOK_DISABLE_SPAN), HOOK_MAIL_DISABLED);
	cr_assert_not(e.enabled);
	cr_assert_str_eq(e.disabled_reason, "consecutive_failures");
	cr_assert_eq(e.disabled_at, T0 + HOOK_DISABLE_SPAN);
	/* once: a later failure mails nothing, the reason stays */
	cr_assert_eq(hook_endpoint_after(&e, HOOK_GONE, T0 + HOOK_DISABLE_SPAN
	    + 60), HOOK_MAIL_NONE);
	cr_assert_str_eq(e.disabled_reason, "consecutive_failures");
}

/* days of failures, but fewer than 15 attempts: not stopped */
Test(hookrules, a_few_failures_over_days_do_not_stop_it)
{
	struct hook_endpoint	 e = fresh();
	int			 i;

	for (i = 0; i < HOOK_DISABLE_FAILURES - 1; i++)
		(void)hook_endpoint_after(&e, HOOK_FAILED, T0 + i * 86400LL);
	cr_assert(e.enabled);
	cr_assert_eq(hook_endpoint_after(&e, HOOK_FAILED, T0 + 20 * 86400LL),
	    HOOK_MAIL_DISABLED);
}

/* a success starts the count again, and the span with it */
Test(hookrules, a_success_starts_afresh)
{
	struct hook_endpoint	 e = fresh();
	int			 i;

	for (i = 0; i < 20; i++)
		(void)hook_endpoint_after(&e, HOOK_FAILED, T0 + i * 3600LL);
	cr_assert_eq(hook_endpoint_after(&e, HOOK_OK, T0 + 21 * 3600LL),
	    HOOK_MAIL_NONE);
	cr_assert_eq(e.failures, 0);
	cr_assert_eq(e.failing_since, 0);
	cr_assert_eq(e.last_success, T0 + 21 * 3600LL);
	for (i = 0; i < 20; i++)
		(void)hook_endpoint_after(&e, HOOK_FAILED,
		    T0 + (22 + i) * 3600LL);
	cr_assert(e.enabled, "the span starts at the first failure after it");
	/* a success from a pass whose clock is behind moves nothing back */
	(void)hook_endpoint_after(&e, HOOK_OK, T0);
	cr_assert_eq(e.last_success, T0 + 21 * 3600LL);
}

Test(hookrules, gone_stops_it_at_once)
{
	struct hook_endpoint	 e = fresh();

	cr_assert_eq(hook_endpoint_after(&e, HOOK_GONE, T0),
	    HOOK_MAIL_DISABLED);
	cr_assert_not(e.enabled);
	cr_assert_str_eq(e.disabled_reason, "gone");
	cr_assert_eq(e.failures, 1);
}

/* the failing mail: the first failure after a success, once a day at most */
Test(hookrules, failing_mail_once_a_day)
{
	struct hook_endpoint	 e = fresh();

	cr_assert_eq(hook_endpoint_after(&e, HOOK_FAILED, T0),
	    HOOK_MAIL_FAILING);
	cr_assert_eq(e.mailed_at, T0);
	cr_assert_eq(hook_endpoint_after(&e, HOOK_FAILED, T0 + 60),
	    HOOK_MAIL_NONE);
	(void)hook_endpoint_after(&e, HOOK_OK, T0 + 120);
	/* a new streak within the day: no second mail */
	cr_assert_eq(hook_endpoint_after(&e, HOOK_FAILED, T0 + 3600),
	    HOOK_MAIL_NONE);
	(void)hook_endpoint_after(&e, HOOK_OK, T0 + 7200);
	cr_assert_eq(hook_endpoint_after(&e, HOOK_UNANSWERED, T0 + 86400),
	    HOOK_MAIL_FAILING);
	/* a stopped endpoint's failures mail nothing */
	e = fresh();
	e.enabled = false;
	cr_assert_eq(hook_endpoint_after(&e, HOOK_FAILED, T0), HOOK_MAIL_NONE);
}

/* an endpoint that does not answer is paused as a whole, longer each time */
Test(hookrules, pause_of_an_endpoint_that_does_not_answer)
{
	struct hook_endpoint	 e = fresh();
	long long		 at = T0;
	int			 i;

	for (i = 1; i < HOOK_BREAKER_AFTER; i++)
		(void)hook_endpoint_after(&e, HOOK_UNANSWERED, at + i);
	cr_assert_eq(e.trips, 0);
	cr_assert_eq(hook_inflight(&e, at + 10), HOOK_INFLIGHT);
	(void)hook_endpoint_after(&e, HOOK_UNANSWERED, at + 5);
	cr_assert_eq(e.trips, 1);
	cr_assert_eq(e.paused_until, at + 5 + 60);
	cr_assert(hook_paused(&e, at + 6));
	cr_assert_eq(hook_inflight(&e, at + 6), 0);
	/* an attempt in flight when it paused leaves the pause as it is */
	(void)hook_endpoint_after(&e, HOOK_UNANSWERED, at + 7);
	cr_assert_eq(e.trips, 1);
	cr_assert_eq(e.paused_until, at + 65);
	/* the pause over: one probe; no answer: paused again, longer */
	cr_assert_not(hook_paused(&e, at + 65));
	cr_assert_eq(hook_inflight(&e, at + 65), 1);
	(void)hook_endpoint_after(&e, HOOK_UNANSWERED, at + 70);
	cr_assert_eq(e.trips, 2);
	cr_assert_eq(e.paused_until, at + 70 + 300);
	cr_assert_eq(hook_pause_for(3), 1800);
	cr_assert_eq(hook_pause_for(4), 3600);
	cr_assert_eq(hook_pause_for(40), 3600);
	cr_assert_eq(hook_pause_for(0), 0);
	/* any answer resumes it, a failed one included */
	(void)hook_endpoint_after(&e, HOOK_FAILED, at + 400);
	cr_assert_eq(e.trips, 0);
	cr_assert_eq(e.unanswered, 0);
	cr_assert_eq(hook_inflight(&e, at + 400), HOOK_INFLIGHT);
	cr_assert_eq(e.failures, 8, "the pauses count no failure of their own");
}

/* hourly probes of a dead endpoint stop it once three days have passed */
Test(hookrules, a_dead_endpoint_is_stopped_after_the_span)
{
	struct hook_endpoint	 e = fresh();
	long long		 at = T0;
	int			 probes = 0;

	while (e.enabled && probes < 1000) {
		if (hook_inflight(&e, at) > 0) {
			(void)hook_endpoint_after(&e, HOOK_UNANSWERED, at);
			probes++;
		}
		at += 60;
	}
	cr_assert_not(e.enabled);
	cr_assert_geq(at - T0, HOOK_DISABLE_SPAN);
	cr_assert_lt(at - T0, HOOK_DISABLE_SPAN + 3600 + 60);
	cr_assert_lt(probes, 90, "%d attempts in three days", probes);
	cr_assert_eq(e.trips, 0, "a stopped endpoint is not paused");
}

Test(hookrules, enable_starts_afresh)
{
	struct hook_endpoint	 e = fresh();

	(void)hook_endpoint_after(&e, HOOK_FAILED, T0);
	(void)hook_endpoint_after(&e, HOOK_GONE, T0 + 1);
	hook_endpoint_enable(&e);
	cr_assert(e.enabled);
	cr_assert_str_empty(e.disabled_reason);
	cr_assert_eq(e.failures, 0);
	cr_assert_eq(e.failing_since, 0);
	cr_assert_eq(e.disabled_at, 0);
	cr_assert_eq(e.last_failure, T0 + 1, "its history is kept");
	cr_assert_eq(e.mailed_at, T0);
	cr_assert_eq(hook_inflight(&e, T0 + 2), HOOK_INFLIGHT);
}

/* a send we could not make changes nothing of the endpoint */
Test(hookrules, unsent_is_ours)
{
	struct hook_endpoint	 e = fresh(), before;

	before = e;
	cr_assert_eq(hook_endpoint_after(&e, HOOK_UNSENT, T0), HOOK_MAIL_NONE);
	cr_assert_eq(memcmp(&e, &before, sizeof(e)), 0);
}

/* every event type has test data: a JSON object (events.h) */
Test(hookrules, every_event_type_has_test_data)
{
	const struct event_type	*t;
	json_object		*d;
	int			 n = 0;

	for (t = event_types; t->name != NULL; t++, n++) {
		cr_assert_not_null(t->sample, "%s", t->name);
		d = json_tokener_parse(t->sample);
		cr_assert(d != NULL && json_object_is_type(d, json_type_object),
		    "%s: %s", t->name, t->sample);
		json_object_put(d);
		cr_assert_eq(event_type_find(t->name), t);
	}
	cr_assert_eq(n, 6);
	cr_assert_null(event_type_find("lead.sent"));
}
