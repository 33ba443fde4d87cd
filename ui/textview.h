/* A text view: lines (an optional label column, then the text, each with
 * its attribute) in a plain table, scrolled both ways and searched with
 * '/' (n / N: the next / previous line holding the text). The status and
 * memory panes, help, doors and a core's files tab use it. */
#ifndef PS_UI_TEXTVIEW_H
#define PS_UI_TEXTVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "table.h"

struct textview_line {
	char *label;         /* NULL: none */
	char *text;
	int attr, label_attr;
};

struct textview {
	struct table view;   /* plain, hkeys: Left/Right scroll every line */
	struct textview_line *lines;
	int n, cap;
	int label_w;         /* columns of the label column (0: none) */
	char hit_text[64];   /* what the search found at view.hit */
};

void textview_init(struct textview *tv, int label_w);
/* Forget the lines (the scroll and the search mark stay). */
void textview_clear(struct textview *tv);
/* Add a line (text may hold hostile bytes: drawn through draw.c). */
void textview_add(struct textview *tv, int attr, const char *label, const char *text);
void textview_addf(struct textview *tv, int attr, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Draw into rows [y0, y0 + rows); the line the search found in reverse. */
void textview_draw(struct textview *tv, int y0, int rows);
/* The list keys (scrolling, Left/Right). */
bool textview_key(struct textview *tv, int ch);
/* A ui_find_fn (ui_search_key) over the lines. */
bool textview_find(void *tv, const char *text, int dir, bool again);
void textview_free(struct textview *tv);

#endif
