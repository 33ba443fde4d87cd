/* The timeline's chunks and what the TUI draws from them (timeline.h):
 * the per-thread state machine over the records, the grid of cells, the
 * next long stretch. Pure: no I/O. */
#include "hmap.h"
#include "time/model.h"
#include "time/timeline.h"

#include <stdlib.h>
#include <string.h>

#define PREEMPTED 0x100 /* sched_switch's prev_state of a preempted task */

struct tm_tlchunk *tm_tlchunk_take(struct tm_timeline *tl, uint64_t t0, uint64_t t1)
{
	struct tm_tlchunk *c = malloc(sizeof(*c) + tl->n * sizeof(c->v[0]));

	if (c) {
		c->ref = 1;
		c->t0 = t0;
		c->t1 = t1;
		c->dropped = tl->dropped;
		c->sampled = tl->sampled;
		c->n = tl->n;
		for (size_t i = 0; i < tl->n; i++)
			c->v[i] = *tm_tl_at(tl, i);
	}
	tl->head = tl->n = 0;
	tl->dropped = 0;
	tl->sampled = false;
	return c;
}

struct tm_tlchunk *tm_tlchunk_get(struct tm_tlchunk *c)
{
	if (c)
		__atomic_add_fetch(&c->ref, 1, __ATOMIC_RELAXED);
	return c;
}

void tm_tlchunk_put(struct tm_tlchunk *c)
{
	if (c && __atomic_sub_fetch(&c->ref, 1, __ATOMIC_ACQ_REL) == 0)
		free(c);
}

struct wthread {
	enum tm_tl_state st;
	uint64_t since;
	int sys;
};

struct walk {
	struct hmap by_tid; /* tid -> index */
	struct wthread *t;
	pid_t *tid;
	size_t n, cap;
	const struct tm_tl_walker *w;
};

static struct wthread *wfind(struct walk *k, pid_t tid)
{
	uint64_t i = hmap_get(&k->by_tid, (uint64_t)(uint32_t)tid);

	if (i != HMAP_NONE)
		return &k->t[i];
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 16;
		struct wthread *t = realloc(k->t, cap * sizeof(*t));
		if (!t)
			return NULL;
		k->t = t;
		pid_t *d = realloc(k->tid, cap * sizeof(*d));
		if (!d)
			return NULL;
		k->tid = d;
		k->cap = cap;
	}
	if (hmap_put(&k->by_tid, (uint64_t)(uint32_t)tid, k->n) < 0)
		return NULL;
	k->t[k->n] = (struct wthread){ .st = TM_TS_UNKNOWN, .sys = -1 };
	k->tid[k->n] = tid;
	return &k->t[k->n++];
}

static pid_t wtid(const struct walk *k, const struct wthread *t)
{
	return k->tid[t - k->t];
}

/* End t's stretch at now and begin st. */
static void go(struct walk *k, struct wthread *t, uint64_t now, enum tm_tl_state st)
{
	if (now < t->since) /* another CPU's clock a little behind */
		now = t->since;
	if (t->st != TM_TS_UNKNOWN && now > t->since && k->w->stretch)
		k->w->stretch(k->w->ctx, wtid(k, t), t->st, t->sys, t->since, now);
	t->st = st;
	t->since = now;
}

static enum tm_tl_state running(const struct wthread *t)
{
	return t->sys >= 0 ? TM_TS_SYS : TM_TS_RUN;
}

static void mark(struct walk *k, pid_t tid, unsigned m, pid_t other, uint64_t t)
{
	if (k->w->mark)
		k->w->mark(k->w->ctx, tid, m, other, t);
}

static void step(struct walk *k, const struct tm_tlev *e)
{
	struct wthread *t = wfind(k, e->tid);

	if (!t)
		return;
	switch (e->kind) {
	case TM_TL_SWITCH: {
		bool asleep = e->a != 0 && !(e->a & PREEMPTED);
		unsigned hints = asleep && (e->a & 2) ? TM_H_DSTATE : 0;
		go(k, t, e->time, asleep ? TM_TS_BLOCK + tm_reason_of(t->sys, hints) : TM_TS_RUNQ);
		/* The thread switched in (another process's too: followed like
		 * the target's, drawn only when a row asks for it). */
		struct wthread *n = wfind(k, e->b);
		if (n)
			go(k, n, e->time, running(n));
		break;
	}
	case TM_TL_WAKEUP:
		if (t->st >= TM_TS_BLOCK || t->st == TM_TS_UNKNOWN)
			go(k, t, e->time, TM_TS_RUNQ);
		mark(k, e->tid, TM_TM_WOKEN, e->b, e->time);
		if (hmap_get(&k->by_tid, (uint64_t)(uint32_t)e->b) != HMAP_NONE)
			mark(k, e->b, TM_TM_WAKER, e->tid, e->time);
		break;
	case TM_TL_SYS_ENTER:
		t->sys = -1;
		go(k, t, e->time, TM_TS_SYS);
		t->sys = e->a;
		break;
	case TM_TL_SYS_EXIT:
		if (t->st != TM_TS_SYS || t->sys != e->a) /* its entry not seen */
			t->sys = e->a;
		go(k, t, e->time, TM_TS_RUN);
		t->sys = -1;
		break;
	case TM_TL_SAMPLE:
		if (t->st != TM_TS_RUN && t->st != TM_TS_SYS) /* a sample says it runs */
			go(k, t, e->time, running(t));
		mark(k, e->tid, TM_TM_SAMPLE, 0, e->time);
		break;
	case TM_TL_FAULT:
		mark(k, e->tid, TM_TM_FAULT, 0, e->time);
		break;
	}
}

