/* The hot functions screen's drawing (hot.h): the status lines, the
 * table of functions with their sparklines, the callers/callees view and
 * why sampling could not start. */
#include "hot.h"
#include "draw.h"
#include "doors/doors.h"
#include "i18n.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <math.h>
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	if (!h->samp.tid)
		return _("all threads");
	snprintf(buf, size, _("thread %d %s"), (int)h->samp.tid, ui_samp_profile(&h->samp) ? samp_thread_comm(ui_samp_profile(&h->samp), h->samp.tid) : "");
	return buf;
}

static void draw_status(struct hot_state *h, int y)
{
	const struct samp_snapshot *s = ui_samp_profile(&h->samp);
	char tl[64];

	draw_blank(y, 0, -1, draw_attr(COL_TITLE));
	draw_textf(y, 0, -1, draw_attr(COL_TITLE), _(" Hot functions: PID %d %s   window %s  sort %s  %s%s%s"),
		   (int)h->id.pid, h->comm, samp_window_name(h->samp.win), samp_sort_name(h->samp.sort),
		   thread_label(h, tl, sizeof(tl)), h->samp.frozen ? _("  [FROZEN]") : "",
		   s && s->ended ? _("  [ENDED]") : "");
	if (!s)
		return;
	if (s->offcpu && s->offcpu_sampled) {
		char iv[32], all[32];
		draw_textf(y + 1, 0, -1, draw_attr(COL_WARN),
			   _(" off CPU, STATISTICAL (/proc tier, no CAP_PERFMON): blocked threads sampled every %s; no wakers"),
			   samp_unit_format(SAMP_UNIT_NS_BLOCKED, s->offcpu_interval_ns, iv, sizeof(iv)));
		draw_textf(y + 2, 0, -1, draw_attr(COL_NORMAL), _(" samples %llu, %s blocked (window %.1f ms)"), s->samples,
			   samp_unit_format(s->unit, s->weight, all, sizeof(all)), (double)h->view.samples / 1e6);
		return;
	}
	if (s->offcpu) {
		char mb[32], all[32];
		draw_textf(y + 1, 0, -1, draw_attr(COL_NORMAL),
			   h->samp.wakers ? _(" wakers of the blocks of %s+: who woke each thread, from where; b: blocks")
					  : _(" off CPU: each block of %s+ weighed until the thread ran again; b: wakers"),
			   samp_unit_format(SAMP_UNIT_NS_BLOCKED, s->min_block_ns, mb, sizeof(mb)));
		double trunc = s->samples ? 100.0 * (double)s->truncated / (double)s->samples : 0;
		draw_textf(y + 2, 0, -1, s->lost || s->unmatched ? draw_attr(COL_WARN) : draw_attr(COL_NORMAL),
			   _(" blocks %llu, %s blocked (window %.1f ms)  shorter %llu  waker unknown %llu  lost %llu  stacks %s, truncated %.1f%%"),
			   s->samples, samp_unit_format(s->unit, s->weight, all, sizeof(all)), (double)h->view.samples / 1e6,
			   s->short_blocks, s->unmatched, s->lost, samp_unwind_method(s), trunc);
		return;
	}
	if (s->python[0]) {
		/* The CPython sampler: no perf, no kernel, torn reads instead of lost. */
		draw_textf(y + 1, 0, -1, draw_attr(COL_NORMAL),
			   _(" CPython %s frames read from its memory (no perf); %d Hz requested, %.0f Hz achieved; p: native view"),
			   s->python, s->freq, s->rate);
		draw_textf(y + 2, 0, -1, s->torn ? draw_attr(COL_WARN) : draw_attr(COL_NORMAL),
			   _(" samples %llu (window %lu)  torn reads %llu  idle threads %s (i), %llu idle samples"),
			   s->samples, h->view.samples, s->torn, s->idle_included ? _("counted") : _("left out"),
			   s->idle_samples);
		return;
	}
	draw_textf(y + 1, 0, -1, draw_attr(COL_NORMAL),
		   _(" event %s (%s), %s; %d Hz requested, %.0f Hz achieved per CPU-second; %s"), s->event, s->event_why,
		   s->percpu ? _("per CPU") : _("per thread"), s->freq, s->rate, s->kernel_why);
	double trunc = s->samples ? 100.0 * (double)s->truncated / (double)s->samples : 0;
	int x = 0;
	/* Threads left out first: the end of a long line may be off screen. */
	if (s->threads_unsampled)
		x = draw_textf(y + 2, 0, -1, draw_attr(COL_WARN), P_(" %u thread not sampled: %s;", " %u threads not sampled: %s;", s->threads_unsampled), s->threads_unsampled,
			       s->unsampled_why);
	if (s->unit != SAMP_UNIT_SAMPLES) {
		/* A weighted profile: the weight first, in its unit. */
		char all[32], win[32];
		x = draw_textf(y + 2, x, -1, draw_attr(COL_NORMAL), _(" weight %s %s (window %s);"),
			       samp_unit_format(s->unit, s->weight, all, sizeof(all)), samp_unit_key(s->unit),
			       samp_unit_format(s->unit, h->view.samples, win, sizeof(win)));
	}
	draw_textf(y + 2, x, -1, draw_attr(COL_NORMAL),
			   _(" samples %llu (window %lu)  lost %llu  throttled %llu  stacks %s, truncated %.1f%%%s  CPU sampled %.2f s vs /proc %.2f s"),
			   s->samples, h->view.samples, s->lost, s->throttled, samp_unwind_method(s), trunc,
			   trunc > 20 ? (s->stack_copy ? _(" (stack copy too small?)") : _(" (frame pointers missing?)")) : "",
			   s->cpu_sampled, s->cpu_proc);
}

