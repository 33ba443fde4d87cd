/* Hot functions: a live, perf-sampled table of one process's functions.
 * The sampler job publishes immutable snapshots; this screen only keeps the
 * newest one (or the frozen one) and computes its table from it. */
#include "uipriv.h"
#include "draw.h"
#include "hot-rel.h"
#include "table.h"
#include "doors.h"
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

static const int freq_steps[] = { 49, 99, 199, 499, 999, 1999, 3999 };
static const int py_freq_steps[] = { 10, 20, 50, 100, 200, 500, 1000 };

struct hot_state {
	struct ui *ui;
	struct target_id id;
	char comm[64];
	unsigned job;
	bool running;
	struct samp_ctl *ctl;
	struct samp_snapshot *shown;   /* drawn */
	struct samp_snapshot *pending; /* newest while frozen */
	bool frozen;
	enum samp_window win;
	enum samp_sort sort;
	pid_t tid;                     /* thread filter, 0 = all */
	bool show_src;
	struct samp_view view;
	bool view_stale;
	struct table tab;              /* rows: view.rows[] in the view's order */
	unsigned sel_func;             /* keeps the selection across refreshes */
	struct hot_rel rel;            /* callers/callees of one function */
	struct ps_error err;
	bool have_err;
	struct ui_search search;
};

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
	hot_rel_refresh(&h->rel, h->shown, h->win, h->tid);
}

static const char *spark_chars(void)
{
	return MB_CUR_MAX > 1 ? "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588" : ".:-=+*#@";
}

/* Self% over the last minute in w columns (each the mean of its seconds). */
static void sparkline(const struct samp_row *r, int w, char *out, size_t size)
{
	const char *set = spark_chars();
	int step = MB_CUR_MAX > 1 ? 3 : 1; /* bytes per glyph */
	size_t o = 0;

	for (int c = 0; c < w; c++) {
		int a = c * SAMP_HISTORY / w, b = (c + 1) * SAMP_HISTORY / w;
		double sum = 0;
		int n = 0;
		for (int k = a; k < b; k++)
			if (!isnan(r->hist[k])) {
				sum += r->hist[k];
				n++;
			}
		if (o + 4 >= size)
			break;
		if (!n) {
			out[o++] = ' ';
			continue;
		}
		int lvl = (int)(sum / n / 100.0 * 8);
		if (lvl > 7)
			lvl = 7;
		if (lvl < 0)
			lvl = 0;
		memcpy(out + o, set + lvl * step, (size_t)step);
		o += (size_t)step;
	}
	out[o] = '\0';
}

static const char *thread_label(const struct hot_state *h, char *buf, size_t size)
{
	if (!h->tid)
		return _("all threads");
	snprintf(buf, size, _("thread %d %s"), (int)h->tid, h->shown ? samp_thread_comm(h->shown, h->tid) : "");
	return buf;
}

