/* The perf layer (src/perf/): the ring protocol (records that wrap), one
 * decoder per record type on records built here, the reader's dispatch to
 * a consumer's callbacks (the process filter, LOST/THROTTLE counted,
 * tracepoints found by sample id), the tracefs format parser on this
 * kernel's files (tests/fixtures/perf/), the tracepoint decoders, and
 * for real: sched_switch, sched_wakeup and raw_syscalls opened through
 * the layer on a child, as root, decoded by the format files' offsets. */
#include "perf/perf.h"
#include "tap.h"

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ST_CHAIN (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* ---- building records ---- */

struct rec {
	unsigned char b[512];
	size_t n;
};

static void put(struct rec *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void put64(struct rec *r, uint64_t v)
{
	put(r, &v, 8);
}

static void put32x2(struct rec *r, uint32_t a, uint32_t b)
{
	uint32_t w[2] = { a, b };
	put(r, w, 8);
}

static void begin(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };
	r->n = 0;
	put(r, &h, sizeof(h));
}

static const struct perf_event_header *end(struct rec *r)
{
	struct perf_event_header *h = (struct perf_event_header *)r->b;
	h->size = (uint16_t)r->n;
	return h;
}

/* The sample_id trailer of TID|TIME: pid, tid, time. */
static void put_id(struct rec *r, uint32_t pid, uint32_t tid, uint64_t time)
{
	put32x2(r, pid, tid);
	put64(r, time);
}

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

/* ---- the reader ---- */

struct seen {
	int samples, comms, forks, exits, mmaps, tps, lost;
	uint32_t last_pid;
	struct perf_tp_event ev;
};

static void s_sample(void *ctx, const struct perf_sample *s)
{
	struct seen *v = ctx;
	v->samples++;
	v->last_pid = s->pid;
}

static void s_tp(void *ctx, const struct perf_sample *s, const struct perf_tp_event *ev)
{
	struct seen *v = ctx;
	(void)s;
	v->tps++;
	v->ev = *ev;
}

static void s_comm(void *ctx, const struct perf_comm *c)
{
	(void)c;
	((struct seen *)ctx)->comms++;
}

static void s_fork(void *ctx, const struct perf_task *t)
{
	(void)t;
	((struct seen *)ctx)->forks++;
}

static void s_exit(void *ctx, const struct perf_task *t)
{
	(void)t;
	((struct seen *)ctx)->exits++;
}

static void s_lost(void *ctx, const struct perf_lost *l)
{
	(void)l;
	((struct seen *)ctx)->lost++;
}

static const struct perf_consumer consumer = {
	.on_sample = s_sample, .on_tracepoint = s_tp, .on_comm = s_comm, .on_fork = s_fork,
	.on_exit = s_exit,     .on_lost = s_lost,
};

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

/* ---- tracepoints ---- */

static int load_fixture(const char *system, const char *name, struct perf_tp *tp)
{
	char path[64], buf[8192];
	struct perf_tp_format fmt;
	struct ps_error e;

	snprintf(path, sizeof(path), "perf/%s.format", name);
	size_t n = tap_fixture(path, buf, sizeof(buf));
	if (perf_tp_parse(buf, n, &fmt) < 0)
		return -1;
	return perf_tp_bind(tp, system, &fmt, &e);
}

static void test_tp_parse(void)
{
	struct perf_tp tp;
	const struct perf_tp_field *fl;

	ok(load_fixture("sched", "sched_switch", &tp) == 0 && tp.kind == PERF_TP_SCHED_SWITCH,
	   "sched_switch's format parses and binds");
	is_str(tp.fmt.name, "sched_switch", "its name");
	ok(tp.fmt.id > 0, "its id");
	fl = perf_tp_field(&tp.fmt, "common_pid");
	ok(fl && fl->offset == 4 && fl->size == 4 && fl->is_signed, "common_pid: offset 4, 4 bytes, signed");
	fl = perf_tp_field(&tp.fmt, "prev_comm");
	ok(fl && fl->array && fl->size == 16 && !strcmp(fl->type, "char[16]"), "prev_comm: char[16]");
	fl = perf_tp_field(&tp.fmt, "next_pid");
	ok(fl && !fl->array && fl->size == 4 && !strcmp(fl->type, "pid_t"), "next_pid: pid_t");
	ok(load_fixture("sched", "sched_wakeup", &tp) == 0 && tp.kind == PERF_TP_SCHED_WAKEUP, "sched_wakeup binds");
	ok(load_fixture("sched", "sched_wakeup_new", &tp) == 0 && tp.kind == PERF_TP_SCHED_WAKEUP_NEW,
	   "sched_wakeup_new binds");
	ok(load_fixture("raw_syscalls", "sys_enter", &tp) == 0 && tp.kind == PERF_TP_SYS_ENTER, "sys_enter binds");
	fl = perf_tp_field(&tp.fmt, "args");
	ok(fl && fl->array && fl->size == 48 && !fl->is_signed, "sys_enter args: unsigned long[6]");
	ok(load_fixture("raw_syscalls", "sys_exit", &tp) == 0 && tp.kind == PERF_TP_SYS_EXIT, "sys_exit binds");

	/* Hostile or odd format files. */
	struct perf_tp_format fmt;
	const char *no_id = "name: x\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n";
	ok(perf_tp_parse(no_id, strlen(no_id), &fmt) < 0, "a format without an ID is refused");
	const char *bad = "name: x\nID: 5\nformat:\n\tfield:int a;\toffset:eight;\tsize:4;\tsigned:1;\n";
	ok(perf_tp_parse(bad, strlen(bad), &fmt) < 0, "a field line that does not parse is refused");
	const char *dl = "name: x\nID: 5\nformat:\n\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
			 "\tfield:u64 v;\toffset:12;\tsize:8;\tsigned:0;\nprint fmt: \"field:junk;\"\n";
	ok(perf_tp_parse(dl, strlen(dl), &fmt) == 0 && fmt.nfields == 2 && fmt.fields[0].data_loc &&
		   !strcmp(fmt.fields[0].name, "name") && fmt.id == 5,
	   "a __data_loc field; nothing read past print fmt");
	unsigned char raw[32] = { 0 };
	uint32_t loc = (6u << 16) | 20;
	memcpy(raw + 8, &loc, 4);
	memcpy(raw + 20, "hello", 6);
	char s[16];
	ok(perf_tp_str(&fmt.fields[0], raw, sizeof(raw), s, sizeof(s)) == 0 && !strcmp(s, "hello"),
	   "a __data_loc string is read where its u32 points");
	loc = (20u << 16) | 20;
	memcpy(raw + 8, &loc, 4);
	ok(perf_tp_str(&fmt.fields[0], raw, sizeof(raw), s, sizeof(s)) < 0, "a __data_loc past the record is refused");
	const char *missing = "name: sched_switch\nID: 9\nformat:\n\tfield:pid_t prev_pid;\toffset:8;\tsize:4;\tsigned:1;\n";
	struct ps_error e;
	ok(perf_tp_parse(missing, strlen(missing), &fmt) == 0 && perf_tp_bind(&tp, "sched", &fmt, &e) < 0 &&
		   strstr(e.msg, "prev_comm"),
	   "a known tracepoint without a field it needs is refused, naming the field");
}

/* A raw sched_switch record laid out by the fixture's offsets. */
static void test_tp_decode(void)
{
	struct perf_tp tp;
	struct perf_tp_event ev;
	unsigned char raw[64] = { 0 };

	if (load_fixture("sched", "sched_switch", &tp) < 0) {
		ok(0, "sched_switch fixture");
		return;
	}
	const struct perf_tp_format *f = &tp.fmt;
	int32_t pid = 4321, npid = 0, prio = 120;
	int64_t state = 1; /* TASK_INTERRUPTIBLE */
	memcpy(raw + perf_tp_field(f, "prev_comm")->offset, "worker-1", 9);
	memcpy(raw + perf_tp_field(f, "prev_pid")->offset, &pid, 4);
	memcpy(raw + perf_tp_field(f, "prev_prio")->offset, &prio, 4);
	memcpy(raw + perf_tp_field(f, "prev_state")->offset, &state, 8);
	memcpy(raw + perf_tp_field(f, "next_comm")->offset, "swapper/0", 10);
	memcpy(raw + perf_tp_field(f, "next_pid")->offset, &npid, 4);
	ok(perf_tp_decode(&tp, raw, sizeof(raw), &ev) == 0 && !strcmp(ev.sw.prev_comm, "worker-1") &&
		   ev.sw.prev_pid == 4321 && ev.sw.prev_prio == 120 && ev.sw.prev_state == 1 &&
		   !strcmp(ev.sw.next_comm, "swapper/0") && ev.sw.next_pid == 0,
	   "sched_switch decoded by the format's offsets");
	ok(perf_tp_decode(&tp, raw, 30, &ev) < 0, "a record shorter than its fields is refused");

	struct perf_reader rd;
	struct seen v = { 0 };
	struct perf_format fmt = { .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_RAW };
	struct rec r;
	uint32_t size = sizeof(raw);
	perf_reader_init(&rd, &consumer, &v, &fmt);
	perf_reader_add_tp(&rd, 88, &tp);
	for (uint64_t id = 88; id <= 89; id++) {
		begin(&r, PERF_RECORD_SAMPLE, 0);
		put64(&r, id);
		put32x2(&r, 4321, 4321);
		put(&r, &size, 4);
		put(&r, raw, sizeof(raw));
		put(&r, "\0\0\0\0", 4);
		perf_reader_record(&rd, end(&r));
	}
	ok(v.tps == 1 && v.samples == 1 && v.ev.tp == &tp && v.ev.sw.prev_pid == 4321,
	   "a sample of a known tracepoint goes to on_tracepoint, another id to on_sample");
	perf_reader_fini(&rd);
}

/* ---- for real: the tracepoints of a child, through the layer ---- */

struct live {
	pid_t kid;
	int switches, wakeups, enters, exits, others;
	bool comm_ok, ret_ok;
};

static void live_tp(void *ctx, const struct perf_sample *s, const struct perf_tp_event *ev)
{
	struct live *l = ctx;

	if ((pid_t)s->pid != l->kid && ev->tp->kind != PERF_TP_SCHED_WAKEUP) {
		l->others++;
		return;
	}
	switch (ev->tp->kind) {
	case PERF_TP_SCHED_SWITCH:
		if (ev->sw.prev_pid == l->kid) {
			l->switches++;
			l->comm_ok |= !strcmp(ev->sw.prev_comm, "pscope-tp-kid");
		}
		break;
	case PERF_TP_SCHED_WAKEUP:
		l->wakeups += ev->wk.pid == l->kid;
		break;
	case PERF_TP_SYS_ENTER:
		l->enters += ev->enter.id == SYS_getppid;
		break;
	case PERF_TP_SYS_EXIT:
		if (ev->exit.id == SYS_getppid) {
			l->exits++;
			l->ret_ok |= ev->exit.ret == (int64_t)getpid();
		}
		break;
	default:
		break;
	}
}

static void test_tp_live(void)
{
	static const char *const names[4][2] = {
		{ "sched", "sched_switch" }, { "sched", "sched_wakeup" }, { "raw_syscalls", "sys_enter" },
		{ "raw_syscalls", "sys_exit" },
	};
	struct perf_tp tps[4];
	struct ps_error e;
	char dir[64];

	if (geteuid() != 0) {
		printf("ok %d - # SKIP tracepoints through the layer: not root\n", ++tap_n);
		return;
	}
	if (perf_tracefs(dir, sizeof(dir), &e) < 0) {
		printf("ok %d - # SKIP tracepoints through the layer: no tracefs (%s)\n", ++tap_n, e.msg);
		return;
	}
	for (int i = 0; i < 4; i++)
		if (perf_tp_load(&tps[i], names[i][0], names[i][1], &e) < 0) {
			ok(0, "tracepoint %s:%s loads: %s", names[i][0], names[i][1], e.msg);
			return;
		}
	ok(tps[0].kind == PERF_TP_SCHED_SWITCH && tps[3].kind == PERF_TP_SYS_EXIT, "four tracepoints loaded from %s", dir);

	int go[2];
	if (pipe(go) < 0)
		return;
	pid_t kid = fork();
	if (kid == 0) {
		char c;
		close(go[1]);
		prctl(PR_SET_NAME, "pscope-tp-kid");
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (int i = 0; i < 20; i++) {
			syscall(SYS_getppid);
			usleep(1000);
		}
		_exit(0);
	}
	close(go[0]);

	/* Per (child, CPU) events into a ring per CPU of our own, as the
	 * sampler opens them. sched_wakeup fires in the waker's context and
	 * reaches CPU-wide events only (pid -1: perf record -p misses it too),
	 * so it is opened for every task and the child's picked out. */
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct perf_event_attr a[4];
	struct perf_format fmt;
	struct perf_reader rd;
	struct perf_ring *rings = calloc((size_t)ncpu, sizeof(*rings));
	struct live l = { .kid = kid };
	static const struct perf_consumer lc = { .on_tracepoint = live_tp };
	int *fds = calloc((size_t)ncpu * 4, sizeof(int)), n = 0, nr = 0, r = 0;
	for (int i = 0; i < 4; i++)
		perf_tp_attr(&tps[i], PERF_SAMPLE_TID | PERF_SAMPLE_TIME, &a[i]);
	perf_format_of(&a[0], &fmt);
	r = rings && fds ? perf_reader_init(&rd, &lc, &l, &fmt) : -ENOMEM;
	for (long c = 0; c < ncpu && r == 0; c++) {
		int rc = perf_ring_open(&rings[nr], (int)c, false, 16, kid, &e);
		if (rc == -ENODEV)
			continue; /* offline */
		if ((r = rc) < 0)
			break;
		for (int i = 0; i < 4 && r == 0; i++) {
			pid_t who = tps[i].kind == PERF_TP_SCHED_WAKEUP ? -1 : kid;
			int fd = perf_open_into(&a[i], who, (int)c, &rings[nr]);
			uint64_t id;
			if (fd < 0) {
				r = perf_refused(&e, who, fd, "trace the child");
				break;
			}
			fds[n++] = fd;
			if ((r = perf_event_id(fd, &id)) == 0)
				r = perf_reader_add_tp(&rd, id, &tps[i]);
		}
		nr++;
	}
	ok(r == 0, "the events open on the child, %d per CPU (%s)", 4, r ? e.msg : "sched_switch, sched_wakeup, sys_enter, sys_exit");
	if (write(go[1], "g", 1) != 1)
		r = -EIO;
	close(go[1]);
	int st;
	waitpid(kid, &st, 0);
	for (int c = 0; c < nr && r == 0; c++)
		perf_read(&rd, &rings[c]);
	ok(l.switches >= 20 && l.comm_ok, "sched_switch: the child switched out %d times, named by prev_comm", l.switches);
	ok(l.wakeups >= 1, "sched_wakeup: the child woken %d times", l.wakeups);
	ok(l.enters == 20 && l.exits == 20 && l.ret_ok, "raw_syscalls: 20 getppid entries and exits, returning our pid");
	is_int(l.others, 0, "only the child's records came");
	is_int(rd.bad, 0, "every record decoded");
	for (int i = 0; i < n; i++)
		close(fds[i]);
	for (int c = 0; c < nr; c++)
		perf_ring_close(&rings[c]);
	free(rings);
	free(fds);
	perf_reader_fini(&rd);
}

/* As nobody the tracefs door is closed, and named. */
static void test_tp_door(void)
{
	if (geteuid() != 0) {
		printf("ok %d - # SKIP the tracefs door as nobody: not root\n", ++tap_n);
		return;
	}
	int p[2];
	if (pipe(p) < 0)
		return;
	pid_t kid = fork();
	if (kid == 0) {
		struct perf_tp tp;
		struct ps_error e = { 0 };
		close(p[0]);
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		int r = perf_tp_load(&tp, "sched", "sched_switch", &e);
		char out[16];
		snprintf(out, sizeof(out), "%d %d", r < 0, (int)e.door);
		if (write(p[1], out, strlen(out)) < 0)
			_exit(3);
		_exit(0);
	}
	char buf[32] = { 0 };
	close(p[1]);
	ssize_t n = read(p[0], buf, sizeof(buf) - 1);
	waitpid(kid, NULL, 0);
	char want[16];
	snprintf(want, sizeof(want), "1 %d", (int)DOOR_TRACEFS);
	ok(n > 0 && !strcmp(buf, want), "as nobody a tracepoint is refused by the tracefs door (%s)", buf);
}

int main(void)
{
	test_ring();
	test_sample();
	test_records();
	test_reader();
	test_tp_parse();
	test_tp_decode();
	test_tp_live();
	test_tp_door();
	return tap_done();
}
