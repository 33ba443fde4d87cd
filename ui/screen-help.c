/* Help screen: the keys and fields of the screen it was opened from, read
 * from data/help/<name>.txt, scrollable. */
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"
#include "table.h"
#include "textdata.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdlib.h>
#include <string.h>

struct help_state {
	char *text;
	char **lines;
	int nlines;
	struct table view;
	char title[128];
};

static void help_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct help_state *h = p;

	draw_blank(y0, 0, -1, draw_attr(COL_TITLE));
	draw_textf(y0, 0, -1, draw_attr(COL_TITLE), _(" pscope help: %s   (arrows/PgUp/PgDn scroll, Esc or q returns)"), h->title);
	table_layout(&h->view, y0 + 1, rows - 1, false);
	for (int i = 1; i < rows && h->view.top + i - 1 < h->nlines; i++) {
		const char *l = h->lines[h->view.top + i - 1];
		int attr = (l[0] && l[0] != ' ') ? (int)(draw_attr(COL_GOOD) | A_BOLD) : draw_attr(COL_NORMAL);
		draw_text(y0 + i, 1, -1, attr, l);
	}
}

static bool help_key(struct ui *ui, void *p, int ch)
{
	struct help_state *h = p;

	switch (ch) {
	case 'q': case 27: case KEY_F(1): case '?': case KEY_F(10):
		ui_pop(ui);
		return true;
	default:
		table_key(&h->view, ch, NULL, NULL);
		return true; /* help is modal: other keys do nothing */
	}
}

static void help_destroy(void *p)
{
	struct help_state *h = p;
	free(h->lines);
	free(h->text);
	free(h);
}

static const struct ui_fkey help_fkeys[] = { { "Esc", N_("Back") }, { NULL, NULL } };

static const struct screen_ops help_ops = {
	.name = N_("Help"),
	.help = "help",
	.fkeys = help_fkeys,
	.draw = help_draw,
	.key = help_key,
	.destroy = help_destroy,
};

void screen_help_open(struct ui *ui, const char *help_name, const char *title)
{
	struct help_state *h = calloc(1, sizeof(*h));
	char rel[128];

	if (!h)
		return;
	snprintf(rel, sizeof(rel), "help/%s.txt", help_name ? help_name : "list");
	snprintf(h->title, sizeof(h->title), "%s", title ? title : "");
	h->text = textdata_load(rel);
	if (!h->text) {
		char msg[300];
		snprintf(msg, sizeof(msg), _("No help text found (data/%s). Set PSCOPE_DATA to the data directory."), rel);
		h->text = strdup(msg);
	}
	for (char *p = h->text; p && *p; p++)
		if (*p == '\n')
			h->nlines++;
	h->nlines++;
	h->lines = calloc((size_t)h->nlines, sizeof(char *));
	int n = 0;
	for (char *p = h->text; p && n < h->nlines;) {
		h->lines[n++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	h->nlines = n;
	table_init_plain(&h->view);
	table_set_count(&h->view, n);
	ui_push(ui, &help_ops, h);
}
