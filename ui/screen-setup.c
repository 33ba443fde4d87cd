/* F2: the settings kept in pscoperc, changed in place: sort key and
 * direction, tree, hidden kernel/userland threads, refresh delay, colour
 * scheme, the meters' style (bars or graphs) and which are shown, the
 * order of the detail panes, and the visible columns of the process list
 * with their order. Changes apply at once and are written to pscoperc
 * when pscope quits. */
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"
#include "util.h"
#include "table.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum item_kind { IT_SORT, IT_DIR, IT_TREE, IT_HIDEK, IT_HIDEU, IT_DELAY, IT_THEME, IT_MSTYLE, IT_METER, IT_PANE, IT_COLUMN };

struct item {
	enum item_kind kind;
	int arg;                   /* meter, pane slot, or column (enum proc_sort) */
};

struct setup {
	struct item items[16 + CFG_M_COUNT + PANE_COUNT + PSORT_COUNT];
	int n;
	struct table tab;          /* selection and scrolling over items[] */
	struct ui *ui;
	struct ui_search search;   /* '/': a setting or column by name */
};

static const char *const themes[] = { "default", "monochrome", "black-on-white" };
/* TRANSLATORS: the colour schemes' names in the setup screen; the name in
 * pscoperc (theme=) follows in parentheses when they differ. */
static const char *const theme_titles[] = { NC_("colour scheme", "default"), NC_("colour scheme", "monochrome"),
					    NC_("colour scheme", "black-on-white") };

static void theme_value(const char *theme, char *val, size_t size)
{
	for (int i = 0; i < (int)ARRAY_SIZE(themes); i++) {
		const char *t = C_("colour scheme", theme_titles[i]);
		if (!strcmp(theme, themes[i]) && strcmp(t, themes[i])) {
			snprintf(val, size, "%s (%s)", t, themes[i]);
			return;
		}
	}
	snprintf(val, size, "%s", theme); /* English, or a scheme of the user's own */
}
static const char *const meter_titles[CFG_M_COUNT] = { N_("CPU bars"), N_("Memory bar"), N_("Swap bar"),
						       N_("Tasks"), N_("Load average"), N_("Uptime") };

static int col_pos(const struct pscope_config *c, int col)
{
	for (int i = 0; i < c->ncolumns; i++)
		if (c->columns[i] == col)
			return i;
	return -1;
}

/* Items in order; the columns: the shown ones in their order, then the rest. */
static void build(struct setup *s, const struct pscope_config *c)
{
	static const enum item_kind fixed[] = { IT_SORT, IT_DIR, IT_TREE, IT_HIDEK, IT_HIDEU, IT_DELAY, IT_THEME, IT_MSTYLE };
	s->n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		s->items[s->n++] = (struct item){ fixed[i], 0 };
	for (int m = 0; m < CFG_M_COUNT; m++)
		s->items[s->n++] = (struct item){ IT_METER, m };
	for (int p = 0; p < PANE_COUNT; p++)
		s->items[s->n++] = (struct item){ IT_PANE, p };
	for (int i = 0; i < c->ncolumns; i++)
		s->items[s->n++] = (struct item){ IT_COLUMN, c->columns[i] };
	for (int k = 0; k < PSORT_COUNT; k++)
		if (col_pos(c, k) < 0)
			s->items[s->n++] = (struct item){ IT_COLUMN, k };
}

