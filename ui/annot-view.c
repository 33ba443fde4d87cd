/* The annotated lines of one function (annot-view.h): a pure view of the
 * snapshot (samp_view_annotate, the same figures as `pscope top
 * --annotate`), the function's file shown as its range of lines, and the
 * source text read by a job. */
#include "annot-view.h"
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"
#include "sym/sym.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <inttypes.h>
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RANGE_MAX 2000 /* source lines shown between sampled ones, at most */
#define TEXT_MAX 4096  /* bytes of a source line drawn */

static bool same_file(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* The rows: the main file's lines from the function's first line (or its
 * first sampled one) to its last sampled one, each sampled line with its
 * share and the others blank; then the sampled lines of other files
 * (inlined code) and the addresses without a source line. */
static int build_rows(struct annot_view *v)
{
	const struct samp_annot *a = &v->an;
	const struct samp_func *f = &v->snap->funcs[a->func];
	int lo = 0, hi = 0;
	unsigned n = 0;

	free(v->rows);
	v->rows = NULL;
	v->nrows = 0;
	v->main_file = NULL;
	for (unsigned i = 0; i < a->nlines; i++)
		if (same_file(a->lines[i].file, f->file))
			v->main_file = f->file;
	if (!v->main_file && a->nlines)
		v->main_file = a->lines[a->hot].file;
	for (unsigned i = 0; i < a->nlines; i++) {
		const struct samp_aline *l = &a->lines[i];
		if (!same_file(l->file, v->main_file))
			continue;
		if (!lo || l->line < lo)
			lo = l->line;
		if (l->line > hi)
			hi = l->line;
	}
	if (same_file(f->file, v->main_file) && f->line > 0 && f->line < lo && hi - f->line <= RANGE_MAX)
		lo = f->line;
	bool range = v->main_file && lo > 0 && hi - lo <= RANGE_MAX;
	v->rows = calloc((range ? (size_t)(hi - lo + 1) : 0) + a->nlines + 1, sizeof(*v->rows));
	if (!v->rows)
		return -ENOMEM;
	if (range) {
		unsigned i = 0;
		while (i < a->nlines && !same_file(a->lines[i].file, v->main_file))
			i++;
		for (int line = lo; line <= hi; line++) {
			bool any = false;
			for (; i < a->nlines && same_file(a->lines[i].file, v->main_file) && a->lines[i].line == line; i++) {
				v->rows[n++] = (struct annot_row){ (int)i, a->lines[i].file, line };
				any = true;
			}
			if (!any)
				v->rows[n++] = (struct annot_row){ -1, v->main_file, line };
		}
	}
	for (unsigned i = 0; i < a->nlines; i++)
		if (!range || !same_file(a->lines[i].file, v->main_file))
			v->rows[n++] = (struct annot_row){ (int)i, a->lines[i].file, a->lines[i].line };
	v->nrows = n;
	return 0;
}

static int row_of_aline(const struct annot_view *v, unsigned aline)
{
	for (unsigned r = 0; r < v->nrows; r++)
		if (v->rows[r].aline == (int)aline)
			return (int)r;
	return 0;
}

static bool text_message(void *ctx, struct ring_msg *m)
{
	struct annot_view *v = ctx;
	bool keep = false;

	if (m->kind == RING_RESULT && m->payload) {
		src_texts_free(v->src);
		v->src = m->payload;
		keep = true;
	}
	ui_job_message(&v->job, m, true, "");
	return keep;
}

/* Ask a worker for the text of the files of the lines, unless they were
 * asked for already. */
static void want_texts(struct annot_view *v)
{
	const char *files[SRC_TEXTS_MAX];
	unsigned n = 0;
	bool fresh = false;

	for (unsigned i = 0; i < v->an.nlines && n < SRC_TEXTS_MAX; i++) {
		const char *p = v->an.lines[i].file;
		bool dup = false;
		if (!p)
			continue;
		for (unsigned k = 0; k < n; k++)
			dup = dup || !strcmp(files[k], p);
		if (dup)
			continue;
		files[n++] = p;
		bool had = false;
		for (unsigned k = 0; k < v->nasked; k++)
			had = had || !strcmp(v->asked[k], p);
		fresh = fresh || !had;
	}
	if (!fresh || v->job.running)
		return;
	for (unsigned k = 0; k < v->nasked; k++)
		free(v->asked[k]);
	v->nasked = 0;
	for (unsigned k = 0; k < n; k++)
		if ((v->asked[v->nasked] = strdup(files[k])))
			v->nasked++;
	struct job_handler h = { text_message, v };
	ui_job_started(&v->job, src_texts_submit(v->ui->workers, &v->id, files, n, &h), "", _("out of memory"));
}

/* The lines again from s, the selection kept on its line (or, until the
 * user moves, on the hottest). */
/* Copy the selected row's file and line (while its snapshot lives). */
static void remember(struct annot_view *v)
{
	int sel = table_selected(&v->tab);

	v->sel_file[0] = 0;
	v->sel_line = 0;
	if (v->have && sel >= 0 && (unsigned)sel < v->nrows && v->rows[sel].file) {
		snprintf(v->sel_file, sizeof(v->sel_file), "%s", v->rows[sel].file);
		v->sel_line = v->rows[sel].line;
	}
}

static void compute(struct annot_view *v, const struct samp_snapshot *s, enum samp_window w)
{
	/* The rows point into the last snapshot, which may be freed by now:
	 * the selection is the copy remember() made. */
	const char *sel_file = v->sel_file[0] ? v->sel_file : NULL;
	int sel_line = v->sel_line;

	samp_annot_free(&v->an);
	v->have = false;
	v->snap = s;
	v->win = w;
	if (!s || samp_view_annotate(s, w, v->name, &v->an) < 0 || build_rows(v) < 0) {
		samp_annot_free(&v->an);
		free(v->rows);
		v->rows = NULL;
		v->nrows = 0;
		table_set_count(&v->tab, 0);
		return;
	}
	v->have = true;
	v->python = v->an.python;
	table_set_count(&v->tab, (int)v->nrows);
	int pos = row_of_aline(v, v->an.hot);
	if (v->tab.moved && sel_file)
		for (unsigned r = 0; r < v->nrows; r++)
			if (same_file(v->rows[r].file, sel_file) && v->rows[r].line == sel_line) {
				pos = (int)r;
				break;
			}
	table_select(&v->tab, pos);
	remember(v);
	want_texts(v);
}

bool annot_view_open(struct annot_view *v, struct ui *ui, const struct target_id *id, const struct samp_snapshot *s,
		     enum samp_window w, unsigned func)
{
	struct samp_annot probe;

	if (!s || func >= s->nfuncs)
		return false;
	const struct samp_func *f = &s->funcs[func];
	if (samp_view_annotate(s, SAMP_WIN_ALL, f->name, &probe) < 0) {
		ui_message(ui, true,
			   _("%s has no lines to annotate: only the process's own code sampled by perf (a native "
			     "view) and Python functions (the Python view) have them"),
			   f->name);
		return false;
	}
	samp_annot_free(&probe);
	annot_view_close(v);
	v->ui = ui;
	v->id = *id;
	snprintf(v->name, sizeof(v->name), "%s", f->name);
	snprintf(v->module, sizeof(v->module), "%s", samp_module_short(f->module));
	table_init(&v->tab, NULL, 0, 0, false);
	v->tab.hkeys = true;
	v->open = true;
	compute(v, s, w);
	return true;
}

void annot_view_update(struct annot_view *v, const struct samp_snapshot *s, enum samp_window w, pid_t tid)
{
	v->tid = tid;
	if (v->open && (s != v->snap || w != v->win))
		compute(v, s, w);
}

void annot_view_close(struct annot_view *v)
{
	if (v->ui)
		ui_job_leave(v->ui, &v->job);
	samp_annot_free(&v->an);
	free(v->rows);
	src_texts_free(v->src);
	for (unsigned k = 0; k < v->nasked; k++)
		free(v->asked[k]);
	table_free(&v->tab);
	memset(v, 0, sizeof(*v));
}

/* The text of line `line` of file, tabs as spaces (raw: draw_text
 * sanitizes it), or NULL: not read (yet), or past its end. */
static const char *text_of(const struct annot_view *v, const char *file, int line, char *buf, size_t size)
{
	size_t len;
	const char *t = NULL;

	if (!v->src || !file)
		return NULL;
	for (unsigned i = 0; i < v->src->n; i++)
		if (!strcmp(v->src->path[i], file) && v->src->f[i])
			t = sym_src_line(v->src->f[i], line, &len);
	if (!t)
		return NULL;
	return untab(buf, size, t, len);
}

/* Why the text of file is not shown ("" when it is, or still coming). */
static const char *text_why(const struct annot_view *v, const char *file)
{
	if (!v->src || !file)
		return "";
	for (unsigned i = 0; i < v->src->n; i++)
		if (!strcmp(v->src->path[i], file))
			return v->src->f[i] ? "" : v->src->err[i] == -EFBIG ? _("over the size cap") : strerror(-v->src->err[i]);
	return "";
}

static const char *where(const struct annot_view *v, const struct annot_row *r, char *buf, size_t size)
{
	const struct samp_aline *l = r->aline >= 0 ? &v->an.lines[r->aline] : NULL;

	if (l && !l->file)
		snprintf(buf, size, "[0x%" PRIx64 "-0x%" PRIx64 "]", l->lo, l->hi);
	else
		snprintf(buf, size, "%s:%d", samp_module_short(r->file), r->line);
	return buf;
}

void annot_view_draw(struct annot_view *v, int y0, int rows)
{
	char buf[TEXT_MAX + 16], loc[300];
	int cols = draw_cols();

	if (rows < 3)
		return;
	draw_blank(y0, 0, -1, draw_attr(COL_NORMAL));
	if (!v->have) {
		draw_textf(y0, 0, -1, draw_attr(COL_NORMAL) | A_BOLD, _(" Annotate %s (%s)"), v->name, v->module);
		draw_text(y0 + 2, 1, -1, draw_attr(COL_DIM),
			  v->win == SAMP_WIN_ALL ? _("no samples in its code any more (its code changed)")
						 : _("no samples in its code in this window (w: a longer one)"));
		return;
	}
	const struct samp_aline *hot = &v->an.lines[v->an.hot];
	where(v, &(struct annot_row){ (int)v->an.hot, hot->file, hot->line }, loc, sizeof(loc));
	char win[64];
	if (v->win == SAMP_WIN_ALL)
		snprintf(win, sizeof(win), "%s", _("since sampling started"));
	else
		snprintf(win, sizeof(win), _("in the last %s"), samp_window_name(v->win));
	draw_textf(y0, 0, -1, draw_attr(COL_NORMAL) | A_BOLD,
		   P_(" Annotate %s (%s): %llu sample in its own code %s; hottest %s (%.1f%%)",
		      " Annotate %s (%s): %llu samples in its own code %s; hottest %s (%.1f%%)", v->an.samples),
		   v->name, v->module, v->an.samples, win, loc, hot->pct);
	const char *why = text_why(v, v->main_file);
	if (v->tid)
		draw_textf(y0 + 1, 0, -1, draw_attr(COL_WARN),
			   _(" every thread's samples, not only thread %d's: the lines are not kept per thread (T: all "
			     "threads)"),
			   (int)v->tid);
	else if (v->snap->pcs_dropped)
		draw_textf(y0 + 1, 0, -1, draw_attr(COL_WARN),
			   P_(" %llu sample at an address past the histogram's %u not counted", " %llu samples at addresses past the histogram's %u not counted", v->snap->pcs_dropped), v->snap->pcs_dropped,
			   SAMP_PCS_MAX);
	else if (why[0])
		draw_textf(y0 + 1, 0, -1, draw_attr(COL_WARN), _(" the source %s cannot be read: %s"), v->main_file, why);
	else
		draw_text(y0 + 1, 0, -1, draw_attr(COL_DIM),
			  v->python ? _(" Python: the lines of the sampled frames. Tab / Shift-Tab: next / previous "
					"sampled line; Esc: back")
				    : _(" Tab / Shift-Tab: next / previous sampled line; Left/Right: scroll; Esc: back"));

	int lw = 4;
	for (unsigned r = 0; r < v->nrows; r++) {
		int w = draw_width(where(v, &v->rows[r], loc, sizeof(loc)));
		lw = w > lw ? w : lw;
	}
	lw = lw > 28 ? 28 : lw;
	int fixed = 2 + 6 + 1 + 8 + 2, src_x = fixed + lw + 1;
	char pa[32], pb[32], pc[64];
	draw_blank(y0 + 2, 0, -1, draw_attr(COL_HEADER));
	draw_textf(y0 + 2, 0, -1, draw_attr(COL_HEADER), "  %s %s  %s %s", draw_pad(pa, sizeof(pa), _("SHARE%"), 6, true),
		   draw_pad(pb, sizeof(pb), _("SAMPLES"), 8, true), draw_pad(pc, sizeof(pc), _("LINE"), lw, false),
		   _("SOURCE"));
	table_set_count(&v->tab, (int)v->nrows);
	int body = table_layout(&v->tab, y0 + 2, rows - 2, true);
	int widest = 0;
	for (int i = 0; i < body && v->tab.top + i < (int)v->nrows; i++) {
		const struct annot_row *r = &v->rows[v->tab.top + i];
		const char *t = text_of(v, r->file, r->line, buf, sizeof(buf));
		int w = t ? draw_width(t) : 0;
		widest = w > widest ? w : widest;
	}
	table_hscroll_fit(&v->tab.hscroll, widest, cols - src_x);
	for (int i = 0; i < body && v->tab.top + i < (int)v->nrows; i++) {
		int pos = v->tab.top + i, y = y0 + 3 + i;
		const struct annot_row *r = &v->rows[pos];
		const struct samp_aline *l = r->aline >= 0 ? &v->an.lines[r->aline] : NULL;
		bool is_hot = r->aline == (int)v->an.hot;
		int attr = pos == v->tab.sel ? draw_attr(COL_SELECT)
			   : is_hot	     ? draw_attr(COL_WARN) | (int)A_BOLD
			   : l		     ? draw_attr(COL_NORMAL)
					     : draw_attr(COL_DIM);

		draw_blank(y, 0, -1, attr);
		if (l)
			draw_textf(y, 0, fixed, attr, "%c %6.2f %8llu  ", is_hot ? '>' : ' ', l->pct, l->samples);
		draw_text(y, fixed, lw, attr, where(v, r, loc, sizeof(loc)));
		const char *t = text_of(v, r->file, r->line, buf, sizeof(buf));
		int x = src_x;
		if (t)
			x += draw_text_skip(y, src_x, -1, attr, t, v->tab.hscroll);
		if (l && l->inlined)
			draw_textf(y, x, -1, attr, _("  [inlined: %s]"), l->inlined);
		else if (l && !l->file)
			draw_text(y, x, -1, attr, _("(no source line)"));
	}
}

/* Tab / Shift-Tab: the next / previous sampled line, wrapping. */
static void jump(struct annot_view *v, int dir)
{
	int n = (int)v->nrows, at = table_selected(&v->tab);

	if (n <= 0)
		return;
	for (int k = 1; k <= n; k++) {
		int p = ((at + dir * k) % n + n) % n;
		if (v->rows[p].aline >= 0) {
			table_select(&v->tab, p);
			v->tab.moved = true;
			remember(v);
			return;
		}
	}
}

static bool k_next(struct ui *ui, void *st, int ch)
{
	jump(st, +1);
	return true;
}

static bool k_prev(struct ui *ui, void *st, int ch)
{
	jump(st, -1);
	return true;
}

static bool k_hottest(struct ui *ui, void *st, int ch)
{
	struct annot_view *v = st;

	table_select(&v->tab, row_of_aline(v, v->an.hot));
	v->tab.moved = true;
	remember(v);
	return true;
}

static bool k_close(struct ui *ui, void *st, int ch)
{
	annot_view_close(st);
	return true;
}

const struct ui_key annot_view_keys[] = {
	UI_SECTION(N_("Annotated lines (a)")),
	UI_KEY("Tab, Shift-Tab", k_next, N_("NextHot"), N_("the next / previous sampled line"), '\t', ']'),
	UI_ALSO(k_prev, KEY_BTAB, '['),
	UI_KEY("*", k_hottest, NULL, N_("back to the hottest line"), '*'),
	UI_KEY("Up/Down, PgUp/PgDn", NULL, NULL, N_("move through the lines; Left/Right scroll long ones")),
	UI_KEY("Esc, Backspace", k_close, NULL, N_("the table of functions again"), 27, KEY_BACKSPACE, 127, 8),
	UI_KEYS_END,
};

enum ui_key_result annot_view_key(struct ui *ui, struct annot_view *v, int ch)
{
	if (!v->open)
		return UI_KEY_NEXT;
	enum ui_key_result r = ui_keys_dispatch(ui, annot_view_keys, v, ch);
	if (r != UI_KEY_NEXT || !v->open)
		return r;
	if (!table_key(&v->tab, ch, NULL, NULL))
		return UI_KEY_NEXT;
	remember(v);
	return UI_KEY_DONE;
}
