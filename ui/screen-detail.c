/* Process detail screen: a header summarising the process and tabbed panes
 * (ui/pane-*.c) that refresh live. The target is pinned by its /proc/PID
 * dirfd and start time: once the process exits (or its PID names another
 * process) the screen says so and keeps the last data frozen. */
#include "uipriv.h"
#include "doors.h"
#include "draw.h"
#include "i18n.h"
#include "pane.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <ncursesw/curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The TUI side of each pane of the registry, in its order
 * (src/pane/panes.h). Shown in the order the settings give (F2,
 * pane_order); keys 1-N by position. */
static const struct pane_ops *const panes[PANE_COUNT] = {
#define PANE(name) &pane_##name,
#include "pane/panes.h"
#undef PANE
};
#define NPANES PANE_COUNT

struct detail {
	struct target t;
	struct proc_info info, prev;
	char *cmdline;                 /* whole (info keeps 4 KiB); NULL: unread */
	struct proc_info_rates rates;
	bool have_rates;
	struct pane_hist hist;
	int cur;
	const struct pane_ops *panes[NPANES]; /* in the order shown */
	void *pst[NPANES];
	double read_at[NPANES];        /* last attempt; 0: never */
	bool have[NPANES];             /* read successfully at least once */
	int err[NPANES];               /* last refresh error (0: fine) */
	struct ps_error perr[NPANES];  /* the door sentence for err */
	bool frozen;
	char frozen_msg[256];
	int body_rows;                 /* rows the pane got at the last draw */
	struct ui_search search;       /* '/': the last text searched */
	int hscroll;                   /* Left/Right: the header's long lines */
	int tab_y, tab_x[NPANES + 1];  /* the tab bar of the last draw, for a click */
};

/* '/', n, N (F3, Shift-F3): search the current pane. */
static bool find_in_pane(void *st, const char *text, int dir, bool again)
{
	struct detail *d = st;
	const struct pane_ops *p = d->panes[d->cur];
	return p->search(d->pst[d->cur], text, dir, again);
}

static void fill_ctx(struct detail *d, struct ui *ui, struct pane_ctx *c)
{
	*c = (struct pane_ctx){
		.ui = ui,
		.pid = d->t.id.pid,
		.dirfd = d->t.dirfd,
		.info = &d->info,
		.rates = &d->rates,
		.have_rates = d->have_rates,
		.hist = &d->hist,
		.cmdline = d->cmdline,
		.frozen = d->frozen,
		.now = now_s(),
	};
}

/* "exited with code 3", "killed by SIGKILL" from a wait status. */
static void describe_exit(int code, char *buf, size_t size)
{
	int sig = code & 0x7f;
	if (code < 0)
		snprintf(buf, size, "%s", _("exit code unknown: already reaped by its parent"));
	else if (!sig)
		snprintf(buf, size, _("exit code %d"), (code >> 8) & 0xff);
	else
		snprintf(buf, size, _("killed by signal %d (SIG%s)%s"), sig, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?",
			 code & 0x80 ? _(", core dumped") : "");
}

static void freeze(struct detail *d, const char *why)
{
	d->frozen = true;
	snprintf(d->frozen_msg, sizeof(d->frozen_msg), _("%s; showing the last data, frozen (Esc: back to the list)"), why);
}

/* The whole command line (as `pscope show`), kept when it cannot be read. */
static void read_cmdline(struct detail *d)
{
	char *s;

	if (proc_nul_list_read_at(d->t.dirfd, "cmdline", ' ', &s) < 0)
		return;
	free(d->cmdline);
	d->cmdline = s;
}

