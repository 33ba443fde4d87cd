/* Header meters of the process list. */
#include "meters.h"
#include "draw.h"
#include "i18n.h"
#include "util.h"
#include "settings.h"
#include "source/snap.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>
#include <string.h>

/* CPU bars per row of the left column. */
static int cpu_cols(int ncpu)
{
	return ncpu <= 4 ? 1 : ncpu <= 16 ? 2 : 4;
}

static bool cpu_average_only(int ncpu)
{
	return ncpu > 64;
}

static int cpu_rows(int ncpu)
{
	if (ncpu <= 0 || cpu_average_only(ncpu))
		return 1;
	return (ncpu + cpu_cols(ncpu) - 1) / cpu_cols(ncpu);
}

#define SHOWN(m, k) ((m)->shown & (1u << (k)))

/* Columns of the text lines (Tasks, Load average, Uptime). */
static int text_width(int cols)
{
	return cols < 60 ? cols - 1 : cols - (cols / 2 - 1) - 2;
}

/* The Tasks line in three parts, each with the punctuation that follows
 * it; what does not fit goes on a second line under the first value, so
 * that no count is cut (a translation is often wider than the English).
 * Draws when draw is true; returns the lines taken (1 or 2). */
static int tasks_lines(int y, int x, int w, const struct meters_info *m, bool draw)
{
	const struct ptable_counts *c = &m->counts;
	char part[3][96], v[64];
	const char *label = _("Tasks: ");
	int lw = draw_width(label), col = lw, line = 0;

	snprintf(v, sizeof(v), _("%d, %d thr"), c->procs, c->threads);
	snprintf(part[0], sizeof(part[0]), "%s,", v);
	snprintf(v, sizeof(v), _("%d kthr"), c->kthreads);
	snprintf(part[1], sizeof(part[1]), "%s;", v);
	snprintf(part[2], sizeof(part[2]), _("%d running"), ptable_running(c, m->sys->ncpu));
	if (draw)
		draw_text(y, x, w, draw_attr(COL_DIM) | A_BOLD, label);
	for (int i = 0; i < 3; i++) {
		int pw = draw_width(part[i]);
		/* wrap only where the second line has room for a part */
		if (i > 0 && col + 1 + pw > w && line == 0 && lw + pw <= w) {
			line = 1;
			col = lw;
		} else if (i > 0) {
			col++;
		}
		if (draw && col < w)
			draw_text(y + line, x + col, w - col, A_BOLD, part[i]);
		col += pw;
	}
	return line + 1;
}

int meters_rows(const struct meters_info *m, int cols)
{
	int left = (SHOWN(m, CFG_M_CPUS) ? cpu_rows(m->sys->ncpu) : 0) + !!SHOWN(m, CFG_M_MEMORY) + !!SHOWN(m, CFG_M_SWAP);
	int tasks = SHOWN(m, CFG_M_TASKS) ? tasks_lines(0, 0, text_width(cols), m, false) : 0;
	/* the note ([tree], [filter ...]) takes a row below the text lines
	 * only when there is one: with meters hidden, no blank row for it */
	int right = tasks + !!SHOWN(m, CFG_M_LOAD) + !!SHOWN(m, CFG_M_UPTIME) + !!(m->note && m->note[0]);
	if (cols < 60) /* one column: the text lines below the bars */
		return left + right;
	return left > right ? left : right;
}

void meter_bar(int y, int x, int w, int nseg, const double *frac, const int *attr, const char *label)
{
	char bars[512];
	int inner = w - 2, pos = 0;
	double acc = 0;

	if (w < 3)
		return;
	memset(bars, '|', sizeof(bars) - 1);
	bars[sizeof(bars) - 1] = '\0';
	draw_text(y, x, 1, A_BOLD, "[");
	draw_blank(y, x + 1, inner, 0);
	for (int i = 0; i < nseg; i++) {
		double f = frac[i] > 0 ? frac[i] : 0;
		acc += f;
		int end = (int)(acc * inner + 0.5);
		if (end > inner)
			end = inner;
		if (end > pos && end - pos < (int)sizeof(bars)) {
			bars[end - pos] = '\0';
			draw_text(y, x + 1 + pos, end - pos, attr[i], bars);
			bars[end - pos] = '|';
			pos = end;
		}
	}
	if (label) {
		int lw = draw_width(label);
		if (lw <= inner)
			draw_text(y, x + 1 + inner - lw, lw, A_DIM | A_BOLD, label);
	}
	draw_text(y, x + w - 1, 1, A_BOLD, "]");
}

