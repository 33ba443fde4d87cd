/* The samplers and their aggregation.
 *
 * The perf sampler opens one sampling event per (thread, CPU) of the
 * target (through src/perf/), all redirected into one ring buffer per CPU,
 * with inherit so threads cloned by a sampled thread are sampled from their
 * first instruction; the task list is rescanned to catch the rest. The
 * CPython sampler reads frames from memory. Both are sources
 * (sample/source.h): polling reads what came, symbolizes (libdwfl,
 * kallsyms, perf maps) and weighs interned call stacks in per-second
 * buckets; publishing closes the current second and returns an immutable
 * snapshot: the UI and the batch command compute their tables from
 * snapshots only (samp_view_*), never from the live session. */
#ifndef PS_SAMPLE_H
#define PS_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "error.h"
#include "sym/sym.h"
#include "target.h"

#define SAMP_FREQ_DEFAULT 99
#define SAMP_FREQ_MIN 49
#define SAMP_FREQ_MAX 3999
#define SAMP_HISTORY 60 /* per-second buckets kept: the 60 s window */
#define SAMP_STACK_COPY_DEFAULT 16384 /* see README: truncation vs cost, measured */
#define SAMP_STACK_COPY_MAX 65528     /* the kernel's limit (a record is < 64 KiB) */
#define SAMP_STACK_COPY_OFF (-1)

enum samp_window { SAMP_WIN_1S, SAMP_WIN_10S, SAMP_WIN_60S, SAMP_WIN_ALL, SAMP_WIN_COUNT };
enum samp_sort { SAMP_SORT_SELF, SAMP_SORT_TOTAL, SAMP_SORT_NAME, SAMP_SORT_COUNT };

/* The symbolizer's flags (src/sym/sym.h), and the sampler's own. */
enum samp_func_flags {
	SAMP_F_KERNEL = SYM_F_KERNEL,     /* kernel text (kallsyms, or the [kernel] bucket) */
	SAMP_F_STRIPPED = SYM_F_STRIPPED, /* no symbol: named module+0xoffset */
	SAMP_F_DELETED = SYM_F_DELETED,   /* the module's file was deleted or replaced */
	SAMP_F_ANON = SYM_F_ANON,         /* anonymous executable memory (JIT) */
	SAMP_F_UNKNOWN = SYM_F_UNKNOWN,   /* in no executable mapping */
	SAMP_F_ROOT = 256,                /* outermost frame of a complete stack (_start...) */
	SAMP_F_PYTHON = 512,              /* a Python function: name = qualname, module = file,
					   * line = the line being run (part of its identity) */
	SAMP_F_CATEGORY = 1024,           /* a weighted profile's category ("[futex]"): the
					   * outermost frame of the stacks weighed under it */
};

/* What a profile's weights count. A CPU profile counts samples; the
 * others weigh each stack by what it cost, and say their unit wherever
 * the weight is shown or written. */
enum samp_unit {
	SAMP_UNIT_SAMPLES,    /* one per sample */
	SAMP_UNIT_NS_BLOCKED, /* nanoseconds off CPU, blocked */
	SAMP_UNIT_NS_SYSCALL, /* nanoseconds in system calls */
	SAMP_UNIT_FAULTS,     /* page faults */
	SAMP_UNIT_COUNT
};
/* English and stable (JSON "unit", the folded header): "samples",
 * "ns-blocked", "ns-syscall", "faults". */
const char *samp_unit_key(enum samp_unit u);
/* For people: a column title, untranslated (N_: translated where drawn,
 * as struct table_col titles): "SAMPLES", "BLOCKED", "SYSCALL",
 * "FAULTS"; and a weight in that unit ("1.25s", "3.1ms", "42": a sample
 * count prints as "%llu"). */
const char *samp_unit_title(enum samp_unit u);
const char *samp_unit_format(enum samp_unit u, unsigned long long w, char *buf, size_t size);

/* A function: the unit of the table. Strings are raw and hostile. */
struct samp_func {
	const char *name;
	const char *module;  /* path of the module, or [kernel], [anon/JIT] */
	const char *file;    /* source of the function's first line, or NULL */
	int line;
	unsigned flags;
};

/* Where a frame was: a run-time address in a mapping (pprof's Location
 * and Mapping). A source naming functions only (CPython) has addr 0 and
 * no mapping. */