/* The setting's name (empty inside a group) and its value. */
static void describe(const struct ui *ui, const struct item *it, const char **name, char *val, size_t size)
{
	const struct pscope_config *c = &ui->cfg;
	const char *on = _("on"), *off = _("off");

	*name = "";
	switch (it->kind) {
	case IT_SORT: *name = _("Sort by"); snprintf(val, size, "%s", proc_sort_title((enum proc_sort)c->sort_key)); break;
	case IT_DIR: *name = _("Sort direction"); snprintf(val, size, "%s", c->sort_desc ? _("descending") : _("ascending")); break;
	case IT_TREE: *name = _("Tree view"); snprintf(val, size, "%s", c->tree ? on : off); break;
	case IT_HIDEK: *name = _("Hide kernel threads"); snprintf(val, size, "%s", c->hide_kthreads ? on : off); break;
	case IT_HIDEU: *name = _("Hide userland threads"); snprintf(val, size, "%s", c->hide_uthreads ? on : off); break;
	case IT_DELAY: *name = _("Refresh delay"); snprintf(val, size, _("%.1f s"), (double)ui->delay_tenths / 10); break;
	case IT_THEME: *name = _("Colour scheme"); theme_value(c->theme, val, size); break;
	case IT_MSTYLE:
		*name = _("Meter style");
		snprintf(val, size, "%s", c->meter_graph ? _("graphs (last ticks)") : _("bars"));
		break;
	case IT_METER:
		if (!it->arg)
			*name = _("Header meters");
		snprintf(val, size, "[%s] %s", c->meters & (1u << it->arg) ? "x" : " ", _(meter_titles[it->arg]));
		break;
	case IT_PANE:
		if (!it->arg)
			*name = _("Detail panes (order)");
		snprintf(val, size, "%d %s", it->arg + 1, _(pane_descs[c->pane_order[it->arg]]->title));
		break;
	case IT_COLUMN:
		snprintf(val, size, "[%s] %s", col_pos(c, it->arg) >= 0 ? "x" : " ", proc_sort_title((enum proc_sort)it->arg));
		break;
	}
}

static void setup_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct setup *s = p;
	char val[128];
	const char *name;

	/* The title and its keys wrap rather than lose their end on a narrow
	 * terminal (up to a quarter of the rows) */
	const char *title = _(" Setup   Up/Down choose, Space/Enter/Right change, Left back a value, [ ] or F7 F8 move, / search, Esc done");
	title += strspn(title, " ");
	int tw = draw_cols() - 1, nt = draw_wrapped(y0, 1, tw, 0, 0, title, true, 0), most = rows / 4 > 1 ? rows / 4 : 1;
	if (nt > most)
		nt = most;
	for (int i = 0; i < nt; i++)
		draw_blank(y0 + i, 0, -1, draw_attr(COL_TITLE));
	draw_wrapped(y0, 1, tw, nt, draw_attr(COL_TITLE), title, true, 0);
	y0 += nt - 1;
	rows -= nt - 1;
	/* A settings file that did not parse is never overwritten: said here,
	 * where the changes that will not be saved are made. */
	int nmsg = 0;
	if (ui->cfg_broken && rows > 4) {
		char msg[1600];
		snprintf(msg, sizeof(msg), _("%s has an error: %s. Changes made here will not be saved until it is fixed."),
			 ui->cfg_path, ui->cfg_error);
		nmsg = draw_wrapped(y0 + 1, 1, draw_cols() - 2, rows / 3, draw_attr(COL_ERROR) | A_BOLD, msg, true, 0);
		if (nmsg > rows / 3)
			nmsg = rows / 3;
		y0 += nmsg;
		rows -= nmsg;
	}
	int body = table_layout(&s->tab, y0 + 1, rows - 1, false), top = s->tab.top;
	int cols = draw_cols(), nw = cols >= 64 ? 24 : cols * 2 / 5, vw = cols - nw - 3;
	if (vw > 36)
		vw = 36;
	bool first_col = true;
	for (int i = 0; i < s->n; i++) {
		if (s->items[i].kind == IT_COLUMN && first_col) {
			first_col = false;
			if (i >= top && i - top < body)
				draw_text(y0 + 1 + i - top, 1, nw, draw_attr(COL_GOOD) | A_BOLD, _("Columns (order)"));
		}
		if (i < top || i - top >= body)
			continue;
		int y = y0 + 1 + i - top, attr = i == s->tab.sel ? draw_attr(COL_SELECT) : draw_attr(COL_NORMAL);
		describe(ui, &s->items[i], &name, val, sizeof(val));
		/* the setting's name on the left, its value on the right, where
		 * the selection bar is; a narrow terminal gives the names less */
		draw_text(y, 1, nw, draw_attr(COL_GOOD) | A_BOLD, name);
		draw_blank(y, nw + 2, vw, attr);
		draw_text(y, nw + 2, vw, attr, val);
	}
}

