/* The process list: htop-like header meters, sortable columns, tree view,
 * incremental search, filters, threads, signals, follow and pause. */
#include "uipriv.h"
#include "draw.h"
#include "meters.h"
#include "table.h"
#include "proc/ptable.h"
#include "proc/sysinfo.h"
#include "target.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <ncursesw/curses.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum list_mode { MODE_NORMAL, MODE_SEARCH, MODE_FILTER, MODE_SORT, MODE_SIGNAL };

enum { C_PID, C_USER, C_PRI, C_NI, C_VIRT, C_RES, C_SHR, C_STATE, C_CPU, C_MEM, C_TIME, C_CMD, C_COUNT };

static const struct col {
	const char *title;
	int width;                 /* 0: the rest of the line */
	bool left;
	enum proc_sort key;
} cols[C_COUNT] = {
	[C_PID] = { "PID", 7, false, PSORT_PID },       [C_USER] = { "USER", 9, true, PSORT_USER },
	[C_PRI] = { "PRI", 3, false, PSORT_PRI },       [C_NI] = { "NI", 3, false, PSORT_NI },
	[C_VIRT] = { "VIRT", 5, false, PSORT_VIRT },    [C_RES] = { "RES", 5, false, PSORT_RES },
	[C_SHR] = { "SHR", 5, false, PSORT_SHR },       [C_STATE] = { "S", 1, false, PSORT_STATE },
	[C_CPU] = { "CPU%", 5, false, PSORT_CPU },      [C_MEM] = { "MEM%", 5, false, PSORT_MEM },
	[C_TIME] = { "TIME+", 9, false, PSORT_TIME },   [C_CMD] = { "COMMAND", 0, true, PSORT_COMMAND },
};

/* Narrow terminals drop columns, most expendable first. */
static const unsigned col_sets[][2] = {
	{ 70, ~0u },
	{ 40, 1u << C_PID | 1u << C_USER | 1u << C_STATE | 1u << C_CPU | 1u << C_MEM | 1u << C_TIME | 1u << C_CMD },
	{ 28, 1u << C_PID | 1u << C_STATE | 1u << C_CPU | 1u << C_CMD },
	{ 0, 1u << C_PID | 1u << C_CMD },
};

static const struct {
	int sig;
	const char *name;
} signals[] = {
	{ SIGTERM, "SIGTERM" }, { SIGHUP, "SIGHUP" },   { SIGINT, "SIGINT" },   { SIGQUIT, "SIGQUIT" },
	{ SIGKILL, "SIGKILL" }, { SIGUSR1, "SIGUSR1" }, { SIGUSR2, "SIGUSR2" }, { SIGCONT, "SIGCONT" },
	{ SIGSTOP, "SIGSTOP" }, { SIGTSTP, "SIGTSTP" }, { SIGALRM, "SIGALRM" }, { SIGABRT, "SIGABRT" },
};

struct list_state {
	struct ptable *pt;
	struct sys_snapshot *sys;
	bool have_sys;
	struct proc_view view;
	enum proc_sort sort;
	bool desc, tree, threads, paused;
	pid_t follow;              /* 0: the selection stays at its row */
	struct table tab;          /* rows: view.v[], in the view's order */
	enum list_mode mode;
	struct table menu;         /* the sort or signal menu */
	char search[64], filter[64];
	bool search_failed;
	bool user_set;
	uid_t user_uid;
	char user_name[64];
	/* columns of the last draw, for a click on a title */
	int colx[C_COUNT], colw[C_COUNT];
	unsigned shown;
};

static bool keep_row(const struct proc_row *r, void *arg)
{
	const struct list_state *ls = arg;
	if (ls->user_set && r->uid != ls->user_uid)
		return false;
	return proc_row_matches(r, ls->filter);
}

static struct proc_row *selected(struct list_state *ls)
{
	int i = table_selected(&ls->tab);
	return i >= 0 && i < (int)ls->view.n ? ls->view.v[i] : NULL;
}

