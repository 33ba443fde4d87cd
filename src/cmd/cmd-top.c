/* pscope top PID: sample the process for a while, print its hot functions. */
#include "cmd/cmd.h"
#include "cmd/top.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/folded.h"
#include "out/json.h"
#include "out/pprof.h"
#include "out/speedscope.h"
#include "out/svg.h"
#include "sample/sample.h"
#include "sample/source.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

void top_signals(bool on)
{
	if (!on) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		return;
	}
	struct sigaction sa = { .sa_handler = on_sigint };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool top_interrupted(void)
{
	return interrupted;
}

static bool run_stop(void *arg)
{
	(void)arg;
	return interrupted;
}

static void print_text_python(const struct samp_snapshot *s, const struct samp_view *v)
{
	printf(_("PID %d (%s), %.1f s, CPython %s frames, %d Hz requested, %.0f Hz achieved\n"), (int)s->target.pid,
	       esc(s->comm), s->elapsed, esc(s->python), s->freq, s->rate);
	printf(_("samples %llu, torn reads %llu, idle samples %s %llu\n"), s->samples, s->torn,
	       s->idle_included ? _("included") : _("left out"), s->idle_samples);
	printf("%6s %6s %8s  %-32s %s\n", "SELF%", "TOTAL%", "SAMPLES", "FUNCTION", "FILE:LINE");
	for (unsigned i = 0; i < v->nrows; i++) {
		const struct samp_row *r = &v->rows[i];
		const struct samp_func *f = &s->funcs[r->func];
		char src[300];
		snprintf(src, sizeof(src), "%s:%d", f->file ? f->file : "?", f->line);
		printf("%6.2f %6.2f %8lu  %s %s\n", r->self_pct, r->total_pct, r->self, pad(esc(f->name), 32), esc(src));
	}
}

static void print_unwind(const struct samp_snapshot *s)
{
	unsigned long long n = s->unwind_fp + s->unwind_dwarf;
	double fp = n ? 100.0 * (double)s->unwind_fp / (double)n : 0;

	if (s->stack_copy)
		printf(_("call stacks: %s (frame pointers %.0f%%, DWARF %.0f%%), %d-byte stack copies\n"),
		       samp_unwind_method(s), fp, n ? 100 - fp : 0, s->stack_copy);
	else
		printf(_("call stacks: frame pointers only (no stack copies)\n"));
}

static void print_text(const struct samp_snapshot *s, const struct samp_view *v)
{
	if (s->python[0]) {
		print_text_python(s, v);
		return;
	}
	printf(_("PID %d (%s), %.1f s, event %s (%s), %d Hz requested, %.0f Hz achieved\n"), (int)s->target.pid,
	       esc(s->comm), s->elapsed, s->event, s->event_why, s->freq, s->rate);
	printf(_("samples %llu, lost %llu, throttled %llu, %s, truncated stacks %.1f%%, CPU sampled %.2f s vs /proc %.2f s\n"),
	       s->samples, s->lost, s->throttled, s->kernel_why,
	       s->samples ? 100.0 * (double)s->truncated / (double)s->samples : 0.0, s->cpu_sampled, s->cpu_proc);
	print_unwind(s);
	if (s->percpu)
		printf(P_("events: one per CPU for every task, %u thread of the process followed\n",
			  "events: one per CPU for every task, %u threads of the process followed\n", s->nthreads),
		       s->nthreads);
	else
		printf(_("events: one per thread and CPU\n"));
	if (s->threads_unsampled)
		printf(P_("%u thread not sampled: %s\n", "%u threads not sampled: %s\n", s->threads_unsampled),
		       s->threads_unsampled, s->unsampled_why);
	top_print_table(s, v, "SAMPLES", false);
}

void top_print_table(const struct samp_snapshot *s, const struct samp_view *v, const char *column, bool weighted)
{
	bool samples = !weighted;
	int width = samples ? 8 : 9;

	printf("%6s %6s %*s  %-32s %-20s %s\n", "SELF%", "TOTAL%", width, column, "FUNCTION", "MODULE", "SOURCE");
	for (unsigned i = 0; i < v->nrows; i++) {
		const struct samp_row *r = &v->rows[i];
		const struct samp_func *f = &s->funcs[r->func];
		char src[300] = "", w[32];
		if (f->file)
			snprintf(src, sizeof(src), "%s:%d", samp_module_short(f->file), f->line);
		if (samples)
			snprintf(w, sizeof(w), "%lu", r->self);
		else
			samp_unit_format(s->unit, r->self, w, sizeof(w));
		printf("%6.2f %6.2f %*s  %s %s %s\n", r->self_pct, r->total_pct, width, w, pad(esc(f->name), 32),
		       pad(esc(samp_module_short(f->module)), 20), esc(src));
	}
}

