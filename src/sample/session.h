/* The live sampling session, shared by the sampler's files (perf.c: the
 * source and its threads; events.c: its events on src/perf/; record.c and
 * machine.c: what each record means to it, as src/perf/ consumers). */
#ifndef PS_SAMPLE_SESSION_H
#define PS_SAMPLE_SESSION_H

#include "perf/perf.h"
#include "sample/local.h"
#include "sample/sample.h"
#include "sample/source.h"
#include "sym/sym.h"
#include "sym/unwind.h"
#include "target.h"

#include <poll.h>

struct cpu_ring {
	struct perf_ring r; /* owned by a dummy event of ours (perf_ring_open) */
	int ev; /* per-CPU mode: the sampling event of every task on this CPU, or -1 */
};

struct sthread {
	struct samp_thread th; /* what a snapshot shows: tid, comm, samples, gone */
	int *fds;          /* per ring: the event on that CPU, -1 closed */
	bool inherited;    /* a FORK record says an inherited event samples it */
	bool in_scan;
	unsigned uncovered;/* rescans seen without events */
};

/* One address space being symbolized and unwound: the target's, or each
 * process's in the machine-wide view. */
struct samp_space {
	struct sym_proc *sym;
	struct sym_unwinder *uw; /* NULL: frame pointers only */
	struct hmap pcs;         /* user pc -> location id */
	unsigned maps_gen;       /* the symbolizer's maps the unwinder has */
};

/* An executable mapping from an MMAP2 record. */
struct mmap_rec {
	uint64_t start, len, pgoff, ino;
	uint32_t maj, min;
	char *path;
};

/* A process of the machine-wide view (machine.c). */
struct mproc {
	pid_t pid;
	unsigned long long start;   /* /proc/PID/stat starttime; 0 unknown */
	char comm[16];
	bool exited, kernel, exec_seen, space_tried;
	bool recorded;              /* sp was made from the recorded mappings */
	uint32_t parent;            /* slot of the parent, SAMP_NONE: none */
	struct samp_space *sp;      /* made at its first user sample */
	struct mmap_rec *maps;      /* executable mappings its MMAP2 records
				     * reported (since its exec), by start */
	unsigned nmaps;
	unsigned long long samples, period;
	unsigned long long ticks0, ticks; /* /proc utime+stime: first sight, last */
};

/* The address histogram (lines.c): samples by leaf user pc, with the
 * pc's source line, since the start; at most SAMP_PCS_MAX pcs. */
struct samp_pcent {
	uint64_t pc, rel;
	uint32_t func;
	int line;
	char *file, *inlined;       /* NULL: no line table entry / not inlined */
	unsigned long long count;
	unsigned long long cur;     /* ... of them in the second being counted */
};
struct samp_pchist {
	struct hmap idx;            /* pc -> index into e */
	struct samp_pcent *e;
	unsigned n, cap;
	unsigned long long dropped; /* samples at pcs past the cap */
	unsigned *touched;          /* the entries with cur > 0 */
	unsigned ntouched, ctouched;
	struct samp_pcbucket sec[SAMP_HISTORY]; /* the seconds closed, oldest first */
	unsigned nsec;
};
/* Count one sample of func whose thread was at pc (resolved through sym
 * at its first sample). */
void samp_pchist_add(struct samp_pchist *h, struct sym_proc *sym, uint64_t pc, uint32_t func);
/* Close the second counted (with agg_close_interval): its counts become
 * the newest of the SAMP_HISTORY seconds kept. */
void samp_pchist_close(struct samp_pchist *h);
/* Copy into the snapshot (pcs, pc_strings, pcs_dropped, pc_buckets). 0 or
 * -ENOMEM. */
int samp_pchist_fill(const struct samp_pchist *h, struct samp_snapshot *o);
void samp_pchist_free(struct samp_pchist *h);

struct samp_session {
	struct samp_source src;   /* first: the source it is (source.h) */
	struct target t;
	bool machine;             /* every task on every CPU (t unused) */
	int freq;
	struct perf_choice ev;    /* the event, its attr, why it and the kernel's part */

	struct cpu_ring *rings;
	unsigned nrings;
	struct perf_reader rd;    /* decodes the rings for record.c/machine.c (lost, throttled) */

