/* Hot processes: every process on every CPU, sampled like perf top. Two
 * tables over the sampler's newest snapshot: the processes (or the command
 * names) by share of samples, and the functions with their process. Enter
 * on a process opens its own hot view; on a function, its callers and
 * callees. The sampler job (pid 0: machine-wide) publishes the snapshots. */
#include "uipriv.h"
#include "draw.h"
#include "flame-view.h"
#include "hot-rel.h"
#include "job.h"
#include "table.h"
#include "doors/doors.h"
#include "i18n.h"
#include "out/folded.h"
#include "sample/sample.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { P_SHARE, P_SAMPLES, P_SAMPLED, P_PROC, P_PID, P_COMM, P_NCOLS };
static const struct table_col mach_proc_cols[P_NCOLS] = {
	[P_SHARE] = { "SHARE%", 6, true },   [P_SAMPLES] = { "SAMPLES", 8, true },
	[P_SAMPLED] = { "SAMPLED", 8, true }, [P_PROC] = { "/PROC", 8, true },
	[P_PID] = { "PID", 8, true },         [P_COMM] = { "COMMAND", 0, false },
};
enum { C_SHARE, C_SAMPLES, C_PROCS, C_COMM, C_NCOLS };
static const struct table_col mach_comm_cols[C_NCOLS] = {
	[C_SHARE] = { "SHARE%", 6, true }, [C_SAMPLES] = { "SAMPLES", 8, true },
	[C_PROCS] = { "PROCS", 6, true },  [C_COMM] = { "COMMAND", 0, false },
};
enum { F_SELF, F_TOTAL, F_SAMPLES, F_NAME, F_MODULE, F_PROC, F_NCOLS };
static const struct table_col mach_func_cols[F_NCOLS] = {
	[F_SELF] = { "SELF%", 6, true },    [F_TOTAL] = { "TOTAL%", 6, true }, [F_SAMPLES] = { "SAMPLES", 8, true },
	[F_NAME] = { "FUNCTION", 36, false }, [F_MODULE] = { "MODULE", 18, false }, [F_PROC] = { "PROCESS", 0, false },
};

struct mach_state {
	struct ui *ui;
	struct ui_samp_job samp;   /* the sampler job, its snapshots */
	bool funcs, by_comm;
	struct samp_pview pv;
	struct samp_view fv;
	unsigned *ftop, *fnprocs;  /* per function row: its process, how many */
	struct table ptab, ftab;
	struct table_col ucols[P_NCOLS]; /* a weighted profile's columns: the weight's title its unit */
	struct hot_rel rel;
	struct flame_view flame;   /* g: the flame graph of every process */
	struct ui_search search;
	bool paused;  /* a process's own hot view has the sampler lane */
};

static bool mach_message(void *ctx, struct ring_msg *msg);

/* What the selection is on, to keep it there when the rows are sorted
 * again: a process (its slot), a command name, a function id. */
struct sel_key {
	unsigned proc, func;
	char comm[16];
	bool have_p, have_f;
};

static void sel_remember(struct mach_state *m, struct sel_key *k)
{
	int p = table_selected(&m->ptab), f = table_selected(&m->ftab);

	memset(k, 0, sizeof(*k));
	if (p >= 0 && (unsigned)p < m->pv.nrows) {
		k->have_p = true;
		k->proc = m->pv.rows[p].proc;
		memcpy(k->comm, m->samp.shown->procs[k->proc].comm, sizeof(k->comm));
	}
	if (f >= 0 && (unsigned)f < m->fv.nrows) {
		k->have_f = true;
		k->func = m->fv.rows[f].func;
	}
}

/* The row looked at: until the user moves, and when the process they
 * moved to has exited, the top row; else the one they moved to. */
