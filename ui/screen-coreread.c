/* A core file (`pscope -c CORE [EXE]`): a header with what the kernel
 * recorded (the signal, its code and fault address, the thread it was for,
 * the command line, uid and state), then three tabs: 1 Stacks (the stack
 * dump's own view), 2 Maps (the maps pane over NT_FILE and PT_LOAD), 3
 * Files (each mapped file's build-id check, and what the core lacks).
 * The core is read by its source (src/source/core.c) on a worker: a big
 * one never freezes the screen; the source then watches the file and the
 * header says when it was replaced. The Maps tab is the detail screen's
 * Maps pane over the same pane data a live process's source makes. */
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"
#include "job.h"
#include "pane.h"
#include "stack-view.h"
#include "textview.h"
#include "core/read.h"
#include "source/source.h"
#include "stack/stack.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAB_STACKS, TAB_MAPS, TAB_FILES, TAB_N };
static const char *const tab_names[TAB_N] = { N_("Stacks"), N_("Maps"), N_("Files") };

struct coreread {
	struct ui *ui;
	struct core_file_id id;        /* the file to read (ino 0: the one there now) */
	const char *path;              /* id.path */
	char *exe;
	struct ui_job job;
	struct source_ctl *ctl;
	struct snap_proc *snap;        /* the newest snapshot */
	const struct core_view *cv;    /* its core, stacks and map */
	int tab;
	struct stack_view sv;
	void *maps;          /* the maps pane's state */
	struct textview files; /* warnings, then one line per file */
	struct ui_search search;
};

static bool coreread_message(void *ctx, struct ring_msg *m);

/* The core is being read (once read, the source only watches the file). */
static bool reading(const struct coreread *s)
{
	return s->job.running && !s->cv;
}

static void submit(struct coreread *s)
{
	struct job_handler h = { coreread_message, s };
	struct source src;
	unsigned id = 0;

	if (source_core(&src, &s->id, s->exe, &ps_clock_live) == 0)
		id = source_submit(s->ui->workers, NULL, &src, s->ctl, &h);
	ui_job_started(&s->job, id, _("reading the core"), _("cannot start reading the core (out of memory)"));
}

static void pane_ctx_of(struct coreread *s, struct pane_ctx *c)
{
	*c = (struct pane_ctx){ .ui = s->ui, .pid = s->snap ? s->snap->id.pid : 0, .snap = s->snap, .frozen = true,
				.core = true, .now = s->snap ? (double)s->snap->h.t_ns / 1e9 : 0 };
}

/* ---- header ---- */

static void signal_line(const struct core *c, char *buf, size_t size)
{
	const struct core_info *ci = &c->info;
	const struct core_thread *ct = core_crashed_thread(c);
	int signo = core_signal(c);
	const char *name = core_signal_name(signo), *meaning = NULL;
	const char *code = ci->sig.valid ? core_sigcode_name(signo, ci->sig.code, &meaning) : NULL;
	int n;

	if (!ct) {
		snprintf(buf, size, "%s", ci->sig.valid && ci->sig.signo == SIGSTOP
						 ? _("no fatal signal: a snapshot written while a debugger held it stopped (gcore)")
						 : _("no signal recorded: a snapshot of a running process (gcore, pscope core)"));
		return;
	}
	/* One message per shape, so that a language orders the thread, the
	 * signal, its code and the address as it reads best. */
	char why[256];
	n = snprintf(why, sizeof(why), "%s%s%s", code ? code : "", meaning ? ": " : "", meaning ? meaning : "");
	if (n < 0)
		why[0] = '\0';
	if (!name)
		name = "?";
	if (!code)
		snprintf(buf, size, _("signal %s, in TID %d"), name, ct->tid);
	else if (ci->sig.valid && ci->sig.code > 0 && ci->sig.code != 0x80)
		snprintf(buf, size, _("signal %s (%s) at 0x%llx, in TID %d"), name, why, (unsigned long long)ci->sig.addr,
			 ct->tid);
	else
		snprintf(buf, size, _("signal %s (%s), in TID %d"), name, why, ct->tid);
}

static size_t problems(const struct core *c)
{
	char buf[1024];
	size_t n = c->info.n_warnings;
	for (size_t i = 0; i < c->n_mods; i++)
		n += core_module_problem(&c->mods[i], buf, sizeof(buf)) != NULL;
	return n;
}