/* Header data on every tick; notices the exit. */
static void refresh_info(struct detail *d)
{
	struct proc_info ni;
	char why[160], ex[96];
	int r;

	if (d->frozen)
		return;
	r = proc_info_read(d->t.dirfd, &ni);
	if (r == 0 && ni.stat.starttime != d->t.id.starttime) {
		/* Cannot happen through the pinned dirfd; checked anyway. */
		snprintf(why, sizeof(why), _("PID %d now names another process"), (int)d->t.id.pid);
		freeze(d, why);
		return;
	}
	if (r == 0 && proc_info_exited(&ni)) {
		/* A zombie still has its exit code in stat (field 52). */
		describe_exit(ni.exit_code, ex, sizeof(ex));
		snprintf(why, sizeof(why), _("process %d has exited (%s)"), (int)d->t.id.pid, ex);
		freeze(d, why);
		return;
	}
	char now[64];
	if (r == 0 && target_execd(&d->t, now, sizeof(now)) == 1) {
		/* Another program in the same process: its data would mix
		 * with the old one's in the panes (histories, rates, new fds). */
		snprintf(why, sizeof(why), _("process %d exec'd (it now runs %s)"), (int)d->t.id.pid, now);
		freeze(d, why);
		return;
	}
	if (r < 0) {
		/* The dirfd pins the old process: a reused PID reads as gone,
		 * never as the new process. */
		describe_exit(-1, ex, sizeof(ex));
		snprintf(why, sizeof(why), _("process %d has exited (%s)"), (int)d->t.id.pid, ex);
		freeze(d, why);
		return;
	}
	d->prev = d->info;
	d->info = ni;
	read_cmdline(d);
	proc_info_rates(&d->prev, &d->info, &d->rates);
	d->have_rates = true;
	struct pane_hist *h = &d->hist;
	int k = (h->head + h->n) % PANE_HIST_MAX;
	h->t[k] = ni.when;
	h->rss_kb[k] = ni.status.vm_rss > 0 ? ni.status.vm_rss : ni.stat.rss * (sysconf(_SC_PAGESIZE) / 1024);
	h->cpu_pct[k] = (float)d->rates.cpu_pct;
	if (h->n < PANE_HIST_MAX)
		h->n++;
	else
		h->head = (h->head + 1) % PANE_HIST_MAX;
}

/* Read the current pane if it is due (or forced). */
static void refresh_pane(struct detail *d, struct ui *ui, bool force)
{
	const struct pane_ops *p = d->panes[d->cur];
	struct pane_ctx c;
	int r;

	if (d->frozen || !d->pst[d->cur])
		return;
	fill_ctx(d, ui, &c);
	if (!force && d->read_at[d->cur] > 0 && (c.now - d->read_at[d->cur]) * 1000 < p->desc->refresh_ms)
		return;
	r = p->update(d->pst[d->cur], &c);
	d->read_at[d->cur] = c.now;
	d->err[d->cur] = r;
	if (r == 0)
		d->have[d->cur] = true;
	if (r < 0) {
		char what[96];
		snprintf(what, sizeof(what), _("read /proc/%d/%s"), (int)d->t.id.pid, p->desc->file);
		ps_error_clear(&d->perr[d->cur]);
		door_refused(&d->perr[d->cur], PS_OP_READ_PROC, d->t.id.pid, r, what);
		refresh_info(d); /* gone? then say how it ended */
		if (d->frozen)
			d->err[d->cur] = 0; /* keep showing the last data */
	}
}