static void sel_restore(struct mach_state *m, const struct sel_key *k)
{
	bool found = false;

	for (unsigned i = 0; m->ptab.moved && k->have_p && i < m->pv.nrows && !found; i++) {
		const struct samp_prow *r = &m->pv.rows[i];
		if (m->by_comm ? !strcmp(m->samp.shown->procs[r->proc].comm, k->comm) : r->proc == k->proc) {
			found = m->by_comm || !m->samp.shown->procs[r->proc].exited;
			if (found)
				table_select(&m->ptab, (int)i);
			break;
		}
	}
	if (!found) {
		m->ptab.moved = false;
		m->ptab.top = 0;
		table_select(&m->ptab, 0);
	}
	found = false;
	for (unsigned i = 0; m->ftab.moved && k->have_f && i < m->fv.nrows && !found; i++)
		if (m->fv.rows[i].func == k->func) {
			table_select(&m->ftab, (int)i);
			found = true;
		}
	if (!found) {
		m->ftab.moved = false;
		m->ftab.top = 0;
		table_select(&m->ftab, 0);
	}
}

static void recompute(struct mach_state *m)
{
	struct sel_key k = { 0 };

	if (!m->samp.stale || !m->samp.shown)
		return;
	m->samp.stale = false;
	/* Slots and function ids only grow during a session: the old
	 * snapshot's are the new one's. */
	if (m->pv.rows || m->fv.rows)
		sel_remember(m, &k);
	samp_pview_free(&m->pv);
	samp_view_free(&m->fv);
	free(m->ftop);
	free(m->fnprocs);
	m->ftop = m->fnprocs = NULL;
	if (samp_view_procs(m->samp.shown, m->samp.win, m->by_comm, m->samp.sort, &m->pv) < 0 ||
	    samp_view_compute(m->samp.shown, m->samp.win, 0, m->samp.sort, &m->fv) < 0)
		return;
	m->ftop = calloc(m->fv.nrows + 1, sizeof(*m->ftop));
	m->fnprocs = calloc(m->fv.nrows + 1, sizeof(*m->fnprocs));
	if (!m->ftop || !m->fnprocs || samp_view_func_procs(m->samp.shown, m->samp.win, &m->fv, m->ftop, m->fnprocs) < 0) {
		samp_view_free(&m->fv);
		free(m->ftop);
		free(m->fnprocs);
		m->ftop = m->fnprocs = NULL;
	}
	table_set_count(&m->ptab, (int)m->pv.nrows);
	table_set_count(&m->ftab, (int)m->fv.nrows);
	sel_restore(m, &k);
	if (m->rel.open)
		hot_rel_refresh(&m->rel, m->samp.shown, m->samp.win, 0);
	if (m->flame.open)
		flame_view_update(&m->flame, m->samp.shown, m->samp.win, 0);
}

static void set_stale(struct mach_state *m)
{
	m->samp.stale = true;
}

static int proc_cell(void *st, int row, int col, char *buf, size_t size)
{
	struct mach_state *m = st;
	const struct samp_prow *r = &m->pv.rows[row];
	const struct samp_proc *p = &m->samp.shown->procs[r->proc];

	if (col < 0)
		return p->exited && !m->by_comm ? draw_attr(COL_GONE) : draw_attr(COL_NORMAL);
	if (m->by_comm) {
		switch (col) {
		case C_SHARE: snprintf(buf, size, "%.1f", r->pct); break;
		case C_SAMPLES: samp_unit_format(m->samp.shown->unit, r->samples, buf, size); break;
		case C_PROCS: snprintf(buf, size, "%u", r->nprocs); break;
		case C_COMM: snprintf(buf, size, "%s", p->comm); break;
		}
		return 0;
	}
	switch (col) {
	case P_SHARE: snprintf(buf, size, "%.1f", r->pct); break;
	case P_SAMPLES: samp_unit_format(m->samp.shown->unit, r->samples, buf, size); break;
	case P_SAMPLED: snprintf(buf, size, "%.2fs", r->cpu_sampled); break;
	case P_PROC: snprintf(buf, size, "%.2fs", r->cpu_proc); break;
	case P_PID: snprintf(buf, size, "%d", (int)p->pid); break;
	case P_COMM:
		snprintf(buf, size, "%s%s%s%s", p->kernel ? "[" : "", p->comm, p->kernel ? "]" : "",
			 p->exited ? _(" (exited)") : "");
		break;
	}
	return 0;
}

