/* The process list's columns and drawing: the header meters, the column
 * titles with the sort mark, the rows, the sort and signal menus. */
#include "list.h"
#include "draw.h"
#include "i18n.h"
#include "meters.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define B(k) (1u << (k))
/* Narrow terminals drop columns, most expendable first. */
static const unsigned col_sets[][2] = {
	{ 70, ~0u },
	{ 40, B(PSORT_PID) | B(PSORT_USER) | B(PSORT_STATE) | B(PSORT_CPU) | B(PSORT_MEM) | B(PSORT_TIME) | B(PSORT_COMMAND) },
	{ 28, B(PSORT_PID) | B(PSORT_STATE) | B(PSORT_CPU) | B(PSORT_COMMAND) },
	{ 0, B(PSORT_PID) | B(PSORT_COMMAND) },
};

/* Tab's I/O view, as htop's I/O tab: the priority, the rates, the bytes
 * read and written in all (from 100 columns). */
static const int io_columns[] = { PSORT_PID, PSORT_USER, PSORT_IO_PRIO, PSORT_IO_RATE, PSORT_IO_READ,
				  PSORT_IO_WRITE, PSORT_IO_RBYTES, PSORT_IO_WBYTES, PSORT_COMMAND };
#define B64(k) (1ull << (k))
static const unsigned long long io_sets[][2] = {
	{ 100, ~0ull },
	{ 60, ~(B64(PSORT_IO_RBYTES) | B64(PSORT_IO_WBYTES)) },
	{ 36, B64(PSORT_PID) | B64(PSORT_IO_RATE) | B64(PSORT_COMMAND) },
	{ 0, B64(PSORT_PID) | B64(PSORT_COMMAND) },
};

static void layout_columns(struct list_state *ls, int width)
{
	const struct pscope_config *cfg = &ls->ui->cfg;
	const int *cols = ls->io_view ? io_columns : cfg->columns;
	int ncols = ls->io_view ? (int)ARRAY_SIZE(io_columns) : cfg->ncolumns;
	size_t s = 0;
	int x = 0;

	if (ls->io_view)
		while (s + 1 < ARRAY_SIZE(io_sets) && width < (int)io_sets[s][0])
			s++;
	else
		while (s + 1 < ARRAY_SIZE(col_sets) && width < (int)col_sets[s][0])
			s++;
	for (int c = 0; c < PSORT_COUNT; c++)
		ls->colx[c] = -1;
	for (int i = 0; i < ncols; i++) {
		int c = cols[i];
		if (ls->io_view ? !(io_sets[s][1] & B64(c)) : !(col_sets[s][1] & B(c)))
			continue;
		int w = proc_cols[c].width;
		if (!w) /* COMMAND: the rest of the line when last */
			w = i == ncols - 1 ? (width > x ? width - x : 0) : 32;
		ls->colx[c] = x;
		ls->colw[c] = w;
		x += w + 1;
	}
}

int list_col_at(const struct list_state *ls, int x)
{
	int best = -1;
	for (int c = 0; c < PSORT_COUNT; c++)
		if (ls->colx[c] >= 0 && x >= ls->colx[c] && (best < 0 || ls->colx[c] > ls->colx[best]))
			best = c;
	return best;
}

static void draw_header_row(struct list_state *ls, int y, int width)
{
	const struct pscope_config *cfg = &ls->ui->cfg;

	draw_blank(y, 0, width, draw_attr(COL_HEADER));
	for (int c = 0; c < PSORT_COUNT; c++) {
		char t[64];
		int attr = draw_attr(COL_HEADER);
		if (ls->colx[c] < 0)
			continue;
		snprintf(t, sizeof(t), "%s", proc_sort_title((enum proc_sort)c));
		if (c == cfg->sort_key) { /* the sort mark: which way it runs */
			attr = draw_attr(COL_SELECT) | A_BOLD;
			snprintf(t, sizeof(t), "%s%s", proc_sort_title((enum proc_sort)c),
				 cfg->sort_desc ? draw_sym("\u25bd", "v") : draw_sym("\u25b3", "^"));
		}
		/* A title as wide as its column: the mark takes the gap after
		 * it (as htop's does), the title staying over its numbers. */
		int w = ls->colw[c] + (c == cfg->sort_key && draw_width(t) > ls->colw[c]);
		if (proc_cols[c].left)
			draw_text(y, ls->colx[c], w, attr, t);
		else
			draw_text_right(y, ls->colx[c], w, attr, t);
	}
}

