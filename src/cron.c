/*
 * What every cron pass shares: its command line (formback-abandon(8),
 * formback-deliver(8), ...) and the record of its pass (cron_pass()).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "formback.h"
#include "db/store.h"

int
cron_opts(int argc, char *argv[], const char *prog, struct cron_opts *o)
{
	static const struct option opts[] = {
		{ "now", required_argument, NULL, 'n' },
		{ "limit", required_argument, NULL, 'l' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char		*end;
	int64_t		 t;
	int		 ch;

	o->now = (long long)time(NULL);
	o->verbose = 0;
	while ((ch = getopt_long(argc, argv, "vh", opts, NULL)) != -1)
		switch (ch) {
		case 'n':
			if (!time_parse_iso8601(optarg, &t)) {
				fprintf(stderr, "%s: --now: '%s' is not an ISO "
				    "8601 date-time\n", prog, optarg);
				return 2;
			}
			o->now = t;
			break;
		case 'l':
			o->limit = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || o->limit < 1 ||
			    o->limit > 100000) {
				fprintf(stderr, "%s: --limit: expected 1 to "
				    "100000\n", prog);
				return 2;
			}
			break;
		case 'j':
			o->jobs = o->jobs == 0 ? -1 : strtol(optarg, &end, 10);
			if (o->jobs == -1) {
				fprintf(stderr, "%s: --jobs: not an option of this "
				    "job\n", prog);
				return 2;
			}
			if (*optarg == '\0' || *end != '\0' || o->jobs < 1 ||
			    o->jobs > CRON_JOBS_MAX) {
				fprintf(stderr, "%s: --jobs: expected 1 to %d\n",
				    prog, CRON_JOBS_MAX);
				return 2;
			}
			break;
		case 'v':
			o->verbose++;
			break;
		default:	/* --help, or an unknown option */
			goto usage;
		}
	if (optind == argc)
		return -1;
usage:
	fprintf(ch == 'h' ? stdout : stderr, "usage: %s [--now <ISO 8601 Z>] "
	    "[--limit N]%s [-v] [--help]\n", prog, o->jobs != 0 ?
	    " [--jobs N]" : "");
	return ch == 'h' ? 0 : 2;
}

void
cron_pass(const struct conf *c, const char *job, long long started, bool ok,
    long long items)
{
	struct db	 db;
	char		 host[256];

	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	if (db_open(&db, c) != FB_OK)
		return;
	if (db_cron_pass(&db, job, host, started, ok, items) != FB_OK)
		logx(LOG_WARN, "%s: cannot record the pass", job);
	db_close(&db);
}