	struct sthread *threads;
	unsigned nthreads, capthreads;
	struct hmap tids;
	unsigned unsampled;
	char unsampled_why[200]; /* why those threads have no events */
	/* Per-CPU mode: one event per CPU for every task, the target's
	 * samples kept (a number of fds that does not grow with threads).
	 * Else one event per (thread, CPU), at most fd_budget fds. */
	bool percpu;
	unsigned nfds, fd_budget, fd_limit;
	struct perf_pollset ps; /* the rings, and each thread event (tag: thread index * nrings + ring) */
	bool pfds_stale;

	struct samp_space one; /* the target's address space */
	struct agg *agg;
	struct samp_pchist pchist; /* the target's leaf pcs (not machine-wide) */
	struct hmap kpcs;     /* kernel pc -> location id */
	uint32_t kernel_func; /* the [kernel] bucket's location, when kallsyms is closed */
	bool ksyms_named;

	unsigned long long samples, truncated, period_sum;
	/* DWARF unwinding of the copied user stacks. */
	uint64_t regs_mask;   /* sample_regs_user, 0 without stack copies */
	unsigned stack_copy;  /* sample_stack_user */
	unsigned long long unwind_fp, unwind_dwarf; /* samples by method */
	uint64_t start_ns, last_pub_ns, last_scan_ns;
	unsigned long long cpu_ticks_start, cpu_ticks_last, cpu_ticks_pub;
	double bucket_cpu[SAMP_HISTORY]; /* /proc CPU seconds of each closed interval, newest last */
	unsigned nbucket_cpu;
	unsigned since_freq;  /* intervals closed since the last frequency change */
	bool exited;
	bool execd;           /* it exec'd: later samples are another program's */
	uint64_t exec_time;   /* perf time of the exec (0: not known, drop all after execd) */
	char exec_comm[64];   /* its name after the exec (hostile) */

	/* Machine-wide: processes by slot (a reused PID gets a new slot),
	 * pid -> current slot; samples of the idle task. */
	struct mproc *procs;
	uint32_t nprocs, capprocs;
	struct hmap pids;
	unsigned long long idle;
};

struct sthread *samp_thread_get(struct samp_session *s, pid_t tid, bool add);
bool samp_thread_has_events(const struct samp_session *s, const struct sthread *t);
void samp_thread_close(struct samp_session *s, struct sthread *t);
/* events.c: open thread t's event on every CPU; the per-CPU rings; the
 * event choice (fills s->ev); one event per CPU for every task and its
 * close. 0 or -errno (EACCES/EPERM: the door). */
int samp_thread_open(struct samp_session *s, struct sthread *t);
int samp_open_rings(struct samp_session *s, struct ps_error *e);
int samp_choose_event(struct samp_session *s, struct ps_error *e);
int samp_percpu_open(struct samp_session *s);
void samp_percpu_close(struct samp_session *s);
/* record.c: the consumer of one process's records; machine.c: of every
 * process's (their on_sample is samp_on_sample). */
extern const struct perf_consumer samp_process_consumer, samp_machine_consumer;
void samp_on_sample(void *arg, const struct perf_sample *r);
/* The call stack of sample r in sp as location ids of s->agg, leaf first
 * (fr: SAMP_MAX_FRAMES): the kernel part from the callchain, the user
 * part from the frame pointers or r's stack copy unwound with the CFI
 * (the unwind counters of s counted). *leaf_user: the user pc the thread
 * stopped at when the stack has no kernel part, else 0. Returns the
 * number of frames. */
unsigned samp_frames(struct samp_session *s, struct samp_space *sp, const struct perf_sample *r, uint32_t *fr,
		     uint64_t *leaf_user);

/* samp_space: open (pid's symbolizer view with sym_opts, an unwinder
 * with stack copies), free. */
int samp_space_init(struct samp_space *sp, pid_t pid, uid_t uid, unsigned sym_opts, bool unwind);
void samp_space_fini(struct samp_space *sp);

/* machine.c: the machine-wide session. */
int samp_machine_open(struct samp_session *s, struct ps_error *e);
/* The process slot of pid (created, named from /proc, when unknown). */
struct mproc *samp_machine_proc(struct samp_session *s, pid_t pid);
/* Its address space, or NULL (a kernel thread, gone, no memory). */
struct samp_space *samp_machine_space(struct samp_session *s, struct mproc *p);
/* Fill the snapshot's process table. 0 or -ENOMEM. */
int samp_machine_publish(struct samp_session *s, struct samp_snapshot *o);
void samp_machine_close(struct samp_session *s);
/* Busy CPU time of the whole machine (/proc/stat), in clock ticks. */
unsigned long long samp_machine_ticks(void);

#endif
