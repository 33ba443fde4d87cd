/* Memory mappings: /proc/PID/maps, and /proc/PID/smaps for per-mapping
 * Rss/Pss/Swap/Anonymous and VmFlags (expensive: walks page tables; read
 * on demand only). The one maps parser: the maps pane, the stack dump, the
 * symbolizer, the sampler and the core writer all read mappings here. */
#ifndef PS_PROC_MAPS_H
#define PS_PROC_MAPS_H

#include "reads.h"

#include <stdbool.h>
#include <stddef.h>

/* VmFlags of interest (smaps "VmFlags:" two-letter codes). */
enum {
	PROC_VMF_DD = 1u << 0,   /* dd: VM_DONTDUMP (MADV_DONTDUMP) */
	PROC_VMF_IO = 1u << 1,   /* io: VM_IO, device memory */
	PROC_VMF_HT = 1u << 2,   /* ht: hugetlb */
	PROC_VMF_SH = 1u << 3,   /* sh: VM_SHARED */
	PROC_VMF_PF = 1u << 4,   /* pf: VM_PFNMAP */
	PROC_VMF_DC = 1u << 5,   /* dc: VM_DONTCOPY (MADV_DONTFORK): not in a fork child */
	PROC_VMF_WF = 1u << 6,   /* wf: VM_WIPEONFORK: zeros in a fork child */
};

struct proc_map {
	unsigned long long start, end, offset;
	char perms[5];             /* "r-xp" */
	unsigned dev_major, dev_minor;
	unsigned long long inode;
	const char *path;          /* into the list's text; "" for anonymous */
	bool deleted;              /* path ends in " (deleted)" */
	/* From smaps only (kB); -1 when not read. */
	long rss_kb, pss_kb, swap_kb, dirty_kb, anon_kb;
	unsigned vmflags;          /* PROC_VMF_*, from smaps */
};

struct proc_maps {
	struct proc_map *v;
	size_t n, cap;
	char *text;                /* parser's copy of the file, paths point here */
	size_t text_cap;
	bool smaps;                /* Rss/Pss/Swap filled */
	char *io;                  /* reader buffer */
	size_t io_cap;
};

/* One line per file (or [heap], [stack], [anon]...): like pmap -x totals. */
struct proc_map_agg {
	const char *path;          /* "[anon]" for anonymous mappings */
	size_t count;
	unsigned long long size_kb;
	long rss_kb, pss_kb, swap_kb, dirty_kb; /* -1 without smaps */
};

/* Parse the text of maps (smaps=false) or smaps (smaps=true). The list keeps
 * its own copy of the text. Returns 0 or -EINVAL/-ENOMEM. */
int proc_maps_parse(const char *buf, size_t len, bool smaps, struct proc_maps *out);
/* A deep copy (paths point into the copy's text). Returns 0 or -ENOMEM. */
int proc_maps_copy(const struct proc_maps *from, struct proc_maps *to);
/* Read maps or smaps relative to a /proc/PID dirfd. */
PS_READS int proc_maps_read(int dirfd, bool smaps, struct proc_maps *out);
/* The mapping holding addr (binary search; the list is sorted), or NULL. */
const struct proc_map *proc_maps_find(const struct proc_maps *m, unsigned long long addr);
/* "[heap]", "/usr/lib/libc.so.6", "[anon]" for an empty path. */
const char *proc_map_name(const struct proc_map *m);
/* Aggregate by name, largest size first; *out malloc'd (paths borrow from m). */
int proc_maps_aggregate(const struct proc_maps *m, struct proc_map_agg **out, size_t *n);
void proc_maps_free(struct proc_maps *m);

#endif
