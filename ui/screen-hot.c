/* Hot functions: a live, perf-sampled table of one process's functions.
 * The sampler job publishes immutable snapshots; this screen only keeps the
 * newest one (or the frozen one) and computes its table from it. */
#include "uipriv.h"
#include "source/source.h"
#include "draw.h"
#include "hot.h"
#include "doors/doors.h"
#include "i18n.h"
#include "out/folded.h"
#include "sample/sample.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <math.h>
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Keep the selection on a row and remember which function it is. */
static void clamp_sel(struct hot_state *h)
{
	table_set_count(&h->tab, (int)h->view.nrows);
	if (h->view.nrows)
		h->sel_func = h->view.rows[h->tab.sel].func;
}

void hot_refresh_view(struct hot_state *h)
{
	if (!h->samp.stale || !ui_samp_profile(&h->samp))
		return;
	samp_view_free(&h->view);
	samp_view_compute(ui_samp_profile(&h->samp), h->samp.win, h->samp.tid, h->samp.sort, &h->view);
	h->samp.stale = false;
	table_set_count(&h->tab, (int)h->view.nrows);
	/* Follow the selected function, not the row number. */
	for (unsigned i = 0; i < h->view.nrows; i++)
		if (h->view.rows[i].func == h->sel_func) {
			table_select(&h->tab, (int)i);
			break;
		}
	clamp_sel(h);
	hot_rel_refresh(&h->rel, ui_samp_profile(&h->samp), h->samp.win, h->samp.tid);
	if (h->flame.open)
		flame_view_update(&h->flame, ui_samp_profile(&h->samp), h->samp.win, h->samp.tid);
	annot_view_update(&h->annot, ui_samp_profile(&h->samp), h->samp.win, h->samp.tid);
}

static void set_stale(struct hot_state *h)
{
	h->samp.stale = true;
}

static void next_thread(struct ui *ui, struct hot_state *h)
{
	const struct samp_snapshot *s = ui_samp_profile(&h->samp);
	const struct samp_thread *best = NULL;
	unsigned long cur = 0;

	if (!s || !s->nthreads)
		return;
	/* Threads ordered by samples (then TID): go to the one after the current. */
	for (unsigned i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == h->samp.tid)
			cur = s->threads[i].samples;
	for (unsigned i = 0; i < s->nthreads; i++) {
		const struct samp_thread *t = &s->threads[i];
		bool after = !h->samp.tid || t->samples < cur || (t->samples == cur && t->tid > h->samp.tid);
		if (!after)
			continue;
		if (!best || t->samples > best->samples || (t->samples == best->samples && t->tid < best->tid))
			best = t;
	}
	h->samp.tid = best ? best->tid : 0;
	if (h->samp.tid)
		ui_message(ui, false, _("only thread %d (%s); t: next thread, T: all threads"), (int)h->samp.tid, best->comm);
	else
		ui_message(ui, false, "%s", _("all threads"));
	set_stale(h);
}

static bool hot_message(void *ctx, struct ring_msg *m);

/* A new sampling job (the old one is cancelled): mode and frequency. */
static void restart(struct ui *ui, struct hot_state *h, enum samp_mode mode, int freq)
{
	struct samp_ctl *ctl = samp_ctl_new(freq);

	if (!ctl) {
		ui_message(ui, true, "%s", _("out of memory"));
		return;
	}
	samp_ctl_set_mode(ctl, mode);
	samp_ctl_set_idle(ctl, samp_ctl_idle(h->samp.ctl));
	samp_ctl_set_min_block(ctl, samp_ctl_min_block(h->samp.ctl));
	ui_samp_free(ui, &h->samp);
	h->samp.ctl = ctl;
	h->samp.wakers = false;
	struct job_handler jh = { hot_message, h };
	ui_samp_start(ui, &h->samp, &h->id, &jh);
	hot_rel_close(&h->rel);
	annot_view_close(&h->annot);
	table_select(&h->tab, 0);
	h->sel_func = UINT32_MAX;
}

