/* Pure decoders of perf ring records, one per record type. Every length
 * comes from the record itself and is checked before it is read. */
#include "perf/perf.h"

#include <errno.h>
#include <string.h>

/* A cursor over a record's body. */
struct cur {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t u64(struct cur *c)
{
	uint64_t v = 0;
	if (c->end - c->p < 8) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

/* Two u32 in one u64 slot (pid/tid, cpu/res). */
static void u32x2(struct cur *c, uint32_t *a, uint32_t *b)
{
	uint64_t v = u64(c);
	uint32_t w[2];
	memcpy(w, &v, 8);
	*a = w[0];
	if (b)
		*b = w[1];
}

void perf_format_of(const struct perf_event_attr *a, struct perf_format *f)
{
	f->sample_type = a->sample_type;
	f->regs_user = a->sample_regs_user;
	f->sample_id_all = a->sample_id_all;
}

/* Bytes of the sample_id trailer for this sample_type. */
static size_t id_size(const struct perf_format *f)
{
	if (!f->sample_id_all)
		return 0;
	uint64_t t = f->sample_type;
	return 8 * (!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
		    !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
}

/* The trailer of a record whose fixed body is `body` bytes: 0, or -EINVAL
 * when the record has no room for both. *end: where the body may end. */
static int trailer(const struct perf_event_header *h, const struct perf_format *f, size_t body, struct perf_id *id,
		   const unsigned char **end)
{
	size_t n = id_size(f);
	const unsigned char *rec = (const unsigned char *)h;

	memset(id, 0, sizeof(*id));
	if (h->size < sizeof(*h) + body + n)
		return -EINVAL;
	*end = rec + h->size - n;
	if (!n)
		return 0;
	struct cur c = { .p = *end, .end = rec + h->size };
	uint64_t t = f->sample_type;
	if (t & PERF_SAMPLE_TID)
		u32x2(&c, &id->pid, &id->tid);
	if (t & PERF_SAMPLE_TIME)
		id->time = u64(&c);
	if (t & PERF_SAMPLE_ID)
		id->id = u64(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		id->stream_id = u64(&c);
	if (t & PERF_SAMPLE_CPU)
		u32x2(&c, &id->cpu, NULL);
	if (t & PERF_SAMPLE_IDENTIFIER)
		id->id = u64(&c);
	return 0;
}

#define UNSUPPORTED (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_AUX)

int perf_decode_sample(const struct perf_event_header *h, const struct perf_format *f, struct perf_sample *out)
{
	uint64_t t = f->sample_type;
	struct cur c = { .p = (const unsigned char *)(h + 1), .end = (const unsigned char *)h + h->size };

	memset(out, 0, sizeof(*out));
	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h))
		return -EINVAL;
	if (t & UNSUPPORTED)
		return -EOPNOTSUPP;
	if (t & PERF_SAMPLE_IDENTIFIER)
		out->id = u64(&c);
	if (t & PERF_SAMPLE_IP)
		out->ip = u64(&c);
	if (t & PERF_SAMPLE_TID)
		u32x2(&c, &out->pid, &out->tid);
	if (t & PERF_SAMPLE_TIME)
		out->time = u64(&c);
	if (t & PERF_SAMPLE_ADDR)
		out->addr = u64(&c);
	if (t & PERF_SAMPLE_ID)
		out->id = u64(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		out->stream_id = u64(&c);
	if (t & PERF_SAMPLE_CPU)
		u32x2(&c, &out->cpu, NULL);
	if (t & PERF_SAMPLE_PERIOD)
		out->period = u64(&c);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		out->nr = u64(&c);
		if (c.bad || out->nr > (uint64_t)(c.end - c.p) / 8)
			return -EINVAL;
		out->ips = (const uint64_t *)c.p; /* the reader's copy is 8-aligned */
		c.p += out->nr * 8;
	}
	if (t & PERF_SAMPLE_RAW) {
		/* u32 size, then size bytes; the pair is padded to 8. */
		if (c.end - c.p < 4)
			return -EINVAL;
		memcpy(&out->raw_size, c.p, 4);
		if (out->raw_size > (uint64_t)(c.end - c.p) - 4)
			return -EINVAL;
		out->raw = c.p + 4;
		size_t span = ((size_t)out->raw_size + 4 + 7) & ~(size_t)7;
		c.p = span > (size_t)(c.end - c.p) ? c.end : c.p + span;
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		/* abi, then one u64 per mask bit unless abi is NONE. */
		out->regs_abi = u64(&c);
		if (c.bad)
			return -EINVAL;
		if (out->regs_abi) {
			size_t n = (size_t)__builtin_popcountll(f->regs_user);
			if ((size_t)(c.end - c.p) / 8 < n)
				return -EINVAL;
			out->regs = (const uint64_t *)c.p;
			c.p += n * 8;
		}
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		/* size, data[size], then dyn_size (what was really copied)
		 * when size is not 0. */
		uint64_t size = u64(&c);
		if (c.bad)
			return -EINVAL;
		if (size) {
			if (size > (uint64_t)(c.end - c.p) || (uint64_t)(c.end - c.p) - size < 8)
				return -EINVAL;
			uint64_t dyn;
			memcpy(&dyn, c.p + size, 8);
			out->stack = c.p;
			out->stack_size = dyn < size ? dyn : size;
			c.p += size + 8;
		}
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		out->weight = u64(&c);
	if (t & PERF_SAMPLE_DATA_SRC)
		out->data_src = u64(&c);
	if (t & PERF_SAMPLE_TRANSACTION)
		out->transaction = u64(&c);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		out->phys_addr = u64(&c);
	if (t & PERF_SAMPLE_CGROUP)
		out->cgroup = u64(&c);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		(void)u64(&c);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		(void)u64(&c);
	return c.bad ? -EINVAL : 0;
}

int perf_decode_mmap2(const struct perf_event_header *h, const struct perf_format *f, struct perf_mmap2 *out)
{
	/* pid, tid, addr, len, pgoff, maj, min, ino, ino_gen, prot, flags, filename */
	const unsigned char *p = (const unsigned char *)(h + 1), *end;
	const size_t name_off = 4 * 2 + 8 * 3 + 4 * 2 + 8 * 2 + 4 * 2;

	memset(out, 0, sizeof(*out));
	if (h->type != PERF_RECORD_MMAP2 || trailer(h, f, name_off + 8, &out->id, &end) < 0)
		return -EINVAL;
	memcpy(&out->pid, p, 4);
	memcpy(&out->tid, p + 4, 4);
	memcpy(&out->start, p + 8, 8);
	memcpy(&out->len, p + 16, 8);
	memcpy(&out->pgoff, p + 24, 8);
	memcpy(&out->maj, p + 32, 4);
	memcpy(&out->min, p + 36, 4);
	memcpy(&out->ino, p + 40, 8);
	memcpy(&out->prot, p + 56, 4);
	memcpy(&out->flags, p + 60, 4);
	size_t max = (size_t)(end - (p + name_off));
	out->name = (const char *)p + name_off;
	out->name_ok = strnlen(out->name, max) < max;
	out->build_id = (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) != 0;
	return 0;
}

int perf_decode_comm(const struct perf_event_header *h, const struct perf_format *f, struct perf_comm *out)
{
	/* pid, tid, comm (NUL padded to 8) */
	const unsigned char *p = (const unsigned char *)(h + 1), *end;

	memset(out, 0, sizeof(*out));
	if (h->type != PERF_RECORD_COMM || trailer(h, f, 8 + 1, &out->id, &end) < 0)
		return -EINVAL;
	memcpy(&out->pid, p, 4);
	memcpy(&out->tid, p + 4, 4);
	size_t n = (size_t)(end - (p + 8));
	if (n > sizeof(out->comm) - 1)
		n = sizeof(out->comm) - 1;
	memcpy(out->comm, p + 8, n);
	out->comm[n] = '\0';
	out->exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
	return 0;
}

int perf_decode_task(const struct perf_event_header *h, const struct perf_format *f, struct perf_task *out)
{
	/* pid, ppid, tid, ptid, time */
	const unsigned char *p = (const unsigned char *)(h + 1), *end;

	memset(out, 0, sizeof(*out));
	if ((h->type != PERF_RECORD_FORK && h->type != PERF_RECORD_EXIT) || trailer(h, f, 16, &out->id, &end) < 0)
		return -EINVAL;
	memcpy(&out->pid, p, 4);
	memcpy(&out->ppid, p + 4, 4);
	memcpy(&out->tid, p + 8, 4);
	memcpy(&out->ptid, p + 12, 4);
	if (end - p >= 24)
		memcpy(&out->time, p + 16, 8);
	return 0;
}

int perf_decode_lost(const struct perf_event_header *h, const struct perf_format *f, struct perf_lost *out)
{
	const unsigned char *p = (const unsigned char *)(h + 1), *end;

	memset(out, 0, sizeof(*out));
	if (h->type != PERF_RECORD_LOST || trailer(h, f, 16, &out->sid, &end) < 0)
		return -EINVAL;
	memcpy(&out->id, p, 8);
	memcpy(&out->lost, p + 8, 8);
	return 0;
}

int perf_decode_throttle(const struct perf_event_header *h, const struct perf_format *f, struct perf_throttle *out)
{
	const unsigned char *p = (const unsigned char *)(h + 1), *end;

	memset(out, 0, sizeof(*out));
	if ((h->type != PERF_RECORD_THROTTLE && h->type != PERF_RECORD_UNTHROTTLE) ||
	    trailer(h, f, 24, &out->sid, &end) < 0)
		return -EINVAL;
	memcpy(&out->time, p, 8);
	memcpy(&out->id, p + 8, 8);
	memcpy(&out->stream_id, p + 16, 8);
	out->unthrottle = h->type == PERF_RECORD_UNTHROTTLE;
	return 0;
}
