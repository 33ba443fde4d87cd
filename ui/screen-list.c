/* The process list: htop-like header meters, sortable columns, tree view
 * with folding, incremental search, filters, threads, tags, signals, nice,
 * affinity, I/O priority, follow and pause. The selection follows the
 * process (pid + start time) across refreshes, sorting, search and filter.
 * This file: the state, the snapshot made into the view, the screen's ops;
 * the keys and modes are list-keys.c. */
#include "list.h"
#include "table.h"
#include "draw.h"
#include "i18n.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CFG(ls) (&(ls)->ui->cfg)

bool list_pid_wanted(const struct list_state *ls, pid_t pid)
{
	for (int i = 0; i < ls->npids; i++)
		if (ls->pids[i] == pid)
			return true;
	return false;
}

static bool keep_row(const struct proc_row *r, void *arg)
{
	const struct list_state *ls = arg;
	if (r->is_kthread && CFG(ls)->hide_kthreads)
		return false;
	if (ls->user_set && r->uid != ls->user_uid)
		return false;
	if (ls->npids && !list_pid_wanted(ls, r->is_thread ? r->tgid : r->pid))
		return false;
	return proc_row_matches(r, ls->filter);
}

/* Remember which process is selected (after the user moved). */
void list_note_sel(struct list_state *ls)
{
	const struct proc_row *r = list_selected(ls);
	ls->sel_pid = r ? r->pid : 0;
	ls->sel_start = r ? r->starttime : 0;
}

static int index_of(const struct list_state *ls, pid_t pid, unsigned long long start)
{
	for (size_t i = 0; i < ls->view.n; i++)
		if (ls->view.v[i].r->pid == pid && ls->view.v[i].r->starttime == start)
			return (int)i;
	return -1;
}

/* Tree folding: rows below a collapsed one (deeper, until the next row at
 * its depth or above) are left out. */
static void fold(struct list_state *ls)
{
	size_t o = 0;
	int hide_below = -1;

	if (!CFG(ls)->tree || !ls->collapsed.n)
		return;
	for (size_t i = 0; i < ls->view.n; i++) {
		const struct proc_view_row *vr = &ls->view.v[i];
		if (hide_below >= 0 && vr->depth > hide_below)
			continue;
		hide_below = id_set_has(&ls->collapsed, vr->r->pid, vr->r->starttime) ? vr->depth : -1;
		ls->view.v[o++] = *vr;
	}
	ls->view.n = o;
}

/* Re-order the rows (after a scan or a change of sort, tree or filter);
 * the selection stays on its process while it is in the list. */
void list_rebuild(struct ui *ui, struct list_state *ls)
{
	const struct pscope_config *c = CFG(ls);

	if (!ls->snap)
		return;
	if (snap_list_order(ls->snap, (enum proc_sort)c->sort_key, c->sort_desc, c->tree, keep_row, ls, &ls->view) < 0) {
		ui_message(ui, true, "%s", _("out of memory while sorting the process list"));
		ls->view.n = 0;
	}
	fold(ls);
	table_set_count(&ls->tab, (int)ls->view.n);
	if (ls->follow) {
		int i = proc_view_index(&ls->view, ls->follow);
		if (i >= 0) {
			table_select(&ls->tab, i);
		} else {
			ui_message(ui, false, _("PID %d is gone (or filtered out): no longer following"), (int)ls->follow);
			ls->follow = 0;
		}
	} else if (!ls->tab.moved) {
		/* Until the user moves, the top row: the biggest users once
		 * the second scan has their rates, as htop starts. */
		table_select(&ls->tab, 0);
		ls->tab.top = 0;
	} else if (ls->sel_pid) {
		int i = index_of(ls, ls->sel_pid, ls->sel_start);
		const struct proc_row *was = list_find(ls, ls->sel_pid);
		if (i >= 0)
			table_select(&ls->tab, i);
		else if (was && was->starttime == ls->sel_start)
			table_select(&ls->tab, 0); /* filtered out (or folded away): the first row */
		/* else it exited: the row where it was */
	}
	list_note_sel(ls);
}

/* What the source is to read now: the rows on screen and the extras their
 * columns need, every row's extra when sorted by one, thread rows, the
 * refresh interval; tick_now: a new scan at once (threads shown, a nice
 * changed). */
void list_want(struct list_state *ls, bool tick_now)
{
	const struct pscope_config *c = CFG(ls);
	struct source_want w;

	if (!ls->ctl)
		return;
	source_ctl_peek(ls->ctl, &w);
	w.interval_ms = ls->ui->delay_tenths * 100;
	w.paused = ls->paused;
	w.threads = !c->hide_uthreads;
	w.px_all = proc_sort_extra((enum proc_sort)c->sort_key);
	w.px_rows = ls->px_rows;
	w.nrows = 0;
	for (int i = 0; i < ls->tab.body_rows && ls->tab.top + i < (int)ls->view.n && w.nrows < SOURCE_ROWS_MAX; i++)
		w.rows[w.nrows++] = ls->view.v[ls->tab.top + i].r->pid;
	w.record = ls->recording;
	strlcpy_ps(w.record_path, ls->recording ? ls->rec_path : "", sizeof(w.record_path));
	w.replay_i = ls->replay_i;
	w.replay_at = ls->replay_at;
	if (tick_now)
		w.tick_now++;
	if (source_ctl_set(ls->ctl, &w) && ls->job.running)
		workers_wake(ls->ui->workers, ls->job.id);
}

/* The snapshot drawn: the source may read the next one. */
void list_drawn(struct list_state *ls)
{
	if (ls->ctl && ls->snap && source_ctl_drawn(ls->ctl, ls->snap->h.seq) && ls->job.running)
		workers_wake(ls->ui->workers, ls->job.id);
}

