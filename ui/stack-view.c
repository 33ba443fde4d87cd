/* The body of a stack dump (stack-view.h). */
#include "stack-view.h"
#include "stack-rows.h"
#include "keys.h"
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"
#include "stack/stack.h"
#include "core/read.h"
#include "python/python.h"
#include "golang/golang.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- layout: one row per line of the body ---- */



static int layout(struct stack_view *s, struct row *rows, int max)
{
	const struct stk_dump *d = s->d;
	int n = 0;
#define ADD(k, g, x, y)                                                        \
	do {                                                                   \
		if (rows && n < max)                                           \
			rows[n] = (struct row){ (k), (g), (x), (y) };          \
		n++;                                                           \
	} while (0)

	if (d->py_error[0]) {
		ADD(ROW_PYERR, -1, 0, 0);
		ADD(ROW_BLANK, -1, 0, 0);
	}
	if (d->n_jvm_monitor) {
		ADD(ROW_JVM, -1, 0, 0);
		ADD(ROW_BLANK, -1, 0, 0);
	}
	for (size_t c = 0; c < d->n_cycles; c++) {
		ADD(ROW_CYCLE, -1, c, 0);
		for (size_t e = 0; e < d->cycles[c].n; e++) {
			/* The holder on a line of its own: what a narrow
			 * terminal must not cut. */
			ADD(ROW_EDGE, -1, c, e);
			ADD(ROW_HELD, -1, c, e);
		}
		ADD(ROW_BLANK, -1, 0, 0);
	}
	for (size_t g = 0; g < d->n_groups; g++) {
		const struct stk_group *gr = &d->groups[g];
		ADD(ROW_GROUP, (int)g, gr->members[0], 0);
		if (!s->open || !s->open[g])
			continue;
		/* The frames first, then the threads: a count that expands. */
		const struct stk_thread *t = &d->threads[gr->members[0]];
		size_t no = 0; /* frames numbered as shown */
		for (size_t f = 0; f < t->n_frames; f++) {
			const struct sym_info *sym = t->frames[f].sym;
			/* Where the unwinding leaves the CFI for frame pointers. */
			if (t->frames[f].by_fp && f > 0 && !t->frames[f - 1].by_fp)
				ADD(ROW_CFI, (int)g, f, 0);
			if (!stk_frame_shown(t, &t->frames[f], (enum stk_view)s->view))
				continue;
			if (s->inlines && sym)
				for (size_t i = 0; i < sym->n_inl; i++)
					ADD(ROW_INLINE, (int)g, f, i);
			ADD(ROW_FRAME, (int)g, f, no++);
		}
		/* Why the stack ends where it does, when not at its start. */
		if (!t->skipped && (t->unwind_end || t->truncated))
			ADD(ROW_END, (int)g, gr->members[0], 0);
		if (gr->n > 1)
			ADD(ROW_TIDS, (int)g, gr->members[0], 0);
		if (gr->n == 1 || (s->tids_open && s->tids_open[g]))
			for (size_t k = 0; k < gr->n; k++)
				ADD(ROW_THREAD, (int)g, gr->members[k], 0);
	}
	if (s->goroutines && (d->go || d->go_error[0])) {
		ADD(ROW_BLANK, -1, 0, 0);
		ADD(ROW_GOHEAD, -1, 0, 0);
		for (size_t g = 0; d->go && g < d->n_go_groups; g++) {
			const struct go_g *gg = &d->go->g[d->go_groups[g].first];
			ADD(ROW_GOGROUP, -1, g, 0);
			for (size_t k = 0; k < gg->n; k++)
				ADD(ROW_GOFRAME, -1, g, k);
		}
	}
#undef ADD
	return n;
}

