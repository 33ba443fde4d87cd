#include "proc/maps.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long hex(const char **p, const char *end)
{
	unsigned long long v = 0;
	while (*p < end) {
		char c = **p;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			break;
		v = v << 4 | (unsigned)d;
		(*p)++;
	}
	return v;
}

static unsigned long long dec(const char **p, const char *end)
{
	unsigned long long v = 0;
	while (*p < end && **p >= '0' && **p <= '9')
		v = v * 10 + (unsigned)(*(*p)++ - '0');
	return v;
}

static bool expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return false;
	(*p)++;
	return true;
}

/* "start-end perms offset maj:min inode   path" with the path NUL-terminated
 * in place (line is a writable copy). */
static int parse_map_line(char *line, char *le, struct proc_map *m)
{
	const char *p = line, *end = le;

	m->start = hex(&p, end);
	if (!expect(&p, end, '-'))
		return -EINVAL;
	m->end = hex(&p, end);
	if (!expect(&p, end, ' ') || end - p < 5)
		return -EINVAL;
	memcpy(m->perms, p, 4);
	m->perms[4] = '\0';
	p += 4;
	if (!expect(&p, end, ' '))
		return -EINVAL;
	m->offset = hex(&p, end);
	if (!expect(&p, end, ' '))
		return -EINVAL;
	m->dev_major = (unsigned)hex(&p, end);
	if (!expect(&p, end, ':'))
		return -EINVAL;
	m->dev_minor = (unsigned)hex(&p, end);
	if (!expect(&p, end, ' '))
		return -EINVAL;
	m->inode = dec(&p, end);
	if (m->end < m->start)
		return -EINVAL;
	while (p < end && *p == ' ')
		p++;
	*le = '\0';
	m->path = p;
	size_t pl = (size_t)(end - p);
	m->deleted = pl > 10 && !memcmp(end - 10, " (deleted)", 10);
	m->rss_kb = m->pss_kb = m->swap_kb = m->dirty_kb = m->anon_kb = -1;
	m->vmflags = 0;
	return 0;
}

static unsigned parse_vmflags(const char *l, const char *le)
{
	static const struct {
		char code[3];
		unsigned bit;
	} codes[] = {
		{ "dd", PROC_VMF_DD }, { "io", PROC_VMF_IO }, { "ht", PROC_VMF_HT },
		{ "sh", PROC_VMF_SH }, { "pf", PROC_VMF_PF }, { "dc", PROC_VMF_DC }, { "wf", PROC_VMF_WF },
	};
	unsigned f = 0;

	/* Two-letter codes separated by spaces. */
	for (const char *p = l; p + 1 < le; p++) {
		if (*p == ' ' || (p > l && p[-1] != ' ') || (p + 2 < le && p[2] != ' '))
			continue;
		for (size_t c = 0; c < ARRAY_SIZE(codes); c++)
			if (p[0] == codes[c].code[0] && p[1] == codes[c].code[1])
				f |= codes[c].bit;
	}
	return f;
}

/* smaps lines after a mapping header: "Rss:   12 kB". */
static void parse_smaps_field(const char *line, const char *le, struct proc_map *m)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "Rss:", offsetof(struct proc_map, rss_kb) },
		{ "Pss:", offsetof(struct proc_map, pss_kb) },
		{ "Swap:", offsetof(struct proc_map, swap_kb) },
		{ "Anonymous:", offsetof(struct proc_map, anon_kb) },
	};
	const char *p;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		size_t kl = strlen(keys[i].key);
		if ((size_t)(le - line) > kl && !memcmp(line, keys[i].key, kl)) {
			p = line + kl;
			while (p < le && *p == ' ')
				p++;
			*(long *)((char *)m + keys[i].off) = (long)dec(&p, le);
			return;
		}
	}
	if ((size_t)(le - line) >= 8 && !memcmp(line, "VmFlags:", 8)) {
		m->vmflags = parse_vmflags(line + 8, le);
		return;
	}
	/* Compare only within the line: the last one may be shorter than the key. */
	size_t ll = (size_t)(le - line);
	if ((ll >= 13 && !memcmp(line, "Shared_Dirty:", 13)) || (ll >= 14 && !memcmp(line, "Private_Dirty:", 14))) {
		p = (const char *)memchr(line, ':', ll) + 1;
		while (p < le && *p == ' ')
			p++;
		if (m->dirty_kb < 0)
			m->dirty_kb = 0;
		m->dirty_kb += (long)dec(&p, le);
	}
}

/* A mapping header starts with a hex digit and has a '-' before the first
 * space; smaps field lines start with a capital key and a ':'. */
static bool is_header(const char *line, const char *le)
{
	const char *sp = memchr(line, ' ', (size_t)(le - line));
	const char *dash = memchr(line, '-', (size_t)(le - line));
	return dash && sp && dash < sp && ((*line >= '0' && *line <= '9') || (*line >= 'a' && *line <= 'f'));
}

