/*
 * formback-webhooks: sends the outbox's events to the endpoints subscribed
 * to them, signed, retried, never to a private address (design 1, 5, 6;
 * contract: Events; formback-webhooks(8)).
 *
 * One bounded pass: (1) fan-out: each unprocessed webhook event of the
 * outbox becomes one pending delivery record per endpoint that was
 * enabled and subscribed when the event happened, in the transaction that
 * marks the event processed (locked with SKIP LOCKED, so copies on
 * several hosts never fan out one event twice; the pass reads on by id
 * from the last event it has seen); (2) sends: due records, and those
 * whose lease ran out, are claimed with a token and a lease in one short
 * transaction, sent in
 * parallel with libcurl's multi interface (--jobs at once), and finished
 * with an update conditional on the token, so a claim that lapsed to
 * another copy is never finished twice (at least once, as the contract
 * says); (3) purge of what is older than the retention.
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
#include "outbound.h"
#include "pass.h"
#include "pii.h"
#include "ppcheck.h"
#include "db/store.h"

/* contract: Events, delivery rules 1: the waits after attempts 1 to 5 */
static const int retry_after[] = { 60, 5 * 60, 30 * 60, 2 * 3600, 6 * 3600 };
#define ATTEMPTS_MAX	6
/* failed attempts in a row that stop an endpoint (disabled_reason) */
#define FAILURE_THRESHOLD 15
/* a claim's lease: past the 10 s timeouts with room to spare */
#define LEASE_SECS	120
/* what is kept: outbox events and finished delivery records */
#define RETENTION_DAYS	30
/* privacy-policy checks: each site's page once a day, this many a pass */
#define PP_EVERY_SECS	86400
#define PP_PER_PASS	20
#define ANSWER_MAX	65536

struct batch;

struct send {
	CURL			*h;
	struct curl_slist	*hdr;
	const struct webhook_send_row *row;
	struct outbound		 out;
	bool			 stopped;	/* the endpoint is: no attempt */
	const unsigned char	*token;		/* its claim's */
	struct batch		*batch;		/* its claim */
};

static const struct conf *conf;

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
	    strlen(mid)) == 1 && EVP_MAC_update(c, (const unsigned char *)".", 1) == 1)) &&
	    EVP_MAC_update(c, (const unsigned char *)t, strlen(t)) == 1 &&
	    EVP_MAC_update(c, (const unsigned char *)".", 1) == 1 &&
	    EVP_MAC_update(c, body, n) == 1 && EVP_MAC_final(c, raw, &len, 32) == 1 &&
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
prepare(struct send *s, const struct webhook_send_row *w, struct curl_slist *resolve)
{
	const unsigned char *mk = conf_master_key(conf, (unsigned)w->secret_key_id);
	char		 secret[128], t[24], hex[65], sig[200], did[UUID_STRLEN + 1];
	char		 b64[64];
	unsigned char	 raw[32], key[64];
	size_t		 keylen;

	memset(s, 0, sizeof(*s));
	s->row = w;
	if (mk == NULL || !pii_open(mk, w->tenant_id, w->endpoint_id,
	    "webhook_secret", w->secret_sealed.p, w->secret_sealed.n, secret,
	    sizeof(secret)) || strncmp(secret, "whsec_", 6) != 0) {
		snprintf(s->out.error, sizeof(s->out.error), "secret cannot be opened");
		return false;
	}
	snprintf(t, sizeof(t), "%lld", (long long)time(NULL));
	uuid_v7(did);
	if (!hmac_hex(secret, strlen(secret), t, NULL, w->body.p, w->body.n, hex, raw)) {
		sodium_memzero(secret, sizeof(secret));
		snprintf(s->out.error, sizeof(s->out.error), "cannot sign");
		return false;
	}
	snprintf(sig, sizeof(sig), "t=%s,v1=%s", t, hex);
	s->hdr = header(NULL, "Content-Type", "application/json");
	s->hdr = header(s->hdr, "User-Agent", "Formback-Webhook/1");
	s->hdr = header(s->hdr, "X-Formback-Event", w->event_type);
	s->hdr = header(s->hdr, "X-Formback-Delivery", did);
	s->hdr = header(s->hdr, "X-Formback-Signature", sig);
	s->hdr = header(s->hdr, "webhook-id", w->event_id);
	s->hdr = header(s->hdr, "webhook-timestamp", t);
	if (sodium_base642bin(key, sizeof(key), secret + 6, strlen(secret + 6),
	    NULL, &keylen, NULL, sodium_base64_VARIANT_ORIGINAL) == 0 &&
	    hmac_hex(key, keylen, t, w->event_id, w->body.p, w->body.n, hex, raw)) {
		sodium_bin2base64(b64, sizeof(b64), raw, 32,
		    sodium_base64_VARIANT_ORIGINAL);
		snprintf(sig, sizeof(sig), "v1,%s", b64);
		s->hdr = header(s->hdr, "webhook-signature", sig);
	}
	sodium_memzero(secret, sizeof(secret));
	sodium_memzero(key, sizeof(key));
	if ((s->h = curl_easy_init()) == NULL)
		return false;
	outbound_setup(s->h, conf, w->url, true, resolve, &s->out, NULL, ANSWER_MAX);
	curl_easy_setopt(s->h, CURLOPT_POSTFIELDS, (const char *)w->body.p);
	curl_easy_setopt(s->h, CURLOPT_POSTFIELDSIZE, (long)w->body.n);
	curl_easy_setopt(s->h, CURLOPT_HTTPHEADER, s->hdr);
	return true;
}

