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
 * lease; (4) each is re-checked right before its send (step removed,
 * conversion, a site held for a flood, delivery switch, campaign and
 * scenario state, contact, suppression list, SMS quiet hours), then the
 * queue is looked at once more for a conversion of its lead (send_guard),
 * the row is stamped as being sent, it is rendered with its short links,
 * sent, and finished with a conditional update on the token, with its
 * outbox event, in one short transaction.  Safe to run as several copies
 * on several hosts.
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
#include "url.h"
#include "pii.h"
#include "send.h"
#include "sms.h"
#include "store.h"

#define RETRY_MAX	3
#define BATCH		16	/* claimed at a time: 16 sends fit the 10-minute lease */
#define JOBS_DEFAULT	4	/* claimers at once (--jobs) */
#define DAILY_CAP	3	/* messages per channel, recipient and JST day */
#define HELD_RETRY	600	/* seconds: a held site's deliveries look again */
#define GUARD_APPLY	10000	/* queued events applied to reach a conversion */

_Static_assert(BATCH <= SD_CLAIM_MARK_IDS, "a batch is claimed by one SD_CLAIM_MARK");

static struct conf	 conf;
static struct db	 db;
static long long	 now;
static int		 verbose;
static int		 n_sent, n_failed, n_cancelled, n_suppressed, n_later, n_errors;
static int		 n_returned, n_after_conversion, n_opmail;

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
	char		 error_buf[64];
};

static char		 month[8];	/* the pass's JST month, YYYY-MM */

/*
 * Write one outcome with its event, while this pass still holds the
 * claim, in the caller's transaction.
 */
static enum fb_err
finish_one(const struct dbres *d, unsigned i, const char *token, struct outcome *o)
{
	char		 at[32], re[32];
	struct dbres	 r;
	bool		 held;
	enum fb_err	 e;

	time_sql(now, at);
	if (o->reschedule > 0)
		time_sql(o->reschedule, re);
	e = db_sd(&db, SD_FINISH, DBPARAMS(P_STR(o->status), P_STR(o->error_code),
	    P_STR(o->cancel_reason), P_STR(o->status), P_STR(at),
	    P_STR(o->provider_id[0] != '\0' ? o->provider_id : NULL),
	    o->segments > 0 ? P_INT(o->segments) : P_NULL,
	    P_STR(o->reschedule > 0 ? re : NULL), P_INT(o->give_back),
	    P_STR(dbres_get(d, i, CL_C_ID)), P_STR(token)), &r);
	if (e != FB_OK)
		return e;
	held = r.affected > 0;
	dbres_free(&r);
	if (!held)	/* another pass took it over: leave its outcome alone */
		return FB_OK;
	/* a counted message that did not leave frees its place in the quota */
	if (o->counted && strcmp(o->status, "sent") != 0 && (e = db_sd(&db,
	    SD_USAGE_GIVE_BACK, DBPARAMS(P_STR(dbres_get(d, i, CL_C_TENANT)),
	    P_STR(month)), NULL)) != FB_OK)
		return e;
	if (o->lead_reason != NULL && (e = db_sd(&db, SD_LEAD_SUPPRESS,
	    DBPARAMS(P_STR(o->lead_reason), P_STR(dbres_get(d, i, CL_C_LEAD))), NULL)) != FB_OK)
		return e;
	if (strcmp(o->status, "sent") == 0 && (e = db_sd(&db, SD_LEAD_SENT,
	    DBPARAMS(P_STR(dbres_get(d, i, CL_C_LEAD))), NULL)) != FB_OK)
		return e;
	if (strcmp(o->status, "sent") == 0 || strcmp(o->status, "failed") == 0)
		e = delivery_event(&db, dbres_get(d, i, CL_C_TENANT),
		    dbres_get(d, i, CL_C_ID), dbres_get(d, i, CL_C_LEAD),
		    dbres_get(d, i, CL_C_CAMPAIGN), dbres_get(d, i, CL_C_CHANNEL),
		    dbres_get(d, i, CL_C_STEP_NO), o->status, o->error_code);
	return e;
}

/* One outcome in its own transaction. */
static enum fb_err
finish(const struct dbres *d, unsigned i, const char *token, struct outcome *o)
{
	enum fb_err	 e;

	if ((e = db_begin(&db)) != FB_OK)
		return e;
	if ((e = finish_one(d, i, token, o)) == FB_OK && (e = db_commit(&db)) == FB_OK)
		return FB_OK;
	db_rollback(&db);
	return e;
}