void list_sync_settings(struct list_state *ls)
{
	if (ls->cfg_gen == ls->ui->cfg_gen)
		return;
	ls->cfg_gen = ls->ui->cfg_gen;
	list_rebuild(ls->ui, ls);
	list_want(ls, true); /* hidden threads may have changed: a scan */
}

/* The other view's sort into cfg, this one's kept. */
static void swap_view(struct list_state *ls)
{
	struct pscope_config *c = CFG(ls);
	int k = c->sort_key;
	bool d = c->sort_desc;

	ls->io_view = !ls->io_view;
	c->sort_key = ls->other_sort_key;
	c->sort_desc = ls->other_sort_desc;
	ls->other_sort_key = k;
	ls->other_sort_desc = d;
}

void list_toggle_view(struct ui *ui, struct list_state *ls)
{
	swap_view(ls);
	ls->tab.hscroll = 0;
	list_rebuild(ui, ls);
	list_want(ls, true); /* the new columns' reads, at once */
}

/* The source ticks on its own: the timer only passes on the interval. */
static void list_tick(struct ui *ui, void *p)
{
	(void)ui;
	list_want(p, false);
}

static void list_destroy(void *p)
{
	struct list_state *ls = p;
	if (ls->io_view) /* the main view's sort is the one pscoperc keeps */
		swap_view(ls);
	ui_job_leave(ls->ui, &ls->job);
	source_ctl_put(ls->ctl);
	snap_put(ls->snap ? &ls->snap->h : NULL);
	proc_view_free(&ls->view);
	free(ls->tags.v);
	free(ls->collapsed.v);
	free(ls->users);
	table_free(&ls->tab);
	table_free(&ls->menu);
	free(ls);
}

/* The source's messages: each snapshot is drawn (unless paused: the list
 * stays as it was), an error goes to the status line. */
static bool list_message(void *ctx, struct ring_msg *m)
{
	struct list_state *ls = ctx;

	if ((m->kind == RING_SNAPSHOT || m->kind == RING_RESULT) && m->payload) {
		if (ls->paused)
			return false;
		snap_put(ls->snap ? &ls->snap->h : NULL);
		ls->snap = m->payload;
		/* the view first: until it is rebuilt it points into the
		 * snapshot just put */
		list_rebuild(ls->ui, ls);
		list_replay_seen(ls->ui, ls);
		list_record_seen(ls->ui, ls);
		return true;
	}
	if (m->kind == RING_ERROR)
		ui_error(ls->ui, &m->err);
	ui_job_message(&ls->job, m, true, "");
	return false;
}

/* The process a row shows: its pid and start time as read, so acting on
 * a row whose PID was reused meanwhile is refused. A thread row stands for
 * its process (start time 0: the one with that PID now). */
static bool list_target(void *p, struct target_id *id)
{
	const struct proc_row *r = list_selected(p);

	if (!r || ((struct list_state *)p)->replay)
		return false; /* a recorded PID may name another process now */
	id->pid = r->is_thread ? r->tgid : r->pid;
	id->starttime = r->is_thread ? r->owner_start : r->starttime;
	return true;
}

/* On a recording, its keys first. */
static enum ui_key_result mode_key(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	if (ls->replay && ls->mode == MODE_NORMAL) {
		enum ui_key_result r = list_replay_key(ui, ls, ch);
		if (r != UI_KEY_NEXT)
			return r;
	}
	return list_mode(ui, p, ch);
}

const struct screen_ops screen_list_ops = {
	.name = N_("Processes"),
	.help = "list",
	.keys = list_keys,
	.fbar = "F1 F2 F3 F4 F5 F6 F7 F8 F9 s h A C D F10",
	.mode_key = mode_key,
	.draw = list_draw,
	.key = list_key,
	.tick = list_tick,
	.selected = list_target,
	.destroy = list_destroy,
};

void screen_list_open(struct ui *ui)
{
	struct list_state *ls = calloc(1, sizeof(*ls));
	const struct ui_opts *o = ui->opts;
	struct source src;
	int r = -ENOMEM;

	if (!ls)
		return;
	ls->ui = ui;
	table_init(&ls->tab, NULL, 0, 0, false);
	ls->other_sort_key = PSORT_IO_RATE; /* the I/O view's, as htop's */
	ls->other_sort_desc = true;
	ls->tab.hkeys = true; /* long command lines scroll */
	if (o && o->user)
		list_set_user(ui, ls, o->user); /* main checked it names a user */
	if (o && o->npids) { /* -p PID,PID...: as htop, only those */
		memcpy(ls->pids, o->pids, sizeof(ls->pids));
		ls->npids = o->npids;
	}
	if (o && o->filter) /* -F TEXT: the filter, as if typed after F4 */
		snprintf(ls->filter, sizeof(ls->filter), "%s", o->filter);
	ls->ctl = source_ctl_new();
	ls->replay = o && o->replay;
	ls->replay_i = -1;
	ls->replay_at = ls->replay && o->replay_at > 0 ? o->replay_at : 0; /* --at TIME */
	if (!ls->ctl || (r = ls->replay ? source_replay(&src, o->replay) : source_live_list(&src, &ps_clock_live, true)) < 0) {
		ui_message(ui, true, ls->replay ? _("cannot replay the recording: %s") : _("cannot read /proc: %s"), strerror(-r));
	} else {
		struct job_handler h = { list_message, ls };
		list_want(ls, false);
		ui_job_started(&ls->job, source_submit(ui->workers, NULL, &src, ls->ctl, &h), "",
			       _("cannot start reading /proc (out of memory)"));
	}
	ui_push(ui, &screen_list_ops, ls);
}