static const char *tree_prefix(const struct list_state *ls, const struct proc_view_row *vr, char *buf, size_t size)
{
	const struct proc_row *r = vr->r;
	size_t o = 0;

	buf[0] = '\0';
	for (int d = 1; d < vr->depth && o + 8 < size; d++) {
		bool more = d <= 32 && (vr->tree_more & (1u << (d - 1)));
		o += (size_t)snprintf(buf + o, size - o, "%s", more ? draw_sym("\u2502  ", "|  ") : "   ");
	}
	bool folded = id_set_has(&ls->collapsed, r->pid, r->starttime);
	if (vr->depth > 0 && o + 8 < size)
		o += (size_t)snprintf(buf + o, size - o, "%s%s",
				      vr->tree_last ? draw_sym("\u2514", "`") : draw_sym("\u251c", "|"),
				      folded ? "+ " : draw_sym("\u2500 ", "- "));
	else if (folded && o + 3 < size)
		snprintf(buf + o, size - o, "+ ");
	return buf;
}

/* The extras (and SHR) the columns shown need: the source reads them for
 * the rows on screen. */
static unsigned shown_extras(const struct list_state *ls)
{
	unsigned px = 0;

	for (int c = 0; c < PSORT_COUNT; c++)
		if (ls->colx[c] >= 0)
			px |= proc_sort_extra((enum proc_sort)c);
	return px;
}

/* The CPU_HIST cell of r: its CPU% over the last w ticks, a glyph a tick,
 * the newest on the right, on a scale of one CPU (a full block: one CPU or
 * more); blanks before its history starts. */
static const char *cpu_graph(const struct snap_list *s, const struct proc_row *r, int w)
{
	static char buf[HIST_LEN * 4 + 1];
	long i = pid_index_find(&s->ix, s->rows, r->pid);
	const float *h = i >= 0 ? snap_list_hist(s, (size_t)i) : NULL;

	if (w > HIST_LEN)
		w = HIST_LEN;
	if (!h || w <= 0)
		return "";
	return draw_sparkline(h + HIST_LEN - w, w, 100, w, buf, sizeof(buf));
}

static void draw_row(struct list_state *ls, int y, const struct proc_view_row *vr, bool sel, int width)
{
	const struct pscope_config *cfg = &ls->ui->cfg;
	const struct proc_row *r = vr->r;
	bool tagged = id_set_has(&ls->tags, r->pid, r->starttime);
	int base = sel ? draw_attr(COL_SELECT) : tagged ? (int)(draw_attr(COL_WARN) | A_BOLD) : draw_attr(COL_NORMAL);
	char b[64];

	draw_blank(y, 0, width, base);
	for (int c = 0; c < PSORT_COUNT; c++) {
		int x = ls->colx[c], w = ls->colw[c], attr = base;
		const char *t;
		if (x < 0)
			continue;
		if (c == PSORT_COMMAND) {
			char pfx[256], cmd[4200];
			int n = 0;
			if (cfg->tree)
				n = draw_text_skip(y, x, w, sel || tagged ? base : draw_attr(COL_DIM),
						   tree_prefix(ls, vr, pfx, sizeof(pfx)), ls->tab.hscroll);
			int skip = ls->tab.hscroll - (cfg->tree ? draw_width(pfx) : 0);
			if (!sel && !tagged && (r->is_kthread || r->is_thread))
				attr = draw_attr(COL_DIM);
			else if (!sel && !tagged && r->fresh && ls->snap->interval > 0)
				attr = draw_attr(COL_NEW);
			draw_text_skip(y, x + n, w - n, attr, proc_row_command_shown(r, cmd, sizeof(cmd)), skip > 0 ? skip : 0);
			continue;
		}
		if (c == PSORT_CPU_HIST) {
			draw_text(y, x, w, sel || tagged ? base : draw_attr(COL_METER_USER), cpu_graph(ls->snap, r, w));
			continue;
		}
		t = proc_row_cell(&ls->snap->times, r, (enum proc_sort)c, b, sizeof(b));
		if (c == PSORT_STATE && !sel && !tagged) {
			if (r->state == 'R')
				attr = draw_attr(COL_GOOD) | A_BOLD;
			else if (r->state == 'D' || r->state == 'Z')
				attr = draw_attr(COL_ERROR) | A_BOLD;
		}
		if (proc_cols[c].left)
			draw_text(y, x, w, attr, t);
		else
			draw_text_right(y, x, w, attr, t);
	}
}

