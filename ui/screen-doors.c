/* Doors screen: what the kernel lets pscope do here and, for one process,
 * each operation probed for real (src/doors/probe.c, on a worker), with
 * the door and the fix of every refusal, then the tool -> door table. The
 * same lines as `pscope doors [PID]`. */
#include "uipriv.h"
#include "doors/doors.h"
#include "doors/report.h"
#include "job.h"
#include "source/source.h"
#include "draw.h"
#include "i18n.h"
#include "textview.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <limits.h>
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct doors_state {
	struct ui *ui;
	struct ui_job job;       /* the probe, made on a worker */
	pid_t asked;             /* the PID it probes (0: the system only) */
	bool failed;             /* ... and it was gone: the system's report came */
	char done[128];          /* said on the status line when it comes */
	bool have;               /* a report came */
	struct door_report rep;
	struct door_lines lines;
	int width;               /* the lines were wrapped for this width */
	struct textview tv;      /* the lines (wrapped to the width) */
	struct ui_search search;
	pid_t pid;               /* 0: system only */
};

static int line_attr(enum door_line_kind k);

static void doors_render(struct doors_state *d, int width)
{
	door_lines_free(&d->lines);
	d->width = width;
	door_render(&d->rep, width, &d->lines);
	textview_clear(&d->tv);
	for (size_t i = 0; i < d->lines.n; i++)
		textview_add(&d->tv, line_attr(d->lines.v[i].kind), NULL, d->lines.v[i].text);
}

static bool doors_message(void *ctx, struct ring_msg *m)
{
	struct doors_state *d = ctx;

	if (m->kind == RING_RESULT && m->payload) {
		/* A gone process: said (RING_ERROR) and the system's report. */
		d->rep = *(struct door_report *)m->payload;
		d->pid = d->failed ? 0 : d->asked;
		d->have = true;
		textview_free(&d->tv);
		textview_init(&d->tv, 0);
		d->width = -1;
		if (!d->failed && d->done[0])
			ui_message(d->ui, false, "%s", d->done);
	} else if (m->kind == RING_ERROR) {
		d->failed = true;
		ui_error(d->ui, &m->err);
	}
	ui_job_message(&d->job, m, true, "");
	return false;
}

/* Probe (pid 0: the system only) on a worker; done is said when it came.
 * The report shown stays until the new one comes. */
static void doors_probe(struct ui *ui, struct doors_state *d, pid_t pid, const char *done)
{
	struct job_handler h = { doors_message, d };

	ui_job_leave(ui, &d->job);
	d->asked = pid;
	d->failed = false;
	snprintf(d->done, sizeof(d->done), "%s", done ? done : "");
	ui_job_started(&d->job, door_report_submit(ui->workers, pid, &h), "", _("out of memory"));
	if (!d->job.id)
		ui_message(ui, true, "%s", _("out of memory"));
}

static int line_attr(enum door_line_kind k)
{
	switch (k) {
	case DL_HEAD: return draw_attr(COL_HEADER) | A_BOLD;
	case DL_OPEN: return draw_attr(COL_GOOD);
	case DL_CLOSED: return draw_attr(COL_ERROR) | A_BOLD;
	case DL_NA: return draw_attr(COL_DIM);
	case DL_DETAIL: return draw_attr(COL_WARN);
	case DL_DIM: return draw_attr(COL_DIM);
	default: return draw_attr(COL_NORMAL);
	}
}

static void doors_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct doors_state *d = p;
	int body = rows - 1, cols = draw_cols();

	draw_blank(y0, 0, -1, draw_attr(COL_TITLE));
	if (!d->have) {
		draw_text(y0, 0, -1, draw_attr(COL_TITLE), _(" Doors: what the kernel lets pscope do"));
		if (rows > 2)
			draw_text(y0 + 2, 1, -1, draw_attr(COL_DIM), _("probing..."));
		return;
	}
	if (d->width != cols - 1)
		doors_render(d, cols - 1 > 20 ? cols - 1 : 20);
	if (d->rep.have_target)
		draw_textf(y0, 0, -1, draw_attr(COL_TITLE), _(" Doors: what the kernel lets pscope do, and PID %d (%s)"),
			   (int)d->pid, d->rep.target.comm);
	else
		draw_text(y0, 0, -1, draw_attr(COL_TITLE), _(" Doors: what the kernel lets pscope do"));
	textview_draw(&d->tv, y0 + 1, body);
	int top = d->tv.view.top;
	if ((int)d->lines.n > body && body > 0 && cols > 8) {
		int shown = top + body < (int)d->lines.n ? top + body : (int)d->lines.n;
		draw_textf(y0, cols - 6, -1, draw_attr(COL_TITLE), "%3d%% ", 100 * shown / (int)d->lines.n);
	}
}

