/*
 * deliver-rules.c: each rule that stops a claimed delivery, alone, over
 * rows made here (contract: Lead suppress_reason, Delivery
 * cancel_reason; issue 40).
 */
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/formback.h"
#include "../../src/deliver-rules.h"

/* 2026-11-27 03:00 UTC, 12:00 JST: outside the SMS quiet hours */
#define NOON	1795748400LL

static const unsigned char contact[] = "sealed", bidx[] = "bidx-1";

/* A delivery that passes every check, to be changed one field a test. */
static struct claim_row
row(const char *channel)
{
	struct claim_row r;

	memset(&r, 0, sizeof(r));
	r.d.id = "d1";
	r.d.tenant_id = "t1";
	r.d.lead_id = "l1";
	r.d.channel = channel;
	r.lead_status = "queued";
	r.delivery_mode = "live";
	r.campaign_status = "active";
	r.scenario_status = "active";
	r.consent_state = "notice_optout";
	r.sms_capable = true;
	r.tel_sealed = r.email_sealed = (struct dbbin){ contact,
	    sizeof(contact) };
	r.tel_bidx = r.email_bidx = (struct dbbin){ bidx, sizeof(bidx) };
	r.quiet_start = 21 * 60;
	r.quiet_end = 9 * 60;
	return r;
}

static bool
is_test(void *arg, const struct claim_row *r)
{
	(void)r;
	return *(bool *)arg;
}

/* The outcome of one row alone at `now`. */
static struct outcome
decide(const struct claim_row *r, long long now, bool test)
{
	struct outcome	 o;

	deliver_check(r, 0, &o, now, is_test, &test);
	return o;
}

#define STOPPED(o, st, cr, lr) do { \
	cr_assert(!(o).go); \
	cr_assert_str_eq((o).status, st); \
	if ((cr) == NULL) cr_assert_null((o).cancel_reason); \
	else cr_assert_str_eq((o).cancel_reason, (const char *)(cr)); \
	if ((lr) == NULL) cr_assert_null((o).lead_reason); \
	else cr_assert_str_eq((o).lead_reason, (const char *)(lr)); \
} while (0)

Test(deliver, passes_every_check)
{
	struct claim_row r = row("sms");

	cr_assert(decide(&r, NOON, false).go);
	r = row("email");
	cr_assert(decide(&r, NOON, false).go);
}

Test(deliver, each_stop_rule)
{
	struct claim_row r;
	struct outcome	 o;

	r = row("sms"), r.step_gone = true;
	STOPPED(decide(&r, NOON, false), "cancelled", "step_removed", NULL);
	r = row("sms"), r.lead_status = "converted";
	STOPPED(decide(&r, NOON, false), "cancelled", "converted", NULL);
	r = row("sms"), r.quarantine = "discarded";
	STOPPED(decide(&r, NOON, false), "suppressed", NULL, "lead_ineligible");
	r = row("sms"), r.quarantine = "released";
	cr_assert(decide(&r, NOON, false).go);
	r = row("sms"), r.delivery_mode = "off";
	STOPPED(decide(&r, NOON, false), "suppressed", NULL,
	    "delivery_disabled");
	r = row("sms"), r.delivery_mode = "test_only";
	STOPPED(decide(&r, NOON, false), "suppressed", NULL,
	    "not_test_recipient");
	cr_assert(decide(&r, NOON, true).go);
	r = row("sms"), r.campaign_status = "paused";
	STOPPED(decide(&r, NOON, false), "suppressed", NULL, "campaign_paused");
	r = row("sms"), r.campaign_status = "archived";
	STOPPED(decide(&r, NOON, false), "suppressed", NULL,
	    "campaign_inactive");
	r = row("sms"), r.scenario_status = "paused";
	STOPPED(decide(&r, NOON, false), "suppressed", NULL, "scenario_paused");
	r = row("sms"), r.scenario_deleted = true;
	STOPPED(decide(&r, NOON, false), "suppressed", NULL,
	    "scenario_inactive");
	r = row("sms"), r.sms_capable = false;
	STOPPED(decide(&r, NOON, false), "suppressed", NULL, "no_contact");
	r = row("email"), r.email_sealed = (struct dbbin){ NULL, 0 };
	STOPPED(decide(&r, NOON, false), "suppressed", NULL, "no_contact");
	r = row("sms"), r.consent_state = "none";
	STOPPED(decide(&r, NOON, false), "suppressed", NULL, "lead_ineligible");
	r = row("sms"), r.suppression = "opt_out";
	STOPPED(decide(&r, NOON, false), "cancelled", "opted_out", "opted_out");
	r = row("sms"), r.suppression = "suppressed";
	STOPPED(decide(&r, NOON, false), "cancelled", "suppressed",
	    "suppressed");
	/* waiting spends no attempt: a quarantine, a held site, quiet hours */
	r = row("sms"), r.quarantine = "quarantined";
	o = decide(&r, NOON, false);
	STOPPED(o, "scheduled", NULL, NULL);
	cr_assert_eq(o.reschedule, NOON + HELD_RETRY);
	cr_assert_eq(o.give_back, 1);
	r = row("sms"), r.site_held = true;
	o = decide(&r, NOON, false);
	STOPPED(o, "scheduled", NULL, NULL);
	cr_assert_eq(o.reschedule, NOON + HELD_RETRY);
	r = row("sms");
	o = decide(&r, NOON + 11 * 3600, false);	/* 23:00 JST */
	STOPPED(o, "scheduled", NULL, NULL);
	cr_assert_eq(o.reschedule, NOON + 21 * 3600);	/* 09:00 JST */
	cr_assert_eq(o.give_back, 1);
	/* email has no quiet hours */
	r = row("email");
	cr_assert(decide(&r, NOON + 11 * 3600, false).go);
}

