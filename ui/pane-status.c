/* Status pane: identity, memory, context switches and faults with their
 * rates, capabilities, seccomp, tracer, affinity, oom score, cgroup,
 * namespaces, start time, cwd and exe. The data is the snapshot's header
 * (stat, status and the extras), read on every tick. */
#include "pane.h"
#include "draw.h"
#include "i18n.h"
#include "textview.h"
#include "proc/caps.h"
#include "util.h"
#include "i18n.h"

#define NCURSES_WIDECHAR 1
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdarg.h>
#include <ncursesw/curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct status_pane {
	struct textview tv;    /* the lines, rebuilt on every draw */
};

static void *status_create(void)
{
	struct status_pane *p = calloc(1, sizeof(*p));

	if (p)
		textview_init(&p->tv, 18);
	return p;
}

static void status_destroy(void *st)
{
	struct status_pane *p = st;
	textview_free(&p->tv);
	free(p);
}

/* Why cwd or exe cannot be shown: the door sentence the source made. */
static const char *refused(int err, const struct ps_error *e, char *out, size_t size)
{
	if (err == -ENOENT)
		snprintf(out, size, "%s", _("(none: kernel thread)"));
	else
		ps_error_str(e, out, size);
	return out;
}

struct lines {
	struct textview *tv;
};

