/* The time model (reasons, log2 histograms, sums, windows) and the
 * parsers it reads (/proc/TID/sched, taskstats replies) on fixtures
 * (tests/fixtures/time/). */
#include "proc/psi.h"
#include "proc/sched.h"
#include "proc/syscalls.h"
#include "proc/taskstats.h"
#include "tap.h"
#include "time/model.h"
#include "time/trace.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static long nr_of(const char *name)
{
	for (long nr = 0; nr < 1024; nr++)
		if (proc_syscall_name(nr) && !strcmp(proc_syscall_name(nr), name))
			return nr;
	return -1;
}

static void test_reasons(void)
{
	is_int(tm_reason_of(nr_of("futex"), 0), TM_R_LOCK, "futex is a lock wait");
	is_int(tm_reason_of(nr_of("clock_nanosleep"), 0), TM_R_SLEEP, "clock_nanosleep is a sleep");
	is_int(tm_reason_of(nr_of("epoll_wait"), 0), TM_R_POLL, "epoll_wait is poll");
	is_int(tm_reason_of(nr_of("pselect6"), 0), TM_R_POLL, "pselect6 is poll");
	is_int(tm_reason_of(nr_of("fdatasync"), 0), TM_R_IO, "fdatasync is I/O even outside io_schedule");
	is_int(tm_reason_of(nr_of("read"), 0), TM_R_IPC, "read outside io_schedule waits on a pipe, socket or terminal");
	is_int(tm_reason_of(nr_of("read"), TM_H_IOWAIT), TM_R_IO, "read in io_schedule is I/O");
	is_int(tm_reason_of(nr_of("read"), TM_H_DSTATE), TM_R_IO, "read in D state (the /proc hint) is I/O");
	is_int(tm_reason_of(nr_of("recvfrom"), TM_H_IOWAIT), TM_R_IPC, "recvfrom is a socket wait");
	is_int(tm_reason_of(nr_of("futex"), TM_H_FAULT), TM_R_FAULT, "a fault inside wins over the syscall");
	is_int(tm_reason_of(-1, TM_H_DSTATE), TM_R_FAULT, "blocked in D outside a syscall: a page fault");
	is_int(tm_reason_of(-1, 0), TM_R_OTHER, "blocked outside a syscall, no hint: other");
	is_int(tm_reason_of(nr_of("getpid"), TM_H_IOWAIT), TM_R_IO, "any syscall in io_schedule is I/O");
	is_int(tm_reason_of(nr_of("getpid"), 0), TM_R_OTHER, "an unlisted syscall is other");
	is_int(tm_reason_of(100000, 0), TM_R_OTHER, "an unknown number is other");
	is_int(tm_reason_of_wchan("futex_wait_queue", 0), TM_R_LOCK, "wchan futex_wait_queue: lock");
	is_int(tm_reason_of_wchan("do_sys_poll", 0), TM_R_POLL, "wchan do_sys_poll: poll");
	is_int(tm_reason_of_wchan("pipe_read", 0), TM_R_IPC, "wchan pipe_read: pipe");
	is_int(tm_reason_of_wchan("hrtimer_nanosleep", 0), TM_R_SLEEP, "wchan hrtimer_nanosleep: sleep");
	is_int(tm_reason_of_wchan("", 0), TM_R_OTHER, "no wchan: other");
	is_int(tm_reason_of_wchan(NULL, TM_H_IOWAIT), TM_R_IO, "no wchan, iowait: I/O");
	is_str(tm_reason_key(TM_R_IPC), "pipe_socket", "JSON key of pipe/socket");
	is_str(tm_reason_key(TM_R_COUNT), "other", "a reason out of range is other");
	is_int(tm_tier_parse("bpf"), TM_TIER_BPF, "tier bpf");
	is_int(tm_tier_parse("proc"), TM_TIER_PROC, "tier proc");
	is_int(tm_tier_parse("perf"), -1, "no tier perf");
}

