/* Stacks screen: an all-thread stack dump of one process, run as an
 * ATTACH job. While it runs, a progress panel sits under the screen it was
 * opened from, which stays usable; Esc cancels (the target is released).
 * Then: the pause, deadlock cycles at the top, groups of threads with
 * identical stacks that expand to their threads and frames. */
#include "uipriv.h"
#include "source/source.h"
#include "draw.h"
#include "i18n.h"
#include "job.h"
#include "stack-view.h"
#include "stack/stack.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stack_state {
	struct ui *ui;
	pid_t pid;
	struct target_id id;
	struct ui_job job;
	struct stack_view v;
	struct ui_search search;
};

static bool stack_message(void *ctx, struct ring_msg *m);

static int submit(struct stack_state *s)
{
	struct job_handler h = { stack_message, s };

	/* Same identity every time (also for r): the dump refuses a reused
	 * PID. */
	ui_job_started(&s->job, stk_submit(s->ui->workers, &s->id, true, s->v.goroutines, &h), _("waiting for the attach worker"),
		       _("cannot start the stack dump (out of memory)"));
	if (s->job.failed) {
		ui_message(s->ui, true, "%s", s->job.error);
		return -1;
	}
	return 0;
}

static void draw_progress(struct stack_state *s, int y)
{
	char label[260];
	snprintf(label, sizeof(label), _(" stack dump of %d: %s "), (int)s->pid, s->job.progress);
	draw_blank(y, 0, -1, draw_attr(COL_TITLE));
	draw_text(y, 0, -1, draw_attr(COL_TITLE), _(" Esc cancels; the list above stays usable"));
	int w = draw_cols();
	if (w > 0)
		draw_bar(y + 1, 0, w, s->job.fraction < 0 ? 0 : s->job.fraction, draw_attr(COL_METER_USER), label);
}

static void stack_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct stack_state *s = p;

	if (s->job.running) {
		/* The screen below stays live; a two-line panel at the bottom. */
		if (rows > 2)
			ui_below_draw(ui, s, y0, rows - 2);
		draw_progress(s, y0 + (rows > 2 ? rows - 2 : 0));
		return;
	}
	draw_blank(y0, 0, -1, draw_attr(COL_TITLE));
	if (s->job.failed || !s->v.d) {
		draw_textf(y0, 0, -1, draw_attr(COL_TITLE), _(" Stacks of %d"), (int)s->pid);
		/* The refusal wraps: it names its door and the fix. */
		int w = draw_cols() - 2 > 20 ? draw_cols() - 2 : 20;
		int n = draw_wrapped(y0 + 2, 1, w, rows > 6 ? rows - 6 : 1, draw_attr(COL_ERROR) | A_BOLD,
				     s->job.failed ? s->job.error : _("cancelled"), true, 0);
		if (n > (rows > 6 ? rows - 6 : 1))
			n = rows > 6 ? rows - 6 : 1;
		draw_text(y0 + 3 + n, 1, -1, draw_attr(COL_DIM), _("r: try again   Esc: back"));
		return;
	}
	const struct stk_dump *d = s->v.d;
	char sum[200];
	int tx = draw_textf(y0, 0, -1, draw_attr(COL_TITLE), P_(" Stacks of %d (%s): stopped %zu thread for %.1f ms | %s", " Stacks of %d (%s): stopped %zu threads for %.1f ms | %s", d->n_stopped),
			    (int)d->target.pid, d->comm, d->n_stopped, d->pause_ms,
			    stack_view_summary(&s->v, sum, sizeof(sum)));
	stack_view_draw_python(&s->v, y0, tx);
	stack_view_draw(&s->v, y0 + 1, rows - 1);
}

/* While the dump runs: Esc cancels it, other keys go to the screen below. */
static bool k_cancel(struct ui *ui, void *p, int ch)
{
	struct stack_state *s = p;

	workers_cancel(ui->workers, s->job.id);
	s->job.running = false;
	ui_message(ui, false, _("stack dump of %d cancelled; the process runs on"), (int)s->pid);
	ui_pop(ui);
	return true;
}