static void changed(struct ui *ui)
{
	ui->cfg_gen++;
	ui->dirty = true;
}

static void move_item(struct ui *ui, struct setup *s, int dir)
{
	struct pscope_config *c = &ui->cfg;
	struct item *it = &s->items[s->tab.sel];

	if (it->kind == IT_PANE) {
		int a = it->arg, b = a + dir;
		if (b < 0 || b >= PANE_COUNT)
			return;
		int t = c->pane_order[a];
		c->pane_order[a] = c->pane_order[b];
		c->pane_order[b] = t;
		table_select(&s->tab, s->tab.sel + dir);
	} else if (it->kind == IT_COLUMN) {
		int a = col_pos(c, it->arg), b = a + dir;
		if (a < 0) {
			ui_message(ui, false, "%s", _("a hidden column has no place: show it first (Space), then move it"));
			return;
		}
		if (b < 0 || b >= c->ncolumns)
			return;
		int t = c->columns[a];
		c->columns[a] = c->columns[b];
		c->columns[b] = t;
		build(s, c);
		table_set_count(&s->tab, s->n);
		table_select(&s->tab, s->tab.sel + dir);
	} else {
		ui_message(ui, false, "%s", _("only the detail panes and the shown columns can be moved"));
		return;
	}
	changed(ui);
}

static void change(struct ui *ui, struct setup *s, int dir)
{
	struct pscope_config *c = &ui->cfg;
	struct item *it = &s->items[s->tab.sel];

	switch (it->kind) {
	case IT_SORT:
		c->sort_key = (c->sort_key + PSORT_COUNT + dir) % PSORT_COUNT;
		c->sort_desc = proc_sort_desc_default((enum proc_sort)c->sort_key);
		break;
	case IT_DIR: c->sort_desc = !c->sort_desc; break;
	case IT_TREE: c->tree = !c->tree; break;
	case IT_HIDEK: c->hide_kthreads = !c->hide_kthreads; break;
	case IT_HIDEU: c->hide_uthreads = !c->hide_uthreads; break;
	case IT_DELAY: {
		long d = ui->delay_tenths;
		d += dir * (d < 10 || (d == 10 && dir < 0) ? 1 : 5);
		ui_set_delay(ui, d);
		c->delay_tenths = (int)ui->delay_tenths;
		break;
	}
	case IT_THEME: {
		int k = 0;
		for (int i = 0; i < (int)ARRAY_SIZE(themes); i++)
			if (!strcmp(c->theme, themes[i]))
				k = i;
		k = (k + (int)ARRAY_SIZE(themes) + dir) % (int)ARRAY_SIZE(themes);
		snprintf(c->theme, sizeof(c->theme), "%s", themes[k]);
		ui_apply_theme(ui);
		break;
	}
	case IT_MSTYLE: c->meter_graph = !c->meter_graph; break;
	case IT_METER: c->meters ^= 1u << it->arg; break;
	case IT_PANE: move_item(ui, s, dir); return;
	case IT_COLUMN: {
		int pos = col_pos(c, it->arg);
		if (pos >= 0) {
			if (c->ncolumns == 1) {
				ui_message(ui, true, "%s", _("the list needs at least one column"));
				return;
			}
			memmove(&c->columns[pos], &c->columns[pos + 1], (size_t)(c->ncolumns - pos - 1) * sizeof(int));
			c->ncolumns--;
		} else {
			/* shown again: before COMMAND if that is last, else at the end */
			int at = c->ncolumns;
			if (at && c->columns[at - 1] == PSORT_COMMAND)
				at--;
			memmove(&c->columns[at + 1], &c->columns[at], (size_t)(c->ncolumns - at) * sizeof(int));
			c->columns[at] = it->arg;
			c->ncolumns++;
		}
		int col = it->arg;
		build(s, c);
		table_set_count(&s->tab, s->n);
		for (int i = 0; i < s->n; i++) /* stay on that column */
			if (s->items[i].kind == IT_COLUMN && s->items[i].arg == col)
				table_select(&s->tab, i);
		break;
	}
	}
	changed(ui);
}

