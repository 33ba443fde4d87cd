/* The one hash table (hmap.h). */
#include "hmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HMAP_MIN 16

static void fill_free(struct hmap_slot *s, size_t n)
{
	/* HMAP_NONE is every byte 0xff. */
	memset(s, 0xff, n * sizeof(*s));
}

/* Insert into a table known to have room and not to hold key. */
static void place(struct hmap *m, uint64_t key, uint64_t val)
{
	size_t i = hmap_mix(key) & (m->cap - 1);
	while (m->slots[i].val != HMAP_NONE)
		i = (i + 1) & (m->cap - 1);
	m->slots[i] = (struct hmap_slot){ .key = key, .val = val };
	m->n++;
}

static int grow(struct hmap *m)
{
	struct hmap n = { .cap = m->cap ? m->cap * 2 : HMAP_MIN };

	if (n.cap < m->cap || n.cap > SIZE_MAX / sizeof(*n.slots))
		return -ENOMEM;
	n.slots = malloc(n.cap * sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	fill_free(n.slots, n.cap);
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].val != HMAP_NONE)
			place(&n, m->slots[i].key, m->slots[i].val);
	free(m->slots);
	*m = n;
	return 0;
}

int hmap_put(struct hmap *m, uint64_t key, uint64_t val)
{
	if (val == HMAP_NONE)
		return -EINVAL;
	if (m->cap) {
		for (size_t i = hmap_mix(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
			struct hmap_slot *s = &m->slots[i];
			if (s->val == HMAP_NONE)
				break;
			if (s->key == key) {
				s->val = val;
				return 0;
			}
		}
	}
	if ((m->n + 1) * 4 > m->cap * 3 && grow(m) < 0)
		return -ENOMEM;
	place(m, key, val);
	return 0;
}

void hmap_clear(struct hmap *m)
{
	if (m->cap)
		fill_free(m->slots, m->cap);
	m->n = 0;
}

void hmap_free(struct hmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

bool hmap_next(const struct hmap *m, size_t *at, uint64_t *key, uint64_t *val)
{
	for (; *at < m->cap; (*at)++) {
		const struct hmap_slot *s = &m->slots[*at];
		if (s->val != HMAP_NONE) {
			*key = s->key;
			*val = s->val;
			(*at)++;
			return true;
		}
	}
	return false;
}