#define SAMP_NOMAP UINT32_MAX
struct samp_map {
	const char *path;       /* raw, hostile */
	const char *build_id;   /* hex, or NULL */
	uint64_t start, limit, offset;
};
struct samp_loc {
	unsigned func;
	unsigned map;           /* index into maps[], or SAMP_NOMAP (kernel, JIT, unknown) */
	uint64_t addr;          /* run-time pc (a return address as the chain has it), 0: none */
	int line;               /* the pc's line in func's file, 0: none */
};

/* An interned call stack of one thread: frames[first .. first + nframes)
 * are function ids, leaf first, and lframes[] at the same indexes their
 * locations. Stacks are distinct by location: two may name the same
 * functions at other addresses. */
struct samp_stack {
	pid_t tid;
	unsigned nframes, first;
};

/* count: the stack's weight, in the snapshot's unit (samples for a CPU
 * profile). */
struct samp_count {
	unsigned stack;
	unsigned long long count;
};

/* What one interval counted: (stack, weight) pairs. */
struct samp_bucket {
	unsigned n;
	struct samp_count *c;
	unsigned long samples; /* samples (events) taken, whatever their weight */
	double seconds;        /* length of the interval */
};

struct samp_thread {
	pid_t tid;
	char comm[16];       /* raw, hostile */
	unsigned long samples;
	bool gone;
};

/* A process of a machine-wide snapshot. */
struct samp_proc {
	pid_t pid;
	unsigned long long start;     /* /proc/PID/stat starttime (its identity); 0 unknown */
	char comm[16];                /* raw, hostile */
	unsigned long long samples;   /* since the start */
	double cpu_sampled, cpu_proc; /* seconds since the start: from the samples, from /proc */
	bool exited, kernel;          /* gone; a kernel thread */
};

/* The address histogram keeps at most this many distinct pcs. */
#define SAMP_PCS_MAX 16384
/* A leaf pc of the perf sampler's address histogram: where threads were
 * when sampled, since the start. */
struct samp_pc {
	uint64_t rel;             /* module-relative address (the file's vaddr) */
	unsigned func;            /* the function it is in */
	const char *file;         /* its source line (the innermost inlined code's), */
	int line;                 /* or NULL/0: no line table entry */
	const char *inlined;      /* the inlined function that line is in, or NULL */
	unsigned long long count; /* samples */
};

/* One second of the address histogram: samples per pc (an index into
 * pcs[]) in that second. */
struct samp_pccount {
	unsigned pc;
	unsigned long long count;
};
struct samp_pcbucket {
	unsigned n;
	struct samp_pccount *c;
};

/* A block's waker in an off-CPU snapshot: the block's stack (stacks[])
 * and the waker's (the waker profile's stacks[]), the time they weigh
 * together and how many blocks. */
struct samp_wake {
	unsigned stack, wstack;
	pid_t waker;
	char comm[16];            /* the waker's name (raw, hostile); "" for an interrupt */
	bool interrupt;           /* an interrupt woke it (waker 0: whichever task it stopped) */
	unsigned long long weight, blocks;
};

/* Immutable once published. */
struct samp_snapshot {
	struct target_id target;
	char comm[64];            /* raw, hostile */
	char event[32];           /* "cycles", "cpu-clock" */
	char event_why[160];      /* why that event */
	int freq;                 /* requested Hz */
	double rate;              /* achieved: samples per CPU-second, last 10 s */
	double elapsed;           /* seconds since sampling started */
	unsigned long long samples, lost, throttled, truncated;
	/* The weights' unit, and their sum since the start (samples for
	 * SAMP_UNIT_SAMPLES). */
	enum samp_unit unit;
	unsigned long long weight;
	unsigned long long unwind_fp, unwind_dwarf; /* user chains by method */
	int stack_copy;           /* bytes copied per sample, 0: none */
	bool kernel_excluded;
	char kernel_why[128];
	double cpu_sampled, cpu_proc; /* seconds since start: from the samples, from /proc */
	unsigned threads_unsampled;  /* threads we could not open events for */
	char unsampled_why[200];     /* why */
	bool percpu;                 /* per-CPU events (else per thread) */
	bool ended;
	char end_reason[192];
	/* The CPython sampler (samp_py_*): its version ("3.12.1"), empty for
	 * perf; chains that changed under the read (dropped), and samples of
	 * idle threads (left out unless idle_included). */
	char python[24];
	unsigned long long torn, idle_samples;
	bool idle_included;
	/* Machine-wide (`pscope top` without a PID): every task on every
	 * CPU. The stacks' tid is then an index into procs[] (a process, not
	 * a thread); idle counts the idle task's samples (not in the table);
	 * cpu_proc is the whole machine's busy CPU time. */
	bool machine;
	unsigned nprocs;
	struct samp_proc *procs;
	unsigned long long idle;

