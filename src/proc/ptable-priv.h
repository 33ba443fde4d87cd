/* Shared by ptable.c, ptable-row.c, ptable-order.c and ptable-extra.c only. */
#ifndef PS_PROC_PTABLE_PRIV_H
#define PS_PROC_PTABLE_PRIV_H

#include "proc/ptable.h"
#include "proc/sysinfo.h"

#include <dirent.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"

struct user_ent {
	uid_t uid;
	char name[33];
};

/* The uid -> name cache, shared with the snapshots whose rows point into
 * it (the last one frees it). */
struct ptable_users {
	atomic_int refs;
	struct user_ent **v;
	size_t n;
};

/* What the table keeps about a row besides the row. */
struct ptable_priv {
	int fd;                    /* held /proc/PID/stat, or -1 */
	unsigned gen, shr_gen, skip_gen;
	unsigned extra_gen, cgroup_gen; /* scans x's reads were made in */
	unsigned extra_px;         /* the PX_* read in scan extra_gen */
	unsigned long long cticks; /* cutime + cstime: reaped children */
	unsigned char idle;        /* reads in a row without CPU time */
	unsigned char reads;       /* re-reads of stat, wrapping (when to check the owner) */
};

/* A row as the table holds it: reference counted, shared with the
 * snapshots made while it did not change (snap_list_of); the table
 * writes a row only while it holds it alone, else it writes a copy
 * (ptable_mut_). The private part is the table's alone: snapshots never
 * read it. */
struct ptable_obj {
	atomic_int refs;
	struct ptable_priv p;
	struct proc_row row;
};

static inline struct ptable_obj *ptable_obj_(const struct proc_row *r)
{
	return (struct ptable_obj *)(void *)((char *)(uintptr_t)r - offsetof(struct ptable_obj, row));
}

struct ptable {
	struct proc_row **rows;    /* each a struct ptable_obj's */
	size_t n, cap;
	struct pid_index ix;
	const struct ps_clock *clk;
	DIR *proc;
	unsigned gen;
	uint64_t last_ns;
	double interval;
	long hz, page_kb;
	unsigned long long mem_total_kb;
	int nfds, maxfds;          /* held stat fds and the list's fd budget */
	unsigned fd_misses;        /* reads by path this scan for want of budget */
	struct ptable_users *users;
	struct ptable_counts counts;
	/* the lazy scan (ptable_scan) */
	bool lazy, have_busy, have_la;
	bool eager;                /* every row read on every scan (ptable_set_eager) */
	unsigned lazy_period;      /* an idle row is read every lazy_period-th scan */
	unsigned long long busy_prev, accounted;
	struct sys_loadavg la;
	size_t nskipped;
	struct ptable_stats stats;
	unsigned long long btime;
};


/* The private state of row r. */
static inline struct ptable_priv *ptable_priv_(const struct ptable *pt, const struct proc_row *r)
{
	(void)pt;
	return &ptable_obj_(r)->p;
}

/* Row idx for writing: itself while the table alone holds it, else a copy
 * put in its place (the snapshots keep the old one). NULL when out of
 * memory (then the row is left as it is). */
struct proc_row *ptable_mut_(struct ptable *pt, size_t idx);

/* ptable-index.c: the user name of uid (cached; "?" when out of memory);
 * the row of pid (index, or -1). */
const char *ptable_user_name_(struct ptable *pt, uid_t uid);
/* ptable.c: every how many scans an idle process is re-read, for scans
 * interval seconds apart (about every 12 s). */
unsigned ptable_lazy_period_(double interval);
static inline long ptable_hash_find_(const struct ptable *pt, pid_t pid)
{
	return pid_index_find(&pt->ix, (const struct proc_row *const *)pt->rows, pid);
}

/* ptable-row.c: a row made (zeroed, fd -1, held by the table alone), a
 * row appended (the same; NULL when out of memory);
 * a process seen for the first time (or its pid reused) read into r (0 or
 * -errno: gone); a known one read again (false: gone or pid reused); the
 * numbers of a parsed stat put in r; the held stat fds of the n rows read
 * least recently before `before` (ns) closed. */
struct proc_stat;
struct proc_row *ptable_row_new_(void);
struct proc_row *ptable_row_append_(struct ptable *pt);
int ptable_row_open_(struct ptable *pt, struct proc_row *r, pid_t pid, const char *name, uint64_t now);
bool ptable_row_refresh_(struct ptable *pt, struct proc_row *r, const char *name, uint64_t now);
void ptable_row_from_stat_(struct ptable *pt, struct proc_row *r, const struct proc_stat *st, uint64_t now);
void ptable_evict_lru_(struct ptable *pt, unsigned n, uint64_t before);

/* The held /proc dirfd and the scan generation. */
int ptable_dirfd_(const struct ptable *pt);
unsigned ptable_gen_(const struct ptable *pt);

#endif
