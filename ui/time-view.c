/* The Time pane's and the Time screen's shared parts: the job's windows,
 * the threads table, and the lines naming the tier, its source and the
 * doors of the tiers it could not use. */
#include "time-view.h"
#include "draw.h"
#include "i18n.h"
#include "time/job.h"
#include "uipriv.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

bool ui_time_start(struct ui *ui, struct ui_time *t, const struct target_id *id, const struct job_handler *h)
{
	struct tm_opts o = { .tier = -1 };

	return ui_time_start_opts(ui, t, id, h, &o);
}

bool ui_time_start_opts(struct ui *ui, struct ui_time *t, const struct target_id *id, const struct job_handler *h,
			const struct tm_opts *o)
{
	t->ui = ui;
	t->have_err = false;
	ui_job_started(&t->job, tm_job_submit(ui->workers, id, o, h), "", _("out of memory"));
	if (!t->job.id) {
		ps_error_set(&t->err, ENOMEM, _("out of memory"));
		t->have_err = true;
	}
	return t->job.id != 0;
}

bool ui_time_message(struct ui_time *t, struct ring_msg *m)
{
	switch (m->kind) {
	case RING_SNAPSHOT:
	case RING_RESULT:
		if (!m->payload)
			return false;
		if (t->frozen) {
			tm_snapshot_free(t->pending);
			t->pending = m->payload;
		} else {
			tm_snapshot_free(t->shown);
			t->shown = m->payload;
			t->stale = true;
		}
		ui_job_message(&t->job, m, true, "");
		return true;
	case RING_ERROR:
		t->err = m->err;
		t->have_err = true;
		break;
	default:
		break;
	}
	ui_job_message(&t->job, m, true, "");
	return false;
}

void ui_time_freeze(struct ui_time *t)
{
	t->frozen = !t->frozen;
	if (!t->frozen && t->pending) {
		tm_snapshot_free(t->shown);
		t->shown = t->pending;
		t->pending = NULL;
		t->stale = true;
	}
}

void ui_time_stop(struct ui_time *t)
{
	if (t->ui)
		ui_job_leave(t->ui, &t->job);
	t->job.id = 0;
	tm_snapshot_free(t->shown);
	tm_snapshot_free(t->pending);
	t->shown = t->pending = NULL;
	t->frozen = false;
	t->stale = true;
}

static const struct table_col all_cols[TC_N] = {
	[TC_TID] = { N_("TID"), 7, true },        [TC_NAME] = { N_("NAME"), 16, false },
	[TC_ONCPU] = { N_("ONCPU%"), 6, true },   [TC_RUNQ] = { N_("RUNQ%"), 6, true },
	[TC_BLOCK] = { N_("BLOCK%"), 6, true },   [TC_STOP] = { N_("STOP%"), 6, true },
	[TC_VOL] = { N_("VOLCS"), 7, true },      [TC_INVOL] = { N_("INVOLCS"), 7, true },
	[TC_MINFLT] = { N_("MINFLT"), 7, true },  [TC_MAJFLT] = { N_("MAJFLT"), 6, true },
	[TC_BLOCKED] = { N_("BLOCKED BY"), 0, false },
};

void ui_time_cols(struct table_col *cols, bool all)
{
	for (int k = 0; k < TC_N; k++) {
		cols[k] = all_cols[k];
		if (!all && k > TC_BLOCK && k != TC_BLOCKED)
			cols[k].width = -1;
	}
}

