/* Cores screen (O): the core files the kernel wrote where core_pattern
 * sends them, newest first, as `pscope cores` lists them (read by a job,
 * core_listing_submit), with what to do when there are none; Enter opens
 * the selected one as `pscope -c FILE` does, r lists again. */
#include "uipriv.h"
#include "core/read.h"
#include "draw.h"
#include "i18n.h"
#include "job.h"
#include "source/source.h"
#include "table.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct cores_state {
	struct ui *ui;
	struct ui_job job;
	struct core_listing *l;        /* the last listing (NULL: none yet) */
	struct table tab;
	struct ui_search search;
	bool again;                    /* r: say so when it comes */
};

enum { C_TIME, C_SIGNAL, C_PID, C_PROGRAM, C_SIZE, C_FILE, C_N };
static const struct table_col cols[C_N] = {
	[C_TIME] = { N_("TIME"), 19, false },   [C_SIGNAL] = { N_("SIGNAL"), 8, false },
	[C_PID] = { N_("PID"), 8, true },       [C_PROGRAM] = { N_("PROGRAM"), 16, false },
	[C_SIZE] = { N_("SIZE"), 7, true },     [C_FILE] = { N_("FILE"), 0, false },
};

static bool cores_message(void *ctx, struct ring_msg *m)
{
	struct cores_state *s = ctx;
	bool keep = false;

	if (m->kind == RING_RESULT && m->payload) {
		core_listing_free(s->l);
		s->l = m->payload;
		table_set_count(&s->tab, (int)s->l->n);
		keep = true;
		if (s->again)
			ui_message(s->ui, false, P_("listed again: %zu core", "listed again: %zu cores", s->l->n), s->l->n);
	} else if (m->kind == RING_ERROR) {
		ui_error(s->ui, &m->err);
	}
	ui_job_message(&s->job, m, true, "");
	return keep;
}

static void list_cores(struct ui *ui, struct cores_state *s)
{
	struct job_handler h = { cores_message, s };

	ui_job_leave(ui, &s->job);
	ui_job_started(&s->job, core_listing_submit(ui->workers, &h), "", _("out of memory"));
	if (!s->job.id)
		ui_message(ui, true, "%s", _("out of memory"));
}

static int cores_cell(void *st, int row, int col, char *buf, size_t size)
{
	const struct cores_state *s = st;
	const struct core_found *f = &s->l->f[row];
	struct tm tm;
	time_t t = f->mtime;

	switch (col) {
	case -1:
		return f->unread || f->truncated ? draw_attr(COL_WARN) : 0;
	case C_TIME:
		localtime_r(&t, &tm);
		strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
		break;
	case C_SIGNAL: {
		const char *sig = f->unread ? "?" : f->signo ? core_signal_name(f->signo) : "-";
		snprintf(buf, size, "%s", sig ? sig : "?");
		break;
	}
	case C_PID:
		if (f->pid)
			snprintf(buf, size, "%d", f->pid);
		else
			snprintf(buf, size, "?");
		break;
	case C_PROGRAM: snprintf(buf, size, "%s", f->program[0] ? f->program : "?"); break;
	case C_SIZE: human_bytes(f->size, buf, size); break;
	case C_FILE:
		snprintf(buf, size, "%s%s", f->path,
			 f->compressed ? _(" (compressed)") : f->truncated ? _(" (cut short)") : f->unread ? "" : "");
		if (f->unread) {
			size_t n = strlen(buf);
			snprintf(buf + n, size - n, _(" (not readable: %s)"), f->error);
		}
		break;
	}
	return 0;
}

/* A sentence wrapped over the rows below y (at most end); the next row. */
static int para(int y, int end, int attr, const char *text)
{
	int w = draw_cols() - 2 > 20 ? draw_cols() - 2 : 20;

	if (!text[0] || y >= end)
		return y;
	int n = draw_wrapped(y, 1, w, end - y, attr, text, true, 0);
	return y + (n < end - y ? n : end - y);
}

