/*
 * formback-deliver: sends due deliveries (design 1, 6; contract:
 * Delivery, Lead suppress_reason, Events delivery.sent/failed).
 *
 * One bounded pass: (1) claims whose lease ran out end failed with
 * error_code outcome_unknown when their provider call had begun -- never
 * sent again blindly -- and go back to scheduled when it had not; (2) the
 * collector's intake queue is applied as it stood when the pass began, so
 * every conversion acknowledged before it is seen; (3) due deliveries are
 * claimed with one atomic UPDATE that stamps this pass's token and a
 * lease, read with everything their checks need (the suppression list
 * included), and given their short links, in one transaction; each
 * contact's sends of the day are read once it is committed; (4) each is
 * re-checked right before the batch's sends (step removed, conversion, a
 * site held for a flood, delivery switch, campaign and scenario state,
 * contact, suppression list, daily cap, SMS quiet hours), then, right
 * before its own send, the queue is looked at once more for a conversion
 * of its lead (send_guard), the row is stamped as being sent, it is
 * rendered with its short links, sent, and finished with a conditional
 * update on the token, with its outbox event, as soon as the provider has
 * answered: in the next send's guard transaction, or with the rest of the
 * batch after the last.  A send begins only while its claim's lease
 * outlasts it (a slow provider's rest wait for a later pass), so a claim
 * never lapses under a send.  Safe to run as several copies on several
 * hosts.
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <sodium.h>

#include "events.h"
#include "formback.h"
#include "links.h"
#include "deliver-rules.h"
#include "ingest.h"
#include "pass.h"
#include "url.h"
#include "pii.h"
#include "send.h"
#include "sms.h"
#include "testsend.h"
#include "message.h"
#include "db/store.h"

#define RETRY_MAX	3
#define BATCH		DELIVERY_CLAIM_MAX	/* claimed at a time: 16 */
#define JOBS_DEFAULT	4	/* claimers at once (--jobs) */
#define BUDGET		50	/* seconds; cron starts it every minute */
#define TURN		16	/* tenants a claim at most */
#define TENANTS_READ	10000	/* tenants with due deliveries read at once */
/* queued events applied to reach a conversion */
#define GUARD_APPLY	10000

/* a send begins only when it can end, guard included, within its lease */
#define SEND_BY		(DELIVERY_LEASE - 2 * SEND_TIMEOUT)

struct links {
	char	 click[1024];
	char	 optout[1024];
	char	 open[1024];	/* the open pixel, emails only */
};

/* What a claimer counts; the parent adds up its children's. */
struct counts {
	int	 sent, failed, cancelled, suppressed, later, errors, returned;
	int	 after_conversion;
	long	 taken;		/* deliveries claimed (against --limit) */
};

/* One pass of formback-deliver: a claimer's state. */
struct deliver {
	struct pass	 p;
	struct conf	 conf;
	struct db	 db;
	struct ring	 ring;		/* tenants with due deliveries */
	long long	 now;		/* the pass's clock at this batch */
	char		 month[8];	/* the pass's JST month, YYYY-MM */
	struct counts	 n;
	int		 applied, opmail, invites, codes, tests;
	unsigned long long purged;
	struct outcome	 outs[BATCH];
	struct links	 links[BATCH];
	struct link_new	 nl[LINKS_ADD_MAX];
	char		 href[BATCH][URL_MAX + 1];
};




/*
 * Write one outcome with its event, while this pass still holds the
 * claim, in the caller's transaction.
 */
static enum fb_err
finish_one(struct deliver *dv, const struct delivery_ref *d, const char *token,
    struct outcome *o)
{
	char		 at[32], re[32];
	struct delivery_outcome w = { .id = d->id, .token = token,
	    .status = o->status, .error_code = o->error_code,
	    .cancel_reason = o->cancel_reason, .at = at,
	    .provider_id = o->provider_id[0] != '\0' ? o->provider_id : NULL,
	    .segments = o->segments, .give_back = o->give_back };
	bool		 held;
	enum fb_err	 e;

	time_sql(dv->now, at);
	if (o->reschedule > 0) {
		time_sql(o->reschedule, re);
		w.reschedule = re;
	}
	if ((e = db_delivery_finish(&dv->db, &w, &held)) != FB_OK)
		return e;
	if (!held)	/* another pass took it over: leave its outcome alone */
		return FB_OK;
	/* a counted message that did not leave frees its place in the quota */
	if (o->counted && strcmp(o->status, "sent") != 0 &&
	    (e = db_usage_give_back(&dv->db, d->tenant_id, dv->month)) != FB_OK)
		return e;
	if (o->lead_reason != NULL &&
	    (e = db_lead_suppress(&dv->db, d->tenant_id,
	    d->lead_id, o->lead_reason)) != FB_OK)
		return e;
	if (strcmp(o->status, "sent") == 0 && !o->reached &&
	    (e = db_lead_sent(&dv->db, d->tenant_id, d->lead_id)) != FB_OK)
		return e;
	if (strcmp(o->status, "sent") == 0 || strcmp(o->status, "failed") == 0)
		e = delivery_event(&dv->db, d->tenant_id, d->id, d->lead_id,
		    d->campaign_id, d->channel, d->step_no, o->status,
		    o->error_code);
	return e;
}

