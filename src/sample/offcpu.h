/* The off-CPU tracer's session (offcpu.c; internal to the sampler). */
#ifndef PS_SAMPLE_OFFCPU_H
#define PS_SAMPLE_OFFCPU_H

#include "sample/session.h"
#include "python/python.h"

#define OC_PREEMPTED 0x100   /* sched_switch's prev_state of a preempted task (TASK_REPORT_MAX) */
#define OC_COMMS_MAX 65536   /* task names remembered for the wakers */
#define OC_LAG_NS 20000000ULL /* records this much older than the newest are in order */
#define OC_PY_FRAMES 256     /* Python frames kept of a block */

/* The ring sets, by how their records are laid out: every task's wakeups
 * per CPU (kernel chain), the target threads' own events (chain, user
 * registers and stack), every task's switches per CPU (no chain: only
 * when a target thread runs again is read from them). */
enum { SET_CPU, SET_TASK, SET_CPUSW, SETS };
enum { EV_SWITCH, EV_WAKEUP, EVS };
enum oc_kind { OC_OUT, OC_IN, OC_WAKE };

/* A sample kept past its callback (its pointers into data[]). */
struct oc_copy {
	struct perf_sample s;
	uint64_t data[];
};

/* One record, queued until it is in time order. */
struct oc_ev {
	uint64_t time;
	int kind;                /* enum oc_kind */
	pid_t tid;               /* the target thread: switched out, in, woken */
	pid_t waker;             /* a wakeup's: the task that woke it */
	int64_t state;           /* a switch-out's prev_state */
	struct oc_copy *copy;    /* a switch-out's or wakeup's sample; NULL: none */
	struct oc_py *py;        /* a switch-out's Python frames (offcpu-py.c); NULL: none read */
};

/* The Python frames of a block, innermost first: location ids, each with
 * OC_PY_ENTRY set on the outermost frame of one C-level eval call. */
#define OC_PY_ENTRY 0x80000000u
struct oc_py {
	unsigned n;
	uint32_t fr[];
};

struct othread {
	struct samp_thread th;   /* first: what a snapshot shows (samples: blocks) */
	int *fds;                /* per ring: its sched_switch and sched_wakeup, -1 closed */
	bool in_scan, blocked;
	uint64_t t0;             /* the block's switch-out */
	struct oc_copy *out;     /* ... its sample */
	struct oc_py *py;        /* ... its Python frames, NULL: not read in time */
	struct oc_copy *wake;    /* the first wakeup since, and who, and when */
	pid_t waker;
	uint64_t woken;
	uint64_t last_in;        /* the newest switch-in read from the rings */
	/* CPython (offcpu-py.c): a switch-out whose chain is to be read, its
	 * time and arrivals count; a Python thread (its chain found once). */
	bool py_pending, py_thread;
	uint64_t py_pend_t0;
	long long py_arrivals;
};

struct oc_comm {
	char comm[16];
};

struct ocpu {
	struct samp_session s;   /* first: the source, the target, the symbolizer and unwinder, agg */
	struct agg *wagg;        /* the waker profile */
	struct hmap wkpcs, wpcs; /* its pc caches (swapped into s while its stacks are made) */
	uint32_t wkernel_func;
	uint64_t min_block_ns;

	struct perf_tp tps[2];   /* sched_switch, sched_wakeup */
	struct perf_event_attr attr[SETS][2]; /* [set][event] */
	struct perf_ring *rings[SETS];
	unsigned nopen[SETS];
	bool rd_init[SETS];
	struct perf_reader rd[SETS];
	int *cpu_of;
	unsigned nrings;
	int *cpu_fds;            /* the every-task events */
	int ncpu_fds;

	struct othread *threads;
	size_t nthreads, capthreads;
	struct hmap tids;
	unsigned untraced;

	struct oc_ev *q;
	size_t nq, qcap;
	uint64_t newest;

	struct oc_comm *comms;   /* names from the switches of every task */
	size_t ncomms, capcomms;
	struct hmap comm_idx;

	struct samp_wake *links; /* (block stack, waker stack) pairs */
	size_t nlinks, caplinks;
	struct hmap link_idx;

	unsigned long long *stack_blocks, *stack_runq; /* per stack id of s.agg */
	size_t nsb, capsb, caprq; /* filled, and the capacity of each */
	unsigned long long blocks, short_blocks, unmatched, dropped;

	struct py_proc *py;      /* the target's CPython, NULL: none */
	struct py_mem py_live;
	pid_t py_pid, py_want;
	struct py_snapshot py_snap;
	struct hmap py_funcs, py_tids; /* (code, line) -> location; pthread_t -> tid */
	unsigned long long py_blocks, py_unread;
};

/* offcpu-rec.c: what each record means. The consumers of the two ring
 * sets queue the records; oc_drain reads every ring and applies those in
 * time order (all: every one, else those older than the newest less the
 * lag), weighing each block as it ends. */
extern const struct perf_consumer oc_cpu_consumer, oc_task_consumer;
void oc_drain(struct ocpu *o, bool all);
struct othread *oc_thread_of(struct ocpu *o, pid_t tid);
/* Forget t's block in progress (its copies freed). */
void oc_forget_block(struct othread *t);

/* The end of a snapshot of either tier: blocks[] and runq[] (NULL: none)
 * of its first n stacks copied into it (stack_blocks, stack_runq). sn, or
 * NULL after freeing it (out of memory). */
struct samp_snapshot *oc_snapshot_stacks(struct samp_snapshot *sn, const unsigned long long *blocks,
					 const unsigned long long *runq, size_t n);

/* offcpu-py.c: the Python frames of the blocks of a CPython target.
 * open: find the interpreter (none: native frames only); around the
 * read of the switch-in rings (oc_drain), the chains of the threads that
 * blocked since the last drain are read; merge puts t's into its block's
 * native stack fr[0..n) (SAMP_MAX_FRAMES room), returning the new n. */
void oc_py_open(struct ocpu *o);
void oc_py_close(struct ocpu *o);
void oc_py_before_switchins(struct ocpu *o);
void oc_py_after_switchins(struct ocpu *o);
unsigned oc_py_merge(struct ocpu *o, struct othread *t, uint32_t *fr, unsigned n);

#endif
