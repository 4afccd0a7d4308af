/*
 * formback.fcgi on its own socket with its own workers (-s, -n;
 * src/prefork.c), as Apache's mod_proxy_fcgi reaches it: what the
 * supervisor does with its socket and its workers, spoken to as a web
 * server would (FastCGI 1.0).  That the workers serve the whole API
 * through it, tests/integ/apache-proxy.sh shows.
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"
#include "../../src/prefork.h"

/* The pids of supervisor's workers (at most 16), their count. */
static int
workers_of(pid_t supervisor, pid_t w[16])
{
	char	 path[64];
	FILE	*f;
	long	 p;
	int	 n = 0;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children",
	    (long)supervisor, (long)supervisor);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (n < 16 && fscanf(f, "%ld", &p) == 1)
		w[n++] = (pid_t)p;
	fclose(f);
	return n;
}

/* Whether p is one of old[0..nold). */
static bool
among(pid_t p, const pid_t *old, int nold)
{
	int	 k;

	for (k = 0; k < nold; k++)
		if (old[k] == p)
			return true;
	return false;
}

/*
 * What the kernel says of processes p[0..n) (state, signals, where each
 * waits), for a failure's message.
 */
static const char *
procs_status(const pid_t *p, int n)
{
	static char	 out[4096];
	char		 path[64], line[256];
	FILE		*f;
	size_t		 o = 0;
	int		 i;

	out[0] = '\0';
	for (i = 0; i < n && o < sizeof(out) - 1; i++) {
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%ld:",
		    (long)p[i]);
		snprintf(path, sizeof(path), "/proc/%ld/status", (long)p[i]);
		if ((f = fopen(path, "r")) != NULL) {
			while (o < sizeof(out) - 1 &&
			    fgets(line, sizeof(line), f) != NULL)
				if (strncmp(line, "State:", 6) == 0 ||
				    strncmp(line, "Sig", 3) == 0 ||
				    strncmp(line, "ShdPnd:", 7) == 0) {
					line[strcspn(line, "\n")] = '\0';
					o += (size_t)snprintf(out + o,
					    sizeof(out) - o,
					    " %s", line);
				}
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/%ld/wchan", (long)p[i]);
		if (o < sizeof(out) - 1 && (f = fopen(path, "r")) != NULL) {
			if (fgets(line, sizeof(line), f) != NULL)
				o += (size_t)snprintf(out + o, sizeof(out) - o,
				    " wchan %s", line);
			fclose(f);
		}
		if (o < sizeof(out) - 1)
			o += (size_t)snprintf(out + o, sizeof(out) - o, "\n");
	}
	return out;
}

/*
 * Wait up to secs seconds for supervisor to have n workers, none of
 * old[0..nold); w[] holds the last seen.
 */
static bool
workers_become(pid_t supervisor, int n, const pid_t *old, int nold, pid_t w[16],
    int secs)
{
	int	 i, j, have;

	for (i = 0; i < secs * 20; i++) {
		have = workers_of(supervisor, w);
		for (j = 0; j < have && !among(w[j], old, nold); j++)
			continue;
		if (have == n && j == have)
			return true;
		usleep(50 * 1000);
	}
	return false;
}

/* Whether a process listens on the socket at path. */
static bool
listening(const char *path)
{
	struct sockaddr_un	 sun;
	int			 fd;
	bool			 ok;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	cr_assert_neq(fd = socket(AF_UNIX, SOCK_STREAM, 0), -1);
	ok = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0;
	close(fd);
	return ok;
}

/* Append one FastCGI record (FastCGI 1.0, 3.3) of request 1 to b at *n. */
static void
record(unsigned char *b, size_t *n, int type, const void *p, size_t len)
{
	unsigned char	 h[8] = { 1, (unsigned char)type, 0, 1,
			    (unsigned char)(len >> 8), (unsigned char)len,
			    0, 0 };

	memcpy(b + *n, h, sizeof(h));
	if (len > 0)
		memcpy(b + *n + sizeof(h), p, len);
	*n += sizeof(h) + len;
}

/*
 * GET path through the FastCGI socket at sock, as a web server would
 * send it: the start of the responder's output (static storage), or ""
 * when none came within 10 seconds.
 */
