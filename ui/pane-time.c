/* Time pane: where each thread's time went over the last second (on a
 * CPU, waiting for one, blocked and the main reasons), the process's sum,
 * and the tier the figures come from. The pane runs a time job
 * (src/time/job.c) while it is shown: it starts on the first draw and
 * stops (the BPF programs detached, the perf events closed) when another
 * pane is switched to or the screen goes away. */
#include "pane.h"
#include "draw.h"
#include "i18n.h"
#include "time-view.h"
#include "uipriv.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdlib.h>

struct time_pane {
	struct ui_time t;
	struct table tab;
	struct table_col cols[TC_N];
};

static void *time_create(void)
{
	struct time_pane *p = calloc(1, sizeof(*p));

	if (p) {
		ui_time_cols(p->cols, false);
		table_init(&p->tab, p->cols, TC_N, TC_ONCPU, true);
	}
	return p;
}

static void time_hide(void *st)
{
	struct time_pane *p = st;

	ui_time_stop(&p->t);
	p->t.have_err = false;
	table_set_count(&p->tab, 0);
}

static void time_destroy(void *st)
{
	struct time_pane *p = st;

	ui_time_stop(&p->t);
	table_free(&p->tab);
	free(p);
}

static bool time_message(void *ctx, struct ring_msg *m)
{
	struct time_pane *p = ctx;
	return ui_time_message(&p->t, m);
}

static void time_draw(void *st, const struct pane_ctx *c, int y0, int rows)
{
	struct time_pane *p = st;
	struct ui_time *t = &p->t;
	int y = y0;

	/* Shown: measure, unless the process has ended or it already failed. */
	if (!t->job.id && !t->have_err && !c->frozen && c->snap) {
		struct job_handler h = { time_message, p };
		ui_time_start(c->ui, t, &c->snap->id, &h);
	}
	if (t->stale && t->shown) {
		table_set_rows(&p->tab, (int)t->shown->nthreads, t, ui_time_cmp);
		t->stale = false;
	}
	int n = ui_time_draw_state(t, y, rows);
	if (n >= 0)
		return;
	const struct tm_snapshot *s = t->shown;
	y += ui_time_draw_source(s, y, rows - 2);
	if (y - y0 < rows)
		ui_time_draw_total(s, y++);
	table_draw(&p->tab, y, rows - (y - y0), t, ui_time_cell);
}

static bool time_key(void *st, const struct pane_ctx *c, int ch, int rows)
{
	struct time_pane *p = st;
	(void)c;
	(void)rows;
	return p->t.shown && table_key(&p->tab, ch, &p->t, ui_time_cmp);
}

static bool time_search(void *st, const char *text, int dir, bool again)
{
	struct time_pane *p = st;
	return p->t.shown &&
	       table_search_cells(&p->tab, p->tab.sel + (again ? dir : 0), dir, text, &p->t, ui_time_cell);
}

const struct pane_ops pane_time = {
	.desc = &pane_desc_time,
	.create = time_create,
	.destroy = time_destroy,
	.draw = time_draw,
	.on_key = time_key,
	.search = time_search,
	.hide = time_hide,
};