/* One outcome in its own transaction. */
static enum fb_err
finish(struct deliver *dv, const struct delivery_ref *d, const char *token,
    struct outcome *o)
{
	enum fb_err	 e;

	if ((e = db_begin(&dv->db)) != FB_OK)
		return e;
	if ((e = finish_one(dv, d, token, o)) == FB_OK &&
	    (e = db_commit(&dv->db)) == FB_OK)
		return FB_OK;
	db_rollback(&dv->db);
	return e;
}


/*
 * Short links for every delivery of the batch, added in one statement in
 * the claim's transaction.
 */
static enum fb_err
make_links(struct deliver *dv, const struct dbrows *claimed)
{
	const struct claim_row *d = claimed->row;
	struct link_new	*nl = dv->nl;
	struct links	*l = dv->links;
	char		(*href)[URL_MAX + 1] = dv->href;
	char		 top[300];
	size_t		 i, n = 0, k;
	enum fb_err	 e;

	for (i = 0; i < claimed->n; i++) {
		/*
		 * The continuation page: the message's link, else the page
		 * the lead left its form on, else the site's top page.
		 */
		if ((d[i].link_url == NULL || !url_normalize(d[i].link_url,
		    href[i])) && (d[i].landing_url == NULL ||
		    !url_normalize(d[i].landing_url, href[i]))) {
			snprintf(top, sizeof(top), "https://%s/",
			    d[i].site_domain);
			if (!url_normalize(top, href[i]))
				snprintf(href[i], sizeof(href[i]), "%s", top);
		}
		/* stored only as the URL parser wrote it (STYLE 23) */
		nl[n++] = (struct link_new){ &d[i].d, "click", href[i], "" };
		nl[n++] = (struct link_new){ &d[i].d, "optout", NULL, "" };
		if (strcmp(d[i].d.channel, "email") == 0)
			nl[n++] = (struct link_new){ &d[i].d, "open", NULL,
			    "" };
	}
	if ((e = links_create(&dv->db, nl, n)) != FB_OK)
		return e;
	for (i = 0, k = 0; i < claimed->n; i++) {
		snprintf(l[i].click, sizeof(l[i].click), "%s/r/%s",
		    dv->conf.base_url, nl[k++].token);
		snprintf(l[i].optout, sizeof(l[i].optout), "%s/u/%s",
		    dv->conf.base_url, nl[k++].token);
		l[i].open[0] = '\0';
		if (strcmp(d[i].d.channel, "email") == 0)
			snprintf(l[i].open, sizeof(l[i].open), "%s/o/%s",
			    dv->conf.base_url, nl[k++].token);
	}
	return FB_OK;
}

/* claim()'s arguments, for its transaction claim_tx() */
struct claim_args {
	struct deliver	*dv;
	const char	*token, *at;
	const char	(*tenants)[UUID_STRLEN + 1];
	size_t		 nt;
	int		 share;
	int		*got;
	struct dbrows	*claimed;
};

static enum fb_err
claim_tx(struct db *d, void *arg)
{
	struct claim_args *a = arg;
	enum fb_err	 e;

	dbrows_free(a->claimed);	/* a try before this one's */
	if ((e = db_deliveries_claim(d, a->token, a->at, a->tenants, a->nt,
	    a->share, a->got, a->claimed)) != FB_OK)
		return e;
	return a->claimed->n == 0 ? FB_OK : make_links(a->dv, a->claimed);
}

/*
 * Claim up to `share` due deliveries of each of the `nt` tenants for
 * `token` (db_deliveries_claim()) and make their short links, in one
 * transaction committed before any message leaves (db_tx(): made again
 * when it crossed another pass's); nothing is claimed when it fails.
 */
static enum fb_err
claim(struct deliver *dv, const char *token, const char *at,
    const char (*tenants)[UUID_STRLEN + 1], size_t nt, int share, int got[],
    struct dbrows *claimed)
{
	struct claim_args a = { dv, token, at, tenants, nt, share, got,
	    claimed };
	enum fb_err	 e;

	memset(claimed, 0, sizeof(*claimed));
	if ((e = db_tx(&dv->db, claim_tx, &a)) != FB_OK)
		dbrows_free(claimed);
	return e;
}

/* test_recipient_fn: the contact of a claimed row is a test recipient. */
static bool
test_recipient(void *arg, const struct claim_row *d)
{
	struct deliver	*dv = arg;
	const struct dbbin *b1 = deliver_bidx(d, 0), *b2 = deliver_bidx(d, 1);
	bool		 yes;

	return (b1->p != NULL || b2->p != NULL) &&
	    db_test_recipient_is(&dv->db, d->d.tenant_id,
	    strcmp(d->d.channel, "sms") == 0 ? "tel" : "email", b1, b2,
	    &yes) == FB_OK && yes;
}