static void print_json(const struct samp_snapshot *s, const struct samp_view *v)
{
	struct json_object *o = json_object_new_object(), *fa = json_object_new_array();

	out_json_int(o, "pid", s->target.pid);
	out_json_str(o, "event", s->event);
	out_json_int(o, "freq", s->freq);
	out_json_int(o, "samples", (long long)(s->unit == SAMP_UNIT_SAMPLES ? v->samples : s->samples));
	if (s->unit != SAMP_UNIT_SAMPLES) { /* a weighted profile: "weight" counts its unit */
		out_json_str(o, "unit", samp_unit_key(s->unit));
		out_json_int(o, "weight", (long long)v->samples);
	}
	out_json_int(o, "lost", (long long)s->lost);
	out_json_int(o, "truncated", (long long)s->truncated);
	out_json_str(o, "unwind", samp_unwind_method(s));
	out_json_str(o, "events", s->percpu ? "cpu" : "thread");
	out_json_int(o, "threads_unsampled", s->threads_unsampled);
	if (s->python[0]) {
		out_json_str(o, "python", s->python);
		out_json_int(o, "torn", (long long)s->torn);
		out_json_int(o, "idle_samples", (long long)s->idle_samples);
		out_json_int(o, "idle_skipped", s->idle_included ? 0 : (long long)s->idle_samples);
		out_json_bool(o, "idle", s->idle_included);
	}
	for (unsigned i = 0; i < v->nrows; i++) {
		const struct samp_row *r = &v->rows[i];
		const struct samp_func *f = &s->funcs[r->func];
		struct json_object *fo = top_json_func(f, f->flags & SAMP_F_PYTHON ? "python" : "native");
		out_json_double(fo, "self_pct", round(r->self_pct * 100) / 100);
		out_json_double(fo, "total_pct", round(r->total_pct * 100) / 100);
		out_json_int(fo, s->unit == SAMP_UNIT_SAMPLES ? "samples" : "weight", (long long)r->self);
		json_object_array_add(fa, fo);
	}
	json_object_object_add(o, "functions", fa);
	out_json_print(stdout, o, 1);
}

/* Zero samples is a result, but never an unexplained one. */
static void explain_no_samples(const struct samp_snapshot *s)
{
	if (s->samples)
		return;
	if (s->cpu_proc * s->freq < 3)
		fprintf(stderr, _("pscope top: no samples: process %d used %.2f s of CPU time in %.1f s, too little for samples at %d Hz (perf samples running threads only); sample it longer or while it is busy\n"),
			(int)s->target.pid, s->cpu_proc, s->elapsed, s->freq);
	else
		fprintf(stderr, _("pscope top: no samples although /proc counts %.2f s of CPU time for process %d: perf delivered none (door: security module or sandbox policy; check its denials in the kernel log)\n"),
			s->cpu_proc, (int)s->target.pid);
}
static void top_init(void *state)
{
	struct top_args *a = state;

	a->duration = 5;
	a->min_block_ns = SAMP_MIN_BLOCK_DEFAULT;
}

