/* The off-CPU tracer's records (offcpu.c opens their events): queued by
 * the consumers of the three ring sets, applied in time order -- a
 * switch-out asleep begins a block (its sample kept), the first wakeup
 * names its waker (its sample kept), the switch-in ends it: a block of at
 * least min_block is unwound and weighed then, its waker's stack into the
 * waker profile, the pair counted. */
#include "sample/agg.h"
#include "sample/local.h"
#include "sample/offcpu.h"
#include "sample/session.h"
#include "sample/sample.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A sample kept past its callback: its chain, registers and stack copy. */
static struct oc_copy *copy_of(const struct perf_sample *s)
{
	size_t regs = s->regs ? SAMP_NREGS : 0;
	struct oc_copy *c = malloc(sizeof(*c) + (s->nr + regs) * sizeof(uint64_t) + s->stack_size);

	if (!c)
		return NULL;
	c->s = *s;
	uint64_t *p = c->data;
	if (s->nr)
		memcpy(p, s->ips, s->nr * sizeof(uint64_t));
	c->s.ips = p;
	p += s->nr;
	if (regs) {
		memcpy(p, s->regs, regs * sizeof(uint64_t));
		c->s.regs = p;
		p += regs;
	}
	if (s->stack_size)
		memcpy(p, s->stack, s->stack_size);
	c->s.stack = (const unsigned char *)p;
	c->s.raw = NULL;
	c->s.raw_size = 0;
	return c;
}

struct othread *oc_thread_of(struct ocpu *o, pid_t tid)
{
	uint32_t i = samp_id_get(&o->tids, (uint64_t)tid);
	return i == SAMP_NONE ? NULL : &o->threads[i];
}

/* A task's name as the scheduler's records last gave it ("?" unknown). */
static const char *comm_of(struct ocpu *o, pid_t tid)
{
	struct othread *t = oc_thread_of(o, tid);
	uint32_t i = samp_id_get(&o->comm_idx, (uint64_t)tid);

	if (t && t->th.comm[0])
		return t->th.comm;
	return i == SAMP_NONE ? "?" : o->comms[i].comm;
}

static void learn_comm(struct ocpu *o, pid_t tid, const char *comm)
{
	uint32_t i = samp_id_get(&o->comm_idx, (uint64_t)tid);

	if (i != SAMP_NONE) {
		if (strncmp(o->comms[i].comm, comm, 16))
			strlcpy_ps(o->comms[i].comm, comm, sizeof(o->comms[i].comm));
		return;
	}
	if (o->ncomms >= OC_COMMS_MAX)
		return; /* named "?" past the cap */
	if (array_reserve((void **)&o->comms, &o->capcomms, o->ncomms, sizeof(*o->comms), 256) < 0 ||
	    hmap_put(&o->comm_idx, (uint64_t)tid, o->ncomms) < 0)
		return;
	strlcpy_ps(o->comms[o->ncomms].comm, comm, sizeof(o->comms[o->ncomms].comm));
	o->ncomms++;
}

static void push(struct ocpu *o, const struct oc_ev *x)
{
	if (array_reserve((void **)&o->q, &o->qcap, o->nq, sizeof(*o->q), 1024) < 0) {
		free(x->copy);
		o->dropped++;
		return;
	}
	o->q[o->nq++] = *x;
	if (x->time > o->newest)
		o->newest = x->time;
}

/* Records of every task on a CPU: a target thread running again, or
 * woken (by a task of any process, or an interrupt). */
