/* pscope top PID --off-cpu: where the threads block, weighed by how long,
 * and who woke them (the off-CPU tracer, src/sample/offcpu.c). */
#include "cmd/cmd.h"
#include "cmd/top.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/json.h"
#include "sample/sample.h"
#include "sample/source.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_STACKS 20 /* stacks in the report */

struct ranked {
	unsigned stack;
	unsigned long long weight;
};

static int by_weight(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return (x->stack > y->stack) - (x->stack < y->stack);
}

/* The stacks with weight, heaviest first: n of them (malloc'd). */
static struct ranked *rank(const struct samp_snapshot *s, unsigned *n)
{
	struct ranked *r = malloc((s->all.n + 1) * sizeof(*r));

	*n = 0;
	if (!r)
		return NULL;
	for (unsigned i = 0; i < s->all.n; i++)
		if (s->all.c[i].count)
			r[(*n)++] = (struct ranked){ s->all.c[i].stack, s->all.c[i].count };
	qsort(r, *n, sizeof(*r), by_weight);
	return r;
}

static int by_wake_weight(const void *a, const void *b)
{
	const struct samp_wake *x = *(const struct samp_wake *const *)a, *y = *(const struct samp_wake *const *)b;
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return (x->waker > y->waker) - (x->waker < y->waker);
}

/* The wakers of stack, heaviest first: at most max (pointers into s->wakes). */
static unsigned wakers_of(const struct samp_snapshot *s, unsigned stack, const struct samp_wake **out, unsigned max)
{
	const struct samp_wake **all = malloc((s->nwakes + 1) * sizeof(*all));
	unsigned n = 0;

	if (!all)
		return 0;
	for (unsigned i = 0; i < s->nwakes; i++)
		if (s->wakes[i].stack == stack)
			all[n++] = &s->wakes[i];
	qsort(all, n, sizeof(*all), by_wake_weight);
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof(*out));
	free(all);
	return n;
}

static const char *kind_of(const struct samp_func *f)
{
	return f->flags & SAMP_F_PYTHON ? "python" : f->flags & SAMP_F_KERNEL ? "kernel" : "native";
}

/* The frames of stack st of s, leaf first; the category (a waker's name) left out. */
static struct json_object *json_frames(const struct samp_snapshot *s, const struct samp_stack *st)
{
	struct json_object *fa = json_object_new_array();

	for (unsigned j = 0; j < st->nframes; j++) {
		const struct samp_func *f = &s->funcs[s->frames[st->first + j]];
		if (f->flags & SAMP_F_CATEGORY)
			continue;
		struct json_object *fo = top_json_func(f, kind_of(f));
		json_object_array_add(fa, fo);
	}
	return fa;
}

