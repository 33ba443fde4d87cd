/* A time session as a job on the long lane: it measures one process
 * until cancelled and publishes, about once a second, an immutable
 * struct tm_snapshot of the last second (a rolling window, the tier and
 * any fallback note in it). The Time pane and the Time screen run it. */
#ifndef PS_TIME_JOB_H
#define PS_TIME_JOB_H

#include "target.h"
#include "time/time.h"

struct workers;
struct job_handler;

#define TM_JOB_WINDOW_MS 1000  /* the rolling window, and how often one is posted */
/* With a timeline (tm_opts.timeline_s): the records all the seconds kept
 * may hold (24 bytes each: 48 MiB), a window at most its share of them
 * (the ring it fills: 2 Mi / timeline_s); past it the window's oldest go,
 * counted in its chunk (the screen says the rows have gaps). The tier's
 * rate (TM_TRACE_RATE_DEFAULT events a second, samples and faults
 * counted) keeps a window far under its share: above it the tier traces
 * part of each second, and says so. */
#define TM_TL_JOB_CAP (2u << 20)

/* Measure id (the pid it names now when its start time is 0) with o (its
 * pid and want are ignored). SNAPSHOT: each window; RESULT: the last one
 * when the process exited or exec'd (ended says which); ERROR: it could
 * not open (the door named) or failed. The payload is a struct
 * tm_snapshot (tm_snapshot_free). Returns the job's id, 0 without memory. */
unsigned tm_job_submit(struct workers *w, const struct target_id *id, const struct tm_opts *o,
		       const struct job_handler *h);
/* For a ring payload. */
void tm_snapshot_free_void(void *s);

#endif
