/*
 * formback.fcgi: the FastCGI responder.  One process handles one request
 * at a time with one database connection; the web server pre-forks and
 * respawns as many as it is told (fcgi-conf/).  Between requests, a
 * worker with none waiting applies the collector's intake queue a few
 * events at a time (design 3; tag_apply()), and an idle one looks every
 * second for events nobody is applying.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include <fcgiapp.h>

#include "prefork.h"
#include "req.h"
#include "auth.h"
#include "ingest.h"
#include "db/store.h"

/*
 * Strict-Transport-Security (RFC 6797) of every answer when base_url is
 * https: a year, as the web server fragments send it for static files.
 */
#define HSTS_VALUE	"max-age=31536000"

#define IDLE_APPLY	50	/* queued events per turn between requests */
#define BATCH_MAX	INGEST_ADD_MAX	/* collector events filed together */
#define IDLE_AFTER_MS	50	/* no request for this long: worker is idle */
#define IDLE_CHECK_MS	1000	/* an idle worker's look at the queue */

static const char *
status_text(int s)
{
	switch (s) {
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 204: return "No Content";
	case 302: return "Found";
	case 304: return "Not Modified";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 409: return "Conflict";
	case 412: return "Precondition Failed";
	case 422: return "Unprocessable Content";
	case 429: return "Too Many Requests";
	case 503: return "Service Unavailable";
	default: return s >= 500 ? "Internal Server Error" : s >= 400 ?
	    "Bad Request" : s >= 300 ? "Redirect" : "OK";
	}
}

/* Read the request body; returns whether the input was read to its end. */
static bool
read_body(struct req *r, FCGX_Stream *in)
{
	char	 chunk[8192];
	int	 n;

	if (r->content_length > (long)r->body.max) {
		r->body_too_large = true;
		return false;
	}
	while ((n = FCGX_GetStr(chunk, sizeof(chunk), in)) > 0)
		if (buf_add(&r->body, chunk, (size_t)n) != FB_OK) {
			r->body_too_large = true;
			return false;
		}
	return FCGX_GetError(in) == 0;
}

/*
 * Add one header line to the answer's head.  Every header of a response
 * goes through here, and what header_ok() refuses is left out (logged),
 * so no value can split the response (CWE-113).
 */
static void
header(struct buf *head, const char *name, const char *value)
{
	if (!header_ok(name, value)) {
		logx(LOG_ERR, "header '%s' not written: a control character or "
		    "non-ASCII byte in it", name);
		return;
	}
	if (buf_printf(head, "%s: %s\r\n", name, value) != FB_OK)
		logx(LOG_ERR, "header '%s' not written: the head is full",
		    name);
}

static void
header_ll(struct buf *head, const char *name, long long v)
{
	char	 s[24];

	snprintf(s, sizeof(s), "%lld", v);
	header(head, name, s);
}

/*
 * The rate limit as the IETF fields say it (draft-ietf-httpapi-ratelimit-
 * headers: RateLimit-Policy, the quota of the tenant's 60-second window;
 * RateLimit, what is left and the seconds until a slot frees), beside
 * the X-RateLimit-* fields kept for the clients that read them.
 */
static void
header_ratelimit(struct buf *head, const struct rate *rt)
{
	char		 v[96];
	long long	 t = rt->reset - (long long)time(NULL);

	snprintf(v, sizeof(v), "\"tenant\";q=%d;w=%d", rt->limit,
	    RATE_WINDOW_SECONDS);
	header(head, "RateLimit-Policy", v);
	snprintf(v, sizeof(v), "\"tenant\";r=%d;t=%lld", rt->remaining,
	    t > 0 ? t : 0);
	header(head, "RateLimit", v);
}

/* The content of a STDOUT record we write: 65,535 rounded down to 8. */
#define RECORD_MAX	65528
#define RECORDS_PER_WRITE 64
/* An answer this short fits libfcgi's 8 KiB output buffer with its end. */
#define SHORT_ANSWER	8000

