/* Text symbol tables that are not ELF: /proc/kallsyms (kernel frames,
 * loaded once for every view) and /tmp/perf-PID.map lines (JIT code, read
 * by jit.c). */
#include "sym/local.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int range_cmp(const void *a, const void *b)
{
	const struct sym_range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Hex digits, after an optional 0x (JDK's perf maps write one). */
static const char *hex(const char *s, const char *end, uint64_t *v)
{
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	const char *start = s;
	*v = 0;
	for (; s < end; s++) {
		int d = *s >= '0' && *s <= '9'   ? *s - '0'
			: *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
			: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
						 : -1;
		if (d < 0)
			break;
		*v = *v << 4 | (uint64_t)d;
	}
	return s > start ? s : NULL;
}

/* Shared by both parsers: lines of "HEX ..." into ranges. Hand-parsed:
 * kallsyms has over 100000 lines and sscanf made it the sampler's biggest
 * start-up cost. The pool is allocated once, so names point into it. */
static ssize_t parse_lines(const char *buf, size_t len, struct sym_range **out, char **pool, bool kallsyms)
{
	size_t cap = 0, n = 0, plen = 0;
	struct sym_range *r = NULL;
	char *p = malloc(len + 1);
	const char *s = buf, *end = buf + len;

	*out = NULL;
	*pool = NULL;
	if (!p)
		return -ENOMEM;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end, *q;
		const char *name, *name_end, *mod = NULL, *mod_end = NULL;
		uint64_t a, sz = 0;

		q = hex(s, le, &a);
		s = le + 1;
		if (!q || q == le || *q != ' ')
			continue;
		q++;
		if (kallsyms) {
			if (q + 2 > le || q[1] != ' ' || (q[0] != 't' && q[0] != 'T' && q[0] != 'w' && q[0] != 'W'))
				continue;
			q += 2;
		} else {
			q = hex(q, le, &sz);
			if (!q || q == le || *q != ' ')
				continue;
			q++;
		}
		name = q;
		name_end = le;
		if (kallsyms) {
			const char *tab = memchr(name, '\t', (size_t)(le - name));
			if (tab) {
				name_end = tab;
				mod = tab + 1;
				mod_end = le;
			}
		}
		if (name_end == name)
			continue;
		if (!kallsyms && n == SYM_PERFMAP_MAX_ENTRIES)
			break;
		if (sym_range_room(&r, n, &cap, 1024) < 0) {
			free(r);
			free(p);
			return -ENOMEM;
		}
		r[n].start = a;
		r[n].size = sz;
		r[n].name = p + plen;
		memcpy(p + plen, name, (size_t)(name_end - name));
		plen += (size_t)(name_end - name);
		p[plen++] = '\0';
		r[n].module = NULL;
		if (mod && mod_end > mod) {
			r[n].module = p + plen;
			memcpy(p + plen, mod, (size_t)(mod_end - mod));
			plen += (size_t)(mod_end - mod);
			p[plen++] = '\0';
		}
		n++;
	}
	if (n)
		sort_array(r, n, sizeof(*r), range_cmp);
	*out = r;
	*pool = p;
	return (ssize_t)n;
}

ssize_t sym_perfmap_parse(const char *buf, size_t len, struct sym_range **out, char **pool)
{
	return parse_lines(buf, len, out, pool, false);
}

ssize_t sym_kallsyms_parse(const char *buf, size_t len, struct sym_range **out, char **pool)
{
	ssize_t n = parse_lines(buf, len, out, pool, true);
	/* kptr_restrict: every address reads as 0, which names nothing. */
	if (n > 0 && (*out)[n - 1].start == 0) {
		free(*out);
		free(*pool);
		*out = NULL;
		*pool = NULL;
		return 0;
	}
	return n;
}

const struct sym_range *sym_range_find(const struct sym_range *r, size_t n, uint64_t pc, bool sized)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* first range starting above pc */
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct sym_range *c = &r[lo - 1];
	if (sized && pc - c->start >= c->size)
		return NULL;
	return c;
}

static pthread_once_t ksyms_once = PTHREAD_ONCE_INIT;
static struct sym_range *ksyms;
static size_t nksyms;
static char *ksyms_pool;

static void load_kallsyms(void)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len = read_file_alloc_at(AT_FDCWD, "/proc/kallsyms", &buf, &cap);

	if (len > 0) {
		ssize_t n = sym_kallsyms_parse(buf, (size_t)len, &ksyms, &ksyms_pool);
		nksyms = n > 0 ? (size_t)n : 0;
	}
	free(buf);
}

bool sym_kernel_named(void)
{
	pthread_once(&ksyms_once, load_kallsyms);
	return nksyms > 0;
}

void sym_kernel(uint64_t pc, const char **function, const char **module)
{
	*function = "[kernel]";
	*module = "[kernel]";
	if (!sym_kernel_named())
		return;
	const struct sym_range *r = sym_range_find(ksyms, nksyms, pc, false);
	if (!r)
		return;
	*function = r->name;
	if (r->module)
		*module = r->module; /* already "[mod]" */
}
