/* The flame graph tree of a snapshot (flame.h). */
#include "sample/flame.h"
#include "hmap.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct build {
	struct samp_flame *f;
	unsigned cap;
	struct hmap children; /* (parent << 32 | key) -> node */
};

/* The child of parent for key (a function id, or a thread's TID with the
 * top bit set), made when new; FLAME_NONE on ENOMEM. */
static uint32_t child_of(struct build *b, uint32_t parent, uint32_t key, uint32_t func, pid_t tid)
{
	uint64_t k = (uint64_t)parent << 32 | key, v = hmap_get(&b->children, k);
	struct samp_flame *f = b->f;

	if (v != HMAP_NONE)
		return (uint32_t)v;
	if (f->n == b->cap) {
		unsigned cap = b->cap ? b->cap * 2 : 256;
		void *p = realloc(f->nodes, cap * sizeof(*f->nodes));
		if (!p)
			return FLAME_NONE;
		f->nodes = p;
		b->cap = cap;
	}
	if (hmap_put(&b->children, k, f->n) < 0)
		return FLAME_NONE;
	f->nodes[f->n] = (struct samp_flame_node){
		.func = func, .tid = tid, .parent = parent, .child = FLAME_NONE, .next = FLAME_NONE,
		.depth = f->nodes[parent].depth + 1,
	};
	if (f->nodes[f->n].depth > f->maxdepth)
		f->maxdepth = f->nodes[f->n].depth;
	return f->n++;
}

static const struct samp_snapshot *sort_snap;
static const struct samp_flame *sort_flame;

/* Siblings in name order: threads by TID, functions by name, module, line. */
static int cmp_nodes(const void *a, const void *b)
{
	const struct samp_flame_node *x = &sort_flame->nodes[*(const uint32_t *)a];
	const struct samp_flame_node *y = &sort_flame->nodes[*(const uint32_t *)b];
	const struct samp_func *fx, *fy;
	int c;

	if (x->func == FLAME_NONE || y->func == FLAME_NONE)
		return (x->func != FLAME_NONE) - (y->func != FLAME_NONE) ?: (x->tid > y->tid) - (x->tid < y->tid);
	fx = &sort_snap->funcs[x->func];
	fy = &sort_snap->funcs[y->func];
	if ((c = strcmp(fx->name, fy->name)))
		return c;
	if ((c = strcmp(fx->module ? fx->module : "", fy->module ? fy->module : "")))
		return c;
	return (fx->line > fy->line) - (fx->line < fy->line);
}

/* Link each node's children in name order and place them: a child starts
 * where its previous sibling ends. Parents come before their children in
 * nodes[], so one pass in order places every node. */
static int link_children(const struct samp_snapshot *s, struct samp_flame *f)
{
	uint32_t *order = malloc(f->n * sizeof(*order)), *start = calloc(f->n + 1, sizeof(*start));
	uint32_t *fill = NULL;

	if (!order || !start || !(fill = malloc((f->n + 1) * sizeof(*fill)))) {
		free(order);
		free(start);
		return -ENOMEM;
	}
	/* Children grouped by parent (a counting sort), then each group sorted. */
	for (unsigned i = 1; i < f->n; i++)
		start[f->nodes[i].parent + 1]++;
	for (unsigned i = 0; i < f->n; i++)
		start[i + 1] += start[i];
	memcpy(fill, start, (f->n + 1) * sizeof(*fill));
	for (unsigned i = 1; i < f->n; i++)
		order[fill[f->nodes[i].parent]++] = i;
	sort_snap = s;
	sort_flame = f;
	for (unsigned p = 0; p < f->n; p++) {
		uint32_t a = start[p], b = start[p + 1];
		unsigned long long x = f->nodes[p].x;
		if (b - a > 1)
			sort_array(order + a, b - a, sizeof(*order), cmp_nodes);
		for (uint32_t k = a; k < b; k++) {
			struct samp_flame_node *c = &f->nodes[order[k]];
			c->next = k + 1 < b ? order[k + 1] : FLAME_NONE;
			c->x = x;
			x += c->total;
		}
		f->nodes[p].child = a < b ? order[a] : FLAME_NONE;
	}
	free(order);
	free(start);
	free(fill);
	return 0;
}

