/* Maps pane: every mapping (range, perms, offset, device, inode, size,
 * path); 'r' adds Rss/Pss/Swap from smaps (the source reads it while
 * asked, every few seconds), 'a' shows one line per file like pmap -x. */
#include "pane.h"
#include "keys.h"
#include "draw.h"
#include "i18n.h"
#include "proc/maps.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct maps_pane {
	struct pane_data *data;        /* the read shown */
	const struct proc_maps *m;     /* its mappings */
	struct proc_map_agg *agg;
	size_t nagg;
	bool smaps, aggregate;
	struct table list, files;
};

static const struct proc_maps no_maps;

enum { M_RANGE, M_PERM, M_OFF, M_DEV, M_INODE, M_SIZE, M_RSS, M_PSS, M_SWAP, M_PATH, M_N };
static const struct table_col list_cols[M_N] = {
	[M_RANGE] = { N_("RANGE"), 25, false }, [M_PERM] = { N_("PERM"), 4, false }, [M_OFF] = { N_("OFFSET"), 8, true },
	[M_DEV] = { N_("DEV"), 5, false },      [M_INODE] = { N_("INODE"), 9, true }, [M_SIZE] = { N_("SIZE"), 6, true },
	[M_RSS] = { N_("RSS"), 6, true },       [M_PSS] = { N_("PSS"), 6, true },     [M_SWAP] = { N_("SWAP"), 6, true },
	[M_PATH] = { N_("PATH"), 0, false },
};

enum { A_COUNT, A_SIZE, A_RSS, A_PSS, A_SWAP, A_DIRTY, A_PATH, A_N };
static const struct table_col agg_cols[A_N] = {
	[A_COUNT] = { N_("MAPS"), 5, true }, [A_SIZE] = { N_("SIZE"), 7, true }, [A_RSS] = { N_("RSS"), 7, true },
	[A_PSS] = { N_("PSS"), 7, true },    [A_SWAP] = { N_("SWAP"), 7, true }, [A_DIRTY] = { N_("DIRTY"), 7, true },
	[A_PATH] = { N_("FILE"), 0, false },
};

static void *maps_create(void)
{
	struct maps_pane *p = calloc(1, sizeof(*p));
	if (p) {
		p->m = &no_maps;
		table_init(&p->list, list_cols, M_N, M_RANGE, false);
		table_init(&p->files, agg_cols, A_N, A_SIZE, true);
		p->list.hkeys = p->files.hkeys = true;
	}
	return p;
}

static void maps_destroy(void *st)
{
	struct maps_pane *p = st;
	pane_data_put(p->data);
	free(p->agg);
	table_free(&p->list);
	table_free(&p->files);
	free(p);
}

static int cmp_ull(unsigned long long a, unsigned long long b)
{
	return (a > b) - (a < b);
}

static int maps_cmp(void *st, int a, int b, int col)
{
	struct maps_pane *p = st;
	const struct proc_map *x = &p->m->v[a], *y = &p->m->v[b];
	int r = 0;

	switch (col) {
	case M_PERM: r = strcmp(x->perms, y->perms); break;
	case M_OFF: r = cmp_ull(x->offset, y->offset); break;
	case M_DEV: r = cmp_ull((unsigned long long)x->dev_major << 20 | x->dev_minor, (unsigned long long)y->dev_major << 20 | y->dev_minor); break;
	case M_INODE: r = cmp_ull(x->inode, y->inode); break;
	case M_SIZE: r = cmp_ull(x->end - x->start, y->end - y->start); break;
	case M_RSS: r = (x->rss_kb > y->rss_kb) - (x->rss_kb < y->rss_kb); break;
	case M_PSS: r = (x->pss_kb > y->pss_kb) - (x->pss_kb < y->pss_kb); break;
	case M_SWAP: r = (x->swap_kb > y->swap_kb) - (x->swap_kb < y->swap_kb); break;
	case M_PATH: r = strcmp(proc_map_name(x), proc_map_name(y)); break;
	}
	return r ? r : cmp_ull(x->start, y->start);
}

static int agg_cmp(void *st, int a, int b, int col)
{
	struct maps_pane *p = st;
	const struct proc_map_agg *x = &p->agg[a], *y = &p->agg[b];
	int r = 0;

	switch (col) {
	case A_COUNT: r = (x->count > y->count) - (x->count < y->count); break;
	case A_SIZE: r = cmp_ull(x->size_kb, y->size_kb); break;
	case A_RSS: r = (x->rss_kb > y->rss_kb) - (x->rss_kb < y->rss_kb); break;
	case A_PSS: r = (x->pss_kb > y->pss_kb) - (x->pss_kb < y->pss_kb); break;
	case A_SWAP: r = (x->swap_kb > y->swap_kb) - (x->swap_kb < y->swap_kb); break;
	case A_DIRTY: r = (x->dirty_kb > y->dirty_kb) - (x->dirty_kb < y->dirty_kb); break;
	}
	return r ? r : strcmp(x->path, y->path);
}

static void maps_take(void *st, const struct pane_ctx *c, struct pane_data *d)
{
	struct maps_pane *p = st;

	(void)c;
	pane_data_put(p->data);
	p->data = pane_data_get(d);
	p->m = &d->u.maps;
	free(p->agg);
	p->agg = NULL;
	if (proc_maps_aggregate(p->m, &p->agg, &p->nagg) < 0)
		p->nagg = 0;
	table_set_rows(&p->list, (int)p->m->n, p, maps_cmp);
	table_set_rows(&p->files, (int)p->nagg, p, agg_cmp);
}

static void maps_want(void *st, struct source_want *w)
{
	w->smaps = ((struct maps_pane *)st)->smaps;
}