/*
 * Outcomes are written in one transaction per group (one commit, one
 * flush of the log, for many sends): begun by the first finish(), and
 * committed by commit_outcomes() once OUTCOMES_MAX are waiting or the
 * first has waited OUTCOMES_WAIT_MS, and always at the end of the pass.
 * Their claims' leases are far longer than that.
 */
#define OUTCOMES_MAX	64
#define OUTCOMES_WAIT_MS 200
static bool	 in_tx;
static int	 in_tx_n;
static struct timespec in_tx_since;

static void
commit_outcomes(struct db *db, bool force)
{
	struct timespec	 now;
	enum fb_err	 e;

	if (!in_tx)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!force && in_tx_n < OUTCOMES_MAX &&
	    (now.tv_sec - in_tx_since.tv_sec) * 1000 +
	    (now.tv_nsec - in_tx_since.tv_nsec) / 1000000 < OUTCOMES_WAIT_MS)
		return;
	in_tx = false;
	/* lost outcomes: the claims lapse and the sends go again (at least once) */
	if ((e = db_commit(db)) != FB_OK) {
		logx(LOG_ERR, "cannot record webhook outcomes: %s", fb_strerror(e));
		db_rollback(db);
	}
}

/* The attempt's outcome into the record and its endpoint. */
static void
finish(struct db *db, struct send *s, long long now, CURLcode rc, int *sent,
    int *failed)
{
	const struct webhook_send_row *w = s->row;
	struct webhook_outcome o = { .failure_threshold = FAILURE_THRESHOLD };
	char		 at[32], next[32], msg[CURL_ERROR_SIZE + 32], err[256];
	long		 code = 0;
	bool		 applied;
	enum fb_err	 e;

	time_sql(now, at);
	o.at = at;
	o.attempted = !s->stopped;
	/* an answer past ANSWER_MAX ends the transfer, its status stands */
	if (s->h != NULL)
		curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &code);
	o.response_status = (int)code;
	if (code >= 200 && code < 300) {
		o.status = "succeeded";
		(*sent)++;
	} else {
		outbound_error(&s->out, rc, code, msg, sizeof(msg));
		text_clip(msg, 64, err, sizeof(err));
		o.error = err;
		if (code == 410)
			o.disable = "gone";
		if (code != 410 && !s->stopped && w->attempts + 1 < ATTEMPTS_MAX) {
			time_sql(now + retry_after[w->attempts], next);
			o.next = next;
			o.status = "pending";
		} else
			o.status = "failed";
		(*failed)++;
	}
	if (!in_tx && db_begin(db) == FB_OK) {
		in_tx = true;
		in_tx_n = 0;
		clock_gettime(CLOCK_MONOTONIC, &in_tx_since);
	}
	in_tx_n++;
	if ((e = db_webhook_finish(db, w->id, s->token, &o, &applied)) != FB_OK) {
		logx(LOG_ERR, "webhook delivery %s: %s", w->id, fb_strerror(e));
		if (in_tx)
			db_rollback(db);
		in_tx = false;
	}
	else if (!applied)
		logx(LOG_WARN, "webhook delivery %s: claim lost", w->id);
}

