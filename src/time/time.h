/* Where the time goes: one session measures one process (or the machine)
 * through the best tier the doors allow -- BPF, tracepoints through perf,
 * or /proc -- and publishes snapshots of the model (time/model.h). The
 * shape of the samplers: open, poll until done, publish, close. */
#ifndef PS_TIME_TIME_H
#define PS_TIME_TIME_H

#include <stdbool.h>
#include <sys/types.h>

#include "error.h"
#include "reads.h"
#include "target.h"
#include "time/model.h"
#include "time/timeline.h"

#define TM_PROC_HZ_DEFAULT 40 /* /proc tier: samples of syscall and wchan per second */
#define TM_PROC_HZ_MAX 100
#define TM_TRACE_RATE_DEFAULT 20000 /* trace tier: events per second kept before sampling */

struct tm_opts {
	pid_t pid;                     /* 0: every process (the machine) */
	const struct target_id *want;  /* refuse a pid that now names another process; may be NULL */
	int tier;                      /* a tm_tier, or -1: the best the doors allow */
	int proc_hz;                   /* 0: TM_PROC_HZ_DEFAULT */
	long trace_rate;               /* 0: TM_TRACE_RATE_DEFAULT */
	bool no_syscalls;              /* leave out the per-syscall tracing (its cost) */
	bool bpf_stats;                /* bpf tier: time the programs (bpf_enable_stats) */
	/* trace tier: every record of the target's threads kept here too,
	 * with cpu-clock samples at TM_TL_SAMPLE_HZ (the caller's; NULL: no
	 * timeline). */
	struct tm_timeline *timeline;
	/* The time job: keep the last timeline_s seconds of the trace tier's
	 * records and hand them with every window (tm_snapshot.tl); 0: none. */
	unsigned timeline_s;
};
#define TM_TL_SAMPLE_HZ 99

struct tm_session;

/* Open the tier (the forced one, or the first the doors allow, noting
 * why each one above it was refused). Returns 0 or -errno with e naming
 * the door that refused (for a forced tier, or when none is allowed). */
PS_READS int tm_open(struct tm_session **s, const struct tm_opts *o, struct ps_error *e);
/* Wait up to timeout_ms, doing the tier's periodic work. 0; -ESRCH when
 * the process exited; -ESTALE when it exec'd (tm_exec_comm names the new
 * program). */
PS_READS int tm_poll(struct tm_session *s, int timeout_ms);
const char *tm_exec_comm(const struct tm_session *s);
/* The model from the window's start until now (ended: why it stopped
 * early, or NULL). NULL without memory. */
PS_READS struct tm_snapshot *tm_publish(struct tm_session *s, const char *ended);
enum tm_tier tm_session_tier(const struct tm_session *s);
void tm_close(struct tm_session *s);

/* Every process: a snapshot whose threads[] are the processes (tid is
 * the pid), from /proc schedstat. */
struct tm_machine;
PS_READS int tm_machine_open(struct tm_machine **m, struct ps_error *e);
PS_READS struct tm_snapshot *tm_machine_publish(struct tm_machine *m);
void tm_machine_close(struct tm_machine *m);

/* Why a tier cannot run here, without trying it: 0 when its doors look
 * open, else -errno with e naming the door. */
PS_READS int tm_tier_check(enum tm_tier t, pid_t pid, struct ps_error *e);

#endif