static void kb_cell(long kb, char *buf, size_t size)
{
	if (kb < 0)
		snprintf(buf, size, "-");
	else
		human_bytes((unsigned long long)kb * 1024, buf, size);
}

static int list_cell(void *st, int row, int col, char *buf, size_t size)
{
	struct maps_pane *p = st;
	const struct proc_map *m = &p->m->v[row];

	switch (col) {
	case -1:
		if (m->deleted)
			return draw_attr(COL_WARN);
		return m->path[0] == '[' || !m->path[0] ? draw_attr(COL_DIM) : 0;
	case M_RANGE: snprintf(buf, size, "%012llx-%012llx", m->start, m->end); break;
	case M_PERM: snprintf(buf, size, "%s", m->perms); break;
	case M_OFF: snprintf(buf, size, "%llx", m->offset); break;
	case M_DEV: snprintf(buf, size, "%02x:%02x", m->dev_major, m->dev_minor); break;
	case M_INODE: snprintf(buf, size, "%llu", m->inode); break;
	case M_SIZE: human_bytes(m->end - m->start, buf, size); break;
	case M_RSS: kb_cell(m->rss_kb, buf, size); break;
	case M_PSS: kb_cell(m->pss_kb, buf, size); break;
	case M_SWAP: kb_cell(m->swap_kb, buf, size); break;
	case M_PATH: snprintf(buf, size, "%s", proc_map_name(m)); break;
	}
	return 0;
}

static int agg_cell(void *st, int row, int col, char *buf, size_t size)
{
	struct maps_pane *p = st;
	const struct proc_map_agg *a = &p->agg[row];

	switch (col) {
	case -1: return a->path[0] == '[' ? draw_attr(COL_DIM) : 0;
	case A_COUNT: snprintf(buf, size, "%zu", a->count); break;
	case A_SIZE: kb_cell((long)a->size_kb, buf, size); break;
	case A_RSS: kb_cell(a->rss_kb, buf, size); break;
	case A_PSS: kb_cell(a->pss_kb, buf, size); break;
	case A_SWAP: kb_cell(a->swap_kb, buf, size); break;
	case A_DIRTY: kb_cell(a->dirty_kb, buf, size); break;
	case A_PATH: snprintf(buf, size, "%s", a->path); break;
	}
	return 0;
}

static void maps_draw(void *st, const struct pane_ctx *c, int y0, int rows)
{
	struct maps_pane *p = st;
	unsigned long long total = 0;
	char sz[32];

	for (size_t i = 0; i < p->m->n; i++)
		total += p->m->v[i].end - p->m->v[i].start;
	draw_textf(y0, 0, -1, A_BOLD, _("%zu mappings (VMAs), %zu files, %s mapped   %s"), p->m->n, p->nagg,
		   human_bytes(total, sz, sizeof(sz)),
		   c->core      ? _("from the core's NT_FILE and PT_LOAD")
		   : p->smaps   ? _("[r] Rss/Pss/Swap from smaps: on (every 5 s)")
				: _("[r] Rss/Pss/Swap: off"));
	draw_text(y0 + 1, 0, -1, draw_attr(COL_DIM),
		  p->aggregate ? _("[a] per file (like pmap -x): on") : _("[a] per file (like pmap -x): off"));
	/* Without smaps the Rss/Pss/Swap columns stay out of the way. */
	static struct table_col lc[M_N], ac[A_N];
	memcpy(lc, list_cols, sizeof(lc));
	memcpy(ac, agg_cols, sizeof(ac));
	if (!p->m->smaps) {
		lc[M_RSS].width = lc[M_PSS].width = lc[M_SWAP].width = -1;
		ac[A_RSS].width = ac[A_PSS].width = ac[A_SWAP].width = ac[A_DIRTY].width = -1;
	}
	if (p->aggregate) {
		p->files.cols = ac;
		table_draw(&p->files, y0 + 2, rows - 2, p, agg_cell);
	} else {
		p->list.cols = lc;
		table_draw(&p->list, y0 + 2, rows - 2, p, list_cell);
	}
}

static bool k_smaps(struct ui *ui, void *k, int ch)
{
	struct pane_key *pk = k;
	struct maps_pane *p = pk->st;

	if (pk->c->core)
		return false; /* a core's: no smaps */
	p->smaps = !p->smaps; /* the source reads at once (want) */
	return true;
}

static bool k_aggregate(struct ui *ui, void *k, int ch)
{
	struct pane_key *pk = k;
	struct maps_pane *p = pk->st;

	p->aggregate = !p->aggregate;
	return true;
}

static const struct ui_key maps_keys[] = {
	UI_SECTION(N_("Keys")),
	UI_KEY("r", k_smaps, NULL, N_("Rss/Pss/Swap columns from smaps on/off"), 'r'),
	UI_KEY("a", k_aggregate, NULL, N_("one line per file (like pmap -x) / every mapping"), 'a'),
	UI_KEYS_END,
};

static bool maps_key(void *st, const struct pane_ctx *c, int ch, int rows)
{
	struct maps_pane *p = st;

	if (p->aggregate)
		return table_key(&p->files, ch, p, agg_cmp);
	return table_key(&p->list, ch, p, maps_cmp);
}

static bool maps_search(void *st, const char *text, int dir, bool again)
{
	struct maps_pane *p = st;
	struct table *t = p->aggregate ? &p->files : &p->list;
	return table_search_cells(t, t->sel + (again ? dir : 0), dir, text, p, p->aggregate ? agg_cell : list_cell);
}

const struct pane_ops pane_maps = {
	.desc = &pane_desc_maps,
	.create = maps_create,
	.destroy = maps_destroy,
	.take = maps_take,
	.want = maps_want,
	.draw = maps_draw,
	.keys = maps_keys,
	.on_key = maps_key,
	.search = maps_search,
};
