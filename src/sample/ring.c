/* The perf ring buffer protocol and the sample record layout, plus the small
 * hash map the sampler's caches use. */
#include "sample/local.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint32_t hmap_get(const struct hmap *m, uint64_t key)
{
	if (!m->cap)
		return HMAP_EMPTY;
	for (size_t i = hmap_mix(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->vals[i] == HMAP_EMPTY)
			return HMAP_EMPTY;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static int hmap_grow(struct hmap *m)
{
	struct hmap n = { .cap = m->cap ? m->cap * 2 : 256 };

	n.keys = malloc(n.cap * sizeof(*n.keys));
	n.vals = malloc(n.cap * sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	memset(n.vals, 0xff, n.cap * sizeof(*n.vals));
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i] != HMAP_EMPTY)
			hmap_put(&n, m->keys[i], m->vals[i]);
	hmap_free(m);
	*m = n;
	return 0;
}

int hmap_put(struct hmap *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 4 > m->cap * 3 && hmap_grow(m) < 0)
		return -ENOMEM;
	for (size_t i = hmap_mix(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->vals[i] == HMAP_EMPTY) {
			m->keys[i] = key;
			m->vals[i] = val;
			m->n++;
			return 0;
		}
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	}
}

void hmap_clear(struct hmap *m)
{
	if (m->cap)
		memset(m->vals, 0xff, m->cap * sizeof(*m->vals));
	m->n = 0;
}

void hmap_free(struct hmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

void samp_ring_copy(const unsigned char *data, uint64_t size, uint64_t off, void *dst, size_t len)
{
	uint64_t at = off & (size - 1);
	size_t first = len;

	if (at + len > size)
		first = (size_t)(size - at);
	memcpy(dst, data + at, first);
	if (first < len)
		memcpy((unsigned char *)dst + first, data, len - first);
}

size_t samp_ring_drain(struct perf_event_mmap_page *pg, const unsigned char *data, uint64_t size,
		       unsigned char *scratch, void (*fn)(void *ctx, const struct perf_event_header *h),
		       void *ctx)
{
	/* Acquire: the records below head are fully written once we see head. */
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	size_t n = 0;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		samp_ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break; /* corrupt or partial: never happens with a sane kernel */
		samp_ring_copy(data, size, tail, scratch, h.size);
		fn(ctx, (const struct perf_event_header *)scratch);
		tail += h.size;
		n++;
	}
	if (tail != head)
		tail = head; /* unparseable data: skip it rather than spin on it */
	/* Release: the kernel may overwrite what we consumed only after our reads. */
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

int samp_ring_find_exec(struct perf_event_mmap_page *pg, const unsigned char *data, uint64_t size, uint32_t pid,
			uint64_t *time, char comm[16])
{
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	unsigned char rec[8 + 8 + 16 + 16];
	int found = 0;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		samp_ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		/* COMM: pid, tid, comm (padded to 8), then the sample_id of
		 * SAMP_SAMPLE_TYPE: pid, tid, time (the last 8 bytes). */
		if (h.type == PERF_RECORD_COMM && h.misc & PERF_RECORD_MISC_COMM_EXEC && h.size >= 8 + 8 + 8 + 16 &&
		    h.size <= sizeof(rec)) {
			samp_ring_copy(data, size, tail, rec, h.size);
			uint32_t p;
			uint64_t t;
			memcpy(&p, rec + 8, 4);
			memcpy(&t, rec + h.size - 8, 8);
			if (p == pid && (!found || t < *time)) {
				*time = t;
				size_t n = h.size - 8 - 8 - 16;
				memcpy(comm, rec + 16, n < 16 ? n : 16);
				comm[15] = '\0';
				found = 1;
			}
		}
		tail += h.size;
	}
	return found;
}

int samp_parse_mmap2(const struct perf_event_header *h, struct samp_rec_mmap2 *out)
{
	/* pid, tid, addr, len, pgoff, maj, min, ino, ino_gen, prot, flags, filename */
	const unsigned char *p = (const unsigned char *)(h + 1);
	const size_t name_off = 4 * 2 + 8 * 3 + 4 * 2 + 8 * 2 + 4 * 2;

	if (h->size < sizeof(*h) + name_off + 8)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(&out->pid, p, 4);
	memcpy(&out->tid, p + 4, 4);
	memcpy(&out->start, p + 8, 8);
	memcpy(&out->len, p + 16, 8);
	memcpy(&out->pgoff, p + 24, 8);
	memcpy(&out->maj, p + 32, 4);
	memcpy(&out->min, p + 36, 4);
	memcpy(&out->ino, p + 40, 8);
	memcpy(&out->prot, p + 56, 4);
	size_t max = h->size - sizeof(*h) - name_off;
	out->name = (const char *)p + name_off;
	out->name_ok = strnlen(out->name, max) < max;
	out->build_id = (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) != 0;
	return 0;
}

int samp_parse_sample(const struct perf_event_header *h, uint64_t regs_mask, struct samp_rec_sample *out)
{
	const unsigned char *p = (const unsigned char *)(h + 1);
	const unsigned char *end = (const unsigned char *)h + h->size;
	uint32_t pt[2];

	if (h->type != PERF_RECORD_SAMPLE || p + 40 > end)
		return -EINVAL;
	memcpy(&out->ip, p, 8);
	memcpy(pt, p + 8, 8);
	out->pid = pt[0];
	out->tid = pt[1];
	memcpy(&out->time, p + 16, 8);
	memcpy(&out->period, p + 24, 8);
	memcpy(&out->nr, p + 32, 8);
	p += 40;
	if (out->nr > (uint64_t)(end - p) / 8)
		return -EINVAL;
	out->ips = (const uint64_t *)p; /* the scratch buffer is 8-aligned */
	p += out->nr * 8;
	out->regs_abi = 0;
	out->regs = NULL;
	out->stack = NULL;
	out->stack_size = 0;
	if (!regs_mask)
		return 0;
	/* REGS_USER: abi, then one u64 per mask bit unless abi is NONE. */
	if (end - p < 8)
		return -EINVAL;
	memcpy(&out->regs_abi, p, 8);
	p += 8;
	if (out->regs_abi) {
		size_t n = (size_t)__builtin_popcountll(regs_mask);
		if ((size_t)(end - p) / 8 < n)
			return -EINVAL;
		out->regs = (const uint64_t *)p;
		p += n * 8;
	}
	/* STACK_USER: size, data[size], then dyn_size (what was really
	 * copied) when size is not 0. */
	uint64_t size;
	if (end - p < 8)
		return -EINVAL;
	memcpy(&size, p, 8);
	p += 8;
	if (size) {
		if (size > (uint64_t)(end - p) || (uint64_t)(end - p) - size < 8)
			return -EINVAL;
		uint64_t dyn;
		memcpy(&dyn, p + size, 8);
		out->stack = p;
		out->stack_size = dyn < size ? dyn : size;
	}
	return 0;
}