static int top_option(void *state, int opt, const char *arg)
{
	struct top_args *a = state;
	char *end;

	switch (opt) {
	case 'd':
		errno = 0;
		a->duration = strtod(arg, &end);
		if (errno || *end || end == arg || !(a->duration > 0) || a->duration > 86400)
			return cmd_bad_value("top", _("invalid duration '%s' (seconds, more than 0, at most 86400)"), arg);
		break;
	case 'F':
		errno = 0;
		a->freq = strtol(arg, &end, 10);
		if (errno || *end || end == arg || a->freq < 1 || a->freq > SAMP_FREQ_MAX)
			return cmd_bad_value("top", _("invalid frequency '%s' (Hz, 49..3999; 1..1000 for Python)"), arg);
		break;
	case 'n':
		errno = 0;
		a->samples = strtoull(arg, &end, 10);
		if (errno || *end || end == arg || arg[0] == '-' || !a->samples)
			return cmd_bad_value("top", _("invalid sample count '%s' (a number above 0)"), arg);
		break;
	case 'P': a->mode = TOP_PYTHON; a->mode_set = true; break;
	case 'N': a->mode = TOP_NATIVE; a->mode_set = true; break;
	case 'a': a->all = true; break;
	case 'b':
		if (!strcmp(arg, "comm"))
			a->by_comm = true;
		else if (!strcmp(arg, "pid"))
			a->by_comm = false;
		else
			return cmd_bad_value("top", _("invalid --by '%s' (comm or pid)"), arg);
		break;
	case 'I': a->idle = true; break;
	case 'f':
		a->folded = arg;
		break;
	case 'S': a->svg = arg; break;
	case 'p': a->pprof = arg; break;
	case 'o': a->speedscope = arg; break;
	case 'A':
		if (!*arg)
			return cmd_bad_value("top", _("invalid function '%s' (a function's name as the table shows it)"), arg);
		a->annotate = arg;
		break;
	case 'e':
		a->events_set = true;
		if (!strcmp(arg, "thread"))
			a->events = SAMP_EVENTS_THREAD;
		else if (!strcmp(arg, "cpu"))
			a->events = SAMP_EVENTS_CPU;
		else
			return cmd_bad_value("top", _("invalid events '%s' (thread or cpu)"), arg);
		break;
	case 's': {
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < 0 || v > SAMP_STACK_COPY_MAX || (v & 7))
			return cmd_bad_value("top", _("invalid stack copy '%s' (bytes, a multiple of 8, 0..65528; 0: frame pointers only)"),
					     arg);
		a->stack_copy = v ? (int)v : SAMP_STACK_COPY_OFF;
		break;
	}
	case 'j':
		a->json = true;
		break;
	case 'O':
		a->offcpu = true;
		break;
	case 'M': {
		errno = 0;
		double ms = strtod(arg, &end);
		if (errno || *end || end == arg || !(ms >= 0) || ms > 3600e3)
			return cmd_bad_value("top", _("invalid minimum block '%s' (milliseconds, 0 to 3600000)"), arg);
		a->min_block_ns = (uint64_t)llround(ms * 1e6);
		a->min_block_set = true;
		break;
	}
	}
	return 0;
}

static int report(const struct top_args *a, pid_t pid, struct samp_snapshot *snap, const char *ended);

struct json_object *top_json_func(const struct samp_func *f, const char *kind)
{
	struct json_object *fo = json_object_new_object();

	out_json_str(fo, "kind", kind);
	out_json_str(fo, "name", f->name);
	out_json_str(fo, "module", f->module);
	out_json_str(fo, "file", f->file);
	if (f->file)
		out_json_int(fo, "line", f->line);
	else
		json_object_object_add(fo, "line", NULL);
	return fo;
}

struct samp_snapshot *top_run(const struct top_args *a, struct samp_source *src, bool pause, const char **ended,
			      char *why, size_t size)
{
	struct samp_run run = { .samples = a->samples, .stop = run_stop };
	struct ps_error e;

	top_signals(true);
	if (pause)
		ps_test_pause("sampling");
	ps_error_clear(&e);
	run.deadline_ns = now_ns() + (uint64_t)(a->duration * 1e9); /* after the pause */
	*ended = samp_source_run(src, &run, why, size, &e) == SAMP_END_TARGET ? why : NULL;
	struct samp_snapshot *snap = src->ops->publish(src, *ended);
	samp_source_close(src);
	top_signals(false);
	return snap;
}

/* The CPython sampler: Python frames, no perf. Returns 1 on failure, or
 * -ENOENT (not a CPython process: the caller samples with perf). */
static int top_python(const struct top_args *a, pid_t pid)
{
	struct samp_source *s;
	struct ps_error e;
	long freq = a->freq ? a->freq : SAMP_PY_FREQ_DEFAULT;

	if (freq > SAMP_PY_FREQ_MAX) {
		return cmd_usage_error("top", _("the Python sampler runs at 1 to %d Hz, not %ld"), SAMP_PY_FREQ_MAX, freq);
	}
	struct samp_py_opts o = { .pid = pid, .freq = (int)freq, .idle = a->idle };
	ps_error_clear(&e);
	int r = samp_py_open(&s, &o, &e);
	if (r < 0) {
		if (a->mode == TOP_AUTO) { /* perf then, with its own refusal if any */
			if (r == -ENOTSUP || r == -EPROTO)
				fprintf(stderr, "pscope top: %s\n", esc(e.msg));
			return -ENOENT;
		}
		return cmd_fail("top", &e);
	}
	const char *ended;
	char why[192];
	struct samp_snapshot *snap = top_run(a, s, true, &ended, why, sizeof(why));
	return report(a, pid, snap, ended);
}

