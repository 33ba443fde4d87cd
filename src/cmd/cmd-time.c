/* pscope time [PID]: where the threads' time goes over a window -- on CPU,
 * waiting for a CPU, blocked and why, stopped; system calls by latency;
 * page faults. Without a PID, every process ranked by run-queue wait and
 * by blocked time. */
#include "cmd/cmd.h"
#include "cmd/time-out.h"
#include "cmd/top.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/trace.h"
#include "sample/sample.h"
#include "time/time.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void time_init(void *state)
{
	struct time_args *a = state;

	a->duration = 5;
	a->tier = -1;
	a->top = 15;
}

static int time_option(void *state, int opt, const char *arg)
{
	struct time_args *a = state;
	char *end;
	long v;

	switch (opt) {
	case 'd':
		errno = 0;
		a->duration = strtod(arg, &end);
		if (errno || *end || end == arg || !(a->duration > 0) || a->duration > 86400)
			return cmd_bad_value("time", _("invalid duration '%s' (seconds, more than 0, at most 86400)"), arg);
		break;
	case 't':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v <= 0 || v > 0x7fffffff)
			return cmd_bad_value("time", _("invalid thread id '%s'"), arg);
		a->tid = (pid_t)v;
		break;
	case 'T':
		if ((a->tier = tm_tier_parse(arg)) < 0)
			return cmd_bad_value("time", _("invalid tier '%s' (bpf, trace or proc)"), arg);
		break;
	case 'H':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < 1 || v > TM_PROC_HZ_MAX)
			return cmd_bad_value("time", _("invalid sampling rate '%s' (Hz, 1..100)"), arg);
		a->hz = (int)v;
		break;
	case 'r':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < 10 || v > 10000000)
			return cmd_bad_value("time", _("invalid rate '%s' (events per second, 10..10000000)"), arg);
		a->rate = v;
		break;
	case 'n':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < 1 || v > 100000)
			return cmd_bad_value("time", _("invalid row count '%s' (1..100000)"), arg);
		a->top = (int)v;
		break;
	case 'j':
		a->json = true;
		break;
	case 'S':
		a->no_syscalls = true;
		break;
	case 'C':
		a->bpf_stats = true;
		break;
	case 'L':
		a->timeline = arg;
		break;
	}
	return 0;
}

/* The timeline of the window into a->timeline: 0, or 1 after the error. */
static int write_timeline(const struct time_args *a, struct tm_timeline *tl, const struct tm_snapshot *snap)
{
	struct out_trace_thread *th = calloc(snap->nthreads + 1, sizeof(*th));
	struct out_trace_stats st;
	struct ps_error e;

	ps_error_clear(&e);
	if (!th) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		return cmd_fail("time", &e);
	}
	for (size_t i = 0; i < snap->nthreads; i++)
		th[i] = (struct out_trace_thread){ snap->threads[i].tid, snap->threads[i].comm };
	tl->sampled = (snap->sampled & TM_SAMPLED_EVENTS) != 0;
	int r = out_trace_save(a->timeline, tl, snap->target.pid, snap->comm, th, snap->nthreads, &st, &e);
	free(th);
	if (r < 0)
		return cmd_fail("time", &e);
	if (tl->dropped)
		fprintf(stderr, _("pscope time: the timeline holds the last %zu events: %llu older ones did not fit\n"), tl->n,
			tl->dropped);
	if (tl->sampled)
		fprintf(stderr, "%s\n", _("pscope time: the tier traced part of each second only (--rate): the timeline has gaps"));
	return 0;
}

/* Measure one process until the duration ends, Ctrl-C, or it exits or
 * exec's; print the report. */
static int time_process(const struct time_args *a, pid_t pid)
{
	struct tm_opts o = { .pid = pid, .tier = a->tier, .proc_hz = a->hz, .trace_rate = a->rate,
			     .no_syscalls = a->no_syscalls, .bpf_stats = a->bpf_stats };
	struct tm_session *s;
	struct ps_error e;
	char why[200];
	struct tm_timeline tl = { 0 };

	ps_error_clear(&e);
	if (a->timeline) {
		if (a->tier >= 0 && a->tier != TM_TIER_TRACE)
			return cmd_usage_error("time", "%s", _("--timeline keeps every record: the trace tier only"));
		if (tm_tl_init(&tl, TM_TL_CAP_DEFAULT) < 0) {
			ps_error_set(&e, ENOMEM, _("out of memory"));
			return cmd_fail("time", &e);
		}
		o.tier = TM_TIER_TRACE;
		o.timeline = &tl;
		if (!a->rate)
			o.trace_rate = 10000000; /* every record, unless --rate says otherwise */
	}
	if (tm_open(&s, &o, &e) < 0) {
		tm_tl_free(&tl);
		return cmd_fail("time", &e);
	}
	top_signals(true);
	ps_test_pause("time-window");
	const char *ended = NULL;
	uint64_t deadline = now_ns() + (uint64_t)(a->duration * 1e9);
	for (uint64_t now = now_ns(); now < deadline && !top_interrupted(); now = now_ns()) {
		uint64_t left_ms = (deadline - now) / 1000000;
		int r = tm_poll(s, left_ms < 100 ? (int)(left_ms ? left_ms : 1) : 100);
		if (r == -ESRCH) {
			ended = _("the process exited");
			break;
		}
		if (r == -ESTALE) {
			ended = samp_end_exec(tm_exec_comm(s), why, sizeof(why));
			break;
		}
		if (r < 0) {
			ps_error_set(&e, -r, _("measuring process %d failed: %s"), (int)pid, strerror(-r));
			tm_close(s);
			tm_tl_free(&tl);
			top_signals(false);
			return cmd_fail("time", &e);
		}
	}
	struct tm_snapshot *snap = tm_publish(s, ended);
	tm_close(s);
	top_signals(false);
	if (!snap) {
		tm_tl_free(&tl);
		ps_error_set(&e, ENOMEM, _("out of memory"));
		return cmd_fail("time", &e);
	}
	if (ended)
		fprintf(stderr, _("pscope time: after %.1f s, %s\n"), tm_window_s(snap), esc(ended));
	int rc = 0;
	if (a->timeline) {
		rc = write_timeline(a, &tl, snap);
		tm_tl_free(&tl);
	}
	if (a->tid) {
		bool found = false;
		for (size_t i = 0; i < snap->nthreads && !found; i++)
			found = snap->threads[i].tid == a->tid;
		if (!found) {
			fprintf(stderr, _("pscope time: %d is not a thread of process %d (or it ended before the window)\n"),
				(int)a->tid, (int)pid);
			tm_snapshot_free(snap);
			return 1;
		}
	}
	if (a->json)
		time_print_json(snap, a->tid);
	else
		time_print_text(snap, a->tid);
	tm_snapshot_free(snap);
	return rc;
}

