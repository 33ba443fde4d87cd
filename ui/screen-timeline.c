/* The Timeline screen (t on the Time screen): the last seconds of each
 * thread of the process as one row, time left to right -- on a CPU (in
 * user space or in a system call, named when the stretch is wide enough),
 * waiting for a CPU, blocked (by reason), with page faults, cpu-clock
 * samples and wakeups (the wakee's and the waker's row) as marks. Zoom,
 * pan, a cursor whose cell's events the detail line lists, jumps to the
 * next long block or run-queue wait, and an interval marked at both ends
 * with each thread's breakdown of just that interval. Drawn from the time
 * job's windows (src/time/job.c with a timeline: the trace tier's records,
 * src/time/tl-walk.c the pure walk), never from the machine. */
#include "uipriv.h"
#include "draw.h"
#include "i18n.h"
#include "proc/syscalls.h"
#include "source/source.h"
#include "time-view.h"
#include "time/time.h"
#include "util.h"

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TL_SECONDS 10                   /* kept and shown at first */
#define TL_MIN_SPAN 1000000ull          /* the closest zoom: 1 ms across */
#define TL_BLOCK_NS 10000000ull         /* b: a block this long */
#define TL_RUNQ_NS 1000000ull           /* r: a run-queue wait this long */
#define TL_MARK_NS 5000000ull          /* wakeups and samples drawn in cells this narrow */
#define TL_ROWS_MAX 256                 /* threads drawn at once */
#define LABEL_W 16                      /* "  TID name     " before the cells */

struct tl_screen {
	struct ui_time t;
	struct target_id id;
	char comm[64];                 /* hostile */
	struct table tab;              /* the threads (rows) */
	uint64_t span;                 /* ns across the cells */
	uint64_t end;                  /* the right edge; 0: the newest */
	int cur;                       /* the cursor's cell */
	uint64_t m0, m1;               /* the interval marked (m1 0: open; m0 0: none) */
	/* The grid drawn last (rows on screen x cells) and its geometry. */
	struct tm_tlcell *grid;
	size_t gcap;
	int ncols;
	uint64_t g0, dt;
};

static uint64_t newest(const struct tl_screen *s)
{
	const struct tm_snapshot *sn = s->t.shown;
	return sn && sn->ntl ? sn->tl[sn->ntl - 1]->t1 : 0;
}

static uint64_t oldest(const struct tl_screen *s)
{
	const struct tm_snapshot *sn = s->t.shown;
	return sn && sn->ntl ? sn->tl[0]->t0 : 0;
}

static uint64_t right_edge(const struct tl_screen *s)
{
	return s->end ? s->end : newest(s);
}

static uint64_t cur_time(const struct tl_screen *s)
{
	return s->g0 + s->dt * (uint64_t)s->cur + s->dt / 2;
}

/* The fill of a state, and of a mark: distinct characters without colour. */
static char state_ch(enum tm_tl_state st)
{
	static const char blk[TM_R_COUNT] = { [TM_R_LOCK] = 'L', [TM_R_SLEEP] = '.', [TM_R_POLL] = '~', [TM_R_IO] = 'D',
					      [TM_R_IPC] = '-', [TM_R_FAULT] = 'F', [TM_R_OTHER] = '_' };
	if (st >= TM_TS_BLOCK)
		return blk[st - TM_TS_BLOCK];
	return st == TM_TS_RUN ? '#' : st == TM_TS_SYS ? '=' : st == TM_TS_RUNQ ? '+' : ' ';
}

static int state_attr(enum tm_tl_state st)
{
	if (st == TM_TS_RUN || st == TM_TS_SYS)
		return draw_attr(COL_GOOD);
	if (st == TM_TS_RUNQ)
		return draw_attr(COL_WARN) | A_BOLD;
	return st >= TM_TS_BLOCK ? draw_attr(COL_DIM) : draw_attr(COL_NORMAL);
}

/* A mark drawn over the cell: a fault always (they are few but for a
 * burst, which is worth seeing), wakeups and samples when the cell is
 * narrow enough not to hide the state (a thread woken every 20 ms would
 * be all marks at 50 ms a cell); the detail line lists them all. */
static char mark_ch(unsigned m, uint64_t dt)
{
	if (dt > TL_MARK_NS)
		m &= TM_TM_FAULT;
	return m & TM_TM_WAKER ? '^' : m & TM_TM_WOKEN ? '!' : m & TM_TM_FAULT ? 'f' : m & TM_TM_SAMPLE ? '*' : 0;
}

