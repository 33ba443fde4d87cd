/* The hot functions screen's state, shared by its files: screen-hot.c
 * (keys, jobs, messages) and screen-hot-draw.c (status, table, callers). */
#ifndef PS_UI_SCREEN_HOT_H
#define PS_UI_SCREEN_HOT_H

#include "uipriv.h"
#include "table.h"
#include "sample/sample.h"

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
	/* callers/callees of one function */
	bool rel;
	unsigned rel_func;
	struct samp_rel *callers, *callees;
	unsigned ncallers, ncallees;
	struct table rel_tab;          /* lines: callers, a blank, callees */
	struct ps_error err;
	bool have_err;
};

void hot_draw_status(struct hot_state *h, int y);
void hot_draw_table(struct hot_state *h, int y0, int rows);
void hot_draw_rel(struct hot_state *h, int y0, int rows);
/* Wrapped text from row y up to end; returns the next row. */
int hot_draw_wrapped(int y, int end, const char *text, int attr);

#endif
