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

void textview_draw(struct textview *tv, int y0, int rows)
{
	follow_hit(tv);
	table_set_count(&tv->view, tv->n);
	int body = table_layout(&tv->view, y0, rows, false);
	/* Right stops where the longest line ends. */
	int widest = 0;
	for (int i = 0; i < tv->n; i++) {
		int w = tv->label_w + draw_width(tv->lines[i].text);
		widest = w > widest ? w : widest;
	}
	int most = widest - draw_cols() + 1;
	if (tv->view.hscroll > (most > 0 ? (most + 7) / 8 * 8 : 0))
		tv->view.hscroll = most > 0 ? (most + 7) / 8 * 8 : 0;
	int old = draw_hshift(tv->view.hscroll);

	for (int i = 0; i < body && tv->view.top + i < tv->n; i++) {
		int row = tv->view.top + i, y = y0 + i;
		const struct textview_line *l = &tv->lines[row];
		bool hit = row == tv->view.hit;
		int x = 0;
		if (hit)
			draw_blank(y, 0, -1, draw_attr(COL_SELECT));
		if (tv->label_w > 0) {
			if (l->label)
				draw_text(y, 0, tv->label_w, hit ? draw_attr(COL_SELECT) : l->label_attr, l->label);
			x = tv->label_w;
		}
		draw_text(y, x, -1, hit ? draw_attr(COL_SELECT) : l->attr, l->text);
	}
	draw_hshift(old);
}

bool textview_key(struct textview *tv, int ch)
{
	if (table_key(&tv->view, ch, NULL, NULL) == TABLE_KEY_NONE)
		return false;
	if (ch != KEY_LEFT && ch != KEY_RIGHT)
		tv->view.hit = -1; /* the user moved: the next search starts here */
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
	return table_search(&tv->view, from + (again ? dir : 0), dir, text, tv, line_matches);
}

void textview_free(struct textview *tv)
{
	textview_clear(tv);
	free(tv->lines);
	tv->lines = NULL;
	tv->cap = 0;
	table_free(&tv->view);
}
