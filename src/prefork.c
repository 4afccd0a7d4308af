/*
 * formback.fcgi's own listening socket and the workers it serves with
 * (prefork.h): what lighttpd and mod_fcgid do for it, for web servers
 * that only connect (Apache httpd's mod_proxy_fcgi).
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formback.h"
#include "prefork.h"

/* connections waiting for a worker, as lighttpd's */
#define LISTEN_BACKLOG	1024
#define RESPAWN_SECONDS	1	/* a worker that lived less waits this long */

struct worker {
	pid_t	 pid;		/* 0: none running */
	int64_t	 born;		/* time_mono() */
	int64_t	 due;		/* time_mono() from which to start it again */
	bool	 replaced;	/* sent SIGTERM by SIGHUP */
};

/* SIGCHLD only has to stay pending for sigtimedwait(). */
static void
on_child(int sig)
{
	(void)sig;
}

/*
 * What connecting (without waiting) to the socket file at sun says: 0 or
 * EAGAIN (its queue full) when a process listens on it, ECONNREFUSED
 * when none does, or another errno.
 */
static int
connect_errno(const struct sockaddr_un *sun)
{
	int	 fd, e = 0;

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1)
		return errno;
	if (connect(fd, (const struct sockaddr *)sun, sizeof(*sun)) == -1)
		e = errno;
	close(fd);
	return e;
}

int
prefork_workers(const char *arg)
{
	char	*end;
	long	 n;

	n = strtol(arg, &end, 10);
	return *arg == '\0' || *end != '\0' || n < 1 || n > PREFORK_MAX ? 0 :
	    (int)n;
}

/* The listening socket at path, mode 0660, or -1 (logged). */
static int
listen_at(const char *path)
{
	struct sockaddr_un	 sun;
	struct stat		 st;
	mode_t			 um;
	int			 fd, e;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		logx(LOG_ERR, "%s: a socket's path has %zu bytes at most", path,
		    sizeof(sun.sun_path) - 1);
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			logx(LOG_ERR, "%s: exists and is not a socket", path);
			return -1;
		}
		if ((e = connect_errno(&sun)) != ECONNREFUSED) {
			if (e == 0 || e == EAGAIN)
				logx(LOG_ERR,
				    "%s: another process listens on it", path);
			else
				logx(LOG_ERR, "%s: %s", path, strerror(e));
			return -1;
		}
		/* left behind by a process gone */
		if (unlink(path) == -1) {
			logx(LOG_ERR, "%s: cannot remove the stale socket: %s",
			    path, strerror(errno));
			return -1;
		}
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1) {
		logx(LOG_ERR, "socket: %s", strerror(errno));
		return -1;
	}
	um = umask(0117);	/* born 0660: no moment open to others */
	e = bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ? errno : 0;
	umask(um);
	if (e == 0 && listen(fd, LISTEN_BACKLOG) == -1) {
		e = errno;
		unlink(path);
	}
	if (e != 0) {
		logx(LOG_ERR, "%s: %s", path, strerror(e));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Fork worker w.  Returns true in the new worker, ready to serve;
 * false in the supervisor (a failed fork is tried again a little later).
 */
static bool
start(struct worker *w, int lfd, const sigset_t *old, pid_t supervisor)
{
	pid_t	 p;

	if ((p = fork()) == -1) {
		logx(LOG_ERR, "cannot start a worker: %s", strerror(errno));
		w->due = time_mono() + RESPAWN_SECONDS;
		return false;
	}
	if (p != 0) {
		w->pid = p;
		w->born = time_mono();
		w->replaced = false;
		return false;
	}
	/* a worker never outlives its supervisor (nor serves after it) */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 || getppid() != supervisor)
		_exit(1);
	/* started with no standard input, the socket may be it already */
	if (lfd != STDIN_FILENO) {
		if (dup2(lfd, STDIN_FILENO) == -1)
			_exit(1);
		close(lfd);
	}
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, old, NULL);
	return true;
}

/* Send sig to every running worker. */
static void
signal_all(struct worker *w, int n, int sig)
{
	int	 i;

	for (i = 0; i < n; i++)
		if (w[i].pid != 0)
			(void)kill(w[i].pid, sig);
}

