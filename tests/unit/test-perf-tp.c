/* Tracepoints through the perf layer (src/perf/tp.c): the tracefs format
 * parser on this kernel's files (tests/fixtures/perf/) and on odd ones,
 * the decoders by the formats' offsets, a tracepoint sample found by its
 * id; and for real, as root: sched_switch, sched_wakeup and raw_syscalls
 * opened on a child, decoded; the tracefs door as nobody. */
#include "perf-rec.h"
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

	int go;
	pid_t kid = kid_start(&go, "pscope-tp-kid", 20);
	if (kid < 0)
		return;

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
	if (write(go, "g", 1) != 1)
		r = -EIO;
	close(go);
	int st;
	waitpid(kid, &st, 0);
	for (int c = 0; c < nr && r == 0; c++)
		perf_read(&rd, &rings[c]);
	ok(l.switches >= 20 && l.comm_ok, "sched_switch: the child switched out %d times, named by prev_comm", l.switches);
	/* The wakeups of every task share the rings: on a busy machine they
	 * can fill them before they are read, and the layer counts what the
	 * kernel dropped. */
	ok(l.wakeups >= 1 || rd.lost > 0, "sched_wakeup: the child woken %d times (%llu records lost)", l.wakeups,
	   (unsigned long long)rd.lost);
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
	test_tp_parse();
	test_tp_decode();
	test_tp_live();
	test_tp_door();
	return tap_done();
}
