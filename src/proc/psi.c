#include "proc/psi.h"
#include "proc/cgroup.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int line(const char *p, const char *end, double *avg10, uint64_t *total)
{
	char tmp[160];
	unsigned long long t;
	double a10, a60, a300;

	copy_cstr(tmp, sizeof(tmp), p, (size_t)(end - p));
	if (sscanf(tmp, "%*s avg10=%lf avg60=%lf avg300=%lf total=%llu", &a10, &a60, &a300, &t) != 4)
		return -EINVAL;
	*avg10 = a10;
	*total = t;
	return 0;
}

int proc_psi_parse(const char *buf, size_t len, struct proc_psi *out)
{
	const char *p = buf, *end = buf + len;
	bool some = false;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		if ((size_t)(eol - p) > 5 && !memcmp(p, "some ", 5))
			some = line(p, eol, &out->some_avg10, &out->some_total) == 0;
		else if ((size_t)(eol - p) > 5 && !memcmp(p, "full ", 5))
			out->have_full = line(p, eol, &out->full_avg10, &out->full_total) == 0;
		p = eol + 1;
	}
	return some ? 0 : -EINVAL;
}

int proc_psi_read(const char *dir, const char *res, struct proc_psi *out)
{
	char path[4096], buf[512];

	if (dir)
		snprintf(path, sizeof(path), "%s/%s.pressure", dir, res);
	else
		snprintf(path, sizeof(path), "/proc/pressure/%s", res);
	ssize_t n = read_file_at(AT_FDCWD, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return proc_psi_parse(buf, (size_t)n, out);
}

/* The mount point of the cgroup2 filesystem (field 5 of mountinfo). */
static int cgroup2_mount(char *out, size_t size)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = read_file_alloc_at(AT_FDCWD, "/proc/self/mountinfo", &buf, &cap);
	int r = -ENOENT;

	for (char *l = n > 0 ? buf : NULL, *save = NULL; (l = strtok_r(l, "\n", &save)); l = NULL) {
		char *dash = strstr(l, " - cgroup2 ");
		char mnt[1024];
		if (dash && sscanf(l, "%*s %*s %*s %*s %1023s", mnt) == 1) {
			strlcpy_ps(out, mnt, size);
			r = 0;
			break;
		}
	}
	free(buf);
	return n < 0 ? (int)n : r;
}

int proc_cgroup2_dir(pid_t pid, char *out, size_t size)
{
	char path[64], buf[4096], mnt[1024];
	struct proc_cgroup cg;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	ssize_t n = read_file_at(AT_FDCWD, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if ((r = cgroup2_mount(mnt, sizeof(mnt))) < 0)
		return r;
	proc_cgroup_parse(buf, (size_t)n, &cg);
	if (!cg.v2[0])
		return -ENOENT;
	snprintf(out, size, "%s%s", mnt, strcmp(cg.v2, "/") ? cg.v2 : "");
	return 0;
}
