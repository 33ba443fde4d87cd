/* perf ring records (src/perf/): every record decoder on the input as
 * each record type, under the layouts pscope asks for (call chains;
 * with user registers and a stack copy; a tracepoint's identifier and raw
 * data; every field the decoder knows), then the reader on it as it came
 * (dispatch, the process filter, a tracepoint found by its id); and the
 * ring copy that unwraps a record split at the ring's end.
 * fuzz-seeds: */
#include "fuzz.h"
#include "perf/perf.h"
#include "sample/local.h"

#include <linux/perf_event.h>

static const char sched_switch[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n";

static volatile uint64_t sink;

static void touch(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		sink += b[i];
}

static void on_sample(void *ctx, const struct perf_sample *s)
{
	(void)ctx;
	touch(s->ips, s->nr * 8);
	touch(s->raw, s->raw_size);
	touch(s->stack, s->stack_size);
}

static void on_tp(void *ctx, const struct perf_sample *s, const struct perf_tp_event *ev)
{
	on_sample(ctx, s);
	if (ev->tp->kind == PERF_TP_SCHED_SWITCH)
		sink += (uint64_t)ev->sw.prev_pid + strlen(ev->sw.prev_comm) + strlen(ev->sw.next_comm);
}

static void on_mmap2(void *ctx, const struct perf_mmap2 *m)
{
	(void)ctx;
	if (m->name_ok)
		sink += strlen(m->name);
}

static void on_comm(void *ctx, const struct perf_comm *c)
{
	(void)ctx;
	sink += strlen(c->comm);
}

static const struct perf_consumer consumer = {
	.on_sample = on_sample, .on_tracepoint = on_tp, .on_mmap2 = on_mmap2, .on_comm = on_comm,
};

static const uint32_t types[] = {
	PERF_RECORD_SAMPLE, PERF_RECORD_MMAP2, PERF_RECORD_COMM,	 PERF_RECORD_FORK,
	PERF_RECORD_EXIT,   PERF_RECORD_LOST,  PERF_RECORD_THROTTLE, PERF_RECORD_UNTHROTTLE,
};

static void decode_as(const struct perf_event_header *h, const struct perf_format *f)
{
	struct perf_sample s;
	struct perf_mmap2 m;
	struct perf_comm c;
	struct perf_task t;
	struct perf_lost l;
	struct perf_throttle th;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (perf_decode_sample(h, f, &s) == 0)
			on_sample(NULL, &s);
		break;
	case PERF_RECORD_MMAP2:
		if (perf_decode_mmap2(h, f, &m) == 0)
			on_mmap2(NULL, &m);
		break;
	case PERF_RECORD_COMM:
		if (perf_decode_comm(h, f, &c) == 0)
			on_comm(NULL, &c);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (perf_decode_task(h, f, &t) == 0)
			sink += t.pid + t.time;
		break;
	case PERF_RECORD_LOST:
		if (perf_decode_lost(h, f, &l) == 0)
			sink += l.lost;
		break;
	default:
		if (perf_decode_throttle(h, f, &th) == 0)
			sink += th.time;
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_header h;
	unsigned char ring[256], out[256];
	static struct perf_tp tp;
	static bool tp_ready;

	if (!tp_ready) {
		struct perf_tp_format fmt;
		struct ps_error e;
		tp_ready = perf_tp_parse(sched_switch, sizeof(sched_switch) - 1, &fmt) == 0 &&
			   perf_tp_bind(&tp, "sched", &fmt, &e) == 0;
	}
	if (size < sizeof(h) || size > 65536)
		return 0;
	/* A record is as long as its header says, and at most what came. */
	memcpy(&h, data, sizeof(h));
	if (h.size < sizeof(h) || h.size > size)
		return 0;
	const struct perf_format formats[] = {
		{ .sample_type = SAMP_SAMPLE_TYPE, .sample_id_all = true },
		{ .sample_type = SAMP_SAMPLE_TYPE | SAMP_SAMPLE_DWARF, .regs_user = SAMP_REGS_MASK, .sample_id_all = true },
		{ .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				 PERF_SAMPLE_RAW },
		{ .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
				 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER |
				 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
				 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
				 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE,
		  .regs_user = (uint64_t)data[size - 1] << 8 | data[0], .sample_id_all = true },
	};
	/* An exact-size, 8-aligned copy (the reader's copies are). */
	struct perf_event_header *rec = aligned_alloc(8, (h.size + 7) & ~7u);
	memcpy(rec, data, h.size);
	for (size_t k = 0; k < sizeof(formats) / sizeof(formats[0]); k++) {
		for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
			rec->type = types[t];
			decode_as(rec, &formats[k]);
		}
		rec->type = h.type;
		struct perf_reader rd;
		if (perf_reader_init(&rd, &consumer, NULL, &formats[k]) == 0) {
			rd.pid = (pid_t)(data[1] & 3);
			if (tp_ready)
				perf_reader_add_tp(&rd, data[2], &tp);
			perf_reader_record(&rd, rec);
			perf_reader_fini(&rd);
		}
	}
	free(rec);
	memset(ring, 0, sizeof(ring));
	memcpy(ring, data, size < sizeof(ring) ? size : sizeof(ring));
	perf_ring_copy(ring, sizeof(ring), data[0] * 7u, out, size < sizeof(out) ? size : sizeof(out));
	return 0;
}
