/* Process detail screen: a header summarising the process and tabbed panes
 * (ui/pane-*.c), drawn from the snapshots of a live source (the process
 * pinned by its /proc/PID dirfd and start time, src/source/live-proc.c):
 * once the process exits (or its PID names another process) the screen
 * says so and keeps the last data frozen. */
#include "uipriv.h"
#include "doors.h"
#include "job.h"
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

/* The TUI side of each pane of the registry (src/pane/), in its order. */
static const struct pane_ops *const panes[PANE_COUNT] = {
	[PANE_STATUS] = &pane_status, [PANE_FD] = &pane_fd,   [PANE_MAPS] = &pane_maps,
	[PANE_MEM] = &pane_mem,       [PANE_THREADS] = &pane_threads,
};
#define NPANES ((int)ARRAY_SIZE(panes))
/* Shown in the order the settings give (F2, pane_order); keys 1-5 by position. */
_Static_assert(NPANES == CFG_NPANES, "one pane per pane_order entry");

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
	w.pane = d->panes[d->cur]->desc->id;
	w.fd_all = w.smaps = false;
	w.nfds = 0;
	if (d->panes[d->cur]->want)
		d->panes[d->cur]->want(d->pst[d->cur], &w);
	if (tick_now)
		w.tick_now++;
	if (source_ctl_set(d->ctl, &w) && d->job.running)
		workers_wake(d->ui->workers, d->job.id);
}

/* A new snapshot: the RSS history gets its header, each pane its data. */
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
		if (h->n < PANE_HIST_MAX)
			h->n++;
		else
			h->head = (h->head + 1) % PANE_HIST_MAX;
		d->hist_ns = s->info_ns;
	}
	fill_ctx(d, d->ui, &c);
	for (int k = 0; k < NPANES; k++) {
		struct pane_data *pd = s->pane[d->panes[k]->desc->id];
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
		 i->stat.state, proc_state_name(i->stat.state), s->have_rates ? s->rates.cpu_pct : 0.0,
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
		draw_text(y, x, -1, draw_attr(COL_DIM), _(" Tab/Shift-Tab or 1-5 switch"));
		y++;
	}
	if (y - y0 < rows) {
		draw_textf(y++, 0, -1, draw_attr(COL_DIM), _("Source: %s"), pane_source(p->desc, s->id.pid, src, sizeof(src)));
	}
	int body = rows - (y - y0);
	d->body_rows = body;
	if (body <= 0)
		return;
	const struct pane_data *pd = s->pane[p->desc->id];
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
	d->cur = (k + NPANES) % NPANES;
	detail_want(d, false);
}

static bool detail_key(struct ui *ui, void *st, int ch)
{
	struct detail *d = st;

	switch (ch) {
	case '\t': switch_pane(d, ui, d->cur + 1); return true;
	case KEY_BTAB: switch_pane(d, ui, d->cur - 1); return true;
	case KEY_F(1):
		screen_help_open(ui, d->panes[d->cur]->desc->help, _(d->panes[d->cur]->desc->title));
		return true;
	case 27: return false; /* the loop pops the screen */
	case KEY_LEFT: case KEY_RIGHT: {
		/* The pane's long lines and the header's scroll together;
		 * Left with both at their left edge goes back. */
		struct pane_ctx c;
		fill_ctx(d, ui, &c);
		bool pane = d->panes[d->cur]->on_key(d->pst[d->cur], &c, ch, d->body_rows > 0 ? d->body_rows : 1);
		bool head = table_hscroll_key(&d->hscroll, ch) != TABLE_KEY_NONE;
		return pane || head;
	}
	case KEY_MOUSE: {
		/* A click on a tab switches to it; the rest goes to the pane. */
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
		break;
	}
	case KEY_F(5): case 12:
		detail_want(d, true); /* read now */
		return ch == KEY_F(5);
	}
	if (ui_search_key(ui, &d->search, ch, d->panes[d->cur]->search ? find_in_pane : NULL, d))
		return true;
	for (int k = 0; k < NPANES; k++)
		if (ch == '1' + k) {
			switch_pane(d, ui, k);
			return true;
		}
	struct pane_ctx c;
	fill_ctx(d, ui, &c);
	return d->panes[d->cur]->on_key && d->panes[d->cur]->on_key(d->pst[d->cur], &c, ch, d->body_rows > 0 ? d->body_rows : draw_rows() - 6);
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

static const struct ui_fkey detail_fkeys[] = {
	{ "F1", N_("Help") }, { "?", N_("Keys") }, { "Tab", N_("Pane") }, { "s", N_("Stack") }, { "h", N_("Hot") },
	{ "C", N_("Core") }, { "F5", N_("Read") }, { "Esc", N_("Back") }, { "F10", N_("Quit") }, { NULL, NULL },
};

/* s, h, C and D act on this process (as the source pinned it). */
static bool detail_selected(void *p, struct target_id *id)
{
	struct detail *d = p;
	*id = d->snap ? d->snap->id : d->id;
	return true;
}

static const struct screen_ops detail_ops = {
	.name = N_("Process detail"),
	.help = "detail",
	.fkeys = detail_fkeys,
	.draw = detail_drawn,
	.key = detail_key,
	.tick = detail_tick,
	.selected = detail_selected,
	.destroy = detail_destroy,
};

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
	ui_push(ui, &detail_ops, d);
}
