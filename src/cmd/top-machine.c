/* pscope top without a PID (or --all): sample every process on every CPU,
 * like perf top and bpftrace's profile probe, and print the processes (or
 * the command names, --by comm) and the functions by share of samples. */
#include "cmd/cmd.h"
#include "cmd/top.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/folded.h"
#include "out/json.h"
#include "sample/sample.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double pct(unsigned long long part, unsigned long long whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_head(const struct samp_snapshot *s)
{
	unsigned long long n = s->unwind_fp + s->unwind_dwarf;

	printf(_("all processes, %.1f s, event %s (%s), %d Hz requested, %.0f Hz achieved per busy CPU-second\n"),
	       s->elapsed, s->event, s->event_why, s->freq, s->rate);
	printf(_("samples %llu (idle %llu more), lost %llu, throttled %llu, %s, truncated stacks %.1f%%, CPU sampled %.2f s vs /proc %.2f s\n"),
	       s->samples, s->idle, s->lost, s->throttled, s->kernel_why, pct(s->truncated, s->samples), s->cpu_sampled,
	       s->cpu_proc);
	if (s->stack_copy)
		printf(_("call stacks: %s (frame pointers %.0f%%, DWARF %.0f%%), %d-byte stack copies\n"),
		       samp_unwind_method(s), pct(s->unwind_fp, n), n ? 100 - pct(s->unwind_fp, n) : 0, s->stack_copy);
	else
		printf(_("call stacks: frame pointers only (no stack copies)\n"));
}

static void print_procs(const struct samp_snapshot *s, const struct samp_pview *pv, bool by_comm)
{
	if (by_comm) {
		printf("%6s %8s %6s  %s\n", _("SHARE%"), _("SAMPLES"), _("PROCS"), _("COMMAND"));
		for (unsigned i = 0; i < pv->nrows; i++) {
			const struct samp_prow *r = &pv->rows[i];
			printf("%6.2f %8lu %6u  %s\n", r->pct, r->samples, r->nprocs, esc(s->procs[r->proc].comm));
		}
		return;
	}
	printf("%6s %8s %8s %8s %8s  %s\n", _("SHARE%"), _("SAMPLES"), _("SAMPLED"), _("/PROC"), "PID", _("COMMAND"));
	for (unsigned i = 0; i < pv->nrows; i++) {
		const struct samp_prow *r = &pv->rows[i];
		const struct samp_proc *p = &s->procs[r->proc];
		printf("%6.2f %8lu %7.2fs %7.2fs %8d  %s%s%s\n", r->pct, r->samples, r->cpu_sampled, r->cpu_proc, (int)p->pid,
		       p->kernel ? "[" : "", esc(p->comm), p->kernel ? "]" : p->exited ? _(" (exited)") : "");
	}
}

static void proc_label(const struct samp_snapshot *s, unsigned top, unsigned n, char *buf, size_t size)
{
	if (top >= s->nprocs) {
		snprintf(buf, size, "?");
		return;
	}
	if (n > 1)
		snprintf(buf, size, P_("%s-%d (+%u other)", "%s-%d (+%u others)", n - 1), esc(s->procs[top].comm),
			 (int)s->procs[top].pid, n - 1);
	else
		snprintf(buf, size, "%s-%d", esc(s->procs[top].comm), (int)s->procs[top].pid);
}

static void print_funcs(const struct samp_snapshot *s, const struct samp_view *v, const unsigned *top,
			const unsigned *nprocs)
{
	printf("%6s %6s %8s  %-32s %-20s %s\n", "SELF%", "TOTAL%", "SAMPLES", "FUNCTION", "MODULE", _("PROCESS"));
	for (unsigned i = 0; i < v->nrows; i++) {
		const struct samp_row *r = &v->rows[i];
		const struct samp_func *f = &s->funcs[r->func];
		char who[128];
		proc_label(s, top[i], nprocs[i], who, sizeof(who));
		/* esc() returns a static buffer: one call per printf argument. */
		printf("%6.2f %6.2f %8lu  %-32s ", r->self_pct, r->total_pct, r->self, esc(f->name));
		printf("%-20s %s\n", esc(samp_module_short(f->module)), who);
	}
}