int proc_maps_parse(const char *buf, size_t len, bool smaps, struct proc_maps *out)
{
	char *p, *end;

	out->n = 0;
	out->smaps = smaps;
	if (out->text_cap < len + 1) {
		char *nt = realloc(out->text, len + 1);
		if (!nt)
			return -ENOMEM;
		out->text = nt;
		out->text_cap = len + 1;
	}
	memcpy(out->text, buf, len);
	out->text[len] = '\0';
	p = out->text;
	end = p + len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *le = nl ? nl : end;
		if (le == p) {
			p = le + 1;
			continue;
		}
		if (!smaps || is_header(p, le)) {
			if (out->n == out->cap) {
				size_t nc = out->cap ? out->cap * 2 : 256;
				struct proc_map *nv = realloc(out->v, nc * sizeof(*nv));
				if (!nv)
					return -ENOMEM;
				out->v = nv;
				out->cap = nc;
			}
			if (parse_map_line(p, le, &out->v[out->n]) < 0)
				return -EINVAL;
			out->n++;
		} else if (out->n) {
			parse_smaps_field(p, le, &out->v[out->n - 1]);
		}
		p = le + 1;
	}
	return 0;
}

int proc_maps_copy(const struct proc_maps *from, struct proc_maps *to)
{
	memset(to, 0, sizeof(*to));
	to->smaps = from->smaps;
	to->v = malloc((from->n ? from->n : 1) * sizeof(*to->v));
	to->text = malloc(from->text_cap ? from->text_cap : 1);
	if (!to->v || !to->text) {
		proc_maps_free(to);
		return -ENOMEM;
	}
	to->n = to->cap = from->n;
	to->text_cap = from->text_cap ? from->text_cap : 1;
	if (from->text_cap)
		memcpy(to->text, from->text, from->text_cap);
	for (size_t i = 0; i < from->n; i++) {
		to->v[i] = from->v[i];
		to->v[i].path = to->text + (from->v[i].path - from->text);
	}
	return 0;
}

int proc_maps_read(int dirfd, bool smaps, struct proc_maps *out)
{
	ssize_t n = read_file_alloc_at(dirfd, smaps ? "smaps" : "maps", &out->io, &out->io_cap);
	if (n < 0)
		return (int)n;
	return proc_maps_parse(out->io, (size_t)n, smaps, out);
}

const struct proc_map *proc_maps_find(const struct proc_maps *m, unsigned long long addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (addr < m->v[mid].start)
			hi = mid;
		else if (addr >= m->v[mid].end)
			lo = mid + 1;
		else
			return &m->v[mid];
	}
	return NULL;
}

const char *proc_map_name(const struct proc_map *m)
{
	return m->path[0] ? m->path : "[anon]";
}

static int cmp_name(const void *a, const void *b)
{
	const struct proc_map *const *x = a, *const *y = b;
	return strcmp(proc_map_name(*x), proc_map_name(*y));
}

static int cmp_size(const void *a, const void *b)
{
	const struct proc_map_agg *x = a, *y = b;
	if (x->size_kb != y->size_kb)
		return x->size_kb < y->size_kb ? 1 : -1;
	return strcmp(x->path, y->path);
}

static void add_kb(long *sum, long v)
{
	if (v >= 0)
		*sum = (*sum < 0 ? 0 : *sum) + v;
}

int proc_maps_aggregate(const struct proc_maps *m, struct proc_map_agg **out, size_t *n)
{
	const struct proc_map **idx = malloc((m->n ? m->n : 1) * sizeof(*idx));
	struct proc_map_agg *agg = malloc((m->n ? m->n : 1) * sizeof(*agg));
	size_t k = 0;

	if (!idx || !agg) {
		free(idx);
		free(agg);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->n; i++)
		idx[i] = &m->v[i];
	sort_array(idx, m->n, sizeof(*idx), cmp_name);
	for (size_t i = 0; i < m->n; i++) {
		const struct proc_map *p = idx[i];
		const char *name = proc_map_name(p);
		if (!k || strcmp(agg[k - 1].path, name)) {
			agg[k] = (struct proc_map_agg){ .path = name, .rss_kb = -1, .pss_kb = -1, .swap_kb = -1, .dirty_kb = -1 };
			k++;
		}
		struct proc_map_agg *a = &agg[k - 1];
		a->count++;
		a->size_kb += (p->end - p->start) / 1024;
		add_kb(&a->rss_kb, p->rss_kb);
		add_kb(&a->pss_kb, p->pss_kb);
		add_kb(&a->swap_kb, p->swap_kb);
		add_kb(&a->dirty_kb, p->dirty_kb);
	}
	free(idx);
	sort_array(agg, k, sizeof(*agg), cmp_size);
	*out = agg;
	*n = k;
	return 0;
}

void proc_maps_free(struct proc_maps *m)
{
	free(m->v);
	free(m->text);
	free(m->io);
	memset(m, 0, sizeof(*m));
}
