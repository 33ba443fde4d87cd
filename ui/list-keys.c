/* The process list's keys: its table (sorting, views, finding, tags, the
 * acts on the selected or tagged processes), the modes that take every key
 * (the search and filter line, the sort and signal menus) and the list
 * widget's own moving. The screen itself is screen-list.c. */
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

#define CFG(ls) (&(ls)->ui->cfg)

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
	list_note_sel(ls);
}

static void set_sort(struct ui *ui, struct list_state *ls, enum proc_sort k, bool toggle)
{
	struct pscope_config *c = CFG(ls);
	if (toggle && (int)k == c->sort_key)
		c->sort_desc = !c->sort_desc;
	else
		c->sort_desc = proc_sort_desc_default(k);
	c->sort_key = k;
	list_rebuild(ui, ls);
}

static void open_menu(struct list_state *ls, enum list_mode m, int sel)
{
	ls->mode = m;
	ls->sig_typed = 0;
	table_init(&ls->menu, NULL, 0, 0, false);
	table_set_count(&ls->menu, m == MODE_SORT ? PSORT_COUNT : m == MODE_USER ? (int)ls->nusers + 1 : list_nsignals);
	table_select(&ls->menu, sel);
}

/* A click on a column title sorts by it (again: inverts it). */
static void header_click(struct ui *ui, struct list_state *ls, int x)
{
	int c = list_col_at(ls, x);
	if (c >= 0)
		set_sort(ui, ls, (enum proc_sort)c, true);
}

enum fold { FOLD, UNFOLD, UNFOLD_ALL };

static void toggle_fold(struct ui *ui, struct list_state *ls, enum fold how)
{
	const struct proc_row *r = list_selected(ls);

	if (!CFG(ls)->tree) {
		ui_message(ui, false, "%s", _("folding works in tree view (F5 or t)"));
		return;
	}
	if (how == UNFOLD_ALL) { /* htop: expand everything */
		ls->collapsed.n = 0;
	} else if (r) {
		bool folded = id_set_has(&ls->collapsed, r->pid, r->starttime);
		if (how == FOLD && !folded)
			id_set_add(&ls->collapsed, r->pid, r->starttime);
		else if (how == UNFOLD && folded)
			id_set_del(&ls->collapsed, r->pid, r->starttime);
	}
	list_rebuild(ui, ls);
}

/* ---- the modes: a prompt's line (search, filter), a menu (sort, signal) ---- */

static void input_end(struct list_state *ls)
{
	ls->mode = MODE_NORMAL;
	draw_cursor(0, 0, 0);
}

/* Esc: a search leaves the selection where it is, a filter is cleared. */
static bool k_input_esc(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	if (ls->mode == MODE_FILTER) {
		ls->filter[0] = '\0';
		list_rebuild(ui, ls);
	}
	input_end(ls);
	return true;
}

static bool k_input_enter(struct ui *ui, void *p, int ch)
{
	input_end(p);
	return true;
}

static bool k_search_next(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	if (ls->mode != MODE_SEARCH)
		return false;
	search_from(ls, ls->tab.sel + 1, 1);
	return true;
}

static bool k_search_prev(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	if (ls->mode != MODE_SEARCH)
		return false;
	search_from(ls, ls->tab.sel - 1, -1);
	return true;
}

/* The search and filter line (their help: F3 and F4 below). */
static const struct ui_key input_keys[] = {
	UI_ALSO(k_input_esc, 27),
	UI_ALSO(k_input_enter, '\n', '\r', KEY_ENTER),
	UI_ALSO(k_search_next, KEY_F(3), KEY_DOWN),
	UI_ALSO(k_search_prev, KEY_F(15), KEY_UP),
	/* F15: Shift-F3 */ UI_KEYS_END,
};

static bool k_menu_choose(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;
	enum list_mode m = ls->mode;

	ls->mode = MODE_NORMAL;
	if (m == MODE_SORT)
		set_sort(ui, ls, (enum proc_sort)ls->menu.sel, false);
	else if (m == MODE_USER)
		list_users_choose(ui, ls, ls->menu.sel);
	else
		list_send_signal(ls, ls->menu.sel);
	return true;
}

