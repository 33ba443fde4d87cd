/* Hot functions: a live, perf-sampled table of one process's functions.
 * The sampler job publishes immutable snapshots; this screen only keeps the
 * newest one (or the frozen one) and computes its table from it. */
#include "screen-hot.h"
#include "draw.h"
#include "i18n.h"
#include "table.h"
#include "doors.h"
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

static const int freq_steps[] = { 49, 99, 199, 499, 999, 1999, 3999 };
static const int py_freq_steps[] = { 10, 20, 50, 100, 200, 500, 1000 };


static void rel_free(struct hot_state *h)
{
	free(h->callers);
	free(h->callees);
	h->callers = h->callees = NULL;
	h->ncallers = h->ncallees = 0;
}

/* The callers/callees view is a list of lines: the "Callers" title, the
 * callers, a blank, the "Callees" title, the callees. */
static void rel_lines(struct hot_state *h)
{
	table_set_count(&h->rel_tab, (int)(h->ncallers + h->ncallees) + 3);
}

/* The function on line i of that view; -1 for a title or the blank. */
static long rel_func_at(const struct hot_state *h, int i)
{
	int nc = (int)h->ncallers;

	if (i >= 1 && i <= nc)
		return h->callers[i - 1].func;
	if (i >= nc + 3 && i < nc + 3 + (int)h->ncallees)
		return h->callees[i - nc - 3].func;
	return -1;
}

/* Only functions are selected: step off a title or the blank in direction
 * dir (or back the other way at the end). */
static void rel_step(struct hot_state *h, int dir)
{
	struct table *t = &h->rel_tab;

	for (int pass = 0; pass < 2; pass++, dir = -dir)
		for (int i = t->sel; i >= 0 && i < t->n; i += dir)
			if (rel_func_at(h, i) >= 0) {
				table_select(t, i);
				return;
			}
}

/* Keep the selection on a row and remember which function it is. */
static void clamp_sel(struct hot_state *h)
{
	table_set_count(&h->tab, (int)h->view.nrows);
	if (h->view.nrows)
		h->sel_func = h->view.rows[h->tab.sel].func;
}

static void refresh_view(struct hot_state *h)
{
	if (!h->view_stale || !h->shown)
		return;
	samp_view_free(&h->view);
	samp_view_compute(h->shown, h->win, h->tid, h->sort, &h->view);
	h->view_stale = false;
	table_set_count(&h->tab, (int)h->view.nrows);
	/* Follow the selected function, not the row number. */
	for (unsigned i = 0; i < h->view.nrows; i++)
		if (h->view.rows[i].func == h->sel_func) {
			table_select(&h->tab, (int)i);
			break;
		}
	clamp_sel(h);
	if (h->rel) {
		rel_free(h);
		samp_view_relations(h->shown, h->win, h->tid, h->rel_func, &h->callers, &h->ncallers, &h->callees,
				    &h->ncallees);
		rel_lines(h);
		rel_step(h, 1);
	}
}


static void hot_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct hot_state *h = p;
	(void)ui;

	refresh_view(h);
	hot_draw_status(h, y0);
	if (h->have_err) {
		char buf[1024];
		int y = y0 + 2, end = y0 + rows;
		draw_text(y++, 1, -1, draw_attr(COL_ERROR) | A_BOLD, "sampling could not start:");
		y = hot_draw_wrapped(y, end, h->err.msg, draw_attr(COL_ERROR));
		if (h->err.fix[0]) {
			snprintf(buf, sizeof(buf), "door: %s", door_name(h->err.door));
			y = hot_draw_wrapped(y, end, buf, draw_attr(COL_WARN));
			snprintf(buf, sizeof(buf), "fix: %s", h->err.fix);
			y = hot_draw_wrapped(y, end, buf, draw_attr(COL_WARN));
		}
		if (y + 1 < end)
			draw_text(y + 1, 1, -1, draw_attr(COL_DIM), "Esc returns. D shows every door.");
		return;
	}
	if (!h->shown) {
		draw_textf(y0 + 2, 1, -1, draw_attr(COL_DIM), "sampling at %d Hz; the first snapshot comes after one second...",
			   samp_ctl_freq(h->ctl));
		return;
	}
	if (rows <= 4)
		return;
	if (h->rel)
		hot_draw_rel(h, y0 + 3, rows - 3);
	else
		hot_draw_table(h, y0 + 3, rows - 3);
}