static void draw_row(struct stack_view *s, const struct row *r, int y, bool selected)
{
	const struct stk_dump *d = s->d;
	int base = selected ? draw_attr(COL_SELECT) : draw_attr(COL_NORMAL);
	char chain[1024], msg[1024];

	draw_blank(y, 0, -1, base);
	switch (r->kind) {
	case ROW_PYERR:
		draw_text(y, 0, -1, selected ? base : draw_attr(COL_WARN), d->py_error);
		break;
	case ROW_JVM:
		/* What HotSpot's frames say; jcmd names the monitors (a core: none to ask). */
		if (s->borrowed)
			draw_textf(y, 0, -1, selected ? base : draw_attr(COL_WARN),
				   P_("Java: %zu thread waits to enter a monitor (synchronized); its monitor and owner are not read",
				      "Java: %zu threads wait to enter a monitor (synchronized); their monitors and owners are not read",
				      d->n_jvm_monitor), d->n_jvm_monitor);
		else
			draw_textf(y, 0, -1, selected ? base : draw_attr(COL_WARN),
				   P_("Java: %zu thread waits to enter a monitor (synchronized): jcmd %d Thread.print names it and its owner",
				      "Java: %zu threads wait to enter a monitor (synchronized): jcmd %d Thread.print names them and their owners",
				      d->n_jvm_monitor), d->n_jvm_monitor, (int)d->target.pid);
		break;
	case ROW_CYCLE:
		stack_cycle_msg(d, r, false, msg, sizeof(msg));
		draw_text(y, 0, -1, selected ? base : (int)(draw_attr(COL_ERROR) | A_BOLD), msg);
		break;
	case ROW_EDGE: case ROW_HELD:
		stack_edge_msg(d, r, false, msg, sizeof(msg));
		draw_text(y, r->kind == ROW_HELD ? 4 : 2, -1, selected ? base : draw_attr(COL_ERROR), msg);
		break;
	case ROW_BLANK:
		break;
	case ROW_CFI: case ROW_END:
		stack_stop_msg(d, r, false, msg, sizeof(msg));
		draw_text(y, 6, -1, selected ? base : draw_attr(COL_WARN), msg);
		break;
	case ROW_GOHEAD:
		stack_go_head_msg(d, false, msg, sizeof(msg));
		draw_text(y, 0, -1, selected ? base : (int)(draw_attr(COL_TITLE) | A_BOLD), msg);
		break;
	case ROW_GOGROUP:
		stack_go_group_msg(d, r, false, msg, sizeof(msg));
		draw_text(y, 0, -1, base | A_BOLD, msg);
		break;
	case ROW_GOFRAME: {
		const struct go_g *g = &d->go->g[d->go_groups[r->a].first];
		const struct sym_info *sym = g->sym[r->b];
		int x = draw_textf(y, 6, -1, base, "#%-3zu 0x%012llx ", r->b, (unsigned long long)g->pcs[r->b]) + 6;
		if (sym && !(sym->flags & (SYM_F_STRIPPED | SYM_F_UNKNOWN | SYM_F_ANON)))
			x += draw_textf(y, x, -1, base | A_BOLD, "%s+0x%llx", sym->function, (unsigned long long)sym->offset);
		else
			x += draw_text(y, x, -1, base, sym ? sym->function : "??");
		if (s->show_lines && sym && sym->file)
			draw_textf(y, x, -1, selected ? base : draw_attr(COL_DIM), "  %s:%d", sym->file, sym->line);
		break;
	}
	case ROW_GROUP: {
		const struct stk_group *g = &d->groups[r->group];
		const struct stk_thread *t = &d->threads[r->a];
		int x = draw_text(y, 0, -1, base | A_BOLD, s->open && s->open[r->group] ? "[-] " : "[+] ");
		if (t->skipped) {
			draw_textf(y, x, -1, selected ? base : draw_attr(COL_WARN), _("TID %d \"%s\": not stopped: %s"),
				   (int)t->tid, t->name, t->skipped);
			break;
		}
		stk_chain(t, chain, sizeof(chain));
		if (g->n > 1)
			x += draw_textf(y, x, -1, base | A_BOLD, P_("%zu thread: ", "%zu threads: ", g->n), g->n);
		else if (t->nstid)
			x += draw_textf(y, x, -1, base | A_BOLD, _("TID %d (%d in its pid namespace) \"%s\": "), (int)t->tid,
					(int)t->nstid, t->name);
		else
			x += draw_textf(y, x, -1, base | A_BOLD, "TID %d \"%s\": ", (int)t->tid, t->name);
		stack_group_behind_msg(d, r, false, msg, sizeof(msg));
		if (msg[0])
			x += draw_text(y, x, -1, selected ? base : (int)(draw_attr(COL_ERROR) | A_BOLD), msg);
		draw_text(y, x, -1, base, chain);
		break;
	}
	case ROW_TIDS: {
		const struct stk_group *g = &d->groups[r->group];
		bool open = s->tids_open && s->tids_open[r->group];
		draw_textf(y, 4, -1, selected ? base : draw_attr(COL_GOOD), P_("%s %zu thread with this stack (Enter: %s it)", "%s %zu threads with this stack (Enter: %s them)", g->n),
			   open ? "[-]" : "[+]", g->n, open ? _("hide") : _("list"));
		break;
	}
	case ROW_THREAD: {
		const struct stk_thread *t = &d->threads[r->a];
		char name[96];
		int x = 4 + draw_textf(y, 4, -1, selected ? base : draw_attr(COL_GOOD), _("TID %-7d %s %c  %-16s wchan %s"),
				       (int)t->tid, draw_pad(name, sizeof(name), t->name, 16, false),
				       t->state ? t->state : '?', t->syscall,
				       t->wchan[0] ? t->wchan : "-");
		if (t->python_name)
			x += draw_textf(y, x, -1, selected ? base : (int)(draw_attr(COL_GOOD) | A_BOLD), "  [%s]", t->python_name);
		if (t->gil)
			x += draw_text(y, x, -1, (selected ? base : draw_attr(COL_WARN)) | A_BOLD, _("  GIL"));
		if (t->idle)
			x += draw_textf(y, x, -1, selected ? base : draw_attr(COL_DIM), _("  idle: %s"), t->idle);
		if (t->jvm_wait)
			x += draw_textf(y, x, -1, selected ? base : draw_attr(COL_WARN), _("  Java: %s"), _(t->jvm_wait));
		if (t->signal) {
			const char *sn = core_signal_name(t->signal);
			x += draw_textf(y, x, -1, selected ? base : (int)(draw_attr(COL_ERROR) | A_BOLD), _("  received %s"),
					sn ? sn : _("a signal"));
		}
		stack_thread_behind_msg(t, false, msg, sizeof(msg));
		if (msg[0])
			draw_text(y, x, -1, selected ? base : (int)(draw_attr(COL_ERROR) | A_BOLD), msg);
		break;
	}
	case ROW_FRAME:
	case ROW_INLINE: {
		const struct stk_thread *t = &d->threads[d->groups[r->group].members[0]];
		const struct stk_frame *f = &t->frames[r->a];
		const struct sym_info *sym = f->sym;
		const char *mod = sym && sym->module ? sym->module : "?";
		if (f->py) {
			/* A Python frame: qualname and file:line, as py-spy shows it. */
			int px = draw_textf(y, 6, -1, base, "#%-3zu %-14s ", r->b, "py") + 6;
			px += draw_text(y, px, -1, base | A_BOLD, f->py->qualname);
			draw_textf(y, px, -1, selected ? base : draw_attr(COL_DIM), "  (%s:%d)", f->py->file, f->line);
			break;
		}
		/* numbered once: an inlined call shares its frame's number, shown on the frame */
		int x = r->kind == ROW_INLINE ? draw_textf(y, 6, -1, base, "     0x%012llx ", (unsigned long long)f->pc) + 6
					      : draw_textf(y, 6, -1, base, "#%-3zu 0x%012llx ", r->b, (unsigned long long)f->pc) + 6;
		const char *file = NULL;
		int line = 0;
		if (r->kind == ROW_INLINE) {
			const struct sym_inline *in = &sym->inl[r->b];
			x += draw_textf(y, x, -1, base | A_BOLD, "%s", in->function ? in->function : "??");
			x += draw_text(y, x, -1, selected ? base : draw_attr(COL_DIM), _(" (inlined)"));
			file = in->file;
			line = in->line;
		} else {
			if (sym && !(sym->flags & (SYM_F_STRIPPED | SYM_F_UNKNOWN | SYM_F_ANON)))
				x += draw_textf(y, x, -1, base | A_BOLD, "%s+0x%llx", sym->function,
						(unsigned long long)sym->offset);
			else
				x += draw_text(y, x, -1, base, sym ? sym->function : "??");
			/* The line in the named function, as gdb shows it. */
			file = sym ? sym->file : NULL;
			line = sym ? sym->line : 0;
		}
		x += draw_textf(y, x, -1, selected ? base : draw_attr(COL_DIM), "  (%s)%s", mod, f->by_fp ? " fp" : "");
		if (s->show_lines && file)
			draw_textf(y, x, -1, selected ? base : draw_attr(COL_DIM), "  %s:%d", file, line);
		break;
	}
	}
}

