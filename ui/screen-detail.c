/* Process detail screen: a header summarising the process and tabbed panes
 * (ui/pane-*.c), drawn from the snapshots of a live source (the process
 * pinned by its /proc/PID dirfd and start time, src/source/live-proc.c):
 * once the process exits (or its PID names another process) the screen
 * says so and keeps the last data frozen. */
#include "uipriv.h"
#include "doors/doors.h"
#include "job.h"
#include "draw.h"
#include "i18n.h"
#include "pane.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <math.h>
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

/* A pane's place in the registry (its data's index in a snapshot). */
static enum pane_id pane_id_of(const struct pane_ops *p)
{
	for (int k = 0; k < PANE_COUNT; k++)
		if (panes[k] == p)
			return (enum pane_id)k;
	return PANE_ID_status;
}

struct detail {
	struct ui *ui;
	struct target_id id;           /* as asked (start time 0: the PID's process now) */
	struct ui_job job;             /* the source: a snapshot per tick */
	struct source_ctl *ctl;        /* what it reads: the pane shown, its rows */
	struct snap_proc *snap;        /* the newest snapshot: what is drawn */
	struct pane_hist hist;
	uint64_t hist_ns;              /* the header read last added to hist */
	int cur;
	const struct pane_ops *panes[NPANES]; /* in the order shown */
	void *pst[NPANES];
	const struct pane_data *taken[NPANES]; /* what each pane was given last */
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
	const struct snap_proc *s = d->snap;

	*c = (struct pane_ctx){
		.ui = ui,
		.pid = s ? s->id.pid : d->id.pid,
		.snap = s,
		.info = s ? &s->info : NULL,
		.rates = s ? &s->rates : NULL,
		.have_rates = s && s->have_rates,
		.hist = &d->hist,
		.cmdline = s ? s->cmdline : NULL,
		.frozen = s && s->frozen,
		.now = s ? (double)s->h.t_ns / 1e9 : 0,
	};
}

/* What the source is to read: the pane shown and what it wants; tick_now:
 * at once (F5). */
static void detail_want(struct detail *d, bool tick_now)
{
	struct source_want w;

	if (!d->ctl)
		return;
	source_ctl_peek(d->ctl, &w);
	w.interval_ms = d->ui->delay_tenths * 100;
	w.pane = pane_id_of(d->panes[d->cur]);
	w.fd_all = w.smaps = false;
	w.nfds = 0;
	if (d->panes[d->cur]->want)
		d->panes[d->cur]->want(d->pst[d->cur], &w);
	if (tick_now)
		w.tick_now++;
	if (source_ctl_set(d->ctl, &w) && d->job.running)
		workers_wake(d->ui->workers, d->job.id);
}

/* A new snapshot: the RSS and CPU history gets its header, each pane its data. */
static void take(struct detail *d, struct snap_proc *s)
{
	struct pane_ctx c;

	snap_put(d->snap ? &d->snap->h : NULL);
	d->snap = s;
	if (s->info_ns && s->info_ns != d->hist_ns) {
		struct pane_hist *h = &d->hist;
		int k = (h->head + h->n) % PANE_HIST_MAX;
		h->t[k] = s->info.when;
		h->rss_kb[k] = s->info.status.vm_rss > 0 ? s->info.status.vm_rss
							  : s->info.stat.rss * (sysconf(_SC_PAGESIZE) / 1024);
		h->cpu_pct[k] = s->have_rates ? (float)s->rates.cpu_pct : NAN;
		if (h->n < PANE_HIST_MAX)
			h->n++;
		else
			h->head = (h->head + 1) % PANE_HIST_MAX;
		d->hist_ns = s->info_ns;
	}
	fill_ctx(d, d->ui, &c);
	for (int k = 0; k < NPANES; k++) {
		struct pane_data *pd = s->pane[pane_id_of(d->panes[k])];
		if (pd && pd != d->taken[k] && !pd->err && d->panes[k]->take)
			d->panes[k]->take(d->pst[k], &c, pd);
		d->taken[k] = pd;
	}
}

