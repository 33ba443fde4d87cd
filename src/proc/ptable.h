/* The process table behind the process list: one read of /proc/PID/stat per
 * process per refresh, CPU% from deltas, users from a uid cache, cmdline
 * read once per process, threads on demand, sorted or tree order. */
#ifndef PS_PROC_PTABLE_H
#define PS_PROC_PTABLE_H

#include "proc/cmdline.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "hmap.h"
#include "reads.h"

/* One row of the process list: plain data, the same in the table the
 * scan keeps and in the snapshots a source makes of it (src/source/),
 * which share the rows that did not change: the counters as read and,
 * filled by snap_list_rates() from two snapshots, the rates. A row the
 * table holds with a snapshot is never written again: the table writes a
 * copy. */
struct proc_row {
	pid_t pid;                 /* the TID for thread rows */
	pid_t tgid;                /* the process (== pid for process rows) */
	pid_t ppid;
	unsigned long long starttime;
	unsigned long long owner_start; /* thread rows: the process's start time */
	uid_t uid;                 /* owner of /proc/PID */
	const char *user;          /* name from the uid cache, never NULL */
	char state;
	bool is_thread;            /* a thread other than the main one */
	bool is_kthread;           /* kernel thread (PF_KTHREAD) */
	bool fresh;                /* first seen in the last scan */
	long priority, nice, nlwp;
	unsigned long long virt_kb, res_kb, shr_kb; /* shr_kb: see ptable_fill_shr */
	unsigned long long ticks;  /* utime + stime, clock ticks */
	uint64_t read_ns;          /* when ticks was read (the source's clock) */
	double cpu;                /* % of one CPU between two reads (a rate) */
	double mem;                /* % of MemTotal resident */
	int processor;
	pid_t pgrp, session;
	int tty_nr;                /* device number of the controlling terminal, 0: none */
	unsigned long majflt;
	char comm[64];             /* hostile */
	char *cmdline;             /* hostile; arguments joined by spaces; NULL if empty */
	bool cmdline_cut;          /* longer than what is kept (CMDLINE_MAX): cut */
	size_t cmdline_len;        /* bytes of the whole command line when cut */
	/* The PX_* columns, read for the rows on screen (or every row while
	 * sorted by one of them): NULL until then. Read through
	 * proc_row_extra(). */
	struct proc_extra *x;
};

/* What ptable_fill_extra reads for a row (see PX_*): the counters with
 * the time each was read, and the rates snap_list_rates() makes of them. */
struct proc_extra {
	double io_read_rate, io_write_rate; /* bytes/s of storage I/O (read_bytes, write_bytes) */
	int io_err;                /* 0, or -errno reading /proc/PID/io (EACCES: no ptrace access) */
	int oom;                   /* /proc/PID/oom_score, -1 unreadable */
	double ctxt_rate;          /* voluntary + involuntary context switches per second */
	char *cgroup;              /* hostile; the cgroup v2 path (or the first line), NULL unread */
	char container[40];        /* hostile; container id or name the cgroup names, "" none */
	uint64_t io_ns, ctxt_ns;   /* when io / ctxt were read (0: never) */
	unsigned long long io_rb, io_wb, ctxt;
	/* ioprio_get(2) of the row's thread: class (IOPRIO_CLASS_*, 0 none:
	 * from the nice value) and level; ioprio_ok false: not read */
	bool ioprio_ok;
	int ioprio_cls, ioprio_lvl;
};

/* A row's extras; for a row never filled (or out of memory), one whose
 * columns all read "-" (io_err -ENODATA, oom -1, no cgroup). */
extern const struct proc_extra proc_extra_none;
static inline const struct proc_extra *proc_row_extra(const struct proc_row *r)
{
	return r->x ? r->x : &proc_extra_none;
}

/* pid -> row over an array of rows (the table's or a snapshot's), on the
 * one hash table; the first row of a pid keeps it (a process before its
 * main thread's row). */
