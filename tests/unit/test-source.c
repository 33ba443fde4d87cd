/* Sources and snapshots: the rates made of two snapshots (a pure
 * function, on hand-made snapshots and a clock set by hand), the source
 * job's ticks, acknowledgements and wakes (a counting source), and the
 * live process source reading this process's header and panes. */
#include "tap.h"
#include "clock.h"
#include "source/source.h"
#include "worker.h"

#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- rates: pure ---- */

/* A snapshot made by hand: its rows copied (its own), or shared with
 * another's (share[i] not NULL). */
struct hand {
	struct snap_list s;
	struct proc_row *own;
};

static void hand_free(struct snap_head *h)
{
	struct hand *x = (struct hand *)h;
	pid_index_free(&x->s.ix);
	free(x->s.rows);
	free(x->own);
	free(x);
}

static struct snap_list *hand_snap(uint64_t t_ns, const struct proc_row *rows, size_t n, const struct snap_list *share)
{
	struct hand *x = calloc(1, sizeof(*x));
	struct snap_list *s = &x->s;
	atomic_init(&s->h.refs, 1);
	s->h.t_ns = t_ns;
	s->h.free = hand_free;
	s->times.hz = 100;
	x->own = calloc(n, sizeof(*rows));
	memcpy(x->own, rows, n * sizeof(*rows));
	s->rows = calloc(n, sizeof(*s->rows));
	for (size_t i = 0; i < n; i++)
		s->rows[i] = share && i < share->n ? share->rows[i] : &x->own[i];
	s->n = n;
	pid_index_build(&s->ix, s->rows, n);
	return s;
}

static struct proc_row *row_of(struct snap_list *s, size_t i)
{
	return (struct proc_row *)(uintptr_t)s->rows[i];
}

static void test_rates(void)
{
	const uint64_t s1 = 1000000000ull;
	struct proc_extra x1 = { .io_rb = 1000, .io_wb = 0, .io_ns = 10 * s1, .ctxt = 50, .ctxt_ns = 10 * s1 };
	struct proc_extra x2 = { .io_rb = 5000, .io_wb = 2048, .io_ns = 12 * s1, .ctxt = 250, .ctxt_ns = 12 * s1 };
	struct proc_row a[] = {
		{ .pid = 10, .starttime = 7, .ticks = 100, .read_ns = 10 * s1, .x = &x1 }, /* busy */
		{ .pid = 11, .starttime = 7, .ticks = 40, .read_ns = 9 * s1 },             /* skipped next */
		{ .pid = 12, .starttime = 7, .ticks = 500, .read_ns = 10 * s1 },           /* pid reused next */
	};
	struct snap_list *prev = hand_snap(10 * s1, a, 3, NULL);
	row_of(prev, 1)->cpu = 12.5; /* its rate when it was last read */
	struct proc_row b[] = {
		{ .pid = 10, .starttime = 7, .ticks = 150, .read_ns = 12 * s1, .x = &x2 },
		{ .pid = 11, .starttime = 7, .ticks = 40, .read_ns = 9 * s1 },
		{ .pid = 12, .starttime = 99, .ticks = 3, .read_ns = 12 * s1 },
		{ .pid = 13, .starttime = 7, .ticks = 80, .read_ns = 12 * s1 },            /* new */
	};
	struct snap_list *cur = hand_snap(12 * s1, b, 4, NULL);
	snap_list_rates(prev, cur);
	ok(cur->interval > 1.999 && cur->interval < 2.001, "interval from the two stamps (%.3f s)", cur->interval);
	ok(cur->rows[0]->cpu > 24.99 && cur->rows[0]->cpu < 25.01, "CPU%%: 50 ticks at 100 Hz over 2 s = 25%% (%.2f)",
	   cur->rows[0]->cpu);
	is_int((int)(cur->rows[1]->cpu * 10), 125, "a row not read again keeps its rate");
	ok(cur->rows[2]->cpu == 0, "a reused pid (another start time) starts with no rate");
	ok(cur->rows[3]->cpu == 0, "a new process has no rate yet");
	ok(x2.io_read_rate > 1999 && x2.io_read_rate < 2001, "read bytes/s from the extras' own read times (%.0f)",
	   x2.io_read_rate);
	ok(x2.io_write_rate > 1023 && x2.io_write_rate < 1025, "written bytes/s (%.0f)", x2.io_write_rate);
	ok(x2.ctxt_rate > 99.9 && x2.ctxt_rate < 100.1, "context switches/s (%.1f)", x2.ctxt_rate);
	/* The same reading again (rows scrolled into view): the same rates. */
	struct proc_extra x3 = x2;
	b[0].x = &x3;
	struct snap_list *again = hand_snap(12 * s1, b, 4, NULL);
	snap_list_rates(cur, again);
	ok(again->rows[0]->cpu == cur->rows[0]->cpu && x3.io_read_rate == x2.io_read_rate,
	   "a snapshot of the same scan keeps the rates (nothing divided by zero)");
	ok(again->interval == cur->interval, "and the interval");
	/* A row shared with the snapshot before is not written at all. */
	struct snap_list *shared = hand_snap(13 * s1, b, 4, again);
	double was = again->rows[0]->cpu;
	row_of(again, 0)->ticks += 1000; /* would make another rate */
	snap_list_rates(again, shared);
	ok(shared->rows[0] == again->rows[0] && again->rows[0]->cpu == was, "a row the snapshot before shares is left as it is");
	snap_put(&shared->h);
	snap_list_rates(NULL, again);
	ok(again->rows[0]->cpu == 0 && again->interval == 0, "no previous snapshot: no rates");
	snap_put(&prev->h);
	snap_put(&cur->h);
	snap_put(&again->h);

	struct ps_clock_manual m;
	ps_clock_manual_init(&m, 42 * s1, 1700000000.5);
	ok(clock_mono_ns(&m.c) == 42 * s1 && clock_wall_s(&m.c) == 1700000000.5, "a clock set by hand says what it was set to");
}

