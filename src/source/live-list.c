/* The live process list: on each tick the system meters and a scan of
 * /proc (src/proc/ptable.c), the PX_* extras of the rows on screen (or of
 * every row while sorted by one), copied into a snapshot with the rates
 * made against the last one. Between ticks, a screen that scrolled gets
 * the extras of the rows it now shows on top of the last scan. */
#include "source/source.h"
#include "source/live-rec.h"
#include "i18n.h"
#include "proc/ptable.h"
#include "proc/sysinfo.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct live_list {
	struct ptable *pt;
	const struct ps_clock *clk;
	struct sys_stat *stat;     /* scratch: large, only ncpu entries touched */
	bool have_sys;
	struct sys_meminfo mem;
	struct sys_loadavg load;
	double uptime;
	bool started;
	/* CPU% of every row, and the meters, over the last ticks */
	struct hist_set rows_hist, meters_hist;
	/* R: the ticks recorded (NULL: not recording); the last tick's
	 * snapshot, the frame before the next */
	struct live_rec *rec;
	struct snap_head *rec_last;
	char rec_err[SNAP_REC_PATH + 160]; /* the last start that failed, said once */
	char rec_tried[SNAP_REC_PATH];
};

static void live_close(void *st)
{
	struct live_list *l = st;

	if (!l)
		return;
	live_rec_stop(l->rec);
	snap_put(l->rec_last);
	ptable_free(l->pt);
	free(l->stat);
	hist_free(&l->rows_hist);
	hist_free(&l->meters_hist);
	free(l);
}

/* The table and the meters now, as a snapshot. */
static struct snap_list *snapshot(struct live_list *l, bool threads, uint64_t t_ns, double wall)
{
	struct sys_snapshot sys = {
		.ncpu = l->stat->ncpu, .cpu_id = l->stat->cpu_id, .total_t = l->stat->total, .cpu_t = l->stat->cpu,
		.mem = l->mem, .load = l->load, .uptime = l->uptime,
	};
	return snap_list_of(l->pt, threads, t_ns, wall, l->have_sys ? &sys : NULL);
}

/* The meters' keys in meters_hist: each CPU by its number, then these. */
static uint64_t meter_key(int k)
{
	return k < 0 ? (1ull << 40) + (uint64_t)(-k) : (uint64_t)k;
}

/* A tick's values into the histories: each row's CPU% and the meters'. */
static void push_hist(struct live_list *l, const struct snap_list *s)
{
	for (size_t i = 0; i < s->n; i++)
		hist_push(&l->rows_hist, hist_key(s->rows[i]->pid, s->rows[i]->starttime), (float)s->rows[i]->cpu);
	hist_end_tick(&l->rows_hist);
	if (!s->have_sys)
		return;
	const struct sys_snapshot *y = &s->sys;
	const struct sys_meminfo *m = &y->mem;
	for (int i = 0; i < y->ncpu; i++)
		hist_push(&l->meters_hist, meter_key(y->cpu_id[i]), (float)y->cpu[i].busy);
	hist_push(&l->meters_hist, meter_key(-1 - SNAP_METER_AVG), (float)y->total.busy);
	hist_push(&l->meters_hist, meter_key(-1 - SNAP_METER_MEM), m->total ? (float)m->used / (float)m->total : 0);
	unsigned long long sused = m->swap_total > m->swap_free ? m->swap_total - m->swap_free : 0;
	hist_push(&l->meters_hist, meter_key(-1 - SNAP_METER_SWAP),
		  m->swap_total ? (float)sused / (float)m->swap_total : 0);
	hist_end_tick(&l->meters_hist);
}

/* Copies of the histories into s: the rows' when w wants them (a column
 * or the sort), the meters' always. Out of memory: left out (the screen
 * then draws no graph). */
static void copy_hist(const struct live_list *l, struct snap_list *s, const struct source_want *w)
{
	if (((w->px_rows | w->px_all) & PX_HIST) && (s->cpu_hist = malloc((s->n + 1) * HIST_LEN * sizeof(float))))
		for (size_t i = 0; i < s->n; i++)
			hist_copy(&l->rows_hist, hist_key(s->rows[i]->pid, s->rows[i]->starttime), s->cpu_hist + i * HIST_LEN);
	int nm = s->have_sys ? s->sys.ncpu + SNAP_METER_EXTRA : 0;
	if (nm && (s->meter_hist = malloc((size_t)nm * HIST_LEN * sizeof(float)))) {
		for (int i = 0; i < s->sys.ncpu; i++)
			hist_copy(&l->meters_hist, meter_key(s->sys.cpu_id[i]), s->meter_hist + (size_t)i * HIST_LEN);
		for (int k = 0; k < SNAP_METER_EXTRA; k++)
			hist_copy(&l->meters_hist, meter_key(-1 - k), s->meter_hist + (size_t)(s->sys.ncpu + k) * HIST_LEN);
	}
}

/* The meters: all four files, or none (the header is left out). */
static void read_sys(struct live_list *l)
{
	l->have_sys = sys_stat_read(l->stat) == 0 && sys_meminfo_read(&l->mem) == 0 && sys_loadavg_read(&l->load) == 0 &&
		      sys_uptime_read(&l->uptime) == 0;
	if (l->have_sys)
		ptable_set_mem_total(l->pt, l->mem.total);
}

/* The extras w asks for; true when something was read. A row's extras
 * are read in one go (ptable_fill_extra reads each at most once a scan). */
static bool fill(struct live_list *l, pid_t pid, unsigned want)
{
	want &= ~PX_HIST; /* the source's own: nothing to read */
	if (!want || (ptable_filled(l->pt, pid) & want) == want)
		return false;
	ptable_fill_extra(l->pt, pid, want);
	return true;
}

