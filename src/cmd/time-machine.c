/* pscope time (no PID): every process ranked by run-queue wait and by
 * blocked time over the window. */
#include "cmd/cmd.h"
#include "cmd/time-out.h"
#include "cmd/top.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/json.h"
#include "time/time.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_runq(const void *a, const void *b)
{
	const struct tm_thread *x = *(const struct tm_thread *const *)a, *y = *(const struct tm_thread *const *)b;
	if (x->runq_ns != y->runq_ns)
		return x->runq_ns < y->runq_ns ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int by_blocked(const void *a, const void *b)
{
	const struct tm_thread *x = *(const struct tm_thread *const *)a, *y = *(const struct tm_thread *const *)b;
	uint64_t bx = tm_blocked_sum(x), by = tm_blocked_sum(y);
	if (bx != by)
		return bx < by ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The processes in an order; NULL without memory. */
static const struct tm_thread **ranked(const struct tm_snapshot *s, int (*cmp)(const void *, const void *))
{
	const struct tm_thread **v = malloc((s->nthreads ? s->nthreads : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < s->nthreads; i++)
		v[i] = &s->threads[i];
	sort_array(v, s->nthreads, sizeof(*v), cmp);
	return v;
}

static void print_ranking(const struct tm_snapshot *s, const struct tm_thread **v, int top, bool blocked_first)
{
	printf("%8s %s %8s %8s %8s %8s\n", "PID", pad("NAME", 16), blocked_first ? "BLOCK%" : "RUNQ%", "ONCPU%",
	       blocked_first ? "RUNQ%" : "BLOCK%", "THREADS");
	for (size_t i = 0; i < s->nthreads && (int)i < top; i++) {
		const struct tm_thread *t = v[i];
		double runq = tm_pct(s, t->runq_ns), blk = tm_pct(s, tm_blocked_sum(t));
		printf("%8d %s %8.1f %8.1f %8.1f %8u\n", (int)t->tid, pad(esc(t->comm), 16), blocked_first ? blk : runq,
		       tm_pct(s, t->oncpu_ns), blocked_first ? runq : blk, t->threads);
	}
}

void time_print_machine_text(const struct tm_snapshot *s, int top)
{
	const struct tm_thread **rq = ranked(s, by_runq), **bl = ranked(s, by_blocked);

	printf(_("Every process, %.1f s, tier %s\n"), tm_window_s(s), tm_tier_name(s->tier));
	printf(_("  source: %s\n"), esc(s->source));
	printf(P_("  run queue: %.1f%% of a CPU waited for one; on CPU: %.1f%% (%zu processes, %u thread)\n", "  run queue: %.1f%% of a CPU waited for one; on CPU: %.1f%% (%zu processes, %u threads)\n", s->total.threads),
	       tm_pct(s, s->total.runq_ns), tm_pct(s, s->total.oncpu_ns), s->nthreads, s->total.threads);
	if (rq && bl) {
		printf(_("\nBy run-queue wait (%% of one CPU; a process sums its threads):\n"));
		print_ranking(s, rq, top, false);
		printf(_("\nBy blocked time (thread-seconds per second, in %%):\n"));
		print_ranking(s, bl, top, true);
	}
	free(rq);
	free(bl);
}

static struct json_object *process_json(const struct tm_snapshot *s, const struct tm_thread *t)
{
	struct json_object *o = json_object_new_object();

	out_json_int(o, "pid", t->tid);
	out_json_str(o, "name", t->comm);
	out_json_int(o, "threads", t->threads);
	out_json_double(o, "on_cpu_pct", round(tm_pct(s, t->oncpu_ns) * 100) / 100);
	out_json_double(o, "runqueue_pct", round(tm_pct(s, t->runq_ns) * 100) / 100);
	out_json_double(o, "blocked_pct", round(tm_pct(s, tm_blocked_sum(t)) * 100) / 100);
	out_json_int(o, "on_cpu_ns", (long long)t->oncpu_ns);
	out_json_int(o, "runqueue_ns", (long long)t->runq_ns);
	out_json_int(o, "blocked_ns", (long long)tm_blocked_sum(t));
	return o;
}

void time_print_machine_json(const struct tm_snapshot *s)
{
	struct json_object *o = json_object_new_object(), *pa = json_object_new_array(), *ba = json_object_new_array();
	const struct tm_thread **rq = ranked(s, by_runq), **bl = ranked(s, by_blocked);

	out_json_str(o, "tier", tm_tier_name(s->tier));
	out_json_str(o, "source", s->source);
	out_json_double(o, "window_s", round(tm_window_s(s) * 1000) / 1000);
	for (size_t i = 0; rq && bl && i < s->nthreads; i++) {
		json_object_array_add(pa, process_json(s, rq[i]));
		json_object_array_add(ba, json_object_new_int64(bl[i]->tid));
	}
	json_object_object_add(o, "processes", pa);
	json_object_object_add(o, "by_blocked", ba);
	struct json_object *tot = process_json(s, &s->total);
	json_object_object_del(tot, "pid");
	json_object_object_del(tot, "name");
	json_object_object_add(o, "machine", tot);
	free(rq);
	free(bl);
	out_json_print(stdout, o, 1);
}

int time_machine(const struct time_args *a)
{
	struct tm_machine *m;
	struct ps_error e;

	if (a->tier >= 0 && a->tier != TM_TIER_PROC)
		return cmd_usage_error("time", _("every process is measured from /proc (--tier proc); the %s tier needs a PID"),
				       tm_tier_name((enum tm_tier)a->tier));
	ps_error_clear(&e);
	if (tm_machine_open(&m, &e) < 0)
		return cmd_fail("time", &e);
	top_signals(true);
	uint64_t deadline = now_ns() + (uint64_t)(a->duration * 1e9);
	for (uint64_t now = now_ns(); now < deadline && !top_interrupted(); now = now_ns()) {
		uint64_t left_us = (deadline - now) / 1000;
		usleep((useconds_t)(left_us < 100000 ? left_us : 100000));
	}
	struct tm_snapshot *s = tm_machine_publish(m);
	tm_machine_close(m);
	top_signals(false);
	if (!s) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		return cmd_fail("time", &e);
	}
	if (a->json)
		time_print_machine_json(s);
	else
		time_print_machine_text(s, a->top);
	tm_snapshot_free(s);
	return 0;
}