	unsigned nfuncs, nstacks, nthreads, nbuckets;
	struct samp_func *funcs;
	struct samp_stack *stacks;
	unsigned *frames;
	unsigned nlocs, nmaps;
	struct samp_loc *locs;
	struct samp_map *maps;
	unsigned *lframes;
	struct samp_thread *threads;
	struct samp_bucket buckets[SAMP_HISTORY]; /* oldest first; [nbuckets-1] = last second */
	struct samp_bucket all;                  /* since start */
	char *strings;
	/* The perf sampler of one process: its address histogram (empty for
	 * the others), and the samples at pcs past its cap; its seconds,
	 * oldest first, closed with the buckets' ([npc_buckets-1] the last
	 * second), for the rolling windows. */
	unsigned npcs;
	struct samp_pc *pcs;
	char *pc_strings;
	unsigned long long pcs_dropped;
	unsigned npc_buckets;
	struct samp_pcbucket pc_buckets[SAMP_HISTORY];
	/* The off-CPU tracer (samp_offcpu_open): blocks of at least
	 * min_block_ns weighed in ns blocked (samples: the blocks); shorter
	 * ones counted only; blocks whose waker was not seen. wakers: the
	 * waker profile (its stacks the wakers', under a category naming
	 * the waker, their tid the thread woken; owned, freed with it), and
	 * wakes[] the pairs of stacks. */
	bool offcpu;
	uint64_t min_block_ns;
	unsigned long long short_blocks, unmatched;
	/* ... of a CPython target: its version (empty: none), the blocks
	 * whose stacks carry its frames, and those whose chain was read only
	 * after the thread ran again (native frames only). */
	char py_version[24];
	unsigned long long py_blocks, py_unread;
	/* The /proc tier (samp_offcpu_proc_open): statistical, the blocked
	 * threads sampled every offcpu_interval_ns (samples: the threads
	 * seen blocked; stack_blocks: per stack). */
	bool offcpu_sampled;
	uint64_t offcpu_interval_ns;
	unsigned long long *stack_blocks; /* blocks per stack (nstacks) */
	unsigned long long *stack_runq;   /* ... of their weight, ns from the wakeup to running again */
	struct samp_snapshot *wakers;
	unsigned nwakes;
	struct samp_wake *wakes;
};

void samp_snapshot_free(void *snap);

/* ---- the perf sampler: a source (sample/source.h) ---- */
struct samp_source;

/* Events per thread (exact, the fds grow with threads) or per CPU for every
 * task, keeping the target's samples (needs perf_event_paranoid <= 0 or
 * CAP_PERFMON). AUTO: per CPU when the process has more than
 * SAMP_PERCPU_THREADS threads and the door allows it. */
enum samp_events { SAMP_EVENTS_AUTO, SAMP_EVENTS_THREAD, SAMP_EVENTS_CPU };
#define SAMP_PERCPU_THREADS 64

struct samp_opts {
	pid_t pid;                    /* 0: every process (machine-wide) */
	const struct target_id *want; /* refuse a reused PID; may be NULL */
	int freq;                     /* Hz, SAMP_FREQ_MIN..SAMP_FREQ_MAX */
	/* Bytes of user stack copied per sample for DWARF unwinding: 0 is
	 * SAMP_STACK_COPY_DEFAULT, SAMP_STACK_COPY_OFF frame pointers only. */
	int stack_copy;
	enum samp_events events;
};

/* Open the events (src/perf/); refusals name their door. Its poll says
 * -ESTALE after an exec: the samples of the new program are dropped, so
 * the table stays the old program's (samp_end_exec words it). */
int samp_perf_open(struct samp_source **out, const struct samp_opts *o, struct ps_error *e);
/* The end reason of a sampling cut short by an exec: "the process exec'd
 * (it now runs NAME): ..." from the name it now has. */
const char *samp_end_exec(const char *now_comm, char *buf, size_t size);

/* ---- the off-CPU tracer: a source on the scheduler's tracepoints ----
 * Every block of the target's threads (a switch-out asleep until it runs
 * again) of at least min_block_ns, weighed by its length (the profile in
 * SAMP_UNIT_NS_BLOCKED), its user and kernel stack at the switch-out,
 * and its waker's name, TID and stack. Needs CAP_PERFMON and tracefs. */