/* ---- the job: ticks, acknowledgements, wakes ---- */

static atomic_int reads, ticks;

static void count_free(struct snap_head *h)
{
	free(h);
}

static int count_read(void *st, const struct source_io *io, const struct source_want *w, const struct snap_head *last,
		      bool tick, struct snap_head **out, struct ps_error *e)
{
	(void)st, (void)io, (void)w, (void)last, (void)e;
	atomic_fetch_add(&reads, 1);
	if (tick)
		atomic_fetch_add(&ticks, 1);
	struct snap_head *h = calloc(1, sizeof(*h));
	atomic_init(&h->refs, 1);
	h->free = count_free;
	*out = h;
	return 0;
}

static const struct source_ops count_ops = { .name = "count", .read = count_read };

/* Drain the ring: the seq of the newest snapshot seen (0 none). */
static unsigned newest(struct ring *r, int ms)
{
	struct ring_msg out[16];
	unsigned seq = 0;
	struct pollfd p = { .fd = ring_fd(r), .events = POLLIN };

	poll(&p, 1, ms);
	size_t n = ring_drain(r, out, 16);
	for (size_t i = 0; i < n; i++) {
		if (out[i].kind == RING_SNAPSHOT && out[i].payload)
			seq = ((struct snap_head *)out[i].payload)->seq;
		ring_msg_release(&out[i]);
	}
	return seq;
}

static void test_job(void)
{
	struct ring *r = ring_new(32);
	struct workers *w = workers_new(r);
	struct source_ctl *ctl = source_ctl_new();
	struct source src = { &count_ops, NULL };
	struct source_want want;
	unsigned seq = 0;

	source_ctl_peek(ctl, &want);
	want.interval_ms = 20;
	source_ctl_set(ctl, &want);
	unsigned id = source_submit(w, NULL, &src, ctl, NULL);
	ok(id > 0, "a source runs as a job");
	for (int i = 0; i < 500 && !seq; i++)
		seq = newest(r, 10);
	is_int((int)seq, 1, "the first snapshot is posted");
	/* Nobody drew it: at a 20 ms interval, a second of silence. */
	for (int i = 0; i < 50; i++)
		if (newest(r, 20))
			seq = 99;
	is_int((int)seq, 1, "no second snapshot until the first was drawn (%d reads)", atomic_load(&reads));
	is_int(atomic_load(&reads), 1, "and nothing read meanwhile");
	if (source_ctl_drawn(ctl, 1))
		workers_wake(w, id);
	unsigned got = 0;
	for (int i = 0; i < 500 && !got; i++)
		got = newest(r, 10);
	is_int((int)got, 2, "drawn: the next tick reads again");
	workers_cancel(w, id);
	/* A change of what is wanted wakes it for a read between ticks. */
	source_ctl_put(ctl);
	ctl = source_ctl_new();
	source_ctl_peek(ctl, &want);
	want.interval_ms = 3600 * 1000; /* no second tick for an hour */
	source_ctl_set(ctl, &want);
	src = (struct source){ &count_ops, NULL };
	atomic_store(&ticks, 0);
	id = source_submit(w, NULL, &src, ctl, NULL);
	for (got = 0; got != 1;)
		got = newest(r, 10);
	source_ctl_drawn(ctl, 1);
	int reads_before = atomic_load(&reads);
	source_ctl_peek(ctl, &want);
	want.nrows = 1;
	want.rows[0] = 42;
	ok(source_ctl_set(ctl, &want), "a new wish changes the control block");
	ok(!source_ctl_set(ctl, &want), "the same wish again does not");
	workers_wake(w, id);
	for (int i = 0; i < 500 && atomic_load(&reads) == reads_before; i++)
		newest(r, 10);
	ok(atomic_load(&reads) > reads_before && atomic_load(&ticks) == 1, "woken: a read that is not a tick");
	/* Cancel: prompt, even in a wait of an hour. */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	workers_cancel(w, id);
	workers_free(w);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ok(t1.tv_sec - t0.tv_sec < 30, "cancelled out of its wait at once");
	source_ctl_put(ctl);
	ring_free(r);
}

