/* Bounded per-key histories (hist.h). */
#include "source/hist.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

uint16_t hist_half(float v)
{
	uint32_t f;
	memcpy(&f, &v, sizeof(f));
	uint16_t sign = (uint16_t)(f >> 16 & 0x8000);
	int exp = (int)(f >> 23 & 0xff) - 127 + 15;
	uint32_t man = f & 0x7fffff;

	if ((f & 0x7fffffff) > 0x7f800000)
		return 0x7e00; /* NaN */
	if (exp >= 31)
		return sign | 0x7c00; /* too large: infinite */
	if (exp <= 0) { /* subnormal in half, or zero */
		if (exp < -10)
			return sign;
		man |= 0x800000;
		unsigned shift = (unsigned)(14 - exp);
		uint32_t h = man >> shift, rest = man & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rest > half || (rest == half && (h & 1)))
			h++;
		return sign | (uint16_t)h;
	}
	uint32_t h = (uint32_t)exp << 10 | man >> 13, rest = man & 0x1fff;
	if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
		h++; /* may carry into the exponent: still right, up to infinite */
	return sign | (uint16_t)h;
}

float hist_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = h >> 10 & 0x1f, man = h & 0x3ff, f;
	float v;

	if (exp == 0) { /* zero or subnormal: man * 2^-24 */
		v = (float)man / 16777216.0f;
		return sign ? -v : v;
	}
	if (exp == 31)
		f = sign | 0x7f800000 | man << 13;
	else
		f = sign | (exp - 15 + 127) << 23 | man << 13;
	memcpy(&v, &f, sizeof(v));
	return v;
}

int hist_push(struct hist_set *h, uint64_t key, float v)
{
	uint64_t at = hmap_get(&h->ix, key);
	struct hist_ent *e;

	if (at == HMAP_NONE) {
		if (h->n == h->cap) {
			size_t cap = h->cap ? h->cap + h->cap / 2 : 256; /* by half: 2300 keys take 2916 */
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
		e->v[e->n - 1] = hist_half(v);
		return 0;
	}
	if (e->n == HIST_LEN)
		memmove(e->v, e->v + 1, (HIST_LEN - 1) * sizeof(e->v[0]));
	else
		e->n++;
	e->v[e->n - 1] = hist_half(v);
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
	for (unsigned i = 0; i < n; i++)
		out[HIST_LEN - n + i] = hist_float(h->e[at].v[i]);
}

void hist_free(struct hist_set *h)
{
	hmap_free(&h->ix);
	free(h->e);
	memset(h, 0, sizeof(*h));
}
