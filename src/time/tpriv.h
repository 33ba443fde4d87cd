/* Inside src/time/: the session, the tier interface, and the /proc view of
 * the target's threads that every tier starts from. */
#ifndef PS_TIME_TPRIV_H
#define PS_TIME_TPRIV_H

#include "reads.h"
#include "proc/psi.h"
#include "proc/taskstats.h"
#include "time/time.h"

#include <stdint.h>

/* One thread as /proc shows it at one moment. */
struct tm_pread {
	char state;                  /* stat: R S D T t Z X ... */
	char comm[64];               /* hostile */
	uint64_t run_ns, wait_ns;    /* schedstat */
	uint64_t at_ns;              /* when schedstat was read (now_ns) */
	bool schedstat;
	uint64_t minflt, majflt;     /* stat */
	uint64_t vol, invol;         /* status */
	uint64_t migrations;         /* sched: se.nr_migrations */
	bool migr;
	long sys_nr;                 /* syscall: PROC_SYSCALL_* or a number */
	char wchan[64];              /* "" when none or unreadable */
	struct proc_taskstats ts;    /* delay accounting, when the procset reads it */
};

/* What a sampling round reads (tm_pread_at). */
#define TM_READ_FULL 0u     /* everything */
#define TM_READ_SAMPLE 1u   /* state, syscall and wchan only */

struct tm_psys {
	int nr;
	uint64_t samples;
};

/* A thread of the target through the window. */
struct tm_pthread {
	pid_t tid;
	int dirfd;                   /* /proc/PID/task/TID; -1 once gone */
	bool gone, born;             /* exited; appeared after the first scan */
	uint64_t first_ns, last_ns;  /* seen from, last seen */
	struct tm_pread base, cur;   /* at first sight (zeros when born), latest */
	/* Sampling rounds that found it, and how. */
	uint64_t nsamp, samp_blocked, samp_stopped, samp_reason[TM_R_COUNT];
	struct tm_psys *psys;
	size_t npsys;
};

struct tm_procset {
	int taskfd;                  /* /proc/PID/task */
	struct proc_taskstats_sock ts; /* open when kernel.task_delayacct=1 and we may */
	bool delayacct;              /* the kernel keeps delay accounting */
	int ts_err;                  /* why the taskstats socket is not open (-errno), 0 */
	struct tm_pthread *v;        /* by tid */
	size_t n, cap;
	uint64_t rounds;             /* sampling rounds */
	bool scanned;
};

/* Read one thread; what is TM_READ_*; ts: a taskstats socket to read its
 * delays from, or NULL. 0 or -errno (-ESRCH: gone). */
PS_READS int tm_pread_at(int dirfd, pid_t tid, unsigned what, struct proc_taskstats_sock *ts, struct tm_pread *out);
/* The reason a /proc reading gives a blocked thread. */
enum tm_reason tm_pread_reason(const struct tm_pread *r);
/* Open the task directory of the process behind a /proc/PID dirfd. */
PS_READS int tm_procset_open(struct tm_procset *ps, int piddirfd);
/* Find new threads, re-read (full) every known one, note the gone. */
PS_READS int tm_procset_scan(struct tm_procset *ps, uint64_t now);
/* One sampling round: state, syscall, wchan of each thread; new threads
 * join. */
PS_READS int tm_procset_sample(struct tm_procset *ps, uint64_t now);
struct tm_pthread *tm_procset_find(struct tm_procset *ps, pid_t tid);
void tm_procset_close(struct tm_procset *ps);

struct tm_session;

struct tm_tier_ops {
	enum tm_tier tier;
	int (*open)(struct tm_session *s, struct ps_error *e);
	/* Periodic work for up to timeout_ms; NULL: only the session's checks. */
	int (*poll)(struct tm_session *s, int timeout_ms);
	/* The tier's figures since the start, into snap (threads, source,
	 * have, sampled...). */
	int (*fill)(struct tm_session *s, struct tm_snapshot *snap, uint64_t now);
	void (*close)(struct tm_session *s);
};

extern const struct tm_tier_ops tm_tier_bpf, tm_tier_trace, tm_tier_proc;

/* The doors of each tier, checked before it is tried (dirfd: /proc/PID). */
PS_READS int tm_proc_check(pid_t pid, int dirfd, struct ps_error *e);
PS_READS int tm_bpf_check(struct ps_error *e);
PS_READS int tm_trace_check(struct ps_error *e);

/* PSI totals at one moment, of the machine and of a cgroup (dir "": none). */
struct tm_psi_raw {
	struct proc_psi m[TM_PSI_COUNT], c[TM_PSI_COUNT];
	int m_ok[TM_PSI_COUNT], c_ok[TM_PSI_COUNT];
};
PS_READS void tm_psi_read(const char *dir, struct tm_psi_raw *out);
/* end - start into snap's psi_machine and psi_cgroup. */
void tm_psi_delta(const struct tm_psi_raw *start, const struct tm_psi_raw *end, struct tm_snapshot *snap);

struct tm_session {
	struct tm_opts o;
	struct target t;             /* o.pid != 0 */
	const struct tm_tier_ops *ops;
	char note[512];              /* why this tier */
	uint64_t start_ns;
	struct tm_procset ps;        /* the target's threads in /proc */
	char exec_comm[64];
	char cgroup[256];            /* the target's cgroup v2 directory, "" */
	struct tm_psi_raw psi0;      /* at the start */
	void *tier;                  /* the tier's own state */
};

/* A snapshot thread from a /proc thread: name, exited, span (from read to
 * read), and the /proc deltas (on CPU and run queue from schedstat, faults,
 * switches, migrations) the tiers may replace. */
void tm_thread_from_proc(struct tm_thread *t, const struct tm_pthread *p, uint64_t start_ns, uint64_t now);
/* The delay accounting of snap: TM_HAVE_DELAY, or why not (delay_note). */
void tm_delay_note(const struct tm_procset *ps, struct tm_snapshot *snap);
/* Append a thread to snap; NULL without memory. */
struct tm_thread *tm_snapshot_add(struct tm_snapshot *snap);

#endif
