/*
 * formback-webhooks: sends the outbox's events to the endpoints subscribed
 * to them, signed, retried, never to a private address (design 1, 5, 6;
 * contract: Events; formback-webhooks(8)).
 *
 * One pass (pass.h; issue 40) runs until nothing is due or its budget is
 * spent: (1) fan-out: each unprocessed webhook event of the outbox
 * becomes one pending delivery record per endpoint that was enabled and
 * subscribed when the event happened, in the transaction that marks the
 * event processed (locked with SKIP LOCKED, so copies on several hosts
 * never fan out one event twice; the pass reads on by id from the last
 * event it has seen); (2) sends, in turns over the endpoints with due
 * records (struct ring, each tenant's first endpoint before any tenant's
 * second): a turn claims, with a token and a lease in one short
 * transaction, only what it can start at once, at most HOOK_INFLIGHT of
 * the endpoint's oldest due records in flight, so a slow or dead
 * receiver holds two of the --jobs connections, never all of them, and
 * another tenant's record waits one turn, not for the receiver.  The
 * requests go out in parallel with libcurl's multi interface, and each
 * outcome is written with an update conditional on the token (at least
 * once, as the contract says), with the endpoint's state by the stop
 * rules of hookrules.h: the retry schedule, the pause of an endpoint
 * that does not answer, when an endpoint is stopped, the owner's mails;
 * (3) privacy-policy checks; (4) purge of what is older than the
 * retention.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <sodium.h>

#include "formback.h"
#include "events.h"
#include "hookrules.h"
#include "outbound.h"
#include "pass.h"
#include "pii.h"
#include "ppcheck.h"
#include "db/store.h"

/* a claim's lease: past the 10 s timeouts with room to spare */
#define LEASE_SECS	120
/* what is kept: outbox events and finished delivery records */
#define RETENTION_DAYS	30
/* privacy-policy checks: each site's page once a day, this many a pass */
#define PP_EVERY_SECS	86400
#define PP_PER_PASS	20
#define ANSWER_MAX	65536
#define BUDGET		50	/* seconds; cron starts it every minute */
#define TURNS_READ	10000	/* endpoints with due records read at once */
#define STOPPED_SHARE	100	/* a stopped endpoint's records ended a turn */
#define LEFT_CAP	100000	/* what is left, counted up to */
#define ROUND_MAX	64	/* turns claimed in one transaction */
#define TURN_FAN	16	/* tenants a turn of the fan-out */
#define TENANTS_READ	10000	/* tenants with events read at once */
#define FAN_FIRST	1	/* seconds of fan-out before the first sends */
/*
 * Outcomes are written in one transaction per group (one commit, one
 * flush of the log, for many sends): begun by the first finish(), and
 * committed by commit_outcomes() once OUTCOMES_MAX are waiting or the
 * first has waited OUTCOMES_WAIT_MS, with the next round's claim (see
 * claim()), and always at the end of the pass.  Their claims' leases are
 * far longer than that.
 */
#define OUTCOMES_MAX	64
#define OUTCOMES_WAIT_MS 200

struct claim;

/* One attempt (or one end without a request) of a claimed record. */
struct send {
	CURL			*h;
	struct curl_slist	*hdr;
	const struct webhook_send_row *row;
	struct outbound		 out;
	/* the endpoint is: no attempt */
	bool			 stopped;
	struct claim		*claim;
};

/*
 * One claim of a round's due records (design 6), of one or more
 * endpoints: its rows, the sends made of them and its token, alive
 * until the last send is finished.
 */
struct claim {
	struct dbrows	 due;
	struct send	*s;
	unsigned char	 token[16];
	size_t		 left;		/* references: unfinished sends */
};

/* An endpoint the pass has met: its turns. */
struct lane {
	char		 id[UUID_STRLEN + 1];
	struct hook_endpoint st;	/* its pause, as last read or written */
	int		 active;	/* requests in flight */
	bool		 stopped;	/* disabled or deleted: records end */
	bool		 in_ring;
};

/* The pass: its state, from the options to the record of its end. */
struct hooks {
	struct pass	 p;
	struct conf	 conf;
	struct db	 db;
	CURLM		*m;		/* its connections serve every turn */
	struct curl_slist *resolve;
	struct ring	 ring;		/* endpoints with due records */
	struct ring	 fan;		/* tenants with events to fan out */
	bool		 fan_done;	/* no event left to fan out */
	struct lane	*lane;		/* every endpoint met, by id */
	size_t		 nlane, sorted, caplane;
	long		 active;	/* requests in flight */
	long		 claimed;	/* records claimed */
	bool		 in_tx;		/* a group of outcomes is open */
	int		 in_tx_n;
	struct timespec	 in_tx_since;
	int		 made, sent, failed, ended, paused, checked, errors;
};

/*
 * HMAC-SHA256 (OpenSSL's EVP_MAC) under key over "[mid.]t." + body: raw
 * into raw, lower-case hex into out.  design 5: the contract's signature
 * signs "t.body" with the whole secret, the Standard Webhooks one
 * "id.t.body" with the secret's bytes.
 */
