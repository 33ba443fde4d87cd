#include "proc/sysinfo.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Next line of buf[*pos..len) as a NUL-terminated copy in line (truncated to
 * size-1). Returns false at the end. */
static bool next_line(const char *buf, size_t len, size_t *pos, char *line, size_t size)
{
	size_t start = *pos, end, n;

	if (start >= len)
		return false;
	const char *nl = memchr(buf + start, '\n', len - start);
	end = nl ? (size_t)(nl - buf) : len;
	n = end - start < size - 1 ? end - start : size - 1;
	memcpy(line, buf + start, n);
	line[n] = '\0';
	*pos = nl ? end + 1 : len;
	return true;
}

static int parse_cpu_line(const char *p, struct sys_cpu_times *t)
{
	memset(t, 0, sizeof(*t));
	int n = sscanf(p, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &t->user, &t->nice,
		       &t->system, &t->idle, &t->iowait, &t->irq, &t->softirq, &t->steal, &t->guest,
		       &t->guest_nice);
	return n >= 4 ? 0 : -EINVAL;
}

int sys_stat_parse(const char *buf, size_t len, struct sys_stat *out)
{
	char line[512];
	size_t pos = 0;
	bool have_total = false;

	/* Not the whole struct: see sys_stat (the CPU entries are written
	 * one by one below). */
	memset(out, 0, offsetof(struct sys_stat, cpu_id));
	while (next_line(buf, len, &pos, line, sizeof(line))) {
		if (!strncmp(line, "cpu ", 4)) {
			if (parse_cpu_line(line + 4, &out->total) < 0)
				return -EINVAL;
			have_total = true;
		} else if (!strncmp(line, "cpu", 3) && line[3] >= '0' && line[3] <= '9') {
			char *end;
			long id = strtol(line + 3, &end, 10);
			if (out->ncpu == SYS_MAX_CPUS || *end != ' ' || id < 0)
				continue;
			if (parse_cpu_line(end, &out->cpu[out->ncpu]) < 0)
				return -EINVAL;
			out->cpu_id[out->ncpu++] = (int)id;
		} else if (!strncmp(line, "ctxt ", 5)) {
			out->ctxt = strtoull(line + 5, NULL, 10);
		} else if (!strncmp(line, "btime ", 6)) {
			out->btime = strtoull(line + 6, NULL, 10);
		} else if (!strncmp(line, "processes ", 10)) {
			out->processes = strtoull(line + 10, NULL, 10);
		} else if (!strncmp(line, "procs_running ", 14)) {
			out->procs_running = atoi(line + 14);
		} else if (!strncmp(line, "procs_blocked ", 14)) {
			out->procs_blocked = atoi(line + 14);
		}
	}
	return have_total ? 0 : -EINVAL;
}

int sys_meminfo_parse(const char *buf, size_t len, struct sys_meminfo *out)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
#define K(k, m) { k ":", offsetof(struct sys_meminfo, m) }
		K("MemTotal", total), K("MemFree", free), K("MemAvailable", available),
		K("Buffers", buffers), K("Cached", cached), K("SReclaimable", sreclaimable),
		K("Shmem", shmem), K("SwapTotal", swap_total), K("SwapFree", swap_free),
		K("SwapCached", swap_cached),
#undef K
	};
	char line[256];
	size_t pos = 0;

	memset(out, 0, sizeof(*out));
	while (next_line(buf, len, &pos, line, sizeof(line))) {
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
			size_t kl = strlen(keys[i].key);
			if (!strncmp(line, keys[i].key, kl)) {
				*(unsigned long long *)((char *)out + keys[i].off) = strtoull(line + kl, NULL, 10);
				break;
			}
		}
	}
	if (!out->total)
		return -EINVAL;
	unsigned long long other = out->free + out->buffers + out->cached + out->sreclaimable;
	out->used = other < out->total ? out->total - other : 0;
	return 0;
}

int sys_loadavg_parse(const char *buf, size_t len, struct sys_loadavg *out)
{
	char tmp[256];

	copy_cstr(tmp, sizeof(tmp), buf, len);
	memset(out, 0, sizeof(*out));
	if (sscanf(tmp, "%lf %lf %lf %d/%d %d", &out->load[0], &out->load[1], &out->load[2],
		   &out->running, &out->total, &out->last_pid) < 5)
		return -EINVAL;
	return 0;
}

/* One "seconds.hundredths" field as the kernel prints it ("%lu.%02lu"):
 * digits only, so no exponent, sign, inf or nan gets through, and at most 12
 * integer digits, so the value converts to any integer type. */
static int uptime_field(const char **p, const char *end, double *out)
{
	double v = 0, scale = 1;
	int digits = 0;

	while (*p < end && **p >= '0' && **p <= '9' && digits < 13) {
		v = v * 10 + (**p - '0');
		(*p)++;
		digits++;
	}
	if (!digits || digits > 12)
		return -EINVAL;
	if (*p < end && **p == '.') {
		(*p)++;
		for (digits = 0; *p < end && **p >= '0' && **p <= '9'; (*p)++, digits++)
			if (digits < 9)
				v += (**p - '0') * (scale /= 10);
	}
	*out = v;
	return 0;
}