static void test_hist(void)
{
	struct tm_hist h;

	is_int(tm_bucket(0), 0, "bucket of 0");
	is_int(tm_bucket(1), 0, "bucket of 1");
	is_int(tm_bucket(2), 1, "bucket of 2");
	is_int(tm_bucket(3), 1, "bucket of 3");
	is_int(tm_bucket(1024), 10, "bucket of 1024");
	is_int(tm_bucket(1000000), 19, "bucket of 1 ms");
	is_int(tm_bucket(UINT64_MAX), TM_HIST - 1, "the last bucket holds the rest");
	memset(&h, 0, sizeof(h));
	is_int(tm_hist_quantile(&h, 0.5, 0, 0), 0, "an empty histogram's median is 0");
	for (int i = 0; i < 100; i++)
		tm_hist_add(&h, 1500);
	is_int(tm_hist_count(&h), 100, "100 values counted");
	uint64_t p50 = tm_hist_quantile(&h, 0.5, 0, 0);
	ok(p50 >= 1024 && p50 < 2048, "the median lies in the values' bucket (%llu)", (unsigned long long)p50);
	is_int(tm_hist_quantile(&h, 0.5, 1500, 1500), 1500, "min and max clamp the estimate");
	tm_hist_add(&h, 1 << 20);
	uint64_t p99 = tm_hist_quantile(&h, 0.99, 0, 0), p100 = tm_hist_quantile(&h, 1.0, 0, 2000000);
	ok(p99 < 2048, "p99 of 100 small and 1 large stays small (%llu)", (unsigned long long)p99);
	ok(p100 >= (1 << 20), "p100 reaches the large one (%llu)", (unsigned long long)p100);
}

static void test_worst(void)
{
	struct tm_wait w[TM_WORST];
	unsigned n = 0;

	for (int i = 1; i <= TM_WORST + 4; i++) {
		struct tm_wait a = { .ns = (uint64_t)((i * 7) % 13 + 1) * 1000, .tid = i };
		tm_worst_add(w, &n, &a);
	}
	is_int(n, TM_WORST, "worst waits are capped at %d", TM_WORST);
	bool sorted = true;
	for (unsigned i = 1; i < n; i++)
		sorted = sorted && w[i - 1].ns >= w[i].ns;
	ok(sorted, "worst waits are sorted, largest first");
	is_int(w[0].ns, 13000, "the largest wait is kept");
}

/* A snapshot of two threads with syscalls, cumulative to end_ns. */
static struct tm_snapshot *two_threads(uint64_t end_ns, uint64_t scale)
{
	struct tm_snapshot *s = calloc(1, sizeof(*s));
	s->target.pid = 100;
	s->start_ns = 1000;
	s->end_ns = end_ns;
	s->threads = calloc(2, sizeof(*s->threads));
	s->nthreads = 2;
	for (int i = 0; i < 2; i++) {
		struct tm_thread *t = &s->threads[i];
		t->tid = 101 - i; /* out of order: finish sorts them */
		t->oncpu_ns = 10 * scale * (uint64_t)(i + 1);
		t->runq_ns = 5 * scale;
		t->blocked_ns[TM_R_SLEEP] = 20 * scale;
		t->vol = 3 * scale;
		struct tm_syscall *c = tm_thread_syscall(t, 35);
		c->count = 2 * scale;
		c->total_ns = 100 * scale * (uint64_t)(i + 1);
		c->min_ns = 40;
		c->max_ns = 60 + (uint64_t)i;
		for (uint64_t k = 0; k < c->count; k++)
			tm_hist_add(&c->hist, 50);
		struct tm_syscall *f = tm_thread_syscall(t, 202);
		f->count = scale;
		f->total_ns = 1000 * scale;
		f->max_ns = 1000;
		tm_hist_add(&f->hist, 1000);
		struct tm_wait wt = { .ns = 7 * scale + (uint64_t)i, .tid = t->tid };
		tm_worst_add(t->worst, &t->nworst, &wt);
		tm_hist_add(&t->runq_hist, 300);
	}
	tm_snapshot_finish(s);
	return s;
}

