/* Views of a snapshot: the function table of a window (Self%, Total%,
 * Self% history), callers and callees of one function, samples per stack.
 * Pure functions: the UI and `pscope top` call them on immutable snapshots. */
#include "sample/sample.h"
#include "hmap.h"
#include "sample/local.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const window_names[SAMP_WIN_COUNT] = { N_("1 s"), N_("10 s"), N_("60 s"), N_("all") };
/* TRANSLATORS: the sort key in the hot screens' title ("sort self"): the
 * column sorted on, as its title reads. */
static const char *const sort_names[SAMP_SORT_COUNT] = { NC_("sort", "self"), NC_("sort", "total"), NC_("sort", "name") };

const char *samp_window_name(enum samp_window w)
{
	return (unsigned)w < SAMP_WIN_COUNT ? _(window_names[w]) : "?";
}

const char *samp_sort_name(enum samp_sort k)
{
	return (unsigned)k < SAMP_SORT_COUNT ? C_("sort", sort_names[k]) : "?";
}

static const char *const unit_keys[SAMP_UNIT_COUNT] = { "samples", "ns-blocked", "ns-syscall", "faults" };
/* TRANSLATORS: column titles of a profile's weight, at most 8 columns. */
static const char *const unit_titles[SAMP_UNIT_COUNT] = { N_("SAMPLES"), N_("BLOCKED"), N_("SYSCALL"), N_("FAULTS") };

const char *samp_unit_key(enum samp_unit u)
{
	return (unsigned)u < SAMP_UNIT_COUNT ? unit_keys[u] : "?";
}

const char *samp_unit_title(enum samp_unit u)
{
	return (unsigned)u < SAMP_UNIT_COUNT ? unit_titles[u] : "?";
}

const char *samp_unit_format(enum samp_unit u, unsigned long long w, char *buf, size_t size)
{
	double v = (double)w;

	if (u != SAMP_UNIT_NS_BLOCKED && u != SAMP_UNIT_NS_SYSCALL)
		snprintf(buf, size, "%llu", w);
	else if (v >= 1e9)
		snprintf(buf, size, "%.2fs", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, size, "%.1fms", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, size, "%.1fus", v / 1e3);
	else
		snprintf(buf, size, "%lluns", w);
	return buf;
}

const struct samp_bucket *samp_window_buckets(const struct samp_snapshot *s, enum samp_window w, unsigned *n)
{
	unsigned want = w == SAMP_WIN_1S ? 1 : w == SAMP_WIN_10S ? 10 : SAMP_HISTORY;

	if (w == SAMP_WIN_ALL) {
		*n = 1;
		return &s->all;
	}
	*n = want < s->nbuckets ? want : s->nbuckets;
	return s->buckets + (s->nbuckets - *n);
}

const char *samp_unwind_method(const struct samp_snapshot *s)
{
	if (!s->unwind_fp && !s->unwind_dwarf)
		return "none";
	if (!s->unwind_dwarf)
		return "fp";
	return s->unwind_fp ? "mixed" : "dwarf";
}

const char *samp_module_short(const char *module)
{
	if (module[0] == '[')
		return module; /* [kernel], [anon/JIT], [vdso: 42]... */
	const char *slash = strrchr(module, '/');
	return slash && slash[1] ? slash + 1 : module;
}

const char *samp_thread_comm(const struct samp_snapshot *s, pid_t tid)
{
	if (s->machine)
		return (unsigned)tid < s->nprocs && s->procs[tid].comm[0] ? s->procs[tid].comm : "?";
	for (unsigned i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid)
			return s->threads[i].comm[0] ? s->threads[i].comm : "?";
	return "?";
}

/* Calls fn(ctx, stack, count) for every (stack, count) of window w whose
 * thread passes the filter. */
static void each_count(const struct samp_snapshot *s, enum samp_window w, pid_t tid,
		       void (*fn)(void *ctx, const struct samp_stack *st, unsigned long long count), void *ctx)
{
	unsigned nb;
	const struct samp_bucket *b = samp_window_buckets(s, w, &nb);

	for (unsigned i = 0; i < nb; i++)
		for (unsigned k = 0; k < b[i].n; k++) {
			const struct samp_stack *st = &s->stacks[b[i].c[k].stack];
			if (!tid || st->tid == tid)
				fn(ctx, st, b[i].c[k].count);
		}
}

struct tally {
	const struct samp_snapshot *s;
	unsigned long *self, *total, samples;
	unsigned *mark, stamp;
};

static void tally_one(void *ctx, const struct samp_stack *st, unsigned long long count)
{
	struct tally *t = ctx;
	const unsigned *fr = t->s->frames + st->first;

	if (!st->nframes)
		return;
	t->samples += count;
	t->self[fr[0]] += count;
	t->stamp++;
	for (unsigned j = 0; j < st->nframes; j++) {
		if (t->mark[fr[j]] == t->stamp)
			continue; /* recursion: count a function once per stack */
		t->mark[fr[j]] = t->stamp;
		t->total[fr[j]] += count;
	}
}