static void cores_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct cores_state *s = p;
	int end = y0 + rows, y = y0 + 1;

	draw_blank(y0, 0, -1, draw_attr(COL_TITLE));
	if (!s->l) {
		draw_text(y0, 0, -1, draw_attr(COL_TITLE), _(" Cores: the core files the kernel wrote"));
		if (rows > 2)
			draw_text(y0 + 2, 1, -1, draw_attr(COL_DIM),
				  s->job.failed ? s->job.error : _("reading core_pattern and listing..."));
		return;
	}
	const struct core_listing *l = s->l;
	const struct core_where *w = &l->where;
	if (l->listable)
		draw_textf(y0, 0, -1, draw_attr(COL_TITLE),
			   _(" Cores: %zu in %s (core_pattern %s)"), l->n,
			   w->dir, w->pattern);
	else
		draw_textf(y0, 0, -1, draw_attr(COL_TITLE), _(" Cores: none to list (core_pattern %s)"), w->pattern);
	y = para(y, end, draw_attr(COL_WARN), l->error);
	y = para(y, end, draw_attr(COL_NORMAL), l->advice);
	const char *ow = core_where_overwrites(w);
	y = para(y, end, draw_attr(COL_WARN), ow ? ow : "");
	y = para(y, end, draw_attr(COL_DIM), l->ulimit);
	if (!l->listable || y >= end)
		return;
	if (!l->n) {
		char buf[PATH_MAX + 64];
		snprintf(buf, sizeof(buf), _("No core found in %s (files named %s)"), w->dir, w->glob);
		para(y + 1, end, draw_attr(COL_DIM), buf);
		return;
	}
	table_set_count(&s->tab, (int)l->n);
	table_draw(&s->tab, y, end - y, s, cores_cell);
}

/* Enter: the selected core, as pscope -c FILE opens it (a file replaced
 * since it was listed is refused there, as another core). */
static bool k_open(struct ui *ui, void *p, int ch)
{
	struct cores_state *s = p;
	int row = s->l ? table_selected(&s->tab) : -1;
	struct core_file_id id = { 0 };

	if (row < 0 || (size_t)row >= s->l->n) {
		ui_message(ui, true, "%s", _("no core to open"));
		return true;
	}
	const struct core_found *f = &s->l->f[row];
	strlcpy_ps(id.path, f->path, sizeof(id.path));
	id.dev = f->dev;
	id.ino = f->ino;
	id.size = f->size;
	id.mtime_ns = (long long)f->mtime * 1000000000ll + f->mtime_ns;
	screen_coreread_open(ui, &id, NULL);
	return true;
}

static bool k_again(struct ui *ui, void *p, int ch)
{
	struct cores_state *s = p;

	s->again = true;
	list_cores(ui, s);
	return true;
}

static bool cores_match(void *st, int row, const char *text)
{
	const struct cores_state *s = st;
	const struct core_found *f = &s->l->f[row];
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", f->pid);
	return strcasestr(f->path, text) || strcasestr(f->program, text) || (f->pid && !strcmp(pid, text));
}

static bool cores_find(void *st, const char *text, int dir, bool again)
{
	struct cores_state *s = st;

	if (!s->l || !s->l->n)
		return false;
	return table_search(&s->tab, s->tab.sel + (again ? dir : 0), dir, text, s, cores_match);
}

static bool cores_key(struct ui *ui, void *p, int ch)
{
	struct cores_state *s = p;

	return ui_search_key(ui, &s->search, ch, cores_find, s) || table_key(&s->tab, ch, NULL, NULL);
}

static void cores_destroy(void *p)
{
	struct cores_state *s = p;

	ui_job_leave(s->ui, &s->job);
	core_listing_free(s->l);
	table_free(&s->tab);
	free(s);
}

static bool k_here(struct ui *ui, void *p, int ch)
{
	return true; /* already here */
}

static const struct ui_key cores_keys[] = {
	UI_SECTION(N_("Keys")),
	UI_KEY("Up/Down, j/k", NULL, NULL, N_("move the selection")),
	UI_KEY("PgUp/PgDn, Home/End", NULL, NULL, NULL),
	UI_KEY("Enter", k_open, N_("Open"),
	  N_("open the selected core as pscope -c FILE does: its signal, stacks, maps and files (Esc comes back)"),
	  '\n', '\r', KEY_ENTER),
	UI_KEY("r", k_again, N_("Again"), N_("list the cores again (the list is a snapshot)"), 'r'),
	UI_KEY("/, n, N", NULL, N_("Search"), N_("select the next core whose file, program or PID holds a text")),
	UI_LOOP("F1, ?", KEY_F(1), '?'),
	UI_LOOP("Esc", 27),
	UI_LOOP("F10, q", KEY_F(10), 'q'),
	UI_KEY("O", k_here, NULL, N_("on any screen opens this screen"), 'O'),
	UI_KEYS_END,
};

const struct screen_ops screen_cores_ops = {
	.name = N_("Cores"),
	.help = "cores",
	.keys = cores_keys,
	.fbar = "F1 Enter r / Esc F10",
	.draw = cores_draw,
	.key = cores_key,
	.destroy = cores_destroy,
};

void screen_cores_open(struct ui *ui)
{
	struct cores_state *s = calloc(1, sizeof(*s));

	if (!s)
		return;
	s->ui = ui;
	table_init(&s->tab, cols, C_N, -1, false); /* newest first: no column sorts */
	list_cores(ui, s);
	ui_push(ui, &screen_cores_ops, s);
}
