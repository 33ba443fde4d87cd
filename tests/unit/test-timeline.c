/* The timeline's ring (src/time/timeline.c) and its Chrome trace writer
 * (src/out/trace.c) on hand-made records: the oldest dropped past the cap
 * and counted; one thread's syscall, block, wakeup, run-queue wait and
 * run as the exact slices they make, nested; another task's events left
 * out; a switch-in stamped after the syscall's exit still nests. */
#include "out/trace.h"
#include "tap.h"
#include "time/model.h"
#include "time/timeline.h"

#include <stdlib.h>
#include <string.h>

static void test_ring(void)
{
	struct tm_timeline tl;

	ok(tm_tl_init(&tl, 3) == 0, "a ring of 3");
	for (int i = 1; i <= 5; i++)
		tm_tl_add(&tl, &(struct tm_tlev){ .time = (uint64_t)i, .kind = TM_TL_SAMPLE, .tid = 1 });
	ok(tl.n == 3 && tl.dropped == 2, "5 added: 3 kept, 2 dropped (%zu, %llu)", tl.n, tl.dropped);
	ok(tm_tl_at(&tl, 0)->time == 3 && tm_tl_at(&tl, 2)->time == 5, "oldest first: the last three");
	tm_tl_free(&tl);
}

static char *write_of(const struct tm_timeline *tl, struct out_trace_stats *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct out_trace_thread th[] = { { 10, "main" }, { 11, "sleeper" } };
	int r = out_trace_write(f, tl, 10, "app", th, 2, st);
	fclose(f);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

#define US 1000ULL

static void test_writer(void)
{
	struct tm_timeline tl;
	struct out_trace_stats st;
	/* tid 11: runs from 0, enters nanosleep (35) at 10 us, switches out
	 * asleep at 12, woken by 99 at 1012, switched in at 1015, exits at
	 * 1020, samples at 1030; tid 99 (not ours) switches out too. */
	const struct tm_tlev ev[] = {
		{ .time = 0 * US, .kind = TM_TL_SWITCH, .tid = 99, .a = 1, .b = 11 },
		{ .time = 10 * US, .kind = TM_TL_SYS_ENTER, .tid = 11, .a = 35 },
		{ .time = 12 * US, .kind = TM_TL_SWITCH, .tid = 11, .a = 1, .b = 99 },
		{ .time = 1012 * US, .kind = TM_TL_WAKEUP, .tid = 11, .b = 99 },
		{ .time = 1015 * US, .kind = TM_TL_SWITCH, .tid = 99, .a = 0x100, .b = 11 },
		{ .time = 1020 * US, .kind = TM_TL_SYS_EXIT, .tid = 11, .a = 35, .b = 0 },
		{ .time = 1030 * US, .kind = TM_TL_SAMPLE, .tid = 11 },
		{ .time = 1040 * US, .kind = TM_TL_SYS_ENTER, .tid = 11, .a = 1 },
	};

	tm_tl_init(&tl, 64);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		tm_tl_add(&tl, &ev[i]);
	char *out = write_of(&tl, &st);
	ok(out != NULL, "written");
	if (!out)
		return;
	static const char *const want[] = {
		"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":10,\"tid\":10,\"args\":{\"name\":\"app\"}}",
		"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":10,\"tid\":11,\"args\":{\"name\":\"sleeper\"}}",
		"{\"name\":\"running\",\"cat\":\"sched\",\"ph\":\"X\",\"pid\":10,\"tid\":11,\"ts\":0.000,\"dur\":10.000}",
		"{\"name\":\"running\",\"cat\":\"sched\",\"ph\":\"X\",\"pid\":10,\"tid\":11,\"ts\":10.000,\"dur\":2.000}",
		"{\"name\":\"blocked: sleep\",\"cat\":\"sched\",\"ph\":\"X\",\"pid\":10,\"tid\":11,\"ts\":12.000,\"dur\":1000.000}",
		"{\"name\":\"wakeup\",\"cat\":\"sched\",\"ph\":\"i\",\"s\":\"t\",\"pid\":10,\"tid\":11,\"ts\":1012.000,\"args\":{\"waker_tid\":99}}",
		"{\"name\":\"runnable\",\"cat\":\"sched\",\"ph\":\"X\",\"pid\":10,\"tid\":11,\"ts\":1012.000,\"dur\":3.000}",
		"{\"name\":\"running\",\"cat\":\"sched\",\"ph\":\"X\",\"pid\":10,\"tid\":11,\"ts\":1015.000,\"dur\":5.000}",
		"{\"name\":\"nanosleep\",\"cat\":\"syscall\",\"ph\":\"X\",\"pid\":10,\"tid\":11,\"ts\":10.000,\"dur\":1010.000,\"args\":{\"nr\":35,\"ret\":0}}",
		"{\"name\":\"cpu-clock sample\",\"cat\":\"sample\",\"ph\":\"i\",\"s\":\"t\",\"pid\":10,\"tid\":11,\"ts\":1030.000}",
		"{\"name\":\"running\",\"cat\":\"sched\",\"ph\":\"X\",\"pid\":10,\"tid\":11,\"ts\":1020.000,\"dur\":20.000}",
	};
	bool all = true;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(out, want[i])) {
			printf("# missing: %s\n", want[i]);
			all = false;
		}
	ok(all, "the exact slices and instants of the thread");
	ok(!strstr(out, "\"tid\":99"), "another task's events are left out");
	ok(strstr(out, "\"dropped_events\":0") && strstr(out, "\"span_us\":1040.000"), "otherData: the span, nothing dropped");
	/* running x4, blocked, runnable, nanosleep; sample and wakeup. */
	is_int(st.slices, 7, "7 slices");
	is_int(st.instants, 2, "2 instants");
	free(out);
	tm_tl_free(&tl);

	/* The switch-in stamped after the exit (another CPU's clock): the
	 * exit proves it runs, so the runnable slice ends there. */
	const struct tm_tlev late[] = {
		{ .time = 0, .kind = TM_TL_SYS_ENTER, .tid = 11, .a = 35 },
		{ .time = 1 * US, .kind = TM_TL_SWITCH, .tid = 11, .a = 1, .b = 99 },
		{ .time = 5 * US, .kind = TM_TL_WAKEUP, .tid = 11, .b = 99 },
		{ .time = 9 * US, .kind = TM_TL_SYS_EXIT, .tid = 11, .a = 35 },
		{ .time = 10 * US, .kind = TM_TL_SWITCH, .tid = 99, .a = 0x100, .b = 11 },
	};
	tm_tl_init(&tl, 64);
	for (size_t i = 0; i < sizeof(late) / sizeof(late[0]); i++)
		tm_tl_add(&tl, &late[i]);
	out = write_of(&tl, &st);
	ok(out && strstr(out, "\"name\":\"runnable\",\"cat\":\"sched\",\"ph\":\"X\",\"pid\":10,\"tid\":11,\"ts\":5.000,\"dur\":4.000}"),
	   "a late switch-in: the runnable slice ends at the exit, inside the syscall");
	free(out);
	tm_tl_free(&tl);
}