static void format_uptime(double s, char *buf, size_t size)
{
	long t = (long)s;
	if (t >= 86400)
		snprintf(buf, size, _("%ldd %02ld:%02ld:%02ld"), t / 86400, t / 3600 % 24, t / 60 % 60, t % 60);
	else
		snprintf(buf, size, "%02ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

static void detail_draw(struct ui *ui, void *st, int y0, int rows)
{
	struct detail *d = st;
	const struct proc_info *i = &d->info;
	const struct pane_ops *p = d->panes[d->cur];
	char rss[32], up[48], src[256];
	int y = y0, x;
	char pid[32], rest[512];

	long rss_kb = i->status.vm_rss > 0 ? i->status.vm_rss : 0;
	format_uptime(i->uptime_s, up, sizeof(up));
	snprintf(pid, sizeof(pid), " PID %d ", (int)d->t.id.pid);
	snprintf(rest, sizeof(rest), _("  user %s  %c %s  CPU %.1f%%  RSS %s  threads %ld  up %s"), i->user,
		 i->stat.state, proc_state_name(i->stat.state), d->have_rates ? d->rates.cpu_pct : 0.0,
		 human_bytes((unsigned long long)rss_kb * 1024, rss, sizeof(rss)), i->stat.num_threads, up);
	const char *cmd = d->cmdline && d->cmdline[0] ? d->cmdline : i->cmdline[0] ? i->cmdline :
			  _("(no command line: kernel thread or zombie)");
	/* Left/Right scroll these two lines; Right stops at the end of the
	 * longer one. */
	int comm_w = draw_width(i->stat.comm), title_w = draw_width(pid) + (comm_w < 32 ? comm_w : 32) + draw_width(rest);
	table_hscroll_fit(&d->hscroll, title_w > draw_width(cmd) ? title_w : draw_width(cmd), draw_cols());
	int old = draw_hshift(d->hscroll);
	draw_blank(y, 0, -1, draw_attr(COL_TITLE));
	x = draw_text(y, 0, -1, draw_attr(COL_TITLE), pid);
	x += draw_text(y, x, 32, draw_attr(COL_TITLE), i->stat.comm);
	draw_text(y, x, -1, draw_attr(COL_TITLE), rest);
	y++;
	if (y - y0 < rows)
		draw_text(y++, 0, -1, draw_attr(COL_DIM), cmd);
	draw_hshift(old);
	if (d->frozen && y - y0 < rows) {
		draw_blank(y, 0, -1, draw_attr(COL_ERROR) | A_REVERSE);
		draw_text(y++, 1, -1, draw_attr(COL_ERROR) | A_REVERSE | A_BOLD, d->frozen_msg);
	}
	if (y - y0 < rows) {
		x = 0;
		d->tab_y = y;
		for (int k = 0; k < NPANES; k++) {
			int attr = k == d->cur ? (int)(draw_attr(COL_SELECT) | A_BOLD) : draw_attr(COL_NORMAL);
			d->tab_x[k] = x;
			x += draw_textf(y, x, -1, attr, " %d %s ", k + 1, _(d->panes[k]->desc->title));
			x += draw_text(y, x, -1, draw_attr(COL_DIM), "|");
		}
		d->tab_x[NPANES] = x;
		draw_textf(y, x, -1, draw_attr(COL_DIM), _(" Tab/Shift-Tab or 1-%d switch"), NPANES);
		y++;
	}
	if (y - y0 < rows) {
		draw_textf(y++, 0, -1, draw_attr(COL_DIM), _("Source: %s"), pane_source(p->desc, d->t.id.pid, src, sizeof(src)));
	}
	int body = rows - (y - y0);
	d->body_rows = body;
	if (body <= 0)
		return;
	if (d->err[d->cur]) {
		const struct ps_error *e = &d->perr[d->cur];
		draw_text(y++, 0, -1, draw_attr(COL_ERROR) | A_BOLD, e->msg);
		if (e->door && body > 1)
			draw_textf(y++, 0, -1, draw_attr(COL_WARN), _("Permission missing: %s"), door_name(e->door));
		if (e->fix[0] && body > 2)
			draw_textf(y++, 0, -1, draw_attr(COL_NORMAL), _("To open it: %s"), e->fix);
		return;
	}
	if (!d->have[d->cur]) {
		draw_text(y, 0, -1, draw_attr(COL_DIM),
			  d->frozen ? _("the process exited before this pane was read: nothing to show") : _("reading..."));
		return;
	}
	struct pane_ctx c;
	fill_ctx(d, ui, &c);
	p->draw(d->pst[d->cur], &c, y, body);
}

static void switch_pane(struct detail *d, struct ui *ui, int k)
{
	d->cur = (k + NPANES) % NPANES;
	refresh_pane(d, ui, false);
}

bool pane_key(struct ui *ui, const struct pane_ops *p, void *st, const struct pane_ctx *c, int ch, int rows)
{
	struct pane_key k = { st, c, rows };

	return ui_keys_dispatch(ui, p->keys, &k, ch) == UI_KEY_DONE || (p->on_key && p->on_key(st, c, ch, rows));
}

static int pane_rows(const struct detail *d)
{
	return d->body_rows > 0 ? d->body_rows : draw_rows() - 6;
}

static bool k_next(struct ui *ui, void *st, int ch)
{
	struct detail *d = st;

	switch_pane(d, ui, d->cur + 1);
	return true;
}

static bool k_prev(struct ui *ui, void *st, int ch)
{
	struct detail *d = st;

	switch_pane(d, ui, d->cur - 1);
	return true;
}

/* 1-N: the pane at that place in the tab bar. */
static bool k_nth(struct ui *ui, void *st, int ch)
{
	struct detail *d = st;
	int k = ch - '1';

	if (k >= NPANES)
		return false;
	switch_pane(d, ui, k);
	return true;
}

static bool k_pane_help(struct ui *ui, void *st, int ch)
{
	struct detail *d = st;
	const struct pane_ops *p = d->panes[d->cur];

	screen_help_open(ui, p->desc->help, _(p->desc->title), p->keys);
	return true;
}

/* Left/Right: the pane's long lines and the header's scroll together. */
static bool hscroll(struct ui *ui, struct detail *d, int ch)
{
	struct pane_ctx c;

	fill_ctx(d, ui, &c);
	bool pane = d->panes[d->cur]->on_key(d->pst[d->cur], &c, ch, d->body_rows > 0 ? d->body_rows : 1);
	bool head = table_hscroll_key(&d->hscroll, ch) != TABLE_KEY_NONE;
	return pane || head;
}

static bool k_right(struct ui *ui, void *st, int ch)
{
	hscroll(ui, st, ch);
	return true;
}

/* Left with both at their left edge goes back. */
static bool k_left(struct ui *ui, void *st, int ch)
{
	if (!hscroll(ui, st, ch))
		ui_pop(ui);
	return true;
}

/* A click on a tab switches to it; the rest goes to the pane. */
static bool k_click(struct ui *ui, void *st, int ch)
{
	struct detail *d = st;
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return true;
	if (ev.y == d->tab_y && (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))) {
		for (int k = 0; k < NPANES; k++)
			if (ev.x >= d->tab_x[k] && ev.x < d->tab_x[k + 1])
				switch_pane(d, ui, k);
		return true;
	}
	ungetmouse(&ev); /* for the pane's list */
	return false;
}

static bool k_read(struct ui *ui, void *st, int ch)
{
	struct detail *d = st;

	refresh_info(d);
	refresh_pane(d, ui, true);
	return true;
}

/* Ctrl-L reads again too, then the loop redraws. */
static bool k_read_redraw(struct ui *ui, void *st, int ch)
{
	k_read(ui, st, ch);
	return false;
}

/* "1-5", then each pane at its default place, from the registry. */
static bool pane_list_rows(int i, char *keys, size_t ksize, char *help, size_t hsize)
{
	if (i > NPANES)
		return false;
	if (!i) {
		snprintf(keys, ksize, "1-%d", NPANES);
		snprintf(help, hsize, "%s", _("the panes in the order F2 (setup) gives; by default:"));
	} else {
		snprintf(keys, ksize, "%d", i);
		snprintf(help, hsize, "%s: %s", _(panes[i - 1]->desc->title), _(panes[i - 1]->desc->summary));
	}
	return true;
}

/* The panes' own keys (their tables), each said with its pane. */
static bool pane_own_rows(int i, char *keys, size_t ksize, char *help, size_t hsize)
{
	for (int p = 0; p < NPANES; p++)
		for (const struct ui_key *k = panes[p]->keys; k && !ui_key_is_end(k); k++) {
			if (!k->keys || !k->help || i--)
				continue;
			snprintf(keys, ksize, "%s", _(k->keys));
			snprintf(help, hsize, "%s: %s", _(panes[p]->desc->title), _(k->help));
			return true;
		}
	return false;
}

static const struct ui_key detail_keys[] = {
	UI_SECTION(N_("Switching panes")),
	UI_KEY("Tab, Shift-Tab", k_next, N_("Pane"), N_("next / previous pane (or click a tab)"), '\t'),
	UI_ALSO(k_prev, KEY_BTAB),
	UI_ALSO(k_click, KEY_MOUSE),
	{ .codes = { '1', '2', '3', '4', '5', '6', '7', '8', '9' }, .fn = k_nth, .rows = pane_list_rows },
	UI_SECTION(N_("Inside a pane")),
	UI_KEY("Up/Down, j/k", NULL, NULL, N_("move the selection / scroll")),
	UI_KEY("PgUp/PgDn, Space", NULL, NULL, N_("page")),
	UI_KEY("Home/End, g/G", NULL, NULL, N_("first / last row")),
	UI_KEY("Left/Right", k_left, NULL,
	  N_("scroll sideways: the header's long lines and the pane (Status, Memory: every line; FDs, "
	     "Maps, Threads: the last column); Left at the start goes back"), KEY_LEFT),
	UI_ALSO(k_right, KEY_RIGHT),
	UI_KEY(N_("< >  (or , .)"), NULL, NULL,
	  N_("sort by the previous / next column (the header marks it with ^ ascending or v descending)")),
	UI_KEY("I", NULL, NULL, N_("invert the sort order")),
	{ .rows = pane_own_rows },
	UI_KEY("/", NULL, NULL,
	  N_("select the next row (a text pane: mark the next line) holding a text, in every pane")),
	UI_KEY("n, N", NULL, NULL, N_("the next / previous one (also F3, Shift-F3)")),
	UI_KEY("F5", k_read, N_("Read"), N_("read the pane again now"), KEY_F(5)),
	UI_ALSO(k_read_redraw, 12),
	UI_SECTION(N_("Elsewhere from here")),
	UI_LOOP("s", 's'),
	UI_LOOP_AS("h", NULL, N_("hot functions of this process (perf sampling)"), 'h'),
	UI_LOOP_AS("C", NULL, N_("write a core file of this process"), 'C'),
	UI_LOOP("D", 'D'),
	UI_KEY("F1", k_pane_help, N_("Help"), N_("what each field of the current pane means"), KEY_F(1)),
	UI_LOOP_AS("?", N_("Keys"), NULL, '?'),
	UI_LOOP_AS("Esc, Left", NULL, N_("back to the process list (the selection is kept)"), 27),
	UI_LOOP("F10, q", KEY_F(10), 'q'),
	UI_KEYS_END,
};

/* Search, then the pane's keys. */
static bool detail_key(struct ui *ui, void *st, int ch)
{
	struct detail *d = st;
	struct pane_ctx c;

	if (ui_search_key(ui, &d->search, ch, d->panes[d->cur]->search ? find_in_pane : NULL, d))
		return true;
	fill_ctx(d, ui, &c);
	return pane_key(ui, d->panes[d->cur], d->pst[d->cur], &c, ch, pane_rows(d));
}

static void detail_tick(struct ui *ui, void *st)
{
	struct detail *d = st;
	refresh_info(d);
	refresh_pane(d, ui, false);
}

static void detail_destroy(void *st)
{
	struct detail *d = st;
	for (int k = 0; k < NPANES; k++)
		if (d->pst[k])
			d->panes[k]->destroy(d->pst[k]);
	target_close(&d->t);
	free(d->cmdline);
	free(d);
}

/* s, h, C and D act on this process. */
static bool detail_selected(void *p, struct target_id *id)
{
	*id = ((struct detail *)p)->t.id;
	return true;
}

const struct screen_ops screen_detail_ops = {
	.name = N_("Process detail"),
	.help = "detail",
	.keys = detail_keys,
	.fbar = "F1 ? Tab s h C F5 Esc F10",
	.draw = detail_draw,
	.key = detail_key,
	.tick = detail_tick,
	.selected = detail_selected,
	.destroy = detail_destroy,
};

void screen_detail_open(struct ui *ui, const struct target_id *id)
{
	struct detail *d = calloc(1, sizeof(*d));
	pid_t pid = id->pid;
	struct ps_error e;
	int r;

	if (!d) {
		ui_message(ui, true, "%s", _("out of memory"));
		return;
	}
	ps_error_clear(&e);
	if (target_open(&d->t, pid, id, &e) < 0) {
		ui_error(ui, &e);
		free(d);
		return;
	}
	r = proc_info_read(d->t.dirfd, &d->info);
	if (r < 0) {
		char what[64];
		snprintf(what, sizeof(what), _("read /proc/%d/%s"), (int)pid, "status");
		door_refused(&e, PS_OP_READ_PROC, pid, r, what);
		ui_error(ui, &e);
		target_close(&d->t);
		free(d);
		return;
	}
	for (int k = 0; k < NPANES; k++) {
		int w = ui->cfg.pane_order[k];
		d->panes[k] = panes[w >= 0 && w < NPANES ? w : k];
	}
	for (int k = 0; k < NPANES; k++) {
		d->pst[k] = d->panes[k]->create();
		if (!d->pst[k]) {
			ui_message(ui, true, "%s", _("out of memory"));
			detail_destroy(d);
			return;
		}
	}
	read_cmdline(d);
	d->hist.t[0] = d->info.when;
	d->hist.rss_kb[0] = d->info.status.vm_rss > 0 ? d->info.status.vm_rss : 0;
	d->hist.n = 1;
	if (proc_info_exited(&d->info)) {
		char ex[96], why[160];
		describe_exit(d->info.exit_code, ex, sizeof(ex));
		snprintf(why, sizeof(why), _("process %d has exited (%s)"), (int)pid, ex);
		refresh_pane(d, ui, true);
		freeze(d, why);
	} else {
		refresh_pane(d, ui, true);
	}
	ui_push(ui, &screen_detail_ops, d);
}