struct pid_index {
	struct hmap map;           /* pid -> row index */
};
/* (Re)build for n rows: 0 or -ENOMEM. */
int pid_index_build(struct pid_index *ix, const struct proc_row *const *rows, size_t n);
/* The index of pid's row, or -1. */
long pid_index_find(const struct pid_index *ix, const struct proc_row *const *rows, pid_t pid);
/* Add row idx (rows[0..n) with n counting it): 0 or -ENOMEM. */
int pid_index_add(struct pid_index *ix, const struct proc_row *const *rows, size_t n, size_t idx);
void pid_index_free(struct pid_index *ix);

/* A row of the table, shared with a snapshot (snap_list_of): one more
 * reference, one less (the last frees it). */
const struct proc_row *proc_row_get(const struct proc_row *r);
void proc_row_put(const struct proc_row *r);
/* The table's user names, which its rows point into: one more reference
 * for a snapshot, one less. */
struct ptable;
struct ptable_users;
struct ptable_users *ptable_users_get(struct ptable *pt);
void ptable_users_put(struct ptable_users *u);
/* Rows and user names made without a table (a recording's frames, made
 * again by src/record/): a zeroed row held once (proc_row_put frees it
 * with its cmdline and extras, which must be malloc'ed); an empty set of
 * names, and uid's name added to it (a pointer that stays valid while the
 * set lives; NULL when out of memory). */
struct proc_row *proc_row_alloc(void);
struct ptable_users *ptable_users_new(void);
const char *ptable_users_add(struct ptable_users *u, uid_t uid, const char *name);

/* What the rows' times are relative to: STARTTIME, TIME+. */
struct proc_times {
	long hz;                   /* clock ticks per second */
	unsigned long long btime;  /* boot time (seconds since 1970), 0 unknown */
	double wall;               /* "now" for STARTTIME: the snapshot's time */
};

enum proc_sort {
	PSORT_PID, PSORT_USER, PSORT_PRI, PSORT_NI, PSORT_VIRT, PSORT_RES, PSORT_SHR,
	PSORT_STATE, PSORT_CPU, PSORT_MEM, PSORT_TIME, PSORT_COMMAND,
	/* columns hidden by default (F2 setup, pscoperc) */
	PSORT_PPID, PSORT_PGRP, PSORT_SID, PSORT_TTY, PSORT_NLWP, PSORT_PROCESSOR, PSORT_STARTTIME,
	PSORT_IO_READ, PSORT_IO_WRITE, PSORT_IO_RATE, PSORT_IO_RBYTES, PSORT_IO_WBYTES, PSORT_IO_PRIO,
	PSORT_MAJFLT, PSORT_CTXT, PSORT_OOM, PSORT_CGROUP,
	PSORT_CONTAINER,
	/* CPU% over the last ticks as a graph (the list source keeps it; a
	 * one-shot `pscope list` has none); sorts as CPU% */
	PSORT_CPU_HIST, PSORT_COUNT
};

/* What ptable_fill_extra reads: each costs one file read per row. */
enum {
	PX_IO = 1u << 0,         /* /proc/PID/io: IO_READ_RATE, IO_WRITE_RATE */
	PX_CTXT = 1u << 1,       /* /proc/PID/status: CTXT */
	PX_OOM = 1u << 2,        /* /proc/PID/oom_score */
	PX_CGROUP = 1u << 3,     /* /proc/PID/cgroup (once per process): CGROUP, CONTAINER */
	PX_SHR = 1u << 4,        /* /proc/PID/statm (ptable_fill_shr): SHR, exact RES */
	PX_HIST = 1u << 5,       /* nothing read: the list source's CPU% history (CPU_HIST) */
	PX_IOPRIO = 1u << 6,     /* ioprio_get(2): IO (the I/O priority) */
};
/* The PX_* reads a column (sort key) needs, 0 for the ones the scan fills. */
unsigned proc_sort_extra(enum proc_sort k);
/* Column title ("CPU%", "IO_READ_RATE") of a key. */
const char *proc_sort_title(enum proc_sort k);

