/* The timeline's bounded ring (timeline.h). */
#include "time/timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int tm_tl_init(struct tm_timeline *tl, size_t cap)
{
	memset(tl, 0, sizeof(*tl));
	tl->cap = cap ? cap : 1;
	tl->v = malloc(tl->cap * sizeof(*tl->v));
	return tl->v ? 0 : -ENOMEM;
}

void tm_tl_add(struct tm_timeline *tl, const struct tm_tlev *e)
{
	if (tl->n == tl->cap) { /* full: the oldest goes */
		tl->v[tl->head] = *e;
		tl->head = (tl->head + 1) % tl->cap;
		tl->dropped++;
		return;
	}
	tl->v[(tl->head + tl->n) % tl->cap] = *e;
	tl->n++;
}

const struct tm_tlev *tm_tl_at(const struct tm_timeline *tl, size_t i)
{
	return &tl->v[(tl->head + i) % tl->cap];
}

void tm_tl_free(struct tm_timeline *tl)
{
	free(tl->v);
	memset(tl, 0, sizeof(*tl));
}
