/* The process list: htop-like header meters, sortable columns, tree view
 * with folding, incremental search, filters, threads, tags, signals, nice,
 * affinity, I/O priority, follow and pause. The selection follows the
 * process (pid + start time) across refreshes, sorting, search and filter. */
#include "list.h"
#include "table.h"
#include "draw.h"
#include "i18n.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <ncursesw/curses.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CFG(ls) (&(ls)->ui->cfg)

static bool keep_row(const struct proc_row *r, void *arg)
{
	const struct list_state *ls = arg;
	if (r->is_kthread && CFG(ls)->hide_kthreads)
		return false;
	if (ls->user_set && r->uid != ls->user_uid)
		return false;
	return proc_row_matches(r, ls->filter);
}

/* Remember which process is selected (after the user moved). */
static void note_sel(struct list_state *ls)
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
static void rebuild(struct ui *ui, struct list_state *ls)
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
	} else if (ls->sel_pid) {
		int i = index_of(ls, ls->sel_pid, ls->sel_start);
		const struct proc_row *was = list_find(ls, ls->sel_pid);
		if (i >= 0)
			table_select(&ls->tab, i);
		else if (was && was->starttime == ls->sel_start)
			table_select(&ls->tab, 0); /* filtered out (or folded away): the first row */
		/* else it exited: the row where it was */
	}
	note_sel(ls);
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
	rebuild(ls->ui, ls);
	list_want(ls, true); /* hidden threads may have changed: a scan */
}

/* ---- keys ---- */

static bool row_matches(void *st, int row, const char *text)
{
	const struct list_state *ls = st;
	return row < (int)ls->view.n && proc_row_matches(ls->view.v[row].r, text);
}

/* A match is selected and stays selected (its process) until the user moves. */
static void search_from(struct list_state *ls, int start, int dir)
{
	ls->search_failed = ls->search[0] && !table_search(&ls->tab, start, dir, ls->search, ls, row_matches);
	note_sel(ls);
}

static void set_sort(struct ui *ui, struct list_state *ls, enum proc_sort k, bool toggle)
{
	struct pscope_config *c = CFG(ls);
	if (toggle && (int)k == c->sort_key)
		c->sort_desc = !c->sort_desc;
	else
		c->sort_desc = proc_sort_desc_default(k);
	c->sort_key = k;
	rebuild(ui, ls);
}

static bool menu_key(struct ui *ui, struct list_state *ls, int ch)
{
	switch (ch) {
	case '\n': case '\r': case KEY_ENTER: {
		enum list_mode m = ls->mode;
		ls->mode = MODE_NORMAL;
		if (m == MODE_SORT)
			set_sort(ui, ls, (enum proc_sort)ls->menu.sel, false);
		else
			list_send_signal(ls, ls->menu.sel);
		break;
	}
	case 27: case 'q': case KEY_F(10): case KEY_F(6): case KEY_F(9):
		ls->mode = MODE_NORMAL;
		break;
	default:
		table_key(&ls->menu, ch, NULL, NULL);
		break;
	}
	return true;
}

static void open_menu(struct list_state *ls, enum list_mode m, int sel)
{
	ls->mode = m;
	table_init(&ls->menu, NULL, 0, 0, false);
	table_set_count(&ls->menu, m == MODE_SORT ? PSORT_COUNT : list_nsignals);
	table_select(&ls->menu, sel);
}

static bool input_key(struct ui *ui, struct list_state *ls, int ch)
{
	bool search = ls->mode == MODE_SEARCH;

	if (ch == 27) {
		if (!search) {
			ls->filter[0] = '\0';
			rebuild(ui, ls);
		}
		ls->mode = MODE_NORMAL;
		draw_cursor(0, 0, 0);
		return true;
	}
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		ls->mode = MODE_NORMAL;
		draw_cursor(0, 0, 0);
		return true;
	}
	if (search && (ch == KEY_F(3) || ch == KEY_DOWN)) {
		search_from(ls, ls->tab.sel + 1, 1);
		return true;
	}
	if (search && (ch == KEY_F(15) || ch == KEY_UP)) { /* Shift-F3 */
		search_from(ls, ls->tab.sel - 1, -1);
		return true;
	}
	if (!ui_edit_line(search ? ls->search : ls->filter, search ? sizeof(ls->search) : sizeof(ls->filter), ch))
		return true;
	if (search)
		search_from(ls, ls->tab.sel, 1);
	else
		rebuild(ui, ls);
	return true;
}

