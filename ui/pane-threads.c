/* Threads pane: per thread tid, name, state, CPU% (and its graph over the
 * pane's last reads, kept by the source), last CPU, wchan, the
 * current system call by name with its first argument, context switches,
 * the run-queue delay per second from schedstat and, for a thread in
 * futex(), the lock it waits on: its symbol (a global mutex) and the TID
 * holding it (src/stack/futex.c, the deadlock analysis' own rule), all
 * read by the source (src/source/live-panes.c). */
#include "pane.h"
#include "draw.h"
#include "i18n.h"
#include "proc/task.h"
#include "stack/stack.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct threads_pane {
	struct pane_data *data;        /* the read shown */
	const struct snap_threads *cur; /* its threads, with their rates */
	const struct stk_wait_lock *locks; /* per thread of cur; addr 0: not in futex */
	struct table tab;
};

static const struct snap_threads no_threads;

/* Glyphs of CPU_HIST: the thread's CPU% over the pane's last reads. */
#define HIST_W 10

/* Titles from the pane's description (src/pane/threads.c). */
enum { T_TID, T_NAME, T_STATE, T_CPU, T_HIST, T_LAST, T_WCHAN, T_SYSCALL, T_VOL, T_INVOL, T_RQ, T_LOCK, T_N };
_Static_assert((int)T_N == (int)PT_NCOLS && (int)T_LOCK == (int)PT_LOCK, "the columns of src/pane/threads.c");
static struct table_col cols[T_N] = {
	[T_TID] = { NULL, 7, true },      [T_NAME] = { NULL, 16, false },  [T_STATE] = { NULL, 1, false },
	[T_CPU] = { NULL, 6, true },      [T_HIST] = { NULL, HIST_W, false }, [T_LAST] = { NULL, 3, true },    [T_WCHAN] = { NULL, 22, false },
	[T_SYSCALL] = { NULL, 28, false }, [T_VOL] = { NULL, 8, true },    [T_INVOL] = { NULL, 8, true },
	[T_RQ] = { NULL, 6, true },       [T_LOCK] = { NULL, 0, false },
};

static void *threads_create(void)
{
	struct threads_pane *p = calloc(1, sizeof(*p));

	for (int k = 0; k < T_N; k++)
		cols[k].title = pane_threads_cols[k];
	if (p) {
		p->cur = &no_threads;
		table_init(&p->tab, cols, T_N, T_TID, false);
		p->tab.hkeys = true;
	}
	return p;
}

/* "locks" (the list's x): the threads waiting on a lock first, grouped by
 * the lock. */
static void threads_view(void *st, const char *view)
{
	struct threads_pane *p = st;

	if (view && !strcmp(view, "locks")) {
		p->tab.sort_col = T_LOCK;
		p->tab.sort_desc = true;
	}
}

static void threads_destroy(void *st)
{
	struct threads_pane *p = st;
	pane_data_put(p->data);
	table_free(&p->tab);
	free(p);
}

static int cmp_d(double a, double b)
{
	return (a > b) - (a < b);
}

static int threads_cmp(void *st, int a, int b, int col)
{
	struct threads_pane *p = st;
	const struct proc_thread *x = &p->cur->v[a], *y = &p->cur->v[b];
	int r = 0;

	switch (col) {
	case T_NAME: r = strcmp(x->comm, y->comm); break;
	case T_STATE: r = x->state - y->state; break;
	case T_CPU:
	case T_HIST: r = cmp_d(x->cpu_pct, y->cpu_pct); break; /* as CPU%: the newest value */
	case T_LAST: r = x->processor - y->processor; break;
	case T_WCHAN: r = strcmp(x->wchan, y->wchan); break;
	case T_SYSCALL: r = (x->syscall_nr > y->syscall_nr) - (x->syscall_nr < y->syscall_nr); break;
	case T_VOL: r = (x->vol_ctxt > y->vol_ctxt) - (x->vol_ctxt < y->vol_ctxt); break;
	case T_INVOL: r = (x->nonvol_ctxt > y->nonvol_ctxt) - (x->nonvol_ctxt < y->nonvol_ctxt); break;
	case T_RQ: r = cmp_d(x->wait_ms_per_s, y->wait_ms_per_s); break;
	case T_LOCK:
		if (p->locks)
			r = (p->locks[a].addr > p->locks[b].addr) - (p->locks[a].addr < p->locks[b].addr);
		break;
	}
	return r ? r : (x->tid > y->tid) - (x->tid < y->tid);
}

static void threads_take(void *st, const struct pane_ctx *c, struct pane_data *d)
{
	struct threads_pane *p = st;

	(void)c;
	pane_data_put(p->data);
	p->data = pane_data_get(d);
	p->cur = &d->u.threads;
	p->locks = d->u.threads.locks;
	table_set_rows(&p->tab, (int)p->cur->n, p, threads_cmp);
}