static bool k_again(struct ui *ui, void *p, int ch)
{
	struct doors_state *d = p;
	char done[128];

	if (d->pid)
		snprintf(done, sizeof(done), _("probed PID %d again"), (int)d->pid);
	else
		snprintf(done, sizeof(done), "%s", _("read the system again"));
	doors_probe(ui, d, d->pid, done);
	return true;
}

static bool k_pid(struct ui *ui, void *p, int ch)
{
	struct doors_state *d = p;
	char buf[16] = "", *end;
	long v;

	if (!ui_prompt(ui, _("Probe PID (empty: system only): "), buf, sizeof(buf)))
		return true;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (!buf[0])
		doors_probe(ui, d, 0, NULL);
	else if (errno || *end || v <= 0 || v > 4194304)
		ui_message(ui, true, _("not a PID: %s"), buf);
	else
		doors_probe(ui, d, (pid_t)v, NULL);
	return true;
}

/* E: the report shown, as `pscope doors --report FILE` writes it (the
 * same Markdown, through src/out/save.c: whole or not at all), to a file
 * the user names; the status line says where it went, or why not. */
static bool k_report(struct ui *ui, void *p, int ch)
{
	struct doors_state *d = p;
	char path[512], where[PATH_MAX + 520], cwd[PATH_MAX];
	struct ps_error e;

	if (!d->have) {
		ui_message(ui, true, "%s", _("no report yet: the probe is still running"));
		return true;
	}
	if (d->pid)
		snprintf(path, sizeof(path), "pscope-doors-%d.md", (int)d->pid);
	else
		snprintf(path, sizeof(path), "%s", "pscope-doors.md");
	if (!ui_ask_file(ui, _("Write the doors report (Markdown) to: "), path, sizeof(path)))
		return true;
	ps_error_clear(&e);
	if (door_report_save(path, &d->rep, &e) < 0) {
		ui_error(ui, &e);
		return true;
	}
	/* Said as a whole path: the directory pscope runs in is not on screen. */
	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
		snprintf(where, sizeof(where), "%s/%s", strcmp(cwd, "/") ? cwd : "", path);
	else
		snprintf(where, sizeof(where), "%s", path);
	ui_message(ui, false, _("Doors report written to %s"), where);
	return true;
}

static bool k_here(struct ui *ui, void *p, int ch)
{
	return true; /* already here */
}

/* Search and scrolling. */
static bool doors_key(struct ui *ui, void *p, int ch)
{
	struct doors_state *d = p;

	return ui_search_key(ui, &d->search, ch, textview_find, &d->tv) || textview_key(&d->tv, ch);
}

/* The process probed, if any: s, h and C act on the one with that PID now. */
static bool doors_selected(void *p, struct target_id *id)
{
	id->pid = ((struct doors_state *)p)->pid;
	id->starttime = 0;
	return id->pid > 0;
}

static void doors_destroy(void *p)
{
	struct doors_state *d = p;
	ui_job_leave(d->ui, &d->job);
	door_lines_free(&d->lines);
	textview_free(&d->tv);
	free(d);
}

static const struct ui_key doors_keys[] = {
	UI_SECTION(N_("Keys")),
	UI_KEY("Up/Down, j/k", NULL, NULL, N_("scroll a line")),
	UI_KEY("PgUp/PgDn, b/Space", NULL, NULL, N_("scroll a page")),
	UI_KEY("Home/End, g/G", NULL, NULL, N_("top / bottom")),
	UI_KEY("/, n, N", NULL, N_("Search"), N_("search the report; n / N the next / previous match")),
	UI_KEY("r", k_again, N_("Probe"),
	  N_("probe again (the report is a snapshot: it does not refresh by itself)"), 'r'),
	UI_KEY("p", k_pid, N_("PID"), N_("probe another PID (empty: the system only)"), 'p'),
	UI_KEY("E", k_report, N_("Report"),
	  N_("write the report shown to a file, as pscope doors --report FILE does (Markdown, for a "
	     "classroom)"), 'E'),
	UI_LOOP("F1, ?", KEY_F(1), '?'),
	UI_LOOP("Esc", 27),
	UI_LOOP("F10, q", KEY_F(10), 'q'),
	UI_KEY("D", k_here, NULL, N_("on any screen opens this screen on the process selected there"), 'D'),
	UI_KEYS_END,
};

const struct screen_ops screen_doors_ops = {
	.name = N_("Doors"),
	.help = "doors",
	.keys = doors_keys,
	.fbar = "F1 r p E / Esc F10",
	.draw = doors_draw,
	.key = doors_key,
	.selected = doors_selected,
	.destroy = doors_destroy,
};

void screen_doors_open(struct ui *ui, pid_t pid)
{
	struct doors_state *d = calloc(1, sizeof(*d));

	if (!d)
		return;
	d->ui = ui;
	textview_init(&d->tv, 0);
	doors_probe(ui, d, pid, NULL);
	ui_push(ui, &screen_doors_ops, d);
}