/* Right stops where the longest command line on screen (with its tree
 * prefix) ends in its column. */
static void fit_hscroll(struct list_state *ls, int body)
{
	char pfx[256], cmd[4200];
	int widest = 0;

	if (ls->tab.hscroll <= 0 || ls->colx[PSORT_COMMAND] < 0)
		return;
	for (int i = 0; i < body && ls->tab.top + i < (int)ls->view.n; i++) {
		const struct proc_view_row *vr = &ls->view.v[ls->tab.top + i];
		int w = draw_width(proc_row_command_shown(vr->r, cmd, sizeof(cmd)));
		if (ls->ui->cfg.tree)
			w += draw_width(tree_prefix(ls, vr, pfx, sizeof(pfx)));
		widest = w > widest ? w : widest;
	}
	table_hscroll_fit(&ls->tab.hscroll, widest, ls->colw[PSORT_COMMAND]);
}

static void draw_menu(struct list_state *ls, int y, int rows)
{
	int w = 22, n = ls->mode == MODE_SORT ? PSORT_COUNT : ls->mode == MODE_USER ? (int)ls->nusers + 1 : list_nsignals;
	const char *title = ls->mode == MODE_SORT ? _("Sort by") : ls->mode == MODE_USER ? _("Show user") : _("Send signal");

	if (rows < 2)
		return;
	if (ls->mode == MODE_SIGNAL && ls->tags.n) {
		static char t[64];
		snprintf(t, sizeof(t), P_("Signal %zu tagged", "Signal %zu tagged", ls->tags.n), ls->tags.n);
		title = t;
	}
	draw_blank(y, 0, w, draw_attr(COL_HEADER));
	draw_text(y, 1, w - 1, draw_attr(COL_HEADER), title);
	table_layout(&ls->menu, y + 1, rows - 1, false);
	for (int i = 0; i + 1 < rows && ls->menu.top + i < n; i++) {
		int k = ls->menu.top + i, attr = k == ls->menu.sel ? draw_attr(COL_SELECT) : draw_attr(COL_NORMAL);
		draw_blank(y + 1 + i, 0, w, attr);
		if (ls->mode == MODE_SORT)
			draw_textf(y + 1 + i, 1, w - 2, attr, "%s%s", k == ls->ui->cfg.sort_key ? "* " : "  ",
				   proc_sort_title((enum proc_sort)k));
		else if (ls->mode == MODE_USER)
			draw_textf(y + 1 + i, 1, w - 2, attr, "%s", k ? ls->users[k - 1].name : _("All users"));
		else
			draw_textf(y + 1 + i, 1, w - 2, attr, "%2d %s", list_signals[k].sig, list_signals[k].name);
	}
}

