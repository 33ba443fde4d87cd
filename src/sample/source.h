/* A sampler source: something that profiles a target over time and
 * publishes immutable struct samp_snapshot profiles of it. Three shapes
 * are one here:
 *
 *   the perf sampler of one process or of every process   (perf.c, on src/perf/)
 *   the CPython sampler, reading frames from memory       (pysamp.c)
 *   the off-CPU tracer (where threads block, a weighted profile in ns:
 *   samp_snapshot.unit; offcpu.c, on src/perf/'s tracepoints)
 *
 * A source is opened by its own constructor (samp_perf_open,
 * samp_py_open, ...), which embeds a struct samp_source in its session;
 * from then on everything goes through the ops, and one loop drives every
 * source: samp_source_run(), used by the sampler job (job.c, the hot and
 * machine screens) and by `pscope top` alike. A new source writes its
 * constructor and these ops, nothing else (doc/architecture.md, "A
 * sampler source"). */
#ifndef PS_SAMPLE_SOURCE_H
#define PS_SAMPLE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct samp_snapshot;
struct samp_source;

struct samp_source_ops {
	const char *name;  /* "perf", "python" */
	/* Read what came, waiting up to timeout_ms: 0; -ESRCH once the
	 * target exited (everything read); -ESTALE once it exec'd (nothing
	 * of the new program kept; exec_comm names it). */
	int (*poll)(struct samp_source *src, int timeout_ms);
	/* The rate (Hz) and the idle-thread switch wanted now (called each
	 * round; a no-op when nothing changed): 0; -EINVAL refused before
	 * anything changed (e says why, the old rate stays); another -errno:
	 * sampling cannot go on. */
	int (*set)(struct samp_source *src, int freq, bool idle, struct ps_error *e);
	int (*freq)(const struct samp_source *src);
	/* Samples taken so far. */
	unsigned long long (*count)(const struct samp_source *src);
	/* Its name after an exec (after -ESTALE). */
	const char *(*exec_comm)(const struct samp_source *src);
	/* Close the current interval and return a new snapshot (NULL: no
	 * memory); end_reason != NULL marks it the last one. */
	struct samp_snapshot *(*publish)(struct samp_source *src, const char *end_reason);
	void (*close)(struct samp_source *src);
	/* Its per-second intervals are closed by publishing and its rate is
	 * computed over them: publish every second even when nobody keeps
	 * the snapshots (a batch run). */
	bool needs_ticks;
};

struct samp_source {
	const struct samp_source_ops *ops;
};

void samp_source_close(struct samp_source *src);

/* How samp_source_run drives a source, and what it tells its caller. */
struct samp_run {
	uint64_t deadline_ns;           /* now_ns() to stop at; 0: none */
	unsigned long long samples;     /* stop after this many; 0: no limit */
	bool (*stop)(void *arg);        /* true: stop now (cancelled, interrupted) */
	/* About once a second: a new snapshot, the callee's to keep or free.
	 * NULL: none published (unless the source needs_ticks). */
	void (*tick)(void *arg, struct samp_snapshot *snap);
	/* Each round: the rate and idle switch wanted (NULL: as opened). */
	void (*want)(void *arg, int *freq, bool *idle);
	/* A rate refused with -EINVAL: it goes on at freq, e says why. */
	void (*refused)(void *arg, int freq, const struct ps_error *e);
	void *arg;
};

enum samp_end {
	SAMP_END_STOPPED,  /* the deadline, the sample count or stop() */
	SAMP_END_TARGET,   /* the target exited or exec'd: why in reason */
	SAMP_END_FAILED,   /* sampling cannot go on: e */
};

/* The one sampling loop: poll the source in rounds of at most 100 ms
 * until the run says stop or the target ends, applying the wanted rate
 * and publishing each second. The caller publishes the last snapshot
 * (with reason when the target ended) and closes the source. */
enum samp_end samp_source_run(struct samp_source *src, const struct samp_run *run, char *reason, size_t size,
			      struct ps_error *e);

#endif