static bool read_extras(struct live_list *l, const struct source_want *w)
{
	bool any = false;

	for (int k = 0; w->px_rows && k < w->nrows; k++)
		any |= fill(l, w->rows[k], w->px_rows | w->px_all);
	for (size_t i = 0; w->px_all && i < ptable_size(l->pt); i++)
		any |= fill(l, ptable_row(l->pt, i)->pid, w->px_all);
	return any;
}

static int scan(struct live_list *l, const struct source_want *w, struct ps_error *e)
{
	read_sys(l);
	ptable_set_eager(l->pt, w->all_rows);
	if (ptable_scan(l->pt, w->threads, e) < 0)
		return -e->code;
	read_extras(l, w);
	return 0;
}

/* R: start or stop recording as w asks; a recording reads what a
 * recorder reads (every row, every extra) into *ww. */
static const struct source_want *recording(struct live_list *l, const struct source_want *w, struct source_want *ww)
{
	/* Off, or on again into another file before a tick saw it off. */
	if (l->rec && (!w->record || strcmp(l->rec_tried, w->record_path))) {
		live_rec_stop(l->rec);
		l->rec = NULL;
		snap_put(l->rec_last);
		l->rec_last = NULL;
	}
	if (!w->record)
		l->rec_tried[0] = '\0';
	if (!w->record && !l->rec)
		return w;
	*ww = *w;
	ww->all_rows = true;
	ww->px_all |= LIVE_REC_PX;
	return ww;
}

/* A tick's snapshot recorded (the recording started at the first). */
static void record_tick(struct live_list *l, const struct source_want *w, struct snap_list *s)
{
	/* The frame's wall clock at its t_ns (the scan's start), as pscope
	 * record has it. */
	s->h.wall = clock_wall_s(l->clk) - (double)(int64_t)(clock_mono_ns(l->clk) - s->h.t_ns) / 1e9;
	s->times.wall = s->h.wall;
	if (!l->rec && strcmp(l->rec_tried, w->record_path)) {
		struct ps_error e;
		ps_error_clear(&e);
		strlcpy_ps(l->rec_tried, w->record_path, sizeof(l->rec_tried));
		l->rec_err[0] = '\0';
		if (live_rec_start(&l->rec, w->record_path, s, (double)w->interval_ms / 1000.0, &e) < 0)
			snprintf(l->rec_err, sizeof(l->rec_err), "%s", e.msg);
	}
	if (!l->rec) {
		strlcpy_ps(s->live_rec.path, w->record_path, sizeof(s->live_rec.path));
		strlcpy_ps(s->live_rec.err, l->rec_err, sizeof(s->live_rec.err));
		return;
	}
	live_rec_add(l->rec, s, (const struct snap_list *)l->rec_last);
	snap_put(l->rec_last);
	l->rec_last = snap_get(&s->h);
}

static int live_read(void *st, const struct source_io *io, const struct source_want *want,
		     const struct snap_head *last, bool tick, struct snap_head **out, struct ps_error *e)
{
	struct live_list *l = st;
	const struct snap_list *prev = (const struct snap_list *)last;
	struct snap_list *s;
	struct source_want ww;
	const struct source_want *w = recording(l, want, &ww);

	*out = NULL;
	if (!tick) {
		/* Rows scrolled into view, or a sort by an extra: on top of
		 * the last scan. */
		if (!prev || prev->threads != w->threads || !read_extras(l, w))
			return 0;
		s = snapshot(l, w->threads, prev->h.t_ns, prev->h.wall);
	} else {
		if (scan(l, w, e) < 0)
			return -e->code;
		if (!l->started) {
			/* Two scans 0.1 s apart: CPU% and the CPU bars have
			 * values from the first snapshot on. */
			struct snap_list *first = snapshot(l, w->threads, ptable_scan_ns(l->pt), clock_wall_s(l->clk));
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			l->started = true;
			if (first) {
				snap_list_rates(NULL, first);
				nanosleep(&ts, NULL);
				if (!atomic_load(io->cancel) && scan(l, w, e) < 0) {
					snap_put(&first->h);
					return -e->code;
				}
			}
			prev = first;
			s = snapshot(l, w->threads, ptable_scan_ns(l->pt), clock_wall_s(l->clk));
			if (s)
				snap_list_rates(prev, s);
			snap_put(first ? &first->h : NULL);
			goto made;
		}
		s = snapshot(l, w->threads, ptable_scan_ns(l->pt), clock_wall_s(l->clk));
	}
	if (s)
		snap_list_rates(prev, s);
made:
	if (!s)
		return -ps_error_set(e, ENOMEM, "%s", _("out of memory while copying the process list"));
	if (tick)
		push_hist(l, s);
	copy_hist(l, s, w);
	if (tick && want->record)
		record_tick(l, want, s);
	else if (l->rec)
		live_rec_note(l->rec, s);
	*out = &s->h;
	return 0;
}

static const struct source_ops live_list_ops = {
	.name = "live list",
	.read = live_read,
	.close = live_close,
};

int source_live_list(struct source *out, const struct ps_clock *clk, bool primed)
{
	struct live_list *l = calloc(1, sizeof(*l));

	memset(out, 0, sizeof(*out));
	if (!l)
		return -ENOMEM;
	l->clk = clk;
	l->started = !primed;
	l->pt = ptable_new(clk);
	/* malloc, not calloc: only the entries of the CPUs present are
	 * written, so the rest never becomes resident. */
	l->stat = malloc(sizeof(*l->stat));
	if (!l->pt || !l->stat) {
		int err = errno ? errno : ENOMEM;
		live_close(l);
		return -err;
	}
	memset(l->stat, 0, offsetof(struct sys_stat, cpu_id));
	out->ops = &live_list_ops;
	out->st = l;
	return 0;
}
