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
#include "ingest.h"
#include "pass.h"
#include "url.h"
#include "pii.h"
#include "send.h"
#include "testsend.h"
#include "sms.h"
#include "db/store.h"

#define RETRY_MAX	3
#define BATCH		DELIVERY_CLAIM_MAX	/* claimed at a time: 16 */
#define JOBS_DEFAULT	4	/* claimers at once (--jobs) */
#define DAILY_CAP	3	/* messages per channel, recipient and JST day */
#define HELD_RETRY	600	/* seconds: a held lead's deliveries look again */
#define GUARD_APPLY	10000	/* queued events applied to reach a conversion */

/* a send begins only when it can end, guard included, within its lease */
#define SEND_BY		(DELIVERY_LEASE - 2 * SEND_TIMEOUT)

static struct conf	 conf;
static struct db	 db;
static long long	 now;
static int64_t		 began;		/* the pass's start, time_mono() */
static int		 verbose;
static int		 n_sent, n_failed, n_cancelled, n_suppressed, n_later, n_errors;
static int		 n_returned, n_after_conversion, n_opmail, n_invites;
static int		 n_codes, n_tests;
static unsigned long long n_purged;

struct outcome {
	const char	*status;	/* sent, failed, cancelled, suppressed, scheduled */
	const char	*cancel_reason;
	const char	*error_code;
	const char	*lead_reason;	/* lead.suppress_reason */
	char		 provider_id[128];
	long long	 reschedule;	/* unix seconds, for scheduled */
	int		 give_back;	/* attempts to return (quiet hours) */
	int		 segments;	/* SMS parts as sent; 0: none */
	bool		 go;		/* passed every check: to be sent */
	bool		 counted;	/* counted against the monthly quota */
	bool		 near;		/* counted near a threshold (80%, 100%) */
	bool		 recorded;	/* finished right after its send */
	bool		 reached;	/* its lead is sent already */
	char		 error_buf[64];
};

static char		 month[8];	/* the pass's JST month, YYYY-MM */

/*
 * Not seen through now: scheduled a minute later, its attempt given back
 * (and its place in the quota, when counted).
 */
static void
postpone(struct outcome *o)
{
	o->go = false;
	o->status = "scheduled";
	o->cancel_reason = o->error_code = o->lead_reason = NULL;
	o->reschedule = now + 60;
	o->give_back = 1;
}

/*
 * Write one outcome with its event, while this pass still holds the
 * claim, in the caller's transaction.
 */
static enum fb_err
finish_one(const struct delivery_ref *d, const char *token, struct outcome *o)
{
	char		 at[32], re[32];
	struct delivery_outcome w = { .id = d->id, .token = token,
	    .status = o->status, .error_code = o->error_code,
	    .cancel_reason = o->cancel_reason, .at = at,
	    .provider_id = o->provider_id[0] != '\0' ? o->provider_id : NULL,
	    .segments = o->segments, .give_back = o->give_back };
	bool		 held;
	enum fb_err	 e;

	time_sql(now, at);
	if (o->reschedule > 0) {
		time_sql(o->reschedule, re);
		w.reschedule = re;
	}
	if ((e = db_delivery_finish(&db, &w, &held)) != FB_OK)
		return e;
	if (!held)	/* another pass took it over: leave its outcome alone */
		return FB_OK;
	/* a counted message that did not leave frees its place in the quota */
	if (o->counted && strcmp(o->status, "sent") != 0 &&
	    (e = db_usage_give_back(&db, d->tenant_id, month)) != FB_OK)
		return e;
	if (o->lead_reason != NULL && (e = db_lead_suppress(&db, d->tenant_id,
	    d->lead_id, o->lead_reason)) != FB_OK)
		return e;
	if (strcmp(o->status, "sent") == 0 && !o->reached &&
	    (e = db_lead_sent(&db, d->tenant_id, d->lead_id)) != FB_OK)
		return e;
	if (strcmp(o->status, "sent") == 0 || strcmp(o->status, "failed") == 0)
		e = delivery_event(&db, d->tenant_id, d->id, d->lead_id,
		    d->campaign_id, d->channel, d->step_no, o->status, o->error_code);
	return e;
}