static void on_cpu_tp(void *ctx, const struct perf_sample *s, const struct perf_tp_event *ev)
{
	struct ocpu *o = ctx;
	struct oc_ev x = { .time = s->time };

	if (ev->tp->kind == PERF_TP_SCHED_SWITCH) {
		learn_comm(o, ev->sw.prev_pid, ev->sw.prev_comm);
		struct othread *t = oc_thread_of(o, ev->sw.next_pid);
		if (!t)
			return;
		if (s->time > t->last_in)
			t->last_in = s->time;
		x.kind = OC_IN;
		x.tid = ev->sw.next_pid;
	} else if (ev->tp->kind == PERF_TP_SCHED_WAKEUP) {
		struct othread *w = oc_thread_of(o, (pid_t)s->tid);
		if (!oc_thread_of(o, ev->wk.pid))
			return;
		/* A target thread's own events bring its user stack. */
		if (w && w->fds && w->fds[0] >= 0)
			return;
		x.kind = OC_WAKE;
		x.tid = ev->wk.pid;
		x.waker = (pid_t)s->tid;
		if (!(x.copy = copy_of(s))) {
			o->dropped++;
			return;
		}
	} else {
		return;
	}
	push(o, &x);
}

/* Records of a target thread's own events: it switches out (its stack),
 * or it wakes a thread of the target (its stack too). */
static void on_task_tp(void *ctx, const struct perf_sample *s, const struct perf_tp_event *ev)
{
	struct ocpu *o = ctx;
	struct oc_ev x = { .time = s->time };

	if (ev->tp->kind == PERF_TP_SCHED_SWITCH) {
		if (ev->sw.prev_pid != (pid_t)s->tid || !oc_thread_of(o, ev->sw.prev_pid))
			return;
		x.kind = OC_OUT;
		x.tid = ev->sw.prev_pid;
		x.state = ev->sw.prev_state;
		/* Preempted, or still runnable: waiting for a CPU, not a block. */
		if (x.state == 0 || (x.state & OC_PREEMPTED)) {
			push(o, &x);
			return;
		}
		struct othread *t = oc_thread_of(o, x.tid);
		if (o->py && t && s->time >= t->py_pend_t0) {
			t->py_pending = true; /* its chain read once the switch-ins are */
			t->py_pend_t0 = s->time;
		}
	} else if (ev->tp->kind == PERF_TP_SCHED_WAKEUP) {
		if (!oc_thread_of(o, ev->wk.pid) || !oc_thread_of(o, (pid_t)s->tid))
			return;
		x.kind = OC_WAKE;
		x.tid = ev->wk.pid;
		x.waker = (pid_t)s->tid;
	} else {
		return;
	}
	if (!(x.copy = copy_of(s))) {
		o->dropped++;
		return;
	}
	push(o, &x);
}

const struct perf_consumer oc_cpu_consumer = { .on_tracepoint = on_cpu_tp };
const struct perf_consumer oc_task_consumer = { .on_tracepoint = on_task_tp };

/* Room for index i in an array of cap elements. 0 or -ENOMEM. */
static int reserve_to(void **v, size_t *cap, size_t i, size_t elem)
{
	while (i >= *cap)
		if (array_reserve(v, cap, *cap, elem, 256) < 0)
			return -ENOMEM;
	return 0;
}

/* Did the wakeup come from an interrupt (a timer's, a device's) that
 * happened to stop the task it names? Its kernel chain says so: the
 * length of the chain up to the interrupt's entry (what it interrupted
 * left out), or 0. */
static uint64_t from_interrupt(const struct perf_sample *w)
{
	static const char *const entries[] = { "asm_sysvec_", "asm_common_interrupt", "handle_softirqs", "__do_softirq",
					       "asm_exc_", "irq_exit" };
	bool kernel = false;

	if (!sym_kernel_named())
		return false;
	for (uint64_t i = 0; i < w->nr; i++) {
		uint64_t v = w->ips[i];
		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = v == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (!kernel)
			continue;
		const char *fn, *mod;
		sym_kernel(v, &fn, &mod);
		for (size_t k = 0; fn && k < sizeof(entries) / sizeof(entries[0]); k++)
			if (!strncmp(fn, entries[k], strlen(entries[k])))
				return i + 1;
	}
	return 0;
}