/* The walk the TUI draws from (src/time/tl-walk.c): thread 11 runs
 * 0-100us, enters nanosleep (35) at 100, blocks at 150 until woken by 10
 * at 1150, waits for a CPU until 1400, leaves the call at 1450 and runs
 * to the end (2000); a fault at 1500, a sample at 1600. */
static void test_walk(void)
{
	struct tm_timeline tl;
	const struct tm_tlev ev[] = {
		{ .time = 0 * US, .kind = TM_TL_SWITCH, .tid = 10, .a = 1, .b = 11 },
		{ .time = 100 * US, .kind = TM_TL_SYS_ENTER, .tid = 11, .a = 35 },
		{ .time = 150 * US, .kind = TM_TL_SWITCH, .tid = 11, .a = 1, .b = 0 },
		{ .time = 1150 * US, .kind = TM_TL_WAKEUP, .tid = 11, .b = 10 },
		{ .time = 1400 * US, .kind = TM_TL_SWITCH, .tid = 99, .a = 0, .b = 11 },
		{ .time = 1450 * US, .kind = TM_TL_SYS_EXIT, .tid = 11, .a = 35, .b = 0 },
		{ .time = 1500 * US, .kind = TM_TL_FAULT, .tid = 11 },
		{ .time = 1600 * US, .kind = TM_TL_SAMPLE, .tid = 11 },
	};

	tm_tl_init(&tl, 64);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		tm_tl_add(&tl, &ev[i]);
	struct tm_tlchunk *c = tm_tlchunk_take(&tl, 0, 2000 * US);
	ok(c && c->n == 8 && tl.n == 0, "the ring's events taken as a chunk, the ring emptied");
	struct tm_tlchunk *cs[] = { c };
	pid_t tid = 11;
	struct tm_tlcell all, g[4];
	tm_tl_grid(cs, 1, &tid, 1, 0, 2000 * US, 1, &all);
	ok(all.ns[TM_TS_RUN] == 650 * US, "on CPU in user space: 0-100 and 1450-2000 (%llu)",
	   (unsigned long long)all.ns[TM_TS_RUN]);
	ok(all.ns[TM_TS_SYS] == 100 * US, "in nanosleep on a CPU: 100-150 and 1400-1450 (%llu)",
	   (unsigned long long)all.ns[TM_TS_SYS]);
	ok(all.ns[TM_TS_BLOCK + TM_R_SLEEP] == 1000 * US, "blocked (sleep, from nanosleep) 150-1150 (%llu)",
	   (unsigned long long)all.ns[TM_TS_BLOCK + TM_R_SLEEP]);
	ok(all.ns[TM_TS_RUNQ] == 250 * US, "waiting for a CPU 1150-1400 (%llu)", (unsigned long long)all.ns[TM_TS_RUNQ]);
	ok(all.marks == (TM_TM_WOKEN | TM_TM_FAULT | TM_TM_SAMPLE), "marks: woken, fault, sample (%#x)", all.marks);
	tm_tl_grid(cs, 1, &tid, 1, 0, 500 * US, 4, g);
	ok(tm_tl_cell_state(&g[0]) == TM_TS_BLOCK + TM_R_SLEEP && g[0].sys == 35,
	   "cell 0-500: mostly sleep, in nanosleep");
	ok(tm_tl_cell_state(&g[2]) == TM_TS_RUNQ && (g[2].marks & TM_TM_WOKEN), "cell 1000-1500: waiting for a CPU, woken");
	ok(tm_tl_cell_state(&g[3]) == TM_TS_RUN && (g[3].marks & TM_TM_FAULT), "cell 1500-2000: on CPU, a fault");
	pid_t both[] = { 10, 11 };
	struct tm_tlcell w[2];
	tm_tl_grid(cs, 1, both, 2, 0, 2000 * US, 1, w);
	ok(w[0].marks & TM_TM_WAKER, "the waker's row (10) is marked");
	uint64_t end = 0, at = tm_tl_next(cs, 1, 11, 0, ((1u << TM_TS_COUNT) - 1) & ~((1u << TM_TS_BLOCK) - 1), 500 * US, &end);
	ok(at == 150 * US && end == 1150 * US, "next block of 0.5 ms or more: 150-1150 (%llu-%llu)", (unsigned long long)at,
	   (unsigned long long)end);
	ok(!tm_tl_next(cs, 1, 11, 0, 1u << TM_TS_RUNQ, 300 * US, NULL), "no run-queue wait of 0.3 ms");
	ok(tm_tl_next(cs, 1, 11, 0, 1u << TM_TS_RUNQ, 200 * US, NULL) == 1150 * US, "one of 0.2 ms: at 1150");
	tm_tlchunk_put(c);
	tm_tl_free(&tl);
}

int main(void)
{
	test_ring();
	test_writer();
	test_walk();
	return tap_done();
}