/* A span of time for people: "850us", "12.5ms", "1.20s". */
static const char *span_str(uint64_t ns, char *buf, size_t size)
{
	if (ns < 1000000)
		snprintf(buf, size, "%.0fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.1fms", (double)ns / 1e6);
	else
		snprintf(buf, size, "%.2fs", (double)ns / 1e9);
	return buf;
}

static const struct tm_thread *row_thread(const struct tl_screen *s, int pos)
{
	const struct tm_snapshot *sn = s->t.shown;
	return sn && pos >= 0 && (size_t)pos < sn->nthreads ? &sn->threads[pos] : NULL;
}

/* The grid of the rows on screen, made again on each draw. */
static bool make_grid(struct tl_screen *s, int top, int nrows, int ncols)
{
	const struct tm_snapshot *sn = s->t.shown;
	pid_t tids[TL_ROWS_MAX];
	int n = 0;

	for (int i = 0; i < nrows && n < TL_ROWS_MAX; i++)
		if (row_thread(s, top + i))
			tids[n++] = row_thread(s, top + i)->tid;
	size_t need = (size_t)(n ? n : 1) * (size_t)ncols;
	if (need > s->gcap) {
		struct tm_tlcell *g = realloc(s->grid, need * sizeof(*g));
		if (!g)
			return false;
		s->grid = g;
		s->gcap = need;
	}
	s->ncols = ncols;
	s->dt = s->span / (uint64_t)ncols ? s->span / (uint64_t)ncols : 1;
	uint64_t r = right_edge(s);
	s->g0 = r > s->dt * (uint64_t)ncols ? r - s->dt * (uint64_t)ncols : 0;
	tm_tl_grid(sn->tl, sn->ntl, tids, (size_t)n, s->g0, s->dt, ncols, s->grid);
	return true;
}

static void draw_row(struct tl_screen *s, int y, int i, const struct tm_thread *t, bool sel)
{
	char label[LABEL_W + 64];
	const struct tm_tlcell *g = &s->grid[(size_t)i * (size_t)s->ncols];

	snprintf(label, sizeof(label), "%7d %s", (int)t->tid, t->comm);
	draw_blank(y, 0, LABEL_W, draw_attr(sel ? COL_SELECT : COL_NORMAL));
	draw_text(y, 0, LABEL_W - 1, draw_attr(sel ? COL_SELECT : COL_NORMAL), label);
	for (int c = 0; c < s->ncols; c++) {
		enum tm_tl_state st = tm_tl_cell_state(&g[c]);
		char ch[2] = { mark_ch(g[c].marks, s->dt), 0 };
		int attr = state_attr(st);
		if (ch[0])
			attr = draw_attr(COL_WARN) | A_BOLD;
		else
			ch[0] = state_ch(st);
		uint64_t c0 = s->g0 + s->dt * (uint64_t)c;
		if (s->m0 && c0 + s->dt > s->m0 && c0 <= (s->m1 ? s->m1 : s->m0))
			attr |= A_UNDERLINE;
		if (sel && c == s->cur)
			attr |= A_REVERSE;
		draw_text(y, LABEL_W + c, 1, attr, ch);
	}
	/* A system call's name over its cells where the run of them is wide
	 * enough: the name and a space either side. */
	for (int c = 0; c < s->ncols;) {
		int sys = g[c].sys, e = c;
		if (sys < 0 || tm_tl_cell_state(&g[c]) != TM_TS_SYS) {
			c++;
			continue;
		}
		while (e < s->ncols && g[e].sys == sys && tm_tl_cell_state(&g[e]) == TM_TS_SYS && !mark_ch(g[e].marks, s->dt))
			e++;
		char nb[32];
		const char *nm = proc_syscall_label(sys, nb, sizeof(nb));
		int w = (int)strlen(nm);
		if (e - c >= w + 2 && !(sel && s->cur >= c && s->cur < e))
			draw_text(y, LABEL_W + c + 1, w, state_attr(TM_TS_SYS) | A_BOLD, nm);
		c = e > c ? e : c + 1;
	}
}

/* The detail line: what the cursor's cell of the selected thread holds,
 * its states longest first. */