/* Leave out the tracing machinery at the leaf of a switch-out's kernel
 * chain (__traceiter_sched_switch and the like appear while other
 * tracers are attached to the tracepoint): not where the thread slept. */
static void skip_tracing(struct perf_sample *s)
{
	static const char *const prefixes[] = { "__traceiter_", "perf_trace_", "__bpf_trace_", "trace_event_raw_event_",
						"perf_tp_event", "bpf_trace_run" };
	uint64_t k = 1;

	if (s->nr < 2 || s->ips[0] != (uint64_t)PERF_CONTEXT_KERNEL || !sym_kernel_named())
		return;
	for (; k < s->nr && s->ips[k] < (uint64_t)PERF_CONTEXT_MAX; k++) {
		const char *fn, *mod;
		bool tracing = false;
		sym_kernel(s->ips[k], &fn, &mod);
		for (size_t i = 0; fn && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			tracing = tracing || !strncmp(fn, prefixes[i], strlen(prefixes[i]));
		if (!tracing)
			break;
	}
	if (k == 1 || k >= s->nr)
		return;
	/* Our copy: the context marker moves down over the frames left out. */
	uint64_t *ips = (uint64_t *)s->ips;
	ips[k - 1] = (uint64_t)PERF_CONTEXT_KERNEL;
	s->ips = ips + k - 1;
	s->nr -= k - 1;
}

/* Weigh the block of t that ended at `end`. */
static void account(struct ocpu *o, struct othread *t, uint64_t end)
{
	struct samp_session *s = &o->s;
	uint32_t fr[SAMP_MAX_FRAMES];
	uint64_t leaf, w = end - t->t0;

	if (w < o->min_block_ns) {
		o->short_blocks++;
		return;
	}
	skip_tracing(&t->out->s);
	unsigned n = samp_frames(s, &s->one, &t->out->s, fr, &leaf);
	n = oc_py_merge(o, t, fr, n);
	uint32_t id = agg_add_stack(s->agg, t->th.tid, fr, n, SAMP_NONE, w);
	if (id == SAMP_NONE)
		return;
	o->blocks++;
	if (reserve_to((void **)&o->stack_blocks, &o->capsb, id, sizeof(*o->stack_blocks)) == 0 &&
	    reserve_to((void **)&o->stack_runq, &o->caprq, id, sizeof(*o->stack_runq)) == 0) {
		for (size_t i = o->nsb; i <= id; i++)
			o->stack_blocks[i] = o->stack_runq[i] = 0;
		if (id >= o->nsb)
			o->nsb = id + 1;
		o->stack_blocks[id]++;
		/* Woken, then waiting for a CPU until it ran. */
		if (t->wake && t->woken >= t->t0 && t->woken <= end)
			o->stack_runq[id] += end - t->woken;
	}
	t->th.samples++;
	if (!t->wake) {
		o->unmatched++;
		return;
	}
	/* The waker's stack, in the waker profile's ids. */
	struct agg *main_agg = s->agg;
	struct hmap kp = s->kpcs, up = s->one.pcs;
	uint32_t kf = s->kernel_func;
	s->agg = o->wagg;
	s->kpcs = o->wkpcs;
	s->one.pcs = o->wpcs;
	s->kernel_func = o->wkernel_func;
	bool ours = oc_thread_of(o, t->waker) != NULL;
	struct perf_sample ws = t->wake->s;
	skip_tracing(&ws);
	uint64_t cut = from_interrupt(&ws);
	bool irq = cut != 0;
	if (irq) {
		ws.nr = cut;
		ws.regs = NULL; /* the interrupted task's user state is not the waker's */
		ws.stack_size = 0;
	}
	n = samp_frames(s, ours && !irq ? &s->one : NULL, &ws, fr, &leaf);
	char name[64];
	if (irq) /* whichever task it stopped: one waker */
		snprintf(name, sizeof(name), "interrupt"); /* a category: English in files, as the others */
	else
		snprintf(name, sizeof(name), "%s-%d", comm_of(o, t->waker), (int)t->waker);
	uint32_t wid = agg_add_stack(o->wagg, t->th.tid, fr, n, agg_category(o->wagg, name), w);
	o->wkpcs = s->kpcs;
	o->wpcs = s->one.pcs;
	o->wkernel_func = s->kernel_func;
	s->agg = main_agg;
	s->kpcs = kp;
	s->one.pcs = up;
	s->kernel_func = kf;
	if (wid == SAMP_NONE)
		return;
	/* One pair per block stack, waker and waker functions (the same
	 * functions at other call sites are one line of the report). */
	uint64_t key = hmap_mix((uint64_t)id << 32 | (uint32_t)(irq ? 0 : t->waker));
	for (unsigned i = 0; i < n; i++)
		key = hmap_mix(key ^ agg_loc_func(o->wagg, fr[i])) + i;
	uint32_t li = samp_id_get(&o->link_idx, key);
	if (li == SAMP_NONE) {
		if (array_reserve((void **)&o->links, &o->caplinks, o->nlinks, sizeof(*o->links), 64) < 0 ||
		    hmap_put(&o->link_idx, key, o->nlinks) < 0)
			return;
		li = o->nlinks++;
		o->links[li] = (struct samp_wake){ .stack = id, .wstack = wid, .waker = irq ? 0 : t->waker, .interrupt = irq };
		strlcpy_ps(o->links[li].comm, irq ? "" : comm_of(o, t->waker), sizeof(o->links[li].comm));
	}
	o->links[li].weight += w;
	o->links[li].blocks++;
}

void oc_forget_block(struct othread *t)
{
	free(t->out);
	free(t->wake);
	free(t->py);
	t->out = t->wake = NULL;
	t->py = NULL;
	t->blocked = false;
}

static void apply(struct ocpu *o, struct oc_ev *x)
{
	struct othread *t = oc_thread_of(o, x->tid);

	if (!t) {
		free(x->copy);
		free(x->py);
		return;
	}
	switch (x->kind) {
	case OC_OUT:
		oc_forget_block(t);
		t->py = x->py;
		if (x->copy) { /* asleep: a block begins */
			t->out = x->copy;
			t->t0 = x->time;
			t->blocked = true;
		}
		return;
	case OC_WAKE:
		if (t->blocked && !t->wake) { /* the first wakeup ends the block */
			t->wake = x->copy;
			t->waker = x->waker;
			t->woken = x->time;
		} else {
			free(x->copy);
		}
		return;
	case OC_IN:
		if (t->blocked && x->time >= t->t0)
			account(o, t, x->time);
		oc_forget_block(t);
		return;
	}
}

static int cmp_ev(const void *a, const void *b)
{
	const struct oc_ev *x = a, *y = b;
	return (x->time > y->time) - (x->time < y->time);
}

void oc_drain(struct ocpu *o, bool all)
{
	/* The switch-ins last: the chains of the threads that blocked are
	 * read knowing whether they ran again (offcpu-py.c). */
	for (int k = 0; k < SETS; k++) {
		if (k == SET_CPUSW)
			oc_py_before_switchins(o);
		for (unsigned r = 0; r < o->nrings; r++)
			perf_read(&o->rd[k], &o->rings[k][r]);
	}
	oc_py_after_switchins(o);
	sort_array(o->q, o->nq, sizeof(*o->q), cmp_ev);
	uint64_t mark = all ? UINT64_MAX : o->newest > OC_LAG_NS ? o->newest - OC_LAG_NS : 0;
	size_t i = 0;
	for (; i < o->nq && o->q[i].time <= mark; i++)
		apply(o, &o->q[i]);
	if (i > 0 && i < o->nq)
		memmove(o->q, o->q + i, (o->nq - i) * sizeof(*o->q));
	o->nq -= i;
}

