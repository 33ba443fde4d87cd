/* The body of a stack dump, shared by the live Stacks screen and a core's
 * screen: deadlock cycles at the top, then groups of threads with
 * identical stacks that expand to their frames, then their threads as a
 * count that expands on demand. */
#ifndef PS_UI_STACK_VIEW_H
#define PS_UI_STACK_VIEW_H

#include <stdbool.h>

#include "keys.h"
#include "table.h"

struct stk_dump;

struct stack_view {
	struct stk_dump *d;  /* owned, unless borrowed */
	bool borrowed;       /* d is a snapshot's (a core's): never freed here */
	bool *open;          /* per group: expanded (its frames) */
	bool *tids_open;     /* per group: its threads listed, not only counted */
	bool show_lines, inlines; /* l: file:line, i: inlined calls */
	int view;            /* CPython (v): enum stk_view, mixed, Python only, native only */
	bool goroutines;     /* Go (G): the dump reads the goroutines, shown below the threads */
	struct table tab;    /* rows: the lines of the layout */
};

/* Take d (owned from now on; the previous dump is freed). */
void stack_view_set(struct stack_view *v, struct stk_dump *d);
/* Show d, which stays its owner's (a snapshot's) and is not changed. */
void stack_view_borrow(struct stack_view *v, struct stk_dump *d);
/* The body in rows [y0, y0 + rows). */
void stack_view_draw(struct stack_view *v, int y0, int rows);
/* " | CPython 3.11.2, mixed view (v)" on a title line at (y, x) when the
 * dump has Python frames; returns the columns drawn. */
int stack_view_draw_python(const struct stack_view *v, int y, int x);
/* "2 groups, 9 frames | file:line | inlines" for a title line: the
 * groups, the frames of their stacks in the view shown (each group's once,
 * as the expanded groups list them) and the options on. Returns buf. */
const char *stack_view_summary(const struct stack_view *v, char *buf, size_t size);
/* Its keys (a fragment of the screen's table: UI_USE): Enter/+/-/e
 * expand, l file:line, i inlines, v the CPython view. */
extern const struct ui_key stack_view_keys[];
/* The list keys: moving, Left/Right scroll sideways. */
bool stack_view_key(struct stack_view *v, int ch);
/* A ui_find_fn over the rows shown (closed groups: their header line). */
bool stack_view_find(void *v, const char *text, int dir, bool again);
void stack_view_free(struct stack_view *v);

#endif
