/* The day files of a recording directory (see spool.h). */
#include "record/spool.h"
#include "out/save.h"
#include "i18n.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rec_day_parse(const char *name, int *day, unsigned *seq)
{
	int d = 0;
	unsigned n = 1;

	if (strncmp(name, "pscope-", 7))
		return -1;
	name += 7;
	for (int i = 0; i < 8; i++, name++) {
		if (*name < '0' || *name > '9')
			return -1;
		d = d * 10 + (*name - '0');
	}
	int y = d / 10000, m = d / 100 % 100, dd = d % 100;
	if (y < 1970 || m < 1 || m > 12 || dd < 1 || dd > 31)
		return -1;
	if (*name == '-') {
		name++;
		if (*name < '1' || *name > '9')
			return -1;
		n = 0;
		while (*name >= '0' && *name <= '9' && n < 100000)
			n = n * 10 + (unsigned)(*name++ - '0');
		if (n < 2)
			return -1;
	}
	if (strcmp(name, ".rec"))
		return -1;
	*day = d;
	*seq = n;
	return 0;
}

void rec_day_name(int day, unsigned seq, char *buf, size_t size)
{
	if (seq <= 1)
		snprintf(buf, size, "pscope-%08d.rec", day);
	else
		snprintf(buf, size, "pscope-%08d-%u.rec", day, seq);
}

int rec_day_of(double wall, double *next_midnight)
{
	time_t t = (time_t)wall;
	struct tm tm;

	localtime_r(&t, &tm);
	int day = (tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
	if (next_midnight) {
		struct tm n = { .tm_year = tm.tm_year, .tm_mon = tm.tm_mon, .tm_mday = tm.tm_mday + 1, .tm_isdst = -1 };
		*next_midnight = (double)mktime(&n);
	}
	return day;
}

static long days_from_civil(int day)
{
	/* Howard Hinnant's days_from_civil: days since 1970-01-01. */
	long y = day / 10000, m = day / 100 % 100, d = day % 100;
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

long rec_day_diff(int a, int b)
{
	return days_from_civil(b) - days_from_civil(a);
}

static int by_day(const void *a, const void *b)
{
	const struct rec_day *x = a, *y = b;
	if (x->day != y->day)
		return x->day < y->day ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int rec_spool_list(int dirfd, uid_t owner, struct rec_day **out, size_t *n, struct ps_error *e)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct rec_day *v = NULL;
	size_t len = 0, cap = 0;

	*out = NULL;
	*n = 0;
	if (!d) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		return ps_error_set(e, err, _("cannot list the recording directory: %s"), strerror(err));
	}
	for (struct dirent *de; (de = readdir(d));) {
		struct rec_day r = { 0 };
		struct stat st;
		if (rec_day_parse(de->d_name, &r.day, &r.seq) < 0 || strlen(de->d_name) >= sizeof(r.name))
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		    (owner != (uid_t)-1 && st.st_uid != owner))
			continue; /* not pscope's: never listed, never removed */
		strcpy(r.name, de->d_name);
		r.size = (uint64_t)st.st_size;
		if (len == cap) {
			cap = cap ? cap * 2 : 16;
			struct rec_day *nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return ps_error_set(e, ENOMEM, "%s", strerror(ENOMEM));
			}
			v = nv;
		}
		v[len++] = r;
	}
	closedir(d);
	if (len)
		qsort(v, len, sizeof(*v), by_day);
	*out = v;
	*n = len;
	return 0;
}

int rec_spool_prune(int dirfd, uid_t owner, const char *open_name, int today, unsigned keep_days,
		    uint64_t max_size, void (*said)(const char *name, uint64_t size, void *arg), void *arg,
		    uint64_t *total, struct ps_error *e)
{
	struct rec_day *v;
	size_t n;
	uint64_t sum = 0;
	int rc = 0;

	if (rec_spool_list(dirfd, owner, &v, &n, e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		sum += v[i].size;
	for (size_t i = 0; i < n && rc == 0; i++) {
		bool open = open_name && !strcmp(v[i].name, open_name);
		bool old = keep_days && rec_day_diff(v[i].day, today) >= (long)keep_days;
		bool over = max_size && sum > max_size;
		if (open || !(old || over))
			continue;
		if ((rc = out_file_remove(dirfd, v[i].name, owner, e)) < 0)
			break;
		sum -= v[i].size;
		if (said)
			said(v[i].name, v[i].size, arg);
	}
	free(v);
	if (total)
		*total = sum;
	return rc;
}
