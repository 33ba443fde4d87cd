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

#include "error.h"
#include "pane/pane.h"
#include "proc/fd.h"
#include "proc/info.h"
#include "proc/maps.h"
#include "proc/net.h"
#include "proc/ptable.h"
#include "proc/rollup.h"
#include "proc/sysinfo.h"
#include "proc/task.h"
#include "stack/stack.h"
#include "source/hist.h"
#include "target.h"

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

#define SNAP_REC_PATH 512           /* a recording's path the live list writes */

/* The process list at one instant: every row (with thread rows when
 * asked), the PX_* extras read for the rows on screen (or for all when
 * sorted by one), the counts and the system meters. One allocation. */
struct snap_list {
	struct snap_head h;
	double interval;           /* seconds the rates cover, 0: no rates yet */
	bool threads;              /* thread rows are in */
	struct proc_times times;   /* hz, boot time, and h.wall */
	const struct proc_row **rows; /* shared with the table, and with the
				    * snapshot before when they did not change */
	size_t n;
	struct ptable_users *users; /* the user names the rows point into */
	struct pid_index ix;       /* pid -> row */
	struct ptable_counts counts;
	bool have_sys;
	struct sys_snapshot sys;
	/* A recorded interval (the replay source): which of how many, the
	 * recording's first and last times, what its reader found. */
	struct snap_rec {
		bool on;
		size_t i, n;
		double start, end;
		bool torn, unclosed, scanned;
		bool exits_on;     /* short-lived processes were recorded */
	} rec;
	/* The live list recording itself (the list screen's R): where, how
	 * far; err: why it stopped ("" while on). */
	struct snap_live_rec {
		bool on, exits;    /* exits: short-lived processes recorded too */
		unsigned frames;
		unsigned long long bytes;
		char path[SNAP_REC_PATH];
		char err[SNAP_REC_PATH + 160];
	} live_rec;
	/* Processes that started and exited since the snapshot before (a
	 * recording's, from taskstats exit messages): malloc'ed, freed with
	 * the list. */
	struct snap_exit {
		pid_t pid, ppid;
		uid_t uid;
		double start, end;     /* seconds since 1970 */
		double cpu;            /* seconds of CPU, user + system */
		int status;            /* the wait status: code << 8 | signal */
		char comm[33];         /* hostile */
	} *exits;
	size_t nexits;
	/* Each row's CPU% over its last HIST_LEN ticks, rows[i]'s at
	 * cpu_hist[i * HIST_LEN], oldest first, NaN before it was seen; NULL
	 * unless a column or the sort wants it (PX_HIST). Kept by the source,
	 * copied: the snapshot stays immutable. */
	float *cpu_hist;
	/* The meters' history: each CPU's busy share (0..1) over the last
	 * HIST_LEN ticks, cpu meter k at meter_hist[k * HIST_LEN], the
	 * average of all at [sys.ncpu * HIST_LEN]; then memory used and swap
	 * used (0..1). NULL without meters. */
	float *meter_hist;
};
/* The meter_hist rows after the CPUs': the average, memory, swap. */
enum { SNAP_METER_AVG, SNAP_METER_MEM, SNAP_METER_SWAP, SNAP_METER_EXTRA };
/* rows[i]'s CPU% history (HIST_LEN values), NULL when not kept. */
static inline const float *snap_list_hist(const struct snap_list *s, size_t i)
{
	return s->cpu_hist && i < s->n ? s->cpu_hist + i * HIST_LEN : NULL;
}

/* The table as it is now (and the meters, NULL: none): its rows shared
 * (the table writes a copy of a row a snapshot holds), the meters' CPU
 * arrays copied. No rates yet (snap_list_rates). NULL when out of
 * memory. */
struct snap_list *snap_list_of(struct ptable *pt, bool threads, uint64_t t_ns, double wall,
			      const struct sys_snapshot *sys);
/* An empty list of room for n rows and ncpu CPUs (sys.ncpu set, its
 * arrays zeroed), held once, no rows yet (n 0), no user names: for a
 * snapshot made again from a recording (src/record/). Fill rows[] (each
 * row held once, freed with the list), n, users, the rest, then
 * snap_list_index(). NULL when out of memory. */
