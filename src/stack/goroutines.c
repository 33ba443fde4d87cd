/* The goroutines of a Go process in the stack dump (internal.h,
 * stk_go_read): read from the runtime's allgs once the threads run again
 * (a goroutine that runs may have moved since; a parked one has not), and
 * their frames named with the dump's symbolizer. */
#include "stack/internal.h"
#include "golang/golang.h"
#include "python/python.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_cmp(const struct go_g *x, const struct go_g *y)
{
	if (x->status != y->status)
		return x->status < y->status ? -1 : 1;
	int c = strcmp(x->wait, y->wait);
	if (c)
		return c;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	for (size_t k = 0; k < x->n; k++)
		if (x->pcs[k] != y->pcs[k])
			return x->pcs[k] < y->pcs[k] ? -1 : 1;
	return 0;
}

static int sort_cmp(const void *a, const void *b)
{
	const struct go_g *x = a, *y = b;
	int c = g_cmp(x, y);
	return c ? c : (x->goid > y->goid) - (x->goid < y->goid);
}

static int group_cmp(const void *a, const void *b)
{
	const struct stk_go_group *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

/* Goroutines with the same state, wait reason and frames: one group. */
static void group(struct stk_dump *d)
{
	struct go_list *l = d->go;

	sort_array(l->g, l->n, sizeof(*l->g), sort_cmp);
	d->go_groups = calloc(l->n + 1, sizeof(*d->go_groups));
	if (!d->go_groups)
		return;
	for (size_t i = 0; i < l->n;) {
		size_t j = i + 1;
		while (j < l->n && !g_cmp(&l->g[i], &l->g[j]))
			j++;
		d->go_groups[d->n_go_groups++] = (struct stk_go_group){ i, j - i };
		i = j;
	}
	sort_array(d->go_groups, d->n_go_groups, sizeof(*d->go_groups), group_cmp);
}

void stk_go_read(struct stk_dump *d, int dirfd, const struct py_mem *pm)
{
	struct go_mem m = { pm->read, pm->arg };
	struct ps_error e;
	int fd = openat(dirfd, "exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(d->go_error, sizeof(d->go_error), _("goroutines not read: its executable cannot be opened (%s)"),
			 strerror(errno));
		return;
	}
	d->go = calloc(1, sizeof(*d->go));
	if (!d->go) {
		close(fd);
		strlcpy_ps(d->go_error, _("out of memory"), sizeof(d->go_error));
		return;
	}
	ps_error_clear(&e);
	int r = go_goroutines(fd, d->syms, &m, d->go, &e);
	close(fd);
	if (r < 0) {
		strlcpy_ps(d->go_error, e.msg, sizeof(d->go_error));
		go_list_free(d->go);
		free(d->go);
		d->go = NULL;
		return;
	}
	for (size_t i = 0; i < d->go->n; i++) {
		struct go_g *g = &d->go->g[i];
		for (size_t k = 0; k < g->n; k++)
			g->sym[k] = sym_lookup(d->syms, g->pcs[k], k == 0);
	}
	group(d);
}