static struct json_object *json_report(const struct samp_snapshot *s, const struct samp_pview *pv,
				       const struct samp_view *v, const unsigned *top, const unsigned *nprocs,
				       bool by_comm)
{
	struct json_object *o = json_object_new_object(), *pa = json_object_new_array();

	out_json_str(o, "scope", "machine");
	out_json_str(o, "event", s->event);
	out_json_int(o, "freq", s->freq);
	out_json_int(o, "samples", (long long)(s->unit == SAMP_UNIT_SAMPLES ? pv->samples : s->samples));
	if (s->unit != SAMP_UNIT_SAMPLES) { /* a weighted profile: "weight" counts its unit */
		out_json_str(o, "unit", samp_unit_key(s->unit));
		out_json_int(o, "weight", (long long)pv->samples);
	}
	out_json_int(o, "idle", (long long)s->idle);
	out_json_int(o, "lost", (long long)s->lost);
	out_json_int(o, "truncated", (long long)s->truncated);
	out_json_str(o, "unwind", samp_unwind_method(s));
	out_json_double(o, "cpu_sampled", round(s->cpu_sampled * 100) / 100);
	out_json_double(o, "cpu_proc", round(s->cpu_proc * 100) / 100);
	for (unsigned i = 0; i < pv->nrows; i++) {
		const struct samp_prow *r = &pv->rows[i];
		const struct samp_proc *p = &s->procs[r->proc];
		struct json_object *po = json_object_new_object();
		out_json_str(po, "comm", p->comm);
		if (by_comm) {
			out_json_int(po, "processes", r->nprocs);
		} else {
			out_json_int(po, "pid", p->pid);
			out_json_int(po, "starttime", (long long)p->start);
			out_json_bool(po, "exited", p->exited);
			out_json_bool(po, "kernel", p->kernel);
			out_json_double(po, "cpu_sampled", round(r->cpu_sampled * 100) / 100);
			out_json_double(po, "cpu_proc", round(r->cpu_proc * 100) / 100);
		}
		out_json_int(po, s->unit == SAMP_UNIT_SAMPLES ? "samples" : "weight", (long long)r->samples);
		out_json_double(po, "share_pct", round(r->pct * 100) / 100);
		json_object_array_add(pa, po);
	}
	json_object_object_add(o, by_comm ? "commands" : "processes", pa);
	if (by_comm)
		return o;
	struct json_object *fa = json_object_new_array();
	for (unsigned i = 0; i < v->nrows; i++) {
		const struct samp_row *r = &v->rows[i];
		const struct samp_func *f = &s->funcs[r->func];
		struct json_object *fo = json_object_new_object();
		out_json_str(fo, "name", f->name);
		out_json_str(fo, "module", f->module);
		out_json_double(fo, "self_pct", round(r->self_pct * 100) / 100);
		out_json_double(fo, "total_pct", round(r->total_pct * 100) / 100);
		out_json_int(fo, s->unit == SAMP_UNIT_SAMPLES ? "samples" : "weight", (long long)r->self);
		if (top[i] < s->nprocs) {
			out_json_int(fo, "pid", s->procs[top[i]].pid);
			out_json_str(fo, "comm", s->procs[top[i]].comm);
		} else {
			json_object_object_add(fo, "pid", NULL);
			json_object_object_add(fo, "comm", NULL);
		}
		out_json_int(fo, "processes", nprocs[i]);
		json_object_array_add(fa, fo);
	}
	json_object_object_add(o, "functions", fa);
	return o;
}

static int report(const struct top_args *a, struct samp_snapshot *snap)
{
	struct samp_pview pv = { 0 };
	struct samp_view v = { 0 };
	struct ps_error e;
	unsigned *top = NULL, *nprocs = NULL;
	int rc = 0;

	ps_error_clear(&e);
	if (samp_view_procs(snap, SAMP_WIN_ALL, a->by_comm, SAMP_SORT_SELF, &pv) < 0 ||
	    samp_view_compute(snap, SAMP_WIN_ALL, 0, SAMP_SORT_SELF, &v) < 0 ||
	    !(top = calloc(v.nrows + 1, sizeof(*top))) || !(nprocs = calloc(v.nrows + 1, sizeof(*nprocs))) ||
	    samp_view_func_procs(snap, SAMP_WIN_ALL, &v, top, nprocs) < 0) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		rc = cmd_fail("top", &e);
		goto out;
	}
	if (a->json) {
		out_json_print(stdout, json_report(snap, &pv, &v, top, nprocs, a->by_comm), 1);
	} else {
		print_head(snap);
		print_procs(snap, &pv, a->by_comm);
		if (!a->by_comm) {
			putchar('\n');
			print_funcs(snap, &v, top, nprocs);
		}
	}
	if (!snap->samples)
		fprintf(stderr, P_("pscope top: no samples: the machine was idle for %.1f s (%llu idle sample)\n", "pscope top: no samples: the machine was idle for %.1f s (%llu idle samples)\n", snap->idle),
			snap->elapsed, snap->idle);
	if (top_exports(a, snap))
		rc = 1;
out:
	free(top);
	free(nprocs);
	samp_pview_free(&pv);
	samp_view_free(&v);
	samp_snapshot_free(snap);
	return rc;
}

int top_machine(const struct top_args *a)
{
	struct samp_source *s;
	struct ps_error e;
	struct samp_opts o = { .pid = 0, .freq = a->freq ? (int)a->freq : SAMP_FREQ_DEFAULT,
			       .stack_copy = a->stack_copy };

	if (a->freq && a->freq < SAMP_FREQ_MIN) {
		return cmd_usage_error("top", _("invalid frequency '%ld' (Hz, 49..3999)"), a->freq);
	}
	ps_error_clear(&e);
	if (samp_perf_open(&s, &o, &e) < 0)
		return cmd_fail("top", &e);
	const char *ended;
	char why[192];
	struct samp_snapshot *snap = top_run(a, s, false, &ended, why, sizeof(why));
	if (!snap) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		return cmd_fail("top", &e);
	}
	return report(a, snap);
}