static void set_stale(struct hot_state *h)
{
	h->view_stale = true;
}

static void export_folded(struct ui *ui, struct hot_state *h)
{
	char path[512];
	struct ps_error e;
	unsigned long total = 0;

	if (!h->shown) {
		ui_message(ui, true, "nothing sampled yet");
		return;
	}
	snprintf(path, sizeof(path), "pscope-%d-%s.folded", (int)h->id.pid,
		 h->win == SAMP_WIN_ALL ? "all" : h->win == SAMP_WIN_1S ? "1s" : h->win == SAMP_WIN_10S ? "10s" : "60s");
	if (!ui_prompt(ui, "Export folded stacks to: ", path, sizeof(path)) || !path[0])
		return;
	if (access(path, F_OK) == 0 && !ui_confirm(ui, "File exists. Overwrite?"))
		return;
	ps_error_clear(&e);
	if (out_folded_save(path, h->shown, h->win, h->tid, &total, &e) < 0) {
		ui_error(ui, &e);
		return;
	}
	ui_message(ui, false, "wrote %lu samples (window %s, %s) to %s", total, samp_window_name(h->win),
		   h->tid ? "one thread" : "all threads", path);
}

static void next_thread(struct ui *ui, struct hot_state *h)
{
	const struct samp_snapshot *s = h->shown;
	const struct samp_thread *best = NULL;
	unsigned long cur = 0;

	if (!s || !s->nthreads)
		return;
	/* Threads ordered by samples (then TID): go to the one after the current. */
	for (unsigned i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == h->tid)
			cur = s->threads[i].samples;
	for (unsigned i = 0; i < s->nthreads; i++) {
		const struct samp_thread *t = &s->threads[i];
		bool after = !h->tid || t->samples < cur || (t->samples == cur && t->tid > h->tid);
		if (!after)
			continue;
		if (!best || t->samples > best->samples || (t->samples == best->samples && t->tid < best->tid))
			best = t;
	}
	h->tid = best ? best->tid : 0;
	if (h->tid)
		ui_message(ui, false, "only thread %d (%s); t: next thread, T: all threads", (int)h->tid, best->comm);
	else
		ui_message(ui, false, "all threads");
	set_stale(h);
}

static void change_freq(struct ui *ui, struct hot_state *h, int dir)
{
	bool py = h->shown && h->shown->python[0];
	const int *steps = py ? py_freq_steps : freq_steps;
	int cur = samp_ctl_freq(h->ctl), i;
	int n = py ? (int)(sizeof(py_freq_steps) / sizeof(py_freq_steps[0])) : (int)(sizeof(freq_steps) / sizeof(freq_steps[0]));

	if (dir > 0) {
		for (i = 0; i < n && freq_steps[i] <= cur; i++)
			;
		if (i == n)
			i = n - 1;
	} else {
		for (i = n - 1; i >= 0 && freq_steps[i] >= cur; i--)
			;
		if (i < 0)
			i = 0;
	}
	samp_ctl_set_freq(h->ctl, steps[i]);
	ui_message(ui, false, "sampling at %d Hz from the next snapshot%s", steps[i],
		   h->running ? "" : " (sampling has stopped)");
}

static bool hot_message(void *ctx, struct ring_msg *m);