/* p: Python frames (the CPython sampler) or native ones (perf). */
static void switch_view(struct ui *ui, struct hot_state *h)
{
	bool py = ui_samp_profile(&h->samp) ? ui_samp_profile(&h->samp)->python[0] != 0 : samp_ctl_mode(h->samp.ctl) != SAMP_MODE_NATIVE;

	int refused = samp_ctl_py_refused(h->samp.ctl);

	if (!py && refused) {
		/* The CPython sampler was tried first and cannot read this
		 * process: the native table stays. */
		if (refused == ENOENT)
			ui_message(ui, true, _("PID %d is not a CPython process (no _PyRuntime): no Python view, the native "
					       "table stays"), (int)h->id.pid);
		else
			ui_message(ui, true, _("the CPython sampler cannot read PID %d (%s): the native table stays"),
				   (int)h->id.pid, strerror(refused));
		return;
	}
	if (py) {
		restart(ui, h, SAMP_MODE_NATIVE, SAMP_FREQ_DEFAULT);
		ui_message(ui, false, _("native view: perf_event_open samples; p: Python view"));
	} else {
		restart(ui, h, SAMP_MODE_PYTHON, SAMP_PY_FREQ_DEFAULT);
		ui_message(ui, false, _("Python view: the CPython sampler; p: native view"));
	}
}

static bool func_matches(void *st, int row, const char *text)
{
	const struct hot_state *h = st;
	const struct samp_func *f = &ui_samp_profile(&h->samp)->funcs[h->view.rows[row].func];
	return strcasestr(f->name, text) || (f->module && strcasestr(f->module, text)) ||
	       (f->file && strcasestr(f->file, text));
}

/* '/': the next function whose name, module or file holds the text. */
static bool hot_find(void *st, const char *text, int dir, bool again)
{
	struct hot_state *h = st;
	bool r;

	if (!ui_samp_profile(&h->samp))
		return false;
	r = table_search(&h->tab, h->tab.sel + (again ? dir : 0), dir, text, h, func_matches);
	clamp_sel(h);
	return r;
}

/* The callers/callees view takes its keys first; the screen's other keys
 * work there too. */
static enum ui_key_result hot_mode(struct ui *ui, void *p, int ch)
{
	struct hot_state *h = p;

	hot_refresh_view(h);
	/* The annotated lines: the sampler's keys first (Space freezes them,
	 * not a page down), then the view's. */
	if (h->annot.open && ui_keys_dispatch(ui, ui_samp_keys, &h->samp, ch) == UI_KEY_DONE)
		return UI_KEY_DONE;
	if (annot_view_key(ui, &h->annot, ch) == UI_KEY_DONE)
		return UI_KEY_DONE;
	if (h->annot.open)
		return UI_KEY_NEXT;
	if (flame_view_key(ui, &h->flame, ch) == UI_KEY_DONE)
		return UI_KEY_DONE;
	if (h->rel.open && ui_samp_profile(&h->samp) && hot_rel_key(&h->rel, ch, ui_samp_profile(&h->samp), h->samp.win, h->samp.tid))
		return UI_KEY_DONE;
	return UI_KEY_NEXT;
}

static bool k_callers(struct ui *ui, void *p, int ch)
{
	struct hot_state *h = p;

	if (h->view.nrows)
		hot_rel_open(&h->rel, ui_samp_profile(&h->samp), h->samp.win, h->samp.tid, h->view.rows[h->tab.sel].func);
	return true;
}

/* a: the annotated lines of the selected function (the callers view:
 * of the function it is about). */
static bool k_annotate(struct ui *ui, void *p, int ch)
{
	struct hot_state *h = p;
	unsigned func = h->rel.open ? h->rel.func : h->view.nrows ? h->view.rows[h->tab.sel].func : UINT32_MAX;

	if (h->annot.open || !ui_samp_profile(&h->samp) || func == UINT32_MAX)
		return true;
	if (annot_view_open(&h->annot, ui, &h->id, ui_samp_profile(&h->samp), h->samp.win, func)) {
		h->annot.tid = h->samp.tid;
		h->flame.open = false;
		hot_rel_close(&h->rel);
	}
	return true;
}

