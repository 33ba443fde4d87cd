/* Memory mappings: /proc/PID/maps, and /proc/PID/smaps for per-mapping
 * Rss/Pss/Swap (expensive: walks page tables; read on demand only). */
#ifndef PS_PROC_MAPS_H
#define PS_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>

struct proc_map {
	unsigned long long start, end, offset;
	char perms[5];             /* "r-xp" */
	unsigned dev_major, dev_minor;
	unsigned long long inode;
	const char *path;          /* into the list's text; "" for anonymous */
	bool deleted;              /* path ends in " (deleted)" */
	/* From smaps only (kB); -1 when not read. */
	long rss_kb, pss_kb, swap_kb, dirty_kb;
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
/* Read maps or smaps relative to a /proc/PID dirfd. */
int proc_maps_read(int dirfd, bool smaps, struct proc_maps *out);
/* "[heap]", "/usr/lib/libc.so.6", "[anon]" for an empty path. */
const char *proc_map_name(const struct proc_map *m);
/* Aggregate by name, largest size first; *out malloc'd (paths borrow from m). */
int proc_maps_aggregate(const struct proc_maps *m, struct proc_map_agg **out, size_t *n);
void proc_maps_free(struct proc_maps *m);

#endif