static void detail_destroy(void *st);

/* The source's messages: each snapshot is drawn; a failure before the
 * first one (the process is gone, /proc/PID refused) closes the screen
 * with the reason on the status line. */
static bool detail_message(void *ctx, struct ring_msg *m)
{
	struct detail *d = ctx;

	if ((m->kind == RING_SNAPSHOT || m->kind == RING_RESULT) && m->payload) {
		take(d, m->payload);
		return true;
	}
	if (m->kind == RING_ERROR) {
		ui_error(d->ui, &m->err);
		if (!d->snap) {
			ui_remove(d->ui, d);
			return false;
		}
	}
	ui_job_message(&d->job, m, true, "");
	return false;
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
	const struct snap_proc *s = d->snap;
	const struct pane_ops *p = d->panes[d->cur];
	char rss[32], up[48], src[256];
	int y = y0, x;
	char pid[32], rest[512];

	if (!s) {
		draw_blank(y, 0, -1, draw_attr(COL_TITLE));
		draw_textf(y, 0, -1, draw_attr(COL_TITLE), " PID %d ", (int)d->id.pid);
		if (rows > 2)
			draw_text(y + 2, 0, -1, draw_attr(COL_DIM), _("reading..."));
		return;
	}
	const struct proc_info *i = &s->info;
	long rss_kb = i->status.vm_rss > 0 ? i->status.vm_rss : 0;
	format_uptime(i->uptime_s, up, sizeof(up));
	snprintf(pid, sizeof(pid), " PID %d ", (int)s->id.pid);
	snprintf(rest, sizeof(rest), _("  user %s  %c %s  CPU %.1f%%  RSS %s  threads %ld  up %s"), i->user,
		 i->stat.state, _(proc_state_name(i->stat.state)), s->have_rates ? s->rates.cpu_pct : 0.0,
		 human_bytes((unsigned long long)rss_kb * 1024, rss, sizeof(rss)), i->stat.num_threads, up);
	const char *cmd = s->cmdline && s->cmdline[0] ? s->cmdline : i->cmdline[0] ? i->cmdline :
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
	if (s->frozen && y - y0 < rows) {
		draw_blank(y, 0, -1, draw_attr(COL_ERROR) | A_REVERSE);
		draw_text(y++, 1, -1, draw_attr(COL_ERROR) | A_REVERSE | A_BOLD, s->frozen_msg);
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
		draw_textf(y++, 0, -1, draw_attr(COL_DIM), _("Source: %s"), pane_source(p->desc, s->id.pid, src, sizeof(src)));
	}
	int body = rows - (y - y0);
	d->body_rows = body;
	if (body <= 0)
		return;
	const struct pane_data *pd = s->pane[pane_id_of(p)];
	if (pd && pd->err) {
		const struct ps_error *e = &pd->e;
		draw_text(y++, 0, -1, draw_attr(COL_ERROR) | A_BOLD, e->msg);
		if (e->door && body > 1)
			draw_textf(y++, 0, -1, draw_attr(COL_WARN), _("Permission missing: %s"), door_name(e->door));
		if (e->fix[0] && body > 2)
			draw_textf(y++, 0, -1, draw_attr(COL_NORMAL), _("To open it: %s"), e->fix);
		return;
	}
	if (!pd && p->take) {
		draw_text(y, 0, -1, draw_attr(COL_DIM),
			  s->frozen ? _("the process exited before this pane was read: nothing to show") : _("reading..."));
		return;
	}
	struct pane_ctx c;
	fill_ctx(d, ui, &c);
	p->draw(d->pst[d->cur], &c, y, body);
}

/* After a draw: what the source is to read now, and that the snapshot
 * was drawn. */