static bool k_source(struct ui *ui, void *p, int ch)
{
	struct hot_state *h = p;

	h->show_src = !h->show_src;
	if (!h->show_src)
		ui_message(ui, false, "%s", _("l: source lines hidden (names only); l again shows them"));
	else if (draw_cols() >= HOT_SOURCE_COLS)
		ui_message(ui, false, "%s", _("l: the SOURCE column shows each function's file:line"));
	else
		ui_message(ui, false, _("l: each name ends in its line (name:LINE); the SOURCE column needs %d columns"),
			   HOT_SOURCE_COLS);
	return true;
}

static bool k_next_thread(struct ui *ui, void *p, int ch)
{
	next_thread(ui, p);
	return true;
}

static bool k_all_threads(struct ui *ui, void *p, int ch)
{
	struct hot_state *h = p;

	h->samp.tid = 0;
	set_stale(h);
	ui_message(ui, false, "%s", _("all threads"));
	return true;
}

/* g: the flame graph of the window, or the table again. */
static bool k_graph(struct ui *ui, void *p, int ch)
{
	struct hot_state *h = p;

	h->flame.open = !h->flame.open;
	if (h->flame.open)
		flame_view_update(&h->flame, ui_samp_profile(&h->samp), h->samp.win, h->samp.tid);
	return true;
}

static bool k_python(struct ui *ui, void *p, int ch)
{
	switch_view(ui, p);
	return true;
}

/* o: the off-CPU view (where the threads block, weighed by the time) or
 * the on-CPU one again. */
static bool k_offcpu(struct ui *ui, void *p, int ch)
{
	struct hot_state *h = p;

	if (samp_ctl_mode(h->samp.ctl) == SAMP_MODE_OFFCPU) {
		restart(ui, h, SAMP_MODE_AUTO, SAMP_FREQ_DEFAULT);
		ui_message(ui, false, "%s", _("on-CPU view: the samples of the running threads; o: off-CPU view"));
	} else {
		char buf[32];
		restart(ui, h, SAMP_MODE_OFFCPU, SAMP_FREQ_DEFAULT);
		ui_message(ui, false, _("off-CPU view: every block of %s or more, weighed by its time (ms); b: who woke them; o: on-CPU view"),
			   samp_unit_format(SAMP_UNIT_NS_BLOCKED, samp_ctl_min_block(h->samp.ctl), buf, sizeof(buf)));
	}
	return true;
}

/* b: the off-CPU view's wakers (who woke each thread, from where) or
 * its blocks again. */
static bool k_wakers(struct ui *ui, void *p, int ch)
{
	struct hot_state *h = p;

	if (samp_ctl_mode(h->samp.ctl) != SAMP_MODE_OFFCPU) {
		ui_message(ui, true, "%s", _("b shows who woke the blocks of the off-CPU view: o first"));
		return true;
	}
	h->samp.wakers = !h->samp.wakers;
	hot_rel_close(&h->rel);
	annot_view_close(&h->annot);
	table_select(&h->tab, 0);
	h->sel_func = UINT32_MAX;
	set_stale(h);
	ui_message(ui, false, "%s",
		   h->samp.wakers ? _("wakers: who woke each thread (the waker's name), from where (its stack); b: the blocks")
				  : _("the blocks: where each thread slept; b: who woke it"));
	return true;
}

/* < and >: the off-CPU view's shortest block weighed, a step down or up
 * (0.1 ms to 1 s); tracing starts again with it. */