struct snap_list *snap_list_alloc(size_t n, int ncpu);
/* (Re)build the pid index of s's rows: 0 or -ENOMEM. */
int snap_list_index(struct snap_list *s);
/* pid's row, NULL if none. */
const struct proc_row *snap_list_find(const struct snap_list *s, pid_t pid);
/* The rows in display order (see proc_rows_order). */
int snap_list_order(const struct snap_list *s, enum proc_sort key, bool desc, bool tree,
		    bool (*keep)(const struct proc_row *r, void *arg), void *arg, struct proc_view *out);

/* The rates of cur from prev (NULL: none yet): each row's CPU% and its
 * extras' bytes/s and switches/s from the same process's counters in prev
 * (matched by pid and start time) over the time between their reads; a
 * counter not read again since prev keeps prev's rate (a row prev shares
 * is left as it is); a row new since prev has none. The meters' CPU usage
 * likewise. Pure: nothing is read. cur is the snapshot the table was just
 * made into (prev the one made before it). */
void snap_list_rates(const struct snap_list *prev, struct snap_list *cur);

/* ---- one process ---- */

/* The FDs pane's read: every fd (by number), the fdinfo of those on
 * screen (or of all), and the sockets they name. */
struct snap_fds {
	struct proc_fd *v;
	size_t n;
	size_t count[FDT_COUNT];
	struct proc_net net;       /* only the sockets of v */
};

/* The Threads pane's read: every thread with its rates since the
 * previous read, and the lock each one in futex() waits on. */
struct snap_threads {
	struct proc_thread *v;
	size_t n;
	double when;               /* the read's time, seconds (the rates' clock) */
	struct stk_wait_lock *locks; /* one per thread; addr 0: none */
	/* Each thread's CPU% over the pane's last HIST_LEN reads (v[i]'s at
	 * cpu_hist[i * HIST_LEN], oldest first, NaN before the thread was
	 * seen; NULL out of memory). The source keeps the history while the
	 * pane is shown (it is read only then). */
	float *cpu_hist;
};

/* One pane's data as read at one instant (a pane is read at its own
 * interval, so snapshots share it until it is read again), or why it
 * could not be read. Reference counted, immutable once made. */
struct pane_data {
	atomic_int refs;
	enum pane_id id;
	uint64_t t_ns;             /* when it was read */
	bool more;                 /* the same read as the previous one, with more
				    * in it (fdinfo of fds scrolled into view) */
	int err;                   /* 0, or -errno */
	struct ps_error e;         /* err: the door sentence */
	union {
		struct snap_fds fd;
		struct proc_maps maps;
		struct proc_rollup mem;
		struct snap_threads threads;
	} u;
};
struct pane_data *pane_data_new(enum pane_id id, uint64_t t_ns);
struct pane_data *pane_data_get(struct pane_data *d);
void pane_data_put(struct pane_data *d);

/* One process at one instant: the header (stat, status and the extras)
 * read on every tick with its rates, the whole command line, and the
 * newest read of each pane. Once the process is gone (exited, exec'd,
 * its PID reused) the last data stays, frozen, with why. A core file is
 * one process at one instant too: then core holds what only a core has. */
struct snap_proc {
	struct snap_head h;
	struct target_id id;
	struct proc_info info;
	uint64_t info_ns;          /* when info was read (a new one: a new tick) */
	struct proc_info_rates rates; /* since the previous read of info */
	bool have_rates;
	char *cmdline;             /* the whole command line; NULL: not read */
	bool frozen;
	char frozen_msg[256];
	struct ps_error cwd_err, exe_err; /* why cwd and exe are unreadable ("") */
	struct pane_data *pane[PANE_COUNT];
	struct snap_core *core;    /* a core's stacks and files (core.c), or NULL */
	char note[256];            /* about the whole snapshot ("" none): the core
				    * file was replaced since it was read */
};
/* A new snapshot of the same process carrying last's data (a reference
 * to each pane's), to be read into; NULL when out of memory. */
struct snap_proc *snap_proc_next(const struct snap_proc *last);
/* The core part of a process snapshot (src/source/core.c): the core read,
 * its stacks and its map. */
struct core_view;
struct snap_core *snap_core_get(struct snap_core *c);
void snap_core_put(struct snap_core *c);
struct core_view *snap_core_view(const struct snap_core *c);

#endif
