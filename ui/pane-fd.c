/* FDs pane: every open fd with type, flags, position and target; sockets
 * resolved through the process's own net namespace (all read by the
 * source: the fdinfo of the rows on screen, src/source/live-panes.c).
 * fds that appeared since the pane opened are highlighted; closed ones
 * stay a few seconds (of the snapshots' clock). */
#include "pane.h"
#include "draw.h"
#include "i18n.h"
#include "proc/fd.h"
#include "proc/net.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GONE_SECONDS 5.0

/* Identity of an fd slot: number + what it points at. */
struct fd_key {
	int fd;
	unsigned long long hash;
};

struct gone {
	struct proc_fd f;
	char desc[512];               /* its target as it was (its socket may be gone too) */
	double since;
};

struct fd_pane {
	struct pane_data *data;       /* the read shown */
	const struct snap_fds *cur;   /* its fds (by number) and sockets */
	struct fd_key *base;          /* at the first read: "new" is relative to it */
	size_t nbase;
	bool have_base;
	struct fd_key *prev;          /* the previous read, to notice closes */
	size_t nprev;
	struct proc_fd *prevfd;       /* full previous entries (for the gone rows) */
	struct gone *gone;
	size_t ngone, capgone;
	size_t opened, closed;        /* since the pane opened */
	unsigned char *isnew;
	struct table tab;
};

enum { C_FD, C_TYPE, C_FLAGS, C_POS, C_TARGET, C_N };
static const struct table_col cols[C_N] = {
	[C_FD] = { N_("FD"), 6, true }, [C_TYPE] = { N_("TYPE"), 8, false }, [C_FLAGS] = { N_("FLAGS"), 22, false },
	[C_POS] = { N_("POS"), 10, true }, [C_TARGET] = { N_("TARGET"), 0, false },
};

