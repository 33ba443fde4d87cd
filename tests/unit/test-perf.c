/* The perf layer (src/perf/): the ring protocol (records that wrap), one
 * decoder per record type on records built here, and the reader's
 * dispatch to a consumer's callbacks (the process filter, LOST/THROTTLE
 * counted). Tracepoints: test-perf-tp.c. */
#include "perf-rec.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the ring ---- */

static unsigned seen_types[16], nseen;
static uint64_t seen_ip;

static void collect(void *ctx, const struct perf_event_header *h)
{
	struct perf_format f = { .sample_type = ST_CHAIN };
	struct perf_sample s;

	(void)ctx;
	if (nseen < 16)
		seen_types[nseen++] = h->type;
	if (perf_decode_sample(h, &f, &s) == 0)
		seen_ip = s.ip;
}

/* Put a sample record (ip, pid/tid, time, period, 2-frame chain) at off. */
static size_t put_sample(unsigned char *ring, uint64_t size, uint64_t off, uint64_t ip)
{
	struct rec r;

	begin(&r, PERF_RECORD_SAMPLE, 0);
	put64(&r, ip);
	put32x2(&r, 10, 11);
	put64(&r, 5);
	put64(&r, 1000);
	put64(&r, 2);
	put64(&r, ip);
	put64(&r, 0x400000);
	end(&r);
	for (size_t i = 0; i < r.n; i++)
		ring[(off + i) & (size - 1)] = r.b[i];
	return r.n;
}

static void test_ring(void)
{
	unsigned char data[128], out[8];
	struct perf_event_mmap_page pg;
	struct perf_ring ring = { .fd = -1, .pg = &pg, .data = data, .size = sizeof(data) };
	unsigned char *scratch = aligned_alloc(8, PERF_SCRATCH);

	for (int i = 0; i < 128; i++)
		data[i] = (unsigned char)i;
	perf_ring_copy(data, 128, 124, out, 8);
	ok(out[0] == 124 && out[3] == 127 && out[4] == 0 && out[7] == 3, "ring copy wraps at the end of the buffer");
	perf_ring_copy(data, 128, 128 + 2, out, 4);
	ok(out[0] == 2 && out[3] == 5, "ring offsets are taken modulo the size");

	/* Two 64-byte samples starting at 100: the second one wraps. */
	memset(&pg, 0, sizeof(pg));
	memset(data, 0, sizeof(data));
	uint64_t off = 100;
	off += put_sample(data, 128, off, 0x1111);
	off += put_sample(data, 128, off, 0x2222);
	pg.data_tail = 100;
	pg.data_head = off;
	nseen = 0;
	is_int(perf_ring_peek(&ring, PERF_RECORD_SAMPLE, scratch, collect, NULL), 2, "peek sees both records");
	is_int(pg.data_tail, 100, "peek consumes nothing");
	is_int(perf_ring_peek(&ring, PERF_RECORD_COMM, scratch, collect, NULL), 0, "peek passes only the type asked");
	nseen = 0;
	size_t n = perf_ring_drain(&ring, scratch, collect, NULL);
	is_int(n, 2, "two records read across the wrap");
	is_int(seen_ip, 0x2222, "the wrapped record is reassembled");
	is_int(pg.data_tail, off, "data_tail released up to data_head");
	n = perf_ring_drain(&ring, scratch, collect, NULL);
	is_int(n, 0, "nothing new: nothing read");

	/* A record whose header claims more than what is published is not read. */
	put_sample(data, 128, off, 0x3333);
	pg.data_head = off + 20;
	n = perf_ring_drain(&ring, scratch, collect, NULL);
	is_int(n, 0, "a partial record is not delivered");
	free(scratch);
}

/* ---- decoders ---- */

