/*
 * What every cron pass shares (pass.h; design 1; issue 40): its command
 * line, its bounds (a time budget, an optional cap), its turns over
 * tenants (struct ring) and the record of the pass.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pass.h"
#include "db/store.h"

/* A bounded number option: false after saying why on standard error. */
static bool
number(const struct pass *p, const char *opt, const char *arg, long max,
    long *out)
{
	char	*end;
	long	 v;

	v = strtol(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || v < 1 || v > max) {
		fprintf(stderr, "%s: --%s: expected 1 to %ld\n", p->prog, opt,
		    max);
		return false;
	}
	*out = v;
	return true;
}

static int
usage(const struct pass *p, bool help)
{
	fprintf(help ? stdout : stderr, "usage: %s [--now <ISO 8601 Z>] "
	    "[--budget seconds] [--limit N]%s%s [-v] [--help]\n", p->prog,
	    p->jobs != 0 ? " [--jobs N]" : "",
	    p->tenant_opt ? " [--tenant id]" : "");
	return help ? 0 : 2;
}

int
pass_opts(struct pass *p, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "now", required_argument, NULL, 'n' },
		{ "limit", required_argument, NULL, 'l' },
		{ "budget", required_argument, NULL, 'b' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "tenant", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int64_t		 t;
	int		 ch;

	p->now = (long long)time(NULL);
	p->began = time_mono();
	p->limit = p->done = p->left = 0;
	p->verbose = 0;
	p->failed = false;
	p->tenant = NULL;
	while ((ch = getopt_long(argc, argv, "vh", opts, NULL)) != -1)
		switch (ch) {
		case 'n':
			if (!time_parse_iso8601(optarg, &t)) {
				fprintf(stderr, "%s: --now: '%s' is not an ISO "
				    "8601 date-time\n", p->prog, optarg);
				return 2;
			}
			p->now = t;
			break;
		case 'l':
			if (!number(p, "limit", optarg, PASS_LIMIT_MAX,
			    &p->limit))
				return 2;
			break;
		case 'b':
			if (!number(p, "budget", optarg, PASS_BUDGET_MAX,
			    &p->budget))
				return 2;
			break;
		case 'j':
			if (p->jobs == 0) {
				fprintf(stderr, "%s: --jobs: not an option of "
				    "this job\n", p->prog);
				return 2;
			}
			if (!number(p, "jobs", optarg, PASS_JOBS_MAX, &p->jobs))
				return 2;
			break;
		case 't':
			if (!p->tenant_opt || !uuid_valid(optarg)) {
				fprintf(stderr, "%s: --tenant: %s\n", p->prog,
				    p->tenant_opt ? "expected a tenant id" :
				    "not an option of this job");
				return 2;
			}
			p->tenant = optarg;
			break;
		case 'v':
			p->verbose++;
			break;
		case 'h':
			return usage(p, true);
		default:
			return usage(p, false);
		}
	return optind == argc ? -1 : usage(p, false);
}

int
pass_start(struct pass *p, int argc, char *argv[], enum log_level loud,
    struct conf *c)
{
	char	 err[512];
	int	 ch;

	if ((ch = pass_opts(p, argc, argv)) >= 0)
		return ch;
	log_init(p->prog, p->verbose ? loud : LOG_WARN);
	if (conf_load(c, NULL, err, sizeof(err)) != FB_OK) {
		fprintf(stderr, "%s: %s\n", p->prog, err);
		return 2;
	}
	return -1;
}

bool
pass_db_open(const struct pass *p, struct db *db, const struct conf *c)
{
	if (db_open(db, c) == FB_OK)
		return true;
	fprintf(stderr, "%s: cannot connect to the database\n", p->prog);
	return false;
}

int64_t
pass_elapsed(const struct pass *p)
{
	return time_mono() - p->began;
}

long long
pass_clock(const struct pass *p)
{
	return p->now + (long long)pass_elapsed(p);
}

bool
pass_over(const struct pass *p)
{
	return pass_elapsed(p) >= p->budget ||
	    (p->limit > 0 && p->done >= p->limit);
}

long
pass_room(const struct pass *p, long want)
{
	if (pass_over(p))
		return 0;
	if (p->limit > 0 && p->limit - p->done < want)
		return p->limit - p->done;
	return want;
}

void
pass_took(struct pass *p, long n)
{
	p->done += n;
}

void
pass_leave(struct pass *p, const char *what, long n)
{
	if (n <= 0)
		return;
	p->left += n;
	if (p->verbose)
		fprintf(stderr, "%s: left %ld %s for the next pass (%s)\n",
		    p->prog, n, what, p->limit > 0 && p->done >= p->limit ?
		    "--limit reached" : "budget spent");
}

int
pass_end(struct pass *p, const struct conf *c)
{
	struct db	 db;
	char		 host[256];
	/* the wall clock of the start, whatever --now says */
	long long	 started = (long long)time(NULL) - pass_elapsed(p);

	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	if (db_open(&db, c) == FB_OK) {
		if (db_cron_pass(&db, p->job, host, started, !p->failed,
		    p->done, p->left) != FB_OK)
			logx(LOG_WARN, "%s: cannot record the pass", p->job);
		db_close(&db);
	}
	return p->failed ? 1 : 0;
}

void
ring_init(struct ring *r)
{
	memset(r, 0, sizeof(*r));
}

void
ring_release(struct ring *r)
{
	free(r->key);
	ring_init(r);
}

enum fb_err
ring_add(struct ring *r, const char *key)
{
	void	*k;

	if (r->n == r->cap) {
		if ((k = reallocarray(r->key, r->cap ? r->cap * 2 : 64,
		    sizeof(*r->key))) == NULL)
			return FB_ENOMEM;
		r->key = k;
		r->cap = r->cap ? r->cap * 2 : 64;
	}
	snprintf(r->key[r->n++], sizeof(*r->key), "%s", key);
	return FB_OK;
}

enum fb_err
ring_fill(struct ring *r, const struct dbrows *rows)
{
	const struct key_row *k = rows->row;
	size_t		 i;
	enum fb_err	 e = FB_OK;

	for (i = 0; i < rows->n && e == FB_OK; i++)
		e = ring_add(r, k[i].id);
	return e;
}

size_t
ring_next(struct ring *r, char out[][UUID_STRLEN + 1], size_t max)
{
	size_t	 k;

	for (k = 0; k < max && k < r->n; k++) {
		if (r->at >= r->n)
			r->at = 0;
		if (r->at == 0)
			r->rounds++;
		memcpy(out[k], r->key[r->at++], sizeof(*r->key));
	}
	return k;
}

void
ring_drop(struct ring *r, const char *key)
{
	size_t	 i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->key[i], key) == 0)
			break;
	if (i == r->n)
		return;
	memmove(&r->key[i], &r->key[i + 1], (r->n - i - 1) * sizeof(*r->key));
	r->n--;
	if (r->at > i)
		r->at--;
}
