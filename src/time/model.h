/* Where a thread's time goes: the model every tier fills (BPF, tracepoints,
 * /proc) and every consumer reads (pscope time, later the Time pane and a
 * recording). A snapshot is plain immutable data with its own timestamps:
 * cumulative since the window began, so two snapshots give a rolling
 * window (tm_snapshot_diff). Pure: no I/O here. */
#ifndef PS_TIME_MODEL_H
#define PS_TIME_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "target.h"

#define TM_HIST 36  /* log2 buckets of ns: [2^i, 2^(i+1)); 0 holds 0 and 1, the last the rest */
#define TM_WORST 8  /* worst run-queue waits kept (per thread and per process) */

enum tm_tier { TM_TIER_BPF, TM_TIER_TRACE, TM_TIER_PROC, TM_TIER_COUNT };

/* Why a blocked thread waits. */
enum tm_reason {
	TM_R_LOCK,   /* futex, file locks, semaphores */
	TM_R_SLEEP,  /* nanosleep, pause, sigsuspend */
	TM_R_POLL,   /* poll, select, epoll */
	TM_R_IO,     /* block I/O: io_schedule, fsync... */
	TM_R_IPC,    /* pipe, socket, terminal, message queue */
	TM_R_FAULT,  /* a page fault */
	TM_R_OTHER,
	TM_R_COUNT
};

/* What a blocked thread's state says besides its syscall (tm_reason_of). */
#define TM_H_IOWAIT 1u  /* in io_schedule (BPF: task_struct.in_iowait) */
#define TM_H_FAULT 2u   /* inside a page fault */
#define TM_H_DSTATE 4u  /* uninterruptible sleep, "D" (the /proc hint for I/O) */

/* Which figures a snapshot has (tm_snapshot.have): a tier leaves out what
 * it cannot measure, and says so rather than print a zero. */
#define TM_HAVE_SYSCALLS 0x01u  /* per-syscall count, errors, latency */
#define TM_HAVE_FAULT_NS 0x02u  /* time in page faults */
#define TM_HAVE_RUNQ_HIST 0x04u /* run-queue wait histogram */
#define TM_HAVE_WORST 0x08u     /* worst waits and who ran instead */
#define TM_HAVE_MIGR 0x10u      /* migrations */
#define TM_HAVE_DELAY 0x20u     /* taskstats delay accounting */

/* Statistical parts (tm_snapshot.sampled). */
#define TM_SAMPLED_BLOCKED 0x01u  /* blocked reasons from samples of /proc */
#define TM_SAMPLED_EVENTS 0x02u   /* tracepoint events sampled above a rate */

struct tm_hist {
	uint64_t b[TM_HIST];
};

struct tm_syscall {
	int nr;
	uint64_t count, errors, total_ns, min_ns, max_ns;
	uint64_t blocked_ns;  /* off CPU inside it */
	uint64_t iowait_ns;   /* of that, in io_schedule */
	uint64_t samples;     /* /proc tier: samples that found the thread in it */
	struct tm_hist hist;  /* latency */
};

struct tm_wait {
	uint64_t ns;
	pid_t tid;            /* the thread that waited */
	pid_t ran_tid;        /* what the CPU ran until it got it (0: unknown) */
	int cpu;
	char ran_comm[16];    /* hostile */
};

/* Taskstats delay accounting (ns), when the kernel keeps it. */
struct tm_delay {
	uint64_t cpu, blkio, swapin, freepages, thrashing, compact, wpcopy, irq;
};

struct tm_thread {
	pid_t tid;
	char comm[64];        /* hostile */
	bool exited;          /* gone before the window ended */
	unsigned threads;     /* how many threads it sums (1 for a thread) */
	uint64_t span_ns;     /* how long it was in the window */
	uint64_t oncpu_ns, runq_ns, stopped_ns;
	uint64_t blocked_ns[TM_R_COUNT];
	uint64_t vol, invol, migrations;
	uint64_t minflt, majflt, fault_ns;
	uint64_t runq_count;  /* waits that ended */
	struct tm_hist runq_hist;
	struct tm_wait worst[TM_WORST];
	unsigned nworst;
	struct tm_syscall *sys; /* by nr */
	size_t nsys;
	struct tm_delay delay;
};

/* Pressure stall over the window (PSI), of the machine or a cgroup: the
 * stall time of some (at least one task) and full (every task). */