static int threads_cell(void *st, int row, int col, char *buf, size_t size)
{
	struct threads_pane *p = st;
	const struct proc_thread *t = &p->cur->v[row];

	switch (col) {
	case -1:
		if (t->state == 'R')
			return draw_attr(COL_GOOD);
		if (t->state == 'D')
			return draw_attr(COL_WARN);
		return 0;
	case T_TID: /* in a container: the host TID, then its TID there */
		if (t->nstid)
			snprintf(buf, size, "%d:%d", (int)t->tid, (int)t->nstid);
		else
			snprintf(buf, size, "%d", (int)t->tid);
		break;
	case T_NAME: snprintf(buf, size, "%s", t->comm); break;
	case T_STATE: snprintf(buf, size, "%c", t->state); break;
	case T_CPU: snprintf(buf, size, "%.1f", t->cpu_pct); break;
	case T_HIST: /* a glyph a read, the newest on the right, on a scale of one CPU */
		if (p->cur->cpu_hist)
			draw_sparkline(p->cur->cpu_hist + (size_t)row * HIST_LEN + HIST_LEN - HIST_W, HIST_W, 100, HIST_W,
				       buf, size);
		break;
	case T_LAST: snprintf(buf, size, "%d", t->processor); break;
	case T_WCHAN: snprintf(buf, size, "%s", t->wchan[0] ? t->wchan : "-"); break;
	case T_SYSCALL: proc_thread_syscall_str(t, buf, size); break;
	case T_VOL: snprintf(buf, size, "%lu", t->vol_ctxt); break;
	case T_INVOL: snprintf(buf, size, "%lu", t->nonvol_ctxt); break;
	case T_RQ:
		if (t->have_schedstat)
			snprintf(buf, size, "%6.1f", t->wait_ms_per_s);
		else
			snprintf(buf, size, "-");
		break;
	case T_LOCK:
		if (p->locks && p->locks[row].addr)
			stk_wait_lock_str(&p->locks[row], buf, size);
		else
			snprintf(buf, size, "-");
		break;
	}
	return 0;
}

static void threads_draw(void *st, const struct pane_ctx *c, int y0, int rows)
{
	struct threads_pane *p = st;
	int run = 0, unreadable = 0;
	double rq = 0;

	for (size_t i = 0; i < p->cur->n; i++) {
		run += p->cur->v[i].state == 'R';
		unreadable += p->cur->v[i].syscall_nr == PROC_SYSCALL_UNKNOWN;
		rq += p->cur->v[i].wait_ms_per_s;
	}
	draw_textf(y0, 0, -1, A_BOLD,
		   P_("%zu thread, %d running; run-queue delay %.1f ms/s in total (runnable but not on a CPU)",
		      "%zu threads, %d running; run-queue delay %.1f ms/s in total (runnable but not on a CPU)", p->cur->n),
		   p->cur->n, run, rq);
	if (unreadable)
		draw_text(y0 + 1, 0, -1, draw_attr(COL_WARN),
			  _("SYSCALL shows '?': task/TID/syscall needs ptrace-attach access (root or the same user with ptrace allowed)"));
	else
		draw_text(y0 + 1, 0, -1, draw_attr(COL_DIM), _("SYSCALL: the call the thread is blocked in and its first argument; 'running': in user space"));
	/* The lock the selected thread waits for (else the first waiter's)
	 * and its holder, on a line of its own: LOCK is the last column and
	 * the first a narrow terminal cuts. */
	int w = -1, sel = table_selected(&p->tab);
	if (p->locks && sel >= 0 && (size_t)sel < p->cur->n && p->locks[sel].addr)
		w = sel;
	for (size_t i = 0; p->locks && w < 0 && i < p->cur->n; i++)
		if (p->locks[i].addr)
			w = (int)i;
	if (w >= 0 && rows > 3) {
		char lock[700];
		stk_wait_lock_str(&p->locks[w], lock, sizeof(lock));
		draw_textf(y0 + 2, 0, -1, draw_attr(COL_WARN), _("TID %d waits for lock %s"), (int)p->cur->v[w].tid, lock);
		y0++;
		rows--;
	}
	table_draw(&p->tab, y0 + 2, rows - 2, p, threads_cell);
}

static bool threads_key(void *st, const struct pane_ctx *c, int ch, int rows)
{
	struct threads_pane *p = st;
	return table_key(&p->tab, ch, p, threads_cmp);
}

static bool threads_search(void *st, const char *text, int dir, bool again)
{
	struct threads_pane *p = st;
	return table_search_cells(&p->tab, p->tab.sel + (again ? dir : 0), dir, text, p, threads_cell);
}

const struct pane_ops pane_threads = {
	.desc = &pane_desc_threads,
	.create = threads_create,
	.view = threads_view,
	.destroy = threads_destroy,
	.take = threads_take,
	.draw = threads_draw,
	.on_key = threads_key,
	.search = threads_search,
};