/* The name column: with_line (SOURCE shown but too narrow to fit), the
 * line after the name, so a Python function's hot lines stay apart
 * ("price_rules:13", "price_rules:14"). */
static const char *func_name(const struct samp_func *f, bool with_line, char *buf, size_t size)
{
	if (!with_line || !f->file || f->line <= 0)
		return f->name;
	snprintf(buf, size, "%s:%d", f->name, f->line);
	return buf;
}

static void draw_table(struct hot_state *h, int y0, int rows)
{
	const struct samp_snapshot *s = ui_samp_profile(&h->samp);
	int cols = draw_cols(), spark_w = cols >= 110 ? 20 : cols >= 80 ? 10 : 0;
	int src_w = h->show_src && cols >= HOT_SOURCE_COLS ? 22 : 0;
	int fixed = 6 + 1 + 6 + 1 + 8 + 2;
	int rest = cols - fixed - (spark_w ? spark_w + 1 : 0) - (src_w ? src_w + 1 : 0);
	if (rest < 12)
		rest = 12; /* a tiny terminal: the right edge clips the rest */
	int mod_w = rest > 40 ? 18 : rest / 3, name_w = rest - mod_w - 1;

	draw_blank(y0, 0, -1, draw_attr(COL_HEADER));
	int x = fixed;
	char pa[32], pb[32], pc[32];
	draw_textf(y0, 0, fixed, draw_attr(COL_HEADER), "%s %s %s  ", draw_pad(pa, sizeof(pa), _("SELF%"), 6, true),
		   draw_pad(pb, sizeof(pb), _("TOTAL%"), 6, true),
		   draw_pad(pc, sizeof(pc), s && s->offcpu ? _("BLOCK_ms") : s ? _(samp_unit_title(s->unit)) : _("SAMPLES"), 8,
			    true));
	draw_text(y0, x, name_w, draw_attr(COL_HEADER), h->samp.sort == SAMP_SORT_NAME ? _("FUNCTION (sorted)") : _("FUNCTION"));
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
			  s && s->offcpu ? _("no block of the threads shown in this window")
			  : s && s->samples ? _("no samples in this window (the threads were idle or filtered out)")
					  : _("no samples yet: the process has not run on a CPU since sampling started"));
		return;
	}
	table_set_count(&h->tab, (int)h->view.nrows);
	body = table_layout(&h->tab, y0, rows, true);
	/* Right stops where the longest name on screen ends. */
	int widest = 0;
	char nb[600];
	for (int i = 0; i < body && h->tab.top + i < (int)h->view.nrows; i++) {
		int w = draw_width(func_name(&s->funcs[h->view.rows[h->tab.top + i].func], h->show_src && !src_w, nb, sizeof(nb)));
		widest = w > widest ? w : widest;
	}
	table_hscroll_fit(&h->tab.hscroll, widest, name_w);
	for (int i = 0; i < body && h->tab.top + i < (int)h->view.nrows; i++) {
		const struct samp_row *r = &h->view.rows[h->tab.top + i];
		const struct samp_func *f = &s->funcs[r->func];
		bool sel = h->tab.top + i == h->tab.sel;
		int attr = sel ? draw_attr(COL_SELECT) : draw_attr(COL_NORMAL);
		int dim = sel ? attr : draw_attr(COL_DIM);
		int y = y0 + 1 + i;
		char buf[600];

		draw_blank(y, 0, -1, attr);
		char w[32];
		if (s->offcpu) /* off CPU: milliseconds */
			snprintf(w, sizeof(w), "%.1f", (double)r->self / 1e6);
		else
			samp_unit_format(s->unit, r->self, w, sizeof(w));
		draw_textf(y, 0, fixed, attr, "%6.1f %6.1f %8s  ", r->self_pct, r->total_pct, w);
		x = fixed;
		draw_text_skip(y, x, name_w, (f->flags & (SAMP_F_KERNEL | SAMP_F_ANON | SAMP_F_STRIPPED)) ? dim : attr,
			       func_name(f, h->show_src && !src_w, nb, sizeof(nb)), h->tab.hscroll); /* Left/Right: long names */
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
	hot_rel_draw(&h->rel, ui_samp_profile(&h->samp), total, self, y0, rows);
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

void hot_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct hot_state *h = p;
	(void)ui;

	hot_refresh_view(h);
	draw_status(h, y0);
	if (h->samp.have_err) {
		char buf[1024];
		int y = y0 + 2, end = y0 + rows;
		draw_text(y++, 1, -1, draw_attr(COL_ERROR) | A_BOLD,
			  samp_ctl_mode(h->samp.ctl) == SAMP_MODE_OFFCPU ? _("off-CPU tracing could not start:")
									 : _("sampling could not start:"));
		y = draw_wrapped_at(y, end, h->samp.err.msg, draw_attr(COL_ERROR));
		if (h->samp.err.fix[0]) {
			snprintf(buf, sizeof(buf), _("door: %s"), door_name(h->samp.err.door));
			y = draw_wrapped_at(y, end, buf, draw_attr(COL_WARN));
			snprintf(buf, sizeof(buf), _("fix: %s"), h->samp.err.fix);
			y = draw_wrapped_at(y, end, buf, draw_attr(COL_WARN));
		}
		if (y + 1 < end)
			draw_text(y + 1, 1, -1, draw_attr(COL_DIM), _("Esc returns. D shows every door."));
		return;
	}
	if (!ui_samp_profile(&h->samp) && samp_ctl_mode(h->samp.ctl) == SAMP_MODE_OFFCPU) {
		draw_text(y0 + 2, 1, -1, draw_attr(COL_DIM), _("tracing every block; the first snapshot comes after one second..."));
		return;
	}
	if (!ui_samp_profile(&h->samp)) {
		draw_textf(y0 + 2, 1, -1, draw_attr(COL_DIM), _("sampling at %d Hz; the first snapshot comes after one second..."),
			   samp_ctl_freq(h->samp.ctl));
		return;
	}
	if (rows <= 4)
		return;
	if (h->annot.open)
		annot_view_draw(&h->annot, y0 + 3, rows - 3);
	else if (h->flame.open)
		flame_view_draw(&h->flame, y0 + 3, rows - 3);
	else if (h->rel.open)
		draw_rel(h, y0 + 3, rows - 3);
	else
		draw_table(h, y0 + 3, rows - 3);
}
