/* Views of a machine-wide snapshot: the table by process (or by command
 * name, bpftrace's `@[comm] = count()`), and the process of each function.
 * Pure functions of the snapshot, like view.c. */
#include "sample/local.h"
#include "sample/sample.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Samples per process slot in window w: counts[nprocs] (malloc'd). */
static unsigned long *per_proc(const struct samp_snapshot *s, enum samp_window w, unsigned long *total)
{
	unsigned long *c = calloc(s->nprocs + 1, sizeof(*c));
	unsigned nb;
	const struct samp_bucket *b = samp_window_buckets(s, w, &nb);

	*total = 0;
	if (!c)
		return NULL;
	for (unsigned i = 0; i < nb; i++)
		for (unsigned k = 0; k < b[i].n; k++) {
			unsigned p = (unsigned)s->stacks[b[i].c[k].stack].tid;
			if (p < s->nprocs) {
				c[p] += b[i].c[k].count;
				*total += b[i].c[k].count;
			}
		}
	return c;
}

struct psort {
	const struct samp_snapshot *s;
	enum samp_sort key;
};

static int prow_cmp(const void *a, const void *b, void *arg)
{
	const struct samp_prow *x = a, *y = b;
	const struct psort *ps = arg;
	const struct samp_proc *px = &ps->s->procs[x->proc], *py = &ps->s->procs[y->proc];
	int c = 0;

	if (ps->key == SAMP_SORT_TOTAL)
		c = (x->cpu_proc < y->cpu_proc) - (x->cpu_proc > y->cpu_proc);
	else if (ps->key == SAMP_SORT_NAME)
		c = strcmp(px->comm, py->comm);
	if (!c)
		c = (x->samples < y->samples) - (x->samples > y->samples);
	if (!c)
		c = strcmp(px->comm, py->comm);
	if (!c)
		c = (px->pid > py->pid) - (px->pid < py->pid);
	return c;
}

int samp_view_procs(const struct samp_snapshot *s, enum samp_window w, bool by_comm, enum samp_sort sort,
		    struct samp_pview *out)
{
	unsigned long total;
	unsigned long *c = per_proc(s, w, &total);

	memset(out, 0, sizeof(*out));
	if (!c)
		return -ENOMEM;
	out->rows = calloc(s->nprocs + 1, sizeof(*out->rows));
	if (!out->rows) {
		free(c);
		return -ENOMEM;
	}
	out->samples = total;
	for (unsigned p = 0; p < s->nprocs; p++) {
		if (!c[p])
			continue;
		const struct samp_proc *q = &s->procs[p];
		struct samp_prow *r = NULL;
		if (by_comm)
			for (unsigned i = 0; i < out->nrows && !r; i++)
				if (!strcmp(s->procs[out->rows[i].proc].comm, q->comm))
					r = &out->rows[i];
		if (!r) {
			r = &out->rows[out->nrows++];
			r->proc = p;
		}
		if (c[p] > c[r->proc])
			r->proc = p; /* a name's row stands for its busiest process */
		r->nprocs++;
		r->samples += c[p];
		r->cpu_sampled += q->cpu_sampled;
		r->cpu_proc += q->cpu_proc;
	}
	for (unsigned i = 0; i < out->nrows; i++)
		out->rows[i].pct = total ? 100.0 * (double)out->rows[i].samples / (double)total : 0;
	struct psort ps = { .s = s, .key = sort };
	if (out->nrows > 1)
		qsort_r(out->rows, out->nrows, sizeof(*out->rows), prow_cmp, &ps);
	free(c);
	return 0;
}

void samp_pview_free(struct samp_pview *v)
{
	free(v->rows);
	memset(v, 0, sizeof(*v));
}

int samp_view_func_procs(const struct samp_snapshot *s, enum samp_window w, const struct samp_view *v,
			 unsigned *top, unsigned *nprocs)
{
	struct hmap m = { 0 };
	unsigned long *cnt = NULL;
	uint32_t n = 0, cap = 0;
	unsigned *row_of = malloc((s->nfuncs + 1) * sizeof(*row_of));
	unsigned long *best = calloc(v->nrows + 1, sizeof(*best));
	unsigned nb;
	const struct samp_bucket *b = samp_window_buckets(s, w, &nb);
	int r = -ENOMEM;

	if (!row_of || !best)
		goto out;
	for (unsigned f = 0; f < s->nfuncs; f++)
		row_of[f] = UINT32_MAX;
	for (unsigned i = 0; i < v->nrows; i++) {
		row_of[v->rows[i].func] = i;
		top[i] = UINT32_MAX;
		nprocs[i] = 0;
	}
	/* Samples of each (function, process), each function once a stack. */
	for (unsigned i = 0; i < nb; i++)
		for (unsigned k = 0; k < b[i].n; k++) {
			const struct samp_stack *st = &s->stacks[b[i].c[k].stack];
			const unsigned *fr = s->frames + st->first;
			for (unsigned j = 0; j < st->nframes; j++) {
				bool seen = false;
				for (unsigned q = 0; q < j && !seen; q++)
					seen = fr[q] == fr[j];
				if (seen || row_of[fr[j]] == UINT32_MAX)
					continue;
				uint64_t key = (uint64_t)fr[j] << 32 | (uint32_t)st->tid;
				uint32_t id = samp_id_get(&m, key);
				if (id == SAMP_NONE) {
					if (n == cap) {
						uint32_t nc = cap ? cap * 2 : 1024;
						unsigned long *nn = realloc(cnt, nc * sizeof(*nn));
						if (!nn)
							goto out;
						cnt = nn;
						cap = nc;
					}
					if (hmap_put(&m, key, n) < 0)
						goto out;
					id = n;
					cnt[n++] = 0;
					nprocs[row_of[fr[j]]]++;
				}
				cnt[id] += b[i].c[k].count;
				unsigned row = row_of[fr[j]];
				if (cnt[id] > best[row] ||
				    (cnt[id] == best[row] && (unsigned)st->tid < top[row])) {
					best[row] = cnt[id];
					top[row] = (unsigned)st->tid;
				}
			}
		}
	r = 0;
out:
	hmap_free(&m);
	free(cnt);
	free(row_of);
	free(best);
	return r;
}