/* The next minute SMS may go out, or 0 when now is allowed (quiet hours, JST). */
static long long
quiet_until(long start, long end)
{
	long long	 day = time_jst_midnight(now);
	long		 m = (long)((now - day) / 60);
	bool		 quiet;

	if (start == end)
		return 0;
	quiet = start < end ? (m >= start && m < end) : (m >= start || m < end);
	if (!quiet)
		return 0;
	/* the end of the window, today or tomorrow (local), back in UTC */
	return (m < end ? day : day + 86400) + end * 60;
}

static bool
suppressed(const struct dbres *d, unsigned i, unsigned bidx_col, const char **reason)
{
	struct dbres	 s;
	bool		 hit;

	if (db_sd(&db, SD_SUPPRESSED, DBPARAMS(P_STR(dbres_get(d, i, CL_C_TENANT)),
	    dbres_param(d, i, bidx_col),
	    P_STR(dbres_get(d, i, CL_C_CAMPAIGN))), &s) != FB_OK)
		return false;
	hit = s.nrows > 0;
	*reason = hit && strcmp(dbres_get(&s, 0, 0), "opt_out") == 0 ? "opted_out" : "suppressed";
	dbres_free(&s);
	return hit;
}

struct links {
	char	 click[1024];
	char	 optout[1024];
	char	 open[1024];	/* the open pixel, emails only */
};

/*
 * Short links for every delivery of the batch, committed in one
 * transaction before any message leaves.
 */
static enum fb_err
make_links(const struct dbres *d, struct links *l)
{
	char		 t[LINK_TOKEN_LEN + 1], top[300], href[URL_MAX + 1];
	const char	*url;
	unsigned	 i;
	enum fb_err	 e;

	if ((e = db_begin(&db)) != FB_OK)
		return e;
	for (i = 0; i < d->nrows; i++) {
		/*
		 * The continuation page: the message's link, else the page
		 * the lead left its form on, else the site's top page.
		 */
		if (((url = dbres_get(d, i, CL_C_LINK_URL)) == NULL ||
		    !url_normalize(url, href)) &&
		    ((url = dbres_get(d, i, CL_C_LANDING)) == NULL ||
		    !url_normalize(url, href))) {
			snprintf(top, sizeof(top), "https://%s/",
			    dbres_get(d, i, CL_C_SITE_DOMAIN));
			if (!url_normalize(top, href))
				snprintf(href, sizeof(href), "%s", top);
		}
		/* stored only as the URL parser wrote it (STYLE 23) */
		if ((e = link_create(&db, dbres_get(d, i, CL_C_TENANT),
		    dbres_get(d, i, CL_C_ID), dbres_get(d, i, CL_C_LEAD), "click",
		    href, t)) != FB_OK)
			goto fail;
		snprintf(l[i].click, sizeof(l[i].click), "%s/r/%s", conf.base_url, t);
		if ((e = link_create(&db, dbres_get(d, i, CL_C_TENANT), dbres_get(d, i, CL_C_ID),
		    dbres_get(d, i, CL_C_LEAD), "optout", NULL, t)) != FB_OK)
			goto fail;
		snprintf(l[i].optout, sizeof(l[i].optout), "%s/u/%s", conf.base_url, t);
		l[i].open[0] = '\0';
		if (strcmp(dbres_get(d, i, CL_C_CHANNEL), "email") == 0) {
			if ((e = link_create(&db, dbres_get(d, i, CL_C_TENANT),
			    dbres_get(d, i, CL_C_ID), dbres_get(d, i, CL_C_LEAD), "open",
			    NULL, t)) != FB_OK)
				goto fail;
			snprintf(l[i].open, sizeof(l[i].open), "%s/o/%s", conf.base_url, t);
		}
	}
	return db_commit(&db);
fail:
	db_rollback(&db);
	return e;
}