static void detail_drawn(struct ui *ui, void *st, int y0, int rows)
{
	struct detail *d = st;

	detail_draw(ui, st, y0, rows);
	detail_want(d, false);
	if (d->snap && source_ctl_drawn(d->ctl, d->snap->h.seq) && d->job.running)
		workers_wake(ui->workers, d->job.id);
}

static void switch_pane(struct detail *d, struct ui *ui, int k)
{
	(void)ui;
	k = (k + NPANES) % NPANES;
	if (k != d->cur && d->panes[d->cur]->hide)
		d->panes[d->cur]->hide(d->pst[d->cur]);
	d->cur = k;
	detail_want(d, false);
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

/* Left at the left edge stays: only Esc goes back. */
static bool k_left(struct ui *ui, void *st, int ch)
{
	hscroll(ui, st, ch);
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
	detail_want(st, true); /* read now */
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
	     "Maps, Threads: the last column)"), KEY_LEFT),
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
	UI_LOOP_AS("W", NULL, N_("where this process's time goes, with its threads' system calls"), 'W'),
	UI_LOOP_AS("C", NULL, N_("write a core file of this process"), 'C'),
	UI_LOOP("D", 'D'),
	UI_KEY("F1", k_pane_help, N_("Help"), N_("what each field of the current pane means"), KEY_F(1)),
	UI_LOOP_AS("?", N_("Keys"), NULL, '?'),
	UI_LOOP_AS("Esc", NULL, N_("back to the process list (the selection is kept)"), 27),
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

/* The source ticks on its own: the timer only passes on the interval. */
static void detail_tick(struct ui *ui, void *st)
{
	(void)ui;
	detail_want(st, false);
}

static void detail_destroy(void *st)
{
	struct detail *d = st;
	ui_job_leave(d->ui, &d->job);
	source_ctl_put(d->ctl);
	for (int k = 0; k < NPANES; k++)
		if (d->pst[k])
			d->panes[k]->destroy(d->pst[k]);
	snap_put(d->snap ? &d->snap->h : NULL);
	free(d);
}

/* s, h, C and D act on this process (as the source pinned it). */
static bool detail_selected(void *p, struct target_id *id)
{
	struct detail *d = p;
	*id = d->snap ? d->snap->id : d->id;
	return true;
}

const struct screen_ops screen_detail_ops = {
	.name = N_("Process detail"),
	.help = "detail",
	.keys = detail_keys,
	.fbar = "F1 ? Tab s h C F5 Esc F10",
	.draw = detail_drawn,
	.key = detail_key,
	.tick = detail_tick,
	.selected = detail_selected,
	.destroy = detail_destroy,
};

void screen_detail_open_at(struct ui *ui, const struct target_id *id, const char *pane, const char *view)
{
	struct detail *d;

	screen_detail_open(ui, id);
	d = ui_top_state(ui, &screen_detail_ops);
	for (int k = 0; d && pane && k < NPANES; k++)
		if (!strcmp(d->panes[k]->desc->name, pane)) {
			switch_pane(d, ui, k);
			if (d->panes[k]->view)
				d->panes[k]->view(d->pst[k], view);
		}
}

void screen_detail_open(struct ui *ui, const struct target_id *id)
{
	struct detail *d = calloc(1, sizeof(*d));
	struct source src;

	if (!d || !(d->ctl = source_ctl_new())) {
		free(d);
		ui_message(ui, true, "%s", _("out of memory"));
		return;
	}
	d->ui = ui;
	d->id = *id;
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
	/* The first pane is read with the header: nothing to wait for. */
	detail_want(d, false);
	struct job_handler h = { detail_message, d };
	if (source_live_proc(&src, id, &ps_clock_live) == 0)
		ui_job_started(&d->job, source_submit(ui->workers, id, &src, d->ctl, &h), "", _("out of memory"));
	if (!d->job.id) {
		ui_message(ui, true, "%s", _("out of memory"));
		detail_destroy(d);
		return;
	}
	ui_push(ui, &screen_detail_ops, d);
}