/* Re-order the rows (after a scan or a change of sort, tree or filter). */
static void rebuild(struct ui *ui, struct list_state *ls)
{
	if (!ls->pt)
		return;
	if (ptable_order(ls->pt, ls->sort, ls->desc, ls->tree, keep_row, ls, &ls->view) < 0) {
		ui_message(ui, true, "out of memory while sorting the process list");
		ls->view.n = 0;
	}
	table_set_count(&ls->tab, (int)ls->view.n);
	if (ls->follow) {
		int i = proc_view_index(&ls->view, ls->follow);
		if (i >= 0) {
			table_select(&ls->tab, i);
		} else {
			ui_message(ui, false, "PID %d is gone (or filtered out): no longer following", (int)ls->follow);
			ls->follow = 0;
		}
	}
}

static void refresh_data(struct ui *ui, struct list_state *ls)
{
	struct ps_error e;

	if (!ls->pt || !ls->sys)
		return;
	if (sys_snapshot_update(ls->sys) == 0) {
		ls->have_sys = true;
		ptable_set_mem_total(ls->pt, ls->sys->mem.total);
	}
	if (ptable_scan(ls->pt, ls->threads, &e) < 0)
		ui_error(ui, &e);
	rebuild(ui, ls);
}

/* ---- drawing ---- */

static void layout_columns(struct list_state *ls, int width)
{
	size_t s = 0;
	int x = 0;

	while (s + 1 < ARRAY_SIZE(col_sets) && width < (int)col_sets[s][0])
		s++;
	ls->shown = col_sets[s][1];
	for (int c = 0; c < C_COUNT; c++) {
		ls->colx[c] = -1;
		if (!(ls->shown & (1u << c)))
			continue;
		ls->colx[c] = x;
		ls->colw[c] = cols[c].width ? cols[c].width : (width > x ? width - x : 0);
		x += cols[c].width + 1;
	}
}

static void draw_header_row(struct list_state *ls, int y, int width)
{
	draw_blank(y, 0, width, draw_attr(COL_HEADER));
	for (int c = 0; c < C_COUNT; c++) {
		if (ls->colx[c] < 0)
			continue;
		int attr = draw_attr(COL_HEADER);
		if (cols[c].key == ls->sort)
			attr = draw_attr(COL_SELECT) | A_BOLD;
		if (cols[c].left)
			draw_text(y, ls->colx[c], ls->colw[c], attr, cols[c].title);
		else
			draw_text_right(y, ls->colx[c], ls->colw[c], attr, cols[c].title);
	}
}

static const char *tree_prefix(const struct proc_row *r, char *buf, size_t size)
{
	bool uni = MB_CUR_MAX > 1;
	size_t o = 0;

	buf[0] = '\0';
	for (int d = 1; d < r->depth && o + 8 < size; d++) {
		bool more = d <= 32 && (r->tree_more & (1u << (d - 1)));
		o += (size_t)snprintf(buf + o, size - o, "%s", more ? (uni ? "\u2502  " : "|  ") : "   ");
	}
	if (r->depth > 0 && o + 8 < size)
		snprintf(buf + o, size - o, "%s",
			 r->tree_last ? (uni ? "\u2514\u2500 " : "`- ") : (uni ? "\u251c\u2500 " : "|- "));
	return buf;
}

