/* The callers/callees view of the hot-functions screen (hot-rel.h). */
#include "hot-rel.h"
#include "keys.h"
#include "draw.h"
#include "i18n.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdlib.h>

void hot_rel_init(struct hot_rel *r)
{
	*r = (struct hot_rel){ 0 };
	table_init(&r->tab, NULL, 0, 0, false);
}

static void rel_free(struct hot_rel *r)
{
	free(r->callers);
	free(r->callees);
	r->callers = r->callees = NULL;
	r->ncallers = r->ncallees = 0;
}

/* The function on line i, -1 for a title or the blank. */
static long func_at(const struct hot_rel *r, int i)
{
	int nc = (int)r->ncallers;

	if (i >= 1 && i <= nc)
		return r->callers[i - 1].func;
	if (i >= nc + 3 && i < nc + 3 + (int)r->ncallees)
		return r->callees[i - nc - 3].func;
	return -1;
}

/* Only functions are selected: step off a title or the blank in direction
 * dir (or back the other way at the end). */
static void step(struct hot_rel *r, int dir)
{
	struct table *t = &r->tab;

	for (int pass = 0; pass < 2; pass++, dir = -dir)
		for (int i = t->sel; i >= 0 && i < t->n; i += dir)
			if (func_at(r, i) >= 0) {
				table_select(t, i);
				return;
			}
}

void hot_rel_refresh(struct hot_rel *r, const struct samp_snapshot *s, enum samp_window w, pid_t tid)
{
	if (!r->open)
		return;
	rel_free(r);
	samp_view_relations(s, w, tid, r->func, &r->callers, &r->ncallers, &r->callees, &r->ncallees);
	table_set_count(&r->tab, (int)(r->ncallers + r->ncallees) + 3);
	step(r, 1);
}

void hot_rel_open(struct hot_rel *r, const struct samp_snapshot *s, enum samp_window w, pid_t tid, unsigned func)
{
	r->open = true;
	r->func = func;
	table_select(&r->tab, 0);
	hot_rel_refresh(r, s, w, tid);
}

void hot_rel_close(struct hot_rel *r)
{
	r->open = false;
	rel_free(r);
}

void hot_rel_draw(struct hot_rel *r, const struct samp_snapshot *s, unsigned long total, unsigned long self, int y0,
		  int rows)
{
	const struct samp_func *f = &s->funcs[r->func];

	char wt[32], ws[32];

	draw_blank(y0, 0, -1, draw_attr(COL_HEADER));
	if (s->unit == SAMP_UNIT_SAMPLES)
		draw_textf(y0, 0, -1, draw_attr(COL_HEADER),
			   P_(" %s (%s): in %lu sample, %lu of them its own (Enter: follow, Esc: back)",
			      " %s (%s): in %lu samples, %lu of them its own (Enter: follow, Esc: back)", total),
			   f->name, samp_module_short(f->module), total, self);
	else
		draw_textf(y0, 0, -1, draw_attr(COL_HEADER), _(" %s (%s): %s %s under it, %s its own (Enter: follow, Esc: back)"),
			   f->name, samp_module_short(f->module), samp_unit_format(s->unit, total, wt, sizeof(wt)),
			   samp_unit_key(s->unit), samp_unit_format(s->unit, self, ws, sizeof(ws)));
	int body = table_layout(&r->tab, y0, rows, true), line = 0, top = r->tab.top;
	for (int part = 0; part < 2; part++) {
		const struct samp_rel *l = part ? r->callees : r->callers;
		unsigned nl = part ? r->ncallees : r->ncallers;
		int y = y0 + 1 + line - top;
		if (line >= top && line < top + body)
			draw_textf(y, 0, -1, draw_attr(COL_GOOD) | A_BOLD, " %s%s",
				   part ? _("Callees (called by it)") : _("Callers (calling it)"), nl ? "" : _(": none sampled"));
		line++;
		for (unsigned i = 0; i < nl; i++, line++) {
			if (line < top || line >= top + body)
				continue;
			int attr = line == r->tab.sel ? draw_attr(COL_SELECT) : draw_attr(COL_NORMAL);
			const struct samp_func *g = &s->funcs[l[i].func];
			y = y0 + 1 + line - top;
			draw_blank(y, 0, -1, attr);
			const char *mod = samp_module_short(g->module);
			draw_textf(y, 0, -1, attr, mod[0] == '[' ? "   %6.1f%% %8s  %s  %s" : "   %6.1f%% %8s  %s  [%s]",
				   total ? 100.0 * (double)l[i].samples / (double)total : 0.0,
				   samp_unit_format(s->unit, l[i].samples, wt, sizeof(wt)), g->name, mod);
		}
		line++;
	}
}

/* Its keys' state: the view and what it was opened over. */
struct rel_key {
	struct hot_rel *r;
	const struct samp_snapshot *s;
	enum samp_window w;
	pid_t tid;
};

/* Enter: the caller or callee under the cursor becomes the function. */
static bool k_follow(struct ui *ui, void *st, int ch)
{
	struct rel_key *k = st;
	long f = func_at(k->r, k->r->tab.sel);

	if (f >= 0)
		hot_rel_open(k->r, k->s, k->w, k->tid, (unsigned)f);
	return true;
}

static bool k_close(struct ui *ui, void *st, int ch)
{
	struct rel_key *k = st;

	hot_rel_close(k->r);
	return true;
}

static const struct ui_key rel_keys[] = {
	UI_ALSO(k_follow, '\n', '\r', KEY_ENTER),
	UI_ALSO(k_close, 27, KEY_LEFT, KEY_BACKSPACE),
	UI_KEYS_END,
};

bool hot_rel_key(struct hot_rel *r, int ch, const struct samp_snapshot *s, enum samp_window w, pid_t tid)
{
	struct rel_key k = { r, s, w, tid };
	int before = r->tab.sel;

	if (ui_keys_dispatch(NULL, rel_keys, &k, ch) == UI_KEY_DONE)
		return true;
	if (!table_key(&r->tab, ch, NULL, NULL))
		return false;
	step(r, r->tab.sel < before ? -1 : 1);
	return true;
}