/* The monthly quota of claimed row i's tenant: its own, else its plan's. */
static long
quota_of(const struct claim_row *d)
{
	enum plan	 p;

	if (d->send_quota >= 0)
		return (long)d->send_quota;
	if (!plan_parse(d->plan, &p))
		p = PLAN_FREE;
	return plans[p].monthly_sends;
}

/*
 * usage.threshold_reached (contract: Events) and the notice to owners and
 * admins, in the transaction that crossed `pct` percent of the quota.
 */
static enum fb_err
announce(struct deliver *dv, const char *tenant, int pct, long used, long quota,
    const char *plan)
{
	json_object	*ev, *mail;
	enum fb_err	 e;

	ev = json_object_new_object();
	jadd_int(ev, "threshold_percent", pct);
	jadd_str(ev, "period", dv->month);
	jadd_int(ev, "used", used);
	jadd_int(ev, "quota", quota);
	jadd_str(ev, "plan", plan);
	e = db_outbox_add(&dv->db, tenant, "webhook", "usage.threshold_reached",
	    json_text(ev));
	if (e == FB_OK) {
		mail = json_object_new_object();
		json_object_object_add(mail, "usage", json_object_get(ev));
		e = db_opmail_add(&dv->db, tenant, "usage_threshold", mail);
		json_object_put(mail);
	}
	json_object_put(ev);
	return e;
}


/*
 * Announce the thresholds (80% and 100% of the quota) that the messages
 * of row d's tenant which have left dv->now reach, once each per JST dv->month
 * (contract: Events, usage.threshold_reached): after the batch's
 * outcomes, so that messages counted but given back (a failure, an
 * invalid contact) announce nothing.  Its dv->month's row locked.
 */
static void
announce_usage(struct deliver *dv, const struct claim_row *d)
{
	const char	*tenant = d->d.tenant_id;
	long long	 sends;
	long		 quota = quota_of(d);
	int		 told, pct, k;
	bool		 found;
	static const int thr[2] = { 80, 100 };
	enum fb_err	 e;

	if (quota <= 0 || (e = db_begin(&dv->db)) != FB_OK)
		return;
	if ((e = db_usage_lock(&dv->db, tenant, dv->month, false, &sends, &told,
	    &found)) == FB_OK) {
		for (k = 0, pct = told; k < 2 && e == FB_OK; k++)
			if (told < thr[k] &&
			    sends * 100 >= (long long)thr[k] * quota) {
				e = announce(dv, tenant, thr[k], (long)sends,
				    quota, d->plan);
				pct = thr[k];
			}
		if (e == FB_OK && pct != told)
			e = db_usage_set(&dv->db, tenant, dv->month, sends,
			    pct);
	}
	if (e == FB_OK)
		e = db_commit(&dv->db);
	if (e != FB_OK) {
		db_rollback(&dv->db);
		fprintf(stderr, "formback-deliver: cannot announce the monthly "
		    "usage: %s\n", fb_strerror(e));
	}
}

/*
 * Count the batch's messages that passed their checks against each
 * tenant's quota for the JST dv->month, before any leaves: one transaction
 * per tenant, its dv->month's row locked.  A Free tenant's messages past the
 * quota are suppressed `free_quota_exhausted`; a paid plan's go out
 * (billed beyond the quota); announce_usage(dv) announces 80% and 100%
 * once they have left.  When the count cannot be taken, the messages
 * wait a minute.
 */
static void
count_quota(struct deliver *dv, const struct dbrows *claimed, struct outcome *o)
{
	const struct claim_row *d = claimed->row;
	const char	*tenant;
	size_t		 i, j;
	long long	 want, allowed, sends, quota;
	int		 told;
	bool		 found, near = false;
	enum fb_err	 e;

	for (i = 0; i < claimed->n; i++) {
		if (!o[i].go || o[i].counted)
			continue;
		tenant = d[i].d.tenant_id;
		for (want = 0, j = i; j < claimed->n; j++)
			if (o[j].go && strcmp(d[j].d.tenant_id, tenant) == 0)
				want++;
		allowed = 0;
		if ((e = db_begin(&dv->db)) == FB_OK &&
		    (e = db_usage_lock(&dv->db, tenant, dv->month, true, &sends,
		    &told, &found)) == FB_OK) {
			quota = quota_of(&d[i]);
			allowed = strcmp(d[i].plan, "free") != 0 ? want :
			    quota - sends < 0 ? 0 : quota - sends < want ?
			    quota - sends : want;
			/* announced once they have left: announce_usage(dv) */
			near = quota > 0 && told < 100 &&
			    (sends + allowed) * 100 >=
			    (told < 80 ? 80 : 100) * quota;
			if ((e = db_usage_set(&dv->db, tenant, dv->month,
			    sends + allowed, told)) == FB_OK)
				e = db_commit(&dv->db);
		}
		if (e != FB_OK) {
			db_rollback(&dv->db);
			fprintf(stderr,
			    "formback-deliver: cannot count the monthly "
			    "quota: %s\n", fb_strerror(e));
		}
		for (j = i; j < claimed->n; j++) {
			if (!o[j].go || strcmp(d[j].d.tenant_id, tenant) != 0)
				continue;
			if (e != FB_OK)
				deliver_postpone(&o[j], dv->now);
			else if (allowed > 0) {
				o[j].counted = true;
				o[j].near = near;
				allowed--;
			} else {
				o[j].go = false;
				o[j].status = "suppressed";
				o[j].lead_reason = "free_quota_exhausted";
			}
		}
	}
}