/* The order: an earlier rule decides before a later one. */
Test(deliver, rules_in_order)
{
	struct claim_row r = row("sms");

	r.step_gone = true;
	r.lead_status = "converted";
	r.suppression = "opt_out";
	STOPPED(decide(&r, NOON, false), "cancelled", "step_removed", NULL);
	r.step_gone = false;
	STOPPED(decide(&r, NOON, false), "cancelled", "converted", NULL);
}

/* The daily cap: the day's sends, and the batch's earlier rows that pass. */
Test(deliver, daily_cap_counts_the_batch)
{
	struct claim_row r[4];
	struct outcome	 o[4];
	bool		 test = false;
	size_t		 i;

	/* one message left today already (each row reads the same count) */
	for (i = 0; i < 4; i++) {
		r[i] = row("sms");
		r[i].day_sends = 1;
	}
	for (i = 0; i < 4; i++)
		deliver_check(r, i, o, NOON, is_test, &test);
	cr_assert(o[0].go);
	cr_assert(o[1].go);
	STOPPED(o[2], "cancelled", "cap_exceeded", "cap_exceeded");
	STOPPED(o[3], "cancelled", "cap_exceeded", "cap_exceeded");
	/* another channel or tenant is another count */
	r[3].d.channel = "email";
	deliver_check(r, 3, o, NOON, is_test, &test);
	cr_assert(o[3].go);
	r[2].d.tenant_id = "t2";
	deliver_check(r, 2, o, NOON, is_test, &test);
	cr_assert(o[2].go);
}

Test(deliver, postpone_gives_the_attempt_back)
{
	struct claim_row r = row("sms");
	struct outcome	 o = decide(&r, NOON, false);

	deliver_postpone(&o, NOON);
	cr_assert(!o.go);
	cr_assert_str_eq(o.status, "scheduled");
	cr_assert_eq(o.reschedule, NOON + POSTPONE_SECS);
	cr_assert_eq(o.give_back, 1);
}

Test(deliver, first_of_tenant_and_reached)
{
	struct claim_row r[3];
	struct outcome	 o[3];

	memset(o, 0, sizeof(o));
	r[0] = row("sms"), r[1] = row("email"), r[2] = row("sms");
	r[1].d.tenant_id = "t2";
	r[2].d.lead_id = "l2";
	o[0].counted = o[1].counted = o[2].counted = true;
	cr_assert(deliver_first_of_tenant(r, o, 0));
	cr_assert(deliver_first_of_tenant(r, o, 1));
	cr_assert(!deliver_first_of_tenant(r, o, 2));
	deliver_reached(r, o, 3, 0);
	cr_assert(o[1].reached);	/* l1 again */
	cr_assert(!o[2].reached);
}

/*
 * The same contact in either slot (pii.h: two slots during a key
 * rotation's re-key): a value in slot 2 alone, or slot 1 alone, matches;
 * values in different slots do not.
 */
Test(deliver, same_contact_either_slot)
{
	static const unsigned char x[] = "bidx-x", y[] = "bidx-y";
	struct claim_row a = row("sms"), b = row("sms");

	cr_assert(deliver_same_contact(&a, &b));
	b.tel_bidx = (struct dbbin){ y, sizeof(y) };
	cr_assert_not(deliver_same_contact(&a, &b));
	a.tel_bidx2 = b.tel_bidx2 = (struct dbbin){ x, sizeof(x) };
	cr_assert(deliver_same_contact(&a, &b), "slot 2 matches");
	a.tel_bidx = (struct dbbin){ NULL, 0 };
	b.tel_bidx = (struct dbbin){ NULL, 0 };
	cr_assert(deliver_same_contact(&a, &b), "slot 1 empty after a switch");
	b.tel_bidx2 = (struct dbbin){ NULL, 0 };
	b.tel_bidx = (struct dbbin){ x, sizeof(x) };
	cr_assert_not(deliver_same_contact(&a, &b), "slots do not cross");
	/* the channel's index: email rows compare email indexes */
	a = row("email");
	b = row("email");
	b.tel_bidx = (struct dbbin){ y, sizeof(y) };
	cr_assert(deliver_same_contact(&a, &b));
}