void tm_tl_walk(struct tm_tlchunk *const *c, size_t nc, const struct tm_tl_walker *w)
{
	struct walk k = { .w = w };

	for (size_t i = 0; i < nc; i++)
		for (size_t j = 0; j < c[i]->n; j++)
			step(&k, &c[i]->v[j]);
	if (nc)
		for (size_t i = 0; i < k.n; i++) /* what is in progress, to the end */
			go(&k, &k.t[i], c[nc - 1]->t1, TM_TS_UNKNOWN);
	hmap_free(&k.by_tid);
	free(k.t);
	free(k.tid);
}

struct grid {
	const pid_t *tids;
	size_t ntids;
	uint64_t t0, dt;
	int ncols;
	struct tm_tlcell *out;
};

static long row_of(const struct grid *g, pid_t tid)
{
	for (size_t i = 0; i < g->ntids; i++) /* rows are the threads on screen: a few dozen */
		if (g->tids[i] == tid)
			return (long)i;
	return -1;
}

static void g_stretch(void *ctx, pid_t tid, enum tm_tl_state st, int sys, uint64_t a, uint64_t b)
{
	struct grid *g = ctx;
	long r = row_of(g, tid);
	uint64_t end = g->t0 + g->dt * (uint64_t)g->ncols;

	if (r < 0 || b <= g->t0 || a >= end)
		return;
	a = a < g->t0 ? g->t0 : a;
	b = b > end ? end : b;
	for (uint64_t col = (a - g->t0) / g->dt; col < (uint64_t)g->ncols; col++) {
		uint64_t c0 = g->t0 + col * g->dt, c1 = c0 + g->dt;
		if (c0 >= b)
			break;
		uint64_t x = (b < c1 ? b : c1) - (a > c0 ? a : c0);
		struct tm_tlcell *cell = &g->out[(size_t)r * (size_t)g->ncols + col];
		cell->ns[st] += x;
		if (st == TM_TS_SYS || st >= TM_TS_BLOCK) { /* the call it is in (a blocked one too) */
			if (sys >= 0 && (cell->sys == sys || x > cell->sys_ns)) {
				cell->sys_ns = cell->sys == sys ? cell->sys_ns + x : x;
				cell->sys = sys;
			}
		}
	}
}

static void g_mark(void *ctx, pid_t tid, unsigned m, pid_t other, uint64_t t)
{
	struct grid *g = ctx;
	long r = row_of(g, tid);

	(void)other;
	if (r < 0 || t < g->t0 || (t - g->t0) / g->dt >= (uint64_t)g->ncols)
		return;
	g->out[(size_t)r * (size_t)g->ncols + (t - g->t0) / g->dt].marks |= m;
}

void tm_tl_grid(struct tm_tlchunk *const *c, size_t nc, const pid_t *tids, size_t ntids, uint64_t t0, uint64_t dt,
		int ncols, struct tm_tlcell *out)
{
	struct grid g = { tids, ntids, t0, dt ? dt : 1, ncols, out };
	struct tm_tl_walker w = { &g, g_stretch, g_mark };

	for (size_t i = 0; i < ntids * (size_t)ncols; i++)
		out[i] = (struct tm_tlcell){ .sys = -1 };
	if (ncols > 0)
		tm_tl_walk(c, nc, &w);
}

enum tm_tl_state tm_tl_cell_state(const struct tm_tlcell *cell)
{
	enum tm_tl_state best = TM_TS_UNKNOWN;

	for (int s = TM_TS_RUN; s < TM_TS_COUNT; s++)
		if (cell->ns[s] > cell->ns[best])
			best = (enum tm_tl_state)s;
	return best;
}

struct next {
	pid_t tid;
	uint64_t t, min_ns, found, end;
	unsigned mask;
};

static void n_stretch(void *ctx, pid_t tid, enum tm_tl_state st, int sys, uint64_t a, uint64_t b)
{
	struct next *n = ctx;

	(void)sys;
	if (tid == n->tid && !n->found && a > n->t && (n->mask & (1u << st)) && b - a >= n->min_ns) {
		n->found = a;
		n->end = b;
	}
}

uint64_t tm_tl_next(struct tm_tlchunk *const *c, size_t nc, pid_t tid, uint64_t t, unsigned mask, uint64_t min_ns,
		    uint64_t *end)
{
	struct next n = { .tid = tid, .t = t, .min_ns = min_ns, .mask = mask };
	struct tm_tl_walker w = { &n, n_stretch, NULL };

	tm_tl_walk(c, nc, &w);
	if (end)
		*end = n.end;
	return n.found;
}