static void test_sample(void)
{
	uint64_t buf[16] = { 0 };
	struct perf_event_header *h = (struct perf_event_header *)buf;
	struct perf_format f = { .sample_type = ST_CHAIN };
	struct perf_sample s;

	h->type = PERF_RECORD_SAMPLE;
	h->size = 8 + 40 + 8;
	buf[1] = 0xabc;
	buf[2] = ((uint64_t)7 << 32) | 6;
	buf[5] = 1;
	buf[6] = 0xabc;
	ok(perf_decode_sample(h, &f, &s) == 0 && s.pid == 6 && s.tid == 7 && s.nr == 1 && s.ips[0] == 0xabc,
	   "sample record fields");
	buf[5] = 1000;
	ok(perf_decode_sample(h, &f, &s) < 0, "a call chain longer than the record is refused");
	h->size = 8 + 24;
	ok(perf_decode_sample(h, &f, &s) < 0, "a sample cut before its fields is refused");
	h->size = 8 + 40 + 8;
	h->type = PERF_RECORD_MMAP2;
	ok(perf_decode_sample(h, &f, &s) < 0, "only samples decode as samples");
	f.sample_type |= PERF_SAMPLE_READ;
	h->type = PERF_RECORD_SAMPLE;
	is_int(perf_decode_sample(h, &f, &s), -EOPNOTSUPP, "a layout never asked for (READ) is refused, not guessed");

	/* With user registers (mask of 3 bits) and a 16-byte stack copy of
	 * which 8 bytes were filled (dyn_size). */
	uint64_t d[32] = { 0 };
	struct perf_format fd = { .sample_type = ST_CHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
				  .regs_user = 7 };
	h = (struct perf_event_header *)d;
	h->type = PERF_RECORD_SAMPLE;
	d[1] = 0x1000;
	d[2] = ((uint64_t)9 << 32) | 8;
	d[5] = 0;                 /* no callchain */
	d[6] = 2;                 /* abi 64 */
	d[7] = 0x11, d[8] = 0x22, d[9] = 0x33;
	d[10] = 16;               /* stack size */
	d[11] = 0xaaaa, d[12] = 0xbbbb;
	d[13] = 8;                /* dyn_size */
	h->size = 14 * 8;
	ok(perf_decode_sample(h, &fd, &s) == 0 && s.regs_abi == 2 && s.regs && s.regs[2] == 0x33 && s.stack &&
		   s.stack_size == 8 && !memcmp(s.stack, &d[11], 8),
	   "registers and the stack copy (dyn_size bytes of it)");
	d[6] = 0;                 /* abi none: no registers follow */
	d[7] = 0;                 /* stack size 0: nothing more */
	h->size = 8 * 8;
	ok(perf_decode_sample(h, &fd, &s) == 0 && !s.regs && !s.stack, "a sample without user registers or stack");
	d[6] = 2;
	d[10] = 4096;             /* claims more stack than the record holds */
	h->size = 14 * 8;
	ok(perf_decode_sample(h, &fd, &s) < 0, "a stack copy longer than the record is refused");
	h->size = 9 * 8;          /* registers cut short */
	ok(perf_decode_sample(h, &fd, &s) < 0, "registers cut short are refused");

	/* A tracepoint's sample: IDENTIFIER first, CPU, then RAW (size, data,
	 * padded to 8). */
	struct perf_format ft = { .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						 PERF_SAMPLE_CPU | PERF_SAMPLE_RAW };
	struct rec r;
	uint32_t raw_size = 12;
	unsigned char raw[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	begin(&r, PERF_RECORD_SAMPLE, 0);
	put64(&r, 77);
	put32x2(&r, 5, 6);
	put64(&r, 123456);
	put32x2(&r, 1, 0);
	put(&r, &raw_size, 4);
	put(&r, raw, 12);
	h = (struct perf_event_header *)end(&r);
	ok(perf_decode_sample(h, &ft, &s) == 0 && s.id == 77 && s.pid == 5 && s.tid == 6 && s.time == 123456 &&
		   s.cpu == 1 && s.raw_size == 12 && !memcmp(s.raw, raw, 12),
	   "identifier, cpu and raw data");
	raw_size = 40;
	memcpy(r.b + 8 + 32, &raw_size, 4);
	ok(perf_decode_sample(h, &ft, &s) < 0, "raw data longer than the record is refused");
}

static void test_records(void)
{
	struct perf_format f = { .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME, .sample_id_all = true };
	struct perf_format bare = { 0 };
	struct rec r;
	const struct perf_event_header *h;

	/* MMAP2: pid, tid, addr, len, pgoff, maj, min, ino, ino_gen, prot,
	 * flags, then the file name (padded to 8 bytes), then the sample_id. */
	struct perf_mmap2 mm;
	begin(&r, PERF_RECORD_MMAP2, 0);
	put32x2(&r, 41, 42);
	put64(&r, 0x400000);
	put64(&r, 0x2000);
	put64(&r, 0x1000);
	put32x2(&r, 8, 1);
	put64(&r, 1234);
	put64(&r, 0);
	put32x2(&r, 4 /* PROT_EXEC */, 2);
	put(&r, "/bin/true\0\0\0\0\0\0\0", 16);
	put_id(&r, 41, 42, 999);
	h = end(&r);
	ok(perf_decode_mmap2(h, &f, &mm) == 0 && mm.pid == 41 && mm.tid == 42 && mm.start == 0x400000 &&
		   mm.len == 0x2000 && mm.pgoff == 0x1000 && mm.maj == 8 && mm.min == 1 && mm.ino == 1234 &&
		   mm.prot == 4 && mm.flags == 2 && !strcmp(mm.name, "/bin/true") && mm.name_ok && !mm.build_id &&
		   mm.id.time == 999 && mm.id.tid == 42,
	   "MMAP2 record fields, file name and sample_id");
	memset(r.b + 8 + 64, 'x', 16);
	ok(perf_decode_mmap2(h, &f, &mm) == 0 && !mm.name_ok, "an MMAP2 file name not ended before the sample_id is marked");
	((struct perf_event_header *)r.b)->misc = PERF_RECORD_MISC_MMAP_BUILD_ID;
	ok(perf_decode_mmap2(h, &f, &mm) == 0 && mm.build_id, "an MMAP2 record with a build id says so");
	((struct perf_event_header *)r.b)->size = 8 + 64 + 4;
	ok(perf_decode_mmap2(h, &bare, &mm) < 0, "an MMAP2 record too short for its fields is refused");

	/* COMM: pid, tid, name padded to 8, sample_id. */
	struct perf_comm c;
	begin(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32x2(&r, 50, 50);
	put(&r, "newname\0", 8);
	put_id(&r, 50, 50, 4242);
	h = end(&r);
	ok(perf_decode_comm(h, &f, &c) == 0 && c.pid == 50 && c.tid == 50 && !strcmp(c.comm, "newname") && c.exec &&
		   c.id.time == 4242,
	   "COMM record: name, exec mark, time from the sample_id");
	begin(&r, PERF_RECORD_COMM, 0);
	put32x2(&r, 50, 51);
	put(&r, "0123456789abcdefXYZ\0\0\0\0\0", 24); /* no NUL in 16: cut, terminated */
	h = end(&r);
	ok(perf_decode_comm(h, &bare, &c) == 0 && strlen(c.comm) == 15 && !c.exec, "a COMM name is always terminated");
	((struct perf_event_header *)r.b)->size = 8 + 8;
	ok(perf_decode_comm(h, &bare, &c) < 0, "a COMM record without a name is refused");

	/* FORK/EXIT: pid, ppid, tid, ptid, time. */
	struct perf_task t;
	begin(&r, PERF_RECORD_FORK, 0);
	put32x2(&r, 60, 1);
	put32x2(&r, 61, 60);
	put64(&r, 777);
	put_id(&r, 60, 60, 777);
	h = end(&r);
	ok(perf_decode_task(h, &f, &t) == 0 && t.pid == 60 && t.ppid == 1 && t.tid == 61 && t.ptid == 60 &&
		   t.time == 777,
	   "FORK record fields");
	((struct perf_event_header *)r.b)->size = 8 + 12;
	ok(perf_decode_task(h, &bare, &t) < 0, "a FORK record cut short is refused");

	/* LOST: id, lost. THROTTLE: time, id, stream_id. */
	struct perf_lost l;
	begin(&r, PERF_RECORD_LOST, 0);
	put64(&r, 3);
	put64(&r, 17);
	h = end(&r);
	ok(perf_decode_lost(h, &bare, &l) == 0 && l.id == 3 && l.lost == 17, "LOST record fields");
	struct perf_throttle th;
	begin(&r, PERF_RECORD_UNTHROTTLE, 0);
	put64(&r, 5000);
	put64(&r, 3);
	put64(&r, 4);
	h = end(&r);
	ok(perf_decode_throttle(h, &bare, &th) == 0 && th.time == 5000 && th.id == 3 && th.unthrottle,
	   "UNTHROTTLE record fields");
	((struct perf_event_header *)r.b)->size = 8 + 16;
	ok(perf_decode_throttle(h, &bare, &th) < 0, "a THROTTLE record cut short is refused");
}

static void test_reader(void)
{
	struct perf_format f = { .sample_type = ST_CHAIN, .sample_id_all = false };
	struct perf_reader rd;
	struct seen v = { 0 };
	struct rec r;

	ok(perf_reader_init(&rd, &consumer, &v, &f) == 0, "reader set up");
	rd.pid = 10;
	for (uint32_t pid = 9; pid <= 10; pid++) {
		begin(&r, PERF_RECORD_SAMPLE, 0);
		put64(&r, 0x1234);
		put32x2(&r, pid, pid);
		put64(&r, 1);
		put64(&r, 1);
		put64(&r, 0);
		perf_reader_record(&rd, end(&r));
		begin(&r, PERF_RECORD_COMM, 0);
		put32x2(&r, pid, pid);
		put(&r, "name\0\0\0\0", 8);
		perf_reader_record(&rd, end(&r));
		begin(&r, PERF_RECORD_EXIT, 0);
		put32x2(&r, pid, 1);
		put32x2(&r, pid, 1);
		put64(&r, 0);
		perf_reader_record(&rd, end(&r));
	}
	ok(v.samples == 1 && v.last_pid == 10 && v.comms == 1 && v.exits == 1 && v.forks == 0,
	   "the reader keeps one process's records, each to its callback");
	begin(&r, PERF_RECORD_LOST, 0);
	put64(&r, 1);
	put64(&r, 25);
	perf_reader_record(&rd, end(&r));
	begin(&r, PERF_RECORD_THROTTLE, 0);
	put64(&r, 1);
	put64(&r, 1);
	put64(&r, 1);
	perf_reader_record(&rd, end(&r));
	ok(rd.lost == 25 && rd.throttled == 1 && v.lost == 1, "LOST and THROTTLE are counted by the reader");
	begin(&r, PERF_RECORD_SAMPLE, 0);
	put64(&r, 1);
	perf_reader_record(&rd, end(&r));
	is_int(rd.bad, 1, "an undecodable record is counted, not delivered");
	perf_reader_fini(&rd);
}

/* For real: a child's event hangs up once the child has exited. */
static void test_pollset(void)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
				     .exclude_kernel = 1, .exclude_hv = 1 };
	struct perf_pollset ps = { 0 };
	int go, fd;
	uint64_t tag;
	unsigned at = 0;
	pid_t kid = kid_start(&go, "pscope-hup-kid", 0);

	if (kid < 0)
		return;
	int ev = perf_open(&a, kid, -1, -1);
	if (ev < 0) {
		printf("ok %d - # SKIP a task event's hang-up: perf_event_open refused (%d)\n", ++tap_n, -ev);
		close(go);
		waitpid(kid, NULL, 0);
		return;
	}
	/* An event without a ring hangs up at once (the kernel's perf_poll):
	 * this one has its own, as the sampler's go to theirs. */
	struct perf_ring ring;
	struct ps_error e;
	ok(perf_ring_map(&ring, ev, -1, 2, &e) == 0, "the event has its ring");
	ok(perf_pollset_add(&ps, ev, false, 7) == 0, "a task's event in the poll set");
	ok(perf_pollset_wait(&ps, 0) == 0 && !perf_pollset_gone(&ps, &at, &fd, &tag), "the task runs: nothing gone");
	close(go); /* the child exits */
	waitpid(kid, NULL, 0);
	at = 0;
	ok(perf_pollset_wait(&ps, 5000) == 1 && perf_pollset_gone(&ps, &at, &fd, &tag) && fd == ev && tag == 7,
	   "the task exited: its event hung up, found by its tag");
	ok(!perf_pollset_gone(&ps, &at, &fd, &tag), "and nothing else");
	perf_ring_close(&ring); /* closes ev */
	perf_pollset_free(&ps);
}

int main(void)
{
	test_ring();
	test_sample();
	test_records();
	test_reader();
	test_pollset();
	return tap_done();
}
