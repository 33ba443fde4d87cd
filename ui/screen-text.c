/* Items shown whole, one logical row each, wrapped at the screen width and
 * scrolled with the arrows (the environment of a process, one variable a
 * row; its whole command line, one row). The items are hostile: a newline
 * inside one is drawn escaped (draw.c), so "x\nPATH=/evil" never passes
 * for a second variable. */
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"
#include "table.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdlib.h>
#include <string.h>

struct text_state {
	char *text;
	char **lines;              /* the items (NUL-separated in text) */
	int nlines;
	struct table view;         /* rows: the screen rows after wrapping */
	char title[160];
	struct ui_search search;
	int hit;                   /* '/': the line found, -1 none */
	int width;                 /* the wrap width of the last draw */
};

/* Screen rows line l takes at width w. */
static int wrapped(const char *l, int w)
{
	return draw_wrapped(0, 0, w, 0, 0, l, false, 0);
}

static int total_rows(struct text_state *t, int w)
{
	int n = 0;
	for (int i = 0; i < t->nlines; i++)
		n += wrapped(t->lines[i], w);
	return n;
}

static void text_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct text_state *t = p;
	int w = draw_cols() > 1 ? draw_cols() - 1 : 1, row = 0;
	(void)ui;

	draw_blank(y0, 0, -1, draw_attr(COL_TITLE));
	draw_text(y0, 0, -1, draw_attr(COL_TITLE), t->title);
	t->width = w;
	table_set_count(&t->view, total_rows(t, w)); /* the width may have changed */
	int body = table_layout(&t->view, y0 + 1, rows - 1, false);
	for (int i = 0; i < t->nlines && row - t->view.top < body; i++) {
		int first = t->view.top > row ? t->view.top - row : 0;
		int y = y0 + 1 + row + first - t->view.top;
		row += draw_wrapped(y, 0, w, body - (y - y0 - 1), i == t->hit ? draw_attr(COL_SELECT) : draw_attr(COL_NORMAL),
				    t->lines[i], false, first);
	}
}

/* '/': the next line holding the text, its first row scrolled to the top. */
static bool text_find(void *p, const char *text, int dir, bool again)
{
	struct text_state *t = p;
	int from = t->hit >= 0 ? t->hit : 0, n = t->nlines;

	for (int k = again ? 1 : 0; n > 0 && k <= n; k++) {
		int i = ((from + dir * k) % n + n) % n;
		if (!strcasestr(t->lines[i], text))
			continue;
		int row = 0;
		for (int j = 0; j < i; j++)
			row += wrapped(t->lines[j], t->width > 0 ? t->width : 1);
		t->hit = i;
		table_select(&t->view, row);
		return true;
	}
	return false;
}

static bool k_close(struct ui *ui, void *p, int ch)
{
	ui_pop(ui);
	return true;
}

/* Search and scrolling; the view is modal: other keys do nothing. */
static bool text_key(struct ui *ui, void *p, int ch)
{
	struct text_state *t = p;

	if (!ui_search_key(ui, &t->search, ch, text_find, t))
		table_key(&t->view, ch, NULL, NULL);
	return true;
}

static void text_destroy(void *p)
{
	struct text_state *t = p;
	table_free(&t->view);
	free(t->lines);
	free(t->text);
	free(t);
}

static const struct ui_key text_keys[] = {
	UI_KEY("/, n, N", NULL, N_("Search"), NULL),
	UI_KEY("Esc", k_close, N_("Back"), NULL, 27, 'w', 'e'),
	UI_LOOP("F10, q", KEY_F(10), 'q'),
	UI_KEYS_END,
};

const struct screen_ops screen_text_ops = {
	.name = N_("Text"),
	.help = "help",
	.keys = text_keys,
	.fbar = "/ Esc",
	.draw = text_draw,
	.key = text_key,
	.destroy = text_destroy,
};

void screen_text_open(struct ui *ui, const char *title, const char *rows, size_t len)
{
	struct text_state *t = calloc(1, sizeof(*t));

	if (!t || !(t->text = malloc(len + 1))) {
		free(t);
		ui_message(ui, true, "%s", _("out of memory"));
		return;
	}
	memcpy(t->text, rows, len);
	t->text[len] = '\0';
	snprintf(t->title, sizeof(t->title), "%s", title);
	for (size_t i = 0; i < len; i++)
		t->nlines += t->text[i] == '\0';
	t->nlines++;
	t->lines = calloc((size_t)t->nlines, sizeof(char *));
	if (!t->lines) {
		text_destroy(t);
		ui_message(ui, true, "%s", _("out of memory"));
		return;
	}
	for (size_t i = 0, n = 0; n < (size_t)t->nlines; n++) {
		t->lines[n] = t->text + i;
		i += strlen(t->text + i) + 1;
	}
	table_init_plain(&t->view);
	t->hit = -1;
	ui_push(ui, &screen_text_ops, t);
}
