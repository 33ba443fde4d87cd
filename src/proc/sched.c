#include "proc/sched.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* "12.345678" (ms) as ns, without floating point. */
static uint64_t ms_to_ns(const char *p, const char *end)
{
	uint64_t ms = 0, frac = 0;
	int digits = 0;

	while (p < end && *p >= '0' && *p <= '9')
		ms = ms * 10 + (uint64_t)(*p++ - '0');
	if (p < end && *p == '.')
		for (p++; p < end && *p >= '0' && *p <= '9' && digits < 6; p++, digits++)
			frac = frac * 10 + (uint64_t)(*p - '0');
	for (; digits < 6; digits++)
		frac *= 10;
	return ms * 1000000 + frac;
}

static uint64_t number(const char *p, const char *end)
{
	uint64_t v = 0;

	while (p < end && *p >= '0' && *p <= '9')
		v = v * 10 + (uint64_t)(*p++ - '0');
	return v;
}

int proc_sched_parse(const char *buf, size_t len, struct proc_sched *out)
{
	const char *p = buf, *end = buf + len;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		const char *colon = memchr(p, ':', (size_t)(eol - p));
		if (colon) {
			const char *k = p, *ke = colon, *v = colon + 1;
			while (ke > k && ke[-1] == ' ')
				ke--;
			while (v < eol && *v == ' ')
				v++;
			size_t kl = (size_t)(ke - k);
#define KEY(s) (kl == sizeof(s) - 1 && !memcmp(k, s, kl))
			if (KEY("se.nr_migrations")) {
				out->nr_migrations = number(v, eol);
				out->have |= PROC_SCHED_HAVE_MIGR;
			} else if (KEY("nr_switches")) {
				out->nr_switches = number(v, eol);
				out->have |= PROC_SCHED_HAVE_SWITCHES;
			} else if (KEY("nr_voluntary_switches")) {
				out->nr_voluntary = number(v, eol);
			} else if (KEY("nr_involuntary_switches")) {
				out->nr_involuntary = number(v, eol);
			} else if (KEY("se.sum_exec_runtime")) {
				out->sum_exec_ns = ms_to_ns(v, eol);
				out->have |= PROC_SCHED_HAVE_EXEC;
			}
#undef KEY
		}
		p = eol + 1;
	}
	return out->have ? 0 : -EINVAL;
}

int proc_sched_read(int dirfd, struct proc_sched *out)
{
	char buf[4096];
	ssize_t n = read_file_at(dirfd, "sched", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return proc_sched_parse(buf, (size_t)n, out);
}
