/* Bounded per-key histories (hist.h). */
#include "source/hist.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int hist_push(struct hist_set *h, uint64_t key, float v)
{
	uint64_t at = hmap_get(&h->ix, key);
	struct hist_ent *e;

	if (at == HMAP_NONE) {
		if (h->n == h->cap) {
			size_t cap = h->cap ? h->cap * 2 : 256;
			struct hist_ent *ne = realloc(h->e, cap * sizeof(*ne));
			if (!ne)
				return -ENOMEM;
			h->e = ne;
			h->cap = cap;
		}
		if (hmap_put(&h->ix, key, h->n) < 0)
			return -ENOMEM;
		e = &h->e[h->n++];
		e->key = key;
		e->n = 0;
		e->gen = h->gen - 1;
	} else {
		e = &h->e[at];
	}
	if (e->gen == h->gen) { /* twice in one tick: the newest value */
		e->v[e->n - 1] = v;
		return 0;
	}
	if (e->n == HIST_LEN)
		memmove(e->v, e->v + 1, (HIST_LEN - 1) * sizeof(e->v[0]));
	else
		e->n++;
	e->v[e->n - 1] = v;
	e->gen = h->gen;
	return 0;
}

void hist_end_tick(struct hist_set *h)
{
	size_t o = 0;
	bool gone = false;

	for (size_t i = 0; i < h->n; i++) {
		if (h->e[i].gen != h->gen) {
			gone = true;
			continue;
		}
		if (o != i)
			h->e[o] = h->e[i];
		o++;
	}
	h->n = o;
	if (gone) { /* indexes moved: the index again */
		hmap_clear(&h->ix);
		for (size_t i = 0; i < h->n; i++)
			if (hmap_put(&h->ix, h->e[i].key, i) < 0) {
				h->n = i; /* out of memory: forget the rest rather than lie */
				break;
			}
	}
	h->gen++;
}

void hist_copy(const struct hist_set *h, uint64_t key, float *out)
{
	uint64_t at = hmap_get(&h->ix, key);
	unsigned n = at == HMAP_NONE ? 0 : h->e[at].n;

	for (unsigned i = 0; i < HIST_LEN - n; i++)
		out[i] = NAN;
	if (n)
		memcpy(out + HIST_LEN - n, h->e[at].v, n * sizeof(*out));
}

void hist_free(struct hist_set *h)
{
	hmap_free(&h->ix);
	free(h->e);
	memset(h, 0, sizeof(*h));
}