/*
 * Whether an opened contact still normalises as the collector would keep
 * it: a mobile number for an SMS, an email address for an email.
 */
static bool
contact_sendable(const char *to, bool sms)
{
	char		 norm[256];
	enum tel_kind	 k;
	bool		 ok;

	ok = sms ? contact_tel_normalize(to, norm, &k) && k == TEL_MOBILE :
	    contact_email_normalize(to, norm);
	sodium_memzero(norm, sizeof(norm));
	return ok;
}

/* Render and send one delivery that passed its checks and was counted. */
static void
deliver(struct deliver *dv, const struct claim_row *d, const struct links *l,
    struct outcome *o)
{
	bool		 sms = strcmp(d->d.channel, "sms") == 0;
	const struct dbbin *sealed = sms ? &d->tel_sealed : &d->email_sealed;
	char		 to[256];
	const char	*click = l->click, *optout = l->optout;
	struct buf	 body, html, subj;
	struct sms_count parts;
	json_object	*blocks;
	enum send_result sr;

	/* the key the lead's contacts were sealed under, current or earlier */
	if (!pii_open_any(&dv->conf, d->pii_key_id, d->d.tenant_id,
	    d->d.lead_id, sms ? "tel" : "email", sealed->p, sealed->n, to,
	    sizeof(to), NULL)) {
		o->status = "failed";
		o->error_code = "pii_error";
		return;
	}
	/* what the rules of today would not have captured is not sent */
	if (!contact_sendable(to, sms)) {
		sodium_memzero(to, sizeof(to));
		o->status = "cancelled";
		o->cancel_reason = "invalid_contact";
		o->lead_reason = "invalid_contact";
		return;
	}
	buf_init(&body, 1u << 20);
	buf_init(&html, 4u << 20);
	buf_init(&subj, 4096);
	if (sms) {
		if (vars_expand(&body, d->body != NULL ? d->body : "",
		    d->product_name, click, optout) != FB_OK)
			sr = SEND_FAIL;
		else {
			/*
			 * the text as it leaves: every link and name expanded
			 */
			if (sms_count(body.data, dv->conf.base_url, &parts))
				o->segments = parts.segments;
			sr = send_sms(&dv->conf, to, body.data, d->d.id,
			    o->provider_id, sizeof(o->provider_id),
			    o->error_buf, sizeof(o->error_buf));
		}
	} else {
		blocks = d->blocks != NULL ?
		    json_tokener_parse(d->blocks) : NULL;
		if (blocks == NULL)
			blocks = json_object_new_array();
		if (vars_expand(&subj, d->subject != NULL ? d->subject : "",
		    d->product_name, click, optout) != FB_OK ||
		    (d->body_html != NULL ? body_html_render(d->body_html,
		    d->product_name, click, optout, l->open, &html) :
		    blocks_html(blocks, d->product_name, click, optout, l->open,
		    &html)) != FB_OK ||
		    buf_printf(&body, "%s\n\n%s\n\n配信停止: %s\n", subj.data,
		    click, optout) != FB_OK)
			sr = SEND_FAIL;
		else
			sr = send_email(&dv->conf, to, subj.data, body.data,
			    html.data, optout, d->d.id,
			    o->error_buf, sizeof(o->error_buf));
		json_object_put(blocks);
	}
	sodium_memzero(to, sizeof(to));
	buf_release(&body);
	buf_release(&html);
	buf_release(&subj);
	if (sr == SEND_OK)
		return;
	o->error_code = o->error_buf[0] ? o->error_buf : "render_failed";
	if (sr == SEND_RETRY && d->attempts < RETRY_MAX) {
		o->status = "scheduled";
		o->reschedule = dv->now + 300 * d->attempts;
		return;
	}
	o->status = "failed";
}

/*
 * Claims that outlived their lease (their pass was killed, or lost its
 * database): one whose provider call had begun may or may not have left,
 * and ends failed with outcome_unknown, never sent again blindly; one
 * never tried goes back to scheduled, its attempt given back (issue 11).
 */
