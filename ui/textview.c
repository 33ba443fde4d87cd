/* A text view (textview.h). */
#include "textview.h"
#include "draw.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void textview_init(struct textview *tv, int label_w)
{
	memset(tv, 0, sizeof(*tv));
	table_init_plain(&tv->view);
	tv->view.hkeys = true;
	tv->label_w = label_w;
}

void textview_clear(struct textview *tv)
{
	for (int i = 0; i < tv->n; i++) {
		free(tv->lines[i].label);
		free(tv->lines[i].text);
	}
	tv->n = 0;
}

void textview_add(struct textview *tv, int attr, const char *label, const char *text)
{
	if (tv->n == tv->cap) {
		int nc = tv->cap ? tv->cap * 2 : 32;
		struct textview_line *nl = realloc(tv->lines, (size_t)nc * sizeof(*nl));
		if (!nl)
			return;
		tv->lines = nl;
		tv->cap = nc;
	}
	struct textview_line *l = &tv->lines[tv->n];
	l->label = label ? strdup(label) : NULL;
	l->text = strdup(text ? text : "");
	if (!l->text) {
		free(l->label);
		return;
	}
	l->attr = attr;
	l->label_attr = draw_attr(COL_GOOD);
	tv->n++;
}

void textview_addf(struct textview *tv, int attr, const char *label, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	textview_add(tv, attr, label, buf);
}

static bool line_matches(void *st, int row, const char *text);

/* Lines rebuilt since the search (a line added above it): keep the mark
 * on the line that holds the text, the nearest one after a shift. */
static void follow_hit(struct textview *tv)
{
	int h = tv->view.hit;

	if (h < 0 || (h < tv->n && line_matches(tv, h, tv->hit_text)))
		return;
	for (int d = 1; d < tv->n; d++) {
		for (int k = -1; k <= 1; k += 2) {
			int i = h + k * d;
			if (i >= 0 && i < tv->n && line_matches(tv, i, tv->hit_text)) {
				tv->view.top += i - h;
				tv->view.hit = i;
				return;
			}
		}
	}
	tv->view.hit = -1;
}

/* s[0..n) drawn as draw_text draws a string. */
static int draw_span(int y, int x, int w, int attr, const char *s, size_t n)
{
	char *c = strndup(s, n);
	int used;

	if (!c)
		return 0;
	used = draw_text(y, x, w, attr, c);
	free(c);
	return used;
}

/* s from (y, x) in at most w columns (w < 0: to the right edge) in attr,
 * each case-insensitive occurrence of text in mark (text "": none), the
 * way less marks a search's matches. Each piece goes through draw.c, and
 * chaining x by the columns drawn keeps wide characters and the
 * horizontal scroll right. Returns the columns used. */
static int draw_marked(int y, int x, int w, int attr, int mark, const char *s, const char *text)
{
	size_t tl = strlen(text);
	int used = 0;

	if (!tl || !strcasestr(s, text))
		return draw_text(y, x, w, attr, s);
	for (const char *p = s; *p && (w < 0 || used < w);) {
		const char *m = strcasestr(p, text);
		size_t n = m ? (size_t)(m - p) : strlen(p);
		if (n)
			used += draw_span(y, x + used, w < 0 ? -1 : w - used, attr, p, n);
		if (!m || (w >= 0 && used >= w))
			break;
		used += draw_span(y, x + used, w < 0 ? -1 : w - used, mark, m, tl);
		p = m + tl;
	}
	return used;
}

/* The line that holds the search's match: a match outside the columns on
 * screen is brought into view sideways, a third of the way across (the
 * text before it in view too), on a step of Left/Right. */
static void show_match(struct textview *tv)
{
	const struct textview_line *l;
	const char *m;
	char *pre;
	int start, end, cols = draw_cols(), *hs = &tv->view.hscroll;

	if (tv->view.hit < 0 || tv->view.hit >= tv->n)
		return;
	l = &tv->lines[tv->view.hit];
	m = strcasestr(l->text, tv->hit_text);
	if (!m || !(pre = strndup(l->text, (size_t)(m - l->text))))
		return; /* in the label: always in view with the line's start */
	start = tv->label_w + draw_width(pre);
	end = start + draw_width(tv->hit_text);
	free(pre);
	if (start >= *hs && end - *hs <= cols)
		return;
	*hs = start > cols / 3 ? (start - cols / 3) / 8 * 8 : 0;
}

void textview_draw(struct textview *tv, int y0, int rows)
{
	follow_hit(tv);
	table_set_count(&tv->view, tv->n);
	int body = table_layout(&tv->view, y0, rows, false);
	/* Right stops where the longest line ends (of them all: a text is
	 * read like a page, and keeps its place sideways when it scrolls). */
	int widest = 0;
	for (int i = 0; i < tv->n; i++) {
		int w = tv->label_w + draw_width(tv->lines[i].text);
		widest = w > widest ? w : widest;
	}
	table_hscroll_fit(&tv->view.hscroll, widest, draw_cols());
	int old = draw_hshift(tv->view.hscroll);

	/* The line a search found: in the selection bar, and the matched
	 * text in it marked (the bar's colours reversed, bold). */
	int bar = draw_attr(COL_SELECT), mark = (int)(((unsigned)bar ^ A_REVERSE) | A_BOLD);
	for (int i = 0; i < body && tv->view.top + i < tv->n; i++) {
		int row = tv->view.top + i, y = y0 + i;
		const struct textview_line *l = &tv->lines[row];
		bool hit = row == tv->view.hit;
		const char *text = hit ? tv->hit_text : "";
		int x = 0;
		if (hit)
			draw_blank(y, 0, -1, bar);
		if (tv->label_w > 0) {
			if (l->label)
				draw_marked(y, 0, tv->label_w, hit ? bar : l->label_attr, mark, l->label, text);
			x = tv->label_w;
		}
		draw_marked(y, x, -1, hit ? bar : l->attr, mark, l->text, text);
	}
	draw_hshift(old);
}

bool textview_key(struct textview *tv, int ch)
{
	int hscroll = tv->view.hscroll;

	if (table_key(&tv->view, ch, NULL, NULL) == TABLE_KEY_NONE)
		return false;
	if (tv->view.hscroll == hscroll)
		tv->view.hit = -1; /* the user moved up or down: the next search starts here */
	return true;
}

static bool line_matches(void *st, int row, const char *text)
{
	const struct textview_line *l = &((struct textview *)st)->lines[row];
	return strcasestr(l->text, text) || (l->label && strcasestr(l->label, text));
}

bool textview_find(void *st, const char *text, int dir, bool again)
{
	struct textview *tv = st;
	int from = tv->view.hit >= 0 && tv->view.hit < tv->n ? tv->view.hit : tv->view.top;

	if (!tv->n)
		return false;
	table_set_count(&tv->view, tv->n);
	snprintf(tv->hit_text, sizeof(tv->hit_text), "%s", text);
	if (!table_search(&tv->view, from + (again ? dir : 0), dir, text, tv, line_matches))
		return false;
	show_match(tv);
	return true;
}

void textview_free(struct textview *tv)
{
	textview_clear(tv);
	free(tv->lines);
	tv->lines = NULL;
	tv->cap = 0;
	table_free(&tv->view);
}