static void print_json(const struct samp_snapshot *s, const struct samp_view *v, const struct ranked *r, unsigned nr)
{
	struct json_object *o = json_object_new_object(), *fa = json_object_new_array(), *sa = json_object_new_array();

	out_json_int(o, "pid", s->target.pid);
	out_json_str(o, "event", s->event);
	/* The tracepoints trace every block; the /proc tier samples them. */
	out_json_str(o, "tier", s->offcpu_sampled ? "proc" : "tracepoint");
	out_json_bool(o, "statistical", s->offcpu_sampled);
	if (s->offcpu_sampled)
		out_json_int(o, "interval_ns", (long long)s->offcpu_interval_ns);
	out_json_str(o, "unit", samp_unit_key(s->unit));
	out_json_str(o, "weight_unit", "ns");
	out_json_int(o, "weight", (long long)v->samples);
	out_json_int(o, "blocks", (long long)s->samples);
	out_json_int(o, "short_blocks", (long long)s->short_blocks);
	out_json_int(o, "min_block_ns", (long long)s->min_block_ns);
	out_json_int(o, "wakers_unknown", (long long)s->unmatched);
	if (s->py_version[0]) {
		out_json_str(o, "python", s->py_version);
		out_json_int(o, "python_blocks", (long long)s->py_blocks);
		out_json_int(o, "python_unread", (long long)s->py_unread);
	}
	out_json_double(o, "elapsed_s", round(s->elapsed * 1000) / 1000);
	out_json_int(o, "lost", (long long)s->lost);
	out_json_int(o, "truncated", (long long)s->truncated);
	out_json_str(o, "unwind", samp_unwind_method(s));
	out_json_int(o, "threads_unsampled", s->threads_unsampled);
	for (unsigned i = 0; i < v->nrows; i++) {
		const struct samp_row *row = &v->rows[i];
		const struct samp_func *f = &s->funcs[row->func];
		struct json_object *fo = top_json_func(f, kind_of(f));
		out_json_double(fo, "self_pct", round(row->self_pct * 100) / 100);
		out_json_double(fo, "total_pct", round(row->total_pct * 100) / 100);
		out_json_int(fo, "weight", (long long)row->self);
		out_json_int(fo, "total_weight", (long long)row->total);
		json_object_array_add(fa, fo);
	}
	json_object_object_add(o, "functions", fa);
	for (unsigned i = 0; i < nr && i < TOP_STACKS; i++) {
		const struct samp_stack *st = &s->stacks[r[i].stack];
		struct json_object *so = json_object_new_object(), *wa = json_object_new_array();
		out_json_int(so, "tid", st->tid);
		out_json_str(so, "thread", samp_thread_comm(s, st->tid));
		out_json_int(so, "weight", (long long)r[i].weight);
		out_json_int(so, "blocks", (long long)(s->stack_blocks ? s->stack_blocks[r[i].stack] : 0));
		out_json_int(so, "runq_ns", (long long)(s->stack_runq ? s->stack_runq[r[i].stack] : 0));
		json_object_object_add(so, "frames", json_frames(s, st));
		const struct samp_wake *w[8];
		unsigned nw = wakers_of(s, r[i].stack, w, 8);
		for (unsigned k = 0; k < nw; k++) {
			struct json_object *wo = json_object_new_object();
			out_json_int(wo, "tid", w[k]->waker);
			out_json_str(wo, "comm", w[k]->comm);
			out_json_bool(wo, "interrupt", w[k]->interrupt);
			out_json_int(wo, "weight", (long long)w[k]->weight);
			out_json_int(wo, "blocks", (long long)w[k]->blocks);
			if (s->wakers && w[k]->wstack < s->wakers->nstacks)
				json_object_object_add(wo, "frames", json_frames(s->wakers, &s->wakers->stacks[w[k]->wstack]));
			json_object_array_add(wa, wo);
		}
		json_object_object_add(so, "wakers", wa);
		json_object_array_add(sa, so);
	}
	json_object_object_add(o, "stacks", sa);
	out_json_print(stdout, o, 1);
}

static void print_stack(const struct samp_snapshot *s, const struct samp_stack *st, const char *indent)
{
	for (unsigned j = 0; j < st->nframes; j++) {
		const struct samp_func *f = &s->funcs[s->frames[st->first + j]];
		if (f->flags & SAMP_F_CATEGORY)
			continue;
		char src[300] = "";
		if (f->file)
			snprintf(src, sizeof(src), " (%s:%d)", samp_module_short(f->file), f->line);
		printf("%s%s  %s%s\n", indent, esc(f->name), esc(samp_module_short(f->module)), esc(src));
	}
}

