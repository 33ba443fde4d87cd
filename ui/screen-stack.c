/* Stacks screen: an all-thread stack dump of one process, run as an
 * ATTACH job. While it runs, a progress panel sits under the screen it was
 * opened from, which stays usable; Esc cancels (the target is released).
 * Then: the pause, deadlock cycles at the top, groups of threads with
 * identical stacks that expand to their threads and frames. */
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"
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
	unsigned job;
	bool running;
	double fraction;
	char progress[200];
	bool failed;
	char error[1024];
	struct stack_view v;
	struct ui_search search;
};

static bool stack_message(void *ctx, struct ring_msg *m);

static int submit(struct stack_state *s)
{
	struct job_handler h = { stack_message, s };
	struct ps_error e;
	struct target t;

	ps_error_clear(&e);
	/* Same identity every time (also for r): a reused PID is refused. */
	if (target_open(&t, s->id.pid, &s->id, &e) < 0) {
		ui_error(s->ui, &e);
		return -1;
	}
	target_close(&t);
	s->job = stk_submit(s->ui->workers, &s->id, true, &h);
	if (!s->job) {
		ui_message(s->ui, true, "%s", _("cannot start the stack dump (out of memory)"));
		return -1;
	}
	s->running = true;
	s->fraction = 0;
	snprintf(s->progress, sizeof(s->progress), "%s", _("waiting for the attach worker"));
	return 0;
}

static void draw_progress(struct stack_state *s, int y)
{
	char label[260];
	snprintf(label, sizeof(label), _(" stack dump of %d: %s "), (int)s->pid, s->progress);
	draw_blank(y, 0, -1, draw_attr(COL_TITLE));
	draw_text(y, 0, -1, draw_attr(COL_TITLE), _(" Esc cancels; the list above stays usable"));
	int w = draw_cols();
	if (w > 0)
		draw_bar(y + 1, 0, w, s->fraction < 0 ? 0 : s->fraction, draw_attr(COL_METER_USER), label);
}

static void stack_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct stack_state *s = p;

	if (s->running) {
		/* The screen below stays live; a two-line panel at the bottom. */
		if (rows > 2)
			ui_below_draw(ui, s, y0, rows - 2);
		draw_progress(s, y0 + (rows > 2 ? rows - 2 : 0));
		return;
	}
	draw_blank(y0, 0, -1, draw_attr(COL_TITLE));
	if (s->failed || !s->v.d) {
		draw_textf(y0, 0, -1, draw_attr(COL_TITLE), _(" Stacks of %d"), (int)s->pid);
		draw_text(y0 + 2, 1, -1, draw_attr(COL_ERROR) | A_BOLD, s->failed ? s->error : _("cancelled"));
		draw_text(y0 + 4, 1, -1, draw_attr(COL_DIM), _("r: try again   Esc: back"));
		return;
	}
	const struct stk_dump *d = s->v.d;
	static const char *const views[] = { N_("mixed"), N_("Python"), N_("native") };
	int tx = draw_textf(y0, 0, -1, draw_attr(COL_TITLE),
			    _(" Stacks of %d (%s): stopped %zu threads for %.1f ms | %zu groups, %zu frames | %s%s"),
			    (int)d->target.pid, d->comm, d->n_stopped, d->pause_ms, d->n_groups, d->n_frames,
			    s->v.show_lines ? _("file:line ") : "", s->v.inlines ? _("inlines") : "");
	if (d->py_version[0] && !d->py_error[0])
		draw_textf(y0, tx, -1, draw_attr(COL_TITLE), _(" | CPython %s, %s view (v)"), d->py_version,
			   _(views[s->v.view % 3]));
	stack_view_draw(&s->v, y0 + 1, rows - 1);
}

static bool stack_key(struct ui *ui, void *p, int ch)
{
	struct stack_state *s = p;

	if (s->running) {
		if (ch == 27) {
			workers_cancel(ui->workers, s->job);
			s->running = false;
			ui_message(ui, false, _("stack dump of %d cancelled; the process runs on"), (int)s->pid);
			ui_pop(ui);
			return true;
		}
		return ui_below_key(ui, s, ch);
	}
	switch (ch) {
	case 'r': case KEY_F(5):
		s->failed = false;
		submit(s);
		return true;
	default:
		return ui_search_key(ui, &s->search, ch, s->v.d ? stack_view_find : NULL, &s->v) || stack_view_key(&s->v, ch);
	}
}

static void stack_tick(struct ui *ui, void *p)
{
	struct stack_state *s = p;
	if (s->running)
		ui_below_tick(ui, s);
}

/* The dump job's handler. */
static bool stack_message(void *ctx, struct ring_msg *m)
{
	struct stack_state *s = ctx;
	char buf[1024];

	switch (m->kind) {
	case RING_PROGRESS:
		s->fraction = m->fraction;
		snprintf(s->progress, sizeof(s->progress), "%s", m->text);
		return false;
	case RING_RESULT:
		if (!target_id_equal(&m->target, &s->id))
			return false;
		stack_view_set(&s->v, m->payload);
		s->failed = false;
		return true; /* the screen owns the dump now */
	case RING_ERROR:
		s->failed = true;
		snprintf(s->error, sizeof(s->error), "%s", ps_error_str(&m->err, buf, sizeof(buf)));
		return false;
	case RING_DONE:
		s->running = false;
		if (!s->v.d && !s->failed) {
			s->failed = true;
			snprintf(s->error, sizeof(s->error), _("the stack dump of %d ended without a result"), (int)s->pid);
		}
		return false;
	default:
		return false;
	}
}

static void stack_destroy(void *p)
{
	struct stack_state *s = p;
	/* Leaving while the dump runs cancels it: the target is released;
	 * its last messages (the cancelled job's DONE) find no handler. */
	if (s->ui->workers) {
		if (s->running)
			workers_cancel(s->ui->workers, s->job);
		workers_forget(s->ui->workers, s->job);
	}
	stack_view_free(&s->v);
	free(s);
}

static const struct ui_fkey stack_fkeys[] = {
	{ "F1", N_("Help") }, { "Enter", N_("Open") }, { "e", N_("All") }, { "l", N_("Lines") }, { "i", N_("Inl") },
	{ "v", N_("View") }, { "r", N_("Again") }, { "Esc", N_("Back") }, { NULL, NULL },
};

static const struct screen_ops stack_ops = {
	.name = N_("Stacks"),
	.help = "stack",
	.fkeys = stack_fkeys,
	.draw = stack_draw,
	.key = stack_key,
	.tick = stack_tick,
	.destroy = stack_destroy,
};

void screen_stack_open(struct ui *ui, const struct target_id *id)
{
	struct stack_state *s = calloc(1, sizeof(*s));

	if (!s)
		return;
	s->ui = ui;
	s->pid = id->pid;
	s->id = *id;
	if (submit(s) < 0) {
		free(s);
		return;
	}
	ui_push(ui, &stack_ops, s);
}