static bool
hmac_hex(const void *key, size_t keylen, const char *t, const char *mid,
    const void *body, size_t n, char out[65], unsigned char raw[32])
{
	EVP_MAC		*mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX	*c = mac != NULL ? EVP_MAC_CTX_new(mac) : NULL;
	OSSL_PARAM	 p[] = {
		OSSL_PARAM_construct_utf8_string("digest", (char *)"SHA256", 0),
		OSSL_PARAM_construct_end()
	};
	size_t		 len = 0;
	bool		 ok;

	ok = c != NULL && EVP_MAC_init(c, key, keylen, p) == 1 &&
	    (mid == NULL || (EVP_MAC_update(c, (const unsigned char *)mid,
	    strlen(mid)) == 1 && EVP_MAC_update(c, (const unsigned char *)".",
	    1) == 1)) &&
	    EVP_MAC_update(c, (const unsigned char *)t, strlen(t)) == 1 &&
	    EVP_MAC_update(c, (const unsigned char *)".", 1) == 1 &&
	    EVP_MAC_update(c, body, n) == 1 && EVP_MAC_final(c, raw, &len,
	    32) == 1 &&
	    len == 32;
	EVP_MAC_CTX_free(c);
	EVP_MAC_free(mac);
	if (ok)
		sodium_bin2hex(out, 65, raw, 32);
	return ok;
}

static struct curl_slist *
header(struct curl_slist *l, const char *name, const char *value)
{
	char	 line[512];

	if (l == (void *)-1)
		return l;
	snprintf(line, sizeof(line), "%s: %s", name, value);
	if (!header_ok(name, value))
		return l;
	return curl_slist_append(l, line);
}

/*
 * Prepare one attempt: the envelope as stored, the contract's headers and
 * signature (key: the whole secret), and the Standard Webhooks ones (key:
 * the secret's bytes; design 5).  Returns false when it cannot be made.
 */
static bool
prepare(struct hooks *hk, struct send *s, const struct webhook_send_row *w)
{
	char		 secret[128], t[24], hex[65], sig[200];
	char		 b64[64];
	unsigned char	 raw[32], key[64];
	size_t		 keylen;

	if (!pii_open_any(&hk->conf, w->secret_key_id, w->tenant_id,
	    w->endpoint_id, "webhook_secret", w->secret_sealed.p,
	    w->secret_sealed.n, secret, sizeof(secret), NULL) ||
	    strncmp(secret, "whsec_", 6) != 0) {
		snprintf(s->out.error, sizeof(s->out.error),
		    "secret cannot be opened");
		return false;
	}
	snprintf(t, sizeof(t), "%lld", (long long)time(NULL));
	if (!hmac_hex(secret, strlen(secret), t, NULL, w->body.p, w->body.n,
	    hex, raw)) {
		sodium_memzero(secret, sizeof(secret));
		snprintf(s->out.error, sizeof(s->out.error), "cannot sign");
		return false;
	}
	snprintf(sig, sizeof(sig), "t=%s,v1=%s", t, hex);
	s->hdr = header(NULL, "Content-Type", "application/json");
	s->hdr = header(s->hdr, "User-Agent", "Formback-Webhook/1");
	s->hdr = header(s->hdr, "X-Formback-Event", w->event_type);
	/* the record's id, as the delivery log lists it (issue 44) */
	s->hdr = header(s->hdr, "X-Formback-Delivery", w->id);
	s->hdr = header(s->hdr, "X-Formback-Signature", sig);
	s->hdr = header(s->hdr, "webhook-id", w->event_id);
	s->hdr = header(s->hdr, "webhook-timestamp", t);
	if (sodium_base642bin(key, sizeof(key), secret + 6, strlen(secret + 6),
	    NULL, &keylen, NULL, sodium_base64_VARIANT_ORIGINAL) == 0 &&
	    hmac_hex(key, keylen, t, w->event_id, w->body.p, w->body.n, hex,
	    raw)) {
		sodium_bin2base64(b64, sizeof(b64), raw, 32,
		    sodium_base64_VARIANT_ORIGINAL);
		snprintf(sig, sizeof(sig), "v1,%s", b64);
		s->hdr = header(s->hdr, "webhook-signature", sig);
	}
	sodium_memzero(secret, sizeof(secret));
	sodium_memzero(key, sizeof(key));
	if ((s->h = curl_easy_init()) == NULL)
		return false;
	outbound_setup(s->h, &hk->conf, w->url, true, hk->resolve, &s->out,
	    NULL, ANSWER_MAX);
	curl_easy_setopt(s->h, CURLOPT_POSTFIELDS, (const char *)w->body.p);
	curl_easy_setopt(s->h, CURLOPT_POSTFIELDSIZE, (long)w->body.n);
	curl_easy_setopt(s->h, CURLOPT_HTTPHEADER, s->hdr);
	curl_easy_setopt(s->h, CURLOPT_PRIVATE, s);
	return true;
}