static void test_sums(void)
{
	struct tm_snapshot *s = two_threads(1001000, 1);

	is_int(s->threads[0].tid, 100, "threads sorted by tid");
	is_int(s->total.oncpu_ns, 30, "process on CPU sums its threads");
	is_int(s->total.threads, 2, "the process counts its threads");
	is_int(s->total.nsys, 2, "process syscalls merged by number");
	is_int(s->total.sys[0].nr, 202, "process syscalls sorted by total time");
	is_int(s->total.sys[1].count, 4, "counts of one syscall added");
	is_int(s->total.sys[1].max_ns, 61, "the process max is the largest");
	is_int(s->total.sys[1].min_ns, 40, "the process min is the smallest");
	is_int(s->total.nworst, 2, "worst waits merged");
	is_int(tm_hist_count(&s->total.runq_hist), 2, "run-queue histograms added");
	ok(tm_pct(s, 1000000) > 99.9 && tm_pct(s, 1000000) < 100.1, "1 ms of a 1 ms window is 100%%");
	is_int(tm_blocked_sum(&s->total), 40, "blocked sums its reasons");

	struct tm_snapshot *later = two_threads(2001000, 3), *d = tm_snapshot_diff(s, later);
	ok(d != NULL, "diff of two snapshots");
	is_int(d->start_ns, 1001000, "the window starts where the older one ended");
	is_int(d->end_ns, 2001000, "and ends with the newer");
	is_int(d->threads[0].oncpu_ns, 40, "a thread's window is the difference");
	is_int(d->total.oncpu_ns, 60, "the process total of the window");
	is_int(d->total.vol, 12, "switches of the window");
	const struct tm_syscall *c = NULL;
	for (size_t i = 0; i < d->threads[0].nsys; i++)
		if (d->threads[0].sys[i].nr == 35)
			c = &d->threads[0].sys[i];
	ok(c && c->count == 4 && tm_hist_count(&c->hist) == 4, "syscall counts and histogram of the window");
	ok(c && c->max_ns <= 63 && c->max_ns >= 32, "a window's max stays in its bucket (%llu)",
	   c ? (unsigned long long)c->max_ns : 0ULL);
	is_int(d->threads[0].nworst, 1, "only the newer worst wait belongs to the window");
	tm_snapshot_free(d);
	tm_snapshot_free(later);
	tm_snapshot_free(s);
}

static void test_sched(void)
{
	char buf[8192];
	struct proc_sched sc;
	size_t n = tap_fixture("time/sched.txt", buf, sizeof(buf));

	ok(n > 0, "fixture time/sched.txt");
	is_int(proc_sched_parse(buf, n, &sc), 0, "sched parses");
	is_int(sc.nr_migrations, 0, "se.nr_migrations");
	ok(sc.have & PROC_SCHED_HAVE_MIGR, "migrations found");
	is_int(sc.sum_exec_ns, 133825, "se.sum_exec_runtime 0.133825 ms is 133825 ns");
	const char *t = "se.nr_migrations                             :                   17\n"
			"nr_voluntary_switches     :  5\nnr_switches : 9\n";
	is_int(proc_sched_parse(t, strlen(t), &sc), 0, "a short sched parses");
	is_int(sc.nr_migrations, 17, "its migrations");
	is_int(sc.nr_voluntary, 5, "its voluntary switches");
	is_int(proc_sched_parse("garbage\n", 8, &sc), -EINVAL, "no known line: -EINVAL");
	is_int(proc_sched_parse("", 0, &sc), -EINVAL, "empty: -EINVAL");
}

