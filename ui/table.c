/* The scrolling, sortable table the detail panes share. */
#include "pane.h"
#include "draw.h"

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
}

/* qsort has no context argument: sorting happens on the UI thread only. */
static void *sort_st;
static table_cmp_fn sort_cmp;
static int sort_col;
static bool sort_desc;

static int cmp_rows(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int r = sort_cmp(sort_st, x, y, sort_col);
	if (sort_desc)
		r = -r;
	return r ? r : (x > y) - (x < y);
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
	t->n = n;
	for (int i = 0; i < n; i++)
		t->order[i] = i;
	if (cmp && n > 1) {
		sort_st = st;
		sort_cmp = cmp;
		sort_col = t->sort_col;
		sort_desc = t->sort_desc;
		qsort(t->order, (size_t)n, sizeof(int), cmp_rows);
	}
	if (t->sel >= n)
		t->sel = n - 1;
	if (t->sel < 0)
		t->sel = 0;
}

void table_scroll(struct table *t, int body)
{
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + body)
		t->top = t->sel - body + 1;
	if (t->top > t->n - body)
		t->top = t->n - body;
	if (t->top < 0)
		t->top = 0;
}

void table_draw(struct table *t, int y0, int rows, void *st, table_cell_fn cell)
{
	int x = 0, hattr = draw_attr(COL_HEADER);
	int body = rows - 1;

	if (rows < 1)
		return;
	draw_blank(y0, 0, -1, hattr);
	for (int c = 0; c < t->ncols; c++) {
		const struct table_col *col = &t->cols[c];
		int w = col->width ? col->width : draw_cols() - x;
		char title[64];
		if (col->width < 0)
			continue;
		snprintf(title, sizeof(title), "%s%s", col->title,
			 c == t->sort_col ? (t->sort_desc ? "v" : "^") : "");
		if (col->right)
			draw_text_right(y0, x, w, hattr | (c == t->sort_col ? A_BOLD : 0), title);
		else
			draw_text(y0, x, w, hattr | (c == t->sort_col ? A_BOLD : 0), title);
		x += w + 1;
	}
	if (body <= 0)
		return;
	table_scroll(t, body);
	for (int i = 0; i < body && t->top + i < t->n; i++) {
		int pos = t->top + i, row = t->order[pos];
		int y = y0 + 1 + i;
		char buf[1024];
		int attr = cell(st, row, -1, buf, sizeof(buf));
		if (pos == t->sel)
			attr = draw_attr(COL_SELECT);
		draw_blank(y, 0, -1, attr);
		x = 0;
		for (int c = 0; c < t->ncols && x < draw_cols(); c++) {
			const struct table_col *col = &t->cols[c];
			int w = col->width ? col->width : draw_cols() - x;
			if (col->width < 0)
				continue;
			buf[0] = '\0';
			cell(st, row, c, buf, sizeof(buf));
			if (col->right)
				draw_text_right(y, x, w, attr, buf);
			else
				draw_text(y, x, w, attr, buf);
			x += w + 1;
		}
	}
}

bool table_key(struct table *t, int ch, int rows, void *st, table_cmp_fn cmp)
{
	int page = rows > 2 ? rows - 2 : 1;

	switch (ch) {
	case KEY_UP: case 'k': t->sel--; break;
	case KEY_DOWN: case 'j': t->sel++; break;
	case KEY_PPAGE: t->sel -= page; break;
	case KEY_NPAGE: case ' ': t->sel += page; break;
	case KEY_HOME: case 'g': t->sel = 0; break;
	case KEY_END: case 'G': t->sel = t->n - 1; break;
	case '<': case ',':
		t->sort_col = (t->sort_col + t->ncols - 1) % t->ncols;
		table_set_rows(t, t->n, st, cmp);
		return true;
	case '>': case '.':
		t->sort_col = (t->sort_col + 1) % t->ncols;
		table_set_rows(t, t->n, st, cmp);
		return true;
	case 'I':
		t->sort_desc = !t->sort_desc;
		table_set_rows(t, t->n, st, cmp);
		return true;
	default:
		return false;
	}
	if (t->sel >= t->n)
		t->sel = t->n - 1;
	if (t->sel < 0)
		t->sel = 0;
	return true;
}

void table_free(struct table *t)
{
	free(t->order);
	t->order = NULL;
	t->cap = t->n = 0;
}

bool pane_scroll_key(int *top, int n, int rows, int ch)
{
	int page = rows > 2 ? rows - 2 : 1;

	switch (ch) {
	case KEY_UP: case 'k': (*top)--; break;
	case KEY_DOWN: case 'j': (*top)++; break;
	case KEY_PPAGE: *top -= page; break;
	case KEY_NPAGE: case ' ': *top += page; break;
	case KEY_HOME: case 'g': *top = 0; break;
	case KEY_END: case 'G': *top = n - rows; break;
	default: return false;
	}
	if (*top > n - rows)
		*top = n - rows;
	if (*top < 0)
		*top = 0;
	return true;
}