static void draw_status(struct hot_state *h, int y)
{
	const struct samp_snapshot *s = h->shown;
	char tl[64];

	draw_blank(y, 0, -1, draw_attr(COL_TITLE));
	draw_textf(y, 0, -1, draw_attr(COL_TITLE), _(" Hot functions: PID %d %s   window %s  sort %s  %s%s%s"),
		   (int)h->id.pid, h->comm, samp_window_name(h->win), samp_sort_name(h->sort),
		   thread_label(h, tl, sizeof(tl)), h->frozen ? _("  [FROZEN]") : "",
		   s && s->ended ? _("  [ENDED]") : "");
	if (!s)
		return;
	if (s->python[0]) {
		/* The CPython sampler: no perf, no kernel, torn reads instead of lost. */
		draw_textf(y + 1, 0, -1, draw_attr(COL_NORMAL),
			   _(" CPython %s frames read from its memory (no perf); %d Hz requested, %.0f Hz achieved; p: native view"),
			   s->python, s->freq, s->rate);
		draw_textf(y + 2, 0, -1, s->torn ? draw_attr(COL_WARN) : draw_attr(COL_NORMAL),
			   _(" samples %llu (window %lu)  torn reads %llu  idle threads %s (i), %llu idle samples"),
			   s->samples, h->view.samples, s->torn, s->idle_included ? _("counted") : _("left out"),
			   s->idle_skipped);
		return;
	}
	draw_textf(y + 1, 0, -1, draw_attr(COL_NORMAL),
		   _(" event %s (%s), %s; %d Hz requested, %.0f Hz achieved per CPU-second; %s"), s->event, s->event_why,
		   s->percpu ? _("per CPU") : _("per thread"), s->freq, s->rate, s->kernel_why);
	double trunc = s->samples ? 100.0 * (double)s->truncated / (double)s->samples : 0;
	int x = 0;
	/* Threads left out first: the end of a long line may be off screen. */
	if (s->threads_unsampled)
		x = draw_textf(y + 2, 0, -1, draw_attr(COL_WARN), _(" %u threads not sampled: %s;"), s->threads_unsampled,
			       s->unsampled_why);
	draw_textf(y + 2, x, -1, draw_attr(COL_NORMAL),
			   _(" samples %llu (window %lu)  lost %llu  throttled %llu  stacks %s, truncated %.1f%%%s  CPU sampled %.2f s vs /proc %.2f s"),
			   s->samples, h->view.samples, s->lost, s->throttled, samp_unwind_method(s), trunc,
			   trunc > 20 ? (s->stack_copy ? _(" (stack copy too small?)") : _(" (frame pointers missing?)")) : "",
			   s->cpu_sampled, s->cpu_proc);
}

static void draw_table(struct hot_state *h, int y0, int rows)
{
	const struct samp_snapshot *s = h->shown;
	int cols = draw_cols(), spark_w = cols >= 110 ? 20 : cols >= 80 ? 10 : 0;
	int src_w = h->show_src && cols >= 100 ? 22 : 0;
	int fixed = 6 + 1 + 6 + 1 + 8 + 2;
	int rest = cols - fixed - (spark_w ? spark_w + 1 : 0) - (src_w ? src_w + 1 : 0);
	if (rest < 12)
		rest = 12; /* a tiny terminal: the right edge clips the rest */
	int mod_w = rest > 40 ? 18 : rest / 3, name_w = rest - mod_w - 1;

	draw_blank(y0, 0, -1, draw_attr(COL_HEADER));
	int x = fixed;
	char pa[32], pb[32], pc[32];
	draw_textf(y0, 0, fixed, draw_attr(COL_HEADER), "%s %s %s  ", draw_pad(pa, sizeof(pa), _("SELF%"), 6, true),
		   draw_pad(pb, sizeof(pb), _("TOTAL%"), 6, true), draw_pad(pc, sizeof(pc), _("SAMPLES"), 8, true));
	draw_text(y0, x, name_w, draw_attr(COL_HEADER), h->sort == SAMP_SORT_NAME ? _("FUNCTION (sorted)") : _("FUNCTION"));
	x += name_w + 1;
	draw_text(y0, x, mod_w, draw_attr(COL_HEADER), _("MODULE"));
	x += mod_w + 1;
	if (src_w) {
		draw_text(y0, x, src_w, draw_attr(COL_HEADER), _("SOURCE"));
		x += src_w + 1;
	}
	if (spark_w) /* xgettext:no-c-format */
		draw_text(y0, x, spark_w, draw_attr(COL_HEADER), _("SELF% LAST 60 s"));

	int body = rows - 1;
	if (!h->view.nrows) {
		draw_text(y0 + 1, 1, -1, draw_attr(COL_DIM),
			  s && s->samples ? _("no samples in this window (the threads were idle or filtered out)")
					  : _("no samples yet: the process has not run on a CPU since sampling started"));
		return;
	}
	table_set_count(&h->tab, (int)h->view.nrows);
	body = table_layout(&h->tab, y0, rows, true);
	for (int i = 0; i < body && h->tab.top + i < (int)h->view.nrows; i++) {
		const struct samp_row *r = &h->view.rows[h->tab.top + i];
		const struct samp_func *f = &s->funcs[r->func];
		bool sel = h->tab.top + i == h->tab.sel;
		int attr = sel ? draw_attr(COL_SELECT) : draw_attr(COL_NORMAL);
		int dim = sel ? attr : draw_attr(COL_DIM);
		int y = y0 + 1 + i;
		char buf[600];

		draw_blank(y, 0, -1, attr);
		draw_textf(y, 0, fixed, attr, "%6.1f %6.1f %8lu  ", r->self_pct, r->total_pct, r->self);
		x = fixed;
		draw_text_skip(y, x, name_w, (f->flags & (SAMP_F_KERNEL | SAMP_F_ANON | SAMP_F_STRIPPED)) ? dim : attr,
			       f->name, h->tab.hscroll); /* Left/Right: long names */
		x += name_w + 1;
		snprintf(buf, sizeof(buf), "%s%s", samp_module_short(f->module),
			 (f->flags & SAMP_F_STRIPPED) ? _(" (stripped)") : "");
		draw_text(y, x, mod_w, dim, buf);
		x += mod_w + 1;
		if (src_w) {
			if (f->file) {
				snprintf(buf, sizeof(buf), "%s:%d", samp_module_short(f->file), f->line);
				draw_text(y, x, src_w, dim, buf);
			}
			x += src_w + 1;
		}
		if (spark_w) {
			sparkline(r, spark_w, buf, sizeof(buf));
			draw_text(y, x, spark_w, sel ? attr : draw_attr(COL_GOOD), buf);
		}
	}
}

