/* The one hash table of pscope: 64-bit keys to 64-bit values (an index,
 * a pointer, a count), open addressing with linear probing over a power of
 * two slots, grown at 3/4 full. Keys may be any value; HMAP_NONE is no
 * value (what a lookup of an absent key returns) and is never stored.
 * Callers with a composite key (a stack, a string) hash it themselves
 * with hmap_mix and keep their own chain of equal hashes.
 *
 * Not locked: one thread owns a table, or its owner's lock guards it. */
#ifndef PS_HMAP_H
#define PS_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HMAP_NONE UINT64_MAX

struct hmap_slot {
	uint64_t key, val; /* val HMAP_NONE: a free slot */
};

struct hmap {
	struct hmap_slot *slots;
	size_t cap, n;     /* cap: 0 or a power of two */
};

/* A 64-bit finalizer (MurmurHash3's fmix64): every key bit moves every
 * slot bit, so keys that differ only in high bits (addresses, shifted
 * ids) spread too. */
static inline uint64_t hmap_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

/* The value of key, or HMAP_NONE. */
static inline uint64_t hmap_get(const struct hmap *m, uint64_t key)
{
	if (!m->cap)
		return HMAP_NONE;
	for (size_t i = hmap_mix(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		const struct hmap_slot *s = &m->slots[i];
		if (s->val == HMAP_NONE || s->key == key)
			return s->val;
	}
}

/* Set key to val (val != HMAP_NONE). 0, or -ENOMEM (the table is
 * unchanged). */
int hmap_put(struct hmap *m, uint64_t key, uint64_t val);
/* Empty it, keeping its memory for what comes next. */
void hmap_clear(struct hmap *m);
void hmap_free(struct hmap *m);
/* Every entry, in no order: for (size_t at = 0; hmap_next(m, &at, &k, &v);).
 * The table must not change during the walk. */
bool hmap_next(const struct hmap *m, size_t *at, uint64_t *key, uint64_t *val);

/* Pointer values: NULL is absent (and is not stored). */
static inline void *hmap_get_ptr(const struct hmap *m, uint64_t key)
{
	uint64_t v = hmap_get(m, key);
	return v == HMAP_NONE ? NULL : (void *)(uintptr_t)v;
}

static inline int hmap_put_ptr(struct hmap *m, uint64_t key, const void *p)
{
	return hmap_put(m, key, (uint64_t)(uintptr_t)p);
}

#endif