/* ---- the live process source on ourselves ---- */

static void test_live_proc(void)
{
	struct target_id me = { .pid = getpid() };
	struct source src;
	struct source_want w = { .pane = PANE_ID_fd };
	atomic_bool cancel = false;
	struct source_io io = { .cancel = &cancel };
	struct snap_head *a = NULL, *b = NULL;
	struct ps_error e;
	int pfd[2];

	is_int(source_live_proc(&src, &me, &ps_clock_live), 0, "a live process source");
	ps_error_clear(&e);
	is_int(src.ops->read(src.st, &io, &w, NULL, true, &a, &e), 0, "the first read");
	const struct snap_proc *s = (const struct snap_proc *)a;
	ok(s && s->id.pid == getpid() && s->id.starttime, "pinned: our pid and start time");
	ok(s && s->pane[PANE_ID_fd] && !s->pane[PANE_ID_fd]->err && s->pane[PANE_ID_fd]->u.fd.n >= 3, "the FDs pane read");
	/* A pipe at an fd number never open before (the list caches a
	 * number's target for a few reads). */
	if (pipe(pfd) == 0) {
		dup2(pfd[0], 250);
		close(pfd[0]);
		pfd[0] = 250;
	}
	w.pane = PANE_ID_threads;
	is_int(src.ops->read(src.st, &io, &w, a, false, &b, &e), 0, "a switch to another pane between ticks");
	s = (const struct snap_proc *)b;
	ok(s && s->pane[PANE_ID_threads] && s->pane[PANE_ID_threads]->u.threads.n >= 1, "reads that pane at once");
	ok(s && s->pane[PANE_ID_fd] == ((const struct snap_proc *)a)->pane[PANE_ID_fd],
	   "the other pane's data is shared, not read again");
	ok(s && s->info_ns == ((const struct snap_proc *)a)->info_ns, "nor the header between ticks");
	snap_put(a);
	a = b;
	b = NULL;
	w.pane = PANE_ID_fd;
	w.nfds = 1;
	w.fds[0] = pfd[0];
	usleep(20000);
	w.tick_now++; /* F5: the pane too, before its interval */
	is_int(src.ops->read(src.st, &io, &w, a, true, &b, &e), 0, "a tick");
	s = (const struct snap_proc *)b;
	ok(s && s->info_ns > ((const struct snap_proc *)a)->info_ns && s->have_rates, "a new header, with rates");
	bool seen = false;
	for (size_t i = 0; s && s->pane[PANE_ID_fd] && i < s->pane[PANE_ID_fd]->u.fd.n; i++) {
		const struct proc_fd *f = &s->pane[PANE_ID_fd]->u.fd.v[i];
		if (f->fd == pfd[0])
			seen = f->type == FDT_PIPE && f->info_err == 0;
	}
	ok(seen, "the new pipe, with the fdinfo of the fd on screen");
	snap_put(a);
	snap_put(b);
	source_close(&src);
	close(pfd[0]);
	close(pfd[1]);

	struct target_id gone = { .pid = 0x7ffffff0 };
	is_int(source_live_proc(&src, &gone, &ps_clock_live), 0, "a source for a pid nobody has");
	a = NULL;
	ok(src.ops->read(src.st, &io, &w, NULL, true, &a, &e) < 0 && !a && e.msg[0], "fails with why (%s)", e.msg);
	source_close(&src);
}

int main(void)
{
	test_rates();
	test_job();
	test_live_proc();
	return tap_done();
}
