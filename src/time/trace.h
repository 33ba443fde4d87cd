/* The tracepoint tier's records and the state machine they drive (pure:
 * trace-state.c, unit-tested on made-up records), apart from the events
 * and rings (tier-trace.c). */
#ifndef PS_TIME_TRACE_H
#define PS_TIME_TRACE_H

#include "hmap.h"
#include "time/model.h"

#include <stdint.h>
#include <sys/types.h>

enum tt_kind { TT_SWITCH, TT_WAKEUP, TT_WAKEUP_NEW, TT_SYS_ENTER, TT_SYS_EXIT, TT_KINDS };
#define TT_SAMPLE TT_KINDS /* a cpu-clock sample, queued for the timeline only (tt_apply skips it) */
#define TT_FAULT (TT_KINDS + 1) /* a page fault, likewise */
enum tt_state { TT_UNKNOWN, TT_ONCPU, TT_RUNQ, TT_BLOCKED, TT_STOPPED };

/* One record, as read: the fields the state machine needs. */
struct tt_ev {
	uint64_t time;
	enum tt_kind kind;
	int cpu;
	pid_t tid;               /* the thread whose context it came from */
	pid_t a, b;              /* switch: prev, next; wakeup: pid; sys: id */
	int64_t state_or_ret;    /* switch: prev_state; sys_exit: ret */
	char comm[16];           /* switch: prev_comm (hostile) */
};

/* One thread's stretch in progress, and what the records measured. */
struct tt_thread {
	pid_t tid;
	enum tt_state state;
	unsigned hints;          /* TM_H_* of its block */
	int sys_block, sys_cur;  /* syscall it blocked in; in progress (-1) */
	uint64_t since, sys_t0;  /* 0: not known (before the first record) */
	uint64_t stopped, blocked[TM_R_COUNT];
	struct tm_thread acc;    /* syscalls, run-queue histogram, worst waits */
	int *fds;                /* tier-trace.c: its syscall events */
};

/* The threads followed, by tid. */
struct tt_threads {
	struct tt_thread *v;
	size_t n, cap;
	struct hmap by_tid;      /* tid -> index */
};

struct tt_thread *tt_find(struct tt_threads *ts, pid_t tid);
/* Follow tid (a zeroed state, unknown): the entry, or NULL without memory. */
struct tt_thread *tt_add(struct tt_threads *ts, pid_t tid);
/* Forget every stretch in progress (the records stopped for a while). */
void tt_reset(struct tt_threads *ts);
/* Apply one record, in time order. */
void tt_apply(struct tt_threads *ts, const struct tt_ev *x);
void tt_free(struct tt_threads *ts);

#endif