static enum fb_err
recover(struct deliver *dv)
{
	struct dbrows	 st;
	const struct stale_row *r;
	struct outcome	 o;
	char		 at[32];
	size_t		 i;
	enum fb_err	 e;

	time_sql(dv->now, at);
	if ((e = db_deliveries_stale(&dv->db, at, &st)) != FB_OK)
		return e;
	for (i = 0, r = st.row; i < st.n; i++) {
		memset(&o, 0, sizeof(o));
		if (r[i].attempt_begun) {
			o.status = "failed";
			o.error_code = "outcome_unknown";
		} else {
			o.status = "scheduled";
			o.give_back = 1;
		}
		if (finish(dv, &r[i].d, r[i].claim_token, &o) != FB_OK)
			continue;
		if (strcmp(o.status, "failed") == 0)
			dv->n.failed++;
		else
			dv->n.returned++;
	}
	dbrows_free(&st);
	return FB_OK;
}

/*
 * Right before the send of claimed row d (issue 11: a message must never
 * follow a conversion the collector has acknowledged), the row is stamped
 * as being sent (attempt_started_at), on disk before the provider is
 * called, only while its lead is not converted and the intake queue holds
 * no conversion of its tenant.  That common case is one short transaction
 * that also records the outcome of the batch's previous send `prev` (NULL
 * for none; its provider has just answered, issue 19); when that fails,
 * prev is recorded on its own.  Otherwise the lead is read again and the
 * queue looked at for a conversion of its visitor or of a visitor whose
 * lead has its contact; when there is one, that part of the queue is
 * applied first (waiting for the turn of a worker that has it), the lead
 * read again, and the row stamped when still clear.  Returns true when the
 * send may go; otherwise *o holds the outcome: cancelled converted, or
 * scheduled again for a later pass when the conversion could not be
 * applied or the claim was lost.
 */
static bool
send_guard(struct deliver *dv, const struct claim_row *d, const char *token,
    struct outcome *o, const struct claim_row *prev, struct outcome *po)
{
	long long	 part[2] = { -1, -1 };
	int		 k, n, round;
	bool		 committed = false, stamped = false, converted = false;
	bool		 pending = false, held = false;
	enum fb_err	 e;

	/*
	 * prev's outcome and, when the lead and the queue are clear, the stamp
	 */
	if ((e = db_begin(&dv->db)) == FB_OK) {
		if (prev != NULL)
			e = finish_one(dv, &prev->d, token, po);
		if (e == FB_OK)
			e = db_delivery_attempt_clear(&dv->db, &d->d, token,
			    &stamped);
		if (e == FB_OK && (e = db_commit(&dv->db)) == FB_OK)
			committed = true;
		else {
			db_rollback(&dv->db);
			stamped = false;
		}
	}
	if (prev != NULL)
		po->recorded = committed || finish(dv, &prev->d, token,
		    po) == FB_OK;
	o->go = stamped;
	if (stamped)
		return true;
	/* why not: the lead, a conversion queued (its part applied first) */
	for (e = FB_OK, round = 0; round < 2 && e == FB_OK && !converted;
	    round++) {
		if (round == 1 && !pending)
			break;
		for (k = 0; round == 1 && k < 2 && e == FB_OK; k++)
			if (part[k] >= 0 && (k == 0 || part[1] != part[0]))
				e = tag_apply_part(&dv->db, &dv->conf,
				    (unsigned)part[k], GUARD_APPLY, true, &n);
		if (e == FB_OK &&
		    (e = db_delivery_send_guard(&dv->db, d->d.tenant_id,
		    d->d.lead_id, &converted, part)) == FB_OK)
			pending = part[0] >= 0 || part[1] >= 0;
	}
	if (e == FB_OK && converted) {
		o->status = "cancelled";
		o->cancel_reason = "converted";
		return false;
	}
	if (e != FB_OK || pending ||
	    db_delivery_attempt(&dv->db, d->d.id, token, &held) != FB_OK) {
		/* not seen through yet: a later pass sends or cancels it */
		deliver_postpone(o, dv->now);
		return false;
	}
	if (!held) {
		/* another pass took the claim over: its outcome stands */
		o->status = "scheduled";
		return false;
	}
	o->go = true;
	return true;
}

/*
 * Whether the batch claimed at claimed_at (time_mono()) may begin one
 * more send after `sends`: only when it can end, guard included, within
 * the claim's lease (SEND_BY).
 */
static bool
lease_holds(int64_t claimed_at, int sends)
{
	int64_t	 age = time_mono() - claimed_at;

#ifdef FB_FAULT_POINTS
	const char	*slow = getenv("FB_FAULT_SEND_SECONDS");

	/*
	 * tests: every send taken as lasting that many seconds, and nothing
	 * else as taking any (the clock's whole seconds passing meanwhile
	 * made the count of sends depend on the host's speed)
	 */
	if (slow != NULL)
		age = (int64_t)sends * strtol(slow, NULL, 10);
#endif
	return age <= SEND_BY;
}


/*
 * The deliveries of a batch sent to a lead already converted when their
 * send began: 0 is the rule, anything else is logged and counted.
 */