static int func_cell(void *st, int row, int col, char *buf, size_t size)
{
	struct mach_state *m = st;
	const struct samp_row *r = &m->fv.rows[row];
	const struct samp_func *f = &m->samp.shown->funcs[r->func];
	unsigned top = m->ftop ? m->ftop[row] : UINT32_MAX, n = m->fnprocs ? m->fnprocs[row] : 0;

	if (col < 0)
		return f->flags & (SAMP_F_KERNEL | SAMP_F_ANON | SAMP_F_STRIPPED | SAMP_F_UNKNOWN) ? draw_attr(COL_DIM)
												   : draw_attr(COL_NORMAL);
	switch (col) {
	case F_SELF: snprintf(buf, size, "%.1f", r->self_pct); break;
	case F_TOTAL: snprintf(buf, size, "%.1f", r->total_pct); break;
	case F_SAMPLES: samp_unit_format(m->samp.shown->unit, r->self, buf, size); break;
	case F_NAME: snprintf(buf, size, "%s", f->name); break;
	case F_MODULE: snprintf(buf, size, "%s", samp_module_short(f->module)); break;
	case F_PROC:
		if (top >= m->samp.shown->nprocs)
			break;
		if (n > 1)
			snprintf(buf, size, P_("%s-%d (+%u other)", "%s-%d (+%u others)", n - 1), m->samp.shown->procs[top].comm,
				 (int)m->samp.shown->procs[top].pid, n - 1);
		else
			snprintf(buf, size, "%s-%d", m->samp.shown->procs[top].comm, (int)m->samp.shown->procs[top].pid);
		break;
	}
	return 0;
}

/* base's columns for the profile shown: the weight column (wcol) titled
 * by its unit when the weight is not samples. */
static const struct table_col *unit_cols(struct mach_state *m, const struct table_col *base, int n, int wcol)
{
	enum samp_unit u = m->samp.shown ? m->samp.shown->unit : SAMP_UNIT_SAMPLES;

	if (u == SAMP_UNIT_SAMPLES || n > P_NCOLS)
		return base;
	memcpy(m->ucols, base, (size_t)n * sizeof(*base));
	m->ucols[wcol].title = samp_unit_title(u);
	return m->ucols;
}

static void draw_status(struct mach_state *m, int y)
{
	const struct samp_snapshot *s = m->samp.shown;

	draw_blank(y, 0, -1, draw_attr(COL_TITLE));
	draw_textf(y, 0, -1, draw_attr(COL_TITLE), _(" Hot processes: every process   %s   window %s  sort %s%s%s"),
		   m->funcs ? _("[functions]") : m->by_comm ? _("[by command]") : _("[by process]"),
		   samp_window_name(m->samp.win), samp_sort_name(m->samp.sort), m->samp.frozen ? _("  [FROZEN]") : "",
		   s && s->ended ? "  [ENDED]" : "");
	if (!s)
		return;
	draw_textf(y + 1, 0, -1, draw_attr(COL_NORMAL),
		   _(" event %s (%s), per CPU; %d Hz requested, %.0f Hz achieved per busy CPU-second; %s"), s->event,
		   s->event_why, s->freq, s->rate, s->kernel_why);
	unsigned long long all = s->samples + s->idle;
	int x = 0;
	if (s->unit != SAMP_UNIT_SAMPLES) {
		/* A weighted profile: the weight first, in its unit. */
		char wa[32], ww[32];
		x = draw_textf(y + 2, 0, -1, draw_attr(COL_NORMAL), _(" weight %s %s (window %s);"),
			       samp_unit_format(s->unit, s->weight, wa, sizeof(wa)), samp_unit_key(s->unit),
			       samp_unit_format(s->unit, m->funcs ? m->fv.samples : m->pv.samples, ww, sizeof(ww)));
	}
	draw_textf(y + 2, x, -1, draw_attr(COL_NORMAL),
		   _(" samples %llu (window %lu)  idle %.0f%%  lost %llu  stacks %s, truncated %.1f%%  CPU sampled %.2f s vs /proc %.2f s"),
		   s->samples, m->funcs ? m->fv.samples : m->pv.samples, all ? 100.0 * (double)s->idle / (double)all : 0.0,
		   s->lost, samp_unwind_method(s), s->samples ? 100.0 * (double)s->truncated / (double)s->samples : 0.0,
		   s->cpu_sampled, s->cpu_proc);
}

