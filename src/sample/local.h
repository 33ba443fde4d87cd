/* Internals of the sampler shared by its files (not for other modules). */
#ifndef PS_SAMPLE_LOCAL_H
#define PS_SAMPLE_LOCAL_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hmap.h"

/* "No id" of the sampler's uint32 ids (functions, slots, threads), and
 * what their tables (struct hmap) return for an absent key, cast down. */
#define SAMP_NONE UINT32_MAX

/* PERF_RECORD_SAMPLE with sample_type IP|TID|TIME|PERIOD|CALLCHAIN, and
 * for DWARF unwinding REGS_USER|STACK_USER (src/perf/ decodes them). */
#define SAMP_SAMPLE_TYPE                                                                          \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define SAMP_SAMPLE_DWARF (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* The user registers an unwinder needs (enum perf_event_x86_regs): AX..IP
 * and R8..R15, not the segment registers or flags. */
#define SAMP_REGS_MASK 0xff01ffULL
#define SAMP_NREGS 17
#define SAMP_MAX_FRAMES 512 /* frames kept of one stack */

/* A uint32 id from a table holding them. */
static inline uint32_t samp_id_get(const struct hmap *m, uint64_t key)
{
	uint64_t v = hmap_get(m, key);
	return v == HMAP_NONE ? SAMP_NONE : (uint32_t)v;
}

/* ---- what the aggregation keeps of a resolved pc ---- */
struct samp_fninfo {
	const char *name, *module, *file; /* copied by agg_func */
	int line;
	unsigned flags;                   /* SAMP_F_* */
};

/* ---- and of the mapping a pc is in ---- */
struct samp_mapinfo {
	const char *path, *build_id;      /* copied by agg_map; build_id may be NULL */
	uint64_t start, limit, offset;    /* run-time range, file offset of start */
};

#endif
