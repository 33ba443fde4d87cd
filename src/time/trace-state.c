/* The tracepoint tier's state machine: a thread's records in time order
 * give its blocked stretches and why, its stops, its run-queue waits (and
 * what ran instead) and its system calls' latencies -- as the BPF
 * programs do in the kernel. Pure. */
#include "time/trace.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct tt_thread *tt_find(struct tt_threads *ts, pid_t tid)
{
	uint64_t i = hmap_get(&ts->by_tid, (uint64_t)tid);
	return i == HMAP_NONE ? NULL : &ts->v[i];
}

struct tt_thread *tt_add(struct tt_threads *ts, pid_t tid)
{
	struct tt_thread *t = tt_find(ts, tid);

	if (t)
		return t;
	if (array_reserve((void **)&ts->v, &ts->cap, ts->n, sizeof(*ts->v), 16) < 0 ||
	    hmap_put(&ts->by_tid, (uint64_t)tid, ts->n) < 0)
		return NULL;
	t = &ts->v[ts->n++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->sys_block = t->sys_cur = -1;
	return t;
}

void tt_reset(struct tt_threads *ts)
{
	for (size_t i = 0; i < ts->n; i++) {
		ts->v[i].state = TT_UNKNOWN;
		ts->v[i].since = 0;
		ts->v[i].sys_cur = -1;
		ts->v[i].sys_t0 = 0;
	}
}

static void end_blocked(struct tt_thread *t, uint64_t d)
{
	if (t->state == TT_STOPPED) {
		t->stopped += d;
	} else if (t->state == TT_BLOCKED) {
		enum tm_reason r = tm_reason_of(t->sys_block, t->hints);
		t->blocked[r] += d;
		if (t->sys_block >= 0) {
			struct tm_syscall *c = tm_thread_syscall(&t->acc, t->sys_block);
			if (c)
				c->blocked_ns += d;
		}
	}
}

/* One record, in time order: the same state machine as the BPF tier's. */
void tt_apply(struct tt_threads *ts, const struct tt_ev *x)
{
	struct tt_thread *t;

	switch (x->kind) {
	case TT_SWITCH:
		if ((t = tt_find(ts, x->a))) {
			t->sys_block = -1;
			t->hints = 0;
			if (x->state_or_ret & 0x80) /* TASK_DEAD */
				t->state = TT_UNKNOWN;
			else if (!x->state_or_ret)
				t->state = TT_RUNQ;
			else if (x->state_or_ret & (4 | 8))
				t->state = TT_STOPPED;
			else {
				t->state = TT_BLOCKED;
				t->sys_block = t->sys_cur;
				t->hints = x->state_or_ret & 2 ? TM_H_DSTATE : 0; /* TASK_UNINTERRUPTIBLE */
			}
			t->since = x->time;
		}
		if ((t = tt_find(ts, x->b))) {
			if (t->state == TT_RUNQ && t->since) {
				uint64_t d = x->time > t->since ? x->time - t->since : 0;
				tm_hist_add(&t->acc.runq_hist, d);
				t->acc.runq_count++;
				struct tm_wait w = { .ns = d, .tid = t->tid, .ran_tid = x->a, .cpu = x->cpu };
				memcpy(w.ran_comm, x->comm, sizeof(w.ran_comm));
				w.ran_comm[sizeof(w.ran_comm) - 1] = '\0';
				tm_worst_add(t->acc.worst, &t->acc.nworst, &w);
			} else if ((t->state == TT_BLOCKED || t->state == TT_STOPPED) && t->since) {
				end_blocked(t, x->time - t->since);
			}
			t->state = TT_ONCPU;
			t->since = x->time;
		}
		break;
	case TT_WAKEUP:
	case TT_WAKEUP_NEW:
		if (!(t = tt_find(ts, x->a)))
			break;
		if (t->state == TT_BLOCKED || t->state == TT_STOPPED) {
			if (t->since)
				end_blocked(t, x->time > t->since ? x->time - t->since : 0);
		} else if (t->state != TT_UNKNOWN && x->kind == TT_WAKEUP) {
			break; /* already runnable */
		}
		t->state = TT_RUNQ;
		t->since = x->time;
		break;
	case TT_SYS_ENTER:
		if ((t = tt_find(ts, x->tid))) {
			t->sys_cur = x->a;
			t->sys_t0 = x->time;
		}
		break;
	case TT_SYS_EXIT:
		if (!(t = tt_find(ts, x->tid)))
			break;
		if (t->sys_cur == x->a && t->sys_t0) {
			struct tm_syscall *c = tm_thread_syscall(&t->acc, x->a);
			uint64_t d = x->time > t->sys_t0 ? x->time - t->sys_t0 : 0;
			if (c) {
				c->count++;
				c->errors += x->state_or_ret < 0 && x->state_or_ret >= -4095;
				c->total_ns += d;
				if (d > c->max_ns)
					c->max_ns = d;
				if (!c->min_ns || d < c->min_ns)
					c->min_ns = d;
				tm_hist_add(&c->hist, d);
			}
		}
		t->sys_cur = -1;
		t->sys_t0 = 0;
		break;
	case TT_KINDS:
		break;
	}
}

void tt_free(struct tt_threads *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		tm_thread_free(&ts->v[i].acc);
	free(ts->v);
	hmap_free(&ts->by_tid);
	memset(ts, 0, sizeof(*ts));
}