/* A graph "[▁▂▅█▇   label]" of w columns: the last values of h (0..1,
 * oldest first, n of them, NaN none), a glyph a tick, the newest just
 * before the label. */
static void meter_graph(int y, int x, int w, const float *h, int n, int attr, const char *label)
{
	char buf[1024];
	int lw = label ? draw_width(label) : 0, gw = w - 2 - (lw ? lw + 1 : 0);

	if (w < 3)
		return;
	if (gw < 0) {
		gw = w - 2;
		lw = 0;
	}
	int k = gw < n ? gw : n; /* values shown; blanks before them */
	draw_text(y, x, 1, A_BOLD, "[");
	draw_blank(y, x + 1, w - 2, 0);
	if (k > 0 && k * 3 < (int)sizeof(buf))
		draw_text(y, x + 1 + gw - k, k, attr, draw_sparkline(h + n - k, k, 1, k, buf, sizeof(buf)));
	if (lw)
		draw_text(y, x + w - 1 - lw, lw, A_DIM | A_BOLD, label);
	draw_text(y, x + w - 1, 1, A_BOLD, "]");
}

/* Meter k's history (a CPU's index, or ncpu + SNAP_METER_*), NULL: bars. */
static const float *hist_of(const struct meters_info *m, int k)
{
	return m->hist ? m->hist + (size_t)k * (size_t)m->hist_len : NULL;
}

static void cpu_bar(int y, int x, int w, const char *name, const struct sys_cpu_usage *u, const float *h, int n)
{
	double f[4] = { u->nice, u->user, u->system, u->irq + u->steal };
	int a[4] = { draw_attr(COL_DIM), draw_attr(COL_METER_USER), draw_attr(COL_METER_SYS),
		     draw_attr(COL_METER_OTHER) };
	char label[16];
	int lw = draw_textf(y, x, w, draw_attr(COL_DIM) | A_BOLD, "%3s", name);

	snprintf(label, sizeof(label), "%.1f%%", u->busy * 100);
	if (h)
		meter_graph(y, x + lw, w - lw, h, n, draw_attr(COL_METER_USER), label);
	else
		meter_bar(y, x + lw, w - lw, 4, f, a, label);
}

/* Memory then swap, each if shown; returns the rows used. */
static int mem_bars(int y, int x, int w, const struct sys_meminfo *mi, bool mem, bool swap, const float *mh,
		    const float *sh, int n)
{
	char l[64], a[16], b[16];
	double tot = mi->total ? (double)mi->total : 1;
	double f[3] = { (double)mi->used / tot, (double)mi->buffers / tot,
			(double)(mi->cached + mi->sreclaimable) / tot };
	int at[3] = { draw_attr(COL_METER_USER), draw_attr(COL_DIM), draw_attr(COL_METER_OTHER) };
	int lw;

	snprintf(l, sizeof(l), "%s/%s", human_kib(mi->used, a, sizeof(a)), human_kib(mi->total, b, sizeof(b)));
	if (mem) {
		lw = draw_text(y, x, w, draw_attr(COL_DIM) | A_BOLD, "Mem");
		if (mh)
			meter_graph(y, x + lw, w - lw, mh, n, draw_attr(COL_METER_USER), l);
		else
			meter_bar(y, x + lw, w - lw, 3, f, at, l);
		y++;
	}
	if (!swap)
		return mem;

	unsigned long long sused = mi->swap_total > mi->swap_free ? mi->swap_total - mi->swap_free : 0;
	double st = mi->swap_total ? (double)mi->swap_total : 1;
	double sf[2] = { (double)(sused - (sused > mi->swap_cached ? mi->swap_cached : sused)) / st,
			 (double)(sused > mi->swap_cached ? mi->swap_cached : sused) / st };
	int sa[2] = { draw_attr(COL_METER_SYS), draw_attr(COL_METER_OTHER) };
	/* htop's figure: used swap less what is also in memory (SwapCached) */
	snprintf(l, sizeof(l), "%s/%s", human_kib(sused > mi->swap_cached ? sused - mi->swap_cached : 0, a, sizeof(a)),
		 human_kib(mi->swap_total, b, sizeof(b)));
	lw = draw_text(y, x, w, draw_attr(COL_DIM) | A_BOLD, "Swp");
	if (sh)
		meter_graph(y, x + lw, w - lw, sh, n, draw_attr(COL_METER_SYS), l);
	else
		meter_bar(y, x + lw, w - lw, 2, sf, sa, l);
	return mem + 1;
}