/* One group of the fan-out: its events after `after`, as they were read. */
struct fan_group {
	const char	*after;		/* the pass reads on from here */
	const char	*due;		/* the records' first attempt */
	char		 last[UUID_STRLEN + 1];	/* the group's last event */
	size_t		 got;		/* its events; 0: none left */
	int		 made;		/* the records made of them */
};

/*
 * The transaction of one group (db_tx()): up to WEBHOOK_FANOUT_MAX events
 * after g->after become one pending record per endpoint that was
 * enabled and subscribed when the event happened, and are marked done.
 */
static enum fb_err
fan_group(struct db *db, void *arg)
{
	struct fan_group *g = arg;
	struct dbrows	 evs;
	struct dbres	 subs;
	const struct webhook_event_row *ev;
	json_object	*env, *data;
	const char	*ids[WEBHOOK_FANOUT_MAX];
	char		 id[UUID_STRLEN + 1];
	size_t		 i;
	unsigned	 k;
	enum fb_err	 e;

	g->got = 0;
	g->made = 0;
	if ((e = db_webhook_events_claim(db, g->after, WEBHOOK_FANOUT_MAX,
	    &evs)) != FB_OK)
		return e;
	for (i = 0, ev = evs.row; i < evs.n && e == FB_OK; i++, ev++) {
		e = db_webhook_subscribers(db, ev->tenant_id, ev->event_type,
		    ev->created_at, &subs);
		if (e != FB_OK)
			break;
		/* the envelope (contract: Events), the bytes every attempt sends */
		env = json_object_new_object();
		jadd_str(env, "id", ev->id);
		jadd_str(env, "type", ev->event_type);
		jadd_time(env, "created_at", ev->created_at);
		jadd_str(env, "tenant_id", ev->tenant_id);
		data = ev->payload != NULL ? json_tokener_parse(ev->payload) : NULL;
		json_object_object_add(env, "data", data != NULL ? data :
		    json_object_new_object());
		for (k = 0; k < subs.nrows && e == FB_OK; k++) {
			uuid_v7(id);
			e = db_webhook_delivery_add(db, id, ev->tenant_id,
			    dbres_get(&subs, k, 0), ev->id, ev->event_type,
			    json_text(env), g->due);
			g->made++;
		}
		json_object_put(env);
		dbres_free(&subs);
		ids[i] = ev->id;
	}
	/* the group's events handled, in the records' transaction */
	if (e == FB_OK && evs.n > 0) {
		e = db_webhook_events_done(db, ids, evs.n);
		g->got = evs.n;
		snprintf(g->last, sizeof(g->last), "%s",
		    ((const struct webhook_event_row *)evs.row)[evs.n - 1].id);
	}
	dbrows_free(&evs);
	return e;
}

/*
 * (1) fan-out of up to `limit` outbox events, a group at a time, each
 * made again when it crossed another pass's (db_tx()); *n the records
 * made.
 */
