/* The timeline (src/time/timeline.h) as a Chrome trace event file: one
 * track per thread, system calls, blocks and run-queue waits as slices,
 * samples and wakeups as instants (trace.c says how). */
#ifndef PS_OUT_TRACE_H
#define PS_OUT_TRACE_H

#include <stdio.h>
#include <sys/types.h>

#include "error.h"
#include "time/timeline.h"

struct out_trace_thread {
	pid_t tid;
	const char *name;   /* hostile */
};

struct out_trace_stats {
	unsigned long long slices, instants;
};

/* Write tl (from its first record to its last) of process pid named comm, the
 * tracks of threads th[0..nth) (events of other tasks left out). 0 or
 * -errno; stats (may be NULL) counts what was written. */
int out_trace_write(FILE *f, const struct tm_timeline *tl, pid_t pid, const char *comm, const struct out_trace_thread *th,
		    size_t nth, struct out_trace_stats *stats);
/* The same into path, through out_save (atomically, safely). */
int out_trace_save(const char *path, const struct tm_timeline *tl, pid_t pid, const char *comm,
		   const struct out_trace_thread *th, size_t nth, struct out_trace_stats *stats, struct ps_error *e);

#endif
