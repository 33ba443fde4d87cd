/* Snapshots: what a source read at one instant, as plain immutable data
 * with its time stamp. A screen draws the newest one it was sent; a rate
 * (CPU%, bytes/s) or an age ("closed 3 s ago") is computed from two of
 * them, by the pure functions here, never from a clock read while
 * drawing. A snapshot is reference counted: the source keeps the last
 * one it made (the next one's rates are made against it) while the screen
 * draws it; neither changes it after it was posted. A recording writes
 * them and a replay makes them again (see src/source/source.h). */
#ifndef PS_SOURCE_SNAP_H
#define PS_SOURCE_SNAP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/ptable.h"
#include "proc/sysinfo.h"

/* What every snapshot starts with. */
struct snap_head {
	atomic_int refs;
	unsigned seq;              /* 1, 2, ... per source job */
	uint64_t t_ns;             /* when it was read: the source's clock, for rates */
	double wall;               /* the same instant in seconds since 1970, for people */
	void (*free)(struct snap_head *h);
};

struct snap_head *snap_get(struct snap_head *h);
/* Drop a reference (NULL is fine); the last one frees it. */
void snap_put(struct snap_head *h);
/* For a ring payload: snap_put. */
void snap_put_void(void *h);

/* The process list at one instant: every row (with thread rows when
 * asked), the PX_* extras read for the rows on screen (or for all when
 * sorted by one), the counts and the system meters. One allocation. */
struct snap_list {
	struct snap_head h;
	double interval;           /* seconds the rates cover, 0: no rates yet */
	bool threads;              /* thread rows are in */
	struct proc_times times;   /* hz, boot time, and h.wall */
	struct proc_row *rows;
	size_t n;
	struct pid_index ix;       /* pid -> row */
	struct ptable_counts counts;
	bool have_sys;
	struct sys_snapshot sys;
};

/* The table as it is now (and the meters, NULL: none), copied into one
 * block: rows, extras, the meters' CPU arrays and every string. No rates
 * yet (snap_list_rates). NULL when out of memory. */
struct snap_list *snap_list_of(struct ptable *pt, bool threads, uint64_t t_ns, double wall,
			      const struct sys_snapshot *sys);
/* pid's row, NULL if none. */
const struct proc_row *snap_list_find(const struct snap_list *s, pid_t pid);
/* The rows in display order (see proc_rows_order). */
int snap_list_order(const struct snap_list *s, enum proc_sort key, bool desc, bool tree,
		    bool (*keep)(const struct proc_row *r, void *arg), void *arg, struct proc_view *out);

/* The rates of cur from prev (NULL: none yet): each row's CPU% and its
 * extras' bytes/s and switches/s from the same process's counters in prev
 * (matched by pid and start time) over the time between their reads; a
 * counter not read again since prev keeps prev's rate; a row new since
 * prev has none. The meters' CPU usage likewise. Pure: nothing is read. */
void snap_list_rates(const struct snap_list *prev, struct snap_list *cur);

#endif