/* A new sampling job (the old one is cancelled): mode and frequency. */
static void restart(struct ui *ui, struct hot_state *h, enum samp_mode mode, int freq)
{
	struct samp_ctl *ctl = samp_ctl_new(freq);

	if (!ctl) {
		ui_message(ui, true, "out of memory");
		return;
	}
	samp_ctl_set_mode(ctl, mode);
	samp_ctl_set_idle(ctl, samp_ctl_idle(h->ctl));
	if (h->running)
		workers_cancel(ui->workers, h->job);
	workers_forget(ui->workers, h->job);
	samp_ctl_put(h->ctl);
	h->ctl = ctl;
	struct job_handler jh = { hot_message, h };
	h->job = samp_job_submit(ui->workers, &h->id, h->ctl, &jh);
	h->running = h->job != 0;
	samp_snapshot_free(h->shown);
	samp_snapshot_free(h->pending);
	h->shown = h->pending = NULL;
	h->have_err = false;
	h->rel = false;
	table_select(&h->tab, 0);
	h->sel_func = UINT32_MAX;
	set_stale(h);
}

/* p: Python frames (the CPython sampler) or native ones (perf). */
static void switch_view(struct ui *ui, struct hot_state *h)
{
	bool py = h->shown ? h->shown->python[0] != 0 : samp_ctl_mode(h->ctl) != SAMP_MODE_NATIVE;

	if (py) {
		restart(ui, h, SAMP_MODE_NATIVE, SAMP_FREQ_DEFAULT);
		ui_message(ui, false, _("native view: perf_event_open samples; p: Python view"));
	} else {
		restart(ui, h, SAMP_MODE_PYTHON, SAMP_PY_FREQ_DEFAULT);
		ui_message(ui, false, _("Python view: the CPython sampler; p: native view"));
	}
}

static void open_rel(struct hot_state *h, unsigned func)
{
	h->rel = true;
	h->rel_func = func;
	rel_free(h);
	samp_view_relations(h->shown, h->win, h->tid, func, &h->callers, &h->ncallers, &h->callees, &h->ncallees);
	rel_lines(h);
	table_select(&h->rel_tab, 0);
	rel_step(h, 1);
}

static bool hot_key(struct ui *ui, void *p, int ch)
{
	struct hot_state *h = p;

	refresh_view(h);
	if (h->rel && h->shown) {
		int before = h->rel_tab.sel;
		long f = rel_func_at(h, before);
		switch (ch) {
		case '\n': case '\r': case KEY_ENTER:
			if (f >= 0)
				open_rel(h, (unsigned)f);
			return true;
		case 27: case KEY_LEFT: case KEY_BACKSPACE:
			h->rel = false;
			rel_free(h);
			return true;
		default:
			if (table_key(&h->rel_tab, ch, NULL, NULL)) {
				rel_step(h, h->rel_tab.sel < before ? -1 : 1);
				return true;
			}
			break; /* the table's other keys below work here too */
		}
	}
	switch (ch) {
	case '\n': case '\r': case KEY_ENTER:
		if (h->view.nrows)
			open_rel(h, h->view.rows[h->tab.sel].func);
		return true;
	case ' ':
		h->frozen = !h->frozen;
		if (!h->frozen && h->pending) {
			samp_snapshot_free(h->shown);
			h->shown = h->pending;
			h->pending = NULL;
			set_stale(h);
		}
		ui_message(ui, false, h->frozen ? "view frozen (sampling continues); Space resumes" : "view live");
		return true;
	case 'w':
		h->win = (h->win + 1) % SAMP_WIN_COUNT;
		set_stale(h);
		return true;
	case 's': case KEY_F(6):
		h->sort = (h->sort + 1) % SAMP_SORT_COUNT;
		set_stale(h);
		return true;
	case 'l':
		h->show_src = !h->show_src;
		return true;
	case '+': case '=':
		change_freq(ui, h, 1);
		return true;
	case '-':
		change_freq(ui, h, -1);
		return true;
	case 't':
		next_thread(ui, h);
		return true;
	case 'T':
		h->tid = 0;
		set_stale(h);
		ui_message(ui, false, "all threads");
		return true;
	case 'E':
		export_folded(ui, h);
		return true;
	case 'p':
		switch_view(ui, h);
		return true;
	case 'i':
		if (!h->shown || !h->shown->python[0])
			return true;
		samp_ctl_set_idle(h->ctl, !samp_ctl_idle(h->ctl));
		ui_message(ui, false, samp_ctl_idle(h->ctl) ? _("idle threads counted from now on")
							    : _("idle threads left out from now on"));
		return true;
	default:
		if (!table_key(&h->tab, ch, NULL, NULL))
			return false;
		break;
	}
	clamp_sel(h);
	return true;
}