static void toggle_at_sel(struct stack_view *s, int mode /* 0 toggle, 1 open, -1 close */)
{
	int n = layout(s, NULL, 0);
	struct row *rv = calloc((size_t)n + 1, sizeof(*rv));
	if (!rv)
		return;
	layout(s, rv, n);
	int sel = s->tab.sel;
	if (s->tids_open && sel >= 0 && sel < n && rv[sel].kind == ROW_TIDS) {
		int g = rv[sel].group;
		s->tids_open[g] = mode == 0 ? !s->tids_open[g] : mode > 0;
	} else if (s->open && sel >= 0 && sel < n && rv[sel].group >= 0) {
		int g = rv[sel].group;
		s->open[g] = mode == 0 ? !s->open[g] : mode > 0;
		/* Keep the cursor on the group's header. */
		for (int i = 0; i < n; i++)
			if (rv[i].kind == ROW_GROUP && rv[i].group == g)
				table_select(&s->tab, i);
	}
	free(rv);
}

void stack_view_set(struct stack_view *s, struct stk_dump *d)
{
	if (!s->borrowed)
		stk_dump_free(s->d);
	free(s->open);
	free(s->tids_open);
	s->d = d;
	s->borrowed = false;
	s->open = calloc(d->n_groups + 1, sizeof(bool));
	s->tids_open = calloc(d->n_groups + 1, sizeof(bool));
	/* A few groups: show them all open; many: let the user pick. */
	for (size_t g = 0; s->open && g < d->n_groups; g++)
		s->open[g] = d->n_groups <= 4;
	table_init(&s->tab, NULL, 0, 0, false);
	s->tab.hkeys = true;
}

