/* The off-CPU tracer's state machine (src/sample/offcpu-rec.c) on
 * hand-made records, queued out of order as the three ring sets bring
 * them: a block weighed from its switch-out to its switch-in, the wait
 * for a CPU once woken counted apart, its waker matched by thread and
 * time; a preemption (prev_state 0 or TASK_REPORT_MAX) is a wait for a
 * CPU, not a block; a block under min_block only counted; a wakeup of
 * another thread, or one before the block, not matched to it. */
#include "sample/agg.h"
#include "sample/offcpu.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#define MS 1000000ULL

/* A record's sample: no stack (a kernel context alone). */
static struct oc_copy *copy_of(pid_t tid)
{
	struct oc_copy *c = calloc(1, sizeof(*c) + sizeof(uint64_t));
	c->data[0] = (uint64_t)PERF_CONTEXT_KERNEL;
	c->s.ips = c->data;
	c->s.nr = 1;
	c->s.tid = (uint32_t)tid;
	return c;
}

static void ev(struct ocpu *o, uint64_t t, int kind, pid_t tid, pid_t waker, int64_t state)
{
	struct oc_ev x = { .time = t, .kind = kind, .tid = tid, .waker = waker, .state = state };
	if (kind == OC_WAKE || (kind == OC_OUT && state != 0 && !(state & OC_PREEMPTED)))
		x.copy = copy_of(kind == OC_WAKE ? waker : tid);
	if (o->nq == o->qcap) {
		o->qcap = o->qcap ? 2 * o->qcap : 64;
		o->q = realloc(o->q, o->qcap * sizeof(*o->q));
	}
	o->q[o->nq++] = x;
	if (t > o->newest)
		o->newest = t;
}

static struct ocpu *new_tracer(void)
{
	struct ocpu *o = calloc(1, sizeof(*o));
	o->s.agg = agg_new(SAMP_UNIT_NS_BLOCKED);
	o->wagg = agg_new(SAMP_UNIT_NS_BLOCKED);
	o->s.kernel_func = o->wkernel_func = SAMP_NONE;
	o->min_block_ns = 1 * MS;
	o->threads = calloc(2, sizeof(*o->threads));
	o->capthreads = 2;
	pid_t tids[] = { 100, 101 };
	for (unsigned i = 0; i < 2; i++) {
		o->threads[i].th.tid = tids[i];
		hmap_put(&o->tids, (uint64_t)tids[i], i);
	}
	o->nthreads = 2;
	return o;
}

static void free_tracer(struct ocpu *o)
{
	for (unsigned i = 0; i < o->nthreads; i++)
		oc_forget_block(&o->threads[i]);
	for (size_t i = 0; i < o->nq; i++)
		free(o->q[i].copy);
	free(o->q);
	free(o->threads);
	hmap_free(&o->tids);
	hmap_free(&o->comm_idx);
	hmap_free(&o->link_idx);
	free(o->comms);
	free(o->links);
	free(o->stack_blocks);
	free(o->stack_runq);
	hmap_free(&o->s.kpcs);
	hmap_free(&o->wkpcs);
	hmap_free(&o->wpcs);
	agg_free(o->s.agg);
	agg_free(o->wagg);
	free(o);
}

static unsigned long long total_blocks(const struct ocpu *o)
{
	unsigned long long n = 0;
	for (size_t i = 0; i < o->nsb; i++)
		n += o->stack_blocks[i];
	return n;
}

static unsigned long long total_runq(const struct ocpu *o)
{
	unsigned long long n = 0;
	for (size_t i = 0; i < o->nsb; i++)
		n += o->stack_runq[i];
	return n;
}

int main(void)
{
	struct ocpu *o = new_tracer();

	/* Thread 100 sleeps 0..30 ms, woken at 29 ms by 101, runs at 31 ms:
	 * queued as the rings bring them, the switch-in first. */
	ev(o, 31 * MS, OC_IN, 100, 0, 0);
	ev(o, 29 * MS, OC_WAKE, 100, 101, 0);
	ev(o, 0, OC_OUT, 100, 0, 1 /* TASK_INTERRUPTIBLE */);
	oc_drain(o, false);
	is_int(o->blocks, 0, "within the lag of the newest record: nothing applied yet");
	oc_drain(o, true);
	is_int(o->blocks, 1, "applied in time order: one block");
	is_int(o->threads[0].th.samples, 1, "... of thread 100");
	is_int(total_blocks(o), 1, "... counted on its stack");
	is_int(total_runq(o), 2 * MS, "... 2 ms of it runnable, from the wakeup to the switch-in");
	is_int(o->unmatched, 0, "its waker matched");
	ok(o->nlinks == 1 && o->links[0].waker == 101 && o->links[0].weight == 31 * MS && o->links[0].blocks == 1,
	   "the pair: woken by 101, 31 ms, one block");

	/* Preempted (prev_state 0, and TASK_REPORT_MAX set): waits for a CPU. */
	ev(o, 100 * MS, OC_OUT, 100, 0, 0);
	ev(o, 140 * MS, OC_IN, 100, 0, 0);
	ev(o, 200 * MS, OC_OUT, 101, 0, OC_PREEMPTED);
	ev(o, 260 * MS, OC_IN, 101, 0, 0);
	oc_drain(o, true);
	is_int(o->blocks, 1, "preemptions are not blocks");
	is_int(o->short_blocks, 0, "... nor short blocks");

	/* A block under min_block: counted short, not weighed. */
	ev(o, 300 * MS, OC_OUT, 101, 0, 2 /* TASK_UNINTERRUPTIBLE */);
	ev(o, 300 * MS + MS / 2, OC_IN, 101, 0, 0);
	oc_drain(o, true);
	is_int(o->short_blocks, 1, "a 0.5 ms block: short");
	is_int(o->blocks, 1, "... not weighed");

	/* Wakeups of another thread, and one before the block, do not end it. */
	ev(o, 400 * MS, OC_WAKE, 100, 101, 0); /* before 100's block: dropped */
	ev(o, 401 * MS, OC_OUT, 100, 0, 1);
	ev(o, 405 * MS, OC_WAKE, 101, 100, 0); /* 101 woken, not 100 */
	ev(o, 420 * MS, OC_IN, 100, 0, 0);
	oc_drain(o, true);
	is_int(o->blocks, 2, "100's second block weighed");
	is_int(o->unmatched, 1, "... with no waker of its own: unmatched");
	is_int(total_runq(o), 2 * MS, "... and no run-queue wait added");
	ok(o->nlinks == 1 && o->links[0].weight == 31 * MS, "the first pair unchanged");

	/* A thread woken twice: the first wakeup names the waker. */
	ev(o, 500 * MS, OC_OUT, 101, 0, 1);
	ev(o, 510 * MS, OC_WAKE, 101, 100, 0);
	ev(o, 511 * MS, OC_WAKE, 101, 999, 0);
	ev(o, 515 * MS, OC_IN, 101, 0, 0);
	oc_drain(o, true);
	is_int(o->blocks, 3, "101's block weighed");
	ok(o->nlinks == 2 && o->links[1].waker == 100 && o->links[1].weight == 15 * MS,
	   "its waker the first: 100, 15 ms (got %u links)", (unsigned)o->nlinks);
	is_int(total_runq(o), 2 * MS + 5 * MS, "5 ms more runnable, from the first wakeup");
	is_int(o->nq, 0, "the queue drained");
	free_tracer(o);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