static void make_note(struct list_state *ls, char *buf, size_t size)
{
	const struct pscope_config *cfg = &ls->ui->cfg;
	size_t o = 0;

	buf[0] = '\0';
#define ADD(...) o += (size_t)snprintf(buf + o, o < size ? size - o : 0, __VA_ARGS__)
	if (ls->paused)
		ADD("%s", _("[PAUSED] "));
	if (ls->recording && ls->snap && ls->snap->live_rec.on) {
		char sz[32];
		ADD(_("[REC %u %s] "), ls->snap->live_rec.frames, human_bytes(ls->snap->live_rec.bytes, sz, sizeof(sz)));
	}
	if (ls->io_view)
		ADD("%s", _("[I/O view: Tab back] "));
	if (ls->follow)
		ADD(_("[following %d] "), (int)ls->follow);
	if (!cfg->hide_uthreads)
		ADD("%s", _("[threads] "));
	if (!cfg->hide_kthreads)
		ADD("%s", _("[kernel threads] "));
	if (ls->tags.n)
		ADD(_("[%zu tagged] "), ls->tags.n);
	if (ls->tab.hscroll)
		ADD(_("[scrolled %d] "), ls->tab.hscroll);
	if (ls->user_set)
		ADD(_("[user %s] "), ls->user_name);
	if (ls->filter[0] && ls->mode != MODE_FILTER)
		ADD(_("[filter %s] "), ls->filter);
	if (ls->npids)
		ADD(P_("[%d PID: -p] ", "[%d PIDs: -p] ", (unsigned long)ls->npids), ls->npids);
	if (ls->colx[cfg->sort_key] < 0) /* no header to carry the sort mark */
		ADD(_("[sorted by %s%s] "), proc_sort_title((enum proc_sort)cfg->sort_key),
		    cfg->sort_desc ? draw_sym("\u25bd", "v") : draw_sym("\u25b3", "^"));
#undef ADD
}

void list_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct list_state *ls = p;
	int width = draw_cols(), y = y0, end = y0 + rows;
	char note[256];
	const struct snap_list *s = ls->snap;
	struct meters_info mi = { .sys = s ? &s->sys : NULL, .note = note, .shown = ui->cfg.meters,
				  .hist = s && ui->cfg.meter_graph ? s->meter_hist : NULL, .hist_len = HIST_LEN };

	list_sync_settings(ls);
	layout_columns(ls, width);
	ls->px_rows = shown_extras(ls);
	make_note(ls, note, sizeof(note));
	if (s)
		mi.counts = s->counts;
	if (s && s->have_sys && ui->cfg.meters) {
		int mh = meters_rows(&mi, width);
		if (rows >= mh + 6) {
			meters_draw(y, width, &mi);
			y += mh;
			if (rows >= mh + 12)
				y++;
		} else if (rows >= 6) {
			meters_draw_compact(y++, width, &mi);
		}
	}
	if (s && s->rec.on && y < end - 2)
		y = list_replay_bar(ls, y, width);
	int body = table_layout(&ls->tab, y, end - y - (ls->mode == MODE_SEARCH || ls->mode == MODE_FILTER ? 1 : 0), true);
	draw_header_row(ls, y++, width);
	fit_hscroll(ls, body);
	for (int i = 0; i < body && ls->tab.top + i < (int)ls->view.n; i++)
		draw_row(ls, y + i, &ls->view.v[ls->tab.top + i], ls->tab.top + i == ls->tab.sel, width);
	if (!ls->view.n && body > 0)
		draw_text(y, 1, width - 1, draw_attr(COL_DIM),
			  !s ? (ls->job.failed ? ls->job.error : _("reading /proc...")) :
			  ls->filter[0] || ls->user_set || ls->npids ? _("no process matches the filter") : _("no processes"));

	if (ls->mode == MODE_SORT || ls->mode == MODE_SIGNAL || ls->mode == MODE_USER)
		draw_menu(ls, ls->tab.body_y, body);
	if (ls->mode == MODE_SEARCH || ls->mode == MODE_FILTER) {
		int iy = end - 1, x;
		bool search = ls->mode == MODE_SEARCH;
		draw_blank(iy, 0, width, draw_attr(COL_TITLE));
		x = draw_text(iy, 0, width, draw_attr(COL_TITLE), search ? _("Search: ") : _("Filter: "));
		x += draw_text(iy, x, width - x,
			       search && ls->search_failed ? (int)(draw_attr(COL_ERROR) | A_BOLD) : draw_attr(COL_NORMAL),
			       search ? ls->search : ls->filter);
		int cx = x < width ? x : width - 1;
		draw_text(iy, x + 1, width - x - 1, draw_attr(COL_TITLE),
			  search ? (ls->search_failed ? _("not found   F3 next  Enter done  Esc cancel")
						      : _("F3 next  Enter done  Esc cancel"))
				 : _("Enter keep  Esc clear"));
		draw_cursor(1, iy, cx);
	}
	list_want(ls, false);
	list_drawn(ls);
}