void stack_view_draw(struct stack_view *s, int y0, int rows)
{
	int n = layout(s, NULL, 0);
	struct row *rv = calloc((size_t)n + 1, sizeof(*rv));
	if (!rv)
		return;
	layout(s, rv, n);
	table_set_count(&s->tab, n);
	int body = table_layout(&s->tab, y0, rows, false);
	/* Right stops where the longest line on screen ends. */
	if (s->tab.hscroll > 0) {
		draw_measure_begin();
		for (int i = 0; i < body && s->tab.top + i < n; i++)
			draw_row(s, &rv[s->tab.top + i], y0 + i, s->tab.top + i == s->tab.sel);
		table_hscroll_fit(&s->tab.hscroll, draw_measure_end(), draw_cols());
	}
	int old = draw_hshift(s->tab.hscroll);
	for (int i = 0; i < body && s->tab.top + i < n; i++)
		draw_row(s, &rv[s->tab.top + i], y0 + i, s->tab.top + i == s->tab.sel);
	draw_hshift(old);
	free(rv);
}

int stack_view_draw_python(const struct stack_view *s, int y, int x)
{
	static const char *const views[] = { N_("mixed"), N_("Python"), N_("native") };
	const struct stk_dump *d = s->d;

	if (!d || !d->py_version[0] || d->py_error[0])
		return 0;
	return draw_textf(y, x, -1, draw_attr(COL_TITLE), _(" | CPython %s, %s view (v)"), d->py_version,
			  _(views[s->view % 3]));
}

const char *stack_view_summary(const struct stack_view *s, char *buf, size_t size)
{
	const struct stk_dump *d = s->d;
	size_t frames = 0;
	char g[64], f[64];

	for (size_t i = 0; i < d->n_groups; i++) {
		const struct stk_thread *t = &d->threads[d->groups[i].members[0]];
		for (size_t k = 0; k < t->n_frames; k++)
			frames += stk_frame_shown(t, &t->frames[k], (enum stk_view)s->view);
	}
	snprintf(g, sizeof(g), P_("%zu group", "%zu groups", d->n_groups), d->n_groups);
	snprintf(f, sizeof(f), P_("%zu frame", "%zu frames", frames), frames);
	snprintf(buf, size, "%s, %s%s%s", g, f, s->show_lines ? _(" | file:line") : "", s->inlines ? _(" | inlines") : "");
	return buf;
}