/* The lane of endpoint `id`, NULL when the pass has not met it. */
static struct lane *
lane_find(struct hooks *hk, const char *id)
{
	size_t	 lo = 0, hi = hk->sorted, mid;
	int	 c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(id, hk->lane[mid].id)) == 0)
			return &hk->lane[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Take a lane out of the ring: drained, paused or waiting for a probe. */
static void
lane_out(struct hooks *hk, struct lane *l)
{
	if (l->in_ring)
		ring_drop(&hk->ring, l->id);
	l->in_ring = false;
}

/*
 * Close the group of outcomes when it is full or old enough (or `force`);
 * false when it could not be committed.  Lost outcomes: the claims lapse
 * and the sends go again (at least once).
 */
static bool
commit_outcomes(struct hooks *hk, bool force)
{
	struct timespec	 now;
	enum fb_err	 e;

	if (!hk->in_tx)
		return true;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!force && hk->in_tx_n < OUTCOMES_MAX &&
	    (now.tv_sec - hk->in_tx_since.tv_sec) * 1000 +
	    (now.tv_nsec - hk->in_tx_since.tv_nsec) / 1000000 <
	    OUTCOMES_WAIT_MS)
		return true;
	hk->in_tx = false;
	if ((e = db_commit(&hk->db)) != FB_OK) {
		logx(LOG_ERR, "cannot record webhook outcomes: %s",
		    fb_strerror(e));
		db_rollback(&hk->db);
		return false;
	}
	return true;
}

/* The owner's mail that an outcome calls for, in the outcomes' group. */
static enum fb_err
mail(struct hooks *hk, const struct webhook_state_row *r,
    const struct hook_endpoint *st, enum hook_mail m, const char *tenant,
    const char *error)
{
	json_object	*f, *ep;
	char		 since[32];
	enum fb_err	 e;

	ep = json_object_new_object();
	jadd_str(ep, "id", r->id);
	jadd_str(ep, "url", r->url);
	time_iso8601(st->failing_since, since);
	jadd_str(ep, "failing_since", since);
	jadd_int(ep, "consecutive_failures", st->failures);
	jadd_str(ep, "error", error);
	jadd_str(ep, "disabled_reason", st->disabled_reason[0] != '\0' ?
	    st->disabled_reason : NULL);
	f = json_object_new_object();
	json_object_object_add(f, "endpoint", ep);
	e = db_opmail_add(&hk->db, tenant, m == HOOK_MAIL_DISABLED ?
	    "webhook_disabled" : "webhook_failing", f);
	json_object_put(f);
	return e;
}

/*
 * The endpoint after an attempt's answer (hookrules.h), locked in the
 * outcomes' group, with the owner's mail; the pass's lane follows, so
 * that a paused or stopped endpoint gets no more turns in this pass, and
 * one whose probe was answered gets them back.
 */
static enum fb_err
endpoint_after(struct hooks *hk, const struct webhook_send_row *w,
    enum hook_answer a, long long at, const char *error)
{
	struct hook_endpoint st;
	struct dbrows	 row;
	struct lane	*l;
	enum hook_mail	 m;
	bool		 was_paused;
	enum fb_err	 e;

	if ((e = db_webhook_state_lock(&hk->db, w->tenant_id, w->endpoint_id,
	    &row, &st)) != FB_OK)
		return e == FB_ENOTFOUND ? FB_OK : e;
	was_paused = st.trips > 0;
	m = hook_endpoint_after(&st, a, at);
	if ((e = db_webhook_state_set(&hk->db, w->tenant_id, w->endpoint_id,
	    &st)) == FB_OK && m != HOOK_MAIL_NONE)
		e = mail(hk, row.row, &st, m, w->tenant_id, error);
	dbrows_free(&row);
	if (!was_paused && st.trips > 0)
		hk->paused++;
	if ((l = lane_find(hk, w->endpoint_id)) == NULL)
		return e;
	l->st = st;
	l->stopped = !st.enabled;
	if (hook_inflight(&st, at) == 0 && !l->stopped)
		lane_out(hk, l);
	else if (was_paused && st.trips == 0 && !l->in_ring &&
	    ring_add(&hk->ring, l->id) == FB_OK)
		l->in_ring = true;	/* resumed: its other records now */
	return e;
}

/*
 * The outcome of send s (transfer result rc) into its record and its
 * endpoint, in the open group of outcomes (opened here when none is).
 */
