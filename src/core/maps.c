#include "core/maps.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void core_maps_free(struct core_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* "start-end perms offset maj:min inode   path" */
static int parse_header(const char *l, size_t len, struct core_map *m)
{
	char perms[8] = "";
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	int n = 0;
	char line[512];
	size_t cl = len < sizeof(line) - 1 ? len : sizeof(line) - 1;

	/* The fixed fields fit in the first 100 bytes; the path is taken from l. */
	memcpy(line, l, cl);
	line[cl] = '\0';
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min, &ino,
		   &n) < 7 || end < start || strlen(perms) < 4)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->offset = off;
	m->dev_major = maj;
	m->dev_minor = min;
	m->inode = ino;
	m->r = perms[0] == 'r';
	m->w = perms[1] == 'w';
	m->x = perms[2] == 'x';
	m->shared = perms[3] == 's';
	/* %n stops after the spaces; with no path it may point at the end. */
	size_t p = (size_t)n <= cl ? (size_t)n : cl;
	m->path = strndup(l + p, len - p);
	if (!m->path)
		return -ENOMEM;
	return 0;
}

static uint64_t kb_field(const char *l, size_t len, size_t keylen)
{
	char tmp[64];

	copy_cstr(tmp, sizeof(tmp), l + keylen, len - keylen);
	return strtoull(tmp, NULL, 10) * 1024;
}

static unsigned parse_vmflags(const char *l, size_t len)
{
	static const struct {
		char code[3];
		unsigned bit;
	} codes[] = {
		{ "dd", CORE_VMF_DD }, { "io", CORE_VMF_IO }, { "ht", CORE_VMF_HT },
		{ "sh", CORE_VMF_SH }, { "pf", CORE_VMF_PF }, { "dc", CORE_VMF_DC }, { "wf", CORE_VMF_WF },
	};
	unsigned f = 0;

	for (size_t i = 0; i + 1 < len; i++) {
		if (l[i] == ' ' || (i > 0 && l[i - 1] != ' '))
			continue;
		if (i + 2 < len && l[i + 2] != ' ' && l[i + 2] != '\n')
			continue;
		for (size_t c = 0; c < sizeof(codes) / sizeof(codes[0]); c++)
			if (l[i] == codes[c].code[0] && l[i + 1] == codes[c].code[1])
				f |= codes[c].bit;
	}
	return f;
}

#define KEY(s) (ll > sizeof(s) - 1 && !memcmp(l, s, sizeof(s) - 1))

int core_maps_parse(const char *buf, size_t len, struct core_maps *out)
{
	const char *p = buf, *end = buf + len;
	struct core_map *cur = NULL;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *l = p;
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);

		p = nl ? nl + 1 : end;
		if (!ll)
			continue;
		if (is_hex(l[0])) {
			if (array_reserve((void **)&out->v, &out->cap, out->n, sizeof(*out->v), 64) < 0)
				goto nomem;
			int r = parse_header(l, ll, &out->v[out->n]);
			if (r == -ENOMEM)
				goto nomem;
			if (r < 0) {
				core_maps_free(out);
				return -EINVAL;
			}
			cur = &out->v[out->n++];
		} else if (!cur) {
			continue;
		} else if (KEY("Rss:")) {
			cur->rss = kb_field(l, ll, 4);
		} else if (KEY("Anonymous:")) {
			cur->anon = kb_field(l, ll, 10);
		} else if (KEY("Swap:")) {
			cur->swap = kb_field(l, ll, 5);
		} else if (KEY("VmFlags:")) {
			cur->vmflags = parse_vmflags(l + 8, ll - 8);
		}
	}
	return 0;
nomem:
	core_maps_free(out);
	return -ENOMEM;
}

bool core_map_is_file(const struct core_map *m)
{
	return m->path[0] == '/';
}

/* Shared memory whose file has no name left (the kernel's i_nlink == 0):
 * MAP_SHARED|MAP_ANONYMOUS, SysV shm, memfd, deleted files. */
static bool anon_shared(const struct core_map *m)
{
	size_t l = strlen(m->path);
	static const char deleted[] = " (deleted)";

	if (!core_map_is_file(m))
		return true;
	if (!strncmp(m->path, "/SYSV", 5) || !strncmp(m->path, "/memfd:", 7))
		return true;
	return l >= sizeof(deleted) - 1 && !strcmp(m->path + l - (sizeof(deleted) - 1), deleted);
}

static void decide(struct core_map *m, unsigned filter, bool all)
{
	bool shared = m->shared || (m->vmflags & CORE_VMF_SH);

	m->why = NULL;
	if (!strcmp(m->path, "[vsyscall]")) {
		m->how = CORE_DUMP_OMIT;
		m->why = "kernel gate page";
		return;
	}
	if (all || !strcmp(m->path, "[vdso]")) {
		m->how = CORE_DUMP_WHOLE;
		return;
	}
	m->how = CORE_DUMP_NONE;
	if (m->vmflags & CORE_VMF_DD) {
		m->why = "excluded by the process (VM_DONTDUMP)";
		return;
	}
	if (m->vmflags & CORE_VMF_HT) {
		if (filter & (shared ? CORE_FILTER_HUGETLB_SHARED : CORE_FILTER_HUGETLB_PRIVATE))
			m->how = CORE_DUMP_WHOLE;
		else
			m->why = "hugetlb memory (coredump_filter)";
		return;
	}
	if (m->vmflags & (CORE_VMF_IO | CORE_VMF_PF)) {
		m->why = "device or special memory (VM_IO)";
		return;
	}
	if (shared) {
		if (filter & (anon_shared(m) ? CORE_FILTER_ANON_SHARED : CORE_FILTER_MAPPED_SHARED))
			m->how = CORE_DUMP_WHOLE;
		else
			m->why = "shared mapping (coredump_filter)";
		return;
	}
	/* Private: the kernel dumps it when it has anonymous pages (anon_vma). */
	if ((m->anon || m->swap) && (filter & CORE_FILTER_ANON_PRIVATE)) {
		m->how = CORE_DUMP_WHOLE;
		return;
	}
	if (!core_map_is_file(m)) {
		m->why = (m->anon || m->swap) ? "private memory (coredump_filter)" : "never written";
		return;
	}
	if (filter & CORE_FILTER_MAPPED_PRIVATE) {
		m->how = CORE_DUMP_WHOLE;
		return;
	}
	if ((filter & CORE_FILTER_ELF_HEADERS) && m->offset == 0 && m->r) {
		m->how = CORE_DUMP_HEADER;
		m->why = "unchanged file data: ELF header page only";
		return;
	}
	m->why = "unchanged file data (coredump_filter)";
}

void core_maps_decide(struct core_maps *m, unsigned filter, bool all)
{
	for (size_t i = 0; i < m->n; i++)
		decide(&m->v[i], filter, all);
}

uint64_t core_map_dump_bytes(const struct core_map *m, uint64_t page)
{
	switch (m->how) {
	case CORE_DUMP_WHOLE:
		return m->end - m->start;
	case CORE_DUMP_HEADER:
		return m->end - m->start < page ? m->end - m->start : page;
	default:
		return 0;
	}
}

uint64_t core_map_disk_bytes(const struct core_map *m, uint64_t page)
{
	uint64_t b = core_map_dump_bytes(m, page);

	if (m->how == CORE_DUMP_WHOLE && (!core_map_is_file(m) || !strcmp(m->path, "[vdso]")) && !m->shared) {
		uint64_t res = m->rss + m->swap;
		if (res < b)
			b = res;
	}
	return b;
}
