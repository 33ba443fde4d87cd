/* '/' in every pane and screen: one prompt, one "not found", the same keys
 * (n / F3 the next match, N / Shift-F3 the previous one). The view finds
 * the match itself (table_search over its rows). */
#include "uipriv.h"
#include "i18n.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>

bool ui_search_key(struct ui *ui, struct ui_search *s, int ch, ui_find_fn find, void *st)
{
	int dir;
	bool again;

	switch (ch) {
	case '/': dir = +1; again = false; break;
	case 'n': case KEY_F(3): dir = +1; again = true; break;
	case 'N': case KEY_F(15): dir = -1; again = true; break; /* F15: Shift-F3 */
	default: return false;
	}
	if (!find) {
		ui_message(ui, false, "%s", _("nothing to search here"));
		return true;
	}
	if (again && !s->text[0])
		again = false; /* n before any '/': ask */
	if (!again && !ui_prompt(ui, _("Search: "), s->text, sizeof(s->text)))
		return true;
	if (s->text[0] && !find(st, s->text, dir, again))
		ui_message(ui, true, _("not found: %s"), s->text);
	return true;
}