/* What a row says, for '/': names, TIDs, modules, files, the chain. */
static void row_text(const struct stack_view *s, const struct row *r, char *buf, size_t size)
{
	const struct stk_dump *d = s->d;
	char tr[1024], en[1024];

	buf[0] = '\0';
	switch (r->kind) {
	case ROW_PYERR: snprintf(buf, size, "%s", d->py_error); break;
	case ROW_JVM: snprintf(buf, size, "Java monitor synchronized jcmd Thread.print"); break;
	/* The deadlock's rows: what is drawn, and its English. */
	case ROW_CYCLE:
		stack_cycle_msg(d, r, false, tr, sizeof(tr));
		stack_cycle_msg(d, r, true, en, sizeof(en));
		snprintf(buf, size, "%s\n%s", tr, en);
		break;
	case ROW_EDGE: case ROW_HELD:
		stack_edge_msg(d, r, false, tr, sizeof(tr));
		stack_edge_msg(d, r, true, en, sizeof(en));
		snprintf(buf, size, "%s\n%s", tr, en);
		break;
	case ROW_GOHEAD:
		stack_go_head_msg(d, false, tr, sizeof(tr));
		stack_go_head_msg(d, true, en, sizeof(en));
		snprintf(buf, size, "%s\n%s", tr, en);
		break;
	case ROW_GOGROUP:
		stack_go_group_msg(d, r, false, tr, sizeof(tr));
		stack_go_group_msg(d, r, true, en, sizeof(en));
		snprintf(buf, size, "%s\n%s", tr, en);
		break;
	case ROW_CFI: case ROW_END:
		stack_stop_msg(d, r, false, tr, sizeof(tr));
		stack_stop_msg(d, r, true, en, sizeof(en));
		snprintf(buf, size, "%s\n%s", tr, en);
		break;
	case ROW_GROUP: {
		const struct stk_thread *t = &d->threads[r->a];
		char chain[1024];
		stk_chain(t, chain, sizeof(chain));
		stack_group_behind_msg(d, r, false, tr, sizeof(tr));
		stack_group_behind_msg(d, r, true, en, sizeof(en));
		snprintf(buf, size, "TID %d %s %s\n%s\n%s", (int)t->tid, t->name, chain, tr, en);
		break;
	}
	case ROW_THREAD: {
		const struct stk_thread *t = &d->threads[r->a];
		stack_thread_behind_msg(t, false, tr, sizeof(tr));
		stack_thread_behind_msg(t, true, en, sizeof(en));
		snprintf(buf, size, "TID %d %s %s %s %s\n%s\n%s", (int)t->tid, t->name, t->syscall, t->wchan,
			 t->python_name ? t->python_name : "", tr, en);
		break;
	}
	case ROW_FRAME: case ROW_INLINE: {
		const struct stk_thread *t = &d->threads[d->groups[r->group].members[0]];
		const struct stk_frame *f = &t->frames[r->a];
		const struct sym_info *sym = f->sym;
		if (f->py)
			snprintf(buf, size, "%s %s", f->py->qualname, f->py->file);
		else if (r->kind == ROW_INLINE)
			snprintf(buf, size, "%s %s", sym->inl[r->b].function ? sym->inl[r->b].function : "??",
				 sym->inl[r->b].file ? sym->inl[r->b].file : "");
		else
			snprintf(buf, size, "0x%llx %s %s %s", (unsigned long long)f->pc, sym ? sym->function : "??",
				 sym && sym->module ? sym->module : "", sym && sym->file ? sym->file : "");
		break;
	}
	default: break;
	}
}

struct find_ctx {
	const struct stack_view *s;
	const struct row *rv;
};

static bool row_matches(void *st, int row, const char *text)
{
	const struct find_ctx *c = st;
	char buf[2048];
	row_text(c->s, &c->rv[row], buf, sizeof(buf));
	return strcasestr(buf, text) != NULL;
}

bool stack_view_find(void *st, const char *text, int dir, bool again)
{
	struct stack_view *s = st;
	if (!s->d)
		return false;
	int n = layout(s, NULL, 0);
	struct row *rv = calloc((size_t)n + 1, sizeof(*rv));
	if (!rv)
		return false;
	layout(s, rv, n);
	table_set_count(&s->tab, n);
	struct find_ctx c = { s, rv };
	bool r = table_search(&s->tab, s->tab.sel + (again ? dir : 0), dir, text, &c, row_matches);
	free(rv);
	return r;
}