int samp_flame_build(const struct samp_snapshot *s, enum samp_window w, pid_t tid, struct samp_flame *out)
{
	unsigned long long *counts = samp_view_stack_counts(s, w, tid);
	struct build b = { .f = out };
	int r = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->unit = s->unit;
	if (!counts || !(out->nodes = malloc(256 * sizeof(*out->nodes))))
		goto fail;
	b.cap = 256;
	out->nodes[0] = (struct samp_flame_node){ .func = FLAME_NONE, .parent = FLAME_NONE, .child = FLAME_NONE,
						  .next = FLAME_NONE };
	out->n = 1;
	for (unsigned i = 0; i < s->nstacks; i++) {
		const struct samp_stack *st = &s->stacks[i];
		uint32_t at;
		if (!counts[i] || !st->nframes)
			continue; /* as the folded files: a stack without frames has no place */
		at = child_of(&b, 0, 0x80000000u | (uint32_t)st->tid, FLAME_NONE, st->tid);
		for (unsigned j = st->nframes; at != FLAME_NONE && j-- > 0;) {
			out->nodes[at].total += counts[i];
			uint32_t fn = s->frames[st->first + j];
			at = child_of(&b, at, fn, fn, st->tid);
		}
		if (at == FLAME_NONE)
			goto fail;
		out->nodes[at].total += counts[i];
		out->nodes[at].self += counts[i];
		out->nodes[0].total += counts[i];
	}
	if ((r = link_children(s, out)) < 0)
		goto fail;
	hmap_free(&b.children);
	free(counts);
	return 0;
fail:
	hmap_free(&b.children);
	free(counts);
	samp_flame_free(out);
	return r;
}

void samp_flame_free(struct samp_flame *f)
{
	free(f->nodes);
	memset(f, 0, sizeof(*f));
}

const char *samp_flame_name(const struct samp_snapshot *s, const struct samp_flame *f, unsigned i, char *buf,
			    size_t size)
{
	const struct samp_flame_node *n = &f->nodes[i];
	const struct samp_func *fn;

	if (!i)
		return "all";
	if (n->func == FLAME_NONE) {
		snprintf(buf, size, "%s-%d", samp_thread_comm(s, n->tid),
			 s->machine ? (int)s->procs[n->tid].pid : (int)n->tid);
		return buf;
	}
	fn = &s->funcs[n->func];
	if (!(fn->flags & SAMP_F_PYTHON))
		return fn->name;
	snprintf(buf, size, "%s (%s:%d)", fn->name, fn->file ? fn->file : "?", fn->line);
	return buf;
}

unsigned long long samp_flame_match(const struct samp_snapshot *s, const struct samp_flame *f, unsigned under,
				    const char *text, unsigned char *marks)
{
	/* state[i]: 1 in the subtree, 2 also under a match already counted */
	unsigned char *state = calloc(f->n ? f->n : 1, 1);
	unsigned long long sum = 0;

	memset(marks, 0, f->n);
	if (!state || !text[0] || under >= f->n) {
		free(state);
		return 0;
	}
	state[under] = 1;
	for (unsigned i = 1; i < f->n; i++) {
		const struct samp_flame_node *n = &f->nodes[i];
		const struct samp_func *fn = n->func != FLAME_NONE ? &s->funcs[n->func] : NULL;
		char buf[64];
		const char *name = fn ? fn->name : samp_flame_name(s, f, i, buf, sizeof(buf));
		marks[i] = strcasestr(name, text) || (fn && fn->module && strcasestr(fn->module, text));
		if (i != under && state[n->parent])
			state[i] = state[n->parent];
		if (state[i] == 1 && marks[i]) {
			sum += n->total;
			state[i] = 2;
		}
	}
	free(state);
	return sum;
}

enum samp_flame_kind samp_flame_kind(const struct samp_snapshot *s, const struct samp_flame *f, unsigned i)
{
	const struct samp_flame_node *n = &f->nodes[i];
	unsigned fl;

	if (n->func == FLAME_NONE)
		return FLAME_K_THREAD;
	fl = s->funcs[n->func].flags;
	if (fl & SAMP_F_PYTHON)
		return FLAME_K_PYTHON;
	if (fl & SAMP_F_KERNEL)
		return FLAME_K_KERNEL;
	if (fl & SAMP_F_ANON)
		return FLAME_K_JIT;
	if (fl & (SAMP_F_UNKNOWN | SAMP_F_STRIPPED))
		return FLAME_K_UNKNOWN;
	return FLAME_K_NATIVE;
}

unsigned samp_flame_module_slot(const struct samp_snapshot *s, const struct samp_flame *f, unsigned i, unsigned n)
{
	const struct samp_flame_node *nd = &f->nodes[i];
	const char *m = nd->func == FLAME_NONE ? "" : s->funcs[nd->func].module;
	unsigned h = 2166136261u;

	if (!m || !n)
		return 0;
	m = samp_module_short(m);
	for (; *m; m++)
		h = (h ^ (unsigned char)*m) * 16777619u;
	return h % n;
}
