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
/* Its name ("" for an unknown id). */
const char *agg_func_name(const struct agg *a, uint32_t id);
/* Mapping id of a module's mapping (one per distinct path, build-id and
 * range); SAMP_NONE on ENOMEM. */
uint32_t agg_map(struct agg *a, const struct samp_mapinfo *m);
/* Location id of function func at run-time address addr in mapping map
 * (SAMP_NONE: none, as a kernel address), whose source line is line (0:
 * none); SAMP_NONE on ENOMEM. */
uint32_t agg_loc(struct agg *a, uint32_t func, uint32_t map, uint64_t addr, int line);
/* The location of a function without an address (a source that names
 * functions only, the CPython sampler's: at the function's line). */
uint32_t agg_func_loc(struct agg *a, uint32_t func);
/* The function of location loc. */
uint32_t agg_loc_func(const struct agg *a, uint32_t loc);
/* The function id of a category of a weighted profile ("futex": shown
 * "[futex]", flagged SAMP_F_CATEGORY); SAMP_NONE on ENOMEM. */
uint32_t agg_category(struct agg *a, const char *name);
/* Add one sample of thread tid with stack frames[0..n) (location ids,
 * leaf first) and weight (1 for a sample count), under category cat (a
 * function id from agg_category; the stack's outermost frame) or
 * SAMP_NONE. Stacks are interned by their locations: the snapshot's
 * frames[] name their functions, lframes[] their locations. */
int agg_add(struct agg *a, pid_t tid, const uint32_t *frames, unsigned n, uint32_t cat, uint64_t weight);
/* The same, returning the stack's id (its index in a snapshot's stacks[])
 * or SAMP_NONE on ENOMEM. */
uint32_t agg_add_stack(struct agg *a, pid_t tid, const uint32_t *frames, unsigned n, uint32_t cat, uint64_t weight);
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