static void draw_row(struct ui *ui, struct list_state *ls, int y, struct proc_row *r, bool sel, int width)
{
	long hz = proc_hz();
	int base = sel ? draw_attr(COL_SELECT) : draw_attr(COL_NORMAL);
	char b[64];

	draw_blank(y, 0, width, base);
	if (ls->shown & (1u << C_SHR))
		ptable_fill_shr(ls->pt, r);
	for (int c = 0; c < C_COUNT; c++) {
		int x = ls->colx[c], w = ls->colw[c], attr = base;
		const char *t = b;
		if (x < 0)
			continue;
		switch (c) {
		case C_PID: snprintf(b, sizeof(b), "%d", (int)r->pid); break;
		case C_USER: t = r->user; break;
		case C_PRI: proc_fmt_pri(r->priority, b, sizeof(b)); break;
		case C_NI: snprintf(b, sizeof(b), "%ld", r->nice); break;
		case C_VIRT: proc_fmt_kb(r->virt_kb, b, sizeof(b)); break;
		case C_RES: proc_fmt_kb(r->res_kb, b, sizeof(b)); break;
		case C_SHR: proc_fmt_kb(r->shr_kb, b, sizeof(b)); break;
		case C_STATE:
			snprintf(b, sizeof(b), "%c", r->state);
			if (!sel && r->state == 'R')
				attr = draw_attr(COL_GOOD) | A_BOLD;
			else if (!sel && (r->state == 'D' || r->state == 'Z'))
				attr = draw_attr(COL_ERROR) | A_BOLD;
			break;
		case C_CPU: snprintf(b, sizeof(b), "%.1f", r->cpu); break;
		case C_MEM: snprintf(b, sizeof(b), "%.1f", r->mem); break;
		case C_TIME: proc_fmt_time(r->ticks, hz, b, sizeof(b)); break;
		case C_CMD: {
			/* The tree prefix and the command scroll together (Left/Right). */
			char pfx[256], cmd[4200];
			int n = 0, skip = ls->tab.hscroll;
			if (ls->tree) {
				tree_prefix(r, pfx, sizeof(pfx));
				n = draw_text_skip(y, x, w, sel ? base : draw_attr(COL_DIM), pfx, skip);
				skip -= draw_width(pfx);
			}
			if (!sel && (r->is_kthread || r->is_thread))
				attr = draw_attr(COL_DIM);
			else if (!sel && r->fresh && ptable_interval(ls->pt) > 0)
				attr = draw_attr(COL_NEW);
			draw_text_skip(y, x + n, w - n, attr, proc_row_command(r, cmd, sizeof(cmd)), skip);
			continue;
		}
		}
		if (cols[c].left)
			draw_text(y, x, w, attr, t);
		else
			draw_text_right(y, x, w, attr, t);
	}
}

static void draw_menu(struct list_state *ls, int y, int rows)
{
	int w = 20, n = ls->mode == MODE_SORT ? PSORT_COUNT : (int)ARRAY_SIZE(signals);
	const char *title = ls->mode == MODE_SORT ? "Sort by" : "Send signal";

	if (rows < 2)
		return;
	draw_blank(y, 0, w, draw_attr(COL_HEADER));
	draw_text(y, 1, w - 1, draw_attr(COL_HEADER), title);
	table_layout(&ls->menu, y + 1, rows - 1, false);
	for (int i = 0; i + 1 < rows && ls->menu.top + i < n; i++) {
		int k = ls->menu.top + i, attr = k == ls->menu.sel ? draw_attr(COL_SELECT) : draw_attr(COL_NORMAL);
		draw_blank(y + 1 + i, 0, w, attr);
		if (ls->mode == MODE_SORT)
			draw_textf(y + 1 + i, 1, w - 2, attr, "%s%s", k == (int)ls->sort ? "* " : "  ",
				   cols[k].title); /* cols[] follows enum proc_sort */
		else
			draw_textf(y + 1 + i, 1, w - 2, attr, "%2d %s", signals[k].sig, signals[k].name);
	}
}

static void make_note(struct list_state *ls, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
#define ADD(...) o += (size_t)snprintf(buf + o, o < size ? size - o : 0, __VA_ARGS__)
	if (ls->paused)
		ADD("[PAUSED] ");
	if (ls->follow)
		ADD("[following %d] ", (int)ls->follow);
	if (ls->threads)
		ADD("[threads] ");
	if (ls->user_set)
		ADD("[user %s] ", ls->user_name);
	if (ls->filter[0] && ls->mode != MODE_FILTER)
		ADD("[filter %s] ", ls->filter);
#undef ADD
}