static int draw_header(struct coreread *s, int y)
{
	const struct core *c = s->cv->core;
	const struct core_info *ci = &c->info;
	char buf[1024];

	if (s->snap->note[0])
		draw_text(y++, 1, -1, draw_attr(COL_WARN) | A_BOLD, s->snap->note);
	signal_line(c, buf, sizeof(buf));
	draw_text(y++, 1, -1, core_crashed_thread(c) ? (int)(draw_attr(COL_ERROR) | A_BOLD) : draw_attr(COL_GOOD), buf);
	if (ci->have_psinfo)
		draw_textf(y++, 1, -1, 0, _("command line: %s   uid %d   state %c"), ci->psargs, ci->uid,
			   ci->state ? ci->state : '?');
	else
		draw_text(y++, 1, -1, draw_attr(COL_DIM), _("no NT_PRPSINFO: no command line, uid or state"));
	size_t np = problems(c);
	if (np) {
		const char *first = ci->n_warnings ? ci->warnings[0] : NULL;
		for (size_t i = 0; !first && i < c->n_mods; i++)
			first = core_module_problem(&c->mods[i], buf, sizeof(buf));
		int x = 1 + draw_textf(y, 1, -1, draw_attr(COL_WARN) | A_BOLD, "%s", first);
		if (np > 1)
			draw_textf(y, x, -1, draw_attr(COL_DIM), P_("  (+%zu more: 3 Files)", "  (+%zu more: 3 Files)", np - 1),
				   np - 1);
		y++;
	}
	/* The tab bar. */
	int x = 0;
	draw_blank(y, 0, -1, draw_attr(COL_DIM));
	for (int t = 0; t < TAB_N; t++)
		x += draw_textf(y, x, -1, t == s->tab ? (int)(draw_attr(COL_SELECT) | A_BOLD) : draw_attr(COL_DIM),
				" %d %s ", t + 1, _(tab_names[t]));
	return y + 1;
}

/* ---- 3 Files: the warnings, then each file and its build-id check ---- */

