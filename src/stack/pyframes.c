/* Python frames in the stack dump: each native _PyEval_EvalFrameDefault
 * frame is preceded by the Python frames it ran (up to its entry frame),
 * and marked `eval` so the mixed view hides it. Threads are matched to
 * thread states by pthread_t (fs_base while stopped) or native tid. */
#include "stack/pyframes.h"
#include "i18n.h"
#include "python/python.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool is_eval(const struct stk_frame *f)
{
	return f->sym && f->sym->function && !strcmp(f->sym->function, "_PyEval_EvalFrameDefault");
}

static bool has_fn(const struct stk_thread *t, const char *fn)
{
	for (size_t i = 0; i < t->n_frames; i++)
		if (t->frames[i].sym && t->frames[i].sym->function && !strcmp(t->frames[i].sym->function, fn))
			return true;
	return false;
}

/* Why a thread is idle, from its syscall and native frames. */
static const char *idle_reason(const struct stk_thread *t)
{
	if (has_fn(t, "time_sleep") || has_fn(t, "pysleep"))
		return "time.sleep"; /* 3.9, 3.10 sleep in select() */
	switch (t->syscall_nr) {
	case 35: case 230:                     /* nanosleep, clock_nanosleep */
		return "time.sleep";
	case 7: case 23: case 232: case 270:   /* poll, select, epoll_wait, pselect6 */
	case 271: case 281: case 441:          /* ppoll, epoll_pwait, epoll_pwait2 */
		return "select";
	case 202:                              /* futex */
		return has_fn(t, "PyThread_acquire_lock_timed") ? N_("lock acquire") : NULL;
	default:
		return NULL;
	}
}

static int merge_thread(struct stk_thread *th, const struct py_raw_thread *rt, struct py_proc *py,
			const struct py_mem *m)
{
	size_t n = th->n_frames + rt->n, o = 0, k = 0;
	struct stk_frame *v = calloc(n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < th->n_frames; i++) {
		if (is_eval(&th->frames[i]) && k < rt->n) {
			/* This eval call ran the frames up to the next entry frame. */
			do {
				const struct py_raw_frame *f = &rt->frames[k++];
				const struct py_code *c = py_code_get(py, m, f->code);
				v[o].pc = f->code;
				v[o].py = c;
				v[o].line = c ? py_code_line(py, c, f->lasti) : 0;
				o++;
				if (f->entry)
					break;
			} while (k < rt->n);
			th->frames[i].eval = true;
		}
		v[o++] = th->frames[i];
	}
	/* Frames the native unwind did not reach (a truncated native stack):
	 * outermost, in order. */
	for (; k < rt->n; k++) {
		const struct py_code *c = py_code_get(py, m, rt->frames[k].code);
		v[o].pc = rt->frames[k].code;
		v[o].py = c;
		v[o].line = c ? py_code_line(py, c, rt->frames[k].lasti) : 0;
		o++;
	}
	free(th->frames);
	th->frames = v;
	th->n_frames = o;
	th->n_py = rt->n;
	return 0;
}

const struct py_raw_thread *stk_py_raw(const struct stk_thread *th, const struct stk_snap *st, const struct py_snapshot *s)
{
	for (size_t j = 0; j < s->n; j++)
		if ((!th->skipped && s->threads[j].thread_id == st->regs.fs_base) ||
		    (s->threads[j].tid && s->threads[j].tid == th->tid))
			return &s->threads[j];
	return NULL;
}

int stk_py_merge(struct stk_dump *d, const struct stk_snap *st, size_t n, struct py_proc *py,
		 const struct py_snapshot *s, const struct py_mem *m, struct ps_error *e)
{
	/* Every code object first: one that is not readable in a consistent
	 * snapshot means the structures are not what they claim. */
	for (size_t k = 0; k < s->pool_n; k++) {
		const struct py_code *c = py_code_get(py, m, s->pool[k].code);
		if (!c)
			return ps_error_set(e, ENOMEM, _("out of memory"));
		if (c->bad)
			return ps_error_set(e, EPROTO, _("not a readable CPython: frame with an unreadable code object at 0x%llx"),
					    (unsigned long long)c->addr);
	}
	py_thread_names_load(py, m); /* names are optional: threading may not be imported */
	for (size_t i = 0; i < d->n_threads && i < n; i++) {
		struct stk_thread *th = &d->threads[i];
		const struct py_raw_thread *rt = stk_py_raw(th, &st[i], s);
		if (!rt)
			continue;
		th->python = true;
		th->gil = s->gil_known && rt->tstate == s->gil_holder;
		th->idle = idle_reason(th);
		const char *name = py_thread_name(py, rt->thread_id);
		if (name && !(th->python_name = strdup(name)))
			return ps_error_set(e, ENOMEM, _("out of memory"));
		if (merge_thread(th, rt, py, m) < 0)
			return ps_error_set(e, ENOMEM, _("out of memory"));
	}
	return 0;
}

bool stk_frame_shown(const struct stk_thread *t, const struct stk_frame *f, enum stk_view v)
{
	switch (v) {
	case STK_VIEW_NATIVE:
		return !f->py;
	case STK_VIEW_PYTHON:
		return t->n_py ? f->py != NULL : true;
	default:
		return !f->eval;
	}
}