static int time_exec(void *state, pid_t pid)
{
	const struct time_args *a = state;

	if (!pid) {
		if (a->tid || a->no_syscalls || a->bpf_stats || a->rate)
			return cmd_usage_error("time", "%s", _("--tid, --rate, --no-syscalls and --bpf-stats need a PID"));
		return time_machine(a);
	}
	return time_process(a, pid);
}

static const struct option time_options[] = {
	{ "duration", required_argument, NULL, 'd' },
	{ "tid", required_argument, NULL, 't' },
	{ "tier", required_argument, NULL, 'T' },
	{ "hz", required_argument, NULL, 'H' },
	{ "rate", required_argument, NULL, 'r' },
	{ "top", required_argument, NULL, 'n' },
	{ "json", no_argument, NULL, 'j' },
	{ "no-syscalls", no_argument, NULL, 'S' },
	{ "bpf-stats", no_argument, NULL, 'C' },
	{ "timeline", required_argument, NULL, 'L' },
	{ NULL, 0, NULL, 0 },
};

const struct cmd_entry cmd_time_entry = {
	.name = "time",
	.args = "[PID] [--duration SEC] [--tid TID] [--tier bpf|trace|proc] [--hz HZ] [--rate N] [--no-syscalls]\n"
		"       [--bpf-stats] [--top N] [--json] [--timeline FILE]",
	.help = N_("Measure for SEC seconds (default 5) where PID's threads spend their time: on a\n"
		   "CPU, waiting for one (run queue), blocked and why (futex/lock, sleep,\n"
		   "poll/epoll/select, I/O, pipe/socket, page fault, other), stopped; switches,\n"
		   "migrations, page faults; system calls by total time with p50, p99 and max;\n"
		   "a histogram of run-queue waits and the worst ones with what ran instead.\n"
		   "Ctrl-C stops early. --tid TID shows that thread alone.\n"
		   "The tier is the best the kernel's doors allow, and always printed:\n"
		   "  bpf    BPF programs aggregating in the kernel (root, or CAP_BPF and\n"
		   "         CAP_PERFMON; kernel BTF): everything, exactly\n"
		   "  trace  sched and raw_syscalls tracepoints through perf_event_open (root or\n"
		   "         CAP_PERFMON, tracefs): the same; above --rate N events/s (default\n"
		   "         20000) it traces part of each second and scales the counts\n"
		   "  proc   /proc (any user, own processes): on CPU and run queue exact from\n"
		   "         schedstat; blocked reasons from samples of syscall and wchan at HZ\n"
		   "         (default 40, --hz); no system call counts\n"
		   "--tier forces one; a refused tier names its door.\n"
		   "--no-syscalls leaves out the tracing of each system call (two events per\n"
		   "call: the cost of a syscall-heavy target); the blocked reasons stay.\n"
		   "--bpf-stats also prints the BPF programs' cost per event (bpf_enable_stats:\n"
		   "meanwhile the kernel times every BPF program on the machine).\n"
		   "Without a PID: every process, ranked by run-queue wait and by blocked time\n"
		   "(--top N rows each, default 15).\n"
		   "--timeline FILE also writes the window's records as a Chrome trace (JSON:\n"
		   "Perfetto, chrome://tracing): one track per thread, system calls, blocks and\n"
		   "run-queue waits as slices, cpu-clock samples (99 Hz) and wakeups as instants;\n"
		   "the trace tier only (every record), at most 2 Mi events (the oldest dropped,\n"
		   "counted in the file).\n"),
	.shortopts = "d:t:T:n:j",
	.options = time_options,
	.pid = CMD_PID_OPTIONAL,
	.state_size = sizeof(struct time_args),
	.init = time_init,
	.option = time_option,
	.exec = time_exec,
};
