/* Interned functions and stacks, counted per interval (internal). */
#ifndef PS_SAMPLE_AGG_H
#define PS_SAMPLE_AGG_H

#include "sample/local.h"
#include "sample/sample.h"

struct agg;
/* A profile whose weights count unit (SAMP_UNIT_SAMPLES: one per sample). */
struct agg *agg_new(enum samp_unit unit);
void agg_free(struct agg *a);
/* Function id of (name, module); SAMP_NONE on ENOMEM. */
uint32_t agg_func(struct agg *a, const struct samp_fninfo *si);
unsigned agg_func_flags(const struct agg *a, uint32_t id);
/* The function id of a category of a weighted profile ("futex": shown
 * "[futex]", flagged SAMP_F_CATEGORY); SAMP_NONE on ENOMEM. */
uint32_t agg_category(struct agg *a, const char *name);
/* Add one sample of thread tid with stack frames[0..n) (leaf first) and
 * weight (1 for a sample count), under category cat (agg_category; the
 * stack's outermost frame) or SAMP_NONE. */
int agg_add(struct agg *a, pid_t tid, const uint32_t *frames, unsigned n, uint32_t cat, uint64_t weight);
/* End the current interval (it lasted `seconds`): it becomes the newest bucket. */
void agg_close_interval(struct agg *a, double seconds);
/* Samples and seconds of the newest `buckets` closed intervals. */
unsigned long agg_samples_last(const struct agg *a, unsigned buckets, double *seconds);
/* Copy functions, stacks and buckets into s. */
int agg_fill(const struct agg *a, struct samp_snapshot *s, double elapsed);
/* The end of publishing a snapshot, for every source: the end reason
 * (NULL while running), the thread rows (n of them, `stride` bytes apart:
 * each source keeps a struct samp_thread at the start of its own thread
 * record), the table filled. 0, or -1 after freeing o (out of memory). */
int agg_finish(const struct agg *a, struct samp_snapshot *o, const struct samp_thread *threads, size_t stride,
	       unsigned n, const char *end_reason);

#endif