static int top_exec(void *state, pid_t pid)
{
	const struct top_args *a = state;

	if (pid && a->all) {
		return cmd_usage_error("top", "%s", _("--all samples every process: give it no PID"));
	}
	if (!pid) {
		if (a->offcpu || a->min_block_set)
			return cmd_usage_error("top", "%s", _("--off-cpu needs a PID"));
		if (a->annotate)
			return cmd_usage_error("top", "%s", _("--annotate needs a PID"));
		if (a->mode_set || a->events_set || a->idle) {
			return cmd_usage_error("top", "%s", _("--python, --native, --idle and --events need a PID"));
		}
		return top_machine(a);
	}
	if (a->by_comm) {
		return cmd_usage_error("top", "%s", _("--by is for every process (no PID, or --all)"));
	}
	if (a->min_block_set && !a->offcpu)
		return cmd_usage_error("top", "%s", _("--min-block is for --off-cpu"));
	if (a->offcpu) {
		if (a->mode_set || a->events_set || a->idle || a->freq || a->annotate)
			return cmd_usage_error("top", "%s",
					       _("--off-cpu traces every block: --python, --native, --idle, --events, --freq and --annotate are for sampling"));
		return top_offcpu(a, pid);
	}
	if (a->mode != TOP_NATIVE) {
		int r = top_python(a, pid);
		if (r != -ENOENT)
			return r;
	}
	if (a->freq && a->freq < SAMP_FREQ_MIN) {
		return cmd_usage_error("top", _("invalid frequency '%ld' (Hz, 49..3999)"), a->freq);
	}
	struct samp_source *s;
	struct ps_error e;
	struct samp_opts o = { .pid = pid, .freq = a->freq ? (int)a->freq : SAMP_FREQ_DEFAULT, .stack_copy = a->stack_copy,
				.events = a->events };
	ps_error_clear(&e);
	if (samp_perf_open(&s, &o, &e) < 0)
		return cmd_fail("top", &e);
	const char *ended;
	char why[192];
	struct samp_snapshot *snap = top_run(a, s, true, &ended, why, sizeof(why));
	return report(a, pid, snap, ended);
}

int top_exports(const struct top_args *a, const struct samp_snapshot *snap)
{
	struct ps_error e;
	int rc = 0;

	ps_error_clear(&e);
	if (a->folded && out_folded_save(a->folded, snap, SAMP_WIN_ALL, 0, NULL, &e) < 0)
		rc = cmd_fail("top", &e);
	ps_error_clear(&e);
	if (a->svg && out_profile_save(a->svg, out_svg_write, snap, SAMP_WIN_ALL, 0, NULL, &e) < 0)
		rc = cmd_fail("top", &e);
	ps_error_clear(&e);
	if (a->pprof && out_profile_save(a->pprof, out_pprof_write, snap, SAMP_WIN_ALL, 0, NULL, &e) < 0)
		rc = cmd_fail("top", &e);
	ps_error_clear(&e);
	if (a->speedscope && out_profile_save(a->speedscope, out_speedscope_write, snap, SAMP_WIN_ALL, 0, NULL, &e) < 0)
		rc = cmd_fail("top", &e);
	return rc;
}

static int report(const struct top_args *a, pid_t pid, struct samp_snapshot *snap, const char *ended)
{
	bool json = a->json;
	struct ps_error e;

	if (!snap) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		return cmd_fail("top", &e);
	}
	if (ended && !strcmp(ended, _("the process exited")))
		fprintf(stderr, _("pscope top: process %d exited after %.1f s; showing what was sampled\n"), (int)pid,
			snap->elapsed);
	else if (ended)
		fprintf(stderr, _("pscope top: after %.1f s, %s\n"), snap->elapsed, esc(ended));

	int rc = 0;
	struct samp_view v;
	if (samp_view_compute(snap, SAMP_WIN_ALL, 0, SAMP_SORT_SELF, &v) < 0) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		samp_snapshot_free(snap);
		return cmd_fail("top", &e);
	}
	if (a->annotate)
		rc = top_annotate(a, snap);
	else if (json)
		print_json(snap, &v);
	else
		print_text(snap, &v);
	explain_no_samples(snap);
	if (top_exports(a, snap))
		rc = 1;
	samp_view_free(&v);
	samp_snapshot_free(snap);
	return rc;
}

