/* The one list widget: selection, scrolling, paging, Home/End, mouse,
 * search, horizontal scroll and sorting, for every list-like view. */
#include "table.h"
#include "draw.h"
#include "i18n.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdlib.h>
#include <string.h>

void table_init(struct table *t, const struct table_col *cols, int ncols, int sort_col, bool desc)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->ncols = ncols;
	t->sort_col = sort_col;
	t->sort_desc = desc;
	t->head_y = -1;
	t->hit = -1;
}

void table_init_plain(struct table *t)
{
	table_init(t, NULL, 0, 0, false);
	t->plain = true;
}

struct sort_ctx {
	void *st;
	table_cmp_fn cmp;
	int col;
	bool desc;
};

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	int x = *(const int *)a, y = *(const int *)b;
	int r = c->cmp(c->st, x, y, c->col);

	if (c->desc)
		r = -r;
	return r ? r : (x > y) - (x < y);
}

/* Keep sel and top inside [0, n) and the selection on screen. */
static void clamp(struct table *t)
{
	int body = t->body_rows > 0 ? t->body_rows : 1;

	if (t->plain) {
		if (t->top > t->n - body)
			t->top = t->n - body;
		if (t->top < 0)
			t->top = 0;
		t->sel = t->top;
		return;
	}
	if (t->sel >= t->n)
		t->sel = t->n - 1;
	if (t->sel < 0)
		t->sel = 0;
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + body)
		t->top = t->sel - body + 1;
	if (t->top > t->n - body)
		t->top = t->n - body;
	if (t->top < 0)
		t->top = 0;
	if (t->hscroll < 0)
		t->hscroll = 0;
}

void table_set_rows(struct table *t, int n, void *st, table_cmp_fn cmp)
{
	if (n > t->cap) {
		int nc = n + n / 2 + 16;
		int *no = realloc(t->order, (size_t)nc * sizeof(*no));
		if (!no) {
			n = t->cap;
		} else {
			t->order = no;
			t->cap = nc;
		}
	}
	if (!t->order) {
		t->n = 0;
		return;
	}
	t->n = n;
	for (int i = 0; i < n; i++)
		t->order[i] = i;
	if (cmp && n > 1) {
		struct sort_ctx c = { st, cmp, t->sort_col, t->sort_desc };
		qsort_r(t->order, (size_t)n, sizeof(int), cmp_rows, &c);
	}
	clamp(t);
}

void table_set_count(struct table *t, int n)
{
	free(t->order);
	t->order = NULL;
	t->cap = 0;
	t->n = n > 0 ? n : 0;
	clamp(t);
}

int table_selected(const struct table *t)
{
	return t->n > 0 && t->sel >= 0 && t->sel < t->n ? table_row(t, t->sel) : -1;
}

void table_select(struct table *t, int pos)
{
	t->sel = pos;
	if (t->plain)
		t->top = pos;
	clamp(t);
}

int table_layout(struct table *t, int y0, int rows, bool header)
{
	t->head_y = header && rows > 0 ? y0 : -1;
	t->body_y = y0 + (header ? 1 : 0);
	t->body_rows = rows - (header ? 1 : 0);
	if (t->body_rows < 0)
		t->body_rows = 0;
	clamp(t);
	return t->body_rows;
}

/* The columns of a row (or the header when row < 0). The last one (width
 * 0) takes the rest of the line and scrolls sideways. */
static void draw_cells(struct table *t, int y, int row, int attr, void *st, table_cell_fn cell, int hscroll)
{
	int x = 0, cols = draw_cols();
	char buf[1024];

	for (int c = 0; c < t->ncols && x < cols; c++) {
		const struct table_col *col = &t->cols[c];
		int w = col->width ? col->width : -1, a = attr, skip = 0;
		if (col->width < 0)
			continue;
		buf[0] = '\0';
		if (row < 0) {
			snprintf(buf, sizeof(buf), "%s%s", col->title[0] ? _(col->title) : "", c == t->sort_col ? (t->sort_desc ? "v" : "^") : "");
			if (c == t->sort_col)
				a |= A_BOLD;
		} else {
			cell(st, row, c, buf, sizeof(buf));
			skip = col->width ? 0 : hscroll;
		}
		if (col->right)
			draw_text_right(y, x, w < 0 ? cols - x : w, a, buf);
		else
			draw_text_skip(y, x, w, a, buf, skip);
		x += (w < 0 ? cols - x : w) + 1;
	}
}

void table_hscroll_fit(int *hscroll, int need, int room)
{
	int most = need - room, max = most > 0 ? (most + 7) / 8 * 8 : 0;

	if (*hscroll > max)
		*hscroll = max;
	if (*hscroll < 0)
		*hscroll = 0;
}

void table_draw(struct table *t, int y0, int rows, void *st, table_cell_fn cell)
{
	char buf[8];

	if (rows < 1)
		return;
	table_layout(t, y0, rows, true);
	/* Right stops where the widest row on screen (or the header) ends. */
	if (t->hscroll > 0) {
		draw_measure_begin();
		draw_cells(t, y0, -1, 0, st, cell, 0);
		for (int i = 0; i < t->body_rows && t->top + i < t->n; i++)
			draw_cells(t, y0, table_row(t, t->top + i), 0, st, cell, 0);
		table_hscroll_fit(&t->hscroll, draw_measure_end(), draw_cols());
	}
	draw_blank(y0, 0, -1, draw_attr(COL_HEADER));
	draw_cells(t, y0, -1, draw_attr(COL_HEADER), st, cell, t->hscroll);
	for (int i = 0; i < t->body_rows && t->top + i < t->n; i++) {
		int pos = t->top + i, row = table_row(t, pos), y = t->body_y + i;
		int attr = cell(st, row, -1, buf, sizeof(buf));
		if (pos == t->sel)
			attr = draw_attr(COL_SELECT);
		draw_blank(y, 0, -1, attr);
		draw_cells(t, y, row, attr, st, cell, t->hscroll);
	}
}

