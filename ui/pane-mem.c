/* Memory pane: the smaps_rollup fields and the RSS trend of the last
 * minute. smaps_rollup takes the target's mmap lock and walks its page
 * tables, so the source reads it every 5 s and only while the pane is
 * shown; the trend comes from the cheap RSS of every snapshot's header. */
#include "pane.h"
#include "draw.h"
#include "i18n.h"
#include "textview.h"
#include "proc/rollup.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TREND_SECONDS 60.0

struct mem_pane {
	struct proc_rollup r;
	bool have, kthread;
	double at;
	struct textview tv;    /* the fields, rebuilt on every draw */
};

static void *mem_create(void)
{
	struct mem_pane *p = calloc(1, sizeof(*p));

	if (p)
		textview_init(&p->tv, 0);
	return p;
}

static void mem_destroy(void *st)
{
	struct mem_pane *p = st;
	textview_free(&p->tv);
	free(p);
}

static void mem_take(void *st, const struct pane_ctx *c, struct pane_data *d)
{
	struct mem_pane *p = st;

	p->kthread = c->info->kthread;
	p->r = d->u.mem;
	p->have = true;
	p->at = (double)d->t_ns / 1e9;
}

/* RSS over the last minute as a bar chart, newest on the right. */
static void draw_trend(const struct pane_ctx *c, int y0, int h, int w)
{
	static const char *const blocks[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	const struct pane_hist *hs = c->hist;
	long lo = -1, hi = -1, *col;
	char a[32], b[32];

	if (h < 1 || w < 10 || !hs->n)
		return;
	col = calloc((size_t)w, sizeof(*col));
	if (!col)
		return;
	for (int x = 0; x < w; x++)
		col[x] = -1;
	double end = c->frozen ? hs->t[(hs->head + hs->n - 1) % PANE_HIST_MAX] : c->now;
	for (int i = 0; i < hs->n; i++) {
		int k = (hs->head + i) % PANE_HIST_MAX;
		double age = end - hs->t[k];
		if (age < 0 || age > TREND_SECONDS)
			continue;
		int x = w - 1 - (int)(age / TREND_SECONDS * (w - 1));
		col[x] = hs->rss_kb[k]; /* newest sample of the column wins */
		if (lo < 0 || hs->rss_kb[k] < lo)
			lo = hs->rss_kb[k];
		if (hi < 0 || hs->rss_kb[k] > hi)
			hi = hs->rss_kb[k];
	}
	/* Carry the last value over columns without a sample. */
	for (int x = 1; x < w; x++)
		if (col[x] < 0)
			col[x] = col[x - 1];
	/* Pad the range so a flat line sits mid-height, not at the top. */
	long pad = (hi - lo) / 4 > hi / 20 ? (hi - lo) / 4 : hi / 20;
	if (pad < 1)
		pad = 1;
	long base = lo - pad > 0 ? lo - pad : 0;
	double span = (double)(hi + pad - base);
	for (int x = 0; x < w; x++) {
		if (col[x] < 0)
			continue;
		double v = (double)(col[x] - base) / span * h * 8;
		for (int row = 0; row < h; row++) {
			int level = (int)v - row * 8;
			level = level < 0 ? 0 : level > 8 ? 8 : level;
			draw_text(y0 + h - 1 - row, x, 1, draw_attr(COL_METER_USER), blocks[level]);
		}
	}
	draw_textf(y0 + h, 0, w, draw_attr(COL_DIM), _("-%.0fs"), TREND_SECONDS);
	draw_text_right(y0 + h, 0, w, draw_attr(COL_DIM), _("now"));
	draw_textf(y0 - 1, 0, -1, A_BOLD, _("RSS, last minute: min %s  max %s"), human_bytes((unsigned long long)lo * 1024, a, sizeof(a)),
		   human_bytes((unsigned long long)hi * 1024, b, sizeof(b)));
	free(col);
}

static void mem_draw(void *st, const struct pane_ctx *c, int y0, int rows)
{
	struct mem_pane *p = st;
	int y = y0;
	int chart = rows >= 24 ? 8 : rows >= 16 ? 4 : 0;

	if (p->kthread) {
		draw_text(y0, 0, -1, draw_attr(COL_DIM), _("kernel thread: no user address space, nothing to show"));
		return;
	}
	if (!p->have) {
		draw_text(y0, 0, -1, draw_attr(COL_DIM), _("reading /proc/PID/smaps_rollup..."));
		return;
	}
	draw_textf(y++, 0, -1, draw_attr(COL_DIM), _("smaps_rollup read %.0f s ago (every 5 s while this pane is shown)"), c->now - p->at);
	int avail = rows - 1 - (chart ? chart + 3 : 0);
	textview_clear(&p->tv);
	for (int i = 0; i < RU_COUNT; i++) {
		char h[32];
		if (p->r.kb[i] < 0)
			continue;
		textview_addf(&p->tv, i == RU_RSS || i == RU_PSS ? A_BOLD : 0, NULL, "%-16s %12ld kB %8s",
			      proc_rollup_key((enum proc_rollup_field)i), p->r.kb[i],
			      human_bytes((unsigned long long)p->r.kb[i] * 1024, h, sizeof(h)));
	}
	textview_draw(&p->tv, y, avail);
	if (chart)
		draw_trend(c, y0 + rows - chart - 1, chart, draw_cols() - 1);
}

static bool mem_key(void *st, const struct pane_ctx *c, int ch, int rows)
{
	struct mem_pane *p = st;
	return textview_key(&p->tv, ch);
}

static bool mem_search(void *st, const char *text, int dir, bool again)
{
	return textview_find(&((struct mem_pane *)st)->tv, text, dir, again);
}

const struct pane_ops pane_mem = {
	.desc = &pane_desc_mem,
	.create = mem_create,
	.destroy = mem_destroy,
	.take = mem_take,
	.draw = mem_draw,
	.on_key = mem_key,
	.search = mem_search,
};