static void step_min_block(struct ui *ui, void *p, int dir)
{
	static const uint64_t steps[] = { 100000, 200000, 500000, 1000000, 2000000, 5000000, 10000000, 20000000,
					  50000000, 100000000, 200000000, 500000000, 1000000000 };
	const size_t n = sizeof(steps) / sizeof(steps[0]);
	struct hot_state *h = p;
	uint64_t cur = samp_ctl_min_block(h->samp.ctl);
	size_t i = 0;
	char buf[32];

	if (samp_ctl_mode(h->samp.ctl) != SAMP_MODE_OFFCPU) {
		ui_message(ui, true, "%s", _("< and > set the shortest block of the off-CPU view: o first"));
		return;
	}
	while (i + 1 < n && steps[i] < cur)
		i++;
	if (dir < 0 && i > 0 && steps[i] >= cur)
		i--;
	else if (dir > 0 && i + 1 < n && steps[i] <= cur)
		i++;
	samp_ctl_set_min_block(h->samp.ctl, steps[i]);
	bool wakers = h->samp.wakers;
	restart(ui, h, SAMP_MODE_OFFCPU, SAMP_FREQ_DEFAULT);
	h->samp.wakers = wakers;
	ui_message(ui, false, _("off-CPU view: blocks of %s or more from now on (< and >)"),
		   samp_unit_format(SAMP_UNIT_NS_BLOCKED, steps[i], buf, sizeof(buf)));
}

static bool k_shorter(struct ui *ui, void *p, int ch)
{
	step_min_block(ui, p, -1);
	return true;
}

static bool k_longer(struct ui *ui, void *p, int ch)
{
	step_min_block(ui, p, 1);
	return true;
}

static bool k_idle(struct ui *ui, void *p, int ch)
{
	struct hot_state *h = p;

	if (!ui_samp_profile(&h->samp) || !ui_samp_profile(&h->samp)->python[0])
		return true;
	samp_ctl_set_idle(h->samp.ctl, !samp_ctl_idle(h->samp.ctl));
	ui_message(ui, false, samp_ctl_idle(h->samp.ctl) ? _("idle threads counted from now on")
						    : _("idle threads left out from now on"));
	return true;
}

static const struct ui_key hot_keys[] = {
	UI_SECTION(N_("Keys")),
	UI_KEY("Up/Down, j/k", NULL, NULL, N_("move the selection")),
	UI_KEY("PgUp/PgDn, Home/End", NULL, NULL, NULL),
	UI_KEY("Enter", k_callers, N_("Callers"),
	  N_("callers and callees of the selected function (from the call stacks); Enter there follows "
	     "one, Esc comes back"), '\n', '\r', KEY_ENTER),
	UI_KEY("a", k_annotate, N_("Src"),
	  N_("annotate the selected function: its source lines with each line's share of its samples, the "
	     "hottest highlighted (the figures of pscope top PID --annotate)"), 'a'),
	UI_USE(ui_samp_keys, struct hot_state, samp),
	UI_KEY("t / T", k_next_thread, N_("Thread"),
	  N_("show one thread only (next busiest with each t) / all"), 't'),
	UI_ALSO(k_all_threads, 'T'),
	UI_KEY("l", k_source, NULL,
	  N_("show or hide the source lines: the SOURCE column (file:line) from 100 columns, else the line "
	     "after each name (price_rules:13), so a Python function's hot lines stay apart"), 'l'),
	UI_KEY("Left/Right", NULL, NULL, N_("scroll long function names sideways")),
	UI_KEY("/, n, N", NULL, NULL,
	  N_("select the next function whose name, module or file holds a text; n / N the next / previous "
	     "one")),
	UI_KEY("p", k_python, N_("Py/nat"),
	  N_("CPython: Python view (the CPython sampler) / native view (perf); a CPython process opens in "
	     "the Python view"), 'p'),
	UI_KEY("o", k_offcpu, N_("OffCPU"),
	  N_("off-CPU view: where the threads block, each block of 1 ms or more weighed by the time until the "
	     "thread ran again (sched_switch tracepoints, CAP_PERFMON) / the on-CPU view again"), 'o'),
	UI_KEY("b", k_wakers, N_("Wakers"),
	  N_("off-CPU view: who woke the threads (the waker's name, then its stack) / the blocks again"), 'b'),
	UI_KEY("< / >", k_shorter, NULL,
	  N_("off-CPU view: weigh only blocks of at least a shorter / longer time (0.1 ms to 1 s; 1 ms at first)"), '<'),
	UI_ALSO(k_longer, '>'),
	UI_KEY("i", k_idle, NULL, N_("Python view: count idle threads too (left out by default)"), 'i'),
	UI_KEY("g", k_graph, N_("Flame"), N_("the window as a flame graph (callers on top) / the table again"), 'g'),
	UI_HELP_OF(flame_view_keys),
	UI_HELP_OF(annot_view_keys),
	UI_LOOP_AS("Esc", N_("Stop"), N_("stop sampling and go back"), 27),
	UI_LOOP("F1, ?", KEY_F(1), '?'),
	UI_KEYS_END,
};

