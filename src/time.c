/* UTC date-times in the contract's shape (conventions 3). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "formback.h"

void
time_iso8601(int64_t secs, char out[32])
{
	struct tm	 tm;
	time_t		 t = (time_t)secs;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void
time_sql(int64_t secs, char out[32])
{
	struct tm	 tm;
	time_t		 t = (time_t)secs;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%d %H:%M:%S", &tm);
}

int64_t
time_jst_midnight(int64_t secs)
{
	int64_t	 local = secs + TIME_JST;

	return local - local % 86400 - TIME_JST;
}

void
time_jst_month(int64_t secs, char out[8])
{
	struct tm	 tm;
	time_t		 t = (time_t)(secs + TIME_JST);

	gmtime_r(&t, &tm);
	strftime(out, 8, "%Y-%m", &tm);
}

static int
digits(const char *s, int n)
{
	int	 v = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int64_t
days_from_civil(int y, int m, int d)
{
	int64_t	 era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

bool
time_parse_iso8601(const char *s, int64_t *secs)
{
	int	 y, mo, d, h, mi, se = 0, oh, om, sign;
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30,
	    31 };
	const char	*p;

	if (strlen(s) < 17)
		return false;
	if ((y = digits(s, 4)) < 0 || s[4] != '-' ||
	    (mo = digits(s + 5, 2)) < 1 || mo > 12 || s[7] != '-' ||
	    (d = digits(s + 8, 2)) < 1 || d > mdays[mo - 1] ||
	    s[10] != 'T' ||
	    (h = digits(s + 11, 2)) < 0 || h > 23 || s[13] != ':' ||
	    (mi = digits(s + 14, 2)) < 0 || mi > 59)
		return false;
	p = s + 16;
	if (*p == ':') {
		if ((se = digits(p + 1, 2)) < 0 || se > 59)
			return false;
		p += 3;
		if (*p == '.') {
			p++;
			if (*p < '0' || *p > '9')
				return false;
			while (*p >= '0' && *p <= '9')
				p++;
		}
	}
	if (*p == 'Z' && p[1] == '\0')
		oh = om = 0, sign = 1;
	else if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
		sign = *p == '+' ? 1 : -1;
		if ((oh = digits(p + 1, 2)) < 0 || oh > 23 ||
		    (om = digits(p + 4, 2)) < 0 || om > 59)
			return false;
	} else
		return false;
	if (mo == 2 && d == 29 &&
	    !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return false;
	*secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se -
	    sign * (oh * 3600 + om * 60);
	return true;
}

int64_t
time_mono(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec;
}

int64_t
time_jst_date(const char *s)
{
	char	 t[32];
	int64_t	 v;
	int	 y, m, d;

	if (s == NULL || strlen(s) != 10 ||
	    sscanf(s, "%4d-%2d-%2d", &y, &m, &d) != 3 ||
	    s[4] != '-' || s[7] != '-' || strspn(s, "0123456789-") != 10)
		return -1;
	snprintf(t, sizeof(t), "%sT00:00:00+09:00", s);
	if (!time_parse_iso8601(t, &v))
		return -1;
	/* a day that does not exist (2030-02-30) is not one */
	time_iso8601(v + 9 * 3600, t);
	return strncmp(t, s, 10) == 0 ? v : -1;
}