static void draw_detail(struct tl_screen *s, int y, int i)
{
	const struct tm_tlcell *g = i >= 0 ? &s->grid[(size_t)i * (size_t)s->ncols + s->cur] : NULL;
	const struct tm_thread *t = row_thread(s, table_selected(&s->tab));
	char line[512], a[24], b[24], nb[32];
	bool done[TM_TS_COUNT] = { false };
	int n;

	uint64_t now = newest(s), ct = cur_time(s);
	n = snprintf(line, sizeof(line), _("cursor -%s (cell %s)"), span_str(now > ct ? now - ct : 0, a, sizeof(a)),
		     span_str(s->dt, b, sizeof(b)));
	if (g && t) {
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %d", (int)t->tid);
		if (g->sys >= 0)
			n += snprintf(line + n, sizeof(line) - (size_t)n, " [%s]", proc_syscall_label(g->sys, nb, sizeof(nb)));
		n += snprintf(line + n, sizeof(line) - (size_t)n, ":");
		for (int k = 0; k < TM_TS_COUNT && n < (int)sizeof(line) - 64; k++) {
			int best = -1;
			for (int st = TM_TS_RUN; st < TM_TS_COUNT; st++)
				if (!done[st] && g->ns[st] && (best < 0 || g->ns[st] > g->ns[best]))
					best = st;
			if (best < 0)
				break;
			done[best] = true;
			const char *what = best == TM_TS_RUN ? _("on CPU") : best == TM_TS_SYS ? _("in a system call")
				: best == TM_TS_RUNQ ? _("waiting for a CPU") : tm_reason_label((enum tm_reason)(best - TM_TS_BLOCK));
			n += snprintf(line + n, sizeof(line) - (size_t)n, " %c %s %s", state_ch((enum tm_tl_state)best), what,
				      span_str(g->ns[best], a, sizeof(a)));
		}
		static const struct { unsigned m; const char *what; } marks[] = {
			{ TM_TM_WOKEN, N_("! woken") }, { TM_TM_WAKER, N_("^ woke a thread") },
			{ TM_TM_FAULT, N_("f page fault") }, { TM_TM_SAMPLE, N_("* sample") },
		};
		for (size_t k = 0; k < sizeof(marks) / sizeof(marks[0]) && n < (int)sizeof(line) - 48; k++)
			if (g->marks & marks[k].m)
				n += snprintf(line + n, sizeof(line) - (size_t)n, "; %s", _(marks[k].what));
	}
	draw_text(y, 0, -1, draw_attr(COL_NORMAL), line);
}

/* The interval marked: the selected thread's breakdown of just it. */
static void draw_interval(struct tl_screen *s, int y)
{
	const struct tm_snapshot *sn = s->t.shown;
	const struct tm_thread *t = row_thread(s, table_selected(&s->tab));
	char line[512], a[24], b[24], c1[24], c2[24], c3[24];

	if (!s->m0) {
		draw_text(y, 0, -1, draw_attr(COL_DIM),
			  _("# on CPU  = syscall  + waiting for CPU  blocked: . sleep L lock ~ poll D I/O - IPC F fault _ other"
			    "  marks: ^ woke ! woken f fault * sample  blank: no record yet"));
		return;
	}
	if (!s->m1) {
		draw_text(y, 0, -1, draw_attr(COL_WARN), _("interval begun at the cursor: m again at its end"));
		return;
	}
	if (!t)
		return;
	struct tm_tlcell c;
	uint64_t lo = s->m0 < s->m1 ? s->m0 : s->m1, hi = s->m0 < s->m1 ? s->m1 : s->m0;
	tm_tl_grid(sn->tl, sn->ntl, &t->tid, 1, lo, hi - lo, 1, &c);
	uint64_t blk = 0;
	for (int st = TM_TS_BLOCK; st < TM_TS_COUNT; st++)
		blk += c.ns[st];
	int n = snprintf(line, sizeof(line), _("interval %s, %d: CPU %s (syscalls %s), CPU wait %s, blocked %s"),
			 span_str(hi - lo, a, sizeof(a)), (int)t->tid, span_str(c.ns[TM_TS_RUN] + c.ns[TM_TS_SYS], b, sizeof(b)),
			 span_str(c.ns[TM_TS_SYS], c1, sizeof(c1)), span_str(c.ns[TM_TS_RUNQ], c2, sizeof(c2)),
			 span_str(blk, c3, sizeof(c3)));
	for (int st = TM_TS_BLOCK; st < TM_TS_COUNT && n < (int)sizeof(line) - 48; st++)
		if (c.ns[st])
			n += snprintf(line + n, sizeof(line) - (size_t)n, ", %s %s", tm_reason_label((enum tm_reason)(st - TM_TS_BLOCK)),
				      span_str(c.ns[st], b, sizeof(b)));
	draw_text(y, 0, -1, draw_attr(COL_WARN) | A_BOLD, line);
}

