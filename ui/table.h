/* The one list widget. Every list-like view of the UI (the process list,
 * the panes' tables, stacks, hot functions, menus, help and doors text)
 * keeps a struct table for its selection, scrolling, paging, Home/End,
 * mouse wheel and click, search and horizontal scroll, and lets
 * table_key() handle those keys: navigation is written here once.
 *
 * A table either owns the display order of its rows (table_set_rows, with
 * an optional sort by column through qsort_r) or follows the order of the
 * caller's data (table_set_count). A "plain" table is a text view: no
 * selection bar, the keys scroll. */
#ifndef PS_UI_TABLE_H
#define PS_UI_TABLE_H

#include <stdbool.h>
#include <stddef.h>

struct table_col {
	const char *title;     /* N_(): translated where drawn */
	int width;             /* 0: the rest of the line; -1: hidden */
	bool right;            /* right-aligned (numbers) */
};

struct table {
	const struct table_col *cols;  /* optional: table_draw's columns */
	int ncols;
	int n;                 /* rows */
	int *order;            /* display position -> row; NULL: the identity */
	int cap;
	int sel, top;          /* display positions */
	int hscroll;           /* columns of the last column scrolled off */
	int sort_col;
	bool sort_desc;
	bool plain;            /* text view: no selection, keys scroll */
	bool hkeys;            /* Left/Right scroll horizontally */
	bool moved;            /* the user moved the selection (a key, the
				* mouse, a search): until then a view that
				* keeps its selection on a row's identity
				* keeps it on the top row instead */
	int hit;               /* plain: the line the last search found, -1 none */
	/* Layout of the last table_layout (table_draw calls it): paging and
	 * the mouse use it. */
	int head_y;            /* the header row; -1: none */
	int body_y, body_rows;
	int click_x;           /* column of the last click on the header */
};

/* Text of a cell (col -1: the row's attribute); returns the attribute. */
typedef int (*table_cell_fn)(void *st, int row, int col, char *buf, size_t size);
/* Compare rows a and b on column col (<0, 0, >0). */
typedef int (*table_cmp_fn)(void *st, int a, int b, int col);
/* Does row match the search text? */
typedef bool (*table_match_fn)(void *st, int row, const char *text);

void table_init(struct table *t, const struct table_col *cols, int ncols, int sort_col, bool desc);
/* A text view of lines: no selection bar; the keys scroll. */
void table_init_plain(struct table *t);
/* New data: n rows, sorted by the sort column when cmp is given; the
 * selection stays at the same position. */
void table_set_rows(struct table *t, int n, void *st, table_cmp_fn cmp);
/* New data in the caller's own order: n rows. */
void table_set_count(struct table *t, int n);
/* The row at display position pos. */
static inline int table_row(const struct table *t, int pos)
{
	return t->order ? t->order[pos] : pos;
}
/* The selected row, -1 when empty. */
int table_selected(const struct table *t);
void table_select(struct table *t, int pos);
/* The table takes rows [y0, y0 + rows) of the terminal, the first one for
 * a header if header is true: remember it, bring the selection into view.
 * Returns the body rows; the rows on screen are positions
 * [top, top + body_rows) below n. */
int table_layout(struct table *t, int y0, int rows, bool header);
/* Layout, then the header (with the sort mark) and the rows of cols[]. */
void table_draw(struct table *t, int y0, int rows, void *st, table_cell_fn cell);
enum table_key_result {
	TABLE_KEY_NONE = 0,    /* not a key of the widget */
	TABLE_KEY_MOVED,       /* selection or scroll changed */
	TABLE_KEY_HEADER,      /* click on the header at column t->click_x */
};
/* Up/Down/j/k, PgUp/PgDn/b/Space, Home/End/g/G, mouse wheel and click,
 * Left/Right when hkeys (Left at the left edge is not taken: nothing
 * takes it, only Esc goes back); with cmp also '<' '>' (sort column), 'I' (invert) and a click on
 * a title (sort by it). */
enum table_key_result table_key(struct table *t, int ch, void *st, table_cmp_fn cmp);
/* Left/Right on a horizontal offset (8 columns a step; Left at 0 is not
 * taken, and no screen goes back on it): the one rule for every view that scrolls sideways. */
enum table_key_result table_hscroll_key(int *hscroll, int ch);
/* Right stops where the widest line fits: need columns shown in room
 * columns. hscroll is cut to the step that brings the end of the line
 * into view (0 when it fits unscrolled). Views call it as they draw, with
 * the widest of the lines on screen (and the header). */
void table_hscroll_fit(int *hscroll, int need, int room);
/* Select the next row from position start in direction dir (+1/-1,
 * wrapping) that matches text; false when none does. A plain table
 * scrolls the match to its top and marks it in hit. */
bool table_search(struct table *t, int start, int dir, const char *text, void *st, table_match_fn match);
/* The same over the text of the cells (cols[0..ncols) through cell),
 * case-insensitively: '/' in any table with columns. */
bool table_search_cells(struct table *t, int start, int dir, const char *text, void *st, table_cell_fn cell);
void table_free(struct table *t);

#endif