/* Whether the contact in column `bidx` is one of the tenant's test recipients. */
static bool
test_recipient(const struct dbres *d, unsigned i, const char *kind, unsigned bidx)
{
	struct dbres	 t;
	bool		 yes;

	if (dbres_get(d, i, bidx) == NULL ||
	    db_sd(&db, SD_TEST_RCPT_IS, DBPARAMS(P_STR(dbres_get(d, i, CL_C_TENANT)),
	    P_STR(kind), dbres_param(d, i, bidx)), &t) != FB_OK)
		return false;
	yes = t.nrows > 0;
	dbres_free(&t);
	return yes;
}

/*
 * Whether the recipient of claimed row i has had DAILY_CAP messages on
 * its channel from the tenant this JST day: those that left, those other
 * claims are sending now (so passes at once can only err towards fewer),
 * and the earlier rows of this batch that passed their checks.
 */
static bool
capped(const struct dbres *d, unsigned i, const struct outcome *o,
    const char *token, bool sms, unsigned bidx)
{
	struct dbres	 c;
	long long	 n = 0;
	size_t		 at = (size_t)i * d->ncols + bidx, bt;
	char		 since[32];
	unsigned	 j;

	for (j = 0; j < i; j++) {
		bt = (size_t)j * d->ncols + bidx;
		if (o[j].go && strcmp(dbres_get(d, j, CL_C_CHANNEL),
		    dbres_get(d, i, CL_C_CHANNEL)) == 0 &&
		    strcmp(dbres_get(d, j, CL_C_TENANT), dbres_get(d, i, CL_C_TENANT)) == 0 &&
		    d->cell[bt] != NULL && d->len[bt] == d->len[at] &&
		    memcmp(d->cell[bt], d->cell[at], d->len[at]) == 0)
			n++;
	}
	time_sql(time_jst_midnight(now), since);
	if (db_sd(&db, sms ? SD_CAP_TEL : SD_CAP_EMAIL, DBPARAMS(
	    P_STR(dbres_get(d, i, CL_C_TENANT)), dbres_param(d, i, bidx),
	    P_STR(token), P_STR(since)), &c) != FB_OK)
		return false;
	n += dbres_int(&c, 0, 0);
	dbres_free(&c);
	return n >= DAILY_CAP;
}

/*
 * Everything that can stop a claimed delivery, right before its send
 * (contract: Lead suppress_reason, Delivery cancel_reason), in the
 * batch's order.  Sets outs[i].go when it may leave; otherwise outs[i]
 * holds its outcome.
 */
