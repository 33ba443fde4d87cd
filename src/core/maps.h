/* The mappings of a process as the core writer sees them: a pure parser of
 * /proc/PID/smaps and the kernel's rule for what a core holds
 * (fs/binfmt_elf.c vma_dump_size: coredump_filter bits, VM_DONTDUMP,
 * VM_IO, hugetlb, shared vs private, written-to vs pristine). */
#ifndef PS_CORE_MAPS_H
#define PS_CORE_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/maps.h"

/* VmFlags of interest: the maps parser's (src/proc/maps.h). */
enum {
	CORE_VMF_DD = PROC_VMF_DD,
	CORE_VMF_IO = PROC_VMF_IO,
	CORE_VMF_HT = PROC_VMF_HT,
	CORE_VMF_SH = PROC_VMF_SH,
	CORE_VMF_PF = PROC_VMF_PF,
	CORE_VMF_DC = PROC_VMF_DC,
	CORE_VMF_WF = PROC_VMF_WF,
};

/* /proc/PID/coredump_filter bits (core(5)). */
enum {
	CORE_FILTER_ANON_PRIVATE = 1u << 0,
	CORE_FILTER_ANON_SHARED = 1u << 1,
	CORE_FILTER_MAPPED_PRIVATE = 1u << 2,
	CORE_FILTER_MAPPED_SHARED = 1u << 3,
	CORE_FILTER_ELF_HEADERS = 1u << 4,
	CORE_FILTER_HUGETLB_PRIVATE = 1u << 5,
	CORE_FILTER_HUGETLB_SHARED = 1u << 6,
};
#define CORE_FILTER_DEFAULT 0x33u

enum core_dump_how {
	CORE_DUMP_NONE,     /* PT_LOAD with p_filesz 0 */
	CORE_DUMP_WHOLE,
	CORE_DUMP_HEADER,   /* first page, if it holds an ELF header */
	CORE_DUMP_OMIT,     /* no PT_LOAD at all ([vsyscall]: not a real mapping) */
};

struct core_map {
	uint64_t start, end, offset;
	bool r, w, x, shared;
	unsigned dev_major, dev_minor;
	uint64_t inode;
	char *path;                 /* "" for anonymous; hostile; malloc'd */
	uint64_t rss, anon, swap;   /* bytes (smaps Rss, Anonymous, Swap) */
	unsigned vmflags;           /* CORE_VMF_* */
	/* The decision (core_maps_decide). */
	enum core_dump_how how;
	const char *why;            /* why not (or only partly) dumped; static text */
};

struct core_maps {
	struct core_map *v;
	size_t n, cap;
};

/* Parse the text of /proc/PID/smaps (or maps: then sizes stay 0) with
 * proc_maps_parse and keep what the core writer needs.
 * Returns 0 or -EINVAL / -ENOMEM. */
int core_maps_parse(const char *buf, size_t len, struct core_maps *out);
void core_maps_free(struct core_maps *m);

/* A file-backed mapping (the path names a file, not [heap] & co). */
bool core_map_is_file(const struct core_map *m);

/* Decide how each mapping goes into the core: the kernel's rule for the
 * given coredump_filter, or everything when all is set. */
void core_maps_decide(struct core_maps *m, unsigned filter, bool all);

/* Bytes the PT_LOAD of m would hold (before unreadable pages are found). */
uint64_t core_map_dump_bytes(const struct core_map *m, uint64_t page);
/* Expected disk use of those bytes: zero pages become holes, so for
 * anonymous memory the resident + swapped size, for file data the size. */
uint64_t core_map_disk_bytes(const struct core_map *m, uint64_t page);

#endif