static void put(struct lines *l, int attr, const char *label, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(struct lines *l, int attr, const char *label, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	textview_add(l->tv, attr, label, buf);
}

static void put_kb(struct lines *l, const char *label, long kb)
{
	char h[32];
	if (kb >= 0)
		put(l, 0, label, "%10ld kB  %s", kb, human_bytes((unsigned long long)kb * 1024, h, sizeof(h)));
}

static void put_rate(struct lines *l, const struct pane_ctx *c, const char *label, unsigned long v, double rate)
{
	if (c->have_rates)
		put(l, rate > 0 ? A_BOLD : 0, label, "%10lu   %8.1f/s", v, rate);
	else
		put(l, 0, label, "%10lu", v);
}

/* CPU% and RSS over the last minute (the detail screen's history), one
 * sparkline each, newest on the right: 60 glyphs of a second each. */
static void put_history(struct lines *l, const struct pane_ctx *c)
{
	enum { SECS = 60 };
	const struct pane_hist *h = c->hist;
	float cpu[SECS], rss[SECS];
	char spark[SECS * 3 + 1], a[32], b[32];
	double end = h->n ? h->t[(h->head + h->n - 1) % PANE_HIST_MAX] : 0;
	float top = 0;
	long rtop = 0;

	if (!h->n)
		return;
	for (int i = 0; i < SECS; i++)
		cpu[i] = rss[i] = NAN;
	for (int i = 0; i < h->n; i++) {
		int k = (h->head + i) % PANE_HIST_MAX, x = SECS - 1 - (int)(end - h->t[k] + 0.5);
		if (x < 0 || x >= SECS)
			continue;
		cpu[x] = h->cpu_pct[k];
		rss[x] = (float)h->rss_kb[k];
		if (h->cpu_pct[k] > top)
			top = h->cpu_pct[k];
		if (h->rss_kb[k] > rtop)
			rtop = h->rss_kb[k];
	}
	/* A second the refresh skipped keeps the value before it. */
	for (int x = 1; x < SECS; x++)
		if (isnan(cpu[x]) && !isnan(cpu[x - 1])) {
			cpu[x] = cpu[x - 1];
			rss[x] = rss[x - 1];
		}
	/* CPU on a scale of one CPU (more when threads used more). */
	put(l, 0, _("CPU, 1 min"), "%s %5.1f%%  (max %.1f%%)", draw_sparkline(cpu, SECS, top > 100 ? top : 100, SECS, spark, sizeof(spark)),
	    cpu[SECS - 1] == cpu[SECS - 1] ? cpu[SECS - 1] : 0, top);
	put(l, 0, _("RSS, 1 min"), "%s %s  (max %s)", draw_sparkline(rss, SECS, 0, SECS, spark, sizeof(spark)),
	    human_bytes((unsigned long long)h->rss_kb[(h->head + h->n - 1) % PANE_HIST_MAX] * 1024, a, sizeof(a)),
	    human_bytes((unsigned long long)rtop * 1024, b, sizeof(b)));
}

static void status_draw(void *st, const struct pane_ctx *c, int y0, int rows)
{
	struct status_pane *p = st;
	const struct proc_info *i = c->info;
	const struct proc_status *s = &i->status;
	struct lines l = { .tv = &p->tv };
	char caps[1024], when[64], pa[64], pb[64], why[1024];
	time_t t = (time_t)i->start_epoch;
	struct tm tm;

	textview_clear(&p->tv);
	put(&l, A_BOLD, _("State"), "%c (%s)", i->stat.state, _(proc_state_name(i->stat.state)));
	put_history(&l, c);
	put(&l, 0, "PPid", "%d", (int)s->ppid);
	if (proc_info_in_container(i)) {
		char ct[256], ns[96];
		size_t n = 0;
		ns[0] = '\0';
		for (int k = 0; k < s->nspid_n && n < sizeof(ns); k++)
			n += (size_t)snprintf(ns + n, sizeof(ns) - n, "%s%d", k ? " " : "", (int)s->nspid[k]);
		if (s->nspid_n > 1)
			put(&l, 0, "NSpid", "%s", ns);
		put(&l, draw_attr(COL_WARN) | A_BOLD, _("Container"), "%s",
		    proc_info_container_text(i, c->pid, ct, sizeof(ct)));
	}
	put(&l, 0, "Uid", _("%u (%s)  effective %u  saved %u  fs %u"), s->uid_real, i->user, s->uid_eff, s->uid_saved, s->uid_fs);
	put(&l, 0, "Gid", _("%u (%s)  effective %u  saved %u  fs %u"), s->gid_real, i->group, s->gid_eff, s->gid_saved, s->gid_fs);
	put(&l, 0, _("Threads"), "%ld", s->threads);
	put_kb(&l, "VmPeak", s->vm_peak);
	put_kb(&l, "VmSize", s->vm_size);
	put_kb(&l, "VmRSS", s->vm_rss);
	put_kb(&l, "RssAnon", s->rss_anon);
	put_kb(&l, "RssFile", s->rss_file);
	put_kb(&l, "RssShmem", s->rss_shmem);
	put_kb(&l, "VmSwap", s->vm_swap);
	if (c->have_rates)
		put(&l, 0, "", "%s   %s", draw_pad(pa, sizeof(pa), _("total"), 10, true),
		    draw_pad(pb, sizeof(pb), _("per second"), 10, true));
	put_rate(&l, c, _("Voluntary csw"), s->voluntary_ctxt, c->rates->vol_ctxt_s);
	put_rate(&l, c, _("Involuntary csw"), s->nonvoluntary_ctxt, c->rates->nonvol_ctxt_s);
	put_rate(&l, c, _("Minor faults"), i->stat.minflt, c->rates->minflt_s);
	put_rate(&l, c, _("Major faults"), i->stat.majflt, c->rates->majflt_s);
	proc_caps_str(s->cap_eff, caps, sizeof(caps));
	put(&l, s->cap_eff ? draw_attr(COL_WARN) : 0, "CapEff", "%s", caps);
	proc_caps_str(s->cap_prm, caps, sizeof(caps));
	put(&l, 0, "CapPrm", "%s", caps);
	proc_caps_str(s->cap_inh, caps, sizeof(caps));
	put(&l, 0, "CapInh", "%s", caps);
	proc_caps_str(s->cap_bnd, caps, sizeof(caps));
	put(&l, 0, "CapBnd", "%s", caps);
	proc_caps_str(s->cap_amb, caps, sizeof(caps));
	put(&l, 0, "CapAmb", "%s", caps);
	put(&l, 0, "Seccomp", "%s%s", s->seccomp == 0 ? _("disabled") : s->seccomp == 1 ? _("strict") : s->seccomp == 2 ? _("filter") : _("unknown"),
	    s->seccomp == 2 ? (s->seccomp_filters == 1 ? _(" (1 filter)") : _(" (filters)")) : "");
	put(&l, 0, "NoNewPrivs", "%d", s->no_new_privs);
	if (s->tracer_pid > 0)
		put(&l, draw_attr(COL_WARN) | A_BOLD, "TracerPid", "%d (%s)", (int)s->tracer_pid, i->tracer_comm);
	else
		put(&l, 0, "TracerPid", "%s", _("0 (not traced)"));
	put(&l, 0, _("Cpus allowed"), "%s", s->cpus_allowed_list);
	if (i->oom_score != INT_MIN)
		put(&l, 0, "oom_score", "%d  (oom_score_adj %d)", i->oom_score, i->oom_score_adj);
	for (const char *cg = i->cgroup, *label = _("Cgroup"); *cg; label = "") {
		size_t n = strcspn(cg, "\n");
		put(&l, 0, label, "%.*s", (int)n, cg);
		cg += n + (cg[n] == '\n');
	}
	for (int k = 0; k < PROC_NS_COUNT; k++)
		if (i->ns[k].ino)
			put(&l, 0, k ? "" : _("Namespaces"), "%-7s %llu", i->ns[k].name, i->ns[k].ino);
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	put(&l, 0, _("Started"), _("%s (%.0f s ago)"), when, i->uptime_s);
	if (i->cwd_err)
		put(&l, draw_attr(COL_ERROR), "Cwd", "%s", refused(i->cwd_err, &c->snap->cwd_err, why, sizeof(why)));
	else
		put(&l, 0, "Cwd", "%s", i->cwd);
	if (i->exe_err)
		put(&l, draw_attr(COL_ERROR), "Exe", "%s", refused(i->exe_err, &c->snap->exe_err, why, sizeof(why)));
	else
		put(&l, 0, "Exe", "%s", i->exe);
	/* whole: put() would cut it at 8 KiB */
	textview_add(&p->tv, 0, _("Command"), c->cmdline ? c->cmdline : i->cmdline);
	textview_draw(&p->tv, y0, rows);
}

static bool status_key(void *st, const struct pane_ctx *c, int ch, int rows)
{
	struct status_pane *p = st;
	return textview_key(&p->tv, ch);
}

static bool status_search(void *st, const char *text, int dir, bool again)
{
	return textview_find(&((struct status_pane *)st)->tv, text, dir, again);
}

const struct pane_ops pane_status = {
	.desc = &pane_desc_status,
	.create = status_create,
	.destroy = status_destroy,
	.draw = status_draw,
	.on_key = status_key,
	.search = status_search,
};