static void draw_axis(struct tl_screen *s, int y)
{
	char l[32], r[32], a[24];
	uint64_t re = right_edge(s), now = newest(s);

	draw_blank(y, 0, -1, draw_attr(COL_HEADER));
	draw_text(y, 0, LABEL_W, draw_attr(COL_HEADER), _("    TID THREAD"));
	snprintf(l, sizeof(l), "-%s", span_str(now > s->g0 ? now - s->g0 : 0, a, sizeof(a)));
	if (now > re)
		snprintf(r, sizeof(r), "-%s|", span_str(now - re, a, sizeof(a)));
	else
		snprintf(r, sizeof(r), "%s|", _("now"));
	draw_text(y, LABEL_W, -1, draw_attr(COL_HEADER), l);
	draw_text_right(y, LABEL_W, s->ncols, draw_attr(COL_HEADER), r);
	draw_text(y, LABEL_W + s->cur, 1, draw_attr(COL_HEADER) | A_BOLD, "v");
}

static void tl_draw(struct ui *ui, void *st, int y0, int rows)
{
	struct tl_screen *s = st;
	int y = y0;
	char a[24];

	(void)ui;
	if (s->t.stale && s->t.shown) {
		s->t.stale = false;
		table_set_count(&s->tab, (int)s->t.shown->nthreads);
	}
	draw_blank(y, 0, -1, draw_attr(COL_TITLE));
	draw_textf(y++, 0, -1, draw_attr(COL_TITLE), _(" Timeline: PID %d (%s), %s across%s"), (int)s->id.pid, s->comm,
		   span_str(s->span, a, sizeof(a)), s->t.frozen ? _("  [frozen: Space]") : "");
	int n = ui_time_draw_state(&s->t, y, rows - 1);
	if (n >= 0)
		return;
	const struct tm_snapshot *sn = s->t.shown;
	if (!sn->ntl) {
		draw_text(y, 0, -1, draw_attr(COL_WARN), _("No timeline: only the trace tier keeps the scheduler's records"));
		return;
	}
	unsigned long long dropped = 0;
	bool sampled = false;
	for (size_t i = 0; i < sn->ntl; i++) {
		dropped += sn->tl[i]->dropped;
		sampled |= sn->tl[i]->sampled;
	}
	if (sampled || dropped)
		draw_textf(y++, 0, -1, draw_attr(COL_WARN),
			   _("Tier %s, sampled: it traced part of each second only, or %llu records did not fit: the rows have gaps"),
			   tm_tier_name(sn->tier), dropped);
	else
		draw_textf(y++, 0, -1, draw_attr(COL_DIM), _("Tier %s: every scheduler switch, wakeup, system call and page fault; samples at %d Hz"),
			   tm_tier_name(sn->tier), TM_TL_SAMPLE_HZ);
	int ncols = draw_cols() - LABEL_W;
	if (ncols < 8 || rows - (y - y0) < 4) {
		draw_text(y, 0, -1, draw_attr(COL_WARN), _("the terminal is too small for the timeline"));
		return;
	}
	if (s->cur >= ncols)
		s->cur = ncols - 1;
	int body = table_layout(&s->tab, y + 1, rows - (y - y0) - 3, false);
	if (body > TL_ROWS_MAX)
		body = TL_ROWS_MAX;
	if (!make_grid(s, s->tab.top, body, ncols)) {
		draw_text(y, 0, -1, draw_attr(COL_ERROR), _("out of memory"));
		return;
	}
	draw_axis(s, y++);
	int sel = table_selected(&s->tab) - s->tab.top;
	for (int i = 0; i < body; i++) {
		const struct tm_thread *t = row_thread(s, s->tab.top + i);
		if (t)
			draw_row(s, y + i, i, t, i == sel);
	}
	y += body;
	draw_detail(s, y++, sel >= 0 && sel < body ? sel : -1);
	draw_interval(s, y);
}