static void
count_after_conversion(struct deliver *dv, const struct dbrows *claimed)
{
	const struct claim_row *d = claimed->row;
	const char	*ids[DELIVERY_CLAIM_MAX];
	size_t		 i;
	long long	 n;

	if (claimed->n == 0)
		return;
	for (i = 0; i < claimed->n; i++)
		ids[i] = d[i].d.id;
	if (db_sent_after_conversion(&dv->db, ids, claimed->n, &n) != FB_OK)
		return;
	if (n > 0) {
		logx(LOG_ERR,
		    "%lld message(s) sent after their lead's conversion", n);
		dv->n.after_conversion += (int)n;
	}
}

/*
 * The checks of a claimed batch, its count against the quotas, and its
 * sends: each send's outcome is recorded as soon as the provider has
 * answered, so a pass killed later in the batch leaves only the send in
 * flight to outcome_unknown (issue 19): with the next send's guard and
 * stamp, or, after the last, with the rest (batch_finish()).
 */
static void
batch_send(struct deliver *dv, const struct dbrows *claimed, const char *token,
    int64_t claimed_at, const char *since)
{
	const struct claim_row *d = claimed->row;
	struct outcome	*outs = dv->outs, *sent;
	int		 sends;
	size_t		 i;
	bool		 go;
	enum fb_err	 e;

	/* the daily cap's counts read once the claim is committed */
	e = db_claim_day_sends(&dv->db, token, since, (struct dbrows *)claimed);
	for (i = 0; i < claimed->n; i++) {
		deliver_check(d, i, outs, dv->now, test_recipient, dv);
		if (e != FB_OK)
			deliver_postpone(&outs[i], dv->now);
	}
	count_quota(dv, claimed, outs);
	for (i = 0, sent = NULL, sends = 0; i < claimed->n; i++) {
		if (!outs[i].go)
			continue;
		/* a slow provider: the rest wait for a later pass */
		if (!lease_holds(claimed_at, sends)) {
			deliver_postpone(&outs[i], dv->now);
			continue;
		}
		sends++;
		go = send_guard(dv, &d[i], token, &outs[i], sent != NULL ?
		    &d[sent - outs] : NULL, sent);
		if (sent != NULL && sent->recorded &&
		    strcmp(sent->status, "sent") == 0)
			deliver_reached(d, outs, claimed->n,
			    (size_t)(sent - outs));
		sent = NULL;
		if (go) {
			deliver(dv, &d[i], &dv->links[i], &outs[i]);
			sent = &outs[i];
		}
	}
}

/* An outcome into the pass's counts. */
static void
tally(struct counts *n, const struct outcome *o)
{
	if (strcmp(o->status, "sent") == 0)
		n->sent++;
	else if (strcmp(o->status, "failed") == 0)
		n->failed++;
	else if (strcmp(o->status, "cancelled") == 0)
		n->cancelled++;
	else if (strcmp(o->status, "suppressed") == 0)
		n->suppressed++;
	else
		n->later++;
}

/*
 * The rest of the batch (the last send, what the checks stopped, what
 * could not be recorded) in one transaction; one by one if that fails.
 * Then the thresholds of the monthly quota reached, and the counts.
 */
static void
batch_finish(struct deliver *dv, const struct dbrows *claimed,
    const char *token)
{
	const struct claim_row *d = claimed->row;
	struct outcome	*outs = dv->outs;
	size_t		 i;
	enum fb_err	 e;

	e = db_begin(&dv->db);
	for (i = 0; e == FB_OK && i < claimed->n; i++)
		if (!outs[i].recorded)
			e = finish_one(dv, &d[i].d, token, &outs[i]);
	if (e == FB_OK)
		e = db_commit(&dv->db);
	else
		db_rollback(&dv->db);
	for (i = 0; i < claimed->n; i++) {
		if (e != FB_OK && !outs[i].recorded &&
		    finish(dv, &d[i].d, token, &outs[i]) != FB_OK) {
			fprintf(stderr,
			    "formback-deliver: delivery '%s': cannot "
			    "record its outcome\n", d[i].d.id);
			dv->n.errors++;
			continue;
		}
		/*
		 * The first of each tenant's counted messages announces,
		 * when the count reached a threshold not announced yet.
		 */
		if (outs[i].counted && outs[i].near &&
		    deliver_first_of_tenant(d, outs, i))
			announce_usage(dv, &d[i]);
		tally(&dv->n, &outs[i]);
	}
	count_after_conversion(dv, claimed);
}

/* Fill the empty ring with the tenants that have deliveries due at `at`. */
static enum fb_err
refill(struct deliver *dv, const char *at)
{
	struct dbrows	 t;
	enum fb_err	 e;

	if ((e = db_deliveries_due_tenants(&dv->db, at, TENANTS_READ,
	    &t)) != FB_OK)
		return e;
	e = ring_fill(&dv->ring, &t);
	dbrows_free(&t);
	return e;
}

/*
 * The next turn of the ring: up to TURN tenants, a share each of a batch
 * (BATCH in all, less what --limit leaves), claimed for `token`; a tenant
 * with fewer due than its share is dropped.  The ring is filled again
 * when it is empty, unless its last filling claimed nothing.  An empty
 * claim: nothing is due, or the pass is over.
 */
