/*
 * formback.fcgi's own listening socket and workers (-s, -n; prefork.c),
 * for a web server that connects to a FastCGI socket instead of starting
 * the responder itself: Apache httpd's mod_proxy_fcgi.
 */
#ifndef FORMBACK_PREFORK_H
#define FORMBACK_PREFORK_H

#include <stdbool.h>

#define PREFORK_DEFAULT		4	/* workers unless told (-n) */
#define PREFORK_MAX		256	/* workers at most (-n) */
/* a stopping worker's request, then SIGKILL */
#define PREFORK_STOP_SECONDS	30

/*
 * Bind the AF_UNIX stream socket `path` (mode 0660: the web server's
 * user must own it or be in its group; a stale socket nobody listens on
 * is replaced; one that answers, or another kind of file, is refused),
 * then supervise `workers` (1..PREFORK_MAX) forked copies of the caller,
 * each with the listening socket as its standard input, where a web
 * server that starts FastCGI programs puts it (FastCGI 1.0, 2.2).
 *
 * In a worker it returns with *worker set, the caller's signals as they
 * were, and the worker ending with its supervisor (SIGTERM: it finishes
 * the request in hand).  In the supervisor it returns only when it is
 * done, with the exit status: 0 after SIGTERM or SIGINT (the socket
 * removed at once, so the web server's next connection fails fast; the
 * workers sent SIGTERM, and SIGKILL after PREFORK_STOP_SECONDS); 2 when
 * a worker exited 2 (a configuration it cannot read: nothing to gain by
 * starting it again); 1 when the socket cannot be made.  Meanwhile a
 * worker that ends is started again, a second later when it lived less
 * than a second; SIGHUP replaces every worker, each after its request in
 * hand (SIGTERM, and SIGKILL after PREFORK_STOP_SECONDS), and the new
 * ones read the configuration again.  Every start,
 * stop and death is logged to stderr (log.c).
 */
int	prefork(const char *path, int workers, bool *worker);
/* The workers -n `arg` asks for (decimal, 1..PREFORK_MAX), or 0 when bad. */
int	prefork_workers(const char *arg);

#endif
