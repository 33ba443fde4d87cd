/* Shared by ptable.c, ptable-row.c, ptable-order.c and ptable-extra.c only. */
#ifndef PS_PROC_PTABLE_PRIV_H
#define PS_PROC_PTABLE_PRIV_H

#include "hmap.h"
#include "proc/ptable.h"
#include "proc/sysinfo.h"

#include <dirent.h>
#include <stdint.h>

struct user_ent {
	uid_t uid;
	char name[33];
};

struct ptable {
	struct proc_row *rows;
	size_t n, cap;
	struct hmap hash;          /* pid -> row index */
	DIR *proc;
	unsigned gen;
	uint64_t last_ns;
	double interval;
	long hz, page_kb;
	unsigned long long mem_total_kb;
	int nfds, maxfds;          /* held stat fds and the list's fd budget */
	unsigned fd_misses;        /* reads by path this scan for want of budget */
	struct user_ent **users;
	size_t nusers;
	struct ptable_counts counts;
	/* the lazy scan (ptable_scan) */
	bool lazy, have_busy, have_la;
	unsigned lazy_period;      /* an idle row is read every lazy_period-th scan */
	unsigned long long busy_prev, accounted;
	struct sys_loadavg la;
	size_t nskipped;
	struct ptable_stats stats;
	unsigned long long btime;
};


/* ptable-index.c: the user name of uid (cached; "?" when out of memory);
 * the pid -> row hash: rebuilt (0 or -ENOMEM), looked up (row or -1),
 * row idx added. */
const char *ptable_user_name_(struct ptable *pt, uid_t uid);
/* ptable.c: every how many scans an idle process is re-read, for scans
 * interval seconds apart (about every 12 s). */
unsigned ptable_lazy_period_(double interval);
int ptable_hash_rebuild_(struct ptable *pt);
long ptable_hash_find_(const struct ptable *pt, pid_t pid);
int ptable_hash_add_(struct ptable *pt, size_t idx);

/* ptable-row.c: a row appended (zeroed, fd -1; NULL when out of memory);
 * a process seen for the first time (or its pid reused) read into r (0 or
 * -errno: gone); a known one read again (false: gone or pid reused); the
 * numbers of a parsed stat put in r; the held stat fds of the n rows read
 * least recently before `before` (ns) closed. */
struct proc_stat;
struct proc_row *ptable_row_append_(struct ptable *pt);
int ptable_row_open_(struct ptable *pt, struct proc_row *r, pid_t pid, const char *name, uint64_t now);
bool ptable_row_refresh_(struct ptable *pt, struct proc_row *r, const char *name, uint64_t now);
void ptable_row_from_stat_(struct ptable *pt, struct proc_row *r, const struct proc_stat *st,
			   unsigned long long prev_ticks, bool have_prev, uint64_t now);
void ptable_evict_lru_(struct ptable *pt, unsigned n, uint64_t before);

/* The held /proc dirfd and the scan generation. */
int ptable_dirfd_(const struct ptable *pt);
unsigned ptable_gen_(const struct ptable *pt);

#endif
