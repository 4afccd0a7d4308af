/*
 * What every cron pass shares: the command line, and work shared out to
 * child processes (formback-abandon(8), formback-deliver(8)).
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formback.h"

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

int
cron_fork(long limit, long jobs, int (*job)(long share, int counts[]),
    int counts[], int ncounts)
{
	int		 fd[2], st, rc = 0, got[CRON_COUNTS_MAX], i;
	long		 k, share;
	pid_t		 pid;
	ssize_t		 n;

	if (ncounts < 1 || ncounts > CRON_COUNTS_MAX)
		return 1;
	if (pipe(fd) == -1) {
		perror("pipe");
		return 1;
	}
	fflush(NULL);
	for (k = 0; k < jobs; k++) {
		share = limit / jobs + (k < limit % jobs ? 1 : 0);
		if (share == 0)
			break;
		if ((pid = fork()) == -1) {
			perror("fork");
			rc = 1;
			break;
		}
		if (pid == 0) {
			close(fd[0]);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1)
				_exit(1);
			memset(got, 0, sizeof(got));
			st = job(share, got);
			if (write(fd[1], got, sizeof(got)) != sizeof(got))
				st = 1;
			fflush(NULL);
			_exit(st);
		}
	}
	close(fd[1]);
	while ((n = read(fd[0], got, sizeof(got))) == sizeof(got))
		for (i = 0; i < ncounts; i++)
			counts[i] += got[i];
	close(fd[0]);
	while ((pid = wait(&st)) != -1 || errno == EINTR)
		if (pid != -1 && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
			rc = 1;
	return rc;
}
