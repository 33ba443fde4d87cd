/* The off-CPU tracer's CPython frames: when the target is a CPython, a
 * thread that blocks has its frame chain read (as the CPython sampler
 * reads it, from process memory) while it is still off CPU, and its
 * block's stack carries those frames where the interpreter's eval loop
 * is in the native stack: `time.sleep` under `handle (app.py:12)`.
 *
 * The chain must be the block's, not what the thread does after it ran
 * again. A switch-out is read from its ring; then, for each thread that
 * blocked, its schedstat count of arrivals on a CPU (P0); then the
 * switch-in ring set (every switch-in that happened so far is in it by
 * then); then the chain; then the count again (P1). No switch-in since
 * the switch-out and P0 == P1: the thread was off CPU from its
 * switch-out to the end of the read, and the frames are the block's.
 * Otherwise the block keeps its native frames only and is counted as
 * read too late (py_unread). */
#include "sample/agg.h"
#include "sample/local.h"
#include "sample/offcpu.h"
#include "python/python.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVAL_FUNC "_PyEval_EvalFrameDefault"

void oc_py_open(struct ocpu *o)
{
	char *maps = NULL;
	size_t cap = 0;
	struct ps_error e;

	o->py_pid = o->s.t.id.pid;
	py_mem_live(&o->py_live, &o->py_pid);
	ssize_t n = read_file_alloc_at(o->s.t.dirfd, "maps", &maps, &cap);
	if (n > 0 && py_detect(o->py_pid, maps, (size_t)n, &o->py_live, &o->py, &e) < 0)
		o->py = NULL; /* not a CPython, or one not readable: native frames only */
	free(maps);
}

void oc_py_close(struct ocpu *o)
{
	py_snapshot_free(&o->py_snap);
	hmap_free(&o->py_funcs);
	hmap_free(&o->py_tids);
	py_proc_free(o->py);
	o->py = NULL;
}

/* Arrivals of the thread on a CPU since it started (schedstat's third
 * field), or -1 when they cannot be read. */
static long long arrivals(struct ocpu *o, pid_t tid)
{
	char path[64], buf[128];
	unsigned long long run, wait, count;

	snprintf(path, sizeof(path), "task/%d/schedstat", (int)tid);
	ssize_t n = read_file_at(o->s.t.dirfd, path, buf, sizeof(buf));
	if (n <= 0 || sscanf(buf, "%llu %llu %llu", &run, &wait, &count) != 3)
		return -1;
	return (long long)count;
}

void oc_py_before_switchins(struct ocpu *o)
{
	if (!o->py)
		return;
	for (unsigned i = 0; i < o->nthreads; i++) {
		struct othread *t = &o->threads[i];
		if (t->py_pending)
			t->py_arrivals = arrivals(o, t->th.tid);
	}
}

static pid_t tid_of(struct ocpu *o, const struct py_raw_thread *rt)
{
	if (rt->tid)
		return rt->tid;
	uint32_t v = samp_id_get(&o->py_tids, rt->thread_id);
	if (v != SAMP_NONE)
		return (pid_t)v;
	pid_t tid = py_pthread_tid(o->py, &o->py_live, rt->thread_id);
	if (tid > 0)
		hmap_put(&o->py_tids, rt->thread_id, (uint32_t)tid);
	return tid;
}

static bool want(void *arg, const struct py_raw_thread *rt, bool gil)
{
	struct ocpu *o = arg;
	(void)gil;
	return tid_of(o, rt) == o->py_want;
}

/* The location (the function at its line) of a frame, in the block profile. */
static uint32_t func_of(struct ocpu *o, const struct py_raw_frame *f)
{
	const struct py_code *c = py_code_get(o->py, &o->py_live, f->code);
	if (!c)
		return SAMP_NONE;
	int line = py_code_line(o->py, c, f->lasti);
	uint64_t key = f->code ^ ((uint64_t)(unsigned)line << 48);
	uint32_t id = samp_id_get(&o->py_funcs, key);
	if (id != SAMP_NONE)
		return id;
	struct samp_fninfo fi = { .name = c->qualname, .module = c->file, .file = c->file, .line = line,
				  .flags = SAMP_F_PYTHON };
	id = agg_func_loc(o->s.agg, agg_func(o->s.agg, &fi));
	if (id != SAMP_NONE && hmap_put(&o->py_funcs, key, id) < 0)
		return SAMP_NONE;
	return id;
}

