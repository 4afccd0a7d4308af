/*
 * One log line per call on stderr, with time, program, pid, level and the
 * current request id.  Non-printable bytes are escaped so a client cannot
 * forge log lines.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formback.h"

static const char	*log_prog = "formback";
static enum log_level	 log_lvl = LOG_INFO;
static char		 log_rid[64] = "-";

static const char *const log_names[] = { "error", "warn", "info", "debug" };

void
log_init(const char *progname, enum log_level lvl)
{
	log_prog = progname;
	log_lvl = lvl;
}

void
log_set_level(enum log_level lvl)
{
	log_lvl = lvl;
}

void
log_set_request_id(const char *rid)
{
	snprintf(log_rid, sizeof(log_rid), "%s", rid != NULL ? rid : "-");
}

int
log_level_parse(const char *s, enum log_level *out)
{
	size_t	 i;

	for (i = 0; i < NELEM(log_names); i++)
		if (strcmp(s, log_names[i]) == 0) {
			*out = (enum log_level)i;
			return 0;
		}
	return -1;
}

void
logx(enum log_level lvl, const char *fmt, ...)
{
	char		 msg[2048], line[8192], ts[32];
	va_list		 ap;
	size_t		 i, o = 0;
	unsigned char	 c;

	if (lvl > log_lvl)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (i = 0; msg[i] != '\0' && o + 5 < sizeof(line); i++) {
		c = (unsigned char)msg[i];
		if (c < 0x20 || c == 0x7f || c == '\\')
			o += snprintf(line + o, sizeof(line) - o,
			    c == '\\' ? "\\\\" : "\\x%02x", c);
		else
			line[o++] = (char)c;
	}
	line[o] = '\0';
	time_iso8601((int64_t)time(NULL), ts);
	fprintf(stderr, "%s %s[%ld] %s rid=%s %s\n", ts, log_prog,
	    (long)getpid(), log_names[lvl], log_rid, line);
}