/* Search and the list keys. */
static bool hot_key(struct ui *ui, void *p, int ch)
{
	struct hot_state *h = p;

	if (ui_search_key(ui, &h->search, ch, h->flame.open ? flame_view_find : hot_find,
			  h->flame.open ? (void *)&h->flame : (void *)h))
		return true;
	if (!table_key(&h->tab, ch, NULL, NULL))
		return false;
	clamp_sel(h);
	return true;
}

/* The sampler job's handler. */
static bool hot_message(void *ctx, struct ring_msg *m)
{
	struct hot_state *h = ctx;
	struct ui *ui = h->ui;

	if (!ui_samp_message(ui, &h->samp, m))
		return false;
	if (m->kind == RING_RESULT) {
		const struct samp_snapshot *sn = m->payload;
		if (sn->end_reason[0] && strcmp(sn->end_reason, _("the process exited")))
			ui_message(ui, true, _("PID %d: %s; sampling stopped"), (int)h->id.pid, sn->end_reason);
		else
			ui_message(ui, false, _("PID %d exited: sampling stopped, the last snapshot stays on screen"),
				   (int)h->id.pid);
	}
	return true;
}

static void hot_destroy(void *p)
{
	struct hot_state *h = p;

	/* Esc: stop sampling. */
	ui_samp_free(h->ui, &h->samp);
	samp_view_free(&h->view);
	hot_rel_close(&h->rel);
	flame_view_free(&h->flame);
	annot_view_close(&h->annot);
	free(h);
}

const struct screen_ops screen_hot_ops = {
	.name = N_("Hot functions"),
	.help = "hot",
	.keys = hot_keys,
	.fbar = "F1 Enter a Spc w s p g E Esc",
	.mode_key = hot_mode,
	.draw = hot_draw,
	.key = hot_key,
	.destroy = hot_destroy,
};

/* The process checked (it is the one the user saw, its name read):
 * sample it. */
static void hot_open_checked(struct ui *ui, const struct target_info *t)
{
	struct hot_state *h = calloc(1, sizeof(*h));

	if (!h)
		return;
	h->id = t->id;
	strlcpy_ps(h->comm, t->comm, sizeof(h->comm));
	h->ui = ui;
	h->samp.win = SAMP_WIN_10S;
	h->samp.freq_max = 3999;
	h->show_src = true;
	h->sel_func = UINT32_MAX; /* nothing chosen yet: the top row */
	table_init(&h->tab, NULL, 0, 0, false);
	h->tab.hkeys = true;
	hot_rel_init(&h->rel);
	h->samp.ctl = samp_ctl_new(SAMP_FREQ_DEFAULT);
	if (!h->samp.ctl) {
		free(h);
		return;
	}
	struct job_handler jh = { hot_message, h };
	if (!ui_samp_start(ui, &h->samp, &h->id, &jh)) {
		samp_ctl_put(h->samp.ctl);
		free(h);
		return;
	}
	ui_push(ui, &screen_hot_ops, h);
}

void screen_hot_open(struct ui *ui, const struct target_id *id)
{
	ui_check_target(ui, id, hot_open_checked);
}