static bool tl_message(void *ctx, struct ring_msg *m)
{
	struct tl_screen *s = ctx;
	return ui_time_message(&s->t, m);
}

/* Hold the data still: a pan, zoom or jump looks at a fixed window. */
static void hold(struct tl_screen *s)
{
	if (!s->end)
		s->end = newest(s);
	if (!s->t.frozen)
		ui_time_freeze(&s->t);
}

/* Put the right edge at e, kept inside what is kept. */
static void set_end(struct tl_screen *s, uint64_t e)
{
	uint64_t lo = oldest(s) + s->span, hi = newest(s);
	s->end = e < lo ? lo : e > hi ? hi : e;
}

static void zoom(struct tl_screen *s, bool out)
{
	uint64_t at = cur_time(s);

	if (!s->t.shown || !s->ncols)
		return;
	hold(s);
	uint64_t span = out ? s->span * 2 : s->span / 2;
	uint64_t most = (s->t.shown->timeline_s ? s->t.shown->timeline_s : TL_SECONDS) * 1000000000ull;
	span = span < TL_MIN_SPAN ? TL_MIN_SPAN : span > most ? most : span;
	s->span = span;
	/* The time under the cursor stays under it. */
	uint64_t dt = span / (uint64_t)s->ncols;
	set_end(s, at + dt * (uint64_t)(s->ncols - s->cur) - dt / 2);
}

static bool k_zoom_in(struct ui *ui, void *st, int ch)
{
	zoom(st, false);
	return true;
}

static bool k_zoom_out(struct ui *ui, void *st, int ch)
{
	zoom(st, true);
	return true;
}

static void pan(struct tl_screen *s, bool later)
{
	uint64_t step = s->span / 8;

	if (!s->t.shown)
		return;
	hold(s);
	set_end(s, later ? s->end + step : s->end > step ? s->end - step : 0);
}

static bool k_pan_left(struct ui *ui, void *st, int ch)
{
	pan(st, false);
	return true;
}

static bool k_pan_right(struct ui *ui, void *st, int ch)
{
	pan(st, true);
	return true;
}

static bool k_cur_left(struct ui *ui, void *st, int ch)
{
	struct tl_screen *s = st;

	if (s->cur > 0)
		s->cur--;
	return true;
}

static bool k_cur_right(struct ui *ui, void *st, int ch)
{
	struct tl_screen *s = st;

	if (s->cur + 1 < s->ncols)
		s->cur++;
	return true;
}

/* b, r: the cursor on the selected thread's next block / run-queue wait
 * over the threshold (the view moved to it). */
static void jump(struct ui *ui, struct tl_screen *s, bool blk)
{
	const struct tm_thread *t = row_thread(s, table_selected(&s->tab));
	const struct tm_snapshot *sn = s->t.shown;
	char a[24];

	if (!t || !s->ncols)
		return;
	hold(s);
	unsigned mask = blk ? ((1u << TM_TS_COUNT) - 1) & ~((1u << TM_TS_BLOCK) - 1) : 1u << TM_TS_RUNQ;
	uint64_t min = blk ? TL_BLOCK_NS : TL_RUNQ_NS, end = 0;
	uint64_t at = tm_tl_next(sn->tl, sn->ntl, t->tid, cur_time(s) + s->dt / 2, mask, min, &end);
	if (!at) {
		ui_message(ui, false, blk ? _("no later block of %s or more in thread %d") : _("no later run-queue wait of %s or more in thread %d"),
			   span_str(min, a, sizeof(a)), (int)t->tid);
		return;
	}
	/* The stretch's start under the cursor, a quarter in from the left. */
	s->cur = s->ncols / 4;
	set_end(s, at + s->dt * (uint64_t)(s->ncols - s->cur));
	uint64_t dt = s->span / (uint64_t)s->ncols, g0 = s->end - dt * (uint64_t)s->ncols;
	s->cur = at > g0 ? (int)((at - g0) / dt) : 0;
	ui_message(ui, false, blk ? _("a block of %s") : _("a run-queue wait of %s"), span_str(end - at, a, sizeof(a)));
}

static bool k_block(struct ui *ui, void *st, int ch)
{
	jump(ui, st, true);
	return true;
}

static bool k_runq(struct ui *ui, void *st, int ch)
{
	jump(ui, st, false);
	return true;
}