static const struct option top_options[] = {
	{ "duration", required_argument, NULL, 'd' },
	{ "freq", required_argument, NULL, 'F' },
	{ "samples", required_argument, NULL, 'n' },
	{ "folded", required_argument, NULL, 'f' },
	{ "json", no_argument, NULL, 'j' },
	{ "svg", required_argument, NULL, 'S' },
	{ "pprof", required_argument, NULL, 'p' },
	{ "speedscope", required_argument, NULL, 'o' },
	{ "stack-copy", required_argument, NULL, 's' },
	{ "events", required_argument, NULL, 'e' },
	{ "python", no_argument, NULL, 'P' },
	{ "native", no_argument, NULL, 'N' },
	{ "idle", no_argument, NULL, 'I' },
	{ "all", no_argument, NULL, 'a' },
	{ "by", required_argument, NULL, 'b' },
	{ "annotate", required_argument, NULL, 'A' },
	{ "off-cpu", no_argument, NULL, 'O' },
	{ "min-block", required_argument, NULL, 'M' },
	{ NULL, 0, NULL, 0 },
};

const struct cmd_entry cmd_top_entry = {
	.name = "top",
	.args = "[PID] [--duration SEC] [--samples N] [--freq HZ] [--folded FILE] [--json] [--stack-copy BYTES]\n"
		"       [--svg FILE] [--pprof FILE] [--speedscope FILE]\n"
		"       [--events thread|cpu] [--python|--native] [--idle] [--all] [--by comm|pid] [--annotate FUNC]",
	.help = N_("Sample PID's threads with perf_event_open for SEC seconds (default 5) at HZ\n"
		   "(default 99) and print its functions by Self%. --folded FILE also writes the\n"
		   "call stacks as folded lines (thread;frame;...;frame count); --svg FILE as an\n"
		   "interactive flame graph (hover, click to zoom, search), --pprof FILE as a\n"
		   "gzip'd profile.proto (go tool pprof), --speedscope FILE as speedscope's JSON.\n"
		   "Ctrl-C stops early,\n"
		   "--samples N once N samples are counted.\n"
		   "--annotate FUNC prints FUNC's source lines with each line's share of its\n"
		   "samples (DWARF line tables; Python: the frames' lines), the hottest marked '>'.\n"
		   "Call stacks follow the frame pointers where they are complete, else each\n"
		   "sample's copy of the user stack is unwound with the modules' CFI (DWARF);\n"
		   "--stack-copy BYTES sets the copy's size (default 16384; 0: frame pointers only).\n"
		   "Events are opened per thread, or per CPU for every task keeping PID's samples\n"
		   "when it has more than 64 threads and the kernel allows it (--events forces one).\n"
		   "A CPython 3.9-3.13 process is sampled by reading its Python frames instead\n"
		   "(no perf needed; 100 Hz by default, at most 1000): functions are\n"
		   "'qualname file:line', folded lines py-spy's raw format.\n"
		   "  --python   Python frames only (fail if not CPython)\n"
		   "  --native   perf_event_open even for CPython\n"
		   "  --idle     Python: count idle threads too (left out by default)\n"
		   "Without a PID (or with --all) every process on every CPU is sampled, like\n"
		   "perf top: processes by share of samples, then functions with their process;\n"
		   "--by comm: samples by command name. Needs kernel.perf_event_paranoid <= 0,\n"
		   "CAP_PERFMON or root.\n"
		   "--off-cpu traces where PID's threads block instead (sched_switch and\n"
		   "sched_wakeup tracepoints: CAP_PERFMON and tracefs): each block of at least\n"
		   "--min-block MS (default 1) weighed by the time until the thread ran again,\n"
		   "with its user and kernel stack and who woke it, from where; --folded writes\n"
		   "offcputime -f's lines (thread;frames... microseconds).\n"),
	.shortopts = "d:F:f:js:e:n:",
	.options = top_options,
	.pid = CMD_PID_OPTIONAL,
	.state_size = sizeof(struct top_args),
	.init = top_init,
	.option = top_option,
	.exec = top_exec,
};
