/* The header of the process list: per-CPU bars, Mem and Swap bars, task
 * counts, load average and uptime, htop-style. */
#ifndef PS_UI_METERS_H
#define PS_UI_METERS_H

#include "proc/ptable.h"
#include "proc/sysinfo.h"

struct meters_info {
	const struct sys_snapshot *sys;
	struct ptable_counts counts;
	const char *note;            /* extra line on the right (filters, PAUSED); may be empty */
	unsigned shown;              /* 1 << enum cfg_meter (settings.h): which meters */
	/* Graphs instead of bars (htop's graph meter mode): the history of
	 * each CPU, then the average, memory and swap (struct snap_list's
	 * meter_hist: HIST_LEN values each, 0..1, oldest first). NULL: bars. */
	const float *hist;
	int hist_len;
};

/* Rows the full header needs at this width. */
int meters_rows(const struct meters_info *m, int cols);
/* Draw the full header in rows [y0, y0 + meters_rows). */
void meters_draw(int y0, int cols, const struct meters_info *m);
/* One-line summary for small terminals. */
void meters_draw_compact(int y, int cols, const struct meters_info *m);
/* A bar "[|||||   label]" of w columns with nseg coloured segments. */
void meter_bar(int y, int x, int w, int nseg, const double *frac, const int *attr, const char *label);

#endif