struct sort_ctx {
	enum samp_sort key;
	const struct samp_snapshot *s;
};

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct samp_row *x = a, *y = b;
	const struct sort_ctx *sc = arg;
	int c = 0;

	switch (sc->key) {
	case SAMP_SORT_SELF:
		c = (x->self < y->self) - (x->self > y->self);
		if (!c)
			c = (x->total < y->total) - (x->total > y->total);
		break;
	case SAMP_SORT_TOTAL:
		c = (x->total < y->total) - (x->total > y->total);
		if (!c)
			c = (x->self < y->self) - (x->self > y->self);
		break;
	default:
		break;
	}
	if (!c)
		c = strcmp(sc->s->funcs[x->func].name, sc->s->funcs[y->func].name);
	if (!c)
		c = strcmp(sc->s->funcs[x->func].module, sc->s->funcs[y->func].module);
	return c;
}

int samp_view_compute(const struct samp_snapshot *s, enum samp_window w, pid_t tid, enum samp_sort sort,
		      struct samp_view *out)
{
	struct tally t = { .s = s };
	unsigned *row_of = NULL;
	int r = -ENOMEM;

	memset(out, 0, sizeof(*out));
	t.self = calloc(s->nfuncs + 1, sizeof(*t.self));
	t.total = calloc(s->nfuncs + 1, sizeof(*t.total));
	t.mark = calloc(s->nfuncs + 1, sizeof(*t.mark));
	row_of = malloc((s->nfuncs + 1) * sizeof(*row_of));
	if (!t.self || !t.total || !t.mark || !row_of)
		goto out;
	each_count(s, w, tid, tally_one, &t);
	out->samples = t.samples;
	unsigned n = 0;
	for (unsigned f = 0; f < s->nfuncs; f++)
		n += t.total[f] > 0;
	out->rows = calloc(n + 1, sizeof(*out->rows));
	if (!out->rows)
		goto out;
	for (unsigned f = 0; f < s->nfuncs; f++) {
		row_of[f] = UINT32_MAX;
		if (!t.total[f])
			continue;
		struct samp_row *row = &out->rows[out->nrows];
		row->func = f;
		row->self = t.self[f];
		row->total = t.total[f];
		row->self_pct = 100.0 * (double)row->self / (double)t.samples;
		row->total_pct = 100.0 * (double)row->total / (double)t.samples;
		for (unsigned k = 0; k < SAMP_HISTORY; k++)
			row->hist[k] = NAN;
		row_of[f] = out->nrows++;
	}
	/* Self% history: one value per closed second, newest at the end. */
	for (unsigned k = 0; k < s->nbuckets; k++) {
		const struct samp_bucket *b = &s->buckets[k];
		unsigned slot = SAMP_HISTORY - s->nbuckets + k;
		unsigned long tot = 0;
		for (unsigned i = 0; i < b->n; i++) {
			const struct samp_stack *st = &s->stacks[b->c[i].stack];
			if (!tid || st->tid == tid)
				tot += b->c[i].count;
		}
		for (unsigned r2 = 0; r2 < out->nrows; r2++)
			out->rows[r2].hist[slot] = tot ? 0.0f : NAN;
		if (!tot)
			continue;
		for (unsigned i = 0; i < b->n; i++) {
			const struct samp_stack *st = &s->stacks[b->c[i].stack];
			if ((tid && st->tid != tid) || !st->nframes)
				continue;
			unsigned ro = row_of[s->frames[st->first]];
			if (ro != UINT32_MAX)
				out->rows[ro].hist[slot] += (float)(100.0 * b->c[i].count / (double)tot);
		}
	}
	struct sort_ctx sc = { .key = sort, .s = s };
	if (out->nrows > 1)
		qsort_r(out->rows, out->nrows, sizeof(*out->rows), row_cmp, &sc);
	r = 0;
out:
	free(t.self);
	free(t.total);
	free(t.mark);
	free(row_of);
	if (r < 0)
		samp_view_free(out);
	return r;
}

void samp_view_free(struct samp_view *v)
{
	free(v->rows);
	memset(v, 0, sizeof(*v));
}

struct rel {
	const struct samp_snapshot *s;
	unsigned func;
	unsigned long *callers, *callees;
	unsigned *mark_r, *mark_e, stamp;
};