static void
finish(struct hooks *hk, struct send *s, CURLcode rc)
{
	const struct webhook_send_row *w = s->row;
	struct webhook_outcome o = { .attempted = !s->stopped };
	struct hook_next nx;
	enum hook_answer a = HOOK_UNSENT;
	/* the pass's time, as --now gives it: the schedule follows it */
	long long	 at = hk->p.now;
	char		 ats[32], next[32], msg[CURL_ERROR_SIZE + 32], err[256];
	long		 code = 0;
	bool		 applied;
	enum fb_err	 e;

	time_sql(at, ats);
	o.at = ats;
	/* an answer past ANSWER_MAX ends the transfer, its status stands */
	if (s->h != NULL)
		curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &code);
	o.response_status = (int)code;
	if (s->stopped) {
		o.status = "failed";
		o.error = "endpoint stopped";
		hk->ended++;
	} else {
		a = hook_answer(code, s->h != NULL);
		hook_record_after((int)w->attempts, a, at, &nx);
		o.status = nx.status;
		if (nx.next != 0) {
			time_sql(nx.next, next);
			o.next = next;
		}
		if (a != HOOK_OK) {
			outbound_error(&s->out, rc, code, msg, sizeof(msg));
			text_clip(msg, 64, err, sizeof(err));
			o.error = err;
			hk->failed++;
		} else
			hk->sent++;
	}
	if (!hk->in_tx && db_begin(&hk->db) == FB_OK) {
		hk->in_tx = true;
		hk->in_tx_n = 0;
		clock_gettime(CLOCK_MONOTONIC, &hk->in_tx_since);
	}
	hk->in_tx_n++;
	if ((e = db_webhook_finish(&hk->db, w->id, s->claim->token, &o,
	    &applied)) == FB_OK && applied && a != HOOK_UNSENT)
		e = endpoint_after(hk, w, a, at, o.error);
	if (e != FB_OK) {
		logx(LOG_ERR, "webhook delivery %s: %s", w->id, fb_strerror(e));
		if (hk->in_tx)
			db_rollback(&hk->db);
		hk->in_tx = false;
	} else if (!applied)
		logx(LOG_WARN, "webhook delivery %s: claim lost", w->id);
}

/* Let go of a claim's reference; the last one frees it. */
static void
claim_unref(struct claim *c)
{
	if (--c->left > 0)
		return;
	free(c->s);
	dbrows_free(&c->due);
	free(c);
}

/* A send is over: its outcome written, its handle and claim let go. */
static void
send_done(struct hooks *hk, struct send *s, CURLcode rc)
{
	struct lane	*l;

	finish(hk, s, rc);
	if (s->h != NULL) {
		if (!s->stopped) {
			curl_multi_remove_handle(hk->m, s->h);
			hk->active--;
			if ((l = lane_find(hk, s->row->endpoint_id)) != NULL)
				l->active--;
		}
		curl_easy_cleanup(s->h);
	}
	curl_slist_free_all(s->hdr);
	s->h = NULL;
	s->hdr = NULL;
	claim_unref(s->claim);
}

/* Start row i of claim c: a request, or an end without one. */
static void
send_start(struct hooks *hk, struct claim *c, size_t i, struct lane *l)
{
	const struct webhook_send_row *w = c->due.row;
	struct send	*s = &c->s[i];

	s->row = &w[i];
	s->claim = c;
	c->left++;
	if (w[i].endpoint_stopped || l->stopped) {
		/* stopped or deleted meanwhile: no attempt */
		s->stopped = true;
		send_done(hk, s, CURLE_OK);
	} else if (prepare(hk, s, &w[i]) &&
	    curl_multi_add_handle(hk->m, s->h) == CURLM_OK) {
		hk->active++;
		l->active++;
	} else {
		/* an end without a request: the handle never went out */
		if (s->h != NULL)
			curl_easy_cleanup(s->h);
		s->h = NULL;
		send_done(hk, s, CURLE_FAILED_INIT);
	}
}

/* One group of the fan-out: a tenant's oldest events. */
struct fan_group {
	const char	*tenant;
	const char	*due;		/* the records' first attempt */
	int		 n;		/* events to take, at most */
	size_t		 got;		/* its events */
	int		 made;		/* the records made of them */
};

/* a fan-out group's events, and records of each (the plan's most) */
#define FAN_SHARE	16
#define FAN_SUBS_MAX	32

/*
 * The records of one event: one pending record per endpoint that was
 * enabled and subscribed when it happened (*subs, the caller's to free;
 * a plan has at most 20, FAN_SUBS_MAX), into r[*n ..]; *env its envelope
 * (contract: Events), the bytes every attempt sends, the caller's to
 * free.
 */
static enum fb_err
fan_event(struct db *db, const struct webhook_event_row *ev, const char *due,
    struct dbrows *subs, json_object **env, struct webhook_record *r,
    char (*id)[UUID_STRLEN + 1], size_t *n)
{
	const struct key_row *sub;
	size_t		 k;
	enum fb_err	 e;

	if ((e = db_webhook_subscribers(db, ev->tenant_id, ev->event_type,
	    ev->created_at, subs)) != FB_OK)
		return e;
	*env = event_envelope(ev->id, ev->event_type, ev->created_at,
	    ev->tenant_id, ev->payload);
	for (k = 0, sub = subs->row; k < subs->n && k < FAN_SUBS_MAX;
	    k++, sub++, (*n)++) {
		uuid_v7(id[*n]);
		r[*n] = (struct webhook_record){ id[*n], ev->tenant_id,
		    sub->id, ev->id, ev->event_type, json_text(*env), due };
	}
	return FB_OK;
}

