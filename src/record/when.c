/* The times a user names an interval by: HH:MM[:SS], an ISO date-time,
 * +N[smhd] from the recording's start, -N[smhd] from its end. */
#include "record/record.h"
#include "i18n.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int bad_time(const char *s, struct ps_error *e)
{
	return ps_error_set(e, EINVAL,
			    _("invalid time '%s' (HH:MM[:SS], YYYY-MM-DD HH:MM[:SS], +30s from the start or -10m from the end)"),
			    s);
}

/* Digits only, exactly n of them, into *v. */
static bool digits(const char *p, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)p[i]))
			return false;
		*v = *v * 10 + (p[i] - '0');
	}
	return true;
}

/* "HH:MM[:SS]" at p; the number of bytes taken, 0 if not one. */
static size_t clock_part(const char *p, int *h, int *m, int *sec)
{
	*sec = 0;
	if (!digits(p, 2, h) || p[2] != ':' || !digits(p + 3, 2, m))
		return 0;
	if (p[5] == ':') {
		if (!digits(p + 6, 2, sec))
			return 0;
		return 8;
	}
	return 5;
}

int rec_time_parse(const char *s, double start, double end, double *out, struct ps_error *e)
{
	size_t len = strlen(s);
	int y, mo, d, h, m, sec;

	if (len > 64 || !len || !(start > -1e11 && start < 1e11) || !(end > -1e11 && end < 1e11))
		return bad_time(s, e);
	if (s[0] == '+' || s[0] == '-') {
		char *rest;
		errno = 0;
		double v = strtod(s + 1, &rest);
		if (errno || rest == s + 1 || !isdigit((unsigned char)s[1]) || !(v >= 0) || v > 1e9)
			return bad_time(s, e);
		double unit = 1;
		if (*rest == 's')
			rest++;
		else if (*rest == 'm')
			unit = 60, rest++;
		else if (*rest == 'h')
			unit = 3600, rest++;
		else if (*rest == 'd')
			unit = 86400, rest++;
		if (*rest)
			return bad_time(s, e);
		*out = s[0] == '+' ? start + v * unit : end - v * unit;
		return 0;
	}
	struct tm tm = { 0 };
	if (len >= 10 && digits(s, 4, &y) && s[4] == '-' && digits(s + 5, 2, &mo) && s[7] == '-' && digits(s + 8, 2, &d)) {
		if (len == 10) {
			h = m = sec = 0;
		} else {
			size_t k;
			if ((s[10] != 'T' && s[10] != ' ') || !(k = clock_part(s + 11, &h, &m, &sec)) || 11 + k != len)
				return bad_time(s, e);
		}
		if (mo < 1 || mo > 12 || d < 1 || d > 31)
			return bad_time(s, e);
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
	} else {
		size_t k = clock_part(s, &h, &m, &sec);
		if (!k || k != len)
			return bad_time(s, e);
		time_t t0 = (time_t)start;
		struct tm st;
		if (!localtime_r(&t0, &st))
			return bad_time(s, e);
		tm.tm_year = st.tm_year;
		tm.tm_mon = st.tm_mon;
		tm.tm_mday = st.tm_mday;
	}
	if (h > 23 || m > 59 || sec > 60)
		return bad_time(s, e);
	tm.tm_hour = h;
	tm.tm_min = m;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	if (t == (time_t)-1)
		return bad_time(s, e);
	double v = (double)t;
	/* A clock time before the start (with a second's slack): the next day's,
	 * as `22:00` to `02:00` of a recording over midnight means. */
	if (strlen(s) <= 8 && v < floor(start) - 1 && v + 86400 <= end + 86400)
		v += 86400;
	*out = v;
	return 0;
}

const char *rec_fmt_time(double wall, char *buf, size_t size)
{
	struct tm tm;

	if (!(wall > -1e11 && wall < 1e11)) { /* a hostile file's: not a time */
		snprintf(buf, size, "?");
		return buf;
	}
	time_t t = (time_t)wall;
	if (!localtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, size, "%.0f", wall);
	return buf;
}