static enum fb_err
fan_out(struct db *db, long long now, long limit, int *n)
{
	char		 due[32];
	char		 after[UUID_STRLEN + 1] = DB_MIN_ID;
	struct fan_group g = { .after = after, .due = due };
	long		 done = 0;
	enum fb_err	 e;

	time_sql(now, due);
	while (done < limit) {
		if ((e = db_tx(db, fan_group, &g)) != FB_OK)
			return e;
		if (g.got == 0)
			break;
		done += (long)g.got;
		*n += g.made;
		memcpy(after, g.last, sizeof(after));
	}
	return FB_OK;
}

/*
 * One claim of due records (design 6): its rows, the sends made of them
 * and its token, alive until the last of its sends is finished.
 */
struct batch {
	struct dbrows	 due;
	struct send	*s;
	unsigned char	 token[16];
	size_t		 next;		/* the first row not yet started */
	size_t		 active;	/* sends in flight */
	bool		 alive;
};

static enum fb_err
batch_claim(struct db *db, struct batch *b, long long now, int n)
{
	char		 nows[32], until[32];
	enum fb_err	 e;

	memset(b, 0, sizeof(*b));
	randombytes_buf(b->token, sizeof(b->token));
	time_sql(now, nows);
	time_sql(now + LEASE_SECS, until);
	if ((e = db_webhook_claim(db, nows, until, b->token, n, &b->due)) != FB_OK)
		return e;
	if (b->due.n == 0) {
		dbrows_free(&b->due);
		return FB_OK;
	}
	if ((b->s = calloc(b->due.n, sizeof(*b->s))) == NULL) {
		/* the claims lapse and the rows go to a later pass */
		dbrows_free(&b->due);
		return FB_ENOMEM;
	}
	b->alive = true;
	return FB_OK;
}

static void
batch_free(struct batch *b)
{
	free(b->s);
	dbrows_free(&b->due);
	b->alive = false;
}

/* Start the batch's next row: a request, or an end without one. */
static void
batch_start(struct db *db, CURLM *m, struct curl_slist *resolve, struct batch *b,
    long long now, int *sent, int *failed)
{
	const struct webhook_send_row *w = b->due.row;
	size_t		 i = b->next++;
	struct send	*s = &b->s[i];

	if (w[i].endpoint_stopped) {
		/* stopped or deleted meanwhile: no attempt */
		s->row = &w[i];
		s->stopped = true;
		snprintf(s->out.error, sizeof(s->out.error), "endpoint stopped");
	} else if (prepare(s, &w[i], resolve)) {
		s->token = b->token;
		s->batch = b;
		curl_easy_setopt(s->h, CURLOPT_PRIVATE, s);
		curl_multi_add_handle(m, s->h);
		b->active++;
		return;
	}
	/* an end without a request */
	s->token = b->token;
	s->batch = b;
	finish(db, s, now, s->stopped ? CURLE_OK : CURLE_FAILED_INIT, sent, failed);
	curl_slist_free_all(s->hdr);
	if (s->h != NULL)
		curl_easy_cleanup(s->h);
	s->h = NULL;
}

/*
 * (2) the due sends, at most `limit` records, --jobs at once: two claims
 * alive at most, the next one made when every row of the current one
 * has started, so the connections never wait for a claim to drain.
 * *total the records claimed.
 */