static bool k_menu_close(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	ls->mode = MODE_NORMAL;
	return true;
}

/* The signal menu: 9, 15... select that signal. */
static bool k_menu_digit(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	if (ls->mode != MODE_SIGNAL)
		return false;
	ls->digit_last = true;
	return list_signal_digit(ls, ch);
}

static const struct ui_key menu_keys[] = {
	UI_ALSO(k_menu_choose, '\n', '\r', KEY_ENTER),
	UI_ALSO(k_menu_digit, '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'),
	UI_ALSO(k_menu_close, 27, 'q', KEY_F(10), KEY_F(6), KEY_F(9)),
	UI_KEYS_END,
};

/* A mode takes every key: its table, then the line editor or the menu's
 * list. */
enum ui_key_result list_mode(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	if (ls->mode == MODE_SEARCH || ls->mode == MODE_FILTER) {
		bool search = ls->mode == MODE_SEARCH;
		if (ui_keys_dispatch(ui, input_keys, ls, ch) != UI_KEY_NEXT ||
		    !ui_edit_line(search ? ls->search : ls->filter, search ? sizeof(ls->search) : sizeof(ls->filter), ch))
			return UI_KEY_DONE;
		if (search)
			search_from(ls, ls->tab.sel, 1);
		else
			list_rebuild(ui, ls);
		return UI_KEY_DONE;
	}
	/* A number typed (a PID, a signal) ends at the first other key. */
	if (!ls->digit_last)
		ls->pid_jump = ls->sig_typed = 0;
	ls->digit_last = false;
	if (ls->mode == MODE_SORT || ls->mode == MODE_SIGNAL || ls->mode == MODE_USER) {
		if (ui_keys_dispatch(ui, menu_keys, ls, ch) == UI_KEY_NEXT)
			table_key(&ls->menu, ch, NULL, NULL);
		return UI_KEY_DONE;
	}
	return UI_KEY_NEXT;
}

/* ---- the list's keys ---- */

static bool k_detail(struct ui *ui, void *p, int ch)
{
	struct target_id id;

	if (ui_selected_target(ui, &id))
		screen_detail_open(ui, &id);
	return true;
}

static bool k_setup(struct ui *ui, void *p, int ch)
{
	screen_setup_open(ui);
	return true;
}

static bool k_sort_menu(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	open_menu(ls, MODE_SORT, CFG(ls)->sort_key);
	return true;
}

static bool k_sort_prev(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	set_sort(ui, ls, (enum proc_sort)((CFG(ls)->sort_key + PSORT_COUNT - 1) % PSORT_COUNT), false);
	return true;
}

static bool k_sort_next(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	set_sort(ui, ls, (enum proc_sort)((CFG(ls)->sort_key + 1) % PSORT_COUNT), false);
	return true;
}

static bool k_sort_cpu(struct ui *ui, void *p, int ch)
{
	set_sort(ui, p, PSORT_CPU, false);
	return true;
}

static bool k_sort_mem(struct ui *ui, void *p, int ch)
{
	set_sort(ui, p, PSORT_MEM, false);
	return true;
}

static bool k_sort_time(struct ui *ui, void *p, int ch)
{
	set_sort(ui, p, PSORT_TIME, false);
	return true;
}

static bool k_sort_pid(struct ui *ui, void *p, int ch)
{
	set_sort(ui, p, PSORT_PID, false);
	return true;
}

static bool k_invert(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	CFG(ls)->sort_desc = !CFG(ls)->sort_desc;
	list_rebuild(ui, ls);
	return true;
}

static bool k_tree(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	CFG(ls)->tree = !CFG(ls)->tree;
	list_rebuild(ui, ls);
	return true;
}

static void slower(struct ui *ui)
{
	ui_set_delay(ui, ui->delay_tenths < 5 ? ui->delay_tenths + 1 : ui->delay_tenths + 5);
}

static void faster(struct ui *ui)
{
	ui_set_delay(ui, ui->delay_tenths <= 5 ? ui->delay_tenths - 1 : ui->delay_tenths - 5);
}

