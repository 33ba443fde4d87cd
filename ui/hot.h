/* The hot functions screen, in two files: screen-hot.c (state, keys, the
 * sampler job) and hot-draw.c (the status lines and the table). Private
 * to them. */
#ifndef PS_UI_HOT_H
#define PS_UI_HOT_H

#include "uipriv.h"
#include "annot-view.h"
#include "flame-view.h"
#include "hot-rel.h"
#include "job.h"
#include "table.h"
#include "sample/sample.h"

/* The SOURCE column is shown from this width on (hot-draw.c). */
#define HOT_SOURCE_COLS 100

struct hot_state {
	struct ui *ui;
	struct target_id id;
	char comm[64];
	struct ui_samp_job samp;       /* the sampler job, its snapshots */
	bool show_src;
	struct samp_view view;         /* computed when samp.stale */
	struct table tab;              /* rows: view.rows[] in the view's order */
	unsigned sel_func;             /* keeps the selection across refreshes */
	struct hot_rel rel;            /* callers/callees of one function */
	struct flame_view flame;       /* g: the flame graph instead of the table */
	struct annot_view annot;       /* a: one function's annotated lines */
	struct ui_search search;
};

/* Recompute the table from the snapshot shown when it changed, keeping the
 * selected function selected. */
void hot_refresh_view(struct hot_state *h);
/* The screen's draw (screen_ops.draw). */
void hot_draw(struct ui *ui, void *p, int y0, int rows);

#endif
