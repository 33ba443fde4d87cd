/* Interned functions and stacks, counted per interval (internal). */
#ifndef PS_SAMPLE_AGG_H
#define PS_SAMPLE_AGG_H

#include "sample/local.h"
#include "sample/sample.h"

struct agg;
struct agg *agg_new(void);
void agg_free(struct agg *a);
/* Function id of (name, module); HMAP_EMPTY on ENOMEM. */
uint32_t agg_func(struct agg *a, const struct samp_fninfo *si);
unsigned agg_func_flags(const struct agg *a, uint32_t id);
/* Count one sample of thread tid with stack frames[0..n) (leaf first). */
int agg_add(struct agg *a, pid_t tid, const uint32_t *frames, unsigned n);
/* End the current interval (it lasted `seconds`): it becomes the newest bucket. */
void agg_close_interval(struct agg *a, double seconds);
/* Samples and seconds of the newest `buckets` closed intervals. */
unsigned long agg_samples_last(const struct agg *a, unsigned buckets, double *seconds);
/* Copy functions, stacks and buckets into s. */
int agg_fill(const struct agg *a, struct samp_snapshot *s, double elapsed);
/* The end of publishing a snapshot, for both samplers: the end reason (NULL
 * while running), room for nthreads thread rows, the table filled. 0, or -1
 * after freeing o (out of memory). */
int agg_finish(const struct agg *a, struct samp_snapshot *o, unsigned nthreads, const char *end_reason);

#endif