static void draw_rel(struct hot_state *h, int y0, int rows)
{
	unsigned long total = 0, self = 0;

	for (unsigned i = 0; i < h->view.nrows; i++)
		if (h->view.rows[i].func == h->rel.func) {
			total = h->view.rows[i].total;
			self = h->view.rows[i].self;
		}
	hot_rel_draw(&h->rel, h->shown, total, self, y0, rows);
}

/* Draw text (sentences of ours and the kernel's) from column 3, wrapped
 * at spaces; returns the next free row. */
static int draw_wrapped_at(int y, int end, const char *text, int attr)
{
	int w = draw_cols() - 4;

	if (w < 20)
		w = 20;
	if (y >= end)
		return y;
	int n = draw_wrapped(y, 3, w, end - y, attr, text, true, 0);
	return y + (n < end - y ? n : end - y);
}

static void hot_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct hot_state *h = p;
	(void)ui;

	refresh_view(h);
	draw_status(h, y0);
	if (h->have_err) {
		char buf[1024];
		int y = y0 + 2, end = y0 + rows;
		draw_text(y++, 1, -1, draw_attr(COL_ERROR) | A_BOLD, _("sampling could not start:"));
		y = draw_wrapped_at(y, end, h->err.msg, draw_attr(COL_ERROR));
		if (h->err.fix[0]) {
			snprintf(buf, sizeof(buf), _("door: %s"), door_name(h->err.door));
			y = draw_wrapped_at(y, end, buf, draw_attr(COL_WARN));
			snprintf(buf, sizeof(buf), _("fix: %s"), h->err.fix);
			y = draw_wrapped_at(y, end, buf, draw_attr(COL_WARN));
		}
		if (y + 1 < end)
			draw_text(y + 1, 1, -1, draw_attr(COL_DIM), _("Esc returns. D shows every door."));
		return;
	}
	if (!h->shown) {
		draw_textf(y0 + 2, 1, -1, draw_attr(COL_DIM), _("sampling at %d Hz; the first snapshot comes after one second..."),
			   samp_ctl_freq(h->ctl));
		return;
	}
	if (rows <= 4)
		return;
	if (h->rel.open)
		draw_rel(h, y0 + 3, rows - 3);
	else
		draw_table(h, y0 + 3, rows - 3);
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
		ui_message(ui, true, "%s", _("nothing sampled yet"));
		return;
	}
	snprintf(path, sizeof(path), "pscope-%d-%s.folded", (int)h->id.pid,
		 h->win == SAMP_WIN_ALL ? "all" : h->win == SAMP_WIN_1S ? "1s" : h->win == SAMP_WIN_10S ? "10s" : "60s");
	if (!ui_prompt(ui, _("Export folded stacks to: "), path, sizeof(path)) || !path[0])
		return;
	if (access(path, F_OK) == 0 && !ui_confirm(ui, _("File exists. Overwrite?")))
		return;
	ps_error_clear(&e);
	if (out_folded_save(path, h->shown, h->win, h->tid, &total, &e) < 0) {
		ui_error(ui, &e);
		return;
	}
	ui_message(ui, false, P_("wrote %lu sample (window %s, %s) to %s", "wrote %lu samples (window %s, %s) to %s", total), total,
		   samp_window_name(h->win), h->tid ? _("one thread") : _("all threads"), path);
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
		ui_message(ui, false, _("only thread %d (%s); t: next thread, T: all threads"), (int)h->tid, best->comm);
	else
		ui_message(ui, false, "%s", _("all threads"));
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
	ui_message(ui, false, _("sampling at %d Hz from the next snapshot%s"), steps[i],
		   h->running ? "" : _(" (sampling has stopped)"));
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
	hot_rel_close(&h->rel);
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