static void list_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct list_state *ls = p;
	int width = draw_cols(), y = y0, end = y0 + rows;
	char note[256];
	struct meters_info mi = { .sys = ls->sys, .note = note };

	make_note(ls, note, sizeof(note));
	if (ls->pt)
		ptable_counts(ls->pt, &mi.counts);
	if (ls->have_sys) {
		int mh = meters_rows(&mi, width);
		if (rows >= mh + 6) {
			meters_draw(y, width, &mi);
			y += mh;
			if (rows >= mh + 12)
				y++;
		} else if (rows >= 6) {
			meters_draw_compact(y++, width, &mi);
		}
	}
	layout_columns(ls, width);
	int body = table_layout(&ls->tab, y, end - y - (ls->mode == MODE_SEARCH || ls->mode == MODE_FILTER ? 1 : 0), true);
	draw_header_row(ls, y++, width);
	for (int i = 0; i < body && ls->tab.top + i < (int)ls->view.n; i++)
		draw_row(ui, ls, y + i, ls->view.v[ls->tab.top + i], ls->tab.top + i == ls->tab.sel, width);
	if (!ls->view.n && body > 0)
		draw_text(y, 1, width - 1, draw_attr(COL_DIM),
			  ls->filter[0] || ls->user_set ? "no process matches the filter" : "no processes");

	if (ls->mode == MODE_SORT || ls->mode == MODE_SIGNAL)
		draw_menu(ls, ls->tab.body_y, body);
	if (ls->mode == MODE_SEARCH || ls->mode == MODE_FILTER) {
		int iy = end - 1, x;
		bool search = ls->mode == MODE_SEARCH;
		draw_blank(iy, 0, width, draw_attr(COL_TITLE));
		x = draw_text(iy, 0, width, draw_attr(COL_TITLE), search ? "Search: " : "Filter: ");
		x += draw_text(iy, x, width - x,
			       search && ls->search_failed ? (int)(draw_attr(COL_ERROR) | A_BOLD) : draw_attr(COL_NORMAL),
			       search ? ls->search : ls->filter);
		int cx = x < width ? x : width - 1;
		draw_text(iy, x + 1, width - x - 1, draw_attr(COL_TITLE),
			  search ? (ls->search_failed ? "not found   F3 next  Enter done  Esc cancel"
						      : "F3 next  Enter done  Esc cancel")
				 : "Enter keep  Esc clear");
		draw_cursor(1, iy, cx);
	}
}

/* ---- keys ---- */

static bool row_matches(void *st, int row, const char *text)
{
	const struct list_state *ls = st;
	return row < (int)ls->view.n && proc_row_matches(ls->view.v[row], text);
}

static void search_from(struct list_state *ls, int start, int dir)
{
	ls->search_failed = !table_search(&ls->tab, start, dir, ls->search, ls, row_matches);
}

static bool edit_line(char *buf, size_t size, int ch)
{
	size_t len = strlen(buf);

	if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len > 0) {
		/* drop a whole UTF-8 character */
		while (len > 0 && ((unsigned char)buf[len - 1] & 0xc0) == 0x80)
			len--;
		if (len > 0)
			len--;
		buf[len] = '\0';
		return true;
	}
	if (ch >= 0x20 && ch <= 0xff && ch != 0x7f && len + 1 < size) {
		buf[len++] = (char)ch; /* UTF-8 arrives byte by byte */
		buf[len] = '\0';
		return true;
	}
	return false;
}

static void set_sort(struct ui *ui, struct list_state *ls, enum proc_sort k, bool toggle)
{
	if (toggle && k == ls->sort)
		ls->desc = !ls->desc;
	else
		ls->desc = proc_sort_desc_default(k);
	ls->sort = k;
	rebuild(ui, ls);
}