static enum fb_err
send_all(struct db *db, CURLM *m, struct curl_slist *resolve, long long now,
    long jobs, int batch, long limit, int *total, int *sent, int *failed)
{
	struct batch	 b[2];
	struct send	*d;
	CURLMsg		*msg;
	size_t		 active, k;
	int		 running, left;
	bool		 more = true, waiting;
	enum fb_err	 e = FB_OK;

	memset(b, 0, sizeof(b));
	for (;;) {
		/* a claim when no alive one has rows left to start */
		waiting = false;
		for (k = 0; k < 2; k++)
			if (b[k].alive && b[k].next < b[k].due.n)
				waiting = true;
		for (k = 0; more && !waiting && k < 2; k++) {
			if (b[k].alive)
				continue;
			/* a claim is a transaction of its own */
			commit_outcomes(db, true);
			if ((e = batch_claim(db, &b[k], now, (int)(limit - *total <
			    batch ? limit - *total : batch))) != FB_OK || !b[k].alive)
				more = false;
			else {
				*total += (int)b[k].due.n;
				more = *total < limit;
				waiting = true;
			}
		}
		active = b[0].active + b[1].active;
		for (k = 0; k < 2; k++)
			while (b[k].alive && b[k].next < b[k].due.n && active < (size_t)jobs) {
				batch_start(db, m, resolve, &b[k], now, sent, failed);
				active = b[0].active + b[1].active;
			}
		curl_multi_perform(m, &running);
		while ((msg = curl_multi_info_read(m, &left)) != NULL) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&d);
			finish(db, d, now, msg->data.result, sent, failed);
			curl_multi_remove_handle(m, d->h);
			curl_easy_cleanup(d->h);
			curl_slist_free_all(d->hdr);
			d->h = NULL;
			d->batch->active--;
		}
		commit_outcomes(db, false);
		for (k = 0; k < 2; k++)
			if (b[k].alive && b[k].next == b[k].due.n && b[k].active == 0)
				batch_free(&b[k]);
		if (!b[0].alive && !b[1].alive && !more) {
			commit_outcomes(db, true);
			break;
		}
		if (b[0].active + b[1].active > 0)
			curl_multi_poll(m, NULL, 0, in_tx ? OUTCOMES_WAIT_MS : 1000, NULL);
	}
	return e;
}

/*
 * (4) privacy-policy checks (ppcheck.h): the sites whose policy URL has
 * no check of the last day (or of its current URL), fetched one at a
 * time through the address rule, judged and kept.
 */
static enum fb_err
pp_pass(struct db *db, long long now, int *checked)
{
	struct dbrows	 due;
	const struct pp_due_row *d;
	struct curl_slist *resolve;
	struct outbound	 o;
	struct buf	 page;
	json_object	*findings;
	CURL		*h;
	CURLcode	 rc;
	unsigned char	 sum[crypto_hash_sha256_BYTES];
	char		 since[32], at[32], id[UUID_STRLEN + 1], sha[65], msg[300];
	char		 err[256];
	long		 code;
	size_t		 i;
	enum fb_err	 e;

	time_sql(now - PP_EVERY_SECS, since);
	time_sql(now, at);
	if ((e = db_pp_due(db, since, PP_PER_PASS, &due)) != FB_OK)
		return e;
	resolve = outbound_resolve_list(conf);
	for (i = 0, d = due.row; i < due.n && e == FB_OK; i++, d++) {
		struct pp_check_new c = { .tenant = d->tenant_id, .site = d->site_id,
		    .url = d->url, .consent_mode = d->consent_mode, .checked_at = at };

		if ((h = curl_easy_init()) == NULL) {
			e = FB_ENOMEM;
			break;
		}
		buf_init(&page, PP_PAGE_MAX);
		outbound_setup(h, conf, d->url, false, resolve, &o, &page, PP_PAGE_MAX);
		curl_easy_setopt(h, CURLOPT_USERAGENT, "Formback-PolicyCheck/1");
		rc = curl_easy_perform(h);
		code = 0;
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		findings = json_object_new_array();
		/* a page past PP_PAGE_MAX is judged on its beginning */
		if ((rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && o.got > o.max)) &&
		    code >= 200 && code < 300) {
			c.status = pp_judge(page.data, page.len, d->consent_mode, d->url,
			    findings);
			crypto_hash_sha256(sum, (const unsigned char *)page.data, page.len);
			sodium_bin2hex(sha, sizeof(sha), sum, sizeof(sum));
			c.page_sha256 = sha;
		} else {
			c.status = "error";
			outbound_error(&o, rc, code, msg, sizeof(msg));
			text_clip(msg, 64, err, sizeof(err));
			c.error = err;
		}
		c.http_status = (int)code;
		c.findings = json_object_to_json_string_ext(findings, JSON_C_TO_STRING_PLAIN);
		uuid_v7(id);
		c.id = id;
		e = db_pp_check_add(db, &c);
		json_object_put(findings);
		buf_release(&page);
		curl_easy_cleanup(h);
		if (e == FB_OK)
			(*checked)++;
	}
	curl_slist_free_all(resolve);
	dbrows_free(&due);
	return e;
}

