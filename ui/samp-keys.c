/* The sampler keys of every profile screen (job.h): one handler for the
 * hot functions of a process and the hot processes of the machine. */
#include "job.h"
#include "keys.h"
#include "uipriv.h"
#include "i18n.h"
#include "out/folded.h"
#include "out/svg.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>

static const int native_steps[] = { 49, 99, 199, 499, 999, 1999, 3999 };
static const int python_steps[] = { 10, 20, 50, 100, 200, 500, 1000 };
static const char *const window_words[SAMP_WIN_COUNT] = { "1s", "10s", "60s", "all" };

void ui_samp_export_name(char *buf, size_t size, pid_t pid, enum samp_window w, const char *ext)
{
	const char *win = (unsigned)w < SAMP_WIN_COUNT ? window_words[w] : "all";

	if (pid > 0)
		snprintf(buf, size, "pscope-%d-%s.%s", (int)pid, win, ext);
	else
		snprintf(buf, size, "pscope-all-%s.%s", win, ext);
}

static bool k_freeze(struct ui *ui, void *st, int ch)
{
	ui_samp_freeze(ui, st);
	return true;
}

static bool k_window(struct ui *ui, void *st, int ch)
{
	struct ui_samp_job *s = st;

	s->win = (s->win + 1) % SAMP_WIN_COUNT;
	s->stale = true;
	return true;
}

static bool k_sort(struct ui *ui, void *st, int ch)
{
	struct ui_samp_job *s = st;

	s->sort = (s->sort + 1) % SAMP_SORT_COUNT;
	s->stale = true;
	return true;
}

/* The CPython sampler's rates, or perf's up to freq_max. */
static void step(struct ui *ui, struct ui_samp_job *s, int dir)
{
	int n = (int)(sizeof(native_steps) / sizeof(native_steps[0]));

	if (s->shown && s->shown->python[0]) {
		ui_samp_step_freq(ui, s, python_steps, (int)(sizeof(python_steps) / sizeof(python_steps[0])), dir);
		return;
	}
	while (s->freq_max && n > 1 && native_steps[n - 1] > s->freq_max)
		n--;
	ui_samp_step_freq(ui, s, native_steps, n, dir);
}

static bool k_faster(struct ui *ui, void *st, int ch)
{
	step(ui, st, +1);
	return true;
}

static bool k_slower(struct ui *ui, void *st, int ch)
{
	step(ui, st, -1);
	return true;
}

/* The file to write the window to (ext: its kind), as the user names it;
 * false when there is nothing to write or the user gave up. */
static bool ask_file(struct ui *ui, const struct ui_samp_job *s, const char *ext, const char *question, char *path,
		     size_t size)
{
	if (!s->shown) {
		ui_message(ui, true, "%s", _("nothing sampled yet"));
		return false;
	}
	ui_samp_export_name(path, size, s->pid, s->win, ext);
	return ui_ask_file(ui, question, path, size);
}

/* E: the window's stacks, folded, to a file the user names. */
static bool k_export(struct ui *ui, void *st, int ch)
{
	struct ui_samp_job *s = st;
	char path[512];
	struct ps_error e;
	unsigned long total = 0;

	if (!ask_file(ui, s, "folded", _("Export folded stacks to: "), path, sizeof(path)))
		return true;
	ps_error_clear(&e);
	if (out_folded_save(path, ui_samp_profile(s), s->win, s->tid, &total, &e) < 0) {
		ui_error(ui, &e);
		return true;
	}
	ui_message(ui, false, P_("wrote %lu sample (window %s, %s) to %s", "wrote %lu samples (window %s, %s) to %s", total),
		   total, samp_window_name(s->win),
		   !s->pid ? _("every process") : s->tid ? _("one thread") : _("all threads"), path);
	return true;
}

/* G: the window as an interactive SVG flame graph. */
static bool k_svg(struct ui *ui, void *st, int ch)
{
	struct ui_samp_job *s = st;
	char path[512];
	struct ps_error e;
	unsigned long long total = 0;

	if (!ask_file(ui, s, "svg", _("Write the flame graph (SVG) to: "), path, sizeof(path)))
		return true;
	ps_error_clear(&e);
	if (out_profile_save(path, out_svg_write, ui_samp_profile(s), s->win, s->tid, &total, &e) < 0) {
		ui_error(ui, &e);
		return true;
	}
	ui_message(ui, false, _("wrote the flame graph of window %s (%llu %s) to %s"), samp_window_name(s->win), total,
		   samp_unit_key(ui_samp_profile(s)->unit), path);
	return true;
}

const struct ui_key ui_samp_keys[] = {
	{ .keys = "Space", .bar = "Spc", .fn = k_freeze, .label = N_("Freeze"),
	  .help = N_("freeze the view to read it (sampling continues)"), .codes = { ' ' } },
	UI_KEY("w", k_window, N_("Window"), N_("window: 1 s, 10 s, 60 s (rolling) or all since start"), 'w'),
	UI_KEY("s, F6", k_sort, N_("Sort"),
	       N_("sort by Self% (a process: its share), Total% (a process: its /proc CPU) or name"), 's', KEY_F(6)),
	{ .keys = "+ / -", .bar = "+-", .fn = k_faster, .label = N_("Rate"),
	  .help = N_("sampling frequency up / down (49, 99, 199, 499, 999, 1999, 3999 Hz; every process: up to 999 "
		     "Hz); the events are reopened at the new rate"),
	  .codes = { '+', '=' } },
	UI_ALSO(k_slower, '-'),
	UI_KEY("E", k_export, N_("Export"),
	       N_("export the window as folded stacks (thread;outer;...;leaf count, every process: "
		  "command-PID;outer;...;leaf count), for flamegraph.pl or speedscope; the result line wraps when "
		  "the path is long"),
	       'E'),
	UI_KEY("G", k_svg, N_("SVG"),
	       N_("write the window as an interactive flame graph (SVG: hover, click to zoom, search) for a "
		  "browser"),
	       'G'),
	UI_KEYS_END,
};