static const struct ui_key running_keys[] = {
	UI_SECTION(N_("While the dump runs")),
	UI_KEY("Esc", k_cancel, NULL, N_("cancel: the process is let go at once"), 27),
	UI_KEY(N_("other keys"), NULL, NULL, N_("go to the screen below, which stays usable")),
	UI_KEYS_END,
};

static enum ui_key_result stack_mode(struct ui *ui, void *p, int ch)
{
	struct stack_state *s = p;
	enum ui_key_result r;

	if (!s->job.running)
		return UI_KEY_NEXT;
	r = ui_keys_dispatch(ui, running_keys, s, ch);
	if (r != UI_KEY_NEXT)
		return r;
	return ui_below_key(ui, s, ch) ? UI_KEY_DONE : UI_KEY_LOOP;
}

static bool k_again(struct ui *ui, void *p, int ch)
{
	submit(p);
	return true;
}

/* G: the goroutines of a Go program (a new dump that reads them), or not. */
static bool k_goroutines(struct ui *ui, void *p, int ch)
{
	struct stack_state *s = p;

	s->v.goroutines = !s->v.goroutines;
	if (s->v.goroutines)
		submit(s);
	return true;
}

/* Search and the list keys. */
static bool stack_key(struct ui *ui, void *p, int ch)
{
	struct stack_state *s = p;

	return ui_search_key(ui, &s->search, ch, s->v.d ? stack_view_find : NULL, &s->v) || stack_view_key(&s->v, ch);
}

static void stack_tick(struct ui *ui, void *p)
{
	struct stack_state *s = p;
	if (s->job.running)
		ui_below_tick(ui, s);
}

/* The dump job's handler. */
static bool stack_message(void *ctx, struct ring_msg *m)
{
	struct stack_state *s = ctx;
	char nothing[128];

	if (m->kind == RING_RESULT) {
		if (!target_id_equal(&m->target, &s->id))
			return false;
		stack_view_set(&s->v, m->payload);
		s->job.failed = false;
		return true; /* the screen owns the dump now */
	}
	snprintf(nothing, sizeof(nothing), _("the stack dump of %d ended without a result"), (int)s->pid);
	ui_job_message(&s->job, m, s->v.d != NULL, nothing);
	return false;
}

static void stack_destroy(void *p)
{
	struct stack_state *s = p;
	/* Leaving while the dump runs cancels it: the target is released. */
	ui_job_leave(s->ui, &s->job);
	stack_view_free(&s->v);
	free(s);
}

static const struct ui_key stack_keys[] = {
	UI_HELP_OF(running_keys),
	UI_SECTION(N_("Keys")),
	UI_USE(stack_view_keys, struct stack_state, v),
	UI_KEY("r  F5", k_again, N_("Again"), N_("take a new dump"), 'r', KEY_F(5)),
	UI_KEY("G", k_goroutines, N_("Goroutines"), N_("Go: the goroutines too (a new dump reads them), or not"), 'G'),
	UI_LOOP("Esc", 27),
	UI_LOOP("F1 ?", KEY_F(1), '?'),
	UI_KEYS_END,
};

const struct screen_ops screen_stack_ops = {
	.name = N_("Stacks"),
	.help = "stack",
	.keys = stack_keys,
	.fbar = "F1 Enter e l i v G r Esc",
	.mode_key = stack_mode,
	.draw = stack_draw,
	.key = stack_key,
	.tick = stack_tick,
	.destroy = stack_destroy,
};

/* The process checked (it is the one the user saw): dump it. */
static void stack_open_checked(struct ui *ui, const struct target_info *t)
{
	struct stack_state *s = calloc(1, sizeof(*s));

	if (!s)
		return;
	s->ui = ui;
	s->pid = t->id.pid;
	s->id = t->id;
	if (submit(s) < 0) {
		free(s);
		return;
	}
	ui_push(ui, &screen_stack_ops, s);
}

void screen_stack_open(struct ui *ui, const struct target_id *id)
{
	ui_check_target(ui, id, stack_open_checked);
}