enum tm_psi_res { TM_PSI_CPU, TM_PSI_MEM, TM_PSI_IO, TM_PSI_COUNT };
struct tm_psi {
	bool have[TM_PSI_COUNT], have_full[TM_PSI_COUNT];
	uint64_t some_us[TM_PSI_COUNT], full_us[TM_PSI_COUNT];
};

/* The cost of one BPF program (bpf_enable_stats). */
struct tm_cost {
	char name[24];
	uint64_t run_ns, run_cnt;
};

struct tm_snapshot {
	enum tm_tier tier;
	char source[384];     /* what the figures come from: programs, tracepoints, files */
	char tier_note[512];  /* why this tier (a tier above it refused, with its door) */
	unsigned have;        /* TM_HAVE_* */
	unsigned sampled;     /* TM_SAMPLED_* */
	struct target_id target; /* pid 0: the machine */
	char comm[64];        /* hostile */
	uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC */
	struct tm_thread *threads; /* by tid */
	size_t nthreads;
	struct tm_thread total;    /* the process: sums over its threads */
	uint64_t drops;       /* entries or events that did not fit (counted, not lost silently) */
	uint64_t samples;     /* /proc tier: sampling rounds; trace tier: events kept */
	uint64_t events;      /* trace tier: events seen */
	double sample_hz;     /* /proc tier: the rate of its samples */
	struct tm_cost cost[8];
	unsigned ncost;
	char ended[160];      /* why the window ended early, "" when it did not */
	char delay_note[256]; /* delay accounting: off, refused, or which tasks it covers */
	struct tm_psi psi_machine, psi_cgroup; /* /proc/pressure, the target's cgroup v2 */
	char cgroup[256];     /* the target's cgroup v2 directory, "" when none (hostile) */
	/* The time job with a timeline (tm_opts.timeline_s): the chunks of
	 * the last seconds, oldest first, one reference each. */
	struct tm_tlchunk **tl;
	size_t ntl;
	unsigned timeline_s;  /* the seconds asked for */
};

/* The reason of a blocked stretch: from the system call it is in (nr < 0:
 * none) and what its state says (TM_H_*). */
enum tm_reason tm_reason_of(long nr, unsigned hints);
/* From a /proc wchan name alone (when the syscall is unreadable). */
enum tm_reason tm_reason_of_wchan(const char *wchan, unsigned hints);
/* "lock", "sleep", ... (JSON keys, English). */
const char *tm_reason_key(enum tm_reason r);
/* "futex/lock", "sleep", ... translated, for people. */
const char *tm_reason_label(enum tm_reason r);
/* "bpf", "trace", "proc". */
const char *tm_tier_name(enum tm_tier t);
/* The tier named s, or -1. */
int tm_tier_parse(const char *s);

/* log2 bucket of v (ns). */
unsigned tm_bucket(uint64_t v);
void tm_hist_add(struct tm_hist *h, uint64_t v);
uint64_t tm_hist_count(const struct tm_hist *h);
/* The q quantile (0..1) estimated from the buckets (linear inside one),
 * kept within [min, max] (each when not 0). 0 for an empty histogram. */
uint64_t tm_hist_quantile(const struct tm_hist *h, double q, uint64_t min, uint64_t max);

uint64_t tm_blocked_sum(const struct tm_thread *t);
/* The two reasons t was blocked most, with their shares of its blocked
 * time ("sleep 98%, futex/lock 2%"), or "-" when it never blocked. */
const char *tm_blocked_str(const struct tm_thread *t, char *buf, size_t size);
/* ns as a share of the window, in percent. */
double tm_pct(const struct tm_snapshot *s, uint64_t ns);
double tm_window_s(const struct tm_snapshot *s);

/* One (thread, syscall) entry, made on first use; NULL without memory. */
struct tm_syscall *tm_thread_syscall(struct tm_thread *t, int nr);
/* Add one worst wait, keeping worst[] sorted, largest first. */
void tm_worst_add(struct tm_wait *w, unsigned *n, const struct tm_wait *add);

/* Sort the threads by tid and every syscall table by total time (then
 * samples, count), and make the process total. 0 or -ENOMEM. */
int tm_snapshot_finish(struct tm_snapshot *s);
/* new minus old (the same target, old taken earlier): the window between
 * them, threads matched by tid. NULL without memory. */
struct tm_snapshot *tm_snapshot_diff(const struct tm_snapshot *old_s, const struct tm_snapshot *new_s);
void tm_thread_free(struct tm_thread *t);
void tm_snapshot_free(struct tm_snapshot *s);

#endif