/* One outcome in its own transaction. */
static enum fb_err
finish(const struct delivery_ref *d, const char *token, struct outcome *o)
{
	enum fb_err	 e;

	if ((e = db_begin(&db)) != FB_OK)
		return e;
	if ((e = finish_one(d, token, o)) == FB_OK && (e = db_commit(&db)) == FB_OK)
		return FB_OK;
	db_rollback(&db);
	return e;
}

struct links {
	char	 click[1024];
	char	 optout[1024];
	char	 open[1024];	/* the open pixel, emails only */
};

/*
 * Short links for every delivery of the batch, added in one statement in
 * the claim's transaction.
 */
static enum fb_err
make_links(const struct dbrows *claimed, struct links *l)
{
	const struct claim_row *d = claimed->row;
	static struct link_new nl[LINKS_ADD_MAX];
	static char	 href[DELIVERY_CLAIM_MAX][URL_MAX + 1];
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
			snprintf(top, sizeof(top), "https://%s/", d[i].site_domain);
			if (!url_normalize(top, href[i]))
				snprintf(href[i], sizeof(href[i]), "%s", top);
		}
		/* stored only as the URL parser wrote it (STYLE 23) */
		nl[n++] = (struct link_new){ &d[i].d, "click", href[i], "" };
		nl[n++] = (struct link_new){ &d[i].d, "optout", NULL, "" };
		if (strcmp(d[i].d.channel, "email") == 0)
			nl[n++] = (struct link_new){ &d[i].d, "open", NULL, "" };
	}
	if ((e = links_create(&db, nl, n)) != FB_OK)
		return e;
	for (i = 0, k = 0; i < claimed->n; i++) {
		snprintf(l[i].click, sizeof(l[i].click), "%s/r/%s", conf.base_url,
		    nl[k++].token);
		snprintf(l[i].optout, sizeof(l[i].optout), "%s/u/%s", conf.base_url,
		    nl[k++].token);
		l[i].open[0] = '\0';
		if (strcmp(d[i].d.channel, "email") == 0)
			snprintf(l[i].open, sizeof(l[i].open), "%s/o/%s",
			    conf.base_url, nl[k++].token);
	}
	return FB_OK;
}

/* claim()'s arguments, for its transaction claim_tx() */
struct claim_args {
	const char	*token, *at;
	int		 n;
	struct dbrows	*claimed;
	struct links	*l;
};

static enum fb_err
claim_tx(struct db *d, void *arg)
{
	struct claim_args *a = arg;
	enum fb_err	 e;

	dbrows_free(a->claimed);	/* a try before this one's */
	if ((e = db_deliveries_claim(d, a->token, a->at, a->n, a->claimed)) != FB_OK)
		return e;
	return a->claimed->n == 0 ? FB_OK : make_links(a->claimed, a->l);
}

/*
 * Claim up to n due deliveries for `token` and make their short links, in
 * one transaction committed before any message leaves (db_tx(): made
 * again when it crossed another pass's); nothing is claimed when it
 * fails.
 */
static enum fb_err
claim(const char *token, const char *at, int n, struct dbrows *claimed,
    struct links *l)
{
	struct claim_args a = { token, at, n, claimed, l };
	enum fb_err	 e;

	memset(claimed, 0, sizeof(*claimed));
	if ((e = db_tx(&db, claim_tx, &a)) != FB_OK)
		dbrows_free(claimed);
	return e;
}

/* Whether the contact of `bidx` is one of the tenant's test recipients. */
static bool
test_recipient(const struct claim_row *d, const char *kind,
    const struct dbbin *bidx)
{
	bool	 yes;

	return bidx->p != NULL && db_test_recipient_is(&db, d->d.tenant_id, kind,
	    bidx, &yes) == FB_OK && yes;
}

/* The blind index of the contact a claimed row goes to. */
static const struct dbbin *
bidx_of(const struct claim_row *d)
{
	return strcmp(d->d.channel, "sms") == 0 ? &d->tel_bidx : &d->email_bidx;
}

/*
 * Whether the recipient of claimed row i has had DAILY_CAP messages on
 * its channel from the tenant this JST day: those that left and those
 * other claims are sending now, as the claim read them (so passes at once
 * can only err towards fewer), and the earlier rows of this batch that
 * passed their checks.
 */
