/* The callers/callees view of the hot-functions screen: one function, the
 * functions that call it and those it calls, in the window and thread the
 * screen shows. It is a list of lines in the one list widget: the
 * "Callers" title, the callers, a blank, the "Callees" title, the callees;
 * only functions are selected. */
#ifndef PS_UI_HOT_REL_H
#define PS_UI_HOT_REL_H

#include <stdbool.h>
#include <sys/types.h>

#include "sample/sample.h"
#include "table.h"

struct hot_rel {
	bool open;
	unsigned func;
	struct samp_rel *callers, *callees;
	unsigned ncallers, ncallees;
	struct table tab;
};

void hot_rel_init(struct hot_rel *r);
/* Show func's callers and callees in s (window w, thread tid, 0: all). */
void hot_rel_open(struct hot_rel *r, const struct samp_snapshot *s, enum samp_window w, pid_t tid, unsigned func);
/* The same function again over a new snapshot, window or thread. */
void hot_rel_refresh(struct hot_rel *r, const struct samp_snapshot *s, enum samp_window w, pid_t tid);
void hot_rel_close(struct hot_rel *r);
/* Rows [y0, y0 + rows); total and self: the function's samples. */
void hot_rel_draw(struct hot_rel *r, const struct samp_snapshot *s, unsigned long total, unsigned long self, int y0,
		  int rows);
/* Enter follows the selected function, Esc/Left/Backspace closes, the
 * widget's keys move. false: not a key of the view. */
bool hot_rel_key(struct hot_rel *r, int ch, const struct samp_snapshot *s, enum samp_window w, pid_t tid);

#endif
