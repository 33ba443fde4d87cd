/* Internals of the sampler shared by its files (not for other modules). */
#ifndef PS_SAMPLE_LOCAL_H
#define PS_SAMPLE_LOCAL_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- a uint64 -> uint32 open-addressing hash map ---- */
struct hmap {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;  /* cap: power of two; vals[i] == HMAP_EMPTY: free slot */
};
#define HMAP_EMPTY UINT32_MAX

static inline uint64_t hmap_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}
/* Returns the value or HMAP_EMPTY. */
uint32_t hmap_get(const struct hmap *m, uint64_t key);
int hmap_put(struct hmap *m, uint64_t key, uint32_t val);
void hmap_clear(struct hmap *m);
void hmap_free(struct hmap *m);

/* ---- perf ring buffer and records (pure; unit-tested) ---- */
/* Copy len bytes from a ring of `size` bytes (a power of two) starting at
 * offset off, wrapping at the end. */
void samp_ring_copy(const unsigned char *data, uint64_t size, uint64_t off, void *dst, size_t len);
/* Read every complete record between data_tail and data_head (acquire),
 * calling fn with a contiguous copy (scratch: 64 KiB), then release
 * data_tail. Returns the number of records. */
size_t samp_ring_drain(struct perf_event_mmap_page *pg, const unsigned char *data, uint64_t size,
		       unsigned char *scratch, void (*fn)(void *ctx, const struct perf_event_header *h),
		       void *ctx);

/* Look through the unread records (nothing consumed) for pid's exec: a
 * COMM record marked PERF_RECORD_MISC_COMM_EXEC. 1 with its time (the
 * earliest) and new name, 0 if none. */
int samp_ring_find_exec(struct perf_event_mmap_page *pg, const unsigned char *data, uint64_t size, uint32_t pid,
			uint64_t *time, char comm[16]);

/* PERF_RECORD_SAMPLE with sample_type IP|TID|TIME|PERIOD|CALLCHAIN, and
 * for DWARF unwinding REGS_USER|STACK_USER. */
#define SAMP_SAMPLE_TYPE                                                                          \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define SAMP_SAMPLE_DWARF (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* The user registers an unwinder needs (enum perf_event_x86_regs): AX..IP
 * and R8..R15, not the segment registers or flags. */
#define SAMP_REGS_MASK 0xff01ffULL
#define SAMP_NREGS 17
struct samp_rec_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time, period;
	uint64_t nr;
	const uint64_t *ips;
	/* With regs_mask: the user registers (abi 0: none, e.g. a kernel
	 * thread) and the copy of the user stack from sp (size 0: none). */
	uint64_t regs_abi;
	const uint64_t *regs;        /* in mask bit order */
	const unsigned char *stack;
	uint64_t stack_size;         /* bytes copied */
};
/* regs_mask: the attr's sample_regs_user when the samples carry
 * REGS_USER|STACK_USER, else 0. */
int samp_parse_sample(const struct perf_event_header *h, uint64_t regs_mask, struct samp_rec_sample *out);

/* A PERF_RECORD_MMAP2 record. name points into the record; name_ok when
 * it ends inside it. With build_id (misc MMAP_BUILD_ID) maj, min and ino
 * hold a build id instead. -EINVAL when the record is too short. */
struct samp_rec_mmap2 {
	uint32_t pid, tid, maj, min, prot;
	uint64_t start, len, pgoff, ino;
	const char *name;
	bool name_ok, build_id;
};
int samp_parse_mmap2(const struct perf_event_header *h, struct samp_rec_mmap2 *out);

/* ---- what the aggregation keeps of a resolved pc ---- */
struct samp_fninfo {
	const char *name, *module, *file; /* copied by agg_func */
	int line;
	unsigned flags;                   /* SAMP_F_* */
};

#endif