/* "pid", "user", ..., "command"; parse also takes the column titles
 * ("CPU%", "TIME+"), case-insensitively. -1 when unknown. */
const char *proc_sort_name(enum proc_sort k);
int proc_sort_parse(const char *s);
/* Every key's name from the one table, ", " between them; width > 0:
 * broken into lines of at most width columns, each after indent blanks
 * and ending in a newline. Returns the length (>= size: cut). */
size_t proc_sort_list(char *buf, size_t size, int indent, int width);
/* Numeric columns sort biggest first by default, names A to Z. */
bool proc_sort_desc_default(enum proc_sort k);

struct ptable;

struct ptable_counts {
	/* User processes; their threads besides the main ones (htop's "thr");
	 * kernel threads; the rows in state R at the scan: processes (their
	 * main thread), kernel threads, and threads when threads are read. */
	int procs, threads, kthreads, running;
};
/* The header's "running", as htop counts it: the rows in state R, at most
 * one per CPU (ncpu <= 0: not capped). */
int ptable_running(const struct ptable_counts *c, int ncpu);

/* How the scans went: stat reads, reads skipped for idle processes, scans
 * that listed /proc, and scans that had to read the skipped ones anyway. */
struct ptable_stats {
	unsigned long reads, skipped, dir_scans, full_passes, fd_evictions;
};

/* The most /proc/PID/stat fds the list holds open (see ptable_new). */
#define PTABLE_FD_BUDGET 4096

struct ps_clock;
/* A table reading /proc, stamping its reads with clk. */
struct ptable *ptable_new(const struct ps_clock *clk);
/* The stat fds held, and the budget (*budget, when not NULL). */
int ptable_fds(const struct ptable *pt, int *budget);
void ptable_free(struct ptable *pt);
/* Re-read the table. Processes that vanish mid-scan are simply dropped.
 * With threads, every thread other than the main one gets a row too.
 * Cheap by design: /proc/PID/stat stays open and is re-read with one pread;
 * /proc is listed only when a pid was allocated or a task released; a
 * process idle for two reads is re-read only about every 12 s (every eighth
 * scan at the default refresh), unless the system's CPU time is not
 * accounted for by the processes read, in which case all are read (so a
 * process waking up shows at the next scan). */
PS_READS int ptable_scan(struct ptable *pt, bool threads, struct ps_error *e);
/* The clock time of the last scan. */
uint64_t ptable_scan_ns(const struct ptable *pt);
size_t ptable_size(const struct ptable *pt);
const struct proc_row *ptable_row(const struct ptable *pt, size_t i);
const struct proc_row *ptable_find(const struct ptable *pt, pid_t pid);
void ptable_counts(const struct ptable *pt, struct ptable_counts *c);
void ptable_stats(const struct ptable *pt, struct ptable_stats *s);
/* Read the PX_* extras for one row, at most once per scan each: the
 * counters, with the time they were read. */
PS_READS void ptable_fill_extra(struct ptable *pt, pid_t pid, unsigned px);
/* Read every row on every scan (a recorder: each interval's rates come
 * from two consecutive recorded scans), instead of re-reading idle
 * processes only about every 12 s. */
void ptable_set_eager(struct ptable *pt, bool eager);
/* Boot time (seconds since 1970) for STARTTIME; 0 when unknown. */
unsigned long long ptable_btime(const struct ptable *pt);
/* Read SHR (statm) for one row, once per scan; the scan itself skips it. */
PS_READS void ptable_fill_shr(struct ptable *pt, pid_t pid);
/* Whether SHR and each PX_* extra of pid's row were read in this scan: a
 * second call reads nothing. */
unsigned ptable_filled(const struct ptable *pt, pid_t pid);
/* Memory total used for MEM% (kB); read from /proc/meminfo at creation. */
void ptable_set_mem_total(struct ptable *pt, unsigned long long kb);