static void mach_draw(struct ui *ui, void *st, int y0, int rows)
{
	struct mach_state *m = st;
	(void)ui;

	recompute(m);
	draw_status(m, y0);
	if (m->samp.have_err) {
		int y = y0 + 2;
		draw_text(y++, 1, -1, draw_attr(COL_ERROR) | A_BOLD, _("sampling could not start:"));
		draw_text(y++, 3, -1, draw_attr(COL_ERROR), m->samp.err.msg);
		if (m->samp.err.fix[0]) {
			draw_textf(y++, 3, -1, draw_attr(COL_WARN), _("door: %s"), door_name(m->samp.err.door));
			draw_textf(y++, 3, -1, draw_attr(COL_WARN), _("fix: %s"), m->samp.err.fix);
		}
		draw_text(y + 1, 1, -1, draw_attr(COL_DIM), _("Esc returns. D shows every door."));
		return;
	}
	if (!m->samp.shown) {
		draw_textf(y0 + 2, 1, -1, draw_attr(COL_DIM),
			   _("sampling every process at %d Hz; the first snapshot comes after one second..."),
			   samp_ctl_freq(m->samp.ctl));
		return;
	}
	if (rows <= 4)
		return;
	if (m->flame.open) {
		flame_view_draw(&m->flame, y0 + 3, rows - 3);
		return;
	}
	if (m->funcs && m->rel.open) {
		unsigned long total = 0, self = 0;
		for (unsigned i = 0; i < m->fv.nrows; i++)
			if (m->fv.rows[i].func == m->rel.func) {
				total = m->fv.rows[i].total;
				self = m->fv.rows[i].self;
			}
		hot_rel_draw(&m->rel, m->samp.shown, total, self, y0 + 3, rows - 3);
		return;
	}
	struct table *t = m->funcs ? &m->ftab : &m->ptab;
	if (!t->n) {
		draw_text(y0 + 4, 1, -1, draw_attr(COL_DIM), _("no samples in this window: the machine was idle"));
		return;
	}
	if (!m->funcs) {
		t->cols = m->by_comm ? unit_cols(m, mach_comm_cols, C_NCOLS, C_SAMPLES)
				     : unit_cols(m, mach_proc_cols, P_NCOLS, P_SAMPLES);
		t->ncols = m->by_comm ? C_NCOLS : P_NCOLS;
		t->sort_col = m->samp.sort == SAMP_SORT_SELF ? 0 : m->samp.sort == SAMP_SORT_NAME ? (m->by_comm ? C_COMM : P_COMM)
							     : (m->by_comm ? -1 : P_PROC);
	} else {
		t->cols = unit_cols(m, mach_func_cols, F_NCOLS, F_SAMPLES);
		t->sort_col = m->samp.sort == SAMP_SORT_SELF ? F_SELF : m->samp.sort == SAMP_SORT_TOTAL ? F_TOTAL : F_NAME;
	}
	table_draw(t, y0 + 3, rows - 3, m, m->funcs ? func_cell : proc_cell);
}

/* The process of the selected row (a function row: its busiest process). */
static const struct samp_proc *selected_proc(struct mach_state *m)
{
	if (!m->samp.shown)
		return NULL;
	if (m->funcs) {
		int r = table_selected(&m->ftab);
		if (r < 0 || !m->ftop || m->ftop[r] >= m->samp.shown->nprocs)
			return NULL;
		return &m->samp.shown->procs[m->ftop[r]];
	}
	int r = table_selected(&m->ptab);
	return r < 0 || (unsigned)r >= m->pv.nrows ? NULL : &m->samp.shown->procs[m->pv.rows[r].proc];
}

