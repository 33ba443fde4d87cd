/* The address histogram of the perf sampler: for every user pc where a
 * sample found its thread (the leaf frame, a function's self samples),
 * how many samples, and where that pc is in the source (the DWARF line
 * table through the symbolizer: the innermost inlined code's file:line,
 * and that inlined function's name). Every function is kept, not only one
 * asked for, so a view can annotate any row of the table at once without
 * sampling again; memory is bounded by SAMP_PCS_MAX distinct pcs (a
 * function's hot code is a few dozen), past which new pcs are counted as
 * dropped and said. Kept since the start, copied into each snapshot. */
#include "sample/session.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

void samp_pchist_add(struct samp_pchist *h, struct sym_proc *sym, uint64_t pc, uint32_t func)
{
	uint64_t at = hmap_get(&h->idx, pc);

	if (at != HMAP_NONE) {
		h->e[at].count++;
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
}

void samp_pchist_free(struct samp_pchist *h)
{
	for (unsigned i = 0; i < h->n; i++) {
		free(h->e[i].file);
		free(h->e[i].inlined);
	}
	free(h->e);
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
	return 0;
}