static bool set_user(struct ui *ui, struct list_state *ls, const char *name)
{
	struct passwd pw, *res = NULL;
	char buf[4096], *end;

	if (!name || !*name) {
		ls->user_set = false;
		return true;
	}
	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) == 0 && res) {
		ls->user_uid = res->pw_uid;
	} else {
		errno = 0;
		unsigned long uid = strtoul(name, &end, 10);
		if (errno || *end || end == name) {
			ui_message(ui, true, _("no user '%s'"), name);
			return false;
		}
		ls->user_uid = (uid_t)uid;
	}
	ls->user_set = true;
	snprintf(ls->user_name, sizeof(ls->user_name), "%s", name);
	return true;
}

/* A click on a column title sorts by it (again: inverts it). */
static void header_click(struct ui *ui, struct list_state *ls, int x)
{
	int c = list_col_at(ls, x);
	if (c >= 0)
		set_sort(ui, ls, (enum proc_sort)c, true);
}

static void toggle_fold(struct ui *ui, struct list_state *ls, const struct proc_row *r, int how)
{
	if (!CFG(ls)->tree) {
		ui_message(ui, false, "%s", _("folding works in tree view (F5 or t)"));
		return;
	}
	if (how == '*') { /* htop: expand everything */
		ls->collapsed.n = 0;
	} else if (r) {
		bool folded = id_set_has(&ls->collapsed, r->pid, r->starttime);
		if (how == '-' && !folded)
			id_set_add(&ls->collapsed, r->pid, r->starttime);
		else if (how == '+' && folded)
			id_set_del(&ls->collapsed, r->pid, r->starttime);
	}
	rebuild(ui, ls);
}

static bool list_key(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;
	struct pscope_config *c = CFG(ls);
	const struct proc_row *r = list_selected(ls);
	struct target_id id;
	enum table_key_result k;

	if (ls->mode == MODE_SEARCH || ls->mode == MODE_FILTER)
		return input_key(ui, ls, ch);
	if (ls->mode == MODE_SORT || ls->mode == MODE_SIGNAL)
		return menu_key(ui, ls, ch);

	switch (ch) {
	case '\n': case '\r': case KEY_ENTER:
		if (ui_selected_target(ui, &id))
			screen_detail_open(ui, &id);
		break;
	case KEY_F(2): screen_setup_open(ui); break;
	case KEY_F(6):
		open_menu(ls, MODE_SORT, c->sort_key);
		break;
	case '<': case ',':
		set_sort(ui, ls, (enum proc_sort)((c->sort_key + PSORT_COUNT - 1) % PSORT_COUNT), false);
		break;
	case '>': case '.':
		set_sort(ui, ls, (enum proc_sort)((c->sort_key + 1) % PSORT_COUNT), false);
		break;
	case 'P': set_sort(ui, ls, PSORT_CPU, false); break;
	case 'M': set_sort(ui, ls, PSORT_MEM, false); break;
	case 'T': set_sort(ui, ls, PSORT_TIME, false); break;
	case 'N': set_sort(ui, ls, PSORT_PID, false); break;
	case 'I':
		c->sort_desc = !c->sort_desc;
		rebuild(ui, ls);
		break;
	case KEY_F(5): case 't':
		c->tree = !c->tree;
		rebuild(ui, ls);
		break;
	case '+': case '-': case '*':
		if (c->tree) {
			toggle_fold(ui, ls, r, ch);
			break;
		}
		/* not in a tree: + - change the refresh delay, as before */
		if (ch == '+')
			ui_set_delay(ui, ui->delay_tenths < 5 ? ui->delay_tenths + 1 : ui->delay_tenths + 5);
		else if (ch == '-')
			ui_set_delay(ui, ui->delay_tenths <= 5 ? ui->delay_tenths - 1 : ui->delay_tenths - 5);
		else
			toggle_fold(ui, ls, r, ch);
		break;
	case '=':
		ui_set_delay(ui, ui->delay_tenths < 5 ? ui->delay_tenths + 1 : ui->delay_tenths + 5);
		break;
	case '_':
		ui_set_delay(ui, ui->delay_tenths <= 5 ? ui->delay_tenths - 1 : ui->delay_tenths - 5);
		break;
	case KEY_F(3): case '/':
		ls->mode = MODE_SEARCH;
		ls->search[0] = '\0';
		ls->search_failed = false;
		break;
	case KEY_F(4): case '\\':
		ls->mode = MODE_FILTER;
		break;
	case 'A':
		screen_machine_open(ui);
		break;
	case 'H':
		c->hide_uthreads = !c->hide_uthreads;
		list_want(ls, true);
		ui_message(ui, false, "%s", c->hide_uthreads ? _("hiding userland threads") : _("showing userland threads"));
		break;
	case 'K':
		c->hide_kthreads = !c->hide_kthreads;
		rebuild(ui, ls);
		ui_message(ui, false, "%s", c->hide_kthreads ? _("hiding kernel threads") : _("showing kernel threads"));
		break;
	case 'u': {
		char buf[64];
		snprintf(buf, sizeof(buf), "%s", ls->user_set ? ls->user_name : "");
		if (ui_prompt(ui, _("Show only the processes of user (empty: everyone): "), buf, sizeof(buf)) &&
		    set_user(ui, ls, buf))
			rebuild(ui, ls);
		break;
	}
	case KEY_F(9): case 'k':
		if (r || ls->tags.n)
			open_menu(ls, MODE_SIGNAL, 0);
		break;
	case KEY_F(7): list_nice(ls, -1); list_want(ls, true); break;
	case KEY_F(8): list_nice(ls, +1); list_want(ls, true); break;
	case 'a': list_affinity(ls); break;
	case 'i': list_ioprio(ls); break;
	case 'e': list_show_environ(ls); break;
	case 'w': list_show_cmdline(ls); break;
	case ' ':
		list_tag_toggle(ls, r);
		table_select(&ls->tab, ls->tab.sel + 1);
		break;
	case 'c': list_tag_children(ls, r); break;
	case 'U':
		ls->tags.n = 0;
		ui_message(ui, false, "%s", _("untagged everything"));
		break;
	case 'F':
		if (ls->follow) {
			ls->follow = 0;
			ui_message(ui, false, "%s", _("no longer following"));
		} else if (r) {
			ls->follow = r->pid;
			ui_message(ui, false, _("following PID %d"), (int)r->pid);
		}
		break;
	case 'Z': case 'z':
		ls->paused = !ls->paused;
		list_want(ls, !ls->paused);
		ui_message(ui, false, "%s", ls->paused ? _("updates paused (Z resumes)") : _("updates resumed"));
		break;
	case 27:
		return true; /* the list is the bottom screen */
	default:
		k = table_key(&ls->tab, ch, NULL, NULL);
		if (k == TABLE_KEY_HEADER)
			header_click(ui, ls, ls->tab.click_x);
		note_sel(ls);
		return k != TABLE_KEY_NONE;
	}
	note_sel(ls);
	return true;
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
	ui_job_leave(ls->ui, &ls->job);
	source_ctl_put(ls->ctl);
	snap_put(ls->snap ? &ls->snap->h : NULL);
	proc_view_free(&ls->view);
	free(ls->tags.v);
	free(ls->collapsed.v);
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
		rebuild(ls->ui, ls);
		return true;
	}
	if (m->kind == RING_ERROR)
		ui_error(ls->ui, &m->err);
	ui_job_message(&ls->job, m, true, "");
	return false;
}