/*
 * The transaction of one group (db_tx()): up to g->n of a tenant's
 * events become their records, written together, and are marked done.
 */
static enum fb_err
fan_group(struct db *db, void *arg)
{
	static struct webhook_record r[FAN_SHARE * FAN_SUBS_MAX];
	static char	 id[FAN_SHARE * FAN_SUBS_MAX][UUID_STRLEN + 1];
	struct fan_group *g = arg;
	struct dbrows	 evs;
	const struct webhook_event_row *ev;
	struct dbrows	 subs[FAN_SHARE];
	json_object	*env[FAN_SHARE];
	const char	*ids[FAN_SHARE];
	size_t		 i, n = 0, k;
	enum fb_err	 e;

	g->got = 0;
	g->made = 0;
	if ((e = db_webhook_events_claim(db, g->tenant, g->n, &evs)) != FB_OK)
		return e;
	memset(subs, 0, sizeof(subs));
	memset(env, 0, sizeof(env));
	for (i = 0, ev = evs.row; i < evs.n && e == FB_OK; i++) {
		e = fan_event(db, &ev[i], g->due, &subs[i], &env[i], r, id, &n);
		ids[i] = ev[i].id;
	}
	if (e == FB_OK && n > 0)
		e = db_webhook_deliveries_add(db, r, n);
	/* the group's events handled, in the records' transaction */
	if (e == FB_OK && evs.n > 0)
		e = db_webhook_events_done(db, ids, evs.n);
	g->got = evs.n;
	g->made = (int)n;
	for (k = 0; k < i; k++) {
		dbrows_free(&subs[k]);
		json_object_put(env[k]);
	}
	dbrows_free(&evs);
	return e;
}

/*
 * (1) fan-out, in turns over the tenants with events (a group of up to
 * FAN_SHARE of each one's oldest, each group made again when it crossed
 * another pass's: db_tx()), until no event is left, the pass is over
 * (its events count against --limit) or the pass has run `secs`
 * seconds.  A tenant with fewer than its share leaves the turns.
 */
static enum fb_err
fan_out(struct hooks *hk, long secs)
{
	char		 due[32], keys[TURN_FAN][UUID_STRLEN + 1];
	struct fan_group g = { .due = due };
	struct dbrows	 t;
	long long	 left = 0;
	size_t		 n, k;
	enum fb_err	 e = FB_OK;

	time_sql(hk->p.now, due);
	while (e == FB_OK && !hk->fan_done) {
		if (pass_room(&hk->p, FAN_SHARE) == 0 ||
		    pass_elapsed(&hk->p) >= secs) {
			if (db_webhook_events_left(&hk->db, LEFT_CAP,
			    &left) == FB_OK)
				pass_leave(&hk->p, "webhook events to fan out",
				    (long)left);
			return FB_OK;
		}
		if (hk->fan.n == 0) {
			if ((e = db_webhook_fan_tenants(&hk->db, TENANTS_READ,
			    &t)) != FB_OK)
				return e;
			e = ring_fill(&hk->fan, &t);
			dbrows_free(&t);
			if (e != FB_OK || (hk->fan_done = hk->fan.n == 0))
				return e;
		}
		n = ring_next(&hk->fan, keys, TURN_FAN);
		for (k = 0; k < n && e == FB_OK; k++) {
			g.tenant = keys[k];
			g.n = (int)pass_room(&hk->p, FAN_SHARE);
			if (g.n == 0 || (e = db_tx(&hk->db, fan_group,
			    &g)) != FB_OK)
				break;
			if (g.got < FAN_SHARE)
				ring_drop(&hk->fan, keys[k]);
			pass_took(&hk->p, (long)g.got);
			hk->made += g.made;
		}
	}
	return e;
}

static int
lane_cmp(const void *a, const void *b)
{
	const struct lane *x = a, *y = b;

	return strcmp(x->id, y->id);
}

/* A lane for endpoint `id`, after the sorted ones; NULL: no memory. */
static struct lane *
lane_new(struct hooks *hk, const char *id)
{
	struct lane	*l;
	size_t		 cap = hk->caplane ? hk->caplane * 2 : 64;

	if (hk->nlane == hk->caplane) {
		if ((l = reallocarray(hk->lane, cap, sizeof(*l))) == NULL)
			return NULL;
		hk->lane = l;
		hk->caplane = cap;
	}
	l = &hk->lane[hk->nlane++];
	memset(l, 0, sizeof(*l));
	snprintf(l->id, sizeof(l->id), "%s", id);
	l->st.enabled = true;
	return l;
}

/*
 * Meet the endpoints with records due now (db_webhook_turns(): each
 * tenant's first before any tenant's second): a lane each, into the ring
 * unless paused.  Claims whose lease ran out are due again first.
 */