/* writev() all of iov[0..n), again after a short write (a signal). */
static bool
writev_all(int fd, struct iovec *iov, int n)
{
	ssize_t	 w;

	while (n > 0) {
		if ((w = writev(fd, iov, n)) < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		for (; n > 0 && (size_t)w >= iov->iov_len; iov++, n--)
			w -= (ssize_t)iov->iov_len;
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return true;
}

/* One FastCGI record header (FastCGI 1.0, 3.3): no padding. */
static void
record_header(unsigned char h[8], int type, int id, size_t len)
{
	h[0] = 1;	/* FCGI_VERSION_1 */
	h[1] = (unsigned char)type;
	h[2] = (unsigned char)(id >> 8);
	h[3] = (unsigned char)id;
	h[4] = (unsigned char)(len >> 8);
	h[5] = (unsigned char)len;
	h[6] = h[7] = 0;
}

/*
 * Write the parts of a long answer (head, body) as FastCGI STDOUT records
 * of up to RECORD_MAX bytes (FastCGI 1.0, 3.3, 5.3), up to
 * RECORDS_PER_WRITE of them per writev(), onto the web server's
 * connection, and after them the end of the stream and of the request
 * (an empty STDOUT record, FCGI_END_REQUEST with FCGI_REQUEST_COMPLETE:
 * 5.3, 5.5) in the last write, which libfcgi's FCGX_Finish_r() would
 * write on their own.  libfcgi would write one record per 8 KiB of its
 * buffer: 16 writes and the end for a list of 200 leads.  Returns false
 * when the connection failed.
 */
static bool
write_records(const FCGX_Request *fr, const struct iovec *part, int nparts)
{
	unsigned char	 hdr[RECORDS_PER_WRITE][8], end[2][8], ended[8] = { 0 };
	struct iovec	 iov[RECORDS_PER_WRITE * 3 + 3];
	size_t		 off = 0, rec, n;
	int		 p = 0, k, niov, at;

	while (p < nparts) {
		for (k = 0, niov = 0; k < RECORDS_PER_WRITE &&
		    p < nparts; k++) {
			at = niov++;
			for (rec = 0; rec < RECORD_MAX &&
			    p < nparts; rec += n) {
				n = part[p].iov_len - off;
				if (n > RECORD_MAX - rec)
					n = RECORD_MAX - rec;
				iov[niov].iov_base =
				    (char *)part[p].iov_base + off;
				iov[niov++].iov_len = n;
				if ((off += n) == part[p].iov_len) {
					p++;
					off = 0;
				}
			}
			/* FCGI_STDOUT */
			record_header(hdr[k], 6, fr->requestId, rec);
			iov[at].iov_base = hdr[k];
			iov[at].iov_len = sizeof(hdr[k]);
		}
		if (p == nparts) {
			record_header(end[0], 6, fr->requestId, 0);
			/* FCGI_END_REQUEST */
			record_header(end[1], 3, fr->requestId, sizeof(ended));
			iov[niov].iov_base = end;
			iov[niov++].iov_len = sizeof(end);
			/*
			 * appStatus 0, protocolStatus FCGI_REQUEST_COMPLETE (0)
			 */
			iov[niov].iov_base = ended;
			iov[niov++].iov_len = sizeof(ended);
		}
		if (!writev_all(fr->ipcFd, iov, niov))
			return false;
	}
	return true;
}

/*
 * Write r's answer.  Returns true when it ended the request itself (a
 * long answer, written by write_records()), false when libfcgi holds it
 * for FCGX_Finish_r().
 */
static bool
respond(struct req *r, FCGX_Request *fr)
{
	static struct buf head = { NULL, 0, 0, 0 };
	struct iovec	 part[2];
	char		 st[64];
	size_t		 i, blen;

	if (head.max == 0)
		buf_init(&head, 64 * 1024);
	buf_reset(&head);
	snprintf(st, sizeof(st), "%d %s", r->status, status_text(r->status));
	header(&head, "Status", st);
	if (r->out.len > 0)
		header(&head, "Content-Type",
		    r->out_type != NULL ? r->out_type :
		    "application/json; charset=utf-8");
	header(&head, "X-Request-Id", r->request_id);
	header(&head, "Cache-Control", "no-store");
	/* every answer as its Content-Type says, never sniffed (issue 43) */
	header(&head, "X-Content-Type-Options", "nosniff");
	/* a deployment under https is only ever reached so (RFC 6797) */
	if (strncmp(r->conf->base_url, "https://", 8) == 0)
		header(&head, "Strict-Transport-Security", HSTS_VALUE);
	/*
	 * An answer is whole or nothing: a Range request gets all of it, 200
	 * (RFC 9110 14.2, a server may ignore Range; 14.3, "none").  lighttpd
	 * would otherwise cut a short answer to the range asked, 206 (httpd
	 * leaves a FastCGI answer alone).
	 */
	header(&head, "Accept-Ranges", "none");
	if (r->rate.set) {
		header_ll(&head, "X-RateLimit-Limit", r->rate.limit);
		header_ll(&head, "X-RateLimit-Remaining", r->rate.remaining);
		header_ll(&head, "X-RateLimit-Reset", r->rate.reset);
		header_ratelimit(&head, &r->rate);
		if (r->status == 429)
			header_ll(&head, "Retry-After", r->rate.retry_after);
	}
	if (r->dry_run)
		header(&head, "Formback-Dry-Run", "true");
	if (r->replayed)
		header(&head, "Idempotency-Replayed", "true");
	for (i = 0; i < r->nhdr; i++)
		header(&head, r->hdr_name[i], r->hdr_value[i]);
	if (buf_add(&head, "\r\n", 2) != FB_OK)
		logx(LOG_ERR, "the head is full");
	blen = strcmp(r->method, "HEAD") != 0 ? r->out.len : 0;
	/* a short answer fits libfcgi's buffer: one write at the end */
	if (head.len + blen < SHORT_ANSWER) {
		FCGX_PutStr(head.data, (int)head.len, fr->out);
		if (blen > 0)
			FCGX_PutStr(r->out.data, (int)blen, fr->out);
		return false;
	}
	part[0].iov_base = head.data;
	part[0].iov_len = head.len;
	part[1].iov_base = r->out.data;
	part[1].iov_len = blen;
	if (write_records(fr, part, blen > 0 ? 2 : 1))
		return true;
	logx(LOG_WARN, "the answer not written: %s", strerror(errno));
	return false;
}

/*
 * One request in hand: its FastCGI side, the request, and the collector
 * event it waits to file (NULL when it is answered).
 */
struct slot {
	FCGX_Request		 fr;
	struct req		 r;
	struct tag_pending	*tp;
	bool			 waits;	/* for its rate admission */
	bool			 read_all;	/* the input read to its end */
};

/*
 * Read the request of slot s.  A collector event is checked and kept in
 * s->tp for its batch; an API request with a cached key look-up waits
 * for its rate admission (s->waits; dispatch_begin()); anything else is
 * answered now.
 */
static void
take(struct slot *s, struct db *db, const struct conf *conf)
{
	struct req	*r = &s->r;
	const char	*uri, *q, *cl, *te;
	char		*path, bad[64];

	s->tp = NULL;
	s->waits = false;
	s->read_all = false;
	req_init(r, db, conf);
	log_set_request_id(r->request_id);
	r->method = FCGX_GetParam("REQUEST_METHOD", s->fr.envp);
	uri = FCGX_GetParam("REQUEST_URI", s->fr.envp);
	if (r->method == NULL)
		r->method = "GET";
	if (uri == NULL)
		uri = "/";
	q = strchr(uri, '?');
	path = q != NULL ? strndup(uri, (size_t)(q - uri)) : strdup(uri);
	r->path = path;
	r->authorization = FCGX_GetParam("HTTP_AUTHORIZATION", s->fr.envp);
	r->idem_key = FCGX_GetParam("HTTP_IDEMPOTENCY_KEY", s->fr.envp);
	r->if_match = FCGX_GetParam("HTTP_IF_MATCH", s->fr.envp);
	r->if_none_match = FCGX_GetParam("HTTP_IF_NONE_MATCH", s->fr.envp);
	r->content_type = FCGX_GetParam("CONTENT_TYPE", s->fr.envp);
	r->origin = FCGX_GetParam("HTTP_ORIGIN", s->fr.envp);
	r->cookie = FCGX_GetParam("HTTP_COOKIE", s->fr.envp);
	r->csrf_token = FCGX_GetParam("HTTP_X_CSRF_TOKEN", s->fr.envp);
	r->twilio_signature = FCGX_GetParam("HTTP_X_TWILIO_SIGNATURE",
	    s->fr.envp);
	r->client_addr = FCGX_GetParam("REMOTE_ADDR", s->fr.envp);
#ifdef FB_FAULT_POINTS
	r->fault = FCGX_GetParam("HTTP_X_FORMBACK_FAULT", s->fr.envp);
#endif
	if ((cl = FCGX_GetParam("CONTENT_LENGTH", s->fr.envp)) != NULL &&
	    *cl != '\0')
		r->content_length = strtol(cl, NULL, 10);
	if (path == NULL)
		(void)api_error(r, AC_INTERNAL, NULL);
	else if (req_parse_query(r, q != NULL ? q + 1 : NULL, bad,
	    sizeof(bad)) != FB_OK)
		(void)api_error(r, AC_QUERY_INVALID,
		    bad[0] != '\0' ? bad : NULL);
	else {
		s->read_all = read_body(r, s->fr.in);
		/*
		 * A chunked body handed on as it comes, with no length
		 * (mod_proxy_fcgi past its first 16 KiB): its length is
		 * where FastCGI's standard input ends (RFC 9112 6.3).
		 */
		te = FCGX_GetParam("HTTP_TRANSFER_ENCODING", s->fr.envp);
		if (r->content_length < 0 && te != NULL && *te != '\0')
			r->content_length = (long)r->body.len;
		switch (dispatch_begin(r)) {
		case DISPATCH_COLLECT:
			s->tp = tag_collect_begin(r);
			break;
		case DISPATCH_ADMIT:
			s->waits = true;
			break;
		case DISPATCH_DONE:
			break;
		}
	}
	log_set_request_id(NULL);
}

/* Answer slot s and let its connection go. */
static void
finish(struct slot *s)
{
	struct req	*r = &s->r;
	bool		 ended;

	log_set_request_id(r->request_id);
	ended = respond(r, &s->fr);
	logx(LOG_DEBUG, "%s %s -> %d", r->method,
	    r->path != NULL ? r->path : "-", r->status);
	/*
	 * The request was read to its end: close at once.  libfcgi's
	 * default close shuts the socket down and waits (up to 2 s) for
	 * the web server to close its end, so that unread input cannot
	 * reset the connection under the answer; with nothing unread that
	 * wait only keeps the worker from its next request (issue 13).
	 */
	if (s->read_all)
		(void)FCGX_Detach(&s->fr);
	req_release(r);
	log_set_request_id(NULL);
	/*
	 * A long answer ended the request with its last write: nothing is
	 * left for libfcgi to write, only its request to free and the
	 * connection to close (kept when the web server asked, and all its
	 * input read).
	 */
	if (ended)
		FCGX_Free(&s->fr, !s->fr.keepConnection || !s->read_all);
	else
		FCGX_Finish_r(&s->fr);
}

/*
 * Answer the n requests in hand.  The API requests that wait for their
 * rate admission are admitted together (one statement per tenant), then
 * each is answered; the collector events are filed with one INSERT (one
 * commit for all: on this kind of machine a commit costs as much as the
 * rest of an event), then answered.  Returns whether an event was filed.
 */
static bool
answer_batch(struct slot *slots, size_t n, struct db *db,
    const struct conf *conf)
{
	struct tag_pending		*tps[BATCH_MAX];
	struct req			*waiting[BATCH_MAX];
	size_t				 i, nev = 0, nw = 0;
	enum fb_err			 e = FB_OK;

	for (i = 0; i < n; i++)
		if (slots[i].waits)
			waiting[nw++] = &slots[i].r;
	if (nw > 0)
		auth_admit(waiting, nw);
	for (i = 0; i < n; i++)
		if (slots[i].waits) {
			dispatch_end(&slots[i].r);
			finish(&slots[i]);
		} else
			tps[nev++] = slots[i].tp;
	if (nev == 0)
		return false;
	e = tag_collect_file(db, conf, tps, nev);
	for (i = 0; i < n; i++)
		if (slots[i].tp != NULL) {
			log_set_request_id(slots[i].r.request_id);
			tag_collect_end(&slots[i].r, slots[i].tp, e);
			slots[i].tp = NULL;
			finish(&slots[i]);
		}
	return e == FB_OK;
}

/* Warn about durability settings the design asks for (design 6). */
static void
check_server(struct db *db)
{
	struct dbrows	 res;
	const struct durability_row *d;

	if (db_durability(db, &res) != FB_OK)
		return;
	d = res.row;
	if (d->flush_log_at_trx_commit != 1)
		logx(LOG_WARN, "innodb_flush_log_at_trx_commit is %lld; "
		    "1 is needed for durable "
		    "writes", d->flush_log_at_trx_commit);
	if (d->log_bin && d->sync_binlog != 1)
		logx(LOG_WARN, "sync_binlog is %lld with the binary log "
		    "on; 1 is needed for durable writes", d->sync_binlog);
	dbrows_free(&res);
}

static volatile sig_atomic_t	 stopping;

/*
 * SIGTERM (the web server stopping its workers) and SIGUSR1 (libfcgi's
 * graceful stop): finish the request in hand, then exit.  libfcgi's own
 * handler only takes effect inside FCGX_Accept_r(); a worker waiting in
 * poll() or applying the queue must see the request too.
 */
static void
on_stop(int sig)
{
	(void)sig;
	stopping = 1;
	FCGX_ShutdownPending();
}

/*
 * Is a request waiting for this worker (a new connection on the listening
 * socket, or the next request on a kept connection)?  Waits up to
 * timeout_ms; an error counts as yes, so the worker goes to accept,
 * unless it was a stop signal.
 */
static bool
request_waiting(const FCGX_Request *fr, int timeout_ms)
{
	struct pollfd	 p[2];
	nfds_t		 n = 0;

	p[n].fd = fr->listen_sock;
	p[n++].events = POLLIN;
	if (fr->ipcFd >= 0) {
		p[n].fd = fr->ipcFd;
		p[n++].events = POLLIN;
	}
	return poll(p, n, timeout_ms) != 0 && !stopping;
}

/*
 * Apply a few queued tag events (design 3): few enough that a request
 * arriving meanwhile waits one short transaction at most.  Returns
 * whether more may be queued.
 */
static bool
apply_some(struct db *db, const struct conf *conf)
{
	int	 n;

	if (db_ensure(db) != FB_OK ||
	    tag_apply(db, conf, IDLE_APPLY, false, &n) != FB_OK)
		return false;
	return n == IDLE_APPLY;
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: formback.fcgi [-c file] [-s socket [-n workers]]\n");
	exit(2);
}

/*
 * The accept loop: between requests a turn at the intake queue, and the
 * requests that wait together taken as one batch.
 */
static void
serve(struct slot *slots, struct db *db, const struct conf *conf)
{
	size_t		 n, taken;
	bool		 queued = true;	/* look at the intake queue at start */
	bool		 idle = false;	/* no request since the last turn */

	while (!stopping) {
		if (queued) {
			/* between requests, a turn at the intake queue */
			if (!request_waiting(&slots[0].fr, idle ? 0 :
			    IDLE_AFTER_MS)) {
				/*
				 * idle: turn after turn until a request comes
				 */
				queued = apply_some(db, conf);
				idle = true;
				continue;
			}
		} else if (!request_waiting(&slots[0].fr, IDLE_CHECK_MS)) {
			/* idle: anything queued that nobody is applying? */
			if (db_ensure(db) == FB_OK &&
			    db_ingest_pending(db, &queued) != FB_OK)
				queued = false;
			continue;
		}
		if (stopping || FCGX_Accept_r(&slots[0].fr) < 0)
			break;
		/*
		 * While more requests are already waiting they are taken
		 * too: the collector events that arrived together are filed
		 * with one INSERT, the API requests admitted with one
		 * statement per tenant.  A request that needs neither (an
		 * error, a key read from the database, a public route) is
		 * answered at once.
		 */
		idle = false;
		for (n = 0, taken = 1;; taken++) {
			take(&slots[n], db, conf);
			if (slots[n].tp != NULL || slots[n].waits)
				n++;
			else
				finish(&slots[n]);
			if (n == BATCH_MAX || taken == 2 * BATCH_MAX ||
			    stopping || !request_waiting(&slots[n].fr, 0))
				break;
			if (FCGX_Accept_r(&slots[n].fr) < 0) {
				stopping = 1;
				break;
			}
		}
		if (answer_batch(slots, n, db, conf))
			queued = true;
	}
}

/*
 * A worker's process settings: no SIGPIPE, a bounded resolver, malloc's
 * memory kept between requests, SIGTERM and SIGUSR1 to stop.
 */
static void
settle(void)
{
	struct sigaction sa;

	signal(SIGPIPE, SIG_IGN);
	/*
	 * Registering a webhook resolves its host (netguard.c): bound the
	 * resolver's wait to 2 s and 2 tries unless the operator set it.
	 */
	setenv("RES_OPTIONS", "timeout:2 attempts:2", 0);
	/*
	 * A request allocates and frees its whole working set; keep up to
	 * 2 MiB of freed memory for the next one rather than handing it back
	 * and asking again (glibc trims at 128 KiB by default).
	 */
	mallopt(M_TRIM_THRESHOLD, 2 << 20);
	mallopt(M_TOP_PAD, 1 << 20);
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: poll() returns at once */
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
}

int
main(int argc, char *argv[])
{
	struct conf	 conf;
	struct db	 db;
	static struct slot slots[BATCH_MAX];
	char		 err[512];
	size_t		 i;
	const char	*cpath = NULL, *sock = NULL;
	int		 ch, rc, workers = 0;
	bool		 worker;

	while ((ch = getopt(argc, argv, "c:hn:s:")) != -1)
		switch (ch) {
		case 'c':
			cpath = optarg;
			break;
		case 'n':
			if ((workers = prefork_workers(optarg)) == 0) {
				fprintf(stderr,
				    "formback.fcgi: -n: expected 1 to "
				    "%d\n", PREFORK_MAX);
				return 2;
			}
			break;
		case 's':
			sock = optarg;
			break;
		default:
			usage();
		}
	if (workers != 0 && sock == NULL)
		usage();
	log_init("formback.fcgi", LOG_INFO);
	/* its own socket: this process supervises, its workers go on */
	if (sock != NULL) {
		rc = prefork(sock, workers != 0 ? workers : PREFORK_DEFAULT,
		    &worker);
		if (!worker)
			return rc;
	}
	settle();
	if (conf_load(&conf, cpath, err, sizeof(err)) != FB_OK) {
		fprintf(stderr, "formback.fcgi: %s\n", err);
		return 2;
	}
	log_set_level((enum log_level)conf.log_level);
	if (db_open(&db, &conf) == FB_OK)
		check_server(&db);
	else {
		/* answer 503 until the database is back (db_ensure) */
		db.conf = &conf;
		db.broken = true;
	}
	if (FCGX_Init() != 0) {
		fprintf(stderr, "formback.fcgi: cannot initialise libfcgi\n");
		return 1;
	}
	for (i = 0; i < BATCH_MAX; i++)
		FCGX_InitRequest(&slots[i].fr, 0, 0);
	serve(slots, &db, &conf);
	db_close(&db);
	conf_free(&conf);
	return 0;
}