static bool k_toggle(struct ui *ui, void *st, int ch)
{
	struct stack_view *s = st;

	if (s->d)
		toggle_at_sel(s, 0);
	return true;
}

static bool k_expand(struct ui *ui, void *st, int ch)
{
	struct stack_view *s = st;

	if (s->d)
		toggle_at_sel(s, 1);
	return true;
}

static bool k_collapse(struct ui *ui, void *st, int ch)
{
	struct stack_view *s = st;

	if (s->d)
		toggle_at_sel(s, -1);
	return true;
}

/* e, *: expand every group, or collapse them all when all are open. */
static bool k_all(struct ui *ui, void *st, int ch)
{
	struct stack_view *s = st;
	bool any_closed = false;

	if (!s->d || !s->open)
		return true;
	for (size_t g = 0; g < s->d->n_groups; g++)
		any_closed |= !s->open[g];
	for (size_t g = 0; g < s->d->n_groups; g++)
		s->open[g] = any_closed;
	return true;
}

static bool k_lines(struct ui *ui, void *st, int ch)
{
	struct stack_view *s = st;

	s->show_lines = !s->show_lines;
	return true;
}

static bool k_inlines(struct ui *ui, void *st, int ch)
{
	struct stack_view *s = st;

	s->inlines = !s->inlines;
	return true;
}

static bool k_view(struct ui *ui, void *st, int ch)
{
	struct stack_view *s = st;
	static const char *const said[] = {
		N_("mixed view: each Python frame in place of the interpreter's C frames that run it; v: Python only"),
		N_("Python view: Python frames only; v: native only"),
		N_("native view: C frames only, as gdb shows them; v: mixed"),
	};

	if (!s->d || !s->d->py_version[0] || s->d->py_error[0]) {
		ui_message(ui, false, "%s", _("v changes the view of a CPython process only: this one has native frames only"));
		return true;
	}
	s->view = (s->view + 1) % 3;
	ui_message(ui, false, "%s", _(said[s->view % 3]));
	return true;
}

const struct ui_key stack_view_keys[] = {
	UI_KEY("Up/Down j/k", NULL, NULL, N_("move")),
	UI_KEY("PgUp/PgDn", NULL, NULL, N_("page")),
	UI_KEY("Home/End", NULL, NULL, N_("first/last line")),
	UI_KEY("Enter", k_toggle, N_("Open"),
	  N_("expand or collapse the group under the cursor; on a group's \"[+] N threads\" line, list "
	     "its threads or hide them"), '\n', '\r', KEY_ENTER),
	UI_KEY("+  -", k_expand, NULL, N_("expand / collapse (Right no longer expands: it scrolls)"), '+'),
	UI_ALSO(k_collapse, '-'),
	UI_KEY("Left/Right", NULL, NULL, N_("scroll the long lines sideways")),
	UI_KEY("/  n  N", NULL, NULL,
	  N_("search the lines shown (names, TIDs, modules, files, a closed group's chain); n / N the "
	     "next / previous match")),
	UI_KEY("e  *", k_all, N_("All"), N_("expand all groups, or collapse them all"), 'e', '*'),
	UI_KEY("l", k_lines, N_("Lines"), N_("show/hide file:line of each frame (needs debug info)"), 'l'),
	UI_KEY("i", k_inlines, N_("Inl"), N_("show/hide inlined calls as frames of their own"), 'i'),
	UI_KEY("v", k_view, N_("View"), N_("CPython: mixed, Python-only or native-only frames"), 'v'),
	UI_KEYS_END,
};

bool stack_view_key(struct stack_view *s, int ch)
{
	return table_key(&s->tab, ch, NULL, NULL) != TABLE_KEY_NONE;
}

void stack_view_borrow(struct stack_view *s, struct stk_dump *d)
{
	stack_view_set(s, d);
	s->borrowed = true;
}

void stack_view_free(struct stack_view *s)
{
	if (!s->borrowed)
		stk_dump_free(s->d);
	free(s->open);
	free(s->tids_open);
	table_free(&s->tab);
	s->d = NULL;
	s->open = NULL;
	s->tids_open = NULL;
}
