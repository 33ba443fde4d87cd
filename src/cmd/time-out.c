/* pscope time PID: the report of one process, text and JSON. */
#include "cmd/time-out.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/json.h"
#include "proc/syscalls.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double r2(double v)
{
	return round(v * 100) / 100;
}

static const struct tm_thread *find_thread(const struct tm_snapshot *s, pid_t tid)
{
	for (size_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	return NULL;
}

/* "sleep 98%, futex/lock 2%": the two largest reasons, as shares of the
 * blocked time. */
static void print_row(const struct tm_snapshot *s, const struct tm_thread *t, const char *name, bool total)
{
	char by[160], tid[16] = "", flt[32] = "-", migr[24] = "-";

	if (!total)
		snprintf(tid, sizeof(tid), "%d", (int)t->tid);
	if (s->have & TM_HAVE_FAULT_NS)
		snprintf(flt, sizeof(flt), "%.2f", (double)t->fault_ns / 1e6);
	if (s->have & TM_HAVE_MIGR)
		snprintf(migr, sizeof(migr), "%llu", (unsigned long long)t->migrations);
	printf("%8s %s %6.1f %6.1f %6.1f %6.1f %7llu %7llu %6s %7llu %6llu %8s  %s\n", tid, pad(name, 16),
	       tm_pct(s, t->oncpu_ns), tm_pct(s, t->runq_ns), tm_pct(s, tm_blocked_sum(t)), tm_pct(s, t->stopped_ns),
	       (unsigned long long)t->vol, (unsigned long long)t->invol, migr, (unsigned long long)t->minflt,
	       (unsigned long long)t->majflt, flt, tm_blocked_str(t, by, sizeof(by)));
}

static void print_header(const struct tm_snapshot *s)
{
	printf(_("PID %d (%s), %.1f s, tier %s\n"), (int)s->target.pid, esc(s->comm), tm_window_s(s), tm_tier_name(s->tier));
	printf(_("  source: %s\n"), esc(s->source));
	if (s->tier_note[0])
		printf(_("  tiers refused: %s\n"), esc(s->tier_note));
	if (s->sampled & TM_SAMPLED_BLOCKED)
		printf(P_("  blocked reasons are statistical: %llu sample at %.0f Hz\n", "  blocked reasons are statistical: %llu samples at %.0f Hz\n", s->samples), (unsigned long long)s->samples,
		       s->sample_hz);
	if (s->sampled & TM_SAMPLED_EVENTS)
		printf(_("  events sampled above the rate limit: %llu of %llu kept, figures scaled\n"),
		       (unsigned long long)s->samples, (unsigned long long)s->events);
	if (s->drops)
		printf(P_("  %llu entry or event did not fit and is missing from the figures\n", "  %llu entries or events did not fit and are missing from the figures\n", s->drops), (unsigned long long)s->drops);
	if (s->delay_note[0])
		printf("  %s\n", esc(s->delay_note));
	if (s->ncost) {
		uint64_t ns = 0, n = 0;
		for (unsigned i = 0; i < s->ncost; i++) {
			ns += s->cost[i].run_ns;
			n += s->cost[i].run_cnt;
		}
		printf(P_("  BPF cost: %.0f ns per event (%llu event):", "  BPF cost: %.0f ns per event (%llu events):", n), n ? (double)ns / (double)n : 0.0, (unsigned long long)n);
		for (unsigned i = 0; i < s->ncost; i++)
			printf(" %s %.0f ns", s->cost[i].name,
			       s->cost[i].run_cnt ? (double)s->cost[i].run_ns / (double)s->cost[i].run_cnt : 0.0);
		putchar('\n');
	}
}

static void print_syscalls(const struct tm_snapshot *s, const struct tm_thread *t)
{
	char nb[32];

	if (!t->nsys)
		return;
	if (!(s->have & TM_HAVE_SYSCALLS)) {
		uint64_t all = 0;
		for (size_t i = 0; i < t->nsys; i++)
			all += t->sys[i].samples;
		printf(_("\nSystem calls seen in samples (statistical: counts and latencies need the bpf or trace tier):\n"));
		printf("  %-20s %8s %7s %11s\n", "SYSCALL", "SAMPLES", "SHARE%", "~TOTAL_ms");
		for (size_t i = 0; i < t->nsys; i++) {
			const struct tm_syscall *c = &t->sys[i];
			printf("  %-20s %8llu %7.1f %11.1f\n", proc_syscall_label(c->nr, nb, sizeof(nb)), (unsigned long long)c->samples,
			       all ? 100.0 * (double)c->samples / (double)all : 0.0, (double)c->total_ns / 1e6);
		}
		return;
	}
	printf(_("\nSystem calls by total time (p50 and p99 from log2 histograms):\n"));
	printf("  %-20s %9s %7s %11s %10s %10s %10s %10s %11s\n", "SYSCALL", "COUNT", "ERRORS", "TOTAL_ms", "AVG_us",
	       "P50_us", "P99_us", "MAX_us", "BLOCKED_ms");
	for (size_t i = 0; i < t->nsys; i++) {
		const struct tm_syscall *c = &t->sys[i];
		if (!c->count && !c->blocked_ns)
			continue;
		printf("  %-20s %9llu %7llu %11.3f %10.1f %10.1f %10.1f %10.1f %11.3f\n", proc_syscall_label(c->nr, nb, sizeof(nb)),
		       (unsigned long long)c->count, (unsigned long long)c->errors, (double)c->total_ns / 1e6,
		       c->count ? (double)c->total_ns / (double)c->count / 1e3 : 0.0,
		       (double)tm_hist_quantile(&c->hist, 0.5, c->min_ns, c->max_ns) / 1e3,
		       (double)tm_hist_quantile(&c->hist, 0.99, c->min_ns, c->max_ns) / 1e3, (double)c->max_ns / 1e3,
		       (double)c->blocked_ns / 1e6);
	}
}

static void print_delay(const struct tm_snapshot *s, const struct tm_thread *t)
{
	const struct tm_delay *d = &t->delay;

	if (!(s->have & TM_HAVE_DELAY))
		return;
	printf(_("\nDelay accounting (ms): CPU %.3f, block I/O %.3f, swap-in %.3f, memory reclaim %.3f, thrashing %.3f, "
		 "compaction %.3f, write-protect copy %.3f, IRQ %.3f\n"),
	       (double)d->cpu / 1e6, (double)d->blkio / 1e6, (double)d->swapin / 1e6, (double)d->freepages / 1e6,
	       (double)d->thrashing / 1e6, (double)d->compact / 1e6, (double)d->wpcopy / 1e6, (double)d->irq / 1e6);
}

static const char *const psi_names[TM_PSI_COUNT] = { "cpu", "memory", "io" };

static void print_psi_line(const struct tm_snapshot *s, const struct tm_psi *p, const char *what)
{
	bool any = false;

	for (int r = 0; r < TM_PSI_COUNT; r++)
		any = any || p->have[r];
	if (!any)
		return;
	printf("  %s", what);
	for (int r = 0; r < TM_PSI_COUNT; r++) {
		if (!p->have[r])
			continue;
		printf(" %s %.1f", psi_names[r], tm_pct(s, p->some_us[r] * 1000));
		if (p->have_full[r])
			printf("/%.1f", tm_pct(s, p->full_us[r] * 1000));
	}
	putchar('\n');
}

static void print_psi(const struct tm_snapshot *s)
{
	printf(_("\nPressure stall (PSI), %% of the window some/full:\n"));
	print_psi_line(s, &s->psi_machine, _("machine (/proc/pressure):"));
	if (s->cgroup[0]) {
		char what[320];
		snprintf(what, sizeof(what), _("cgroup %s:"), esc(s->cgroup));
		print_psi_line(s, &s->psi_cgroup, what);
	}
}

static void print_runq(const struct tm_snapshot *s, const struct tm_thread *t)
{
	uint64_t n = tm_hist_count(&t->runq_hist), most = 0;
	char range[48], ran[96];

	if (!(s->have & TM_HAVE_RUNQ_HIST) || !n)
		return;
	printf(P_("\nRun-queue wait: %llu wait, %.3f ms in all\n", "\nRun-queue wait: %llu waits, %.3f ms in all\n", n),
	       (unsigned long long)n, (double)t->runq_ns / 1e6);
	for (int i = 0; i < TM_HIST; i++)
		if (t->runq_hist.b[i] > most)
			most = t->runq_hist.b[i];
	printf("  %-25s %10s  %s\n", "NS", "COUNT", "DISTRIBUTION");
	for (int i = 0; i < TM_HIST; i++) {
		if (!t->runq_hist.b[i])
			continue;
		int bar = (int)(40 * t->runq_hist.b[i] / most);
		if (i == TM_HIST - 1)
			snprintf(range, sizeof(range), "%llu ->", 1ULL << i);
		else
			snprintf(range, sizeof(range), "%llu -> %llu", i ? 1ULL << i : 0ULL, (2ULL << i) - 1);
		printf("  %-25s %10llu  |%-40.*s|\n", range, (unsigned long long)t->runq_hist.b[i], bar,
		       "****************************************");
	}
	if (!(s->have & TM_HAVE_WORST) || !t->nworst)
		return;
	printf(_("Worst waits (what ran on the CPU until the thread got it):\n"));
	for (unsigned i = 0; i < t->nworst; i++) {
		const struct tm_wait *w = &t->worst[i];
		if (w->ran_tid)
			snprintf(ran, sizeof(ran), "%d (%s)", (int)w->ran_tid, esc(w->ran_comm));
		else
			snprintf(ran, sizeof(ran), "%s", _("the idle task"));
		printf(_("  %10.3f ms  TID %d on CPU %d, after %s\n"), (double)w->ns / 1e6, (int)w->tid, w->cpu, ran);
	}
}

void time_print_text(const struct tm_snapshot *s, pid_t tid)
{
	const struct tm_thread *only = tid ? find_thread(s, tid) : NULL;

	print_header(s);
	printf("\n%8s %-16s %6s %6s %6s %6s %7s %7s %6s %7s %6s %8s  %s\n", "TID", "NAME", "ONCPU%", "RUNQ%", "BLOCK%",
	       "STOP%", "VOLCS", "INVOLCS", "MIGR", "MINFLT", "MAJFLT", "FAULT_ms", "BLOCKED BY");
	for (size_t i = 0; i < s->nthreads; i++) {
		const struct tm_thread *t = &s->threads[i];
		if (!only || t == only) {
			char name[80];
			snprintf(name, sizeof(name), "%s%s", esc(t->comm), t->exited ? _(" (exited)") : "");
			print_row(s, t, name, false);
		}
	}
	if (!only)
		print_row(s, &s->total, _("(process)"), true);
	const struct tm_thread *t = only ? only : &s->total;
	print_syscalls(s, t);
	print_runq(s, t);
	print_delay(s, t);
	if (!only)
		print_psi(s);
	if (!only && s->nthreads > 1)
		printf(_("\nShares are of the %.1f s window; the process row sums its threads (100%% = one thread all the time).\n"),
		       tm_window_s(s));
}

static struct json_object *thread_json(const struct tm_snapshot *s, const struct tm_thread *t, bool total)
{
	struct json_object *o = json_object_new_object(), *b = json_object_new_object(), *sw = json_object_new_object(),
			   *f = json_object_new_object(), *sa = json_object_new_array();
	char nb[32];

	if (!total) {
		out_json_int(o, "tid", t->tid);
		out_json_str(o, "name", t->comm);
		out_json_bool(o, "exited", t->exited);
	} else {
		out_json_int(o, "threads", (long long)s->nthreads);
	}
	out_json_double(o, "on_cpu_pct", r2(tm_pct(s, t->oncpu_ns)));
	out_json_double(o, "runqueue_pct", r2(tm_pct(s, t->runq_ns)));
	out_json_double(o, "blocked_pct", r2(tm_pct(s, tm_blocked_sum(t))));
	out_json_double(o, "stopped_pct", r2(tm_pct(s, t->stopped_ns)));
	for (int r = 0; r < TM_R_COUNT; r++)
		out_json_double(b, tm_reason_key(r), r2(tm_pct(s, t->blocked_ns[r])));
	json_object_object_add(o, "blocked", b);
	out_json_int(o, "on_cpu_ns", (long long)t->oncpu_ns);
	out_json_int(o, "runqueue_ns", (long long)t->runq_ns);
	out_json_int(o, "blocked_ns", (long long)tm_blocked_sum(t));
	out_json_int(sw, "voluntary", (long long)t->vol);
	out_json_int(sw, "involuntary", (long long)t->invol);
	json_object_object_add(o, "switches", sw);
	if (s->have & TM_HAVE_MIGR)
		out_json_int(o, "migrations", (long long)t->migrations);
	else
		json_object_object_add(o, "migrations", NULL);
	out_json_int(f, "minor", (long long)t->minflt);
	out_json_int(f, "major", (long long)t->majflt);
	if (s->have & TM_HAVE_FAULT_NS)
		out_json_int(f, "ns", (long long)t->fault_ns);
	else
		json_object_object_add(f, "ns", NULL);
	json_object_object_add(o, "faults", f);
	for (size_t i = 0; i < t->nsys; i++) {
		const struct tm_syscall *c = &t->sys[i];
		struct json_object *so = json_object_new_object();
		out_json_str(so, "name", proc_syscall_label(c->nr, nb, sizeof(nb)));
		if (s->have & TM_HAVE_SYSCALLS) {
			out_json_int(so, "count", (long long)c->count);
			out_json_int(so, "errors", (long long)c->errors);
			out_json_int(so, "total_ns", (long long)c->total_ns);
			out_json_int(so, "avg_ns", c->count ? (long long)(c->total_ns / c->count) : 0);
			out_json_int(so, "p50_ns", (long long)tm_hist_quantile(&c->hist, 0.5, c->min_ns, c->max_ns));
			out_json_int(so, "p99_ns", (long long)tm_hist_quantile(&c->hist, 0.99, c->min_ns, c->max_ns));
			out_json_int(so, "max_ns", (long long)c->max_ns);
			out_json_int(so, "blocked_ns", (long long)c->blocked_ns);
		} else { /* what samples can tell: where, not how often */
			static const char *const none[] = { "count", "errors", "avg_ns", "p50_ns", "p99_ns", "max_ns" };
			for (size_t k = 0; k < sizeof(none) / sizeof(none[0]); k++)
				json_object_object_add(so, none[k], NULL);
			out_json_int(so, "total_ns", (long long)c->total_ns);
			out_json_int(so, "samples", (long long)c->samples);
		}
		json_object_array_add(sa, so);
	}
	json_object_object_add(o, "syscalls", sa);
	if (s->have & TM_HAVE_RUNQ_HIST) {
		struct json_object *h = json_object_new_array();
		for (int i = 0; i < TM_HIST; i++) {
			if (!t->runq_hist.b[i])
				continue;
			struct json_object *bo = json_object_new_object();
			out_json_int(bo, "ge_ns", i ? (long long)(1ULL << i) : 0);
			if (i < TM_HIST - 1)
				out_json_int(bo, "lt_ns", (long long)(2ULL << i));
			else
				json_object_object_add(bo, "lt_ns", NULL);
			out_json_int(bo, "count", (long long)t->runq_hist.b[i]);
			json_object_array_add(h, bo);
		}
		json_object_object_add(o, "runqueue_hist", h);
	} else {
		json_object_object_add(o, "runqueue_hist", NULL);
	}
	if (s->have & TM_HAVE_DELAY) {
		struct json_object *dl = json_object_new_object();
		out_json_int(dl, "cpu_ns", (long long)t->delay.cpu);
		out_json_int(dl, "blkio_ns", (long long)t->delay.blkio);
		out_json_int(dl, "swapin_ns", (long long)t->delay.swapin);
		out_json_int(dl, "freepages_ns", (long long)t->delay.freepages);
		out_json_int(dl, "thrashing_ns", (long long)t->delay.thrashing);
		out_json_int(dl, "compact_ns", (long long)t->delay.compact);
		out_json_int(dl, "wpcopy_ns", (long long)t->delay.wpcopy);
		out_json_int(dl, "irq_ns", (long long)t->delay.irq);
		json_object_object_add(o, "delay", dl);
	} else {
		json_object_object_add(o, "delay", NULL);
	}
	if (s->have & TM_HAVE_WORST) {
		struct json_object *w = json_object_new_array();
		for (unsigned i = 0; i < t->nworst; i++) {
			struct json_object *wo = json_object_new_object();
			out_json_int(wo, "ns", (long long)t->worst[i].ns);
			out_json_int(wo, "tid", t->worst[i].tid);
			out_json_int(wo, "cpu", t->worst[i].cpu);
			out_json_int(wo, "ran_tid", t->worst[i].ran_tid);
			out_json_str(wo, "ran_name", t->worst[i].ran_comm);
			json_object_array_add(w, wo);
		}
		json_object_object_add(o, "runqueue_worst", w);
	}
	return o;
}

static struct json_object *psi_json(const struct tm_snapshot *s, const struct tm_psi *p)
{
	struct json_object *o = json_object_new_object();

	for (int r = 0; r < TM_PSI_COUNT; r++) {
		if (!p->have[r])
			continue;
		struct json_object *ro = json_object_new_object();
		out_json_double(ro, "some_pct", r2(tm_pct(s, p->some_us[r] * 1000)));
		if (p->have_full[r])
			out_json_double(ro, "full_pct", r2(tm_pct(s, p->full_us[r] * 1000)));
		else
			json_object_object_add(ro, "full_pct", NULL);
		json_object_object_add(o, psi_names[r], ro);
	}
	return o;
}

struct json_object *time_json(const struct tm_snapshot *s, pid_t tid)
{
	struct json_object *o = json_object_new_object(), *ta = json_object_new_array(), *st = json_object_new_object();

	out_json_int(o, "pid", s->target.pid);
	out_json_str(o, "comm", s->comm);
	out_json_str(o, "tier", tm_tier_name(s->tier));
	out_json_str(o, "source", s->source);
	out_json_str(o, "tiers_refused", s->tier_note[0] ? s->tier_note : NULL);
	out_json_double(o, "window_s", round(tm_window_s(s) * 1000) / 1000);
	out_json_bool(st, "blocked", !!(s->sampled & TM_SAMPLED_BLOCKED));
	out_json_bool(st, "events", !!(s->sampled & TM_SAMPLED_EVENTS));
	json_object_object_add(o, "statistical", st);
	out_json_int(o, "samples", (long long)s->samples);
	out_json_int(o, "drops", (long long)s->drops);
	out_json_str(o, "ended", s->ended[0] ? s->ended : NULL);
	out_json_str(o, "delay_accounting", s->delay_note[0] ? s->delay_note : NULL);
	if (s->ncost) {
		struct json_object *ca = json_object_new_array();
		for (unsigned i = 0; i < s->ncost; i++) {
			struct json_object *co = json_object_new_object();
			out_json_str(co, "program", s->cost[i].name);
			out_json_int(co, "run_ns", (long long)s->cost[i].run_ns);
			out_json_int(co, "run_count", (long long)s->cost[i].run_cnt);
			json_object_array_add(ca, co);
		}
		json_object_object_add(o, "bpf_cost", ca);
	}
	for (size_t i = 0; i < s->nthreads; i++)
		if (!tid || s->threads[i].tid == tid)
			json_object_array_add(ta, thread_json(s, &s->threads[i], false));
	json_object_object_add(o, "threads", ta);
	json_object_object_add(o, "process", thread_json(s, &s->total, true));
	struct json_object *psi = json_object_new_object();
	json_object_object_add(psi, "machine", psi_json(s, &s->psi_machine));
	if (s->cgroup[0]) {
		struct json_object *cg = psi_json(s, &s->psi_cgroup);
		out_json_str(cg, "path", s->cgroup);
		json_object_object_add(psi, "cgroup", cg);
	} else {
		json_object_object_add(psi, "cgroup", NULL);
	}
	json_object_object_add(o, "psi", psi);
	return o;
}

void time_print_json(const struct tm_snapshot *s, pid_t tid)
{
	out_json_print(stdout, time_json(s, tid), 1);
}