static const char *
fcgi_get(const char *sock, const char *path)
{
	static char		 out[4096];
	static const unsigned char begin[8] = { 0, 1 };	/* responder, close */
	const char		*kv[] = { "REQUEST_METHOD", "GET",
	    "REQUEST_URI",
				    path, "SERVER_PROTOCOL", "HTTP/1.1",
				    "REMOTE_ADDR", "127.0.0.1" };
	struct sockaddr_un	 sun;
	struct timeval		 tv = { 10, 0 };
	unsigned char		 b[2048], pv[1024], h[8];
	size_t			 n = 0, k = 0, o = 0, i, len;
	int			 fd;

	for (i = 0; i < sizeof(kv) / sizeof(kv[0]); i += 2) {
		pv[k++] = (unsigned char)strlen(kv[i]);
		pv[k++] = (unsigned char)strlen(kv[i + 1]);
		memcpy(pv + k, kv[i], strlen(kv[i]));
		k += strlen(kv[i]);
		memcpy(pv + k, kv[i + 1], strlen(kv[i + 1]));
		k += strlen(kv[i + 1]);
	}
	record(b, &n, 1, begin, sizeof(begin));	/* FCGI_BEGIN_REQUEST */
	record(b, &n, 4, pv, k);		/* FCGI_PARAMS */
	record(b, &n, 4, NULL, 0);
	record(b, &n, 5, NULL, 0);		/* FCGI_STDIN, empty */
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sock);
	out[0] = '\0';
	cr_assert_neq(fd = socket(AF_UNIX, SOCK_STREAM, 0), -1);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
	    write(fd, b, n) != (ssize_t)n) {
		close(fd);
		return out;
	}
	/* FCGI_STDOUT records until FCGI_END_REQUEST */
	while (recv(fd, h, sizeof(h), MSG_WAITALL) == (ssize_t)sizeof(h) &&
	    h[1] != 3) {
		len = (size_t)h[4] << 8 | h[5];
		len += h[6];	/* padding */
		while (len > 0) {
			k = len < sizeof(b) ? len : sizeof(b);
			if (recv(fd, b, k, MSG_WAITALL) != (ssize_t)k)
				break;
			if (h[1] == 6 && o + k < sizeof(out)) {
				memcpy(out + o, b, k);
				o += k;
			}
			len -= k;
		}
	}
	out[o] = '\0';
	close(fd);
	return out;
}

/* the supervisors of this test, for stop_all() */
static pid_t	 started[4];
static size_t	 nstarted;

/* The log of the supervisor started on sock: sock.log (static storage). */
static const char *
log_of(const char *sock)
{
	static char	 path[160];

	snprintf(path, sizeof(path), "%s.log", sock);
	return path;
}

/*
 * formback.fcgi -s dir/sock -n n in the background, the harness's
 * configuration; its log (and its workers') appended to log_of(sock).
 */
static pid_t
start(const char *sock, int n, const char *conf)
{
	pid_t	 p = spawn("FORMBACK_CONF='%s' exec '%s/formback.fcgi' -s '%s' "
		    "-n %d 2>>'%s'",
		    conf != NULL ? conf : getenv("FORMBACK_CONF"),
		    getenv("FB_CTL_DIR"), sock, n, log_of(sock));

	if (nstarted < sizeof(started) / sizeof(started[0]))
		started[nstarted++] = p;
	return p;
}

/*
 * A failed test leaves no supervisor behind (its workers end with it):
 * those not reaped yet, still this process's children, are killed.
 */
static void
stop_all(void)
{
	pid_t	 p;

	while (nstarted > 0) {
		p = started[--nstarted];
		if (waitpid(p, NULL, WNOHANG) == 0) {
			(void)kill(p, SIGKILL);
			(void)waitpid(p, NULL, 0);
		}
	}
}