static void send_signal(struct ui *ui, struct list_state *ls, int idx)
{
	struct proc_row *r = selected(ls);
	struct ps_error e;
	char q[256];

	if (!r)
		return;
	/* a thread row signals its process */
	struct proc_row *proc = r->is_thread ? ptable_find(ls->pt, r->tgid) : r;
	if (!proc) {
		ui_message(ui, true, "process %d has exited", (int)r->tgid);
		return;
	}
	snprintf(q, sizeof(q), "Send %s to PID %d (%s)?", signals[idx].name, (int)proc->pid, proc->comm);
	if (!ui_confirm(ui, q)) {
		ui_message(ui, false, "no signal sent");
		return;
	}
	struct target_id id = { proc->pid, proc->starttime };
	if (target_signal(&id, signals[idx].sig, &e) < 0)
		ui_error(ui, &e);
	else
		ui_message(ui, false, "sent %s to PID %d", signals[idx].name, (int)proc->pid);
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
			send_signal(ui, ls, ls->menu.sel);
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
	if (!edit_line(search ? ls->search : ls->filter, search ? sizeof(ls->search) : sizeof(ls->filter), ch))
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
			ui_message(ui, true, "no user '%s'", name);
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
	for (int c = C_COUNT - 1; c >= 0; c--)
		if (ls->colx[c] >= 0 && x >= ls->colx[c]) {
			set_sort(ui, ls, cols[c].key, true);
			break;
		}
}

static void open_menu(struct list_state *ls, enum list_mode m, int sel)
{
	ls->mode = m;
	table_init(&ls->menu, NULL, 0, 0, false);
	table_set_count(&ls->menu, m == MODE_SORT ? PSORT_COUNT : (int)ARRAY_SIZE(signals));
	table_select(&ls->menu, sel);
}

static bool list_key(struct ui *ui, void *p, int ch)
{
	struct list_state *ls = p;
	struct proc_row *r = selected(ls);
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
	case KEY_F(6):
		open_menu(ls, MODE_SORT, (int)ls->sort);
		break;
	case '<': case ',':
		set_sort(ui, ls, (enum proc_sort)((ls->sort + PSORT_COUNT - 1) % PSORT_COUNT), false);
		break;
	case '>': case '.':
		set_sort(ui, ls, (enum proc_sort)((ls->sort + 1) % PSORT_COUNT), false);
		break;
	case 'P': set_sort(ui, ls, PSORT_CPU, false); break;
	case 'M': set_sort(ui, ls, PSORT_MEM, false); break;
	case 'T': set_sort(ui, ls, PSORT_TIME, false); break;
	case 'N': set_sort(ui, ls, PSORT_PID, false); break;
	case 'I':
		ls->desc = !ls->desc;
		rebuild(ui, ls);
		break;
	case KEY_F(5): case 't':
		ls->tree = !ls->tree;
		rebuild(ui, ls);
		break;
	case KEY_F(3): case '/':
		ls->mode = MODE_SEARCH;
		ls->search[0] = '\0';
		ls->search_failed = false;
		break;
	case KEY_F(4): case '\\':
		ls->mode = MODE_FILTER;
		break;
	case 'H':
		ls->threads = !ls->threads;
		refresh_data(ui, ls);
		ui_message(ui, false, ls->threads ? "showing threads" : "hiding threads");
		break;
	case 'u': {
		char buf[64];
		snprintf(buf, sizeof(buf), "%s", ls->user_set ? ls->user_name : "");
		if (ui_prompt(ui, "Show only the processes of user (empty: everyone): ", buf, sizeof(buf)) &&
		    set_user(ui, ls, buf))
			rebuild(ui, ls);
		break;
	}
	case KEY_F(9): case 'K':
		if (r)
			open_menu(ls, MODE_SIGNAL, 0);
		break;
	case 'F':
		if (ls->follow) {
			ls->follow = 0;
			ui_message(ui, false, "no longer following");
		} else if (r) {
			ls->follow = r->pid;
			ui_message(ui, false, "following PID %d", (int)r->pid);
		}
		break;
	case 'Z': case 'z':
		ls->paused = !ls->paused;
		ui_message(ui, false, ls->paused ? "updates paused (Z resumes)" : "updates resumed");
		break;
	case '+': case '=':
		ui_set_delay(ui, ui->delay_tenths < 5 ? ui->delay_tenths + 1 : ui->delay_tenths + 5);
		break;
	case '-': case '_':
		ui_set_delay(ui, ui->delay_tenths <= 5 ? ui->delay_tenths - 1 : ui->delay_tenths - 5);
		break;
	case 27:
		return true; /* the list is the bottom screen */
	default:
		k = table_key(&ls->tab, ch, NULL, NULL);
		if (k == TABLE_KEY_HEADER)
			header_click(ui, ls, ls->tab.click_x);
		return k != TABLE_KEY_NONE;
	}
	return true;
}