static unsigned long long hash_str(const char *s)
{
	unsigned long long h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int cmp_key(const void *a, const void *b)
{
	const struct fd_key *x = a, *y = b;
	if (x->fd != y->fd)
		return (x->fd > y->fd) - (x->fd < y->fd);
	return (x->hash > y->hash) - (x->hash < y->hash);
}

static bool fd_known(const struct fd_key *v, size_t n, const struct fd_key *k)
{
	return n && bsearch(k, v, n, sizeof(*v), cmp_key);
}

static const struct snap_fds no_fds;

static void *fd_create(void)
{
	struct fd_pane *p = calloc(1, sizeof(*p));
	if (p) {
		p->cur = &no_fds;
		table_init(&p->tab, cols, C_N, C_FD, false);
		p->tab.hkeys = true;
	}
	return p;
}

static void fd_destroy(void *st)
{
	struct fd_pane *p = st;
	pane_data_put(p->data);
	free(p->base);
	free(p->prev);
	free(p->prevfd);
	free(p->gone);
	free(p->isnew);
	table_free(&p->tab);
	free(p);
}

static const struct proc_fd *row_fd(struct fd_pane *p, int row, bool *gone)
{
	*gone = (size_t)row >= p->cur->n;
	return *gone ? &p->gone[(size_t)row - p->cur->n].f : &p->cur->v[row];
}

static int fd_cmp(void *st, int a, int b, int col)
{
	struct fd_pane *p = st;
	bool ga, gb;
	const struct proc_fd *x = row_fd(p, a, &ga), *y = row_fd(p, b, &gb);

	switch (col) {
	case C_TYPE: {
		int r = strcmp(proc_fd_type_name(x->type), proc_fd_type_name(y->type));
		if (r)
			return r;
		break;
	}
	case C_FLAGS:
		if (x->info.flags != y->info.flags)
			return x->info.flags < y->info.flags ? -1 : 1;
		break;
	case C_POS:
		if (x->info.pos != y->info.pos)
			return x->info.pos < y->info.pos ? -1 : 1;
		break;
	case C_TARGET: {
		int r = strcmp(x->target, y->target);
		if (r)
			return r;
		break;
	}
	}
	return (x->fd > y->fd) - (x->fd < y->fd);
}

static bool needs_all_info(const struct fd_pane *p)
{
	return p->tab.sort_col == C_FLAGS || p->tab.sort_col == C_POS;
}

static void fd_take(void *st, const struct pane_ctx *c, struct pane_data *d)
{
	struct fd_pane *p = st;
	const struct snap_fds *cur = &d->u.fd;
	double now = (double)d->t_ns / 1e9;

	if (d->more && p->data && p->data->t_ns == d->t_ns) {
		/* The same read with more fdinfo: the same rows. */
		pane_data_put(p->data);
		p->data = pane_data_get(d);
		p->cur = cur;
		table_set_rows(&p->tab, p->tab.n, p, fd_cmp);
		return;
	}
	struct fd_key *keys = malloc((cur->n ? cur->n : 1) * sizeof(*keys));
	unsigned char *isnew = calloc(cur->n ? cur->n : 1, 1);
	if (!keys || !isnew) {
		free(keys);
		free(isnew);
		return;
	}
	for (size_t i = 0; i < cur->n; i++) {
		keys[i].fd = cur->v[i].fd;
		keys[i].hash = hash_str(cur->v[i].target);
	}
	/* cur is sorted by fd and an fd has one target: keys are sorted. */
	if (!p->have_base) {
		p->base = malloc((cur->n ? cur->n : 1) * sizeof(*keys));
		if (p->base)
			memcpy(p->base, keys, cur->n * sizeof(*keys));
		p->nbase = p->base ? cur->n : 0;
		p->have_base = true;
	}
	for (size_t i = 0; i < cur->n; i++) {
		isnew[i] = !fd_known(p->base, p->nbase, &keys[i]);
		if (p->prev && !fd_known(p->prev, p->nprev, &keys[i]))
			p->opened++;
	}
	/* Closed since the last read: keep them visible a few seconds. */
	size_t w = 0;
	for (size_t i = 0; i < p->ngone; i++)
		if (now - p->gone[i].since < GONE_SECONDS)
			p->gone[w++] = p->gone[i];
	p->ngone = w;
	for (size_t i = 0; p->prev && i < p->nprev; i++) {
		if (fd_known(keys, cur->n, &p->prev[i]))
			continue;
		p->closed++;
		if (p->ngone == p->capgone) {
			size_t nc = p->capgone ? p->capgone * 2 : 16;
			struct gone *ng = realloc(p->gone, nc * sizeof(*ng));
			if (!ng)
				break;
			p->gone = ng;
			p->capgone = nc;
		}
		struct gone *g = &p->gone[p->ngone++];
		g->f = p->prevfd[i];
		g->since = now;
		/* its socket, as the read it was last seen in knew it */
		proc_fd_describe(&g->f, p->data ? &p->cur->net : NULL, g->desc, sizeof(g->desc));
	}
	free(p->prev);
	p->prev = keys;
	p->nprev = cur->n;
	free(p->prevfd);
	p->prevfd = malloc((cur->n ? cur->n : 1) * sizeof(*p->prevfd));
	if (p->prevfd)
		memcpy(p->prevfd, cur->v, cur->n * sizeof(*p->prevfd));
	else
		p->nprev = 0;
	free(p->isnew);
	p->isnew = isnew;
	pane_data_put(p->data);
	p->data = pane_data_get(d);
	p->cur = cur;
	table_set_rows(&p->tab, (int)(cur->n + p->ngone), p, fd_cmp);
}

static int fd_cell(void *st, int row, int col, char *buf, size_t size)
{
	struct fd_pane *p = st;
	bool gone;
	const struct proc_fd *f = row_fd(p, row, &gone);
	char tmp[512];

	switch (col) {
	case -1:
		if (gone)
			return draw_attr(COL_GONE);
		if (p->isnew[row])
			return draw_attr(COL_NEW) | A_BOLD;
		return f->deleted ? draw_attr(COL_WARN) : 0;
	case C_FD: snprintf(buf, size, "%d", f->fd); break;
	case C_TYPE: snprintf(buf, size, "%s", proc_fd_type_name(f->type)); break;
	case C_FLAGS:
		if (f->info_err)
			snprintf(buf, size, f->info_err == -EAGAIN ? "" : "?");
		else
			proc_fd_flags_str(f->info.flags, buf, size);
		break;
	case C_POS: snprintf(buf, size, "%llu", f->info.pos); break;
	case C_TARGET:
		snprintf(buf, size, "%s%s", gone ? _("(closed) ") : "",
			 gone ? p->gone[(size_t)row - p->cur->n].desc : proc_fd_describe(f, &p->cur->net, tmp, sizeof(tmp)));
		break;
	}
	return 0;
}

static void fd_draw(void *st, const struct pane_ctx *c, int y0, int rows)
{
	struct fd_pane *p = st;
	char line[512];
	size_t len = (size_t)snprintf(line, sizeof(line), P_("%zu fd:", "%zu fds:", p->cur->n), p->cur->n);

	(void)c;
	for (int t = 0; t < FDT_COUNT && len < sizeof(line); t++)
		if (p->cur->count[t])
			len += (size_t)snprintf(line + len, sizeof(line) - len, " %s %zu",
						proc_fd_type_name((enum proc_fd_type)t), p->cur->count[t]);
	draw_text(y0, 0, -1, A_BOLD, line);
	snprintf(line, sizeof(line), _("since opened: %zu new, %zu closed"), p->opened, p->closed);
	draw_text(y0 + 1, 0, -1, draw_attr(p->opened || p->closed ? COL_NEW : COL_DIM), line);
	table_draw(&p->tab, y0 + 2, rows - 2, p, fd_cell);
}

/* Sorted by flags or position, every fd's fdinfo comes (want): the rows
 * sort again when it does. */
static bool fd_key(void *st, const struct pane_ctx *c, int ch, int rows)
{
	struct fd_pane *p = st;

	(void)c;
	(void)rows;
	return table_key(&p->tab, ch, p, fd_cmp) != TABLE_KEY_NONE;
}

/* The fdinfo of the rows on screen (of every fd when sorted by flags or
 * position). */
static void fd_want(void *st, struct source_want *w)
{
	struct fd_pane *p = st;

	w->fd_all = needs_all_info(p);
	w->nfds = 0;
	for (int i = p->tab.top; i < p->tab.n && i < p->tab.top + p->tab.body_rows && w->nfds < SOURCE_ROWS_MAX; i++) {
		int row = table_row(&p->tab, i);
		if ((size_t)row < p->cur->n)
			w->fds[w->nfds++] = p->cur->v[row].fd;
	}
}

static bool fd_search(void *st, const char *text, int dir, bool again)
{
	struct fd_pane *p = st;
	return table_search_cells(&p->tab, p->tab.sel + (again ? dir : 0), dir, text, p, fd_cell);
}

const struct pane_ops pane_fd = {
	.desc = &pane_desc_fd,
	.create = fd_create,
	.destroy = fd_destroy,
	.take = fd_take,
	.want = fd_want,
	.draw = fd_draw,
	.on_key = fd_key,
	.search = fd_search,
};
