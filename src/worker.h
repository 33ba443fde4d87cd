/* Backend worker threads and their job queues, in two lanes:
 *   LANE_ATTACH runs one job at a time, in order: each stops its target
 *     (stack dumps, writing a core) or reads a big file (reading a core).
 *   LANE_LONG runs every job at once, each on a thread of its own (made on
 *     demand, kept for the next job): samplers, tracers, recorders and the
 *     sources behind the screens, which run until cancelled.
 * Jobs report through the ring only; the UI never waits on a worker.
 *
 * A job is submitted with its handler: the UI drains the ring and hands
 * each message to workers_dispatch(), which calls the handler the job was
 * submitted with, in order, until the job's RING_DONE. Each backend wraps
 * workers_submit in one function of the same shape:
 *     unsigned xxx_submit(struct workers *w, const struct target_id *id,
 *                         <its options>, const struct job_handler *h);
 * (stk_submit, samp_job_submit, core_job_submit, source_submit). */
#ifndef PS_WORKER_H
#define PS_WORKER_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ring.h"
#include "target.h"

enum worker_lane { LANE_ATTACH, LANE_LONG, LANE_COUNT };

/* The most LANE_LONG jobs that run at once; more wait for one to end. */
#define WORKERS_LONG_MAX 16

struct job {
	unsigned id;
	struct target_id target;
	atomic_bool cancel;            /* set by workers_cancel; poll it often */
	struct ring *ring;
	void *arg;                     /* job input, freed with arg_free */
	void (*arg_free)(void *);
	/* Body: do the work, post RESULT or ERROR through job_result/job_error.
	 * Returning is enough; the worker posts RING_DONE afterwards. */
	void (*run)(struct job *j);
	/* private to worker.c */
	struct workers *w;
	bool woken;                    /* workers_wake since the last job_wait */
	struct job *next;
};

/* Who hears a job: on_message runs on the thread that drains the ring, for
 * every message of the job; true keeps m->payload (the handler frees it
 * later). */
struct job_handler {
	bool (*on_message)(void *ctx, struct ring_msg *m);
	void *ctx;
};

struct workers;

struct workers *workers_new(struct ring *r);
/* Cancels every job, joins the threads. */
void workers_free(struct workers *w);
/* Queue a job; returns its id (> 0), or 0 when out of memory or the lane
 * cannot run it (arg is freed then). h (may be NULL) hears its messages. */
unsigned workers_submit(struct workers *w, enum worker_lane lane, const struct target_id *target,
			void (*run)(struct job *), void *arg, void (*arg_free)(void *), const struct job_handler *h);
/* Hand a drained message to its job's handler; the result is the
 * handler's (true: payload kept). false without a handler: the caller
 * releases it. The handler is forgotten after the job's RING_DONE. */
bool workers_dispatch(struct workers *w, struct ring_msg *m);
/* Stop telling job id's handler (its owner goes away); messages of the job
 * still in the ring are then released unread. */
void workers_forget(struct workers *w, unsigned id);
/* Ask job id to stop (queued: removed; running: its cancel flag is set and
 * a job_wait in progress returns at once). */
void workers_cancel(struct workers *w, unsigned id);
/* End job id's job_wait now (the screen changed what it wants read). A
 * wake for a job not waiting is kept for its next job_wait. */
void workers_wake(struct workers *w, unsigned id);

/* For job bodies. */
static inline bool job_cancelled(struct job *j)
{
	return atomic_load_explicit(&j->cancel, memory_order_relaxed);
}
/* Sleep up to timeout_ns, less when woken (workers_wake) or cancelled.
 * Returns true when woken, false otherwise (timeout or cancel: see
 * job_cancelled). */
bool job_wait(struct job *j, uint64_t timeout_ns);
void job_progress(struct job *j, double fraction, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void job_snapshot(struct job *j, void *payload, void (*payload_free)(void *));
void job_result(struct job *j, void *payload, void (*payload_free)(void *));
void job_error(struct job *j, const struct ps_error *e);

#endif