#define SAMP_MIN_BLOCK_DEFAULT 1000000ULL /* 1 ms */
struct samp_offcpu_opts {
	pid_t pid;
	const struct target_id *want;
	uint64_t min_block_ns;
	int stack_copy;               /* as samp_opts */
};
int samp_offcpu_open(struct samp_source **out, const struct samp_offcpu_opts *o, struct ps_error *e);
/* The /proc tier, which samp_offcpu_open falls back to when the
 * tracepoints are refused: the blocked threads sampled at a low rate
 * (their stacks by a short freeze), weighed by the interval. */
int samp_offcpu_proc_open(struct samp_source **out, const struct samp_offcpu_opts *o, struct ps_error *e);

/* ---- views: pure functions of a snapshot ---- */
struct samp_row {
	unsigned func;
	unsigned long self, total;
	double self_pct, total_pct;
	float hist[SAMP_HISTORY]; /* Self% per second, oldest first (NaN: no samples) */
};

struct samp_view {
	unsigned long samples;    /* in the window, after the thread filter */
	unsigned nrows;
	struct samp_row *rows;    /* sorted */
};

/* Buckets of window w: first index and count into s->buckets, or the
 * since-start bucket (returns true for that). */
const struct samp_bucket *samp_window_buckets(const struct samp_snapshot *s, enum samp_window w, unsigned *n);
const char *samp_window_name(enum samp_window w);
const char *samp_sort_name(enum samp_sort k);
/* tid 0: every thread. Returns 0 or -ENOMEM. */
int samp_view_compute(const struct samp_snapshot *s, enum samp_window w, pid_t tid, enum samp_sort sort,
		      struct samp_view *out);
void samp_view_free(struct samp_view *v);

struct samp_rel {
	unsigned func;
	unsigned long samples;    /* samples where this caller/callee is next to func */
};

/* Callers and callees of func in window w (sorted by samples). */
int samp_view_relations(const struct samp_snapshot *s, enum samp_window w, pid_t tid, unsigned func,
			struct samp_rel **callers, unsigned *ncallers, struct samp_rel **callees,
			unsigned *ncallees);
/* Weight (samples) per stack in window w, thread filter tid:
 * counts[nstacks] (malloc'd). */
unsigned long long *samp_view_stack_counts(const struct samp_snapshot *s, enum samp_window w, pid_t tid);
/* The same with the stacks that name the same functions (at other
 * addresses) counted once, at the first of them (the others 0): for the
 * files that write functions only (folded, speedscope). */
unsigned long long *samp_view_func_stack_counts(const struct samp_snapshot *s, enum samp_window w, pid_t tid);
/* How the user stacks were unwound: "fp", "dwarf", "mixed" or "none". */
const char *samp_unwind_method(const struct samp_snapshot *s);
/* Short module name for display: basename, "(deleted)" kept. */
const char *samp_module_short(const char *module);
/* Thread name of tid in the snapshot ("?" when unknown); in a machine-wide
 * one, the name of process slot tid. */
const char *samp_thread_comm(const struct samp_snapshot *s, pid_t tid);

/* ---- the annotated lines of one function (view-annotate.c) ---- */
struct samp_aline {
	const char *file;          /* NULL: no source line (lo..hi shown) */
	int line;
	const char *inlined;       /* code inlined from this function, or NULL */
	uint64_t lo, hi;           /* module-relative addresses sampled (native) */
	unsigned long long samples;
	double pct;                /* share of the function's samples */
};

struct samp_annot {
	unsigned func;             /* the function (its hottest one of that name) */
	bool python;
	enum samp_window win;      /* the window counted */
	unsigned long long samples; /* the function's self samples in it */
	unsigned nlines;
	struct samp_aline *lines;  /* source order; no-source ranges last */
	unsigned hot;              /* index of the hottest line */
};

/* The lines of the function named `name` with its self samples in window
 * w (SAMP_WIN_ALL: since the start): native ones from the address histogram through the DWARF line
 * table, Python ones by the line numbers of the sampled frames. Several
 * functions of that name (modules, Python files): the one with the most
 * samples; a native name also matches the copies the compiler made of it
 * (name.constprop.0, name.part.0...). 0; -ENOENT: no function of that
 * name with samples; -ENOMEM. */
int samp_view_annotate(const struct samp_snapshot *s, enum samp_window w, const char *name, struct samp_annot *out);
void samp_annot_free(struct samp_annot *a);

