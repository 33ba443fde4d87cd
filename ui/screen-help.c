/* Help screen: the keys and fields of the screen it was opened from, read
 * from data/help/<name>.txt, scrollable. */
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"
#include "textview.h"
#include "textdata.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdlib.h>
#include <string.h>

struct help_state {
	struct textview tv;
	struct ui_search search;
	char title[128];
};

static void help_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct help_state *h = p;

	draw_blank(y0, 0, -1, draw_attr(COL_TITLE));
	draw_textf(y0, 0, -1, draw_attr(COL_TITLE), _(" pscope help: %s   (arrows scroll, / search, Esc or q returns)"),
		   h->title);
	textview_draw(&h->tv, y0 + 1, rows - 1);
}

static bool help_key(struct ui *ui, void *p, int ch)
{
	struct help_state *h = p;

	switch (ch) {
	case 'q': case 27: case KEY_F(1): case '?': case KEY_F(10):
		ui_pop(ui);
		return true;
	case KEY_LEFT:
		if (!textview_key(&h->tv, ch))
			ui_pop(ui); /* at the left edge: back */
		return true;
	default:
		if (!ui_search_key(ui, &h->search, ch, textview_find, &h->tv))
			textview_key(&h->tv, ch);
		return true; /* help is modal: other keys do nothing */
	}
}

static void help_destroy(void *p)
{
	struct help_state *h = p;
	textview_free(&h->tv);
	free(h);
}

static const struct ui_fkey help_fkeys[] = { { "/", N_("Search") }, { "Esc", N_("Back") }, { NULL, NULL } };

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
	textview_init(&h->tv, 1);
	char *text = textdata_load(rel);
	if (!text) {
		char msg[300];
		snprintf(msg, sizeof(msg), _("No help text found (data/%s). Set PSCOPE_DATA to the data directory."), rel);
		textview_add(&h->tv, draw_attr(COL_ERROR), NULL, msg);
	}
	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		/* section titles start at the left edge */
		textview_add(&h->tv, (p[0] && p[0] != ' ') ? (int)(draw_attr(COL_GOOD) | A_BOLD) : draw_attr(COL_NORMAL), NULL, p);
		p = nl ? nl + 1 : NULL;
	}
	free(text);
	ui_push(ui, &help_ops, h);
}