/* The queued switch-out of t that began the block at t->py_pend_t0. */
static struct oc_ev *pending_out(struct ocpu *o, struct othread *t)
{
	for (size_t i = o->nq; i-- > 0;)
		if (o->q[i].kind == OC_OUT && o->q[i].tid == t->th.tid && o->q[i].time == t->py_pend_t0)
			return o->q[i].copy && !o->q[i].py ? &o->q[i] : NULL;
	return NULL;
}

/* Read t's chain for the block that began at t->py_pend_t0, into its
 * switch-out's record. */
static void read_chain(struct ocpu *o, struct othread *t)
{
	struct py_walk_opts wo = { .check_torn = true, .want = want, .want_arg = o };
	struct ps_error e;
	struct oc_ev *x = pending_out(o, t);

	if (!x || t->py_arrivals < 0 || t->last_in > t->py_pend_t0)
		return; /* it ran again already */
	o->py_want = t->th.tid;
	o->py_snap.torn = 0;
	if (py_snapshot_take(o->py, &o->py_live, &wo, &o->py_snap, &e) < 0 || o->py_snap.torn)
		return;
	if (arrivals(o, t->th.tid) != t->py_arrivals)
		return; /* it ran during the read */
	for (size_t i = 0; i < o->py_snap.n; i++) {
		const struct py_raw_thread *rt = &o->py_snap.threads[i];
		if (rt->skipped || rt->error)
			continue;
		size_t n = rt->n < OC_PY_FRAMES ? rt->n : OC_PY_FRAMES;
		struct oc_py *p = malloc(sizeof(*p) + n * sizeof(p->fr[0]));
		if (!p)
			return;
		p->n = 0;
		for (size_t k = 0; k < n; k++) {
			uint32_t id = func_of(o, &rt->frames[k]);
			if (id != SAMP_NONE && id < OC_PY_ENTRY)
				p->fr[p->n++] = id | (rt->frames[k].entry ? OC_PY_ENTRY : 0);
		}
		x->py = p; /* read in time: these are its frames (perhaps none) */
		t->py_thread = true;
		return;
	}
}

void oc_py_after_switchins(struct ocpu *o)
{
	if (!o->py)
		return;
	for (unsigned i = 0; i < o->nthreads; i++) {
		struct othread *t = &o->threads[i];
		if (t->py_pending) {
			t->py_pending = false;
			read_chain(o, t);
		}
	}
}

static bool is_eval(const struct agg *a, uint32_t loc)
{
	return !strncmp(agg_func_name(a, agg_loc_func(a, loc)), EVAL_FUNC, strlen(EVAL_FUNC));
}

unsigned oc_py_merge(struct ocpu *o, struct othread *t, uint32_t *fr, unsigned n)
{
	uint32_t out[SAMP_MAX_FRAMES];
	unsigned m = 0, p = 0;
	const struct oc_py *py = t->py;

	if (!o->py || !t->py_thread)
		return n;
	if (!py) {
		o->py_unread++;
		return n;
	}
	if (!py->n)
		return n; /* no Python frame in it when it blocked */
	o->py_blocks++;
	/* Each eval loop of the native stack (leaf first) is the Python
	 * frames of one C-level call: those up to the next entry frame. */
	for (unsigned i = 0; i < n && m < SAMP_MAX_FRAMES; i++) {
		if (p < py->n && is_eval(o->s.agg, fr[i])) {
			bool entry;
			do {
				entry = py->fr[p] & OC_PY_ENTRY;
				out[m++] = py->fr[p++] & ~OC_PY_ENTRY;
			} while (!entry && p < py->n && m < SAMP_MAX_FRAMES);
			continue;
		}
		out[m++] = fr[i];
	}
	/* The rest outermost (the native stack ended early, or its eval
	 * loops are not named). */
	while (p < py->n && m < SAMP_MAX_FRAMES)
		out[m++] = py->fr[p++] & ~OC_PY_ENTRY;
	memcpy(fr, out, m * sizeof(*fr));
	return m;
}
