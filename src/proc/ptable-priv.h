/* Shared by ptable.c, ptable-order.c and ptable-extra.c only. */
#ifndef PS_PROC_PTABLE_PRIV_H
#define PS_PROC_PTABLE_PRIV_H

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
	int *hash;                 /* open addressing: row index + 1, 0 = empty */
	size_t hcap;
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
int ptable_hash_rebuild_(struct ptable *pt);
long ptable_hash_find_(const struct ptable *pt, pid_t pid);
int ptable_hash_add_(struct ptable *pt, size_t idx);

/* The held /proc dirfd and the scan generation. */
int ptable_dirfd_(const struct ptable *pt);
unsigned ptable_gen_(const struct ptable *pt);

#endif