static bool k_mark(struct ui *ui, void *st, int ch)
{
	struct tl_screen *s = st;

	if (!s->t.shown || !s->ncols)
		return true;
	hold(s);
	if (!s->m0 || s->m1) {
		s->m0 = s->m1 ? 0 : cur_time(s);
		s->m1 = 0;
		if (!s->m0)
			ui_message(ui, false, "%s", _("interval cleared"));
	} else {
		s->m1 = cur_time(s);
		if (s->m1 == s->m0)
			s->m1++;
	}
	return true;
}

static bool k_live(struct ui *ui, void *st, int ch)
{
	struct tl_screen *s = st;

	(void)ch;
	if (s->t.frozen) {
		ui_time_freeze(&s->t);
		s->end = 0;
	} else {
		hold(s);
	}
	ui_message(ui, false, "%s", s->t.frozen ? _("frozen: measuring goes on; Space shows the newest") : _("live"));
	return true;
}

static const struct ui_key tl_keys[] = {
	{ .keys = "+, -", .bar = "+-", .fn = k_zoom_in, .label = N_("Zoom"), .help = N_("zoom in / out around the cursor"),
	  .codes = { '+', '=' } },
	UI_ALSO(k_zoom_out, '-', '_'),
	UI_KEY("Left/Right", k_pan_left, N_("Pan"), N_("move the view an eighth earlier / later"), KEY_LEFT),
	UI_ALSO(k_pan_right, KEY_RIGHT),
	{ .keys = N_("< >  (or , .)"), .bar = "<>", .fn = k_cur_left, .label = N_("Cursor"),
	  .help = N_("move the cursor a cell; the detail line shows its events"), .codes = { ',', '<' } },
	UI_ALSO(k_cur_right, '.', '>'),
	UI_KEY("b", k_block, N_("Block"), N_("the selected thread's next block of 10 ms or more"), 'b'),
	UI_KEY("r", k_runq, N_("RunQ"), N_("its next wait for a CPU of 1 ms or more (runnable but late)"), 'r'),
	UI_KEY("m", k_mark, N_("Mark"), N_("mark an interval at the cursor (start, end; again: clear): its breakdown"), 'm'),
	{ .keys = "Space", .bar = "Spc", .fn = k_live, .label = N_("Freeze"),
	  .help = N_("freeze the view (measuring goes on) / follow the newest again"), .codes = { ' ' } },
	UI_KEY("Up/Down, PgUp/PgDn", NULL, NULL, N_("select a thread / scroll")),
	UI_LOOP("Esc", 27),
	UI_LOOP("F10, q", KEY_F(10), 'q'),
	UI_KEYS_END,
};

static bool tl_key(struct ui *ui, void *st, int ch)
{
	struct tl_screen *s = st;

	(void)ui;
	return s->t.shown && table_key(&s->tab, ch, NULL, NULL) != TABLE_KEY_NONE;
}

static bool tl_selected(void *st, struct target_id *id)
{
	*id = ((struct tl_screen *)st)->id;
	return true;
}

static void tl_destroy(void *st)
{
	struct tl_screen *s = st;

	ui_time_stop(&s->t);
	table_free(&s->tab);
	free(s->grid);
	free(s);
}

const struct screen_ops screen_timeline_ops = {
	.name = N_("Timeline"),
	.help = "timeline",
	.keys = tl_keys,
	.fbar = "F1 +- Left/Right <> b r m Spc Esc",
	.draw = tl_draw,
	.key = tl_key,
	.selected = tl_selected,
	.destroy = tl_destroy,
};

static void tl_open_checked(struct ui *ui, const struct target_info *ti)
{
	struct tl_screen *s = calloc(1, sizeof(*s));
	struct tm_opts o = { .tier = TM_TIER_TRACE, .timeline_s = TL_SECONDS };

	if (!s) {
		ui_message(ui, true, "%s", _("out of memory"));
		return;
	}
	s->id = ti->id;
	strlcpy_ps(s->comm, ti->comm, sizeof(s->comm));
	s->span = TL_SECONDS * 1000000000ull;
	s->cur = 1 << 20; /* the last cell, once the width is known */
	table_init(&s->tab, NULL, 0, -1, false);
	struct job_handler h = { tl_message, s };
	ui_time_start_opts(ui, &s->t, &s->id, &h, &o);
	ui_push(ui, &screen_timeline_ops, s);
}

void screen_timeline_open(struct ui *ui, const struct target_id *id)
{
	ui_check_target(ui, id, tl_open_checked);
}
