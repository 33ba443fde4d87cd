/* Help screen: the keys and fields of the screen it was opened from: the
 * text of data/help/<name>.txt, its "@keys" line replaced by the key
 * section made from the screen's key table (ui/keys.h), scrollable. */
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
	draw_textf(y0, 0, -1, draw_attr(COL_TITLE), _(" pscope help: %s   (arrows scroll, / search, Esc returns, q quits)"),
		   h->title);
	textview_draw(&h->tv, y0 + 1, rows - 1);
}

static bool k_close(struct ui *ui, void *p, int ch)
{
	ui_pop(ui);
	return true;
}

/* Search and scrolling; help is modal: other keys do nothing. */
static bool help_key(struct ui *ui, void *p, int ch)
{
	struct help_state *h = p;

	if (!ui_search_key(ui, &h->search, ch, textview_find, &h->tv))
		textview_key(&h->tv, ch);
	return true;
}

static void help_destroy(void *p)
{
	struct help_state *h = p;
	textview_free(&h->tv);
	free(h);
}

static const struct ui_key help_keys[] = {
	UI_KEY("/, n, N", NULL, N_("Search"), NULL),
	UI_KEY("Esc, F1", k_close, N_("Back"), NULL, 27, KEY_F(1), '?'),
	UI_LOOP("F10, q", KEY_F(10), 'q'),
	UI_KEYS_END,
};

const struct screen_ops screen_help_ops = {
	.name = N_("Help"),
	.help = "help",
	.keys = help_keys,
	.fbar = "/ Esc",
	.draw = help_draw,
	.key = help_key,
	.destroy = help_destroy,
};

/* Each line of text (cut at its newlines): section titles, at the left
 * edge, stand out; a "@keys" line is the key section of keys. */
static void add_text(struct help_state *h, char *text, const struct ui_key *keys)
{
	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (keys && !strcmp(p, "@keys")) {
			char *k = ui_keys_help(keys);
			add_text(h, k, NULL);
			free(k);
		} else {
			textview_add(&h->tv, (p[0] && p[0] != ' ') ? (int)(draw_attr(COL_GOOD) | A_BOLD) : draw_attr(COL_NORMAL),
				     NULL, p);
		}
		p = nl ? nl + 1 : NULL;
	}
}

void screen_help_open(struct ui *ui, const char *help_name, const char *title, const struct ui_key *keys)
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
	add_text(h, text, keys);
	free(text);
	ui_push(ui, &screen_help_ops, h);
}
