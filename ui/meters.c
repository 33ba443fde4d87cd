/* Header meters of the process list. */
#include "meters.h"
#include "draw.h"
#include "i18n.h"
#include "util.h"
#include "settings.h"

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

int meters_rows(const struct meters_info *m, int cols)
{
	int left = (SHOWN(m, CFG_M_CPUS) ? cpu_rows(m->sys->ncpu) : 0) + !!SHOWN(m, CFG_M_MEMORY) + !!SHOWN(m, CFG_M_SWAP);
	/* the note ([tree], [filter ...]) takes a row below the text lines
	 * only when there is one: with meters hidden, no blank row for it */
	int right = !!SHOWN(m, CFG_M_TASKS) + !!SHOWN(m, CFG_M_LOAD) + !!SHOWN(m, CFG_M_UPTIME) + !!(m->note && m->note[0]);
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

static void cpu_bar(int y, int x, int w, const char *name, const struct sys_cpu_usage *u)
{
	double f[4] = { u->nice, u->user, u->system, u->irq + u->steal };
	int a[4] = { draw_attr(COL_DIM), draw_attr(COL_METER_USER), draw_attr(COL_METER_SYS),
		     draw_attr(COL_METER_OTHER) };
	char label[16];
	int lw = draw_textf(y, x, w, draw_attr(COL_DIM) | A_BOLD, "%3s", name);

	snprintf(label, sizeof(label), "%.1f%%", u->busy * 100);
	meter_bar(y, x + lw, w - lw, 4, f, a, label);
}

/* Memory then swap, each if shown; returns the rows used. */
static int mem_bars(int y, int x, int w, const struct sys_meminfo *mi, bool mem, bool swap)
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
	const struct ptable_counts *c = &m->counts;

	if (SHOWN(m, CFG_M_TASKS)) {
		snprintf(buf, sizeof(buf), _("%d, %d thr, %d kthr; %d running"), c->procs, c->threads, c->kthreads,
			 ptable_running(c, m->sys->ncpu));
		field(y++, x, w, _("Tasks: "), buf);
	}
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
		cpu_bar(y++, 0, lw, "CPU", &s->total);
	} else {
		int nc = cpu_cols(s->ncpu), rows = cpu_rows(s->ncpu), cw = lw / nc;
		for (int i = 0; i < s->ncpu; i++) {
			char name[16];
			/* column-major, like htop: 0..rows-1 in the first column */
			int r = i % rows, c = i / rows;
			snprintf(name, sizeof(name), "%d", s->cpu_id[i]);
			cpu_bar(y + r, c * cw, c == nc - 1 ? lw - c * cw : cw - 1, name, &s->cpu[i]);
		}
		y += rows;
	}
	y += mem_bars(y, 0, lw, &s->mem, SHOWN(m, CFG_M_MEMORY), SHOWN(m, CFG_M_SWAP));
	if (cols < 60)
		right_lines(y, 1, cols - 1, m);
	else
		right_lines(y0, lw + 2, cols - lw - 2, m);
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