static enum fb_err
refill(struct hooks *hk)
{
	struct dbrows	 t;
	const struct webhook_turn_row *r;
	struct lane	*l;
	char		 now[32];
	long long	 at = pass_clock(&hk->p);
	size_t		 i;
	enum fb_err	 e;

	time_sql(at, now);
	/* the lapsed claims' statement would wait on the group's records */
	commit_outcomes(hk, true);
	if ((e = db_webhook_lapsed(&hk->db, now)) != FB_OK ||
	    (e = db_webhook_turns(&hk->db, now, TURNS_READ, &t)) != FB_OK)
		return e;
	for (i = 0, r = t.row; i < t.n && e == FB_OK; i++, r++) {
		if ((l = lane_find(hk, r->id)) == NULL &&
		    (l = lane_new(hk, r->id)) == NULL) {
			e = FB_ENOMEM;
			break;
		}
		l->stopped = r->stopped;
		l->st.trips = r->trips;
		l->st.paused_until = r->paused_until;
		if (!l->in_ring && (l->stopped ||
		    hook_inflight(&l->st, at) > 0) &&
		    (e = ring_add(&hk->ring, l->id)) == FB_OK)
			l->in_ring = true;
	}
	dbrows_free(&t);
	/* the lanes met now among the others, for lane_find() */
	if (hk->nlane > hk->sorted)
		qsort(hk->lane, hk->nlane, sizeof(*hk->lane), lane_cmp);
	hk->sorted = hk->nlane;
	return e;
}

/* A round's turn: the lane and what it asks for. */
struct turn {
	struct lane	*l;
	int		 want;
	int		 got;
};

/*
 * What lane l may claim now: its free places in flight (HOOK_INFLIGHT;
 * one probe after a pause) within `slots` free connections, or
 * STOPPED_SHARE records of a stopped endpoint, which end without a
 * request and take no connection.
 */
static long
lane_want(const struct lane *l, long long at, long slots)
{
	long	 want;

	if (l->stopped)
		return STOPPED_SHARE;
	want = hook_inflight(&l->st, at) - l->active;
	return want < slots ? want : slots;
}

/*
 * Collect one round of turns at most, in the ring's order, while there
 * are free connections: t[0 .. *n) (ROUND_MAX at most); a lane that is
 * paused and has nothing in flight leaves the ring.  Returns the records
 * asked for, within the pass's room (--limit).
 */
static long
round_collect(struct hooks *hk, struct turn *t, size_t *n)
{
	char		 key[1][UUID_STRLEN + 1];
	struct lane	*l;
	long long	 at = pass_clock(&hk->p);
	size_t		 visits = hk->ring.n, k;
	long		 slots = hk->p.jobs - hk->active, total = 0, want;

	*n = 0;
	while (visits-- > 0 && hk->ring.n > 0 && slots > 0 && *n < ROUND_MAX) {
		(void)ring_next(&hk->ring, key, 1);
		if ((l = lane_find(hk, key[0])) == NULL) {
			ring_drop(&hk->ring, key[0]);
			continue;
		}
		/*
		 * around again (lanes left the ring meanwhile): the round ends
		 */
		for (k = 0; k < *n && t[k].l != l; k++)
			continue;
		if (k < *n)
			break;
		if (!l->stopped && l->active == 0 &&
		    hook_inflight(&l->st, at) == 0) {
			lane_out(hk, l);
			continue;
		}
		if ((want = lane_want(l, at, slots)) <= 0)
			continue;
		if ((want = pass_room(&hk->p, total + want) - total) <= 0)
			break;
		t[*n].l = l;
		t[(*n)++].want = (int)want;
		total += want;
		if (!l->stopped)
			slots -= want;
	}
	return total;
}

/*
 * Claim the round's shares ct[0 .. n) into c, with a new token: in the
 * open group of outcomes, committed with them (one commit, not two: a
 * claim on a connection of its own waited for the group's records), or
 * in a transaction of its own, which is also what follows when the group
 * could not take the claim (its outcomes are lost: the claims lapse and
 * the sends go again).
 */
static enum fb_err
claim(struct hooks *hk, const struct webhook_claim_turn *ct, size_t n,
    struct claim *c)
{
	long long	 at = pass_clock(&hk->p);
	char		 now[32], until[32];
	enum fb_err	 e;

	randombytes_buf(c->token, sizeof(c->token));
	time_sql(at, now);
	time_sql(at + LEASE_SECS, until);
	if (hk->in_tx) {
		if ((e = db_webhook_claim(&hk->db, ct, n, now, until, c->token,
		    true, &c->due)) == FB_OK && commit_outcomes(hk, true))
			return FB_OK;
		dbrows_free(&c->due);
		if (hk->in_tx) {
			logx(LOG_WARN, "webhook outcomes lost with a claim: %s",
			    fb_strerror(e));
			db_rollback(&hk->db);
			hk->in_tx = false;
		}
	}
	return db_webhook_claim(&hk->db, ct, n, now, until, c->token, false,
	    &c->due);
}

/*
 * One round of turns: what each lane can start at once, claimed in one
 * transaction (db_webhook_claim()), then started; a lane leaves the ring
 * when it had fewer due records than it asked for (drained), or once its
 * probe is claimed.  Then the transfers are served again, however many
 * records of stopped endpoints the round ends.  *took when it claimed.
 */