static const struct ui_fkey list_fkeys[] = {
	{ "F1", N_("Help") },  { "F2", N_("Setup") }, { "F3", N_("Search") }, { "F4", N_("Filter") }, { "F5", N_("Tree") },
	{ "F6", N_("SortBy") }, { "F7", N_("Nice-") }, { "F8", N_("Nice+") }, { "F9", N_("Kill") },
	{ "s", N_("Stack") }, { "h", N_("Hot") }, { "A", N_("AllHot") }, { "C", N_("Core") }, { "D", N_("Doors") }, { "F10", N_("Quit") },
	{ NULL, NULL },
};

/* The process a row shows: its pid and start time as read, so acting on
 * a row whose PID was reused meanwhile is refused. A thread row stands for
 * its process (start time 0: the one with that PID now). */
static bool list_target(void *p, struct target_id *id)
{
	const struct proc_row *r = list_selected(p);

	if (!r)
		return false;
	id->pid = r->is_thread ? r->tgid : r->pid;
	id->starttime = r->is_thread ? r->owner_start : r->starttime;
	return true;
}

static const struct screen_ops list_ops = {
	.name = N_("Processes"),
	.help = "list",
	.fkeys = list_fkeys,
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
	int r;

	if (!ls)
		return;
	ls->ui = ui;
	table_init(&ls->tab, NULL, 0, 0, false);
	ls->tab.hkeys = true; /* long command lines scroll */
	if (o && o->user)
		set_user(ui, ls, o->user); /* main checked it names a user */
	ls->ctl = source_ctl_new();
	if (!ls->ctl || (r = source_live_list(&src, &ps_clock_live, true)) < 0) {
		ui_message(ui, true, _("cannot read /proc: %s"), strerror(ls->ctl ? -r : ENOMEM));
	} else {
		struct job_handler h = { list_message, ls };
		list_want(ls, false);
		ui_job_started(&ls->job, source_submit(ui->workers, NULL, &src, ls->ctl, &h), "",
			       _("cannot start reading /proc (out of memory)"));
	}
	ui_push(ui, &list_ops, ls);
}