static int cmp_u(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

int ui_time_cmp(void *st, int a, int b, int col)
{
	const struct tm_snapshot *s = ((struct ui_time *)st)->shown;
	const struct tm_thread *x = &s->threads[a], *y = &s->threads[b];
	int r = 0;

	switch (col) {
	case TC_NAME: r = strcmp(x->comm, y->comm); break;
	case TC_ONCPU: r = cmp_u(x->oncpu_ns, y->oncpu_ns); break;
	case TC_RUNQ: r = cmp_u(x->runq_ns, y->runq_ns); break;
	case TC_BLOCK: case TC_BLOCKED: r = cmp_u(tm_blocked_sum(x), tm_blocked_sum(y)); break;
	case TC_STOP: r = cmp_u(x->stopped_ns, y->stopped_ns); break;
	case TC_VOL: r = cmp_u(x->vol, y->vol); break;
	case TC_INVOL: r = cmp_u(x->invol, y->invol); break;
	case TC_MINFLT: r = cmp_u(x->minflt, y->minflt); break;
	case TC_MAJFLT: r = cmp_u(x->majflt, y->majflt); break;
	}
	return r ? r : (x->tid > y->tid) - (x->tid < y->tid);
}

int ui_time_cell(void *st, int row, int col, char *buf, size_t size)
{
	const struct tm_snapshot *s = ((struct ui_time *)st)->shown;
	const struct tm_thread *t = &s->threads[row];

	switch (col) {
	case -1:
		return t->exited ? draw_attr(COL_GONE) : 0;
	case TC_TID: snprintf(buf, size, "%d", (int)t->tid); break;
	case TC_NAME: snprintf(buf, size, "%s%s", t->comm, t->exited ? _(" (exited)") : ""); break;
	case TC_ONCPU: snprintf(buf, size, "%.1f", tm_pct(s, t->oncpu_ns)); break;
	case TC_RUNQ: snprintf(buf, size, "%.1f", tm_pct(s, t->runq_ns)); break;
	case TC_BLOCK: snprintf(buf, size, "%.1f", tm_pct(s, tm_blocked_sum(t))); break;
	case TC_STOP: snprintf(buf, size, "%.1f", tm_pct(s, t->stopped_ns)); break;
	case TC_VOL: snprintf(buf, size, "%llu", (unsigned long long)t->vol); break;
	case TC_INVOL: snprintf(buf, size, "%llu", (unsigned long long)t->invol); break;
	case TC_MINFLT: snprintf(buf, size, "%llu", (unsigned long long)t->minflt); break;
	case TC_MAJFLT: snprintf(buf, size, "%llu", (unsigned long long)t->majflt); break;
	case TC_BLOCKED: tm_blocked_str(t, buf, size); break;
	}
	return 0;
}

int ui_time_draw_state(const struct ui_time *t, int y, int rows)
{
	if (t->shown || rows <= 0)
		return t->shown ? -1 : 0;
	if (t->have_err) {
		const struct ps_error *e = &t->err;
		int n = 0;
		draw_text(y + n++, 0, -1, draw_attr(COL_ERROR) | A_BOLD, e->msg);
		if (e->door && n < rows)
			draw_textf(y + n++, 0, -1, draw_attr(COL_WARN), _("Permission missing: %s"), door_name(e->door));
		if (e->fix[0] && n < rows)
			draw_textf(y + n++, 0, -1, draw_attr(COL_NORMAL), _("To open it: %s"), e->fix);
		return n;
	}
	draw_text(y, 0, -1, draw_attr(COL_DIM),
		  t->job.running ? _("measuring the first second...") : _("not measuring: the process has ended"));
	return 1;
}

int ui_time_draw_source(const struct tm_snapshot *s, int y, int rows)
{
	int n = 0;

	if (n < rows)
		draw_textf(y + n++, 0, -1, draw_attr(COL_DIM), _("Tier %s: %s"), tm_tier_name(s->tier), s->source);
	if (n < rows && (s->sampled & TM_SAMPLED_BLOCKED))
		draw_textf(y + n++, 0, -1, draw_attr(COL_WARN),
			   _("Blocked reasons are sampled (%.0f Hz of syscall and wchan), not traced"), s->sample_hz);
	if (n < rows && (s->sampled & TM_SAMPLED_EVENTS))
		draw_text(y + n++, 0, -1, draw_attr(COL_WARN),
			  _("Events above the rate are sampled: counts are scaled, not exact"));
	if (n < rows && s->tier_note[0])
		draw_textf(y + n++, 0, -1, draw_attr(COL_WARN), _("Not a higher tier: %s"), s->tier_note);
	if (n < rows && s->drops)
		draw_textf(y + n++, 0, -1, draw_attr(COL_WARN), P_("%llu event or entry did not fit (dropped, counted)", "%llu events or entries did not fit (dropped, counted)", s->drops),
			   (unsigned long long)s->drops);
	if (n < rows && s->ended[0])
		draw_textf(y + n++, 0, -1, draw_attr(COL_ERROR), _("Ended: %s (the last window)"), s->ended);
	return n;
}

void ui_time_draw_total(const struct tm_snapshot *s, int y)
{
	char by[128];

	draw_textf(y, 0, -1, A_BOLD,
		   P_("Process over %.1f s: on CPU %.1f%%, waiting for a CPU %.1f%%, blocked %.1f%% (%s); %zu thread",
		      "Process over %.1f s: on CPU %.1f%%, waiting for a CPU %.1f%%, blocked %.1f%% (%s); %zu threads",
		      s->nthreads),
		   tm_window_s(s), tm_pct(s, s->total.oncpu_ns), tm_pct(s, s->total.runq_ns),
		   tm_pct(s, tm_blocked_sum(&s->total)), tm_blocked_str(&s->total, by, sizeof(by)), s->nthreads);
}