/* Rows in display order: sorted by key, or depth-first by parent with
 * siblings sorted by key. keep (may be NULL) filters rows out of the
 * result (in a tree, after ordering). The view holds pointers into the
 * rows (a snapshot's): rebuild it for every new one. */
struct proc_view_row {
	const struct proc_row *r;
	size_t idx;                /* its index in the rows ordered */
	/* Tree order: depth, last among its siblings, and bit d set when the
	 * ancestor at depth d+1 has later siblings. */
	int depth;
	bool tree_last;
	uint32_t tree_more;
};
struct proc_view {
	struct proc_view_row *v;
	size_t n, cap;
};
int proc_rows_order(const struct proc_row *const *rows, size_t n, const struct pid_index *ix, enum proc_sort key, bool desc,
		    bool tree, bool (*keep)(const struct proc_row *r, void *arg), void *arg, struct proc_view *out);
void proc_view_free(struct proc_view *v);
int proc_view_index(const struct proc_view *v, pid_t pid);

/* What the COMMAND column shows: the cmdline, prefixed with "comm│" when the
 * process renamed itself; the comm alone for kernel threads, zombies and
 * thread rows. Raw (hostile) bytes: escape when printing. */
const char *proc_row_command(const struct proc_row *r, char *buf, size_t size);
/* The same, ended with a translated mark when the list cut the command
 * line (" …[59,583 bytes]", the whole length): what every screen and the
 * text output show. The mark is kept whole when buf is too small. */
const char *proc_row_command_shown(const struct proc_row *r, char *buf, size_t size);
/* Case-insensitive substring match on the command and comm. */
bool proc_row_matches(const struct proc_row *r, const char *needle);

/* The columns (one per sort key), described once for the screen and
 * `pscope list`: width (0: COMMAND, the rest of the line) and alignment. */
struct proc_col {
	int width;
	bool left;
};
extern const struct proc_col proc_cols[PSORT_COUNT];
/* The text of row r's cell in column c: in b, or a string of the row (the
 * user, cgroup, command; hostile). Extras (PX_*) and SHR must be filled. */
const char *proc_row_cell(const struct proc_times *t, const struct proc_row *r, enum proc_sort c, char *b, size_t size);
/* "pid,user,cpu%,command" (names or titles, commas or spaces) into cols;
 * returns how many, -1 on an unknown or repeated name or an empty list. */
int proc_cols_parse(const char *s, int *cols, int max);

/* IO as htop shows it: "R0"-"R7" realtime, "B0"-"B7" best effort (the
 * class none: the level the nice value gives, (nice + 20) / 5), "id" idle;
 * "-" when not read. */
const char *proc_fmt_ioprio(const struct proc_row *r, char *buf, size_t size);
/* Formatting shared by the screen and `pscope list`: "12345" kB below
 * 100000 kB, then "1234M" up to 9999M, "12.5G" up to 100G, then "200G";
 * TIME+ as "1:02.03" / "12h03:04". */
const char *proc_fmt_kb(unsigned long long kb, char *buf, size_t size);
const char *proc_fmt_time(unsigned long long ticks, long hz, char *buf, size_t size);
/* TTY: "pts/3", "tty1", "ttyS0", "?" for none, "136:3"-style otherwise. */
const char *proc_fmt_tty(int tty_nr, char *buf, size_t size);
/* STARTTIME as htop: "HH:MM" today, "MonDD" this year, else the year. */
const char *proc_fmt_start(double epoch, double now, char *buf, size_t size);
/* A byte rate: "0", "512", "12.3K", "4.5M", "1.2G" (per second). */
const char *proc_fmt_rate(double bps, char *buf, size_t size);
/* The container a cgroup path names (docker, podman, containerd, cri-o,
 * lxc, systemd-nspawn machine): a 12-character id or the name; "" if none. */
void proc_cgroup_container(const char *path, char *out, size_t size);
/* PRI as the kernel reports it, "RT" for real-time priorities. */
const char *proc_fmt_pri(long pri, char *buf, size_t size);
long proc_hz(void);


#endif