static void
check(const struct dbres *d, unsigned i, struct outcome *outs, const char *token)
{
	struct outcome	*o = &outs[i];
	const char	*ch = dbres_get(d, i, CL_C_CHANNEL), *reason, *mode;
	bool		 sms = strcmp(ch, "sms") == 0;
	unsigned	 sealed = sms ? CL_C_TEL_SEALED : CL_C_EMAIL_SEALED;
	unsigned	 bidx = sms ? CL_C_TEL_BIDX : CL_C_EMAIL_BIDX;
	long long	 q;

	memset(o, 0, sizeof(*o));
	o->status = "sent";
	mode = dbres_get(d, i, CL_C_MODE);
#define STOP(st, cr, lr) do { o->status = st; o->cancel_reason = cr; \
	o->lead_reason = lr; return; } while (0)
	if (dbres_int(d, i, CL_C_STEP_GONE))
		STOP("cancelled", "step_removed", NULL);
	if (strcmp(dbres_get(d, i, CL_C_LEAD_STATUS), "converted") == 0)
		STOP("cancelled", "converted", NULL);
	/* a flood of new leads held the site: wait for the release (issue 11) */
	if (dbres_int(d, i, CL_C_SITE_HELD)) {
		o->status = "scheduled";
		o->reschedule = now + HELD_RETRY;
		o->give_back = 1;	/* waiting is not an attempt */
		return;
	}
	if (strcmp(mode, "off") == 0)
		STOP("suppressed", NULL, "delivery_disabled");
	if (strcmp(mode, "test_only") == 0 && !test_recipient(d, i, sms ? "tel" :
	    "email", bidx))
		STOP("suppressed", NULL, "not_test_recipient");
	if (strcmp(dbres_get(d, i, CL_C_CAMPAIGN_STATUS), "active") != 0)
		STOP("suppressed", NULL, strcmp(dbres_get(d, i, CL_C_CAMPAIGN_STATUS),
		    "paused") == 0 ? "campaign_paused" : "campaign_inactive");
	if (dbres_int(d, i, CL_C_SCENARIO_DELETED) ||
	    strcmp(dbres_get(d, i, CL_C_SCENARIO_STATUS), "active") != 0)
		STOP("suppressed", NULL, strcmp(dbres_get(d, i, CL_C_SCENARIO_STATUS),
		    "paused") == 0 ? "scenario_paused" : "scenario_inactive");
	if (dbres_get(d, i, sealed) == NULL || (sms && !dbres_int(d, i, CL_C_SMS_CAPABLE)))
		STOP("suppressed", NULL, "no_contact");
	/* captured under consent mode none: the visitor was told nothing */
	if (strcmp(dbres_get(d, i, CL_C_CONSENT), "none") == 0)
		STOP("suppressed", NULL, "lead_ineligible");
	if (suppressed(d, i, bidx, &reason))
		STOP("cancelled", reason, strcmp(reason, "opted_out") == 0 ? "opted_out" :
		    "suppressed");
	if (capped(d, i, outs, token, sms, bidx))
		STOP("cancelled", "cap_exceeded", "cap_exceeded");
	if (sms && (q = quiet_until(dbres_int(d, i, CL_C_QUIET_START),
	    dbres_int(d, i, CL_C_QUIET_END))) > 0) {
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
quota_of(const struct dbres *d, unsigned i)
{
	enum plan	 p;

	if (dbres_get(d, i, CL_C_QUOTA) != NULL)
		return (long)dbres_int(d, i, CL_C_QUOTA);
	if (!plan_parse(dbres_get(d, i, CL_C_PLAN), &p))
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
	json_object	*ev, *mail, *ids;
	struct dbres	 m;
	unsigned	 j;
	enum fb_err	 e;

	ev = json_object_new_object();
	jadd_int(ev, "threshold_percent", pct);
	jadd_str(ev, "period", month);
	jadd_int(ev, "used", used);
	jadd_int(ev, "quota", quota);
	jadd_str(ev, "plan", plan);
	e = db_outbox_add(&db, tenant, "webhook", "usage.threshold_reached",
	    json_text(ev));
	if (e == FB_OK && (e = db_notify_members(&db, tenant, &m)) == FB_OK) {
		mail = json_object_new_object();
		jadd_str(mail, "template", "usage_threshold");
		ids = json_object_new_array();
		for (j = 0; j < m.nrows; j++)
			json_object_array_add(ids, json_object_new_string(
			    dbres_get(&m, j, 0)));
		dbres_free(&m);
		json_object_object_add(mail, "member_ids", ids);
		json_object_object_add(mail, "usage", json_object_get(ev));
		e = db_outbox_add(&db, tenant, "email", "usage_threshold", json_text(mail));
		json_object_put(mail);
	}
	json_object_put(ev);
	return e;
}

/* Is row i the first counted one of its tenant in the batch? */
static bool
first_of_tenant(const struct dbres *d, const struct outcome *o, unsigned i)
{
	unsigned	 j;

	for (j = 0; j < i; j++)
		if (o[j].counted && strcmp(dbres_get(d, j, CL_C_TENANT),
		    dbres_get(d, i, CL_C_TENANT)) == 0)
			return false;
	return true;
}

/*
 * Announce the thresholds (80% and 100% of the quota) that the messages
 * of row i's tenant which have left now reach, once each per JST month
 * (contract: Events, usage.threshold_reached): after the batch's
 * outcomes, so that messages counted but given back (a failure, an
 * invalid contact) announce nothing.  Its month's row locked.
 */
static void
announce_usage(const struct dbres *d, unsigned i)
{
	const char	*tenant = dbres_get(d, i, CL_C_TENANT);
	struct dbres	 u;
	long		 sends, quota = quota_of(d, i);
	int		 told, pct, k;
	static const int thr[2] = { 80, 100 };
	enum fb_err	 e;

	if (quota <= 0 || (e = db_begin(&db)) != FB_OK)
		return;
	if ((e = db_sd(&db, SD_USAGE_LOCK, DBPARAMS(P_STR(tenant), P_STR(month)),
	    &u)) == FB_OK) {
		sends = u.nrows > 0 ? (long)dbres_int(&u, 0, 0) : 0;
		told = u.nrows > 0 ? (int)dbres_int(&u, 0, 1) : 100;
		dbres_free(&u);
		for (k = 0, pct = told; k < 2 && e == FB_OK; k++)
			if (told < thr[k] && sends * 100 >= (long)thr[k] * quota) {
				e = announce(tenant, thr[k], sends, quota,
				    dbres_get(d, i, CL_C_PLAN));
				pct = thr[k];
			}
		if (e == FB_OK && pct != told)
			e = db_sd(&db, SD_USAGE_SET, DBPARAMS(P_INT(sends),
			    P_INT(pct), P_STR(tenant), P_STR(month)), NULL);
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
count_quota(const struct dbres *d, struct outcome *o)
{
	struct dbres	 u;
	const char	*tenant;
	unsigned	 i, j;
	long		 want, allowed, sends, quota, used;
	int		 told;
	bool		 free_plan;
	enum fb_err	 e;

	for (i = 0; i < d->nrows; i++) {
		if (!o[i].go || o[i].counted)
			continue;
		tenant = dbres_get(d, i, CL_C_TENANT);
		for (want = 0, j = i; j < d->nrows; j++)
			if (o[j].go && strcmp(dbres_get(d, j, CL_C_TENANT), tenant) == 0)
				want++;
		allowed = 0;
		if ((e = db_begin(&db)) == FB_OK &&
		    (e = db_sd(&db, SD_USAGE_ROW, DBPARAMS(P_STR(tenant), P_STR(month)),
		    NULL)) == FB_OK &&
		    (e = db_sd(&db, SD_USAGE_LOCK, DBPARAMS(P_STR(tenant), P_STR(month)),
		    &u)) == FB_OK) {
			sends = (long)dbres_int(&u, 0, 0);
			told = (int)dbres_int(&u, 0, 1);
			quota = quota_of(d, i);
			free_plan = strcmp(dbres_get(d, i, CL_C_PLAN), "free") == 0;
			allowed = !free_plan ? want : quota - sends < 0 ? 0 :
			    quota - sends < want ? quota - sends : want;
			used = sends + allowed;
			dbres_free(&u);
			/* announced once they have left: announce_usage() */
			if (e == FB_OK)
				e = db_sd(&db, SD_USAGE_SET, DBPARAMS(P_INT(used),
				    P_INT(told), P_STR(tenant), P_STR(month)), NULL);
			if (e == FB_OK)
				e = db_commit(&db);
		}
		if (e != FB_OK) {
			db_rollback(&db);
			fprintf(stderr, "formback-deliver: cannot count the monthly "
			    "quota: %s\n", fb_strerror(e));
		}
		for (j = i; j < d->nrows; j++) {
			if (!o[j].go || strcmp(dbres_get(d, j, CL_C_TENANT), tenant) != 0)
				continue;
			if (e != FB_OK) {
				o[j].go = false;
				o[j].status = "scheduled";
				o[j].reschedule = now + 60;
				o[j].give_back = 1;
			} else if (allowed > 0) {
				o[j].counted = true;
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
deliver(const struct dbres *d, unsigned i, const struct links *l, struct outcome *o)
{
	const char	*ch = dbres_get(d, i, CL_C_CHANNEL);
	bool		 sms = strcmp(ch, "sms") == 0;
	unsigned	 sealed = sms ? CL_C_TEL_SEALED : CL_C_EMAIL_SEALED;
	char		 to[256];
	const char	*click = l->click, *optout = l->optout;
	struct buf	 body, html, subj;
	struct sms_count parts;
	const unsigned char *key;
	json_object	*blocks;
	enum send_result sr;

	/* the key the lead's contacts were sealed under, current or earlier */
	key = conf_master_key(&conf, (unsigned)dbres_int(d, i, CL_C_KEY_ID));
	if (key == NULL || !pii_open(key, dbres_get(d, i, CL_C_TENANT),
	    dbres_get(d, i, CL_C_LEAD), sms ? "tel" : "email",
	    (const unsigned char *)dbres_get(d, i, sealed),
	    d->len[(size_t)i * d->ncols + sealed], to, sizeof(to))) {
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
		if (vars_expand(&body, dbres_get(d, i, CL_C_BODY) ? dbres_get(d, i, CL_C_BODY) : "",
		    dbres_get(d, i, CL_C_PRODUCT), click, optout) != FB_OK)
			sr = SEND_FAIL;
		else {
			/* the text as it leaves: every link and name expanded */
			if (sms_count(body.data, conf.base_url, &parts))
				o->segments = parts.segments;
			sr = send_sms(&conf, to, body.data, dbres_get(d, i, CL_C_ID),
			    o->provider_id, sizeof(o->provider_id), o->error_buf,
			    sizeof(o->error_buf));
		}
	} else {
		blocks = dbres_get(d, i, CL_C_BLOCKS) != NULL ?
		    json_tokener_parse(dbres_get(d, i, CL_C_BLOCKS)) : NULL;
		if (blocks == NULL)
			blocks = json_object_new_array();
		if (vars_expand(&subj, dbres_get(d, i, CL_C_SUBJECT) ? dbres_get(d, i, CL_C_SUBJECT) :
		    "", dbres_get(d, i, CL_C_PRODUCT), click, optout) != FB_OK ||
		    blocks_html(blocks, dbres_get(d, i, CL_C_PRODUCT), click, optout, &html) != FB_OK ||
		    buf_printf(&body, "%s\n\n%s\n\n配信停止: %s\n", subj.data ? subj.data : "",
		    click, optout) != FB_OK)
			sr = SEND_FAIL;
		else {
			/* the opt-out link at the foot of the HTML */
			if (html.len > 14)
				html.len -= 14;	/* drop "</body></html>" */
			if (buf_printf(&html, "<p style=\"font-size:small\"><a href=\"%s\">"
			    "配信停止</a></p><img src=\"%s\" width=\"1\" height=\"1\" "
			    "alt=\"\"></body></html>", optout, l->open) != FB_OK)
				sr = SEND_FAIL;
			else
				sr = send_email(&conf, to, subj.data ? subj.data : "",
				    body.data, html.data, optout, dbres_get(d, i, CL_C_ID),
				    o->error_buf,
				    sizeof(o->error_buf));
		}
		json_object_put(blocks);
	}
	sodium_memzero(to, sizeof(to));
	buf_release(&body);
	buf_release(&html);
	buf_release(&subj);
	if (sr == SEND_OK)
		return;
	o->error_code = o->error_buf[0] ? o->error_buf : "render_failed";
	if (sr == SEND_RETRY && dbres_int(d, i, CL_C_ATTEMPTS) < RETRY_MAX) {
		o->status = "scheduled";
		o->reschedule = now + 300 * dbres_int(d, i, CL_C_ATTEMPTS);
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
	struct dbres	 st;
	struct outcome	 o;
	char		 at[32];
	unsigned	 i;
	enum fb_err	 e;

	time_sql(now, at);
	if ((e = db_begin(&db)) != FB_OK)
		return e;
	if ((e = db_sd(&db, SD_STALE, DBPARAMS(P_STR(at)), &st)) != FB_OK) {
		db_rollback(&db);
		return e;
	}
	db_rollback(&db);
	for (i = 0; i < st.nrows; i++) {
		memset(&o, 0, sizeof(o));
		if (dbres_int(&st, i, 7)) {
			o.status = "failed";
			o.error_code = "outcome_unknown";
		} else {
			o.status = "scheduled";
			o.give_back = 1;
		}
		if (finish(&st, i, dbres_get(&st, i, 6), &o) != FB_OK)
			continue;
		if (strcmp(o.status, "failed") == 0)
			n_failed++;
		else
			n_returned++;
	}
	dbres_free(&st);
	return FB_OK;
}

/*
 * Right before the send of claimed row i (issue 11: a message must never
 * follow a conversion the collector has acknowledged): the lead is read
 * again, and the intake queue is looked at for a conversion of its
 * visitor or of a visitor whose lead has its contact.  When there is one,
 * that part of the queue is applied first (waiting for the turn of a
 * worker that has it), and the lead read again.  Then the row is stamped
 * as being sent (attempt_started_at), on disk before the provider is
 * called.  Returns true when the send may go; otherwise *o holds the
 * outcome: cancelled converted, or scheduled again for a later pass when
 * the conversion could not be applied or the claim was lost.
 */
static bool
send_guard(const struct dbres *d, unsigned i, const char *token, struct outcome *o)
{
	struct dbres	 g;
	long long	 part[2];
	int		 k, n, round;
	bool		 converted = false, pending = false;
	enum fb_err	 e;

	for (round = 0; round < 2; round++) {
		if ((e = db_sd(&db, SD_SEND_GUARD, DBPARAMS(P_STR(dbres_get(d, i,
		    CL_C_TENANT)), P_STR(dbres_get(d, i, CL_C_LEAD))), &g)) != FB_OK)
			break;
		converted = g.nrows == 1 && dbres_int(&g, 0, 0) != 0;
		part[0] = g.nrows == 1 && dbres_get(&g, 0, 1) != NULL ? dbres_int(&g, 0, 1) : -1;
		part[1] = g.nrows == 1 && dbres_get(&g, 0, 2) != NULL ? dbres_int(&g, 0, 2) : -1;
		dbres_free(&g);
		pending = part[0] >= 0 || part[1] >= 0;
		if (converted || !pending || round == 1)
			break;
		for (k = 0; k < 2 && e == FB_OK; k++)
			if (part[k] >= 0 && (k == 0 || part[1] != part[0]))
				e = tag_apply_part(&db, &conf, (unsigned)part[k],
				    GUARD_APPLY, true, &n);
		if (e != FB_OK)
			break;
	}
	o->go = false;
	if (e == FB_OK && converted) {
		o->status = "cancelled";
		o->cancel_reason = "converted";
		return false;
	}
	if (e != FB_OK || pending) {
		/* not seen through yet: a later pass sends or cancels it */
		o->status = "scheduled";
		o->reschedule = now + 60;
		o->give_back = 1;
		return false;
	}
	if ((e = db_sd(&db, SD_ATTEMPT, DBPARAMS(P_STR(dbres_get(d, i, CL_C_ID)),
	    P_STR(token)), &g)) != FB_OK) {
		o->status = "scheduled";
		o->reschedule = now + 60;
		o->give_back = 1;
		return false;
	}
	n = (int)g.affected;
	dbres_free(&g);
	if (n == 0) {
		/* another pass took the claim over: its outcome stands */
		o->status = "scheduled";
		return false;
	}
	o->go = true;
	return true;
}

/*
 * The deliveries of a batch sent to a lead already converted when their
 * send began (SD_SENT_AFTER_CONVERSION): 0 is the rule, anything else is
 * logged and counted.
 */
static void
count_after_conversion(const struct dbres *d)
{
	struct dbp	 p[16];
	struct dbres	 r;
	unsigned	 i;
	long long	 n;

	if (d->nrows == 0)
		return;
	for (i = 0; i < 16; i++)
		p[i] = P_STR(dbres_get(d, i < d->nrows ? i : d->nrows - 1, CL_C_ID));
	if (db_sd(&db, SD_SENT_AFTER_CONVERSION, p, 16, &r) != FB_OK)
		return;
	n = dbres_int(&r, 0, 0);
	dbres_free(&r);
	if (n > 0) {
		logx(LOG_ERR, "%lld message(s) sent after their lead's conversion", n);
		n_after_conversion += (int)n;
	}
}

/*
 * Claim up to n due deliveries for `token` in one short transaction: the
 * oldest that no other claimer holds (SKIP LOCKED), stamped `sending`
 * with a 10-minute lease from `at`; then read back everything their
 * sends need into `claimed` (caller frees).
 */
static enum fb_err
claim(const char *token, const char *at, long n, struct dbres *claimed)
{
	struct dbp	 p[2 + SD_CLAIM_MARK_IDS];
	struct dbres	 pick;
	unsigned	 i;
	enum fb_err	 e;

	if ((e = db_begin(&db)) != FB_OK)
		return e;
	if ((e = db_sd(&db, SD_CLAIM, DBPARAMS(P_STR(at), P_INT(n)), &pick)) != FB_OK) {
		db_rollback(&db);
		return e;
	}
	p[0] = P_STR(token);
	p[1] = P_STR(at);
	for (i = 0; i < SD_CLAIM_MARK_IDS; i++)
		p[2 + i] = i < pick.nrows ? P_STR(dbres_get(&pick, i, 0)) : P_NULL;
	e = pick.nrows > 0 ? db_sd(&db, SD_CLAIM_MARK, p, 2 + SD_CLAIM_MARK_IDS, NULL) :
	    FB_OK;
	dbres_free(&pick);
	if (e == FB_OK)
		e = db_commit(&db);
	else
		db_rollback(&db);
	if (e != FB_OK)
		return e;
	return db_sd(&db, SD_CLAIMED, DBPARAMS(P_STR(token)), claimed);
}

/*
 * One claimer: claims and sends up to `limit` due deliveries, a batch at
 * a time, on its own database connection.  Returns the exit status.
 */
static int
claimer(long limit)
{
	struct dbres	 claimed;
	static struct outcome outs[BATCH];
	static struct links links[BATCH];
	char		 token[UUID_STRLEN + 1], at[32];
	long		 done;
	unsigned	 i;
	enum fb_err	 e;

	if (db_open(&db, &conf) != FB_OK) {
		fprintf(stderr, "formback-deliver: cannot connect to the database\n");
		return 1;
	}
	time_sql(now, at);
	/* claim a small batch at a time, so no claim outlives its lease */
	for (done = 0; done < limit; done += (long)claimed.nrows) {
		uuid_v7(token);
		if ((e = claim(token, at, limit - done < BATCH ? limit - done : BATCH,
		    &claimed)) != FB_OK) {
			fprintf(stderr, "formback-deliver: cannot claim deliveries: %s\n",
			    fb_strerror(e));
			n_errors++;
			break;
		}
		if (claimed.nrows == 0) {
			dbres_free(&claimed);
			break;
		}
		if ((e = make_links(&claimed, links)) != FB_OK) {
			/* the claims lapse and the next pass after the lease retries */
			fprintf(stderr, "formback-deliver: cannot make links: %s\n",
			    fb_strerror(e));
			dbres_free(&claimed);
			n_errors++;
			break;
		}
		for (i = 0; i < claimed.nrows; i++)
			check(&claimed, i, outs, token);
		count_quota(&claimed, outs);
		for (i = 0; i < claimed.nrows; i++)
			if (outs[i].go && send_guard(&claimed, i, token, &outs[i]))
				deliver(&claimed, i, &links[i], &outs[i]);
		/*
		 * The batch's outcomes in one transaction (a crash before it
		 * leaves them to outcome_unknown); one by one if that fails.
		 */
		e = db_begin(&db);
		for (i = 0; e == FB_OK && i < claimed.nrows; i++)
			e = finish_one(&claimed, i, token, &outs[i]);
		if (e == FB_OK)
			e = db_commit(&db);
		else
			db_rollback(&db);
		for (i = 0; i < claimed.nrows; i++) {
			if (e != FB_OK && finish(&claimed, i, token, &outs[i]) != FB_OK) {
				fprintf(stderr, "formback-deliver: delivery '%s': cannot "
				    "record its outcome\n", dbres_get(&claimed, i, CL_C_ID));
				n_errors++;
				continue;
			}
			/* the first of each tenant's counted messages announces */
			if (outs[i].counted && first_of_tenant(&claimed, outs, i))
				announce_usage(&claimed, i);
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
		dbres_free(&claimed);
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
	struct cron_opts	 o = { .limit = 500, .jobs = JOBS_DEFAULT };
	struct dbres	 q;
	long long	 queued;
	char		 err[512];
	int		 ch, rc, applied = 0;
	enum fb_err	 e;

	if ((ch = cron_opts(argc, argv, "formback-deliver", &o)) >= 0)
		return ch;
	now = o.now;
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
	if ((e = db_ingest_status(&db, &q)) == FB_OK) {
		queued = dbres_int(&q, 0, 0) - dbres_int(&q, 0, 1);
		dbres_free(&q);
		e = tag_apply(&db, &conf, queued > INT_MAX ? INT_MAX : (int)queued,
		    true, &applied);
	}
	if (e != FB_OK)
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
		if (opmail_pass(&db, &conf, &n_opmail) != FB_OK) {
			fprintf(stderr, "formback-deliver: cannot send operator emails\n");
			rc = 1;
		}
		db_close(&db);
	}
	if (verbose)
		fprintf(stderr, "formback-deliver: %d queued tag event(s) applied, "
		    "%d sent, %d failed, %d cancelled, %d suppressed, %d later, "
		    "%d returned, %d errors, %d operator emails, %d "
		    "sent_after_conversion\n", applied, n_sent, n_failed,
		    n_cancelled, n_suppressed, n_later, n_returned, n_errors, n_opmail,
		    n_after_conversion);
	conf_free(&conf);
	curl_global_cleanup();
	return rc != 0 || n_errors > 0 ? 1 : 0;
}
