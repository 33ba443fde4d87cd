/* The annotated lines of one function: a pure function of a snapshot.
 * Native functions: the address histogram's pcs of the function grouped
 * by source line (file, line, inlined function), the pcs without a line
 * table entry in one row of their address range. Python functions: one
 * function per line already (the line is part of a Python function's
 * identity), their self samples. In a window: the address histogram's
 * seconds in it, the stacks' buckets in it. Shares are of the function's
 * samples in the window. */
#include "sample/sample.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int strcmp0(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b; /* NULL last */
	return strcmp(a, b);
}

static int by_line(const void *pa, const void *pb)
{
	const struct samp_aline *a = pa, *b = pb;
	int c = strcmp0(a->file, b->file);

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	c = strcmp0(a->inlined, b->inlined);
	if (c)
		return -c; /* the function's own line before code inlined there */
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static bool same_line(const struct samp_aline *a, const struct samp_aline *b)
{
	if (!a->file || !b->file)
		return !a->file && !b->file;
	return !strcmp(a->file, b->file) && a->line == b->line && !strcmp0(a->inlined, b->inlined);
}

/* fn is name, or a copy of it the compiler made (name.constprop.0,
 * name.isra.0, name.part.0, name.cold). */
static bool named(const char *fn, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(fn, name, n) && (fn[n] == 0 || fn[n] == '.');
}

/* Self samples of every function in window w: counts[nfuncs]. */
static unsigned long long *self_counts(const struct samp_snapshot *s, enum samp_window w)
{
	unsigned long long *c = calloc(s->nfuncs ? s->nfuncs : 1, sizeof(*c));
	unsigned nb;
	const struct samp_bucket *b = samp_window_buckets(s, w, &nb);

	if (!c)
		return NULL;
	for (unsigned k = 0; k < nb; k++)
		for (unsigned i = 0; i < b[k].n; i++) {
			const struct samp_stack *st = &s->stacks[b[k].c[i].stack];
			if (st->nframes)
				c[s->frames[st->first]] += b[k].c[i].count;
		}
	return c;
}

/* Samples of every pc in window w: counts[npcs]. */
static unsigned long long *pc_counts(const struct samp_snapshot *s, enum samp_window w)
{
	unsigned long long *c = calloc(s->npcs ? s->npcs : 1, sizeof(*c));
	unsigned want = w == SAMP_WIN_1S ? 1 : w == SAMP_WIN_10S ? 10 : SAMP_HISTORY;

	if (!c)
		return NULL;
	if (w == SAMP_WIN_ALL) {
		for (unsigned i = 0; i < s->npcs; i++)
			c[i] = s->pcs[i].count;
		return c;
	}
	if (want > s->npc_buckets)
		want = s->npc_buckets;
	for (unsigned k = s->npc_buckets - want; k < s->npc_buckets; k++)
		for (unsigned i = 0; i < s->pc_buckets[k].n; i++)
			if (s->pc_buckets[k].c[i].pc < s->npcs)
				c[s->pc_buckets[k].c[i].pc] += s->pc_buckets[k].c[i].count;
	return c;
}

static int native(const struct samp_snapshot *s, enum samp_window w, const char *name, struct samp_annot *out)
{
	unsigned long long *c = calloc(s->nfuncs ? s->nfuncs : 1, sizeof(*c)), *pc = pc_counts(s, w);
	unsigned best = UINT32_MAX, n = 0;

	if (!c || !pc) {
		free(c);
		free(pc);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < s->npcs; i++) {
		unsigned f = s->pcs[i].func;
		if (f < s->nfuncs && named(s->funcs[f].name, name))
			c[f] += pc[i];
	}
	for (unsigned f = 0; f < s->nfuncs; f++)
		if (c[f] && (best == UINT32_MAX || c[f] > c[best]))
			best = f;
	if (best == UINT32_MAX) {
		free(c);
		free(pc);
		return -ENOENT;
	}
	out->func = best;
	out->samples = c[best];
	free(c);
	for (unsigned i = 0; i < s->npcs; i++)
		n += s->pcs[i].func == best && pc[i];
	out->lines = calloc(n ? n : 1, sizeof(*out->lines));
	if (!out->lines) {
		free(pc);
		return -ENOMEM;
	}
	n = 0;
	for (unsigned i = 0; i < s->npcs; i++) {
		const struct samp_pc *p = &s->pcs[i];
		if (p->func != best || !pc[i])
			continue;
		out->lines[n++] = (struct samp_aline){ .file = p->file, .line = p->file ? p->line : 0,
						       .inlined = p->file ? p->inlined : NULL, .lo = p->rel,
						       .hi = p->rel, .samples = pc[i] };
	}
	free(pc);
	sort_array(out->lines, n, sizeof(*out->lines), by_line);
	unsigned m = 0;
	for (unsigned i = 0; i < n; i++) {
		struct samp_aline *l = &out->lines[i];
		if (m && same_line(&out->lines[m - 1], l)) {
			struct samp_aline *d = &out->lines[m - 1];
			d->samples += l->samples;
			d->lo = l->lo < d->lo ? l->lo : d->lo;
			d->hi = l->hi > d->hi ? l->hi : d->hi;
		} else {
			out->lines[m++] = *l;
		}
	}
	out->nlines = m;
	return 0;
}

static int python(const struct samp_snapshot *s, enum samp_window w, const char *name, struct samp_annot *out)
{
	unsigned long long *c = self_counts(s, w);
	unsigned best = UINT32_MAX, n = 0;

	if (!c)
		return -ENOMEM;
	for (unsigned f = 0; f < s->nfuncs; f++)
		if ((s->funcs[f].flags & SAMP_F_PYTHON) && c[f] && !strcmp(s->funcs[f].name, name) &&
		    (best == UINT32_MAX || c[f] > c[best]))
			best = f;
	if (best == UINT32_MAX) {
		free(c);
		return -ENOENT;
	}
	/* Every line of that function: same name, same file. */
	const char *file = s->funcs[best].file;
	out->func = best;
	out->python = true;
	out->lines = calloc(s->nfuncs, sizeof(*out->lines));
	if (!out->lines) {
		free(c);
		return -ENOMEM;
	}
	for (unsigned f = 0; f < s->nfuncs; f++) {
		const struct samp_func *fn = &s->funcs[f];
		if (!(fn->flags & SAMP_F_PYTHON) || !c[f] || strcmp(fn->name, name) || strcmp0(fn->file, file))
			continue;
		out->lines[n++] = (struct samp_aline){ .file = fn->file, .line = fn->line, .samples = c[f] };
		out->samples += c[f];
	}
	free(c);
	sort_array(out->lines, n, sizeof(*out->lines), by_line);
	out->nlines = n;
	return 0;
}

int samp_view_annotate(const struct samp_snapshot *s, enum samp_window w, const char *name, struct samp_annot *out)
{
	memset(out, 0, sizeof(*out));
	int r = s->npcs ? native(s, w, name, out) : -ENOENT;
	if (r == -ENOENT)
		r = python(s, w, name, out);
	out->win = w;
	if (r < 0) {
		samp_annot_free(out);
		return r;
	}
	for (unsigned i = 0; i < out->nlines; i++) {
		struct samp_aline *l = &out->lines[i];
		l->pct = out->samples ? 100.0 * (double)l->samples / (double)out->samples : 0;
		if (l->samples > out->lines[out->hot].samples)
			out->hot = i;
	}
	return 0;
}

void samp_annot_free(struct samp_annot *a)
{
	free(a->lines);
	memset(a, 0, sizeof(*a));
}
