/*
 * The bench's responders behind mod_proxy_fcgi (FB_HTTPD=apache
 * FB_APACHE_FCGI=proxy): "-s socket [-n workers]" as formback.fcgi takes
 * them (src/prefork.h), so that their requests take the same path as
 * its.  Returns -1 in a worker (or without -s: the web server started
 * this process), else the supervisor's exit status.
 */
#ifndef BENCH_LISTEN_H
#define BENCH_LISTEN_H

#include <stdbool.h>
#include <unistd.h>

#include "../../src/formback.h"
#include "../../src/prefork.h"

static inline int
bench_listen(int argc, char *argv[])
{
	const char	*sock = NULL;
	int		 ch, n = PREFORK_DEFAULT, rc;
	bool		 worker;

	while ((ch = getopt(argc, argv, "n:s:")) != -1)
		switch (ch) {
		case 'n':
			if ((n = prefork_workers(optarg)) == 0)
				return 2;
			break;
		case 's':
			sock = optarg;
			break;
		default:
			return 2;
		}
	if (sock == NULL)
		return -1;
	log_init(argv[0], LOG_INFO);
	rc = prefork(sock, n, &worker);
	return worker ? -1 : rc;
}

#endif