static void
tmpdir(char dir[64])
{
	snprintf(dir, 64, "/tmp/fbprefork.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

/*
 * Workers that die are started again, SIGHUP replaces them all, a second
 * instance on the same socket is refused, and SIGTERM stops everything
 * and removes the socket.
 */
Test(prefork, respawns_replaces_refuses_a_second_and_stops, .fini = stop_all,
    .timeout = 90)
{
	char		 dir[64], sock[96];
	struct stat	 st;
	pid_t		 sup, w[16], v[16], who[4], other;
	char		 line[128];
	int		 i, s;
	bool		 ok;

	tmpdir(dir);
	snprintf(sock, sizeof(sock), "%s/fcgi.sock", dir);
	sup = start(sock, 3, NULL);
	cr_assert(workers_become(sup, 3, NULL, 0, w, 10),
	    "3 workers never started");
	cr_assert(listening(sock));
	cr_assert_eq(strncmp(fcgi_get(sock, "/api/v1/openapi.json"),
	    "Status: 200", 11),
	    0, "%s", fcgi_get(sock, "/api/v1/openapi.json"));
	cr_assert_eq(stat(sock, &st), 0);
	cr_assert(S_ISSOCK(st.st_mode));
	cr_assert_eq(st.st_mode & 07777, 0660, "mode %o", st.st_mode & 07777);
	/* one killed: another in its place */
	cr_assert_eq(kill(w[1], SIGKILL), 0);
	cr_assert(workers_become(sup, 3, &w[1], 1, v, 10),
	    "the killed worker not replaced");
	/*
	 * SIGHUP: every one replaced, each after the request in hand (none
	 * here); one that does not end (stopped here, deaf to SIGTERM) is
	 * killed after PREFORK_STOP_SECONDS, as when stopping
	 */
	cr_assert_eq(kill(v[0], SIGSTOP), 0);
	cr_assert_eq(kill(sup, SIGHUP), 0);
	ok = workers_become(sup, 3, v, 3, w, PREFORK_STOP_SECONDS + 10);
	memcpy(who, w, sizeof(who) - sizeof(who[0]));
	who[3] = sup;
	cr_assert(ok, "SIGHUP did not replace the workers %ld %ld %ld: now "
	    "%ld %ld %ld;\n%sthe supervisor's log:\n%s", (long)v[0], (long)v[1],
	    (long)v[2], (long)w[0], (long)w[1], (long)w[2], procs_status(who,
	    4),
	    file_tail(log_of(sock)));
	snprintf(line, sizeof(line),
	    "worker %ld still busy %d s after SIGHUP: killed",
	    (long)v[0], PREFORK_STOP_SECONDS);
	cr_assert_not_null(strstr(file_tail(log_of(sock)), line), "%s",
	    file_tail(log_of(sock)));
	snprintf(line, sizeof(line), "worker %ld exited 0", (long)v[1]);
	cr_assert_not_null(strstr(file_tail(log_of(sock)), line), "%s",
	    file_tail(log_of(sock)));
	cr_assert_eq(strncmp(fcgi_get(sock, "/api/v1/openapi.json"),
	    "Status: 200", 11), 0);
	/* a second instance on the same socket */
	other = start(sock, 1, NULL);
	s = reap(other, 10);
	cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 1, "second instance: %d",
	    s);
	cr_assert(listening(sock), "the second instance took the socket away");
	/* SIGTERM: the workers and the socket gone, exit 0 */
	cr_assert_eq(kill(sup, SIGTERM), 0);
	s = reap(sup, 40);
	cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 0, "stopped: %d", s);
	cr_assert_neq(access(sock, F_OK), 0, "socket left behind");
	for (i = 0; i < 3; i++)
		cr_assert(kill(w[i], 0) == -1 && errno == ESRCH,
		    "worker %ld left",
		    (long)w[i]);
	unlink(log_of(sock));
	rmdir(dir);
}

/*
 * A socket left by a process gone is replaced; a file that is not a
 * socket is refused and kept; a supervisor started without standard
 * input serves on; a configuration the workers cannot read
 * ends the supervisor with 2 at once, not in a respawning loop.
 */
Test(prefork, stale_socket_other_file_and_bad_configuration, .fini = stop_all,
    .timeout = 60)
{
	struct sockaddr_un	 sun;
	char			 dir[64], sock[96], file[96];
	pid_t			 sup, w[16], v[16];
	FILE			*f;
	int			 fd, s;

	tmpdir(dir);
	snprintf(sock, sizeof(sock), "%s/fcgi.sock", dir);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sock);
	cr_assert_neq(fd = socket(AF_UNIX, SOCK_STREAM, 0), -1);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(fd);	/* its file stays, nobody behind it */
	sup = start(sock, 1, NULL);
	cr_assert(workers_become(sup, 1, NULL, 0, w, 10),
	    "no worker on a stale socket");
	cr_assert(listening(sock));
	cr_assert_eq(kill(sup, SIGTERM), 0);
	s = reap(sup, 40);
	cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 0, "%d", s);

	snprintf(file, sizeof(file), "%s/plain", dir);
	cr_assert_not_null(f = fopen(file, "w"));
	fputs("kept\n", f);
	fclose(f);
	s = reap(start(file, 1, NULL), 10);
	cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 1, "%d", s);
	cr_assert_not_null(f = fopen(file, "r"));
	cr_assert_eq(fgetc(f), 'k');
	fclose(f);
	unlink(file);
	unlink(log_of(file));

	/* started without standard input, the socket is made as fd 0: kept */
	sup = started[nstarted++] = spawn("exec 0<&-; FORMBACK_CONF='%s' exec "
	    "'%s/formback.fcgi' -s '%s' -n 1", getenv("FORMBACK_CONF"),
	    getenv("FB_CTL_DIR"), sock);
	cr_assert(workers_become(sup, 1, NULL, 0, w, 10),
	    "no worker without stdin");
	sleep(2);
	cr_assert(workers_become(sup, 1, NULL, 0, v, 10) && v[0] == w[0],
	    "the worker without stdin did not stay");
	cr_assert_eq(strncmp(fcgi_get(sock, "/api/v1/openapi.json"),
	    "Status: 200", 11),
	    0, "the worker without stdin does not serve");
	cr_assert_eq(kill(sup, SIGTERM), 0);
	s = reap(sup, 40);
	cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 0, "%d", s);

	s = reap(start(sock, 4, "/nonexistent/formback.conf"), 10);
	cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 2, "%d", s);
	cr_assert_neq(access(sock, F_OK), 0, "socket left behind");
	unlink(log_of(sock));
	rmdir(dir);
}