static bool mach_selected(void *st, struct target_id *id)
{
	const struct samp_proc *p = selected_proc(st);

	if (!p || p->exited || p->kernel)
		return false;
	*id = (struct target_id){ .pid = p->pid, .starttime = p->start };
	return true;
}

static void open_process(struct ui *ui, struct mach_state *m)
{
	const struct samp_proc *p = selected_proc(m);
	struct target_id id;

	if (!p)
		return;
	if (p->exited) {
		ui_message(ui, true, _("%s (PID %d) has exited: only its samples here remain"), p->comm, (int)p->pid);
		return;
	}
	if (p->kernel) {
		ui_message(ui, true, _("%s is a kernel thread: it has no user space to sample on its own"), p->comm);
		return;
	}
	if (!mach_selected(m, &id))
		return;
	/* One sampler at a time: this one stops while the process's own view
	 * is open and starts again when it closes (mach_tick). */
	if (m->samp.job.running)
		workers_cancel(ui->workers, m->samp.job.id);
	m->paused = true;
	screen_hot_open(ui, &id);
}

static void mach_tick(struct ui *ui, void *st)
{
	struct mach_state *m = st;
	struct target_id all = { 0 };

	if (!m->paused || m->samp.job.running)
		return;
	ui_job_leave(ui, &m->samp.job);
	struct job_handler jh = { mach_message, m };
	ui_samp_start(ui, &m->samp, &all, &jh);
	m->paused = false;
	ui_message(ui, false, _("sampling every process again"));
}

/* '/': the next row whose cells (name, PID, module, process) hold the text. */
static bool mach_find(void *st, const char *text, int dir, bool again)
{
	struct mach_state *m = st;
	struct table *t = m->funcs ? &m->ftab : &m->ptab;

	if (!m->samp.shown)
		return false;
	return table_search_cells(t, t->sel + (again ? dir : 0), dir, text, m, m->funcs ? func_cell : proc_cell);
}

/* On the functions, the callers/callees view takes its keys first; the
 * screen's other keys work there too. */
static enum ui_key_result mach_mode(struct ui *ui, void *st, int ch)
{
	struct mach_state *m = st;

	recompute(m);
	if (flame_view_key(ui, &m->flame, ch) == UI_KEY_DONE)
		return UI_KEY_DONE;
	if (m->funcs && m->rel.open && m->samp.shown && hot_rel_key(&m->rel, ch, m->samp.shown, m->samp.win, 0))
		return UI_KEY_DONE;
	return UI_KEY_NEXT;
}

static bool k_tab(struct ui *ui, void *st, int ch)
{
	struct mach_state *m = st;

	m->funcs = !m->funcs;
	return true;
}

static bool k_enter(struct ui *ui, void *st, int ch)
{
	struct mach_state *m = st;

	if (!m->funcs)
		open_process(ui, m);
	else if (m->fv.nrows && table_selected(&m->ftab) >= 0)
		hot_rel_open(&m->rel, m->samp.shown, m->samp.win, 0, m->fv.rows[table_selected(&m->ftab)].func);
	return true;
}

static bool k_open(struct ui *ui, void *st, int ch)
{
	open_process(ui, st);
	return true;
}

static bool k_by_comm(struct ui *ui, void *st, int ch)
{
	struct mach_state *m = st;

	m->by_comm = !m->by_comm;
	m->funcs = false;
	table_select(&m->ptab, 0);
	set_stale(m);
	ui_message(ui, false, m->by_comm ? _("samples by command name; c: by process") : _("samples by process; c: by command name"));
	return true;
}

/* g: the flame graph of the window (every process), or the tables again. */
static bool k_graph(struct ui *ui, void *st, int ch)
{
	struct mach_state *m = st;

	m->flame.open = !m->flame.open;
	if (m->flame.open)
		flame_view_update(&m->flame, m->samp.shown, m->samp.win, 0);
	return true;
}