static bool
capped(const struct claim_row *d, size_t i, const struct outcome *o)
{
	const struct dbbin *b = bidx_of(&d[i]), *bj;
	long long	 n = 0;
	size_t		 j;

	for (j = 0; j < i; j++) {
		bj = bidx_of(&d[j]);
		if (o[j].go && strcmp(d[j].d.channel, d[i].d.channel) == 0 &&
		    strcmp(d[j].d.tenant_id, d[i].d.tenant_id) == 0 &&
		    bj->p != NULL && bj->n == b->n && memcmp(bj->p, b->p, b->n) == 0)
			n++;
	}
	return n + d[i].day_sends >= DAILY_CAP;
}

/*
 * Everything that can stop a claimed delivery, right before its send
 * (contract: Lead suppress_reason, Delivery cancel_reason), in the
 * batch's order.  Sets outs[i].go when it may leave; otherwise outs[i]
 * holds its outcome.
 */
static void
check(const struct claim_row *rows, size_t i, struct outcome *outs)
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
		o->status = "scheduled";
		o->reschedule = now + HELD_RETRY;
		o->give_back = 1;	/* waiting is not an attempt */
		return;
	}
	if (d->quarantine != NULL && strcmp(d->quarantine, "discarded") == 0)
		STOP("suppressed", NULL, "lead_ineligible");
	if (strcmp(d->delivery_mode, "off") == 0)
		STOP("suppressed", NULL, "delivery_disabled");
	if (strcmp(d->delivery_mode, "test_only") == 0 &&
	    !test_recipient(d, sms ? "tel" : "email", bidx_of(d)))
		STOP("suppressed", NULL, "not_test_recipient");
	if (strcmp(d->campaign_status, "active") != 0)
		STOP("suppressed", NULL, strcmp(d->campaign_status, "paused") == 0 ?
		    "campaign_paused" : "campaign_inactive");
	if (d->scenario_deleted || strcmp(d->scenario_status, "active") != 0)
		STOP("suppressed", NULL, strcmp(d->scenario_status, "paused") == 0 ?
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
	if (capped(rows, i, outs))
		STOP("cancelled", "cap_exceeded", "cap_exceeded");
	if (sms && (q = sms_quiet_until(now, d->quiet_start, d->quiet_end)) > 0) {
		o->status = "scheduled";
		o->reschedule = q;
		o->give_back = 1;	/* waiting is not an attempt */
		return;
	}
#undef STOP
	o->go = true;
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
announce(const char *tenant, int pct, long used, long quota, const char *plan)
{
	json_object	*ev, *mail;
	enum fb_err	 e;

	ev = json_object_new_object();
	jadd_int(ev, "threshold_percent", pct);
	jadd_str(ev, "period", month);
	jadd_int(ev, "used", used);
	jadd_int(ev, "quota", quota);
	jadd_str(ev, "plan", plan);
	e = db_outbox_add(&db, tenant, "webhook", "usage.threshold_reached",
	    json_text(ev));
	if (e == FB_OK) {
		mail = json_object_new_object();
		json_object_object_add(mail, "usage", json_object_get(ev));
		e = db_opmail_add(&db, tenant, "usage_threshold", mail);
		json_object_put(mail);
	}
	json_object_put(ev);
	return e;
}

/* Is row i the first counted one of its tenant in the batch? */
static bool
first_of_tenant(const struct claim_row *d, const struct outcome *o, size_t i)
{
	size_t	 j;

	for (j = 0; j < i; j++)
		if (o[j].counted && strcmp(d[j].d.tenant_id, d[i].d.tenant_id) == 0)
			return false;
	return true;
}

/*
 * Announce the thresholds (80% and 100% of the quota) that the messages
 * of row d's tenant which have left now reach, once each per JST month
 * (contract: Events, usage.threshold_reached): after the batch's
 * outcomes, so that messages counted but given back (a failure, an
 * invalid contact) announce nothing.  Its month's row locked.
 */
static void
announce_usage(const struct claim_row *d)
{
	const char	*tenant = d->d.tenant_id;
	long long	 sends;
	long		 quota = quota_of(d);
	int		 told, pct, k;
	bool		 found;
	static const int thr[2] = { 80, 100 };
	enum fb_err	 e;

	if (quota <= 0 || (e = db_begin(&db)) != FB_OK)
		return;
	if ((e = db_usage_lock(&db, tenant, month, false, &sends, &told,
	    &found)) == FB_OK) {
		for (k = 0, pct = told; k < 2 && e == FB_OK; k++)
			if (told < thr[k] && sends * 100 >= (long long)thr[k] * quota) {
				e = announce(tenant, thr[k], (long)sends, quota, d->plan);
				pct = thr[k];
			}
		if (e == FB_OK && pct != told)
			e = db_usage_set(&db, tenant, month, sends, pct);
	}
	if (e == FB_OK)
		e = db_commit(&db);
	if (e != FB_OK) {
		db_rollback(&db);
		fprintf(stderr, "formback-deliver: cannot announce the monthly "
		    "usage: %s\n", fb_strerror(e));
	}
}

/*
 * Count the batch's messages that passed their checks against each
 * tenant's quota for the JST month, before any leaves: one transaction
 * per tenant, its month's row locked.  A Free tenant's messages past the
 * quota are suppressed `free_quota_exhausted`; a paid plan's go out
 * (billed beyond the quota); announce_usage() announces 80% and 100%
 * once they have left.  When the count cannot be taken, the messages
 * wait a minute.
 */
static void
count_quota(const struct dbrows *claimed, struct outcome *o)
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
		if ((e = db_begin(&db)) == FB_OK &&
		    (e = db_usage_lock(&db, tenant, month, true, &sends, &told,
		    &found)) == FB_OK) {
			quota = quota_of(&d[i]);
			allowed = strcmp(d[i].plan, "free") != 0 ? want :
			    quota - sends < 0 ? 0 : quota - sends < want ?
			    quota - sends : want;
			/* announced once they have left: announce_usage() */
			near = quota > 0 && told < 100 && (sends + allowed) * 100 >=
			    (told < 80 ? 80 : 100) * quota;
			if ((e = db_usage_set(&db, tenant, month, sends + allowed,
			    told)) == FB_OK)
				e = db_commit(&db);
		}
		if (e != FB_OK) {
			db_rollback(&db);
			fprintf(stderr, "formback-deliver: cannot count the monthly "
			    "quota: %s\n", fb_strerror(e));
		}
		for (j = i; j < claimed->n; j++) {
			if (!o[j].go || strcmp(d[j].d.tenant_id, tenant) != 0)
				continue;
			if (e != FB_OK)
				postpone(&o[j]);
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
deliver(const struct claim_row *d, const struct links *l, struct outcome *o)
{
	bool		 sms = strcmp(d->d.channel, "sms") == 0;
	const struct dbbin *sealed = sms ? &d->tel_sealed : &d->email_sealed;
	char		 to[256];
	const char	*click = l->click, *optout = l->optout;
	struct buf	 body, html, subj;
	struct sms_count parts;
	const unsigned char *key;
	json_object	*blocks;
	enum send_result sr;

	/* the key the lead's contacts were sealed under, current or earlier */
	key = conf_master_key(&conf, (unsigned)d->pii_key_id);
	if (key == NULL || !pii_open(key, d->d.tenant_id, d->d.lead_id,
	    sms ? "tel" : "email", sealed->p, sealed->n, to, sizeof(to))) {
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
			/* the text as it leaves: every link and name expanded */
			if (sms_count(body.data, conf.base_url, &parts))
				o->segments = parts.segments;
			sr = send_sms(&conf, to, body.data, d->d.id,
			    o->provider_id, sizeof(o->provider_id), o->error_buf,
			    sizeof(o->error_buf));
		}
	} else {
		blocks = d->blocks != NULL ? json_tokener_parse(d->blocks) : NULL;
		if (blocks == NULL)
			blocks = json_object_new_array();
		if (vars_expand(&subj, d->subject != NULL ? d->subject : "",
		    d->product_name, click, optout) != FB_OK ||
		    (d->body_html != NULL ? body_html_render(d->body_html,
		    d->product_name, click, optout, l->open, &html) :
		    blocks_html(blocks, d->product_name, click, optout, l->open,
		    &html)) != FB_OK ||
		    buf_printf(&body, "%s\n\n%s\n\n配信停止: %s\n", subj.data, click,
		    optout) != FB_OK)
			sr = SEND_FAIL;
		else
			sr = send_email(&conf, to, subj.data, body.data, html.data,
			    optout, d->d.id, o->error_buf, sizeof(o->error_buf));
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
		o->reschedule = now + 300 * d->attempts;
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
recover(void)
{
	struct dbrows	 st;
	const struct stale_row *r;
	struct outcome	 o;
	char		 at[32];
	size_t		 i;
	enum fb_err	 e;

	time_sql(now, at);
	if ((e = db_deliveries_stale(&db, at, &st)) != FB_OK)
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
		if (finish(&r[i].d, r[i].claim_token, &o) != FB_OK)
			continue;
		if (strcmp(o.status, "failed") == 0)
			n_failed++;
		else
			n_returned++;
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
send_guard(const struct claim_row *d, const char *token, struct outcome *o,
    const struct claim_row *prev, struct outcome *po)
{
	long long	 part[2] = { -1, -1 };
	int		 k, n, round;
	bool		 committed = false, stamped = false, converted = false;
	bool		 pending = false, held = false;
	enum fb_err	 e;

	/* prev's outcome and, when the lead and the queue are clear, the stamp */
	if ((e = db_begin(&db)) == FB_OK) {
		if (prev != NULL)
			e = finish_one(&prev->d, token, po);
		if (e == FB_OK)
			e = db_delivery_attempt_clear(&db, &d->d, token, &stamped);
		if (e == FB_OK && (e = db_commit(&db)) == FB_OK)
			committed = true;
		else {
			db_rollback(&db);
			stamped = false;
		}
	}
	if (prev != NULL)
		po->recorded = committed || finish(&prev->d, token, po) == FB_OK;
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
				e = tag_apply_part(&db, &conf, (unsigned)part[k],
				    GUARD_APPLY, true, &n);
		if (e == FB_OK && (e = db_delivery_send_guard(&db, d->d.tenant_id,
		    d->d.lead_id, &converted, part)) == FB_OK)
			pending = part[0] >= 0 || part[1] >= 0;
	}
	if (e == FB_OK && converted) {
		o->status = "cancelled";
		o->cancel_reason = "converted";
		return false;
	}
	if (e != FB_OK || pending ||
	    db_delivery_attempt(&db, d->d.id, token, &held) != FB_OK) {
		/* not seen through yet: a later pass sends or cancels it */
		postpone(o);
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
 * Row i's send is recorded: the later rows of its lead in the batch need
 * not mark the lead sent again.
 */
static void
reached(const struct claim_row *d, struct outcome *o, size_t n, size_t i)
{
	size_t	 k;

	for (k = i + 1; k < n; k++)
		if (strcmp(d[k].d.lead_id, d[i].d.lead_id) == 0)
			o[k].reached = true;
}

/*
 * The deliveries of a batch sent to a lead already converted when their
 * send began: 0 is the rule, anything else is logged and counted.
 */
static void
count_after_conversion(const struct dbrows *claimed)
{
	const struct claim_row *d = claimed->row;
	const char	*ids[DELIVERY_CLAIM_MAX];
	size_t		 i;
	long long	 n;

	if (claimed->n == 0)
		return;
	for (i = 0; i < claimed->n; i++)
		ids[i] = d[i].d.id;
	if (db_sent_after_conversion(&db, ids, claimed->n, &n) != FB_OK)
		return;
	if (n > 0) {
		logx(LOG_ERR, "%lld message(s) sent after their lead's conversion", n);
		n_after_conversion += (int)n;
	}
}

/*
 * One claimer: claims and sends up to `limit` due deliveries, a batch at
 * a time, on its own database connection.  Returns the exit status.
 */
static int
claimer(long limit)
{
	struct dbrows	 claimed;
	const struct claim_row *d;
	static struct outcome outs[BATCH];
	static struct links links[BATCH];
	struct outcome	*sent;
	bool		 go;
	char		 token[UUID_STRLEN + 1], at[32], since[32];
	int64_t		 claimed_at;
	int		 sends;
	long		 done;
	size_t		 i;
	enum fb_err	 e;

	if (db_open(&db, &conf) != FB_OK) {
		fprintf(stderr, "formback-deliver: cannot connect to the database\n");
		return 1;
	}
	time_sql(time_jst_midnight(now), since);	/* the daily cap's day */
	for (done = 0; done < limit; ) {
		/* a connection lost in the last batch is opened again */
		if ((e = db_ensure(&db)) != FB_OK) {
			fprintf(stderr, "formback-deliver: cannot connect to the "
			    "database\n");
			n_errors++;
			break;
		}
		uuid_v7(token);
		/* the pass's clock, on by the time the pass has taken so far */
		claimed_at = time_mono();
		time_sql(now + (claimed_at - began), at);
		if ((e = claim(token, at, limit - done < BATCH ?
		    (int)(limit - done) : BATCH, &claimed, links)) != FB_OK) {
			fprintf(stderr, "formback-deliver: cannot claim deliveries: %s\n",
			    fb_strerror(e));
			n_errors++;
			break;
		}
		if (claimed.n == 0) {
			dbrows_free(&claimed);
			break;
		}
		done += (long)claimed.n;
		d = claimed.row;
		/* the daily cap's counts read once the claim is committed */
		e = db_claim_day_sends(&db, token, since, &claimed);
		for (i = 0; i < claimed.n; i++) {
			check(d, i, outs);
			if (e != FB_OK)
				postpone(&outs[i]);
		}
		count_quota(&claimed, outs);
		/*
		 * Each send's outcome is recorded as soon as the provider has
		 * answered, so a pass killed later in the batch leaves only the
		 * send in flight to outcome_unknown (issue 19): with the next
		 * send's guard and stamp, or, after the last, with the rest.
		 */
		for (i = 0, sent = NULL, sends = 0; i < claimed.n; i++) {
			if (!outs[i].go)
				continue;
			/* a slow provider: the rest wait for a later pass */
			if (!lease_holds(claimed_at, sends)) {
				postpone(&outs[i]);
				continue;
			}
			sends++;
			go = send_guard(&d[i], token, &outs[i], sent != NULL ?
			    &d[sent - outs] : NULL, sent);
			if (sent != NULL && sent->recorded &&
			    strcmp(sent->status, "sent") == 0)
				reached(d, outs, claimed.n, (size_t)(sent - outs));
			sent = NULL;
			if (go) {
				deliver(&d[i], &links[i], &outs[i]);
				sent = &outs[i];
			}
		}
		/*
		 * The rest of the batch (the last send, what the checks
		 * stopped, what could not be recorded) in one transaction; one
		 * by one if that fails.
		 */
		e = db_begin(&db);
		for (i = 0; e == FB_OK && i < claimed.n; i++)
			if (!outs[i].recorded)
				e = finish_one(&d[i].d, token, &outs[i]);
		if (e == FB_OK)
			e = db_commit(&db);
		else
			db_rollback(&db);
		for (i = 0; i < claimed.n; i++) {
			if (e != FB_OK && !outs[i].recorded &&
			    finish(&d[i].d, token, &outs[i]) != FB_OK) {
				fprintf(stderr, "formback-deliver: delivery '%s': cannot "
				    "record its outcome\n", d[i].d.id);
				n_errors++;
				continue;
			}
			/*
			 * The first of each tenant's counted messages announces,
			 * when the count reached a threshold not announced yet.
			 */
			if (outs[i].counted && outs[i].near &&
			    first_of_tenant(d, outs, i))
				announce_usage(&d[i]);
			if (strcmp(outs[i].status, "sent") == 0)
				n_sent++;
			else if (strcmp(outs[i].status, "failed") == 0)
				n_failed++;
			else if (strcmp(outs[i].status, "cancelled") == 0)
				n_cancelled++;
			else if (strcmp(outs[i].status, "suppressed") == 0)
				n_suppressed++;
			else
				n_later++;
		}
		count_after_conversion(&claimed);
		dbrows_free(&claimed);
	}
	db_close(&db);
	return n_errors > 0 ? 1 : 0;
}

/*
 * Runs `jobs` claimers as child processes, each with an equal share of
 * `limit`; a child dies with its parent (a killed pass stops sending at
 * once, as one process would).  Their counts come back through a pipe.
 * Returns the worst exit status.
 */
static int
claimers(long limit, long jobs)
{
	int		 fd[2], st, rc = 0, counts[7];
	long		 k, share;
	pid_t		 pid;
	ssize_t		 n;

	if (pipe(fd) == -1) {
		perror("formback-deliver: pipe");
		return 1;
	}
	fflush(NULL);
	for (k = 0; k < jobs; k++) {
		share = limit / jobs + (k < limit % jobs ? 1 : 0);
		if (share == 0)
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
			/* a child reports its own counts, not the parent's too */
			n_sent = n_failed = n_cancelled = n_suppressed = 0;
			n_later = n_errors = n_returned = n_after_conversion = 0;
			st = claimer(share);
			counts[0] = n_sent, counts[1] = n_failed;
			counts[2] = n_cancelled, counts[3] = n_suppressed;
			counts[4] = n_later, counts[5] = n_errors;
			counts[6] = n_after_conversion;
			if (write(fd[1], counts, sizeof(counts)) != sizeof(counts))
				st = 1;
			fflush(NULL);
			_exit(st);
		}
	}
	close(fd[1]);
	while ((n = read(fd[0], counts, sizeof(counts))) == sizeof(counts)) {
		n_sent += counts[0], n_failed += counts[1];
		n_cancelled += counts[2], n_suppressed += counts[3];
		n_later += counts[4], n_errors += counts[5];
		n_after_conversion += counts[6];
	}
	close(fd[0]);
	while ((pid = wait(&st)) != -1 || errno == EINTR)
		if (pid != -1 && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
			rc = 1;
	return rc;
}

int
main(int argc, char *argv[])
{
	struct pass	 o = { .prog = "formback-deliver", .job = "deliver",
			    .budget = 50, .jobs = JOBS_DEFAULT };
	char		 err[512];
	int		 ch, rc, applied = 0;
	enum fb_err	 e;

	if ((ch = pass_opts(&o, argc, argv)) >= 0)
		return ch;
	if (o.limit == 0)
		o.limit = 500;
	now = o.now;
	began = time_mono();
	verbose = o.verbose;
	time_jst_month(now, month);
	log_init("formback-deliver", verbose ? LOG_INFO : LOG_WARN);
	if (conf_load(&conf, NULL, err, sizeof(err)) != FB_OK) {
		fprintf(stderr, "formback-deliver: %s\n", err);
		return 2;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (db_open(&db, &conf) != FB_OK) {
		fprintf(stderr, "formback-deliver: cannot connect to the database\n");
		return 1;
	}
	if ((e = recover()) != FB_OK)
		fprintf(stderr, "formback-deliver: cannot recover stale claims: %s\n",
		    fb_strerror(e));
	/*
	 * The intake queue as it stood when the pass began, so that every
	 * conversion acknowledged before the pass is applied before a send
	 * (issue 11); what arrives later send_guard() looks for.
	 */
	if ((e = tag_apply_backlog(&db, &conf, &applied)) != FB_OK)
		fprintf(stderr, "formback-deliver: cannot apply queued tag events: "
		    "%s\n", fb_strerror(e));
	db_close(&db);
	rc = o.jobs > 1 && o.limit > BATCH ? claimers(o.limit, o.jobs) :
	    claimer(o.limit);
	/* the outbox's emails to operators: URL takeover notices, usage alerts */
	if (db_open(&db, &conf) != FB_OK) {
		fprintf(stderr, "formback-deliver: cannot connect to the database\n");
		rc = 1;
	} else {
		if (db_retention_purge(&db, &conf, &n_purged) != FB_OK) {
			fprintf(stderr, "formback-deliver: cannot purge expired rows\n");
			rc = 1;
		}
		if (opmail_pass(&db, &conf, &n_opmail) != FB_OK) {
			fprintf(stderr, "formback-deliver: cannot send operator emails\n");
			rc = 1;
		}
		if (invitation_pass(&db, &conf, &n_invites) != FB_OK) {
			fprintf(stderr, "formback-deliver: cannot send members' links\n");
			rc = 1;
		}
		if (testsend_pass(&db, &conf, &n_codes, &n_tests) != FB_OK) {
			fprintf(stderr, "formback-deliver: cannot send test sends\n");
			rc = 1;
		}
		db_close(&db);
	}
	if (verbose)
		fprintf(stderr, "formback-deliver: %d queued tag event(s) applied, "
		    "%d sent, %d failed, %d cancelled, %d suppressed, %d later, "
		    "%d returned, %d errors, %d operator emails, %d "
		    "sent_after_conversion, %d members' links, %d codes, %d test "
		    "sends, %llu expired rows purged\n", applied, n_sent, n_failed,
		    n_cancelled, n_suppressed, n_later, n_returned, n_errors, n_opmail,
		    n_after_conversion, n_invites, n_codes, n_tests, n_purged);
	o.failed = rc != 0 || n_errors > 0;
	pass_took(&o, (long)n_sent + n_failed + n_opmail + n_invites + n_tests);
	ch = pass_end(&o, &conf);
	conf_free(&conf);
	curl_global_cleanup();
	return ch;
}