/* ---- views of a machine-wide snapshot ---- */
struct samp_prow {
	unsigned proc;               /* index into procs[] (by command: its busiest process) */
	unsigned nprocs;             /* processes in the row (1 unless by command) */
	unsigned long samples;       /* in the window */
	double pct;                  /* share of the window's samples */
	double cpu_sampled, cpu_proc; /* seconds since the start (summed by command) */
};

struct samp_pview {
	unsigned long samples;       /* in the window */
	unsigned nrows;
	struct samp_prow *rows;      /* sorted */
};

/* The processes (by_comm: the command names) with samples in window w.
 * sort: SELF by samples, TOTAL by /proc CPU, NAME by command. */
int samp_view_procs(const struct samp_snapshot *s, enum samp_window w, bool by_comm, enum samp_sort sort,
		    struct samp_pview *out);
void samp_pview_free(struct samp_pview *v);
/* For each row of v (a view of s in window w): the process with the most
 * samples in that function (top[i], index into procs[]) and how many
 * processes ran it (nprocs[i]). 0 or -ENOMEM. */
int samp_view_func_procs(const struct samp_snapshot *s, enum samp_window w, const struct samp_view *v,
			 unsigned *top, unsigned *nprocs);

/* ---- the sampler as a worker job ---- */
struct workers;
struct job_handler;
/* Control block shared by the screen and the job: atomics only. */
struct samp_ctl;
struct samp_ctl *samp_ctl_new(int freq); /* freq: 1..SAMP_FREQ_MAX */
void samp_ctl_put(struct samp_ctl *c);
void samp_ctl_set_freq(struct samp_ctl *c, int hz);
int samp_ctl_freq(struct samp_ctl *c);
/* Start sampling target on the sampler lane: a RING_SNAPSHOT about once per
 * second, a RING_RESULT (last snapshot) when the target exits, a RING_ERROR
 * when sampling cannot start. Cancel with workers_cancel(). Returns the job
 * id or 0. Takes its own reference on ctl. */
/* The job's sampler: AUTO is the CPython sampler for a CPython process
 * (the perf sampler otherwise), PYTHON only that, NATIVE always perf. */
/* OFFCPU: the off-CPU tracer (samp_offcpu_open, blocks of at least
 * SAMP_MIN_BLOCK_DEFAULT), not a sampler. */
enum samp_mode { SAMP_MODE_AUTO, SAMP_MODE_PYTHON, SAMP_MODE_NATIVE, SAMP_MODE_OFFCPU };
void samp_ctl_set_mode(struct samp_ctl *c, enum samp_mode m);
/* The off-CPU tracer's shortest block weighed (ns; read when the job starts). */
void samp_ctl_set_min_block(struct samp_ctl *c, uint64_t ns);
uint64_t samp_ctl_min_block(struct samp_ctl *c);
enum samp_mode samp_ctl_mode(struct samp_ctl *c);
/* AUTO tried the CPython sampler and fell back to perf: why (a positive
 * errno: ENOENT not a CPython process, ENOTSUP a version it cannot read,
 * EPROTO its structures unreadable); 0 while it has not. */
int samp_ctl_py_refused(struct samp_ctl *c);
unsigned samp_job_submit(struct workers *w, const struct target_id *target, struct samp_ctl *ctl,
			 const struct job_handler *h);

/* ---- the CPython sampler: Python frames without perf ----
 * Reads every thread's frame chain from process memory (process_vm_readv,
 * through a page cache) without stopping the process, freq times a
 * second. Needs ptrace read access to the memory only, not perf_event_open.
 * A chain that changed under the read is dropped and counted (torn).
 * Threads not running (task state other than R) are idle and left out
 * unless idle is set. Snapshots are the same as the perf sampler's, with
 * SAMP_F_PYTHON functions. */
#define SAMP_PY_FREQ_DEFAULT 100
#define SAMP_PY_FREQ_MAX 1000
struct samp_py_opts {
	pid_t pid;
	const struct target_id *want;
	int freq;                     /* 1..SAMP_PY_FREQ_MAX */
	bool idle;
};
/* A source (sample/source.h). -ENOENT: not CPython; -ENOTSUP: a CPython
 * this reader cannot read; both with the sentence in e. Its poll samples
 * until timeout_ms passed; -ESRCH once the process is gone, -ESTALE once
 * it exec'd (nothing of the new program read). */
int samp_py_open(struct samp_source **out, const struct samp_py_opts *o, struct ps_error *e);
/* The CPython sampler's switch for idle threads (ctl of samp_job_submit). */
void samp_ctl_set_idle(struct samp_ctl *c, bool idle);
bool samp_ctl_idle(struct samp_ctl *c);

#endif