static enum fb_err
take_turns(struct hooks *hk, bool *took)
{
	struct turn	 t[ROUND_MAX];
	struct webhook_claim_turn ct[ROUND_MAX];
	const struct webhook_send_row *w;
	struct claim	*c;
	size_t		 n, i, k;
	enum fb_err	 e;

	*took = false;
	if (pass_over(&hk->p) || round_collect(hk, t, &n) == 0)
		return FB_OK;
	for (k = 0; k < n; k++) {
		ct[k].endpoint = t[k].l->id;
		ct[k].n = t[k].want;
		t[k].got = 0;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return FB_ENOMEM;
	if ((e = claim(hk, ct, n, c)) != FB_OK || (c->due.n > 0 &&
	    (c->s = calloc(c->due.n, sizeof(*c->s))) == NULL)) {
		/* the claims lapse and the rows go to a later pass */
		dbrows_free(&c->due);
		free(c);
		return e != FB_OK ? e : FB_ENOMEM;
	}
	pass_took(&hk->p, (long)c->due.n);
	hk->claimed += (long)c->due.n;
	*took = c->due.n > 0;
	/* the round's own reference: the sends may all end within it */
	c->left = 1;
	for (i = 0, w = c->due.row; i < c->due.n; i++)
		for (k = 0; k < n; k++)
			if (strcmp(w[i].endpoint_id, t[k].l->id) == 0) {
				t[k].got++;
				send_start(hk, c, i, t[k].l);
				break;
			}
	for (k = 0; k < n; k++)
		if (t[k].got < t[k].want || (!t[k].l->stopped &&
		    t[k].l->st.trips > 0))
			lane_out(hk, t[k].l);
	claim_unref(c);
	return FB_OK;
}

/* Read the transfers that ended and finish them. */
static void
reap(struct hooks *hk)
{
	struct send	*s;
	CURLMsg		*msg;
	int		 running, left;

	curl_multi_perform(hk->m, &running);
	while ((msg = curl_multi_info_read(hk->m, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
		    (char **)&s);
		send_done(hk, s, msg->data.result);
	}
}

/*
 * (2) the sends: turns until no record is due or the pass is over, then
 * the requests in flight are waited for.  The ring is filled again when
 * it is empty, unless the last filling claimed nothing.
 */
static enum fb_err
sends(struct hooks *hk)
{
	long		 mark = -1;
	long long	 left = 0;
	char		 now[32];
	bool		 more, took;
	enum fb_err	 e = FB_OK;

	for (;;) {
		more = !pass_over(&hk->p) && e == FB_OK &&
		    (hk->ring.n > 0 || mark != hk->claimed);
		if (more && hk->ring.n == 0) {
			mark = hk->claimed;
			e = refill(hk);
		}
		took = false;
		if (more && e == FB_OK)
			e = take_turns(hk, &took);
		/* no wait while turns may still take records */
		if (hk->active > 0)
			curl_multi_poll(hk->m, NULL, 0, took ? 0 : hk->in_tx ?
			    OUTCOMES_WAIT_MS : 1000, NULL);
		reap(hk);
		commit_outcomes(hk, false);
		if (hk->active == 0 && !more)
			break;
	}
	commit_outcomes(hk, true);
	if (e == FB_OK && pass_over(&hk->p)) {
		time_sql(pass_clock(&hk->p), now);
		if (db_webhook_left(&hk->db, now, LEFT_CAP, &left) == FB_OK)
			pass_leave(&hk->p, "due webhook records", (long)left);
	}
	return e;
}

/*
 * (3) privacy-policy checks (ppcheck.h): the sites whose policy URL has
 * no check of the last day (or of its current URL), fetched one at a
 * time through the address rule, judged and kept, while the budget
 * lasts.
 */
static enum fb_err
pp_pass(struct hooks *hk)
{
	struct dbrows	 due;
	const struct pp_due_row *d;
	struct outbound	 o;
	struct buf	 page;
	json_object	*findings;
	CURL		*h;
	CURLcode	 rc;
	unsigned char	 sum[crypto_hash_sha256_BYTES];
	char		 since[32], at[32], id[UUID_STRLEN + 1], sha[65];
	char		 msg[300];
	char		 err[256];
	long		 code;
	size_t		 i;
	enum fb_err	 e;

	time_sql(hk->p.now - PP_EVERY_SECS, since);
	time_sql(hk->p.now, at);
	if ((e = db_pp_due(&hk->db, since, PP_PER_PASS, &due)) != FB_OK)
		return e;
	for (i = 0, d = due.row; i < due.n && e == FB_OK &&
	    pass_elapsed(&hk->p) < hk->p.budget; i++, d++) {
		struct pp_check_new c = { .tenant = d->tenant_id,
		    .site = d->site_id, .url = d->url,
		    .consent_mode = d->consent_mode, .checked_at = at };

		if ((h = curl_easy_init()) == NULL) {
			e = FB_ENOMEM;
			break;
		}
		buf_init(&page, PP_PAGE_MAX);
		outbound_setup(h, &hk->conf, d->url, false, hk->resolve, &o,
		    &page, PP_PAGE_MAX);
		curl_easy_setopt(h, CURLOPT_USERAGENT,
		    "Formback-PolicyCheck/1");
		rc = curl_easy_perform(h);
		code = 0;
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		findings = json_object_new_array();
		/* a page past PP_PAGE_MAX is judged on its beginning */
		if ((rc == CURLE_OK ||
		    (rc == CURLE_WRITE_ERROR && o.got > o.max)) &&
		    code >= 200 && code < 300) {
			c.status = pp_judge(page.data, page.len,
			    d->consent_mode, d->url, findings);
			crypto_hash_sha256(sum,
			    (const unsigned char *)page.data, page.len);
			sodium_bin2hex(sha, sizeof(sha), sum, sizeof(sum));
			c.page_sha256 = sha;
		} else {
			c.status = "error";
			outbound_error(&o, rc, code, msg, sizeof(msg));
			text_clip(msg, 64, err, sizeof(err));
			c.error = err;
		}
		c.http_status = (int)code;
		c.findings = json_object_to_json_string_ext(findings,
		    JSON_C_TO_STRING_PLAIN);
		uuid_v7(id);
		c.id = id;
		e = db_pp_check_add(&hk->db, &c);
		json_object_put(findings);
		buf_release(&page);
		curl_easy_cleanup(h);
		if (e == FB_OK)
			hk->checked++;
	}
	dbrows_free(&due);
	return e;
}

/* Report an error of a part of the pass; the pass goes on and fails. */
static void
part_failed(struct hooks *hk, const char *part, enum fb_err e)
{
	fprintf(stderr, "formback-webhooks: %s: %s\n", part, fb_strerror(e));
	hk->errors++;
}

/* (2) to (4), once the libraries and connections are there. */
static void
run(struct hooks *hk)
{
	unsigned long long purged = 0;
	char		 before[32];
	int		 made;
	enum fb_err	 e;

	/*
	 * a short fan-out first (every tenant's oldest events: the sends
	 * are not held behind one tenant's thousands), the sends, then the
	 * fan-out again with what is left of the budget's first half, and
	 * the records it made sent in this pass while the budget lasts (a
	 * slow first second must not hold an event back a minute)
	 */
	if ((e = fan_out(hk, FAN_FIRST)) != FB_OK)
		part_failed(hk, "fan-out", e);
	if ((e = sends(hk)) != FB_OK)
		part_failed(hk, "sends", e);
	made = hk->made;
	if ((e = fan_out(hk, hk->p.budget / 2)) != FB_OK)
		part_failed(hk, "fan-out", e);
	if (hk->made > made && !pass_over(&hk->p) &&
	    (e = sends(hk)) != FB_OK)
		part_failed(hk, "sends", e);
	if ((e = pp_pass(hk)) != FB_OK)
		part_failed(hk, "privacy-policy checks", e);
	time_sql(hk->p.now - RETENTION_DAYS * 86400LL, before);
	if ((e = db_webhook_purge(&hk->db, before, &purged)) != FB_OK)
		part_failed(hk, "purge", e);
	if (hk->p.verbose)
		fprintf(stderr, "formback-webhooks: %d delivery record(s) "
		    "made, "
		    "%d sent, %d failed attempt(s), %d ended unsent (endpoint "
		    "stopped), %d endpoint(s) paused, %ld round(s) of turns, "
		    "%d privacy polic(y/ies) checked, %llu old row(s) purged\n",
		    hk->made, hk->sent, hk->failed, hk->ended, hk->paused,
		    hk->ring.rounds, hk->checked, purged);
}

int
main(int argc, char *argv[])
{
	static struct hooks hk = { .p = { .prog = "formback-webhooks",
	    .job = "webhooks", .budget = BUDGET, .jobs = 8 } };
	int		 ch;

	if ((ch = pass_start(&hk.p, argc, argv, LOG_DEBUG, &hk.conf)) >= 0)
		return ch;
	if (sodium_init() < 0 || curl_global_init(CURL_GLOBAL_DEFAULT) != 0 ||
	    (hk.m = curl_multi_init()) == NULL) {
		fprintf(stderr,
		    "formback-webhooks: cannot initialise libraries\n");
		return 1;
	}
	if (!pass_db_open(&hk.p, &hk.db, &hk.conf))
		return 1;
	hk.resolve = outbound_resolve_list(&hk.conf);
	ring_init(&hk.ring);
	run(&hk);
	ring_release(&hk.ring);
	free(hk.lane);
	curl_slist_free_all(hk.resolve);
	curl_multi_cleanup(hk.m);
	db_close(&hk.db);
	hk.p.failed = hk.errors > 0;
	pass_took(&hk.p, hk.checked);
	ch = pass_end(&hk.p, &hk.conf);
	conf_free(&hk.conf);
	curl_global_cleanup();
	return ch;
}
