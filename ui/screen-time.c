/* The Time screen (W on the list and the detail screen): where the
 * threads' time went over the last second, every column of the time
 * model, sortable; Enter drills into a thread: its system calls (count,
 * errors, total, average, p50, p99, max) and its run-queue and system-call
 * latency histograms, drawn in text. Space freezes the view (the session
 * goes on measuring). The time job (src/time/job.c) runs while the screen
 * is open; leaving it closes the session (BPF links, perf events). */
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"
#include "proc/syscalls.h"
#include "source/source.h"
#include "time-view.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_W 200

struct time_screen {
	struct ui_time t;
	struct target_id id;
	char comm[64];                 /* hostile */
	struct table tab;              /* the threads */
	struct table_col cols[TC_N];
	pid_t tid;                     /* drilled into this thread; 0: the threads */
	struct table lines_tab;        /* the thread's lines (plain) */
	char (*lines)[LINE_MAX_W];
	int nlines, cap;
	struct ui_search search;
};

static const struct tm_thread *drilled(const struct time_screen *s)
{
	const struct tm_snapshot *sn = s->t.shown;

	for (size_t i = 0; sn && i < sn->nthreads; i++)
		if (sn->threads[i].tid == s->tid)
			return &sn->threads[i];
	return NULL;
}

static void add_line(struct time_screen *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_line(struct time_screen *s, const char *fmt, ...)
{
	va_list ap;

	if (s->nlines == s->cap) {
		int cap = s->cap ? s->cap * 2 : 64;
		void *n = realloc(s->lines, (size_t)cap * sizeof(*s->lines));
		if (!n)
			return;
		s->lines = n;
		s->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(s->lines[s->nlines++], LINE_MAX_W, fmt, ap);
	va_end(ap);
}

/* A duration for people: "850ns", "12.3us", "4.56ms", "1.23s". */
static const char *dur(uint64_t ns, char *buf, size_t size)
{
	if (ns < 1000)
		snprintf(buf, size, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.1fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.2fms", (double)ns / 1e6);
	else
		snprintf(buf, size, "%.2fs", (double)ns / 1e9);
	return buf;
}

/* A log2 histogram in text, its empty ends left out: one line a bucket. */
static void add_hist(struct time_screen *s, const struct tm_hist *h)
{
	uint64_t top = 0;
	int lo = -1, hi = -1;
	char a[24], b[24];

	for (int i = 0; i < TM_HIST; i++)
		if (h->b[i]) {
			lo = lo < 0 ? i : lo;
			hi = i;
			top = h->b[i] > top ? h->b[i] : top;
		}
	if (lo < 0) {
		add_line(s, "  %s", _("(none in this window)"));
		return;
	}
	for (int i = lo; i <= hi; i++) {
		char bar[48];
		int n = (int)((h->b[i] * 40 + top - 1) / top);
		memset(bar, '#', (size_t)n);
		bar[n] = '\0';
		add_line(s, "  %9s - %-9s %8llu |%s", dur(i ? 1ull << i : 0, a, sizeof(a)), dur(2ull << i, b, sizeof(b)),
			 (unsigned long long)h->b[i], bar);
	}
}

/* The drilled thread's lines: its shares, system calls, histograms. */
static void make_lines(struct time_screen *s)
{
	const struct tm_snapshot *sn = s->t.shown;
	const struct tm_thread *t = drilled(s);
	char by[128], a[24], b[24], c[24], d[24], e[24], nb[32];

	s->nlines = 0;
	if (!t) {
		add_line(s, "%s", _("the thread is not in this window (it ended)"));
		table_set_count(&s->lines_tab, s->nlines);
		return;
	}
	add_line(s, _("On CPU %.1f%%, waiting for a CPU %.1f%%, blocked %.1f%% (%s), stopped %.1f%%"),
		 tm_pct(sn, t->oncpu_ns), tm_pct(sn, t->runq_ns), tm_pct(sn, tm_blocked_sum(t)),
		 tm_blocked_str(t, by, sizeof(by)), tm_pct(sn, t->stopped_ns));
	add_line(s, _("Switches: %llu voluntary, %llu involuntary; page faults: %llu minor, %llu major"),
		 (unsigned long long)t->vol, (unsigned long long)t->invol, (unsigned long long)t->minflt,
		 (unsigned long long)t->majflt);
	add_line(s, "%s", "");
	if (!(sn->have & TM_HAVE_SYSCALLS)) {
		add_line(s, "%s", _("System calls: not traced on this tier (only sampled: see pscope time)"));
	} else {
		struct tm_hist all = { 0 };
		add_line(s, "%s", _("System calls by total time (p50 and p99 from log2 histograms):"));
		add_line(s, "  %-20s %8s %7s %10s %10s %10s %10s %10s", _("SYSCALL"), _("COUNT"), _("ERRORS"), _("TOTAL"),
			 _("AVG"), _("P50"), _("P99"), _("MAX"));
		for (size_t i = 0; i < t->nsys; i++) {
			const struct tm_syscall *y = &t->sys[i];
			if (!y->count)
				continue;
			const char *name = proc_syscall_name(y->nr);
			if (!name)
				snprintf(nb, sizeof(nb), "syscall_%d", y->nr);
			add_line(s, "  %-20s %8llu %7llu %10s %10s %10s %10s %10s", name ? name : nb,
				 (unsigned long long)y->count, (unsigned long long)y->errors, dur(y->total_ns, a, sizeof(a)),
				 dur(y->total_ns / y->count, b, sizeof(b)),
				 dur(tm_hist_quantile(&y->hist, 0.5, y->min_ns, y->max_ns), c, sizeof(c)),
				 dur(tm_hist_quantile(&y->hist, 0.99, y->min_ns, y->max_ns), d, sizeof(d)),
				 dur(y->max_ns, e, sizeof(e)));
			for (int k = 0; k < TM_HIST; k++)
				all.b[k] += y->hist.b[k];
		}
		add_line(s, "%s", "");
		add_line(s, "%s", _("System-call latency (every call of the thread):"));
		add_hist(s, &all);
	}
	add_line(s, "%s", "");
	if (sn->have & TM_HAVE_RUNQ_HIST) {
		add_line(s, _("Run-queue latency: %llu waits"), (unsigned long long)t->runq_count);
		add_hist(s, &t->runq_hist);
	} else {
		add_line(s, "%s", _("Run-queue latency: no histogram on this tier (its total is exact, from schedstat)"));
	}
	table_set_count(&s->lines_tab, s->nlines);
}

static void refresh_view(struct time_screen *s)
{
	if (!s->t.stale || !s->t.shown)
		return;
	s->t.stale = false;
	table_set_rows(&s->tab, (int)s->t.shown->nthreads, &s->t, ui_time_cmp);
	if (s->tid)
		make_lines(s);
}

static void time_draw(struct ui *ui, void *st, int y0, int rows)
{
	struct time_screen *s = st;
	const struct tm_thread *t;
	int y = y0;

	(void)ui;
	refresh_view(s);
	draw_blank(y, 0, -1, draw_attr(COL_TITLE));
	if (s->tid && (t = drilled(s)))
		draw_textf(y++, 0, -1, draw_attr(COL_TITLE), _(" Time: thread %d (%s) of PID %d (%s)%s"), (int)t->tid, t->comm,
			   (int)s->id.pid, s->comm, s->t.frozen ? _("  [frozen: Space]") : "");
	else
		draw_textf(y++, 0, -1, draw_attr(COL_TITLE), _(" Time: PID %d (%s), the last second%s"), (int)s->id.pid,
			   s->comm, s->t.frozen ? _("  [frozen: Space]") : "");
	int n = ui_time_draw_state(&s->t, y, rows - 1);
	if (n >= 0)
		return;
	const struct tm_snapshot *sn = s->t.shown;
	y += ui_time_draw_source(sn, y, rows - 3);
	if (s->tid) {
		int body = table_layout(&s->lines_tab, y, rows - (y - y0), false);
		for (int i = 0; i < body && s->lines_tab.top + i < s->nlines; i++)
			draw_text(y + i, 0, -1, draw_attr(COL_NORMAL), s->lines[s->lines_tab.top + i]);
		return;
	}
	ui_time_draw_total(sn, y++);
	table_draw(&s->tab, y, rows - (y - y0), &s->t, ui_time_cell);
}

static bool time_message(void *ctx, struct ring_msg *m)
{
	struct time_screen *s = ctx;
	return ui_time_message(&s->t, m);
}

static bool k_freeze(struct ui *ui, void *st, int ch)
{
	struct time_screen *s = st;

	ui_time_freeze(&s->t);
	ui_message(ui, false, "%s", s->t.frozen ? _("frozen: measuring goes on; Space shows the newest") : _("live"));
	return true;
}

static bool k_enter(struct ui *ui, void *st, int ch)
{
	struct time_screen *s = st;
	int row = table_selected(&s->tab);

	if (s->tid || !s->t.shown || row < 0)
		return true;
	s->tid = s->t.shown->threads[row].tid;
	table_init_plain(&s->lines_tab);
	make_lines(s);
	return true;
}

/* Esc, Left: out of the thread first, then back. */
static bool k_back(struct ui *ui, void *st, int ch)
{
	struct time_screen *s = st;

	if (!s->tid)
		return false;
	s->tid = 0;
	return true;
}

static bool k_timeline(struct ui *ui, void *st, int ch)
{
	screen_timeline_open(ui, &((struct time_screen *)st)->id);
	return true;
}

static const struct ui_key time_keys[] = {
	UI_KEY("Enter", k_enter, N_("Thread"), N_("the selected thread: its system calls and latency histograms"), '\n',
	       '\r', KEY_ENTER),
	{ .keys = "Space", .bar = "Spc", .fn = k_freeze, .label = N_("Freeze"),
	  .help = N_("freeze the view (measuring goes on) / show the newest again"), .codes = { ' ' } },
	UI_KEY("t", k_timeline, N_("Timeline"), N_("the timeline: each thread's last seconds as a row (trace tier)"), 't'),
	UI_KEY(N_("< >  (or , .)"), NULL, NULL, N_("sort by the previous / next column")),
	UI_KEY("I", NULL, NULL, N_("invert the sort order")),
	UI_KEY("Up/Down, PgUp/PgDn", NULL, NULL, N_("move the selection / scroll")),
	UI_KEY("/", NULL, NULL, N_("select the next row holding a text (n, N: the next / previous)")),
	UI_KEY("Esc, Left", k_back, N_("Back"), N_("out of the thread, then back to the screen you came from"), 27,
	       KEY_LEFT),
	UI_LOOP("F10, q", KEY_F(10), 'q'),
	UI_KEYS_END,
};

static bool find_row(void *st, const char *text, int dir, bool again)
{
	struct time_screen *s = st;
	return !s->tid && s->t.shown &&
	       table_search_cells(&s->tab, s->tab.sel + (again ? dir : 0), dir, text, &s->t, ui_time_cell);
}

static bool time_key(struct ui *ui, void *st, int ch)
{
	struct time_screen *s = st;

	if (ui_search_key(ui, &s->search, ch, find_row, s))
		return true;
	if (s->tid)
		return table_key(&s->lines_tab, ch, NULL, NULL) != TABLE_KEY_NONE;
	return s->t.shown && table_key(&s->tab, ch, &s->t, ui_time_cmp) != TABLE_KEY_NONE;
}

static bool time_selected(void *st, struct target_id *id)
{
	*id = ((struct time_screen *)st)->id;
	return true;
}

static void time_destroy(void *st)
{
	struct time_screen *s = st;

	ui_time_stop(&s->t);
	table_free(&s->tab);
	table_free(&s->lines_tab);
	free(s->lines);
	free(s);
}

const struct screen_ops screen_time_ops = {
	.name = N_("Time"),
	.help = "time",
	.keys = time_keys,
	.fbar = "F1 Enter t Spc Esc F10",
	.draw = time_draw,
	.key = time_key,
	.selected = time_selected,
	.destroy = time_destroy,
};

/* The process checked (the one the user saw, its name read): measure it. */
static void time_open_checked(struct ui *ui, const struct target_info *ti)
{
	struct time_screen *s = calloc(1, sizeof(*s));

	if (!s) {
		ui_message(ui, true, "%s", _("out of memory"));
		return;
	}
	s->id = ti->id;
	strlcpy_ps(s->comm, ti->comm, sizeof(s->comm));
	ui_time_cols(s->cols, true);
	table_init(&s->tab, s->cols, TC_N, TC_ONCPU, true);
	table_init_plain(&s->lines_tab);
	struct job_handler h = { time_message, s };
	ui_time_start(ui, &s->t, &s->id, &h);
	ui_push(ui, &screen_time_ops, s);
}

void screen_time_open(struct ui *ui, const struct target_id *id)
{
	ui_check_target(ui, id, time_open_checked);
}
