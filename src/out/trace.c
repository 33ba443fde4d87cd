/* The timeline in the Chrome trace event format (the JSON Perfetto and
 * chrome://tracing open): one track per thread of the process, its time
 * as slices that nest -- system calls ("X", named by the call), and in
 * them or between them the scheduler's stretches: "running" (on a CPU,
 * cut at each system call's entry and exit so the slices nest),
 * "runnable" (woken or preempted, waiting for a CPU), "blocked: REASON"
 * (asleep until woken); cpu-clock samples and wakeups as instants ("i").
 * Timestamps in microseconds from the first record (the records' own
 * clock, perf's). A stretch begun
 * before the window (a system call entered, a block) is left out: only
 * what the records show whole. */
#include "out/trace.h"
#include "out/escape.h"
#include "out/save.h"
#include "proc/syscalls.h"
#include "time/model.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#define PREEMPTED 0x100 /* sched_switch's prev_state of a preempted task */

enum st { ST_UNKNOWN, ST_RUNNING, ST_RUNNABLE, ST_BLOCKED };

struct tr_thread {
	pid_t tid;
	enum st st;
	uint64_t since;
	int32_t sys, sys_block; /* in progress (-1: none / not seen entering) */
	uint64_t sys_t0;
	bool dstate;            /* blocked uninterruptibly */
};

struct tr {
	FILE *f;
	pid_t pid;
	uint64_t t0;
	struct tr_thread *t;
	size_t nt;
	unsigned long long slices, instants;
	bool first;
};

static struct tr_thread *find(struct tr *w, pid_t tid)
{
	for (size_t i = 0; i < w->nt; i++) /* threads are few; the lookup is by the index the caller sorted */
		if (w->t[i].tid == tid)
			return &w->t[i];
	return NULL;
}

static double us(const struct tr *w, uint64_t t)
{
	return t > w->t0 ? (double)(t - w->t0) / 1e3 : 0.0;
}

static void sep(struct tr *w)
{
	fputs(w->first ? "\n" : ",\n", w->f);
	w->first = false;
}

/* A JSON string of hostile text (valid UTF-8, escaped by json-c). */
static void str(FILE *f, const char *s)
{
	char *ok = utf8_repair(s, strlen(s));
	struct json_object *o = json_object_new_string(ok ? ok : "?");
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), f);
	json_object_put(o);
	free(ok);
}

static void slice(struct tr *w, pid_t tid, const char *name, const char *cat, uint64_t a, uint64_t b,
		  const char *args)
{
	if (b < a || a < w->t0)
		return;
	sep(w);
	fprintf(w->f, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f%s%s}",
		name, cat, (int)w->pid, (int)tid, us(w, a), (double)(b - a) / 1e3, args ? ",\"args\":" : "",
		args ? args : "");
	w->slices++;
}

static void instant(struct tr *w, pid_t tid, const char *name, const char *cat, uint64_t t, const char *args)
{
	if (t < w->t0)
		return;
	sep(w);
	fprintf(w->f, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f%s%s}",
		name, cat, (int)w->pid, (int)tid, us(w, t), args ? ",\"args\":" : "", args ? args : "");
	w->instants++;
}

/* End t's stretch at time t1 (its slice written), and start st. */
static void stretch(struct tr *w, struct tr_thread *t, uint64_t t1, enum st st)
{
	if (t1 < t->since) /* stamped by another CPU's clock a little before: no negative slice */
		t1 = t->since;
	if (t1 > t->since) { /* nothing between: no empty slice */
		if (t->st == ST_RUNNING) {
			slice(w, t->tid, "running", "sched", t->since, t1, NULL);
		} else if (t->st == ST_RUNNABLE) {
			slice(w, t->tid, "runnable", "sched", t->since, t1, NULL);
		} else if (t->st == ST_BLOCKED) {
			char name[64];
			enum tm_reason r = tm_reason_of(t->sys_block, t->dstate ? TM_H_DSTATE : 0);
			snprintf(name, sizeof(name), "blocked: %s", tm_reason_key(r));
			slice(w, t->tid, name, "sched", t->since, t1, NULL);
		}
	}
	t->st = st;
	t->since = t1;
}