static void rel_one(void *ctx, const struct samp_stack *st, unsigned long long count)
{
	struct rel *r = ctx;
	const unsigned *fr = r->s->frames + st->first;

	r->stamp++;
	for (unsigned j = 0; j < st->nframes; j++) {
		if (fr[j] != r->func)
			continue;
		if (j + 1 < st->nframes && r->mark_r[fr[j + 1]] != r->stamp) {
			r->mark_r[fr[j + 1]] = r->stamp;
			r->callers[fr[j + 1]] += count;
		}
		if (j > 0 && r->mark_e[fr[j - 1]] != r->stamp) {
			r->mark_e[fr[j - 1]] = r->stamp;
			r->callees[fr[j - 1]] += count;
		}
	}
}

static int rel_cmp(const void *a, const void *b)
{
	const struct samp_rel *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return (x->func > y->func) - (x->func < y->func);
}

static struct samp_rel *rel_list(const unsigned long *c, unsigned nf, unsigned *n)
{
	unsigned k = 0;
	for (unsigned f = 0; f < nf; f++)
		k += c[f] > 0;
	struct samp_rel *l = calloc(k + 1, sizeof(*l));
	if (!l)
		return NULL;
	*n = 0;
	for (unsigned f = 0; f < nf; f++)
		if (c[f])
			l[(*n)++] = (struct samp_rel){ .func = f, .samples = c[f] };
	sort_array(l, *n, sizeof(*l), rel_cmp);
	return l;
}

int samp_view_relations(const struct samp_snapshot *s, enum samp_window w, pid_t tid, unsigned func,
			struct samp_rel **callers, unsigned *ncallers, struct samp_rel **callees,
			unsigned *ncallees)
{
	struct rel r = { .s = s, .func = func };
	int ret = -ENOMEM;

	*callers = *callees = NULL;
	*ncallers = *ncallees = 0;
	r.callers = calloc(s->nfuncs + 1, sizeof(*r.callers));
	r.callees = calloc(s->nfuncs + 1, sizeof(*r.callees));
	r.mark_r = calloc(s->nfuncs + 1, sizeof(*r.mark_r));
	r.mark_e = calloc(s->nfuncs + 1, sizeof(*r.mark_e));
	if (r.callers && r.callees && r.mark_r && r.mark_e) {
		each_count(s, w, tid, rel_one, &r);
		*callers = rel_list(r.callers, s->nfuncs, ncallers);
		*callees = rel_list(r.callees, s->nfuncs, ncallees);
		if (*callers && *callees) {
			ret = 0;
		} else {
			free(*callers);
			free(*callees);
			*callers = *callees = NULL;
		}
	}
	free(r.callers);
	free(r.callees);
	free(r.mark_r);
	free(r.mark_e);
	return ret;
}

struct stk {
	const struct samp_snapshot *s;
	unsigned long long *counts;
};

static void stack_one(void *ctx, const struct samp_stack *st, unsigned long long count)
{
	struct stk *k = ctx;
	k->counts[st - k->s->stacks] += count;
}

unsigned long long *samp_view_stack_counts(const struct samp_snapshot *s, enum samp_window w, pid_t tid)
{
	struct stk k = { .s = s, .counts = calloc(s->nstacks + 1, sizeof(unsigned long long)) };

	if (k.counts)
		each_count(s, w, tid, stack_one, &k);
	return k.counts;
}

unsigned long long *samp_view_func_stack_counts(const struct samp_snapshot *s, enum samp_window w, pid_t tid)
{
	unsigned long long *c = samp_view_stack_counts(s, w, tid);
	struct hmap first = { 0 }; /* hash of (tid, functions) -> the first stack of a chain of equal hashes */
	unsigned *next = c ? malloc((s->nstacks + 1) * sizeof(*next)) : NULL;

	if (!next) {
		free(c);
		return NULL;
	}
	for (unsigned i = 0; i < s->nstacks; i++) {
		const struct samp_stack *st = &s->stacks[i];
		next[i] = SAMP_NONE;
		if (!c[i])
			continue;
		uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)(uint32_t)st->tid;
		for (unsigned j = 0; j < st->nframes; j++)
			h = hmap_mix(h ^ s->frames[st->first + j]) + j;
		uint64_t at = hmap_get(&first, h);
		unsigned j = at == HMAP_NONE ? SAMP_NONE : (unsigned)at;
		for (; j != SAMP_NONE; j = next[j]) {
			const struct samp_stack *o = &s->stacks[j];
			if (o->tid == st->tid && o->nframes == st->nframes &&
			    !memcmp(s->frames + o->first, s->frames + st->first, st->nframes * sizeof(*s->frames)))
				break;
		}
		if (j != SAMP_NONE) {
			c[j] += c[i];
			c[i] = 0;
		} else {
			next[i] = at == HMAP_NONE ? SAMP_NONE : (unsigned)at;
			if (hmap_put(&first, h, i) < 0) {
				free(c);
				c = NULL;
				break;
			}
		}
	}
	hmap_free(&first);
	free(next);
	return c;
}