static bool func_matches(void *st, int row, const char *text)
{
	const struct hot_state *h = st;
	const struct samp_func *f = &h->shown->funcs[h->view.rows[row].func];
	return strcasestr(f->name, text) || (f->module && strcasestr(f->module, text)) ||
	       (f->file && strcasestr(f->file, text));
}

/* '/': the next function whose name, module or file holds the text. */
static bool hot_find(void *st, const char *text, int dir, bool again)
{
	struct hot_state *h = st;
	bool r;

	if (!h->shown)
		return false;
	r = table_search(&h->tab, h->tab.sel + (again ? dir : 0), dir, text, h, func_matches);
	clamp_sel(h);
	return r;
}

static bool hot_key(struct ui *ui, void *p, int ch)
{
	struct hot_state *h = p;

	refresh_view(h);
	/* The callers/callees view takes its keys first; the screen's other
	 * keys work there too. */
	if (h->rel.open && h->shown && hot_rel_key(&h->rel, ch, h->shown, h->win, h->tid))
		return true;
	switch (ch) {
	case '\n': case '\r': case KEY_ENTER:
		if (h->view.nrows)
			hot_rel_open(&h->rel, h->shown, h->win, h->tid, h->view.rows[h->tab.sel].func);
		return true;
	case ' ':
		h->frozen = !h->frozen;
		if (!h->frozen && h->pending) {
			samp_snapshot_free(h->shown);
			h->shown = h->pending;
			h->pending = NULL;
			set_stale(h);
		}
		ui_message(ui, false, "%s", h->frozen ? _("view frozen (sampling continues); Space resumes") : _("view live"));
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
		ui_message(ui, false, "%s", _("all threads"));
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
		if (ui_search_key(ui, &h->search, ch, hot_find, h))
			return true;
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
			ui_message(ui, false, _("PID %d exited: sampling stopped, the last snapshot stays on screen"),
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
	hot_rel_close(&h->rel);
	samp_snapshot_free(h->shown);
	samp_snapshot_free(h->pending);
	free(h);
}

static const struct ui_fkey hot_fkeys[] = {
	{ "F1", N_("Help") }, { "Enter", N_("Callers") }, { "Spc", N_("Freeze") }, { "w", N_("Window") }, { "s", N_("Sort") },
	{ "+-", N_("Rate") }, { "t", N_("Thread") }, { "p", N_("Py/nat") }, { "E", N_("Export") }, { "Esc", N_("Stop") }, { NULL, NULL },
};

static const struct screen_ops hot_ops = {
	.name = N_("Hot functions"),
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
	h->tab.hkeys = true;
	hot_rel_init(&h->rel);
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
		ui_message(ui, true, "%s", _("out of memory"));
		return;
	}
	h->running = true;
	ui_push(ui, &hot_ops, h);
}