/* "Label: " dim, then the value bold. Returns columns used. */
static int field(int y, int x, int w, const char *label, const char *value)
{
	int n = draw_text(y, x, w, draw_attr(COL_DIM) | A_BOLD, label);
	return n + draw_text(y, x + n, w - n, A_BOLD, value);
}

static void right_lines(int y, int x, int w, const struct meters_info *m)
{
	char buf[128], up[64];

	if (SHOWN(m, CFG_M_TASKS))
		y += tasks_lines(y, x, w, m, true);
	if (SHOWN(m, CFG_M_LOAD)) {
		snprintf(buf, sizeof(buf), "%.2f %.2f %.2f", m->sys->load.load[0], m->sys->load.load[1],
			 m->sys->load.load[2]);
		field(y++, x, w, _("Load average: "), buf);
	}
	if (SHOWN(m, CFG_M_UPTIME))
		field(y++, x, w, _("Uptime: "), sys_fmt_uptime(m->sys->uptime, up, sizeof(up)));
	if (m->note && m->note[0])
		draw_text(y, x, w, draw_attr(COL_WARN) | A_BOLD, m->note);
}

void meters_draw(int y0, int cols, const struct meters_info *m)
{
	const struct sys_snapshot *s = m->sys;
	int lw = cols < 60 ? cols : cols / 2 - 1;
	int y = y0;

	if (!SHOWN(m, CFG_M_CPUS)) {
		/* no CPU bars */
	} else if (s->ncpu <= 0 || cpu_average_only(s->ncpu)) {
		cpu_bar(y++, 0, lw, "CPU", &s->total, hist_of(m, s->ncpu + SNAP_METER_AVG), m->hist_len);
	} else {
		int nc = cpu_cols(s->ncpu), rows = cpu_rows(s->ncpu), cw = lw / nc;
		for (int i = 0; i < s->ncpu; i++) {
			char name[16];
			/* column-major, like htop: 0..rows-1 in the first column */
			int r = i % rows, c = i / rows;
			snprintf(name, sizeof(name), "%d", s->cpu_id[i]);
			cpu_bar(y + r, c * cw, c == nc - 1 ? lw - c * cw : cw - 1, name, &s->cpu[i], hist_of(m, i),
				m->hist_len);
		}
		y += rows;
	}
	y += mem_bars(y, 0, lw, &s->mem, SHOWN(m, CFG_M_MEMORY), SHOWN(m, CFG_M_SWAP),
		      hist_of(m, s->ncpu + SNAP_METER_MEM), hist_of(m, s->ncpu + SNAP_METER_SWAP), m->hist_len);
	if (cols < 60)
		right_lines(y, 1, text_width(cols), m);
	else
		right_lines(y0, lw + 2, text_width(cols), m);
}

void meters_draw_compact(int y, int cols, const struct meters_info *m)
{
	const struct sys_snapshot *s = m->sys;
	char buf[256];
	double mem = s->mem.total ? (double)s->mem.used * 100.0 / (double)s->mem.total : 0;

	snprintf(buf, sizeof(buf), _("CPU %.0f%%  Mem %.0f%%  Load %.2f  Tasks %d  %s"), s->total.busy * 100, mem,
		 s->load.load[0], m->counts.procs, m->note ? m->note : "");
	draw_text(y, 0, cols, A_BOLD, buf);
}