static void apply(struct tr *w, const struct tm_tlev *e)
{
	struct tr_thread *t = find(w, e->tid);
	char args[96];

	switch (e->kind) {
	case TM_TL_SWITCH: {
		struct tr_thread *n = find(w, e->b);
		if (t) {
			bool asleep = e->a != 0 && !(e->a & PREEMPTED);
			t->dstate = asleep && (e->a & 2);
			t->sys_block = t->sys;
			stretch(w, t, e->time, asleep ? ST_BLOCKED : ST_RUNNABLE);
		}
		if (n)
			stretch(w, n, e->time, ST_RUNNING);
		return;
	}
	case TM_TL_WAKEUP:
		if (!t)
			return;
		snprintf(args, sizeof(args), "{\"waker_tid\":%d}", (int)e->b);
		instant(w, t->tid, "wakeup", "sched", e->time, args);
		if (t->st == ST_BLOCKED || t->st == ST_UNKNOWN)
			stretch(w, t, e->time, ST_RUNNABLE);
		return;
	case TM_TL_SYS_ENTER:
		if (!t)
			return;
		/* It runs (a switch-in not seen, or stamped a little later by
		 * another CPU's clock): the running slice ends at the entry. */
		stretch(w, t, e->time, ST_RUNNING);
		t->sys = e->a;
		t->sys_t0 = e->time;
		return;
	case TM_TL_SYS_EXIT:
		if (!t)
			return;
		stretch(w, t, e->time, ST_RUNNING);
		if (t->sys == e->a && t->sys_t0) {
			const char *nm = proc_syscall_name(e->a);
			char name[48];
			if (!nm)
				snprintf(name, sizeof(name), "syscall_%d", (int)e->a);
			snprintf(args, sizeof(args), "{\"nr\":%d,\"ret\":%d}", (int)e->a, (int)e->b);
			slice(w, t->tid, nm ? nm : name, "syscall", t->sys_t0, e->time, args);
		}
		t->sys = -1;
		t->sys_t0 = 0;
		return;
	case TM_TL_SAMPLE:
		if (!t)
			return;
		if (t->st != ST_RUNNING && t->st != ST_UNKNOWN) /* a sample says it runs */
			stretch(w, t, e->time, ST_RUNNING);
		instant(w, t->tid, "cpu-clock sample", "sample", e->time, NULL);
		return;
	case TM_TL_FAULT:
		if (t)
			instant(w, t->tid, "page fault", "fault", e->time, NULL);
		return;
	}
}

int out_trace_write(FILE *f, const struct tm_timeline *tl, pid_t pid, const char *comm, const struct out_trace_thread *th,
		    size_t nth, struct out_trace_stats *stats)
{
	uint64_t t0 = tl->n ? tm_tl_at(tl, 0)->time : 0, t1 = tl->n ? tm_tl_at(tl, tl->n - 1)->time : 0;
	struct tr w = { .f = f, .pid = pid, .t0 = t0, .first = true };

	w.t = calloc(nth + 1, sizeof(*w.t));
	if (!w.t)
		return -ENOMEM;
	for (size_t i = 0; i < nth; i++)
		w.t[w.nt++] = (struct tr_thread){ .tid = th[i].tid, .sys = -1, .sys_block = -1 };
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"pscope time --timeline\",", f);
	fprintf(f, "\"span_us\":%.3f,\"events\":%zu,\"dropped_events\":%llu,\"sampled\":%s},\"traceEvents\":[",
		(double)(t1 - t0) / 1e3, tl->n, tl->dropped, tl->sampled ? "true" : "false");
	sep(&w);
	fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", (int)pid, (int)pid);
	str(f, comm);
	fputs("}}", f);
	for (size_t i = 0; i < nth; i++) {
		sep(&w);
		fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", (int)pid,
			(int)th[i].tid);
		str(f, th[i].name);
		fputs("}}", f);
	}
	for (size_t i = 0; i < tl->n; i++) {
		apply(&w, tm_tl_at(tl, i));
	}
	/* The stretches still open at the end of the window end with it. */
	for (size_t i = 0; i < w.nt; i++)
		stretch(&w, &w.t[i], t1, ST_UNKNOWN);
	fputs("\n]}\n", f);
	if (stats) {
		stats->slices = w.slices;
		stats->instants = w.instants;
	}
	free(w.t);
	return ferror(f) ? -EIO : 0;
}

struct save_args {
	const struct tm_timeline *tl;
	pid_t pid;
	const char *comm;
	const struct out_trace_thread *th;
	size_t nth;
	struct out_trace_stats *stats;
};

static int save_write(FILE *f, void *arg)
{
	struct save_args *a = arg;
	return out_trace_write(f, a->tl, a->pid, a->comm, a->th, a->nth, a->stats);
}

int out_trace_save(const char *path, const struct tm_timeline *tl, pid_t pid, const char *comm,
		   const struct out_trace_thread *th, size_t nth, struct out_trace_stats *stats, struct ps_error *e)
{
	struct save_args a = { tl, pid, comm, th, nth, stats };
	return out_save(path, save_write, &a, e);
}