static enum fb_err
turn(struct deliver *dv, const char *token, const char *at, int *filled,
    struct dbrows *claimed)
{
	char		 keys[TURN][UUID_STRLEN + 1];
	int		 got[TURN], share;
	long		 want = pass_room(&dv->p, BATCH);
	size_t		 n, k;
	enum fb_err	 e;

	memset(claimed, 0, sizeof(*claimed));
	if (want == 0)
		return FB_OK;
	if (dv->ring.n == 0) {
		if (*filled == dv->n.sent + dv->n.failed + dv->n.cancelled +
		    dv->n.suppressed + dv->n.later)
			return FB_OK;
		*filled = dv->n.sent + dv->n.failed + dv->n.cancelled +
		    dv->n.suppressed + dv->n.later;
		if ((e = refill(dv, at)) != FB_OK || dv->ring.n == 0)
			return e;
	}
	n = ring_next(&dv->ring, keys,
	    (size_t)want < TURN ? (size_t)want : TURN);
	share = (int)(want / (long)n);
	if ((e = claim(dv, token, at, (const char (*)[UUID_STRLEN + 1])keys, n,
	    share, got, claimed)) != FB_OK)
		return e;
	for (k = 0; k < n; k++)
		if (got[k] < share)
			ring_drop(&dv->ring, keys[k]);
	pass_took(&dv->p, (long)claimed->n);
	return FB_OK;
}

/*
 * One claimer: claims and sends due deliveries a batch at a time, in
 * turns over the tenants that have them, on its own database connection,
 * until none is due or the pass is over.  Returns the exit status.
 */
static int
claimer(struct deliver *dv)
{
	struct dbrows	 claimed;
	char		 token[UUID_STRLEN + 1], at[32], since[32];
	int64_t		 claimed_at;
	int		 filled = -1;
	enum fb_err	 e;

	if (!pass_db_open(&dv->p, &dv->db, &dv->conf))
		return 1;
	ring_init(&dv->ring);
	/* the daily cap's day */
	time_sql(time_jst_midnight(dv->p.now), since);
	for (;;) {
		/* a connection lost in the last batch is opened again */
		if ((e = db_ensure(&dv->db)) != FB_OK) {
			fprintf(stderr,
			    "formback-deliver: cannot connect to the "
			    "database\n");
			dv->n.errors++;
			break;
		}
		uuid_v7(token);
		/* the pass's clock, on by the time the pass has taken so far */
		claimed_at = time_mono();
		dv->now = pass_clock(&dv->p);
		time_sql(dv->now, at);
		if ((e = turn(dv, token, at, &filled, &claimed)) != FB_OK) {
			fprintf(stderr,
			    "formback-deliver: cannot claim deliveries: "
			    "%s\n", fb_strerror(e));
			dv->n.errors++;
			break;
		}
		if (claimed.n == 0)
			break;
		batch_send(dv, &claimed, token, claimed_at, since);
		batch_finish(dv, &claimed, token);
		dbrows_free(&claimed);
	}
	dbrows_free(&claimed);
	ring_release(&dv->ring);
	db_close(&dv->db);
	return dv->n.errors > 0 ? 1 : 0;
}

/* Add a child's counts to the pass's. */
static void
add_counts(struct counts *to, const struct counts *n)
{
	to->sent += n->sent;
	to->failed += n->failed;
	to->cancelled += n->cancelled;
	to->suppressed += n->suppressed;
	to->later += n->later;
	to->errors += n->errors;
	to->returned += n->returned;
	to->after_conversion += n->after_conversion;
	to->taken += n->taken;
}

/*
 * Runs p.jobs claimers as child processes, each with an equal share of
 * --limit when there is one; a child dies with its parent (a killed pass
 * stops sending at once, as one process would).  Their counts come back
 * through a pipe.  Returns the worst exit status.
 */
static int
claimers(struct deliver *dv)
{
	struct counts	 c;
	int		 fd[2], st, rc = 0;
	long		 k, jobs = dv->p.jobs, limit = dv->p.limit;
	pid_t		 pid;

	if (pipe(fd) == -1) {
		perror("formback-deliver: pipe");
		return 1;
	}
	fflush(NULL);
	for (k = 0; k < jobs; k++) {
		if (limit > 0 && (dv->p.limit = limit / jobs +
		    (k < limit % jobs ? 1 : 0)) == 0)
			break;
		if ((pid = fork()) == -1) {
			perror("formback-deliver: fork");
			rc = 1;
			break;
		}
		if (pid == 0) {
			close(fd[0]);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1)
				_exit(1);
			/*
			 * a child reports its own counts, not the parent's too
			 */
			memset(&dv->n, 0, sizeof(dv->n));
			st = claimer(dv);
			dv->n.taken = dv->p.done;
			if (write(fd[1], &dv->n,
			    sizeof(dv->n)) != sizeof(dv->n))
				st = 1;
			fflush(NULL);
			_exit(st);
		}
	}
	dv->p.limit = limit;
	close(fd[1]);
	while (read(fd[0], &c, sizeof(c)) == sizeof(c))
		add_counts(&dv->n, &c);
	close(fd[0]);
	while ((pid = wait(&st)) != -1 || errno == EINTR)
		if (pid != -1 && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
			rc = 1;
	return rc;
}

