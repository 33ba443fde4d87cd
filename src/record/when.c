/* TIME as the user writes it (pscope record --until, pscope list --at):
 * HH:MM[:SS] (local time, on the day of the reference), an ISO date-time
 * (YYYY-MM-DD[ T]HH:MM[:SS], local), +DURATION from the start, -DURATION
 * from the end (DURATION: 30, 30s, 10m, 2h, 1d, or 1h30m). Pure. */
#include "record/when.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int rec_duration_parse(const char *s, double *out)
{
	double total = 0;
	bool any = false;

	while (*s) {
		char *end;
		errno = 0;
		double v = strtod(s, &end);
		if (errno || end == s || v < 0 || !(v < 1e9))
			return -EINVAL;
		double mult = 1;
		switch (*end) {
		case 's': mult = 1; end++; break;
		case 'm': mult = 60; end++; break;
		case 'h': mult = 3600; end++; break;
		case 'd': mult = 86400; end++; break;
		case '\0': break;
		default: return -EINVAL;
		}
		total += v * mult;
		any = true;
		s = end;
	}
	if (!any)
		return -EINVAL;
	*out = total;
	return 0;
}

int rec_when_parse(const char *s, double ref, double start, double end, double *out)
{
	struct tm tm;
	time_t t = (time_t)ref;
	int y, mo, d, h, mi, sec = 0, n = 0;
	double dur;

	if ((s[0] == '+' || s[0] == '-') && rec_duration_parse(s + 1, &dur) == 0) {
		*out = s[0] == '+' ? start + dur : end - dur;
		return 0;
	}
	localtime_r(&t, &tm);
	if ((sscanf(s, "%4d-%2d-%2d%*1[T ]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) == 6 && !s[n]) ||
	    (sec = 0, n = 0, sscanf(s, "%4d-%2d-%2d%*1[T ]%2d:%2d%n", &y, &mo, &d, &h, &mi, &n) == 5 && !s[n])) {
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
	} else if (n = 0, sec = 0, !((sscanf(s, "%2d:%2d:%2d%n", &h, &mi, &sec, &n) == 3 && !s[n]) ||
				     (sec = 0, n = 0, sscanf(s, "%2d:%2d%n", &h, &mi, &n) == 2 && !s[n]))) {
		return -EINVAL;
	}
	if (!isdigit((unsigned char)s[0]) || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60)
		return -EINVAL;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	time_t r = mktime(&tm);
	if (r == (time_t)-1)
		return -EINVAL;
	*out = (double)r;
	return 0;
}
