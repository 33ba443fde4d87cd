/* The offline half of a stack dump, shared by the live dump and cores:
 * from a snapshot (registers, a copy of each stack, the lock words), unwind
 * and symbolize every thread, find the deadlocks among them and group the
 * identical stacks. */
#include "stack/internal.h"
#include "i18n.h"
#include "stack/pyframes.h"
#include "python/python.h"
#include "golang/golang.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void stk_progress(const struct stk_opts *o, double f, const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	if (!o->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	o->progress(o->progress_arg, f, buf);
}

bool stk_cancelled(const struct stk_opts *o)
{
	return o->cancel && atomic_load_explicit(o->cancel, memory_order_relaxed);
}

static int cmp_tid(const void *a, const void *b)
{
	const struct stk_thread *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int frames_cmp(const struct stk_thread *x, const struct stk_thread *y)
{
	if (x->n_frames != y->n_frames)
		return x->n_frames < y->n_frames ? -1 : 1;
	for (size_t i = 0; i < x->n_frames; i++) {
		if (x->frames[i].pc != y->frames[i].pc)
			return x->frames[i].pc < y->frames[i].pc ? -1 : 1;
		if (x->frames[i].line != y->frames[i].line) /* Python frames */
			return x->frames[i].line < y->frames[i].line ? -1 : 1;
	}
	if (!!x->skipped != !!y->skipped)
		return x->skipped ? 1 : -1;
	return 0;
}

static const struct stk_thread *sort_base;
static int cmp_idx_frames(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = frames_cmp(&sort_base[i], &sort_base[j]);
	return c ? c : (i > j) - (i < j);
}

static int cmp_group(const void *a, const void *b)
{
	const struct stk_group *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return (x->members[0] > y->members[0]) - (x->members[0] < y->members[0]);
}

static int make_groups(struct stk_dump *d)
{
	size_t *idx = malloc((d->n_threads + 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < d->n_threads; i++)
		idx[i] = i;
	sort_base = d->threads;
	sort_array(idx, d->n_threads, sizeof(*idx), cmp_idx_frames);
	d->groups = calloc(d->n_threads + 1, sizeof(*d->groups));
	if (!d->groups) {
		free(idx);
		return -ENOMEM;
	}
	for (size_t i = 0; i < d->n_threads;) {
		size_t j = i + 1;
		while (j < d->n_threads && !frames_cmp(&d->threads[idx[i]], &d->threads[idx[j]]) &&
		       !d->threads[idx[i]].skipped)
			j++;
		struct stk_group *g = &d->groups[d->n_groups++];
		g->n = j - i;
		g->members = malloc(g->n * sizeof(size_t));
		if (!g->members)
			g->n = 0;
		else
			memcpy(g->members, idx + i, g->n * sizeof(size_t));
		i = j;
	}
	free(idx);
	sort_array(d->groups, d->n_groups, sizeof(*d->groups), cmp_group);
	for (size_t g = 0; g < d->n_groups; g++)
		for (size_t k = 0; k < d->groups[g].n; k++)
			d->threads[d->groups[g].members[k]].group = (int)g;
	return 0;
}

static bool shared_lib(const char *module)
{
	return module && (module[0] == '[' || strstr(module, ".so"));
}

/* The frame where a thread waits: past the frames of the library it is
 * in at frame 0 (the libc lock or futex internals, [vdso]); frame 0 when
 * it is in the program itself. */
static const struct stk_frame *wait_frame(const struct stk_thread *t)
{
	if (!t->n_frames)
		return NULL;
	const char *m0 = t->frames[0].sym ? t->frames[0].sym->module : NULL;
	if (!shared_lib(m0))
		return &t->frames[0];
	for (size_t i = 1; i < t->n_frames; i++) {
		const char *m = t->frames[i].sym ? t->frames[i].sym->module : NULL;
		if (m && (!m0 || strcmp(m, m0)))
			return &t->frames[i];
	}
	return &t->frames[0];
}

/* Whether t's wait in the graph is its threading.Lock's (not a mutex's). */
static bool py_edge(const struct stk_thread *t)
{
	return t->py_lock && t->py_lock_holder && t->waits_for == t->py_lock_holder && t->wait_lock == t->py_lock;
}

/* The symbol of the lock each thread blocked behind a deadlock waits on,
 * looked up once per lock (many bystanders usually wait on a few). */
static void name_behind_locks(struct stk_dump *d)
{
	for (size_t i = 0; i < d->n_threads; i++) {
		struct stk_thread *t = &d->threads[i];
		size_t j;
		if (!t->behind_cycle)
			continue;
		for (j = 0; j < i; j++)
			if (d->threads[j].behind_cycle && d->threads[j].wait_lock == t->wait_lock)
				break;
		if (py_edge(t))
			t->wait_lock_name = t->py_lock_name ? strdup(t->py_lock_name) : NULL;
		else if (j < i)
			t->wait_lock_name = d->threads[j].wait_lock_name ? strdup(d->threads[j].wait_lock_name) : NULL;
		else
			t->wait_lock_name = sym_data_name(d->syms, t->wait_lock);
	}
}

/* Where a thread waiting on a threading.Lock waits: its innermost Python
 * frame (the native ones are the interpreter's lock internals). */
static const struct stk_frame *py_wait_frame(const struct stk_thread *t)
{
	for (size_t i = 0; i < t->n_frames; i++)
		if (t->frames[i].py)
			return &t->frames[i];
	return wait_frame(t);
}

static const struct stk_frame *edge_frame(const struct stk_thread *t)
{
	return py_edge(t) ? py_wait_frame(t) : wait_frame(t);
}

static int find_deadlocks(struct stk_dump *d, const struct stk_snap *st, size_t nst, const struct stk_py_in *py)
{
	size_t n = d->n_threads;
	pid_t *tid = calloc(n + 1, sizeof(*tid)), *wf = calloc(n + 1, sizeof(*wf));
	uint64_t *addr = calloc(n + 1, sizeof(*addr));
	size_t *cyc = calloc(n + 1, sizeof(*cyc));
	int rc = -ENOMEM;

	if (!tid || !wf || !addr || !cyc)
		goto out;
	/* Before the sort by tid, threads[i] is the thread of st[i]. */
	for (size_t i = 0; i < n && i < nst; i++) {
		tid[i] = d->threads[i].tid;
		if (!st[i].futex_ok)
			continue;
		wf[i] = stk_lock_owner(st[i].futex_op, st[i].futex_words);
		addr[i] = st[i].futex_addr;
	}
	/* threading.Lock waits: no owner in the futex word, the holder from
	 * the frames. */
	stk_py_locks(d, st, nst < n ? nst : n, py, wf, addr);
	d->n_cycles = stk_lock_cycles(tid, wf, n, cyc);
	/* Threads whose wait leads into a cycle: blocked behind the deadlock. */
	size_t *behind = calloc(n + 1, sizeof(*behind));
	if (behind) {
		stk_lock_behind(tid, wf, n, cyc, behind);
		for (size_t i = 0; i < n; i++) {
			d->threads[i].waits_for = wf[i];
			d->threads[i].wait_lock = addr[i];
			d->threads[i].behind_cycle = (int)behind[i];
		}
		name_behind_locks(d);
		free(behind);
	}
	if (d->n_cycles) {
		d->cycles = calloc(d->n_cycles, sizeof(*d->cycles));
		if (!d->cycles) {
			d->n_cycles = 0;
			goto out;
		}
	}
	for (size_t c = 0; c < d->n_cycles; c++) {
		struct stk_cycle *cy = &d->cycles[c];
		size_t len = 0, start = n;
		for (size_t i = 0; i < n; i++)
			if (cyc[i] == c + 1) {
				len++;
				if (start == n)
					start = i;
			}
		cy->edges = calloc(len, sizeof(*cy->edges));
		if (!cy->edges)
			continue;
		/* In the order of the arrows, from the lowest tid. */
		size_t i = start;
		for (size_t k = 0; k < len; k++) {
			struct stk_edge *e = &cy->edges[cy->n++];
			e->tid = tid[i];
			e->waits_for_tid = wf[i];
			e->lock_addr = addr[i];
			e->py_lock = py_edge(&d->threads[i]);
			if (e->py_lock)
				e->lock_name = d->threads[i].py_lock_name ? strdup(d->threads[i].py_lock_name) : NULL;
			else
				e->lock_name = sym_data_name(d->syms, addr[i]);
			e->frame = edge_frame(&d->threads[i]);
			size_t nx = n;
			for (size_t j = 0; j < n; j++)
				if (tid[j] == wf[i])
					nx = j;
			if (nx == n)
				break;
			i = nx;
		}
	}
	rc = 0;
out:
	free(tid);
	free(wf);
	free(addr);
	free(cyc);
	return rc;
}

int stk_analyze(struct stk_dump *d, const struct stk_snap *st, size_t n, struct sym_unwinder *uw,
		const struct stk_py_in *py, const struct stk_opts *o, struct ps_error *e)
{
	int r;

	d->threads = calloc(n + 1, sizeof(*d->threads));
	if (!d->threads)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	d->n_threads = n;
	for (size_t i = 0; i < n; i++)
		d->threads[i] = st[i].t;

	/* Unwind from the copies. */
	uint64_t t1 = now_ns();
	uint64_t *pcs = malloc((size_t)o->max_frames * sizeof(*pcs));
	bool *byfp = malloc((size_t)o->max_frames * sizeof(*byfp));
	if (!pcs || !byfp) {
		free(pcs);
		free(byfp);
		return ps_error_set(e, ENOMEM, _("out of memory"));
	}
	double t_sym = 0;
	for (size_t i = 0; i < n; i++) {
		struct stk_thread *th = &d->threads[i];
		const struct stk_snap *s = &st[i];
		if (th->skipped)
			continue;
		if (i % 64 == 0) {
			if (stk_cancelled(o))
				break;
			stk_progress(o, 0.1 + 0.9 * (double)i / (double)n, _("unwinding thread %zu of %zu"), i + 1, n);
		}
		bool trunc = false;
		int nf = sym_unwind(uw, &s->regs, s->stack, s->lo, s->len, false, pcs, byfp, o->max_frames, &trunc);
		th->truncated = trunc;
		th->unwind_end = sym_unwind_end(uw);
		th->frames = calloc((size_t)nf + 1, sizeof(*th->frames));
		if (!th->frames)
			continue;
		uint64_t ts = now_ns();
		for (int k = 0; k < nf; k++) {
			th->frames[k].pc = pcs[k];
			th->frames[k].by_fp = byfp[k];
			th->frames[k].sym = sym_lookup(d->syms, pcs[k], sym_unwind_exact(uw, k));
		}
		t_sym += (double)(now_ns() - ts) / 1e6;
		th->n_frames = (size_t)nf;
		d->n_frames += (size_t)nf;
	}
	free(pcs);
	free(byfp);
	if (stk_cancelled(o))
		return ps_error_set(e, ECANCELED, _("cancelled"));
	d->symbolize_ms = t_sym;
	d->unwind_ms = (double)(now_ns() - t1) / 1e6 - t_sym;
	d->n_syms = sym_proc_count(d->syms);
	stk_jvm_classify(d);
	if (py) {
		/* Python frames in place of the eval frames; structures that
		 * make no sense leave the native frames and say why. */
		struct ps_error pe;
		r = stk_py_merge(d, st, n, py->py, py->snap, py->mem, &pe);
		if (r == -EPROTO)
			strlcpy_ps(d->py_error, pe.msg, sizeof(d->py_error));
		else if (r < 0)
			return ps_error_set(e, -r, _("out of memory"));
	}
	r = find_deadlocks(d, st, n, py);
	if (r == 0) {
		sort_array(d->threads, d->n_threads, sizeof(*d->threads), cmp_tid);
		/* Cycle edges point at frames of threads, which just moved:
		 * recompute them after the sort. */
		for (size_t c = 0; c < d->n_cycles; c++)
			for (size_t k = 0; k < d->cycles[c].n; k++)
				for (size_t i = 0; i < d->n_threads; i++)
					if (d->threads[i].tid == d->cycles[c].edges[k].tid)
						d->cycles[c].edges[k].frame = edge_frame(&d->threads[i]);
		r = make_groups(d);
	}
	if (r < 0)
		return ps_error_set(e, -r, _("out of memory"));
	return 0;
}

void stk_dump_free(struct stk_dump *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_threads; i++) {
		free(d->threads[i].frames);
		free(d->threads[i].python_name);
		free(d->threads[i].wait_lock_name);
		free(d->threads[i].py_lock_name);
	}
	free(d->threads);
	py_proc_free(d->py);
	if (d->go) {
		go_list_free(d->go);
		free(d->go);
	}
	free(d->go_groups);
	for (size_t g = 0; g < d->n_groups; g++)
		free(d->groups[g].members);
	free(d->groups);
	for (size_t c = 0; c < d->n_cycles; c++) {
		for (size_t k = 0; k < d->cycles[c].n; k++)
			free(d->cycles[c].edges[k].lock_name);
		free(d->cycles[c].edges);
	}
	free(d->cycles);
	sym_proc_free(d->syms);
	free(d);
}

char *stk_frame_where(const struct stk_frame *f, char *buf, size_t size)
{
	if (f && f->py)
		snprintf(buf, size, "%s (%s:%d)", f->py->qualname, f->py->file, f->line);
	else if (f && f->sym && f->sym->function)
		snprintf(buf, size, "%s+0x%llx", f->sym->function, (unsigned long long)f->sym->offset);
	else
		snprintf(buf, size, "??");
	return buf;
}

size_t stk_chain(const struct stk_thread *t, char *buf, size_t size)
{
	size_t off = 0;

	const struct stk_frame *from = wait_frame(t);
	size_t first = from ? (size_t)(from - t->frames) : 0;

	/* From the program's own code on: the leading frames in the module of
	 * frame 0 (futex and lock internals of libc) are the same everywhere.
	 * A thread running Python: its Python functions. */
	if (size)
		buf[0] = '\0';
	if (t->n_py) {
		for (size_t i = 0; i < t->n_frames && off + 1 < size; i++) {
			if (!t->frames[i].py)
				continue;
			int n = snprintf(buf + off, size - off, "%s%s", off ? " <- " : "", t->frames[i].py->qualname);
			if (n < 0)
				break;
			off += (size_t)n;
		}
		if (off >= size)
			off = size ? size - 1 : 0;
		return off;
	}
	for (size_t i = first; i < t->n_frames && off + 1 < size; i++) {
		const struct sym_info *s = t->frames[i].sym;
		const char *name = s && s->function ? s->function : "??";
		int n = snprintf(buf + off, size - off, "%s%s", i > first ? " <- " : "", name);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	if (off >= size)
		off = size ? size - 1 : 0;
	return off;
}