/* '/': a setting, a meter, a pane or a column whose name or value holds
 * the text (a group's members by the group's title too). */
static bool item_matches(void *st, int row, const char *text)
{
	struct setup *s = st;
	char val[128];
	const char *name;

	describe(s->ui, &s->items[row], &name, val, sizeof(val));
	return strcasestr(name, text) || strcasestr(val, text);
}

static bool setup_find(void *st, const char *text, int dir, bool again)
{
	struct setup *s = st;
	return table_search(&s->tab, s->tab.sel + (again ? dir : 0), dir, text, s, item_matches);
}

static bool k_next(struct ui *ui, void *p, int ch)
{
	change(ui, p, +1);
	return true;
}

static bool k_prev(struct ui *ui, void *p, int ch)
{
	change(ui, p, -1);
	return true;
}

static bool k_up(struct ui *ui, void *p, int ch)
{
	move_item(ui, p, -1);
	return true;
}

static bool k_down(struct ui *ui, void *p, int ch)
{
	move_item(ui, p, +1);
	return true;
}

static bool k_done(struct ui *ui, void *p, int ch)
{
	ui_pop(ui);
	return true;
}

/* Search and moving (arrows, pages, mouse); the screen is modal: other
 * keys do nothing. */
static bool setup_key(struct ui *ui, void *p, int ch)
{
	struct setup *s = p;

	if (!ui_search_key(ui, &s->search, ch, setup_find, s))
		table_key(&s->tab, ch, NULL, NULL);
	return true;
}

static void setup_destroy(void *p)
{
	struct setup *s = p;
	table_free(&s->tab);
	free(s);
}

static const struct ui_key setup_keys[] = {
	UI_SECTION(N_("Keys")),
	UI_KEY("Up/Down PgUp/PgDn Home/End", NULL, NULL, N_("choose a setting")),
	UI_KEY("Space, Enter, Right", k_next, N_("Change"),
	  N_("change it (next value, or on/off)"), ' ', '\n', '\r', KEY_ENTER, KEY_RIGHT),
	UI_KEY("Left", k_prev, NULL, N_("back to the previous value"), KEY_LEFT),
	{ .keys = N_("[ ]  or  F7 F8"), .codes = { '[', KEY_F(7) }, .fn = k_up, .label = N_("MoveUp"), .help = N_("move a column or a detail pane up / down"), .bar = "F7" },
	{ .codes = { ']', KEY_F(8) }, .fn = k_down, .label = N_("MoveDn"), .bar = "F8" },
	UI_KEY("/   n N", NULL, NULL, N_("find a setting or a column by name (next, previous)")),
	UI_KEY("Esc, F2, q", k_done, N_("Done"), N_("back to the list"), 27, 'q', KEY_F(2), KEY_F(10)),
	UI_LOOP("F1, ?", KEY_F(1), '?'),
	UI_KEYS_END,
};

const struct screen_ops screen_setup_ops = {
	.name = N_("Setup"),
	.help = "setup",
	.keys = setup_keys,
	.fbar = "Space F7 F8 Esc",
	.draw = setup_draw,
	.key = setup_key,
	.destroy = setup_destroy,
};

void screen_setup_open(struct ui *ui)
{
	struct setup *s = calloc(1, sizeof(*s));
	if (!s)
		return;
	s->ui = ui;
	build(s, &ui->cfg);
	table_init(&s->tab, NULL, 0, 0, false);
	table_set_count(&s->tab, s->n);
	ui_push(ui, &screen_setup_ops, s);
}