static void hex_id(const unsigned char *id, size_t n, char *out)
{
	for (size_t i = 0; i < n && i < 64; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
	out[n < 64 ? 2 * n : 128] = '\0';
}

static int files_lines(const struct core *c, char (*out)[1024], int *attr, int max)
{
	int n = 0;
	char buf[1024];

	for (size_t i = 0; i < c->info.n_warnings && n < max; i++, n++) {
		snprintf(out[n], sizeof(out[n]), "%s", c->info.warnings[i]);
		attr[n] = draw_attr(COL_WARN);
	}
	for (size_t i = 0; i < c->n_mods && n < max; i++, n++) {
		const struct core_module *m = &c->mods[i];
		static const char *const st[] = { N_("ok"), N_("no build-id"), N_("MISMATCH"), N_("missing"), N_("memory") };
		const char *why = core_module_problem(m, buf, sizeof(buf));
		char stw[64];
		snprintf(out[n], sizeof(out[n]), "%s %012llx  %s%s%s", draw_pad(stw, sizeof(stw), _(st[m->status]), 12, false),
			 (unsigned long long)m->base,
			 m->path, m->disk_path && strcmp(m->disk_path, m->path) ? "  <- " : "",
			 m->disk_path && strcmp(m->disk_path, m->path) ? m->disk_path : "");
		attr[n] = m->status == CORE_MOD_MISMATCH || m->status == CORE_MOD_MISSING ? draw_attr(COL_ERROR)
			  : m->status == CORE_MOD_OK				   ? draw_attr(COL_GOOD)
										   : draw_attr(COL_DIM);
		if (why && n + 1 < max) {
			/* Why, and for a mismatch the two build-ids. */
			n++;
			snprintf(out[n], sizeof(out[n]), "             %s", why);
			attr[n] = draw_attr(COL_DIM);
			if (m->status == CORE_MOD_MISMATCH && n + 1 < max) {
				char a[129], b[129];
				hex_id(m->id_core, m->id_core_len, a);
				hex_id(m->id_disk, m->id_disk_len, b);
				n++;
				snprintf(out[n], sizeof(out[n]), _("             build-id mapped %s, on disk %s"), a, b);
				attr[n] = draw_attr(COL_DIM);
			}
		}
	}
	return n;
}

static void draw_files(struct coreread *s, int y0, int rows)
{
	const struct core *c = s->cv->core;
	int max = (int)(c->info.n_warnings + 3 * c->n_mods) + 1;
	char (*lines)[1024] = calloc((size_t)max, sizeof(*lines));
	int *attr = calloc((size_t)max, sizeof(int));

	if (lines && attr) {
		draw_textf(y0, 0, -1, A_BOLD, P_("%zu mapped file: build-id in the core's memory against the file on disk", "%zu mapped files: build-id in the core's memory against the file on disk", c->n_mods),
			   c->n_mods);
		int n = files_lines(c, lines, attr, max);
		textview_clear(&s->files);
		for (int i = 0; i < n; i++)
			textview_add(&s->files, attr[i], NULL, lines[i]);
		textview_draw(&s->files, y0 + 1, rows - 1);
	}
	free(lines);
	free(attr);
}

/* ---- the screen ---- */

static void coreread_draw(struct ui *ui, void *p, int y0, int rows)
{
	struct coreread *s = p;
	struct pane_ctx c;

	draw_blank(y0, 0, -1, draw_attr(COL_TITLE));
	if (reading(s) || s->job.failed || !s->cv || !s->sv.d) {
		draw_textf(y0, 0, -1, draw_attr(COL_TITLE), _(" Core file %s"), s->path);
		if (reading(s)) {
			draw_text(y0 + 2, 1, -1, 0, s->job.progress);
			if (draw_cols() > 2)
				draw_bar(y0 + 3, 1, draw_cols() - 2, s->job.fraction, draw_attr(COL_METER_USER), "");
		} else {
			draw_text(y0 + 2, 1, -1, draw_attr(COL_ERROR) | A_BOLD, s->job.failed ? s->job.error : _("cancelled"));
			draw_text(y0 + 4, 1, -1, draw_attr(COL_DIM), _("r: try again   q: quit"));
		}
		return;
	}
	const struct stk_dump *d = s->sv.d;
	const struct core_info *ci = &s->cv->core->info;
	char sum[200];
	int tx = draw_textf(y0, 0, -1, draw_attr(COL_TITLE), P_(" Core file %s: PID %d (%s) | %zu thread, %s%s", " Core file %s: PID %d (%s) | %zu threads, %s%s", d->n_threads), s->path,
			    d->target.pid, ci->fname[0] ? ci->fname : "?", d->n_threads,
			    stack_view_summary(&s->sv, sum, sizeof(sum)), s->cv->core->truncated ? _(" | CUT SHORT") : "");
	stack_view_draw_python(&s->sv, y0, tx);
	int y = draw_header(s, y0 + 1);
	int left = rows - (y - y0);
	if (left <= 0)
		return;
	switch (s->tab) {
	case TAB_STACKS:
		stack_view_draw(&s->sv, y, left);
		break;
	case TAB_MAPS: {
		const struct pane_data *pd = s->snap->pane[PANE_ID_maps];
		pane_ctx_of(s, &c);
		if (pd && pd->err)
			draw_text(y, 1, -1, draw_attr(COL_ERROR) | A_BOLD, pd->e.msg);
		else if (pd && s->maps)
			pane_maps.draw(s->maps, &c, y, left);
		break;
	}
	case TAB_FILES:
		draw_files(s, y, left);
		break;
	}
}

/* While the core is read: Esc cancels, the loop has the other keys. */
static bool k_cancel(struct ui *ui, void *p, int ch)
{
	struct coreread *s = p;

	workers_cancel(ui->workers, s->job.id);
	return true;
}

static const struct ui_key reading_keys[] = {
	UI_KEY("Esc", k_cancel, NULL, N_("while the core is read: stop reading it"), 27),
	UI_KEYS_END,
};

/* Again: whatever file is there now (after a failure, or when the one
 * read was replaced). */
static bool k_retry(struct ui *ui, void *p, int ch)
{
	struct coreread *s = p;

	s->id.ino = 0;
	ui_job_leave(ui, &s->job);
	submit(s);
	return true;
}

static const struct ui_key failed_keys[] = {
	UI_KEY("r", k_retry, NULL, N_("read the core again after it failed, or after it was replaced"), 'r'),
	UI_KEYS_END,
};

/* Reading, or nothing read (only r, and the loop's keys), or read (r too
 * when the file was replaced since). */
static enum ui_key_result coreread_mode(struct ui *ui, void *p, int ch)
{
	struct coreread *s = p;

	if (reading(s))
		return ui_keys_dispatch(ui, reading_keys, s, ch) == UI_KEY_DONE ? UI_KEY_DONE : UI_KEY_LOOP;
	if ((s->job.failed || !s->cv || s->snap->note[0]) && ui_keys_dispatch(ui, failed_keys, s, ch) == UI_KEY_DONE)
		return UI_KEY_DONE;
	return s->cv ? UI_KEY_NEXT : UI_KEY_LOOP;
}

static bool k_tab(struct ui *ui, void *p, int ch)
{
	struct coreread *s = p;

	s->tab = ch - '1';
	return true;
}

static bool k_next_tab(struct ui *ui, void *p, int ch)
{
	struct coreread *s = p;

	s->tab = (s->tab + 1) % TAB_N;
	return true;
}

static bool k_prev_tab(struct ui *ui, void *p, int ch)
{
	struct coreread *s = p;

	s->tab = (s->tab + TAB_N - 1) % TAB_N;
	return true;
}

static bool on_stacks(const void *p)
{
	return ((const struct coreread *)p)->tab == TAB_STACKS;
}

static const struct ui_key coreread_keys[] = {
	UI_SECTION(N_("Keys")),
	{ .keys = N_("1 2 3, Tab, Shift-Tab"), .codes = { '1', '2', '3' }, .fn = k_tab, .label = N_("Tab"), .help = N_("the tabs: Stacks, Maps, Files"), .bar = "1-3" },
	UI_ALSO(k_next_tab, '\t'),
	UI_ALSO(k_prev_tab, KEY_BTAB),
	UI_USE_IF(stack_view_keys, struct coreread, sv, on_stacks),
	UI_HELP_OF(failed_keys),
	UI_HELP_OF(reading_keys),
	UI_LOOP_AS("q  F10", N_("Quit"), NULL, 'q', KEY_F(10)),
	UI_LOOP("F1 ?", KEY_F(1), '?'),
	UI_KEYS_END,
};

/* The tab's own keys: search, and the stack view's list, the maps pane
 * (its keys, then its list) or the files' text. */
static bool coreread_key(struct ui *ui, void *p, int ch)
{
	struct coreread *s = p;
	struct pane_ctx c;

	switch (s->tab) {
	case TAB_STACKS:
		return ui_search_key(ui, &s->search, ch, stack_view_find, &s->sv) || stack_view_key(&s->sv, ch);
	case TAB_MAPS:
		pane_ctx_of(s, &c);
		return ui_search_key(ui, &s->search, ch, s->maps ? pane_maps.search : NULL, s->maps) ||
		       (s->maps && pane_key(ui, &pane_maps, s->maps, &c, ch, draw_rows()));
	default:
		return ui_search_key(ui, &s->search, ch, textview_find, &s->files) || textview_key(&s->files, ch);
	}
}

static bool coreread_message(void *ctx, struct ring_msg *m)
{
	struct coreread *s = ctx;

	if ((m->kind == RING_SNAPSHOT || m->kind == RING_RESULT) && m->payload) {
		struct snap_proc *n = m->payload;
		const struct core_view *cv = snap_core_view(n->core);
		bool fresh = cv != s->cv;
		snap_put(s->snap ? &s->snap->h : NULL);
		s->snap = n;
		s->cv = cv;
		if (fresh && cv) {
			/* The stack view shows the snapshot's dump, never its own copy. */
			stack_view_borrow(&s->sv, cv->dump);
			s->sv.show_lines = true;
			struct pane_ctx c;
			pane_ctx_of(s, &c);
			if (n->pane[PANE_ID_maps] && !n->pane[PANE_ID_maps]->err && s->maps)
				pane_maps.take(s->maps, &c, n->pane[PANE_ID_maps]);
		}
		s->job.failed = false;
		return true;
	}
	ui_job_message(&s->job, m, s->cv != NULL, _("reading the core was cancelled"));
	return false;
}

/* After a draw: the snapshot was drawn (the source watches the file on). */
static void coreread_drawn(struct ui *ui, void *p, int y0, int rows)
{
	struct coreread *s = p;

	coreread_draw(ui, p, y0, rows);
	if (s->snap && source_ctl_drawn(s->ctl, s->snap->h.seq) && s->job.id)
		workers_wake(ui->workers, s->job.id);
}

static void coreread_destroy(void *p)
{
	struct coreread *s = p;

	ui_job_leave(s->ui, &s->job);
	source_ctl_put(s->ctl);
	stack_view_free(&s->sv);
	snap_put(s->snap ? &s->snap->h : NULL);
	if (s->maps)
		pane_maps.destroy(s->maps);
	textview_free(&s->files);
	free(s->exe);
	free(s);
}

const struct screen_ops screen_coreread_ops = {
	.name = N_("Core file"),
	.help = "coreread",
	.keys = coreread_keys,
	.fbar = "F1 1-3 Enter e l i q",
	.mode_key = coreread_mode,
	.draw = coreread_drawn,
	.key = coreread_key,
	.destroy = coreread_destroy,
};

void screen_coreread_open(struct ui *ui, const struct core_file_id *id, const char *exe)
{
	struct coreread *s = calloc(1, sizeof(*s));

	if (!s)
		return;
	s->ui = ui;
	s->id = *id;
	s->path = s->id.path;
	s->exe = exe ? strdup(exe) : NULL;
	s->maps = pane_maps.create();
	s->ctl = source_ctl_new();
	textview_init(&s->files, 1);
	if (s->ctl)
		submit(s);
	ui_push(ui, &screen_coreread_ops, s);
}