/* In a tree - + * fold and unfold; elsewhere + and - set the delay, as
 * before. */
static bool k_fold(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	if (CFG(ls)->tree)
		toggle_fold(ui, ls, FOLD);
	else
		faster(ui);
	return true;
}

static bool k_unfold(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	if (CFG(ls)->tree)
		toggle_fold(ui, ls, UNFOLD);
	else
		slower(ui);
	return true;
}

static bool k_unfold_all(struct ui *ui, void *p, int ch)
{
	toggle_fold(ui, p, UNFOLD_ALL);
	return true;
}

static bool k_slower(struct ui *ui, void *p, int ch)
{
	slower(ui);
	return true;
}

static bool k_faster(struct ui *ui, void *p, int ch)
{
	faster(ui);
	return true;
}

static bool k_search(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	ls->mode = MODE_SEARCH;
	ls->search[0] = '\0';
	ls->search_failed = false;
	return true;
}

static bool k_filter(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	ls->mode = MODE_FILTER;
	return true;
}

static bool k_hotprocs(struct ui *ui, void *p, int ch)
{
	screen_hotprocs_open(ui);
	return true;
}

static bool k_uthreads(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;
	struct pscope_config *c = CFG(ls);

	c->hide_uthreads = !c->hide_uthreads;
	list_want(ls, true);
	ui_message(ui, false, "%s", c->hide_uthreads ? _("hiding userland threads") : _("showing userland threads"));
	return true;
}

static bool k_kthreads(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;
	struct pscope_config *c = CFG(ls);

	c->hide_kthreads = !c->hide_kthreads;
	list_rebuild(ui, ls);
	ui_message(ui, false, "%s", c->hide_kthreads ? _("hiding kernel threads") : _("showing kernel threads"));
	return true;
}

static bool k_user(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	open_menu(ls, MODE_USER, list_users_collect(ls));
	return true;
}

static bool k_kill(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	if (list_selected(ls) || ls->tags.n)
		open_menu(ls, MODE_SIGNAL, 0);
	return true;
}

static bool k_nice_down(struct ui *ui, void *p, int ch)
{
	list_nice(p, -1);
	list_want(p, true);
	return true;
}

static bool k_nice_up(struct ui *ui, void *p, int ch)
{
	list_nice(p, +1);
	list_want(p, true);
	return true;
}

static bool k_affinity(struct ui *ui, void *p, int ch)
{
	list_affinity(p);
	return true;
}

static bool k_ioprio(struct ui *ui, void *p, int ch)
{
	list_ioprio(p);
	return true;
}

static bool k_environ(struct ui *ui, void *p, int ch)
{
	list_show_environ(p);
	return true;
}

static bool k_cmdline(struct ui *ui, void *p, int ch)
{
	list_show_cmdline(p);
	return true;
}

static bool k_tag(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	list_tag_toggle(ls, list_selected(ls));
	table_select(&ls->tab, ls->tab.sel + 1);
	ls->tab.moved = true;
	list_note_sel(ls);
	return true;
}

static bool k_tag_children(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	list_tag_children(ls, list_selected(ls));
	return true;
}

static bool k_untag(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	ls->tags.n = 0;
	ui_message(ui, false, "%s", _("untagged everything"));
	return true;
}

static bool k_follow(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;
	const struct proc_row *r = list_selected(ls);

	if (ls->follow) {
		ls->follow = 0;
		ui_message(ui, false, "%s", _("no longer following"));
	} else if (r) {
		ls->follow = r->pid;
		ui_message(ui, false, _("following PID %d"), (int)r->pid);
	}
	return true;
}

static bool k_view(struct ui *ui, void *p, int ch)
{
	list_toggle_view(ui, p);
	return true;
}

static bool k_pause(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;

	ls->paused = !ls->paused;
	list_want(ls, !ls->paused);
	ui_message(ui, false, "%s", ls->paused ? _("updates paused (Z resumes)") : _("updates resumed"));
	return true;
}

