/* Backend worker threads and their job queues. Two lanes: ATTACH (stack
 * dumps and cores, one at a time, since each stops the target) and SAMPLER
 * (long-running perf sampling until cancelled). Jobs report through the
 * ring only; the UI never waits on a worker. */
#ifndef PS_WORKER_H
#define PS_WORKER_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "ring.h"
#include "target.h"

enum job_type { JOB_STACK, JOB_CORE, JOB_SAMPLE, JOB_TYPE_COUNT };
enum worker_lane { LANE_ATTACH, LANE_SAMPLER, LANE_COUNT };

struct job {
	unsigned id;
	enum job_type type;
	struct target_id target;
	atomic_bool cancel;            /* set by workers_cancel; poll it often */
	struct ring *ring;
	void *arg;                     /* job input, freed with arg_free */
	void (*arg_free)(void *);
	/* Body: do the work, post RESULT or ERROR through job_result/job_error.
	 * Returning is enough; the worker posts RING_DONE afterwards. */
	void (*run)(struct job *j);
	struct job *next;
};

struct workers;

struct workers *workers_new(struct ring *r);
/* Cancels every job, joins the threads. */
void workers_free(struct workers *w);
/* Queue a job; returns its id (> 0), or 0 when out of memory or the lane has
 * no thread (arg is freed then). */
unsigned workers_submit(struct workers *w, enum worker_lane lane, enum job_type type,
			const struct target_id *target, void (*run)(struct job *), void *arg,
			void (*arg_free)(void *));
/* Ask job id to stop (queued: removed; running: its cancel flag is set). */
void workers_cancel(struct workers *w, unsigned id);

/* For job bodies. */
static inline bool job_cancelled(struct job *j)
{
	return atomic_load_explicit(&j->cancel, memory_order_relaxed);
}
void job_progress(struct job *j, double fraction, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void job_snapshot(struct job *j, void *payload, void (*payload_free)(void *));
void job_result(struct job *j, void *payload, void (*payload_free)(void *));
void job_error(struct job *j, const struct ps_error *e);

#endif