/*
 * The pass's end, when its budget or --limit stopped it: the deliveries
 * still due, for the next pass (the queue's depth, as formbackctl status
 * counts it).
 */
static void
leave(struct deliver *dv)
{
	struct dbrows	 q;
	const struct queue_row *r;
	size_t		 i;

	if (!pass_over(&dv->p) || db_ops_queues(&dv->db, &q) != FB_OK)
		return;
	for (i = 0, r = q.row; i < q.n; i++)
		if (strcmp(r[i].name, "deliveries") == 0)
			pass_leave(&dv->p, "due deliveries", (long)r[i].depth);
	dbrows_free(&q);
}

/*
 * What the pass does besides the deliveries, on a connection of its own
 * once the claimers are done: the retention purge, the outbox's emails
 * to operators (URL takeover notices, usage alerts), members' links and
 * test sends.  Returns false when one of them failed.
 */
static bool
chores(struct deliver *dv)
{
	bool	 ok = true;

	if (!pass_db_open(&dv->p, &dv->db, &dv->conf))
		return false;
	pass_took(&dv->p, dv->n.taken);
	leave(dv);
	if (db_retention_purge(&dv->db, &dv->conf, &dv->purged) != FB_OK) {
		fprintf(stderr,
		    "formback-deliver: cannot purge expired rows\n");
		ok = false;
	}
	if (opmail_pass(&dv->db, &dv->conf, &dv->opmail) != FB_OK) {
		fprintf(stderr,
		    "formback-deliver: cannot send operator emails\n");
		ok = false;
	}
	if (invitation_pass(&dv->db, &dv->conf, &dv->invites) != FB_OK) {
		fprintf(stderr,
		    "formback-deliver: cannot send members' links\n");
		ok = false;
	}
	if (testsend_pass(&dv->db, &dv->conf, &dv->codes,
	    &dv->tests) != FB_OK) {
		fprintf(stderr, "formback-deliver: cannot send test sends\n");
		ok = false;
	}
	db_close(&dv->db);
	return ok;
}

/*
 * Before the claims: stale claims recovered, and the intake queue as it
 * stood when the pass began applied, so that every conversion
 * acknowledged before the pass is seen before a send (issue 11); what
 * arrives later send_guard() looks for.
 */
static bool
prepare(struct deliver *dv)
{
	enum fb_err	 e;

	if (!pass_db_open(&dv->p, &dv->db, &dv->conf))
		return false;
	dv->now = dv->p.now;
	if ((e = recover(dv)) != FB_OK)
		fprintf(stderr,
		    "formback-deliver: cannot recover stale claims: "
		    "%s\n", fb_strerror(e));
	if ((e = tag_apply_backlog(&dv->db, &dv->conf, &dv->applied)) != FB_OK)
		fprintf(stderr,
		    "formback-deliver: cannot apply queued tag events: "
		    "%s\n", fb_strerror(e));
	db_close(&dv->db);
	return true;
}

int
main(int argc, char *argv[])
{
	static struct deliver d = { .p = { .prog = "formback-deliver",
	    .job = "deliver", .budget = BUDGET, .jobs = JOBS_DEFAULT } };
	struct deliver	*dv = &d;
	int		 ch, rc;

	if ((ch = pass_start(&dv->p, argc, argv, LOG_INFO, &dv->conf)) >= 0)
		return ch;
	time_jst_month(dv->p.now, dv->month);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (!prepare(dv))
		return 1;
	if (dv->p.jobs > 1 && (dv->p.limit == 0 || dv->p.limit > BATCH))
		rc = claimers(dv);
	else {
		rc = claimer(dv);
		dv->n.taken = dv->p.done;
		dv->p.done = 0;
	}
	if (!chores(dv))
		rc = 1;
	if (dv->p.verbose)
		fprintf(stderr,
		    "formback-deliver: %d queued tag event(s) applied, "
		    "%d sent, %d failed, %d cancelled, %d suppressed, %d "
		    "later, %d returned, %d errors, %d operator emails, %d "
		    "sent_after_conversion, %d members' links, %d codes, %d "
		    "test sends, %llu expired rows "
		    "purged\n", dv->applied, dv->n.sent,
		    dv->n.failed, dv->n.cancelled, dv->n.suppressed,
		    dv->n.later, dv->n.returned, dv->n.errors, dv->opmail,
		    dv->n.after_conversion, dv->invites, dv->codes, dv->tests,
		    dv->purged);
	dv->p.failed = rc != 0 || dv->n.errors > 0;
	ch = pass_end(&dv->p, &dv->conf);
	conf_free(&dv->conf);
	curl_global_cleanup();
	return ch;
}