const struct ui_key list_keys[] = {
	UI_SECTION(N_("Moving")),
	UI_KEY("Up/Down, j", NULL, NULL, N_("move the selection")),
	UI_KEY("PgUp/PgDn", NULL, NULL, N_("one page up or down")),
	UI_KEY("Home/End", NULL, NULL, N_("first or last process")),
	UI_KEY("Left/Right", NULL, NULL, N_("scroll the COMMAND column sideways")),
	UI_KEY(N_("mouse"), NULL, NULL, N_("a click selects a row; the wheel scrolls")),
	UI_SECTION(N_("Sorting and views")),
	UI_KEY_BRIEF("F6", k_sort_menu, N_("SortBy"), N_("Sort"), N_("choose the sort column from a menu"), KEY_F(6)),
	UI_KEY(N_("< >  (or , .)"), k_sort_prev, NULL, N_("sort by the previous / next column"), '<', ','),
	UI_ALSO(k_sort_next, '>', '.'),
	UI_KEY("P  M  T  N", k_sort_cpu, NULL, N_("sort by CPU%, MEM%, TIME+, PID"), 'P'),
	UI_ALSO(k_sort_mem, 'M'),
	UI_ALSO(k_sort_time, 'T'),
	UI_ALSO(k_sort_pid, 'N'),
	UI_KEY("I", k_invert, NULL, N_("invert the sort order"), 'I'),
	UI_KEY(N_("click a title"), NULL, NULL, N_("sort by that column (again: invert)")),
	UI_KEY("F5, t", k_tree, N_("Tree"), N_("tree view: children under their parent"), KEY_F(5), 't'),
	UI_KEY("-  +  *", k_fold, NULL,
	  N_("tree view: fold the selected subtree, unfold it, unfold everything"), '-'),
	UI_ALSO(k_unfold, '+'),
	UI_ALSO(k_unfold_all, '*'),
	UI_KEY("Tab", k_view, NULL,
	  N_("the I/O view, as htop's I/O tab (again: the main columns): IO (the I/O priority: R realtime, "
	     "B best effort, id idle; B and the nice value's level when none is set), IO_RATE (read + write), "
	     "IO_READ_RATE, IO_WRITE_RATE, and from 100 columns IO_RBYTES and IO_WBYTES (bytes read and "
	     "written in all) of storage I/O from /proc/PID/io (another user's process: ptrace read access, "
	     "else -). Each view keeps its own sort (the I/O view's starts on IO_RATE), the selection stays "
	     "on its process; the header says [I/O view]"), '\t'),
	UI_KEY("H", k_uthreads, NULL, N_("show/hide userland threads (one row per thread, dimmed)"), 'H'),
	UI_KEY("K", k_kthreads, NULL,
	  N_("show/hide kernel threads (hidden by default; the header counts them either way)"), 'K'),
	UI_KEY("u", k_user, NULL,
	  N_("show only one user's processes: a menu of the users listed, All users first (Enter picks, "
	     "Esc leaves it as it was)"), 'u'),
	UI_KEY_BRIEF("F2", k_setup, N_("Setup"), N_("Set"),
	  N_("setup: columns and their order, sort, tree, hidden threads, delay, header meters, colours, "
	     "pane order; kept in $XDG_CONFIG_HOME/pscope/pscoperc (default ~/.config/pscope/pscoperc), "
	     "written when pscope quits"), KEY_F(2)),
	UI_SECTION(N_("Finding")),
	UI_KEY("0-9", list_k_pid_digit, NULL,
	  N_("jump to a PID as you type its digits (htop's PID search); any other key ends the number"),
	  '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'),
	UI_KEY_BRIEF("F3, /", k_search, N_("Search"), N_("Find"),
	  N_("incremental search in the command and name; F3 or Down finds the next match, Shift-F3 or Up "
	     "the previous; Enter keeps the selection, Esc leaves the search"), KEY_F(3), '/'),
	UI_KEY_BRIEF("F4, \\", k_filter, N_("Filter"), N_("Filt"),
	  N_("filter: show only the rows that match as you type; Enter keeps the filter, Esc clears it"), KEY_F(4), '\\'),
	UI_KEY("Ctrl-U  Ctrl-W", NULL, NULL,
	  N_("at any prompt (search, filter, a, i, u, C's path): Ctrl-U clears the line (to replace a "
	     "prefilled value such as a's 0-11), Ctrl-W deletes the word before the cursor, Backspace one "
	     "character; Enter accepts, Esc cancels. Text longer than the screen shows its end. A y/N "
	     "question wraps over as many rows as it needs; y answers yes, any other key no")),
	UI_SECTION(N_("Tags")),
	UI_KEY("Space", k_tag, NULL, N_("tag the selected process (again: untag), move down"), ' '),
	UI_KEY("c", k_tag_children, NULL, N_("tag the selected process and all its descendants"), 'c'),
	UI_KEY("U", k_untag, NULL, N_("untag everything"), 'U'),
	UI_PROSE(N_("Signals, nice, affinity and I/O priority act on the tagged processes when there are any, "
	     "else on the selected one.")),
	UI_SECTION(N_("Acting on the selected (or tagged) processes")),
	UI_KEY("Enter", k_detail, NULL, N_("open the detail screen"), '\n', '\r', KEY_ENTER),
	UI_LOOP("s", 's'),
	UI_LOOP("h", 'h'),
	UI_LOOP("W", 'W'),
	UI_KEY_BRIEF("A", k_hotprocs, N_("AllHot"), N_("All"),
	  N_("hot processes: every process on every CPU (perf sampling)"), 'A'),
	UI_LOOP("C", 'C'),
	UI_KEY("F9, k", k_kill, N_("Kill"),
	  N_("send a signal (menu: Up/Down, or type its number, 9 or 15; then a y/N confirmation). The "
	     "signal goes to the process the row showed: if it exited and its PID was reused, nothing is "
	     "sent."), KEY_F(9), 'k'),
	UI_KEY_BRIEF("F7  F8", k_nice_down, N_("Nice-"), N_("Ni-"),
	  N_("nice -1 / +1 (lowering needs CAP_SYS_NICE)"), KEY_F(7)),
	{ .codes = { KEY_F(8) }, .fn = k_nice_up, .label = N_("Nice+"), .brief = N_("Ni+"), .bar = "F8" },
	UI_KEY("a", k_affinity, NULL, N_("CPU affinity: a CPU list such as 0,2-3 (all threads)"), 'a'),
	UI_KEY("i", k_ioprio, NULL, N_("I/O priority: be0-be7, rt0-rt7, idle or none"), 'i'),
	UI_KEY("l", list_k_fds, NULL, N_("the open files: the detail screen's FDs pane (htop's l runs lsof)"), 'l'),
	UI_KEY("x", list_k_locks, NULL,
	  N_("the locks: the Threads pane sorted by the lock each thread waits on (LOCK), the holder "
	     "named"), 'x'),
	UI_KEY("e", k_environ, NULL, N_("the environment (/proc/PID/environ; ptrace read access)"), 'e'),
	UI_KEY("w", k_cmdline, NULL, N_("the whole command line, wrapped"), 'w'),
	UI_KEY("F", k_follow, NULL, N_("follow the selected process (again: stop)"), 'F'),
	UI_KEY("Z", k_pause, NULL, N_("pause the updates (again: resume)"), 'Z', 'z'),
	UI_KEY("R", list_k_record, NULL, N_("record the session into a new file here, every refresh (again: stop)"), 'R'),
	UI_KEY("+ -", k_slower, NULL, N_("refresh more slowly / faster"), '='),
	UI_ALSO(k_faster, '_'),
	UI_LOOP("D", 'D'),
	UI_LOOP("O", 'O'),
	UI_LOOP("F1, ?", KEY_F(1), '?'),
	UI_LOOP("F10, q", KEY_F(10), 'q'),
	UI_HELP_OF(list_replay_keys),
	UI_KEYS_END,
};

/* The list widget: moving, the mouse (a click on a title sorts). */
bool list_key(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;
	enum table_key_result k = table_key(&ls->tab, ch, NULL, NULL);

	if (k == TABLE_KEY_HEADER)
		header_click(ui, ls, ls->tab.click_x);
	list_note_sel(ls);
	return k != TABLE_KEY_NONE;
}