int
main(int argc, char *argv[])
{
	struct pass	 o = { .prog = "formback-webhooks", .job = "webhooks",
			    .budget = 50, .jobs = 8 };
	long		 limit;
	struct conf	 c;
	struct db	 db;
	char		 err[512], before[32];
	unsigned long long purged = 0;
	int		 ch, made = 0, sent = 0, failed = 0, total = 0;
	int		 checked = 0, errors = 0, batch;
	CURLM		*m;
	struct curl_slist *resolve;
	enum fb_err	 e;

	if ((ch = pass_opts(&o, argc, argv)) >= 0)
		return ch;
	limit = o.limit > 0 ? o.limit : 1000;
	log_init("formback-webhooks", o.verbose ? LOG_DEBUG : LOG_WARN);
	if (conf_load(&c, NULL, err, sizeof(err)) != FB_OK) {
		fprintf(stderr, "formback-webhooks: %s\n", err);
		return 2;
	}
	conf = &c;
	if (sodium_init() < 0 || curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
		fprintf(stderr, "formback-webhooks: cannot initialise libraries\n");
		return 1;
	}
	if (db_open(&db, &c) != FB_OK) {
		fprintf(stderr, "formback-webhooks: cannot connect to the database\n");
		return 1;
	}
	if ((e = fan_out(&db, o.now, limit, &made)) != FB_OK) {
		fprintf(stderr, "formback-webhooks: fan-out: %s\n", fb_strerror(e));
		errors++;
	}
	/* one multi handle for the pass: its connections serve every batch */
	if ((m = curl_multi_init()) == NULL) {
		fprintf(stderr, "formback-webhooks: cannot initialise libcurl\n");
		return 1;
	}
	resolve = outbound_resolve_list(&c);
	/*
	 * A batch is sent within its lease even if every receiver times out:
	 * --jobs at once, each at most OUTBOUND_TIMEOUT_SECS.
	 */
	batch = (int)(o.jobs * (LEASE_SECS / OUTBOUND_TIMEOUT_SECS - 2));
	e = send_all(&db, m, resolve, o.now, o.jobs, batch, limit, &total, &sent,
	    &failed);
	curl_multi_cleanup(m);
	curl_slist_free_all(resolve);
	if (e != FB_OK) {
		fprintf(stderr, "formback-webhooks: sends: %s\n", fb_strerror(e));
		errors++;
	}
	if ((e = pp_pass(&db, o.now, &checked)) != FB_OK) {
		fprintf(stderr, "formback-webhooks: privacy-policy checks: %s\n",
		    fb_strerror(e));
		errors++;
	}
	time_sql(o.now - RETENTION_DAYS * 86400LL, before);
	if ((e = db_webhook_purge(&db, before, &purged)) != FB_OK) {
		fprintf(stderr, "formback-webhooks: purge: %s\n", fb_strerror(e));
		errors++;
	}
	if (o.verbose)
		fprintf(stderr, "formback-webhooks: %d delivery record(s) made, "
		    "%d sent, %d failed attempt(s), %d privacy polic(y/ies) "
		    "checked, %llu old row(s) purged\n", made, sent, failed,
		    checked, purged);
	db_close(&db);
	o.failed = errors > 0;
	pass_took(&o, sent + failed + checked);
	ch = pass_end(&o, &c);
	conf_free(&c);
	curl_global_cleanup();
	return ch;
}
