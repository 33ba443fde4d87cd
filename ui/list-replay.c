/* The process list on a recording (pscope -r FILE): the time bar, the
 * keys that step through the intervals ([ ] one, { } ten) and jump to a
 * time (:), and the keys that act on live processes refused (a recorded
 * PID may name another process now). */
#include "list.h"
#include "draw.h"
#include "i18n.h"
#include "keys.h"
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

static void go(struct list_state *ls, long i)
{
	ls->replay_at = 0;
	ls->replay_i = i < 0 ? 0 : i;
	list_want(ls, true);
}

/* The interval shown (before the source answered a jump: the one asked). */
static long shown(const struct list_state *ls)
{
	return ls->snap && ls->snap->rec.on ? (long)ls->snap->rec.i : ls->replay_i;
}

static bool k_prev(struct ui *ui, void *p, int ch)
{
	go(p, shown(p) - 1);
	return true;
}

static bool k_next(struct ui *ui, void *p, int ch)
{
	go(p, shown(p) + 1);
	return true;
}

static bool k_back10(struct ui *ui, void *p, int ch)
{
	go(p, shown(p) - 10);
	return true;
}

static bool k_fwd10(struct ui *ui, void *p, int ch)
{
	go(p, shown(p) + 10);
	return true;
}

static bool k_goto(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;
	const struct snap_list *s = ls->snap;
	char buf[80] = "";
	double at;
	struct ps_error e;

	if (!s || !s->rec.on)
		return true;
	if (!ui_prompt(ui, _("Go to (HH:MM[:SS], YYYY-MM-DD HH:MM, +30s from the start, -10m from the end): "), buf,
		       sizeof(buf)) || !buf[0])
		return true;
	ps_error_clear(&e);
	if (rec_time_parse(buf, s->rec.start, s->rec.end, &at, &e) < 0) {
		ui_message(ui, true, "%s", e.msg);
		return true;
	}
	ls->replay_at = at;
	list_want(ls, true);
	return true;
}

/* Keys that act on the processes running now: refused. */
static bool k_live(struct ui *ui, void *p, int ch)
{
	ui_message(ui, true, "%s",
		   _("a recording is shown: this key acts on live processes (a recorded PID may name another process now)"));
	return true;
}

const struct ui_key list_replay_keys[] = {
	UI_SECTION(N_("On a recording (pscope -r FILE)")),
	UI_KEY("[  ]", k_prev, NULL, N_("the interval before / after"), '['),
	UI_ALSO(k_next, ']'),
	UI_KEY("{  }", k_back10, NULL, N_("ten intervals back / forward"), '{'),
	UI_ALSO(k_fwd10, '}'),
	UI_KEY(":", k_goto, NULL,
	  N_("go to a time: HH:MM[:SS], YYYY-MM-DD HH:MM, +30s from the start, -10m from the end (the nearest "
	     "interval)"), ':'),
	UI_PROSE(N_("Keys that act on processes (signals, nice, the detail, stack, hot and core screens) are "
	     "refused: a recorded PID may name another process now.")),
	UI_ALSO(k_live, '\n', '\r', KEY_ENTER, 'k', KEY_F(9)),
	UI_ALSO(k_live, KEY_F(7), KEY_F(8), 'a', 'i', 'e'),
	UI_ALSO(k_live, 'w', 'A', 's', 'h', 'W', 'C', 'R'),
	UI_KEYS_END,
};

enum ui_key_result list_replay_key(struct ui *ui, struct list_state *ls, int ch)
{
	return ui_keys_dispatch(ui, list_replay_keys, ls, ch);
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
