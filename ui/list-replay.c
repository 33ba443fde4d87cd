/* The process list on a recording (pscope -r FILE): the time bar, the
 * keys that step through the intervals ([ ] one, { } ten) and jump to a
 * time (:), and the keys that act on live processes refused (a recorded
 * PID may name another process now). */
#include "list.h"
#include "draw.h"
#include "i18n.h"
#include "record/record.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>
#include <string.h>

/* The interval shown: which of how many, when, where in the recording. */
int list_replay_bar(struct list_state *ls, int y, int width)
{
	const struct snap_list *s = ls->snap;
	char t[64], text[256];

	if (!s || !s->rec.on)
		return y;
	snprintf(text, sizeof(text), _(" %s  interval %zu/%zu  %+.1f s "), rec_fmt_time(s->h.wall, t, sizeof(t)), s->rec.i + 1,
		 s->rec.n, s->h.wall - s->rec.start);
	const char *hint = _("  [ ] { } :  ");
	draw_blank(y, 0, width, draw_attr(COL_TITLE));
	int x = draw_text(y, 0, width, draw_attr(COL_TITLE), text);
	int hw = draw_width(hint);
	if (width - x - hw >= 12)
		draw_text(y, width - hw, hw, draw_attr(COL_TITLE), hint);
	else
		hw = 0;
	/* The bar: the recording from its start to its end, the interval's
	 * place marked. */
	int bw = width - x - hw - 2;
	if (bw >= 8) {
		double span = s->rec.end - s->rec.start;
		int at = span > 0 ? (int)((s->h.wall - s->rec.start) / span * (bw - 1) + 0.5) : bw - 1;
		if (at < 0)
			at = 0;
		if (at > bw - 1)
			at = bw - 1;
		draw_text(y, x, 1, draw_attr(COL_TITLE), "[");
		for (int i = 0; i < bw; i++)
			draw_text(y, x + 1 + i, 1, draw_attr(i == at ? COL_SELECT : COL_TITLE),
				  i == at ? draw_sym("\u25c6", "#") : i < at ? draw_sym("\u2501", "=") : draw_sym("\u2500", "-"));
		draw_text(y, x + 1 + bw, 1, draw_attr(COL_TITLE), "]");
	}
	return y + 1;
}

/* Keys that act on the processes running now: refused on a recording. */
static bool acts_live(int ch)
{
	static const int keys[] = { '\n', '\r', KEY_ENTER, 'k', KEY_F(9), KEY_F(7), KEY_F(8), 'a', 'i',
				    'e', 'w', 'A', 's', 'h', 'W', 'C' };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i] == ch)
			return true;
	return false;
}

static void go(struct list_state *ls, long i)
{
	ls->replay_at = 0;
	ls->replay_i = i < 0 ? 0 : i;
	list_want(ls, true);
}

enum ui_key_result list_replay_key(struct ui *ui, struct list_state *ls, int ch)
{
	const struct snap_list *s = ls->snap;
	long i = s && s->rec.on ? (long)s->rec.i : ls->replay_i;

	switch (ch) {
	case '[': go(ls, i - 1); return UI_KEY_DONE;
	case ']': go(ls, i + 1); return UI_KEY_DONE;
	case '{': go(ls, i - 10); return UI_KEY_DONE;
	case '}': go(ls, i + 10); return UI_KEY_DONE;
	case ':': {
		char buf[80] = "";
		double at;
		struct ps_error e;
		if (!s || !s->rec.on)
			return UI_KEY_DONE;
		if (!ui_prompt(ui, _("Go to (HH:MM[:SS], YYYY-MM-DD HH:MM, +30s from the start, -10m from the end): "), buf,
			       sizeof(buf)) || !buf[0])
			return UI_KEY_DONE;
		ps_error_clear(&e);
		if (rec_time_parse(buf, s->rec.start, s->rec.end, &at, &e) < 0) {
			ui_message(ui, true, "%s", e.msg);
			return UI_KEY_DONE;
		}
		ls->replay_at = at;
		list_want(ls, true);
		return UI_KEY_DONE;
	}
	default:
		break;
	}
	if (acts_live(ch)) {
		ui_message(ui, true, "%s",
			   _("a recording is shown: this key acts on live processes (a recorded PID may name another process now)"));
		return UI_KEY_DONE;
	}
	return UI_KEY_NEXT;
}

/* After a jump the source answers with the interval nearest the time:
 * from then on, steps count from it. */
void list_replay_seen(struct ui *ui, struct list_state *ls)
{
	const struct snap_list *s = ls->snap;

	if (!s || !s->rec.on)
		return;
	if (ls->replay_at > 0) {
		ls->replay_at = 0;
		ls->replay_i = (long)s->rec.i;
		list_want(ls, false);
	}
	if (!ls->replay_said) {
		ls->replay_said = true;
		if (s->rec.torn)
			ui_message(ui, true, "%s", _("this recording has a torn tail (the recorder was stopped while writing): skipped"));
		else if (s->rec.unclosed)
			ui_message(ui, false, "%s", _("this recording was not closed (the recorder was killed, or still runs)"));
		else if (s->rec.scanned)
			ui_message(ui, true, "%s", _("this recording's index is damaged: its intervals were found by a scan"));
	}
}
