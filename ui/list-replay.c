/* The process list replaying a recording (pscope -r FILE): a time bar
 * over the list, keys that step one or ten intervals and jump to a time,
 * and a refusal of the keys that would act on the live processes that
 * happen to have the recorded PIDs now. What is shown is the recording
 * source's snapshot (src/source/record.c); sort, filter, tree and search
 * work on it as on a live one. */
#include "list.h"
#include "draw.h"
#include "i18n.h"
#include "keys.h"
#include "record/when.h"

#include <ncursesw/curses.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

bool list_is_replay(const void *st)
{
	return ((const struct list_state *)st)->replay;
}

static void go(struct list_state *ls, long i, double wall)
{
	ls->replay_at = i;
	ls->replay_wall = wall;
	list_want(ls, true);
}

static bool step(struct ui *ui, struct list_state *ls, long by)
{
	const struct snap_list *s = ls->snap;

	if (!s || !s->rec_n)
		return true;
	long i = (long)s->rec_i + by;
	if (i < 0)
		i = 0;
	if (i > (long)s->rec_n - 1)
		i = (long)s->rec_n - 1;
	if (i == (long)s->rec_i)
		ui_message(ui, false, "%s", by < 0 ? _("the first interval of the recording") : _("the last interval of the recording"));
	else
		go(ls, i, 0);
	return true;
}

static bool k_back(struct ui *ui, void *p, int ch) { return step(ui, p, -1); }
static bool k_fwd(struct ui *ui, void *p, int ch) { return step(ui, p, 1); }
static bool k_back10(struct ui *ui, void *p, int ch) { return step(ui, p, -10); }
static bool k_fwd10(struct ui *ui, void *p, int ch) { return step(ui, p, 10); }

static bool k_goto(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;
	const struct snap_list *s = ls->snap;
	char buf[64] = "";
	double t;

	if (!s || !s->rec_n || !ui_prompt(ui, _("Go to (HH:MM[:SS], YYYY-MM-DD HH:MM, +30s, -10m): "), buf, sizeof(buf)) || !buf[0])
		return true;
	if (rec_when_parse(buf, s->rec_last, s->rec_first, s->rec_last, &t) < 0) {
		ui_message(ui, true, _("invalid time '%s' (HH:MM[:SS], YYYY-MM-DD HH:MM[:SS], +30s from the start, -10m from the end)"), buf);
		return true;
	}
	if (t > s->rec_last + 43200 && strchr(buf, ':') && !strchr(buf, '-'))
		t -= 86400; /* HH:MM after a recording that ended before midnight */
	go(ls, -1, t > 0 ? t : 1);
	return true;
}

const struct ui_key list_replay_keys[] = {
	UI_SECTION(N_("Replaying a recording (pscope -r FILE)")),
	UI_KEY("[  ]", k_back, NULL, N_("one interval back / forward"), '['),
	UI_ALSO(k_fwd, ']'),
	UI_KEY("{  }", k_back10, NULL, N_("ten intervals back / forward"), '{'),
	UI_ALSO(k_fwd10, '}'),
	UI_KEY(":", k_goto, N_("GoTo"),
	  N_("go to a time: HH:MM[:SS], YYYY-MM-DD HH:MM[:SS], +30s from the start, -10m from the end; the "
	     "nearest interval is shown, its time on the bar"), ':'),
	UI_PROSE(N_("What acts on a process (Enter, signals, nice, affinity, I/O priority, the environment, "
	     "stacks, hot functions, cores) is refused: the PIDs of a recording are not the processes "
	     "running now.")),
	UI_KEYS_END,
};

bool list_replay_refuse(struct ui *ui, int ch)
{
	static const int live[] = { '\n', '\r', KEY_ENTER, 's', 'h', 'A', 'C', 'k', KEY_F(9), KEY_F(7), KEY_F(8),
				    'a', 'i', 'e', 'w', 'D', 0 };

	for (int i = 0; live[i]; i++) {
		if (live[i] == ch) {
			ui_message(ui, true, "%s", _("a recording: that key acts on live processes, not in a replay"));
			return true;
		}
	}
	return false;
}

/* " Replay FILE  2026-12-03 18:47:30  5/17  ━━━●────  [ ] { } : " */
void list_replay_draw(const struct list_state *ls, int y, int width)
{
	const struct snap_list *s = ls->snap;
	char when[64], left[512];
	int attr = draw_attr(COL_TITLE);

	draw_blank(y, 0, width, attr);
	if (!s || !s->rec_n) {
		draw_text(y, 1, width - 1, attr, _("Replay: reading the recording..."));
		return;
	}
	time_t t = (time_t)s->h.wall;
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(left, sizeof(left), _("Replay %s  %s  interval %zu/%zu "), ls->replay_name, when, s->rec_i + 1, s->rec_n);
	int x = 1 + draw_text(y, 1, width - 1, attr, left);
	const char *keys = _(" [ ] { } : ");
	int kw = (int)strlen(keys), bar = width - x - kw - 1;
	if (bar >= 8) {
		int at = s->rec_n > 1 ? (int)((double)s->rec_i * (bar - 1) / (double)(s->rec_n - 1) + 0.5) : 0;
		for (int i = 0; i < bar; i++)
			draw_text(y, x + i, 1, attr, i == at ? "\u25cf" : i < at ? "\u2501" : "\u2500");
		x += bar;
	}
	draw_text(y, x, width - x, attr, keys);
}
