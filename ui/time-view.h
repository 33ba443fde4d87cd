/* What the Time pane and the Time screen share: the time job they run
 * (src/time/job.h) and its newest window, the threads table's columns and
 * cells, and the lines that say where the figures come from (the tier,
 * its source, a tier refused above it with its door). */
#ifndef PS_UI_TIME_VIEW_H
#define PS_UI_TIME_VIEW_H

#include <stdbool.h>

#include "error.h"
#include "job.h"
#include "table.h"
#include "time/model.h"

struct ui;
struct target_id;

struct ui_time {
	struct ui *ui;
	struct ui_job job;
	struct tm_snapshot *shown;     /* drawn */
	struct tm_snapshot *pending;   /* the newest while frozen */
	bool frozen;
	bool stale;                    /* shown changed: rows to make again */
	struct ps_error err;           /* why it could not measure */
	bool have_err;
};

/* Measure id; h's handler passes the messages to ui_time_message. false:
 * it could not start (said in t->err). */
bool ui_time_start(struct ui *ui, struct ui_time *t, const struct target_id *id, const struct job_handler *h);
/* The same with the session's options (a forced tier, a timeline). */
struct tm_opts;
bool ui_time_start_opts(struct ui *ui, struct ui_time *t, const struct target_id *id, const struct job_handler *h,
			const struct tm_opts *o);
/* SNAPSHOT and RESULT are kept (true: the payload is kept), ERROR in err,
 * DONE: not running. */
bool ui_time_message(struct ui_time *t, struct ring_msg *m);
/* Space: freeze the view (measuring goes on) or show the newest again. */
void ui_time_freeze(struct ui_time *t);
/* The job cancelled (the session closed on its thread), the windows dropped. */
void ui_time_stop(struct ui_time *t);

/* The threads table: columns (enum time_col) and its rows, the threads of
 * t->shown. */
enum time_col { TC_TID, TC_NAME, TC_ONCPU, TC_RUNQ, TC_BLOCK, TC_STOP, TC_VOL, TC_INVOL, TC_MINFLT, TC_MAJFLT,
		TC_BLOCKED, TC_N };
/* The column titles (for both tables), set once. */
void ui_time_cols(struct table_col *cols, bool all);
int ui_time_cmp(void *st, int a, int b, int col);   /* st: struct ui_time */
int ui_time_cell(void *st, int row, int col, char *buf, size_t size);

/* Draw what the window has no figures for yet or why it has none
 * (measuring..., the refusal with its door): rows used, or -1 when there
 * is a window to draw. */
int ui_time_draw_state(const struct ui_time *t, int y, int rows);
/* The tier and its source, what is statistical, a tier refused above it,
 * why the window ended: rows used (at most rows). */
int ui_time_draw_source(const struct tm_snapshot *s, int y, int rows);
/* One line: the process's shares (the sum of its threads). */
void ui_time_draw_total(const struct tm_snapshot *s, int y);

#endif