static void test_taskstats(void)
{
	unsigned char buf[2048];
	struct proc_taskstats ts;
	size_t n = tap_fixture("time/taskstats.bin", (char *)buf, sizeof(buf));

	ok(n > 0, "fixture time/taskstats.bin");
	is_int(proc_taskstats_parse(buf, n, &ts), 0, "taskstats reply parses");
	is_int(ts.pid, 4242, "its pid");
	is_int(ts.version, 14, "its version");
	is_int(ts.cpu_delay, 1000000, "CPU delay");
	is_int(ts.blkio_delay, 3000000, "block I/O delay");
	is_int(ts.blkio_count, 3, "block I/O count");
	is_int(ts.swapin_delay, 500, "swap-in delay");
	is_int(ts.thrashing_delay, 700, "thrashing delay");
	is_int(ts.wpcopy_delay, 900, "write-protect copy delay (v13)");
	is_int(ts.irq_delay, 1100, "IRQ delay (v14)");
	int bad = 0;
	for (size_t k = 0; k < n; k++)
		if (proc_taskstats_parse(buf, k, &ts) == 0)
			bad++;
	is_int(bad, 0, "every truncated reply is refused");
	/* A version 13 reply: no IRQ delay even if bytes follow. */
	buf[NLMSG_HDRLEN + GENL_HDRLEN + 2 * NLA_HDRLEN + 8] = 13;
	is_int(proc_taskstats_parse(buf, n, &ts), 0, "a v13 reply parses");
	is_int(ts.irq_delay, 0, "v13 has no IRQ delay");

	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} er = { .h = { .nlmsg_len = sizeof(er), .nlmsg_type = NLMSG_ERROR }, .e = { .error = -EPERM } };
	is_int(proc_taskstats_parse(&er, sizeof(er), &ts), -EPERM, "an error reply gives its errno");
	uint16_t id = 0;
	is_int(proc_genl_family_parse(&er, sizeof(er), &id), -EPERM, "family lookup error");
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
		struct nlattr a;
		uint16_t id;
		uint16_t pad;
	} fam = { .h = { .nlmsg_len = sizeof(fam) }, .a = { .nla_len = NLA_HDRLEN + 2, .nla_type = CTRL_ATTR_FAMILY_ID },
		  .id = 27 };
	is_int(proc_genl_family_parse(&fam, sizeof(fam), &id), 0, "family reply parses");
	is_int(id, 27, "family id");
}

static void test_psi(void)
{
	char buf[512];
	struct proc_psi p;
	size_t n = tap_fixture("time/pressure-io.txt", buf, sizeof(buf));

	is_int(proc_psi_parse(buf, n, &p), 0, "io pressure parses");
	ok(p.have_full, "io has a full line");
	n = tap_fixture("time/pressure-cpu-v1.txt", buf, sizeof(buf));
	is_int(proc_psi_parse(buf, n, &p), 0, "a cpu pressure without full parses");
	ok(!p.have_full, "no full line");
	is_int(p.some_total, 1234567, "some total (us)");
	ok(p.some_avg10 > 12.49 && p.some_avg10 < 12.51, "some avg10");
	const char *t = "some avg10=1.00 avg60=2.00 avg300=3.00 total=10\nfull avg10=0.50 avg60=0 avg300=0 total=5\n";
	is_int(proc_psi_parse(t, strlen(t), &p), 0, "some and full");
	is_int(p.full_total, 5, "full total");
	is_int(proc_psi_parse("full avg10=0 avg60=0 avg300=0 total=1\n", 38, &p), -EINVAL, "no some line: -EINVAL");
	is_int(proc_psi_parse("some avg10=x\n", 13, &p), -EINVAL, "a broken some line: -EINVAL");
}

static void ev(struct tt_threads *ts, uint64_t time, enum tt_kind kind, pid_t tid, pid_t a, pid_t b, int64_t st)
{
	struct tt_ev x = { .time = time, .kind = kind, .cpu = 1, .tid = tid, .a = a, .b = b, .state_or_ret = st };
	strcpy(x.comm, "other");
	tt_apply(ts, &x);
}