static void list_tick(struct ui *ui, void *p)
{
	struct list_state *ls = p;
	if (!ls->paused)
		refresh_data(ui, ls);
}

static void list_destroy(void *p)
{
	struct list_state *ls = p;
	proc_view_free(&ls->view);
	ptable_free(ls->pt);
	sys_snapshot_free(ls->sys);
	free(ls);
}

static const struct ui_fkey list_fkeys[] = {
	{ "F1", "Help" },  { "F3", "Search" }, { "F4", "Filter" }, { "F5", "Tree" },
	{ "F6", "SortBy" }, { "F9", "Kill" },  { "Enter", "Detail" }, { "F10", "Quit" },
	{ NULL, NULL },
};

/* The process a row shows: its pid and start time as read, so acting on
 * a row whose PID was reused meanwhile is refused. A thread row stands for
 * its process (start time 0: the one with that PID now). */
static bool list_selected(void *p, struct target_id *id)
{
	struct proc_row *r = selected(p);

	if (!r)
		return false;
	id->pid = r->is_thread ? r->tgid : r->pid;
	id->starttime = r->is_thread ? 0 : r->starttime;
	return true;
}


static const struct screen_ops list_ops = {
	.name = "Processes",
	.help = "list",
	.fkeys = list_fkeys,
	.draw = list_draw,
	.key = list_key,
	.tick = list_tick,
	.selected = list_selected,
	.destroy = list_destroy,
};

void screen_list_open(struct ui *ui)
{
	struct list_state *ls = calloc(1, sizeof(*ls));
	const struct ui_opts *o = ui->opts;

	if (!ls)
		return;
	ls->pt = ptable_new();
	ls->sys = sys_snapshot_new();
	if (!ls->pt || !ls->sys) {
		ui_message(ui, true, "cannot read /proc: %s", strerror(errno ? errno : ENOMEM));
		ptable_free(ls->pt);
		ls->pt = NULL;
	}
	table_init(&ls->tab, NULL, 0, 0, false);
	ls->tab.hkeys = true; /* long command lines scroll */
	ls->sort = PSORT_CPU;
	ls->desc = true;
	ls->tree = o && o->tree;
	char prev[256] = ""; /* keep an unknown-user message next to a sort one */
	if (o && o->user && !set_user(ui, ls, o->user))
		snprintf(prev, sizeof(prev), "%s", ui->status);
	if (o && o->sort_key) {
		int k = proc_sort_parse(o->sort_key);
		if (k < 0)
			ui_message(ui, true, "unknown sort key '%s': sorting by CPU%%%s%s", o->sort_key,
				   prev[0] ? "; " : "", prev);
		else
			ls->sort = (enum proc_sort)k, ls->desc = proc_sort_desc_default((enum proc_sort)k);
	}
	if (ls->pt && ls->sys) {
		/* Two samples 0.1 s apart: CPU% and the CPU bars have values from
		 * the first screen on, not after the first refresh. */
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		refresh_data(ui, ls);
		nanosleep(&ts, NULL);
		refresh_data(ui, ls);
	}
	ui_push(ui, &list_ops, ls);
}
