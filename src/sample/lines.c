/* The address histogram of the perf sampler: for every user pc where a
 * sample found its thread (the leaf frame, a function's self samples),
 * how many samples, and where that pc is in the source (the DWARF line
 * table through the symbolizer: the innermost inlined code's file:line,
 * and that inlined function's name). Every function is kept, not only one
 * asked for, so a view can annotate any row of the table at once without
 * sampling again; memory is bounded by SAMP_PCS_MAX distinct pcs (a
 * function's hot code is a few dozen), past which new pcs are counted as
 * dropped and said. Kept since the start, and per second for the last
 * SAMP_HISTORY seconds (the pcs each second touched, with their counts:
 * a function's hot code is a few dozen pcs a second), copied into each
 * snapshot. */
#include "sample/session.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Count a sample of entry i in the current second too. */
static void tick(struct samp_pchist *h, unsigned i)
{
	if (!h->e[i].cur) {
		if (h->ntouched == h->ctouched) {
			unsigned cap = h->ctouched ? h->ctouched * 2 : 64;
			unsigned *t = realloc(h->touched, cap * sizeof(*t));
			if (!t)
				return; /* not in the window (since the start it is) */
			h->touched = t;
			h->ctouched = cap;
		}
		h->touched[h->ntouched++] = i;
	}
	h->e[i].cur++;
}

void samp_pchist_add(struct samp_pchist *h, struct sym_proc *sym, uint64_t pc, uint32_t func)
{
	uint64_t at = hmap_get(&h->idx, pc);

	if (at != HMAP_NONE) {
		h->e[at].count++;
		tick(h, (unsigned)at);
		return;
	}
	if (h->n >= SAMP_PCS_MAX) {
		h->dropped++;
		return;
	}
	if (h->n == h->cap) {
		unsigned cap = h->cap ? h->cap * 2 : 256;
		struct samp_pcent *e = realloc(h->e, cap * sizeof(*e));
		if (!e) {
			h->dropped++;
			return;
		}
		h->e = e;
		h->cap = cap;
	}
	const struct sym_info *si = sym_lookup(sym, pc, true);
	struct samp_pcent *e = &h->e[h->n];
	memset(e, 0, sizeof(*e));
	e->pc = pc;
	e->rel = si->rel;
	e->func = func;
	if (si->n_inl) {
		e->file = dup_or_null(si->inl[0].file);
		e->line = si->inl[0].line;
		e->inlined = dup_or_null(si->inl[0].function);
	} else {
		e->file = dup_or_null(si->file);
		e->line = si->line;
	}
	if (hmap_put(&h->idx, pc, h->n) < 0) {
		free(e->file);
		free(e->inlined);
		h->dropped++;
		return;
	}
	e->count = 1;
	h->n++;
	tick(h, h->n - 1);
}

void samp_pchist_close(struct samp_pchist *h)
{
	struct samp_pcbucket b = { 0 };

	if (h->nsec == SAMP_HISTORY) {
		free(h->sec[0].c);
		memmove(h->sec, h->sec + 1, (SAMP_HISTORY - 1) * sizeof(h->sec[0]));
		h->nsec--;
	}
	if (h->ntouched)
		b.c = malloc(h->ntouched * sizeof(*b.c));
	for (unsigned k = 0; k < h->ntouched; k++) {
		struct samp_pcent *e = &h->e[h->touched[k]];
		if (b.c)
			b.c[b.n++] = (struct samp_pccount){ h->touched[k], e->cur };
		e->cur = 0;
	}
	h->ntouched = 0;
	h->sec[h->nsec++] = b;
}

void samp_pchist_free(struct samp_pchist *h)
{
	for (unsigned i = 0; i < h->n; i++) {
		free(h->e[i].file);
		free(h->e[i].inlined);
	}
	free(h->e);
	free(h->touched);
	for (unsigned i = 0; i < h->nsec; i++)
		free(h->sec[i].c);
	hmap_free(&h->idx);
	memset(h, 0, sizeof(*h));
}

static size_t len0(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

static const char *put(char **pool, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *d = memcpy(*pool, s, n);
	*pool += n;
	return d;
}

int samp_pchist_fill(const struct samp_pchist *h, struct samp_snapshot *o)
{
	size_t bytes = 0;

	o->pcs_dropped = h->dropped;
	if (!h->n)
		return 0;
	for (unsigned i = 0; i < h->n; i++)
		bytes += len0(h->e[i].file) + len0(h->e[i].inlined);
	o->pcs = calloc(h->n, sizeof(*o->pcs));
	o->pc_strings = malloc(bytes ? bytes : 1);
	if (!o->pcs || !o->pc_strings)
		return -ENOMEM;
	char *pool = o->pc_strings;
	for (unsigned i = 0; i < h->n; i++) {
		const struct samp_pcent *e = &h->e[i];
		struct samp_pc *p = &o->pcs[i];
		p->rel = e->rel;
		p->func = e->func;
		p->line = e->line;
		p->count = e->count;
		p->file = put(&pool, e->file);
		p->inlined = put(&pool, e->inlined);
	}
	o->npcs = h->n;
	for (unsigned i = 0; i < h->nsec; i++) {
		struct samp_pcbucket *b = &o->pc_buckets[o->npc_buckets++];
		b->n = 0;
		b->c = malloc((h->sec[i].n ? h->sec[i].n : 1) * sizeof(*b->c));
		if (!b->c)
			return -ENOMEM;
		if (h->sec[i].n)
			memcpy(b->c, h->sec[i].c, h->sec[i].n * sizeof(*b->c));
		b->n = h->sec[i].n;
	}
	return 0;
}