/* The sampler job's handler. */
static bool hot_message(void *ctx, struct ring_msg *m)
{
	struct hot_state *h = ctx;
	struct ui *ui = h->ui;

	switch (m->kind) {
	case RING_SNAPSHOT:
	case RING_RESULT:
		if (!m->payload)
			return false;
		if (h->frozen) {
			samp_snapshot_free(h->pending);
			h->pending = m->payload;
		} else {
			samp_snapshot_free(h->shown);
			h->shown = m->payload;
			set_stale(h);
		}
		if (m->kind == RING_RESULT)
			ui_message(ui, false, "PID %d exited: sampling stopped, the last snapshot stays on screen",
				   (int)h->id.pid);
		return true;
	case RING_PROGRESS:
		ui_message(ui, true, "%s", m->text);
		return false;
	case RING_ERROR:
		h->err = m->err;
		h->have_err = true;
		return false;
	case RING_DONE:
		h->running = false;
		return false;
	default:
		return false;
	}
}

static void hot_destroy(void *p)
{
	struct hot_state *h = p;

	/* Esc: stop sampling. The job closes its events on its own thread.
	 * On quit the workers are already gone (and cancelled every job). */
	if (h->ui->workers) {
		if (h->running)
			workers_cancel(h->ui->workers, h->job);
		workers_forget(h->ui->workers, h->job);
	}
	samp_ctl_put(h->ctl);
	samp_view_free(&h->view);
	rel_free(h);
	samp_snapshot_free(h->shown);
	samp_snapshot_free(h->pending);
	free(h);
}

static const struct ui_fkey hot_fkeys[] = {
	{ "F1", "Help" }, { "Enter", "Callers" }, { "Spc", "Freeze" }, { "w", "Window" }, { "s", "Sort" },
	{ "+-", "Rate" }, { "t", "Thread" }, { "p", "Py/nat" }, { "E", "Export" }, { "Esc", "Stop" }, { NULL, NULL },
};

static const struct screen_ops hot_ops = {
	.name = "Hot functions",
	.help = "hot",
	.fkeys = hot_fkeys,
	.draw = hot_draw,
	.key = hot_key,
	.destroy = hot_destroy,
};

void screen_hot_open(struct ui *ui, const struct target_id *id)
{
	struct hot_state *h = calloc(1, sizeof(*h));
	struct target t;
	struct ps_error e;

	if (!h)
		return;
	ps_error_clear(&e);
	if (target_open(&t, id->pid, id, &e) < 0) {
		free(h);
		ui_error(ui, &e);
		return;
	}
	h->id = t.id;
	strlcpy_ps(h->comm, t.comm, sizeof(h->comm));
	target_close(&t);
	h->ui = ui;
	h->win = SAMP_WIN_10S;
	h->show_src = true;
	h->sel_func = UINT32_MAX; /* nothing chosen yet: the top row */
	table_init(&h->tab, NULL, 0, 0, false);
	table_init(&h->rel_tab, NULL, 0, 0, false);
	h->ctl = samp_ctl_new(SAMP_FREQ_DEFAULT);
	if (!h->ctl) {
		free(h);
		return;
	}
	struct job_handler jh = { hot_message, h };
	h->job = samp_job_submit(ui->workers, &h->id, h->ctl, &jh);
	if (!h->job) {
		samp_ctl_put(h->ctl);
		free(h);
		ui_message(ui, true, "out of memory");
		return;
	}
	h->running = true;
	ui_push(ui, &hot_ops, h);
}
