/* The reader: each record of a ring decoded by its type's decoder and
 * handed to the consumer's callback for that type (perf.h). Records of
 * other processes are dropped here when the reader keeps one process;
 * LOST and THROTTLE are counted here for every consumer. */
#include "perf/perf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int perf_reader_init(struct perf_reader *rd, const struct perf_consumer *c, void *ctx, const struct perf_format *f)
{
	memset(rd, 0, sizeof(*rd));
	rd->c = c;
	rd->ctx = ctx;
	rd->fmt = *f;
	rd->scratch = aligned_alloc(8, PERF_SCRATCH);
	return rd->scratch ? 0 : -ENOMEM;
}

void perf_reader_fini(struct perf_reader *rd)
{
	free(rd->scratch);
	hmap_free(&rd->tps);
	memset(rd, 0, sizeof(*rd));
}

int perf_reader_add_tp(struct perf_reader *rd, uint64_t id, const struct perf_tp *tp)
{
	return hmap_put_ptr(&rd->tps, id, tp);
}

/* Does the record of process pid pass the reader's filter? */
static bool keep(const struct perf_reader *rd, uint32_t pid)
{
	return rd->pid <= 0 || (pid_t)pid == rd->pid;
}

static void on_sample(struct perf_reader *rd, const struct perf_event_header *h)
{
	struct perf_sample s;

	if (perf_decode_sample(h, &rd->fmt, &s) < 0) {
		rd->bad++;
		return;
	}
	if (!keep(rd, s.pid))
		return;
	const struct perf_tp *tp = rd->tps.n ? hmap_get_ptr(&rd->tps, s.id) : NULL;
	if (!tp) {
		if (rd->c->on_sample)
			rd->c->on_sample(rd->ctx, &s);
		return;
	}
	struct perf_tp_event ev;
	if (!s.raw || perf_tp_decode(tp, s.raw, s.raw_size, &ev) < 0) {
		rd->bad++;
		return;
	}
	if (rd->c->on_tracepoint)
		rd->c->on_tracepoint(rd->ctx, &s, &ev);
}

void perf_reader_record(struct perf_reader *rd, const struct perf_event_header *h)
{
	const struct perf_consumer *c = rd->c;
	const struct perf_format *f = &rd->fmt;
	int r = 0;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(rd, h);
		return;
	case PERF_RECORD_MMAP2: {
		struct perf_mmap2 m;
		if ((r = perf_decode_mmap2(h, f, &m)) == 0 && keep(rd, m.pid) && c->on_mmap2)
			c->on_mmap2(rd->ctx, &m);
		break;
	}
	case PERF_RECORD_COMM: {
		struct perf_comm m;
		if ((r = perf_decode_comm(h, f, &m)) == 0 && keep(rd, m.pid) && c->on_comm)
			c->on_comm(rd->ctx, &m);
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct perf_task t;
		if ((r = perf_decode_task(h, f, &t)) < 0 || !keep(rd, t.pid))
			break;
		if (h->type == PERF_RECORD_FORK && c->on_fork)
			c->on_fork(rd->ctx, &t);
		else if (h->type == PERF_RECORD_EXIT && c->on_exit)
			c->on_exit(rd->ctx, &t);
		break;
	}
	case PERF_RECORD_LOST: {
		struct perf_lost l;
		if ((r = perf_decode_lost(h, f, &l)) < 0)
			break;
		rd->lost += l.lost;
		if (c->on_lost)
			c->on_lost(rd->ctx, &l);
		break;
	}
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE: {
		struct perf_throttle t;
		if ((r = perf_decode_throttle(h, f, &t)) < 0)
			break;
		rd->throttled += !t.unthrottle;
		if (c->on_throttle)
			c->on_throttle(rd->ctx, &t);
		break;
	}
	default:
		break; /* a record type nobody asked for (MMAP: mmap2 is set too) */
	}
	if (r < 0)
		rd->bad++;
}

static void record_fn(void *ctx, const struct perf_event_header *h)
{
	perf_reader_record(ctx, h);
}

size_t perf_read(struct perf_reader *rd, struct perf_ring *r)
{
	return perf_ring_drain(r, rd->scratch, record_fn, rd);
}