/* A worker ended: log how, and when it may start again. */
static void
ended(struct worker *w, int st, bool stopping)
{
	int64_t	 now = time_mono();

	if (WIFSIGNALED(st))
		logx(stopping || w->replaced ? LOG_INFO : LOG_WARN,
		    "worker %ld killed by signal "
		    "%d", (long)w->pid, WTERMSIG(st));
	else
		logx(WEXITSTATUS(st) == 0 ? LOG_INFO : LOG_WARN,
		    "worker %ld exited %d", (long)w->pid, WEXITSTATUS(st));
	w->pid = 0;
	w->due = now - w->born < RESPAWN_SECONDS ? now + RESPAWN_SECONDS : now;
}

/* SIGKILL to the workers a SIGHUP replaced that still run. */
static void
kill_replaced(struct worker *w, int n)
{
	int	 i;

	for (i = 0; i < n; i++)
		if (w[i].pid != 0 && w[i].replaced) {
			logx(LOG_WARN, "worker %ld still busy %d s after "
			    "SIGHUP: killed", (long)w[i].pid,
			    PREFORK_STOP_SECONDS);
			(void)kill(w[i].pid, SIGKILL);
		}
}

/*
 * Collect the workers that ended (ended() says how each did).  True when
 * one, while not stopping, exited 2: it cannot read its configuration,
 * and neither would the next one.
 */
static bool
reap(struct worker *w, int n, bool stopping)
{
	pid_t	 p;
	int	 i, st;
	bool	 badconf = false;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		for (i = 0; i < n && w[i].pid != p; i++)
			continue;
		if (i == n)
			continue;
		ended(&w[i], st, stopping);
		if (!stopping && WIFEXITED(st) && WEXITSTATUS(st) == 2) {
			logx(LOG_ERR, "a worker cannot read its "
			    "configuration: stopping");
			badconf = true;
		}
	}
	return badconf;
}

int
prefork(const char *path, int n, bool *worker)
{
	struct worker	*w;
	struct sigaction sa;
	struct timespec	 tick = { 1, 0 };
	sigset_t	 set, old;
	siginfo_t	 si;
	pid_t		 self = getpid();
	int64_t		 deadline = 0, replace_by = 0;
	int		 lfd, i, sig, rc = 0, alive;
	bool		 stopping = false, killed = false;

	*worker = false;
	if (n < 1 || n > PREFORK_MAX ||
	    (w = calloc((size_t)n, sizeof(*w))) == NULL)
		return 1;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	if ((lfd = listen_at(path)) == -1) {
		free(w);
		signal(SIGCHLD, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return 1;
	}
	logx(LOG_INFO, "listening on %s with %d workers", path, n);
	for (;;) {
		for (i = 0; !stopping && i < n; i++)
			if (w[i].pid == 0 && w[i].due <= time_mono() &&
			    start(&w[i], lfd, &old, self)) {
				free(w);
				*worker = true;
				return 0;
			}
		sig = sigtimedwait(&set, &si, &tick);
		if (sig == SIGHUP && !stopping) {
			logx(LOG_INFO, "replacing the workers");
			for (i = 0; i < n; i++)
				w[i].replaced = w[i].pid != 0;
			signal_all(w, n, SIGTERM);
			replace_by = time_mono() + PREFORK_STOP_SECONDS;
		}
		/* a replaced worker gets the bound a stopping one has */
		if (replace_by != 0 && !stopping && time_mono() >= replace_by) {
			kill_replaced(w, n);
			replace_by = 0;
		}
		if (reap(w, n, stopping)) {
			rc = 2;
			sig = SIGTERM;
		}
		if ((sig == SIGTERM || sig == SIGINT) && !stopping) {
			/*
			 * no new connection from now on: the web server's fails
			 * fast
			 */
			stopping = true;
			unlink(path);
			close(lfd);
			deadline = time_mono() + PREFORK_STOP_SECONDS;
			logx(LOG_INFO, "stopping");
			signal_all(w, n, SIGTERM);
		}
		if (stopping) {
			for (i = 0, alive = 0; i < n; i++)
				alive += w[i].pid != 0;
			if (alive == 0)
				break;
			if (!killed && time_mono() >= deadline) {
				logx(LOG_WARN,
				    "%d worker(s) still busy after %d s: "
				    "killed", alive, PREFORK_STOP_SECONDS);
				signal_all(w, n, SIGKILL);
				killed = true;
			}
		}
	}
	free(w);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
