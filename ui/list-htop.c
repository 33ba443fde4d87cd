/* The process list's keys an htop user's fingers know: digits jump to a
 * PID (htop's incremental PID search), u opens a menu of the users whose
 * processes are listed, a signal's number typed in the F9 menu selects it,
 * l opens the FDs pane (htop's lsof) and x the Threads pane sorted by the
 * lock each thread waits on (htop's file locks; pscope's locks are the
 * futexes the deadlock analysis follows). The table entries are in
 * list-keys.c; the menus are drawn by list-view.c. */
#include "list.h"
#include "table.h"
#include "i18n.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <ncursesw/curses.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- digits: the row of the PID typed so far ---- */

void list_pid_digit(struct ui *ui, struct list_state *ls, int ch)
{
	long want = ls->pid_jump * 10 + (ch - '0');

	if (want > 0x3fffffff) /* past any PID: start again from this digit */
		want = ch - '0';
	ls->pid_jump = want;
	for (size_t i = 0; i < ls->view.n; i++)
		if (ls->view.v[i].r->pid == (pid_t)want) {
			table_select(&ls->tab, (int)i);
			ls->tab.moved = true;
			ls->follow = 0;
			list_note_sel(ls);
			ui_message(ui, false, _("PID %ld (digits go on typing it; any other key ends it)"), want);
			return;
		}
	ui_message(ui, false, _("PID %ld: not in the list (digits go on typing it)"), want);
}

/* ---- u: the users of the listed processes, "all users" first ---- */

static int user_cmp(const void *a, const void *b)
{
	const struct list_user *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->uid > y->uid) - (x->uid < y->uid);
}

static bool have_uid(const struct list_state *ls, uid_t uid)
{
	for (size_t i = 0; i < ls->nusers; i++)
		if (ls->users[i].uid == uid)
			return true;
	return false;
}

/* The menu's rows from the newest snapshot; the row of the user shown now
 * (0: everyone). */
int list_users_collect(struct list_state *ls)
{
	const struct snap_list *s = ls->snap;
	int sel = 0;

	ls->nusers = 0;
	for (size_t i = 0; s && i < s->n; i++) {
		const struct proc_row *r = s->rows[i];
		if (r->is_thread || have_uid(ls, r->uid))
			continue;
		if (ls->nusers == ls->users_cap) {
			size_t cap = ls->users_cap ? ls->users_cap * 2 : 32;
			struct list_user *v = realloc(ls->users, cap * sizeof(*v));
			if (!v)
				break;
			ls->users = v;
			ls->users_cap = cap;
		}
		struct list_user *u = &ls->users[ls->nusers++];
		u->uid = r->uid;
		snprintf(u->name, sizeof(u->name), "%s", r->user);
	}
	sort_array(ls->users, ls->nusers, sizeof(*ls->users), user_cmp);
	for (size_t i = 0; ls->user_set && i < ls->nusers; i++)
		if (ls->users[i].uid == ls->user_uid)
			sel = (int)i + 1;
	return sel;
}

/* -u USER: a name or a uid. */
bool list_set_user(struct ui *ui, struct list_state *ls, const char *name)
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

/* Enter on row k of the menu: 0 everyone, else that user. */
void list_users_choose(struct ui *ui, struct list_state *ls, int k)
{
	if (k <= 0 || (size_t)k > ls->nusers) {
		ls->user_set = false;
	} else {
		ls->user_set = true;
		ls->user_uid = ls->users[k - 1].uid;
		snprintf(ls->user_name, sizeof(ls->user_name), "%s", ls->users[k - 1].name);
	}
	list_rebuild(ui, ls);
}

/* ---- a signal's number in the F9 menu ---- */

bool list_signal_digit(struct list_state *ls, int ch)
{
	int want = ls->sig_typed * 10 + (ch - '0');

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < list_nsignals; i++)
			if (list_signals[i].sig == want) {
				table_select(&ls->menu, i);
				ls->sig_typed = want;
				return true;
			}
		want = ch - '0'; /* "15" then "9": SIGKILL, not 159 */
	}
	ls->sig_typed = 0;
	return true;
}

/* ---- l and x: a pane of the selected process ---- */

bool list_open_pane(struct ui *ui, const char *pane, const char *view)
{
	struct target_id id;

	if (!ui_selected_target(ui, &id))
		return true;
	screen_detail_open_at(ui, &id, pane, view);
	if (view && !strcmp(view, "locks"))
		ui_message(ui, false, "%s",
			   _("x: threads sorted by the lock they wait on (LOCK, the last column; Right scrolls to it)"));
	return true;
}

/* ---- the keys (list-keys.c's table) ---- */

bool list_k_pid_digit(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	ls->digit_last = true;
	list_pid_digit(ui, ls, ch);
	return true;
}

bool list_k_fds(struct ui *ui, void *p, int ch)
{
	return list_open_pane(ui, "fd", NULL);
}

bool list_k_locks(struct ui *ui, void *p, int ch)
{
	return list_open_pane(ui, "threads", "locks");
}
