#include "proc/cgroup.h"

#include <string.h>

#include "util.h"

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t l = strlen(suffix);
	return n > l && !memcmp(s + n - l, suffix, l);
}

static void copy_part(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* Path, unit and slice from one line's path. The deepest unit wins (a
 * service inside a user's manager: user@1000.service/app.slice/foo.service). */
static void from_path(const char *line, size_t line_len, struct proc_cgroup *out)
{
	memset(out, 0, sizeof(*out));
	copy_part(out->path, sizeof(out->path), line, line_len);
	for (const char *p = line, *le = line + line_len; p < le;) {
		const char *s = memchr(p, '/', (size_t)(le - p));
		size_t n = s ? (size_t)(s - p) : (size_t)(le - p);
		if (ends_with(p, n, ".service") || ends_with(p, n, ".scope"))
			copy_part(out->unit, sizeof(out->unit), p, n);
		else if (ends_with(p, n, ".slice"))
			copy_part(out->slice, sizeof(out->slice), p, n);
		p += n + 1;
	}
}

void proc_cgroup_parse(const char *text, size_t len, struct proc_cgroup *out)
{
	const char *end = text + len, *first = NULL, *v2 = NULL, *sd = NULL;
	size_t first_len = 0, v2_len = 0, sd_len = 0;

	memset(out, 0, sizeof(*out));
	/* Lines are "ID:CONTROLLERS:PATH": the unified hierarchy is "0::",
	 * systemd's own v1 hierarchy (legacy and hybrid layouts)
	 * "N:name=systemd:". */
	for (const char *p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *c1 = memchr(p, ':', n);
		const char *c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - p)) : NULL;
		if (c2) {
			const char *path = c2 + 1;
			size_t plen = n - (size_t)(path - p);
			if (!first)
				first = path, first_len = plen;
			if (c1 - p == 1 && p[0] == '0' && c2 == c1 + 1)
				v2 = path, v2_len = plen;
			else if (c2 - c1 - 1 == 12 && !memcmp(c1 + 1, "name=systemd", 12))
				sd = path, sd_len = plen;
		}
		p += n + 1;
	}
	if (v2)
		from_path(v2, v2_len, out);
	char v2_path[sizeof(out->v2)] = "";
	if (v2)
		copy_part(v2_path, sizeof(v2_path), v2, v2_len);
	/* The unified line is "/" when only v1 hierarchies are mounted. */
	if (sd && !out->unit[0])
		from_path(sd, sd_len, out);
	if (!out->path[0] && first)
		from_path(first, first_len, out);
	memcpy(out->v2, v2_path, sizeof(out->v2));
}
