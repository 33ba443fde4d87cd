#include "core/maps.h"
#include "i18n.h"
#include "proc/maps.h"
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

static uint64_t kb(long v)
{
	return v > 0 ? (uint64_t)v * 1024 : 0;
}

/* The one maps parser reads the text; this keeps what the core needs. */
int core_maps_parse(const char *buf, size_t len, struct core_maps *out)
{
	struct proc_maps pm = { 0 };
	int r = proc_maps_parse(buf, len, true, &pm);

	memset(out, 0, sizeof(*out));
	if (r < 0) {
		proc_maps_free(&pm);
		return r;
	}
	out->v = calloc(pm.n ? pm.n : 1, sizeof(*out->v));
	if (!out->v) {
		proc_maps_free(&pm);
		return -ENOMEM;
	}
	out->cap = pm.n ? pm.n : 1;
	for (size_t i = 0; i < pm.n; i++) {
		const struct proc_map *p = &pm.v[i];
		struct core_map *m = &out->v[out->n];
		m->start = p->start;
		m->end = p->end;
		m->offset = p->offset;
		m->r = p->perms[0] == 'r';
		m->w = p->perms[1] == 'w';
		m->x = p->perms[2] == 'x';
		m->shared = p->perms[3] == 's';
		m->dev_major = p->dev_major;
		m->dev_minor = p->dev_minor;
		m->inode = p->inode;
		m->rss = kb(p->rss_kb);
		m->anon = kb(p->anon_kb);
		m->swap = kb(p->swap_kb);
		m->vmflags = p->vmflags;
		m->path = strdup(p->path);
		if (!m->path) {
			proc_maps_free(&pm);
			core_maps_free(out);
			return -ENOMEM;
		}
		out->n++;
	}
	proc_maps_free(&pm);
	return 0;
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
		m->why = _("kernel gate page");
		return;
	}
	if (all || !strcmp(m->path, "[vdso]")) {
		m->how = CORE_DUMP_WHOLE;
		return;
	}
	m->how = CORE_DUMP_NONE;
	if (m->vmflags & CORE_VMF_DD) {
		m->why = _("excluded by the process (VM_DONTDUMP)");
		return;
	}
	if (m->vmflags & CORE_VMF_HT) {
		if (filter & (shared ? CORE_FILTER_HUGETLB_SHARED : CORE_FILTER_HUGETLB_PRIVATE))
			m->how = CORE_DUMP_WHOLE;
		else
			m->why = _("hugetlb memory (coredump_filter)");
		return;
	}
	if (m->vmflags & (CORE_VMF_IO | CORE_VMF_PF)) {
		m->why = _("device or special memory (VM_IO)");
		return;
	}
	if (shared) {
		if (filter & (anon_shared(m) ? CORE_FILTER_ANON_SHARED : CORE_FILTER_MAPPED_SHARED))
			m->how = CORE_DUMP_WHOLE;
		else
			m->why = _("shared mapping (coredump_filter)");
		return;
	}
	/* Private: the kernel dumps it when it has anonymous pages (anon_vma). */
	if ((m->anon || m->swap) && (filter & CORE_FILTER_ANON_PRIVATE)) {
		m->how = CORE_DUMP_WHOLE;
		return;
	}
	if (!core_map_is_file(m)) {
		m->why = (m->anon || m->swap) ? _("private memory (coredump_filter)") : _("never written");
		return;
	}
	if (filter & CORE_FILTER_MAPPED_PRIVATE) {
		m->how = CORE_DUMP_WHOLE;
		return;
	}
	if ((filter & CORE_FILTER_ELF_HEADERS) && m->offset == 0 && m->r) {
		m->how = CORE_DUMP_HEADER;
		m->why = _("unchanged file data: ELF header page only");
		return;
	}
	m->why = _("unchanged file data (coredump_filter)");
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