static void print_text(const struct samp_snapshot *s, const struct samp_view *v, const struct ranked *r, unsigned nr)
{
	char w[32], mb[32];

	if (s->offcpu_sampled) {
		printf(_("PID %d (%s), %.1f s off CPU, STATISTICAL: %llu samples of blocked threads, every %s, %s blocked "
			 "in all\n"),
		       (int)s->target.pid, esc(s->comm), s->elapsed, s->samples,
		       samp_unit_format(SAMP_UNIT_NS_BLOCKED, s->offcpu_interval_ns, mb, sizeof(mb)),
		       samp_unit_format(s->unit, v->samples, w, sizeof(w)));
		printf(_("the /proc tier: the scheduler's tracepoints need CAP_PERFMON, so the blocked threads' stacks are "
			 "sampled (/proc/TID/stack where readable, wchan, the system call, and the user stack on a short "
			 "freeze), each weighed by the interval; blocks shorter than it are missed or seen in part; no "
			 "wakers\n"));
	} else {
		printf(_("PID %d (%s), %.1f s off CPU: %llu blocks of at least %s, %s blocked (%llu shorter ones not "
			 "weighed)\n"),
		       (int)s->target.pid, esc(s->comm), s->elapsed, s->samples,
		       samp_unit_format(SAMP_UNIT_NS_BLOCKED, s->min_block_ns, mb, sizeof(mb)),
		       samp_unit_format(s->unit, v->samples, w, sizeof(w)), s->short_blocks);
		printf(_("events: %s; lost %llu; waker not seen for %llu blocks\n"), s->event_why, s->lost, s->unmatched);
	}
	if (s->py_version[0])
		printf(_("CPython %s: Python frames in %llu blocks; %llu blocks with native frames only (the thread ran "
			 "again before its frames were read)\n"),
		       esc(s->py_version), s->py_blocks, s->py_unread);
	unsigned long long n = s->unwind_fp + s->unwind_dwarf;
	double fp = n ? 100.0 * (double)s->unwind_fp / (double)n : 0;
	if (s->offcpu_sampled)
		printf(_("call stacks: pscope's unwinder over the stacks copied in each freeze\n"));
	else if (s->stack_copy)
		printf(_("call stacks: %s (frame pointers %.0f%%, DWARF %.0f%%), %d-byte stack copies\n"),
		       samp_unwind_method(s), fp, n ? 100 - fp : 0, s->stack_copy);
	else
		printf(_("call stacks: frame pointers only (no stack copies)\n"));
	if (s->threads_unsampled)
		printf(P_("%u thread not traced: %s\n", "%u threads not traced: %s\n", s->threads_unsampled),
		       s->threads_unsampled, s->unsampled_why);
	top_print_table(s, v, "BLOCKED", true);
	for (unsigned i = 0; i < nr && i < 5; i++) {
		const struct samp_stack *st = &s->stacks[r[i].stack];
		char rq[32];
		if (s->offcpu_sampled)
			printf(_("\nstack %u: %s blocked (sampled), %llu samples, thread %s (%d)\n"), i + 1,
			       samp_unit_format(s->unit, r[i].weight, w, sizeof(w)),
			       s->stack_blocks ? s->stack_blocks[r[i].stack] : 0, esc(samp_thread_comm(s, st->tid)),
			       (int)st->tid);
		else
			printf(_("\nstack %u: %s blocked (%s of it runnable, waiting for a CPU once woken), %llu blocks, "
				 "thread %s (%d)\n"),
			       i + 1, samp_unit_format(s->unit, r[i].weight, w, sizeof(w)),
			       samp_unit_format(s->unit, s->stack_runq ? s->stack_runq[r[i].stack] : 0, rq, sizeof(rq)),
			       s->stack_blocks ? s->stack_blocks[r[i].stack] : 0, esc(samp_thread_comm(s, st->tid)),
			       (int)st->tid);
		print_stack(s, st, "    ");
		const struct samp_wake *wk[3];
		unsigned nw = wakers_of(s, r[i].stack, wk, 3);
		for (unsigned k = 0; k < nw; k++) {
			if (wk[k]->interrupt)
				printf(_("  woken by an interrupt: %s, %llu blocks, from\n"),
				       samp_unit_format(s->unit, wk[k]->weight, w, sizeof(w)), wk[k]->blocks);
			else
				printf(_("  woken by %s (%d): %s, %llu blocks, from\n"), esc(wk[k]->comm), (int)wk[k]->waker,
				       samp_unit_format(s->unit, wk[k]->weight, w, sizeof(w)), wk[k]->blocks);
			if (s->wakers && wk[k]->wstack < s->wakers->nstacks)
				print_stack(s->wakers, &s->wakers->stacks[wk[k]->wstack], "      ");
		}
	}
}

int top_offcpu(const struct top_args *a, pid_t pid)
{
	struct samp_source *src;
	struct ps_error e;
	struct samp_offcpu_opts o = { .pid = pid, .min_block_ns = a->min_block_ns, .stack_copy = a->stack_copy };

	ps_error_clear(&e);
	if (samp_offcpu_open(&src, &o, &e) < 0)
		return cmd_fail("top", &e);
	const char *ended;
	char why[192];
	struct samp_snapshot *s = top_run(a, src, true, &ended, why, sizeof(why));
	if (!s) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		return cmd_fail("top", &e);
	}
	if (ended)
		fprintf(stderr, _("pscope top: after %.1f s, %s\n"), s->elapsed, esc(ended));
	struct samp_view v;
	unsigned nr;
	struct ranked *r = rank(s, &nr);
	if (!r || samp_view_compute(s, SAMP_WIN_ALL, 0, SAMP_SORT_SELF, &v) < 0) {
		free(r);
		samp_snapshot_free(s);
		ps_error_set(&e, ENOMEM, _("out of memory"));
		return cmd_fail("top", &e);
	}
	if (a->json)
		print_json(s, &v, r, nr);
	else
		print_text(s, &v, r, nr);
	if (!s->samples)
		fprintf(stderr, _("pscope top: no block of process %d of at least %.1f ms in %.1f s\n"), (int)pid,
			(double)s->min_block_ns / 1e6, s->elapsed);
	int rc = top_exports(a, s);
	free(r);
	samp_view_free(&v);
	samp_snapshot_free(s);
	return rc;
}