static const struct ui_key mach_keys[] = {
	UI_SECTION(N_("Keys")),
	UI_KEY("Tab", k_tab, N_("Procs/Funcs"), N_("processes / functions"), '\t'),
	UI_KEY("Enter", k_enter, N_("Open"),
	  N_("on a process: its own hot view (threads, callers, source lines); on a function: its callers "
	     "and callees (Esc comes back)"), '\n', '\r', KEY_ENTER),
	UI_KEY("c", k_by_comm, N_("ByComm"),
	  N_("processes / command names (all processes of one name in one row)"), 'c'),
	UI_USE(ui_samp_keys, struct mach_state, samp),
	UI_KEY("g", k_graph, N_("Flame"), N_("the window as a flame graph (processes, then their callers) / the tables"),
	       'g'),
	UI_HELP_OF(flame_view_keys),
	UI_KEY("Left/Right", NULL, NULL,
	  N_("scroll the last column (commands, processes) sideways")),
	UI_KEY("/, n, N", NULL, NULL, N_("search the table (a name, a PID); n/N: next/previous")),
	UI_KEY("h C D", k_open, NULL, N_("on the selected process: hot view, core, doors"), 'h', 'o'),
	UI_LOOP_AS("Esc", N_("Stop"), N_("stop sampling and go back"), 27),
	UI_LOOP("F1, ?", KEY_F(1), '?'),
	UI_KEYS_END,
};

/* Search and the list keys. */
static bool mach_key(struct ui *ui, void *st, int ch)
{
	struct mach_state *m = st;

	if (ui_search_key(ui, &m->search, ch, m->flame.open ? flame_view_find : mach_find,
			  m->flame.open ? (void *)&m->flame : (void *)m))
		return true;
	return table_key(m->funcs ? &m->ftab : &m->ptab, ch, NULL, NULL) != TABLE_KEY_NONE;
}

static bool mach_message(void *ctx, struct ring_msg *msg)
{
	struct mach_state *m = ctx;

	return ui_samp_message(m->ui, &m->samp, msg);
}

static void mach_destroy(void *st)
{
	struct mach_state *m = st;

	/* Esc: stop sampling. */
	ui_samp_free(m->ui, &m->samp);
	samp_pview_free(&m->pv);
	samp_view_free(&m->fv);
	free(m->ftop);
	free(m->fnprocs);
	hot_rel_close(&m->rel);
	flame_view_free(&m->flame);
	free(m);
}

const struct screen_ops screen_hotprocs_ops = {
	.name = N_("Hot processes"),
	.help = "hot-processes",
	.keys = mach_keys,
	.fbar = "F1 Tab Enter c Spc w s +- g E Esc",
	.mode_key = mach_mode,
	.draw = mach_draw,
	.key = mach_key,
	.tick = mach_tick,
	.selected = mach_selected,
	.destroy = mach_destroy,
};

void screen_hotprocs_open(struct ui *ui)
{
	struct mach_state *m = calloc(1, sizeof(*m));
	struct target_id all = { 0 };

	if (!m)
		return;
	m->ui = ui;
	m->samp.win = SAMP_WIN_10S;
	m->samp.freq_max = 999; /* an event per CPU for every task */
	table_init(&m->ptab, mach_proc_cols, P_NCOLS, P_SHARE, true);
	table_init(&m->ftab, mach_func_cols, F_NCOLS, F_SELF, true);
	m->ptab.hkeys = m->ftab.hkeys = true; /* long commands and process lists scroll */
	hot_rel_init(&m->rel);
	m->samp.ctl = samp_ctl_new(SAMP_FREQ_DEFAULT);
	if (!m->samp.ctl) {
		free(m);
		return;
	}
	samp_ctl_set_mode(m->samp.ctl, SAMP_MODE_NATIVE);
	struct job_handler jh = { mach_message, m };
	if (!ui_samp_start(ui, &m->samp, &all, &jh)) {
		samp_ctl_put(m->samp.ctl);
		free(m);
		return;
	}
	ui_push(ui, &screen_hotprocs_ops, m);
}
