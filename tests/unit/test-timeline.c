/* The timeline's ring (src/time/timeline.c) and its Chrome trace writer
 * (src/out/trace.c) on hand-made records: the oldest dropped past the cap
 * and counted; one thread's syscall, block, wakeup, run-queue wait and
 * run as the exact slices they make, nested; another task's events left
 * out; a switch-in stamped after the syscall's exit still nests. */
#include "out/trace.h"
#include "tap.h"
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

int main(void)
{
	test_ring();
	test_writer();
	return tap_done();
}
