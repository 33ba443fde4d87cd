/* Histories the sources keep between ticks: for each key (a process, a
 * thread, a CPU) its last HIST_LEN values, one a tick, bounded twice: a
 * key not pushed in a tick is dropped at its end (the process is gone),
 * and each keeps HIST_LEN values. Pure bookkeeping: nothing is read; the
 * screens see copies in the snapshots, never the set. */
#ifndef PS_SOURCE_HIST_H
#define PS_SOURCE_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "hmap.h"

#define HIST_LEN 48 /* ticks kept: 72 s at the default 1.5 s refresh */

/* A value is kept in IEEE half precision (hist_half): three significant
 * digits, up to 65504, which is all a graph draws, at half the memory of
 * a float (2000 processes' histories: 220 KB, not 440). */
struct hist_ent {
	uint64_t key;
	unsigned gen;              /* the tick it was last pushed in */
	uint16_t n;                /* values kept (<= HIST_LEN) */
	uint16_t v[HIST_LEN];      /* oldest first: v[0..n), in half precision */
};

struct hist_set {
	struct hmap ix;            /* key -> index into e */
	struct hist_ent *e;
	size_t n, cap;
	unsigned gen;              /* the tick being pushed */
};

/* Add this tick's value of key (a second push in one tick replaces it).
 * 0 or -ENOMEM (the set is left as it was). */
int hist_push(struct hist_set *h, uint64_t key, float v);
/* End the tick: the keys not pushed in it are forgotten. */
void hist_end_tick(struct hist_set *h);
/* key's values into out[0..HIST_LEN), oldest first, the newest last, NaN
 * where none was kept (before the key was first pushed, or unknown). */
void hist_copy(const struct hist_set *h, uint64_t key, float *out);
void hist_free(struct hist_set *h);
/* A float in half precision (nearest; larger than 65504 is infinite),
 * and back. */
uint16_t hist_half(float v);
float hist_float(uint16_t h);
/* The key of a process or thread: its id with its start time (a reused
 * PID is another key). */
static inline uint64_t hist_key(int pid, unsigned long long starttime)
{
	return (uint64_t)starttime << 22 ^ (uint64_t)(unsigned)pid;
}

#endif