static void test_trace_state(void)
{
	struct tt_threads ts = { 0 };
	long futex = nr_of("futex"), rd = nr_of("read");
	struct tt_thread *t = tt_add(&ts, 10);

	ok(t && tt_find(&ts, 10) == t && !tt_find(&ts, 11), "a thread followed by tid");
	ev(&ts, 50, TT_SWITCH, 0, 30, 10, 0); /* switched in, state unknown before */
	ev(&ts, 100, TT_SYS_ENTER, 10, (pid_t)futex, 0, 0);
	ev(&ts, 200, TT_SWITCH, 10, 10, 20, 1); /* S: blocks in futex */
	ev(&ts, 1200, TT_WAKEUP, 20, 10, 0, 0);
	ev(&ts, 1700, TT_SWITCH, 30, 30, 10, 0); /* in after 500 ns, "other" ran */
	ev(&ts, 1800, TT_SYS_EXIT, 10, (pid_t)futex, 0, 0);
	t = tt_find(&ts, 10);
	is_int(t->blocked[TM_R_LOCK], 1000, "blocked 1000 ns in futex: lock");
	is_int(tm_hist_count(&t->acc.runq_hist), 1, "one run-queue wait (the unknown one before is not counted)");
	is_int(t->acc.runq_hist.b[tm_bucket(500)], 1, "of 500 ns");
	ok(t->acc.nworst == 1 && t->acc.worst[0].ns == 500 && t->acc.worst[0].ran_tid == 30 &&
	   !strcmp(t->acc.worst[0].ran_comm, "other"), "the worst wait and what ran instead");
	ok(t->acc.nsys == 1 && t->acc.sys[0].count == 1 && t->acc.sys[0].total_ns == 1700 && t->acc.sys[0].blocked_ns == 1000,
	   "futex: one call of 1700 ns, 1000 of them blocked");
	ev(&ts, 2000, TT_SWITCH, 10, 10, 30, 4 | 0x100); /* TASK_STOPPED */
	ev(&ts, 2500, TT_WAKEUP, 30, 10, 0, 0);
	ev(&ts, 2600, TT_SWITCH, 30, 30, 10, 0);
	is_int(t->stopped, 500, "stopped 500 ns");
	ev(&ts, 3000, TT_SYS_ENTER, 10, (pid_t)rd, 0, 0);
	ev(&ts, 3100, TT_SWITCH, 10, 10, 30, 2); /* D: blocks in read */
	ev(&ts, 3600, TT_WAKEUP, 30, 10, 0, 0);
	is_int(t->blocked[TM_R_IO], 500, "read in D state: I/O");
	ev(&ts, 3700, TT_WAKEUP, 30, 10, 0, 0); /* woken again while runnable: nothing */
	ev(&ts, 3800, TT_SWITCH, 30, 30, 10, 0);
	is_int(tm_hist_count(&t->acc.runq_hist), 3, "the wait counts from the first wakeup");
	is_int(t->acc.worst[0].ns, 500, "worst waits sorted");
	ev(&ts, 3900, TT_SYS_EXIT, 10, (pid_t)futex, 0, 0); /* an exit of another call: no latency */
	ok(t->acc.sys[0].count == 1, "an exit without its entry is not timed");
	tt_reset(&ts);
	ev(&ts, 5000, TT_WAKEUP, 30, 10, 0, 0);
	ev(&ts, 5100, TT_SWITCH, 30, 30, 10, 0);
	is_int(t->blocked[TM_R_LOCK] + t->blocked[TM_R_IO], 1500, "after a reset the unknown stretch is not counted");
	tt_free(&ts);
}

int main(void)
{
	test_reasons();
	test_hist();
	test_worst();
	test_sums();
	test_sched();
	test_taskstats();
	test_psi();
	test_trace_state();
	return tap_done();
}
