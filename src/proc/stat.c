#include "proc/stat.h"
#include "util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int proc_stat_parse(const char *buf, size_t len, struct proc_stat *out)
{
	const char *open, *close_p, *p, *end = buf + len;
	unsigned long long f[52];
	int n = 0;

	memset(out, 0, sizeof(*out));
	open = memchr(buf, '(', len);
	if (!open)
		return -EINVAL;
	close_p = NULL;
	for (p = end; p > open; p--)
		if (p[-1] == ')') {
			close_p = p - 1;
			break;
		}
	if (!close_p)
		return -EINVAL;
	out->pid = (pid_t)strtol(buf, NULL, 10);
	size_t clen = (size_t)(close_p - open - 1);
	if (clen >= sizeof(out->comm))
		clen = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, clen);
	out->comm[clen] = '\0';

	p = close_p + 1;
	while (p < end && *p == ' ')
		p++;
	if (p >= end)
		return -EINVAL;
	out->state = *p++;
	/* Fields 4.. are decimal numbers (a few negative); parsed by hand:
	 * this runs for every process on every refresh. */
	while (n < (int)ARRAY_SIZE(f)) {
		unsigned long long x = 0;
		bool neg = false;
		while (p < end && *p == ' ')
			p++;
		if (p >= end || *p == '\n' || *p == '\0')
			break;
		if (*p == '-') {
			neg = true;
			p++;
		}
		if (p >= end || *p < '0' || *p > '9')
			return -EINVAL;
		while (p < end && *p >= '0' && *p <= '9')
			x = x * 10 + (unsigned long long)(*p++ - '0');
		f[n++] = neg ? 0 - x : x;
	}
	if (n < 19) /* through starttime (field 22 = f[18]) */
		return -EINVAL;
	/* f[0] is field 4 (ppid). */
	out->ppid = (pid_t)f[0];
	out->pgrp = (pid_t)f[1];
	out->session = (pid_t)f[2];
	out->tty_nr = (int)f[3];
	out->tpgid = (pid_t)f[4];
	out->flags = (unsigned long)f[5];
	out->minflt = (unsigned long)f[6];
	out->cminflt = (unsigned long)f[7];
	out->majflt = (unsigned long)f[8];
	out->cmajflt = (unsigned long)f[9];
	out->utime = (unsigned long)f[10];
	out->stime = (unsigned long)f[11];
	out->cutime = (long)f[12];
	out->cstime = (long)f[13];
	out->priority = (long)f[14];
	out->nice = (long)f[15];
	out->num_threads = (long)f[16];
	out->starttime = f[18];
	if (n > 19)
		out->vsize = (unsigned long)f[19];
	if (n > 20)
		out->rss = (long)f[20];
	if (n > 24) { /* fields 26 and 28 */
		out->start_code = (unsigned long)f[22];
		out->start_stack = (unsigned long)f[24];
	}
	if (n > 35)
		out->processor = (int)f[35];
	if (n > 38)
		out->delayacct_blkio_ticks = f[38];
	return 0;
}

int proc_statm_parse(const char *buf, size_t len, struct proc_statm *out)
{
	char tmp[256];

	copy_cstr(tmp, sizeof(tmp), buf, len);
	memset(out, 0, sizeof(*out));
	if (sscanf(tmp, "%lu %lu %lu %lu %*u %lu", &out->size, &out->resident, &out->shared, &out->text,
		   &out->data) < 3)
		return -EINVAL;
	return 0;
}

int proc_stat_read(int dirfd, struct proc_stat *out)
{
	char buf[1024];
	ssize_t n = read_file_at(dirfd, "stat", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return proc_stat_parse(buf, (size_t)n, out);
}

int proc_statm_read(int dirfd, struct proc_statm *out)
{
	char buf[256];
	ssize_t n = read_file_at(dirfd, "statm", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return proc_statm_parse(buf, (size_t)n, out);
}