int sys_uptime_parse(const char *buf, size_t len, double *uptime, double *idle)
{
	const char *p = buf, *end = buf + len;
	double u, i = 0;

	if (uptime_field(&p, end, &u) < 0 || (p < end && *p != ' ' && *p != '\n'))
		return -EINVAL;
	while (p < end && *p == ' ')
		p++;
	if (p < end && *p != '\n' && (uptime_field(&p, end, &i) < 0 || (p < end && *p != '\n')))
		return -EINVAL;
	*uptime = u;
	if (idle)
		*idle = i;
	return 0;
}

void sys_cpu_usage(const struct sys_cpu_times *p, const struct sys_cpu_times *c, struct sys_cpu_usage *out)
{
#define D(f) (c->f >= p->f ? (double)(c->f - p->f) : 0.0)
	/* user and nice include guest time already: count it once. */
	double guest = D(guest), guest_nice = D(guest_nice);
	double user = D(user) - guest, nice = D(nice) - guest_nice;
	double sys = D(system), irq = D(irq) + D(softirq), steal = D(steal) + guest + guest_nice;
	double idle = D(idle) + D(iowait);
#undef D
	if (user < 0)
		user = 0;
	if (nice < 0)
		nice = 0;
	double total = user + nice + sys + irq + steal + idle;

	memset(out, 0, sizeof(*out));
	if (total <= 0)
		return;
	out->user = user / total;
	out->nice = nice / total;
	out->system = sys / total;
	out->irq = irq / total;
	out->steal = steal / total;
	out->busy = out->user + out->nice + out->system + out->irq + out->steal;
}

/* Read a /proc file of unknown size into a static-per-call heap buffer. */
static int read_proc(const char *path, char **buf, size_t *cap, size_t *len)
{
	ssize_t n = read_file_alloc_at(AT_FDCWD, path, buf, cap);
	if (n < 0)
		return (int)n;
	*len = (size_t)n;
	return 0;
}

int sys_stat_read(struct sys_stat *out)
{
	char *buf = NULL;
	size_t cap = 0, len = 0;
	int r = read_proc("/proc/stat", &buf, &cap, &len);
	if (r == 0)
		r = sys_stat_parse(buf, len, out);
	free(buf);
	return r;
}

int sys_meminfo_read(struct sys_meminfo *out)
{
	char buf[8192];
	ssize_t n = read_file_at(AT_FDCWD, "/proc/meminfo", buf, sizeof(buf));
	return n < 0 ? (int)n : sys_meminfo_parse(buf, (size_t)n, out);
}

int sys_loadavg_read(struct sys_loadavg *out)
{
	char buf[256];
	ssize_t n = read_file_at(AT_FDCWD, "/proc/loadavg", buf, sizeof(buf));
	return n < 0 ? (int)n : sys_loadavg_parse(buf, (size_t)n, out);
}

int sys_uptime_read(double *uptime)
{
	char buf[128];
	ssize_t n = read_file_at(AT_FDCWD, "/proc/uptime", buf, sizeof(buf));
	return n < 0 ? (int)n : sys_uptime_parse(buf, (size_t)n, uptime, NULL);
}

void sys_snapshot_usage(const struct sys_snapshot *prev, struct sys_snapshot *cur)
{
	if (!prev) {
		memset(&cur->total, 0, sizeof(cur->total));
		memset(cur->cpu, 0, (size_t)cur->ncpu * sizeof(*cur->cpu)); /* no usage yet */
		return;
	}
	sys_cpu_usage(&prev->total_t, &cur->total_t, &cur->total);
	for (int i = 0; i < cur->ncpu; i++) {
		/* match by CPU id: CPUs can go offline between samples */
		const struct sys_cpu_times *p = NULL;
		for (int j = 0; j < prev->ncpu; j++) {
			int k = (i + j) % prev->ncpu;
			if (prev->cpu_id[k] == cur->cpu_id[i]) {
				p = &prev->cpu_t[k];
				break;
			}
		}
		if (p)
			sys_cpu_usage(p, &cur->cpu_t[i], &cur->cpu[i]);
		else
			memset(&cur->cpu[i], 0, sizeof(cur->cpu[i]));
	}
}

const char *sys_fmt_uptime(double seconds, char *buf, size_t size)
{
	unsigned long long t = seconds > 0 ? (unsigned long long)seconds : 0;
	unsigned long long days = t / 86400;

	if (days)
		snprintf(buf, size, P_("%llu day, %02llu:%02llu:%02llu", "%llu days, %02llu:%02llu:%02llu", days), days,
			 t / 3600 % 24, t / 60 % 60, t % 60);
	else
		snprintf(buf, size, "%02llu:%02llu:%02llu", t / 3600, t / 60 % 60, t % 60);
	return buf;
}