static void resort(struct table *t, void *st, table_cmp_fn cmp)
{
	table_set_rows(t, t->n, st, cmp);
}

/* Column of cols[] under the terminal column x, -1 if none. */
static int col_at(const struct table *t, int x)
{
	int cx = 0;

	for (int c = 0; c < t->ncols; c++) {
		int w = t->cols[c].width;
		if (w < 0)
			continue;
		if (!w || x < cx + w + 1)
			return c;
		cx += w + 1;
	}
	return -1;
}

static enum table_key_result mouse(struct table *t, void *st, table_cmp_fn cmp)
{
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return TABLE_KEY_MOVED;
	if (ev.bstate & BUTTON4_PRESSED) {
		*(t->plain ? &t->top : &t->sel) -= 3;
		t->moved = true;
	} else if (ev.bstate & BUTTON5_PRESSED) {
		*(t->plain ? &t->top : &t->sel) += 3;
		t->moved = true;
	} else if (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) {
		if (t->head_y >= 0 && ev.y == t->head_y) {
			int c = cmp ? col_at(t, ev.x) : -1;
			if (c < 0) {
				t->click_x = ev.x;
				return TABLE_KEY_HEADER;
			}
			t->sort_desc = c == t->sort_col ? !t->sort_desc : t->sort_desc;
			t->sort_col = c;
			resort(t, st, cmp);
		} else if (ev.y >= t->body_y && ev.y < t->body_y + t->body_rows && !t->plain) {
			t->sel = t->top + (ev.y - t->body_y);
			t->moved = true;
		}
	}
	if (t->plain)
		t->sel = t->top;
	clamp(t);
	return TABLE_KEY_MOVED;
}

enum table_key_result table_key(struct table *t, int ch, void *st, table_cmp_fn cmp)
{
	int page = t->body_rows > 1 ? t->body_rows - 1 : 1;
	int *pos = t->plain ? &t->top : &t->sel;

	switch (ch) {
	case KEY_UP: case 'k': (*pos)--; break;
	case KEY_DOWN: case 'j': (*pos)++; break;
	case KEY_PPAGE: case 'b': t->sel -= page; t->top -= page; break;
	case KEY_NPAGE: case ' ': t->sel += page; t->top += page; break;
	case KEY_HOME: case 'g': t->sel = t->top = 0; break;
	case KEY_END: case 'G': t->sel = t->top = t->n - 1; break;
	case KEY_MOUSE: return mouse(t, st, cmp);
	case KEY_LEFT: case KEY_RIGHT:
		if (!t->hkeys || !table_hscroll_key(&t->hscroll, ch))
			return TABLE_KEY_NONE;
		clamp(t);
		return TABLE_KEY_MOVED;
	case '<': case ',': case '>': case '.':
		if (!cmp || !t->ncols)
			return TABLE_KEY_NONE;
		t->sort_col = (t->sort_col + (ch == '<' || ch == ',' ? t->ncols - 1 : 1)) % t->ncols;
		resort(t, st, cmp);
		return TABLE_KEY_MOVED;
	case 'I':
		if (!cmp || !t->ncols)
			return TABLE_KEY_NONE;
		t->sort_desc = !t->sort_desc;
		resort(t, st, cmp);
		return TABLE_KEY_MOVED;
	default:
		return TABLE_KEY_NONE;
	}
	if (t->plain)
		t->sel = t->top;
	t->moved = true;
	clamp(t);
	return TABLE_KEY_MOVED;
}

enum table_key_result table_hscroll_key(int *hscroll, int ch)
{
	if (ch == KEY_RIGHT) {
		*hscroll += 8;
		return TABLE_KEY_MOVED;
	}
	if (ch != KEY_LEFT || *hscroll <= 0)
		return TABLE_KEY_NONE;
	*hscroll = *hscroll > 8 ? *hscroll - 8 : 0;
	return TABLE_KEY_MOVED;
}

/* The match at display position i: selected, or for a text view scrolled
 * to the top and marked. */
static void found(struct table *t, int i)
{
	table_select(t, i);
	t->moved = true;
	t->hit = t->plain ? table_row(t, i) : -1;
}

bool table_search(struct table *t, int start, int dir, const char *text, void *st, table_match_fn match)
{
	int n = t->n;

	if (!text[0] || !n)
		return true;
	for (int k = 0; k < n; k++) {
		int i = ((start + dir * k) % n + n) % n;
		if (match(st, table_row(t, i), text)) {
			found(t, i);
			return true;
		}
	}
	return false;
}

bool table_search_cells(struct table *t, int start, int dir, const char *text, void *st, table_cell_fn cell)
{
	int n = t->n;

	if (!text[0] || !n)
		return true;
	for (int k = 0; k < n; k++) {
		int i = ((start + dir * k) % n + n) % n;
		for (int c = 0; c < t->ncols; c++) {
			char buf[512];
			buf[0] = '\0';
			cell(st, table_row(t, i), c, buf, sizeof(buf));
			if (strcasestr(buf, text)) {
				found(t, i);
				return true;
			}
		}
	}
	return false;
}

void table_free(struct table *t)
{
	free(t->order);
	t->order = NULL;
	t->cap = t->n = 0;
}
