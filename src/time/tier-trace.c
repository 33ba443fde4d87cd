/* The tracepoint tier (root or CAP_PERFMON, tracefs; for a kernel or a
 * pscope without BPF): sched_switch, sched_wakeup and sched_wakeup_new on
 * every CPU, raw_syscalls sys_enter and sys_exit on each of the target's
 * threads, through the perf layer (src/perf/), every event a record read
 * here. On CPU and run-queue time come from Δschedstat (exact); the
 * records split the rest by reason, time the system calls and the
 * run-queue waits. Above a rate of events the tier traces part of each
 * second only (closing its events for the rest: a record costs the target
 * far more than a BPF program) and scales the counts, and says so. */
#include "time/tpriv.h"
#include "time/trace.h"
#include "doors/doors.h"
#include "i18n.h"
#include "perf/perf.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The tracepoints, in enum tt_kind's order. */
#define TP_SYS_ENTER TT_SYS_ENTER
#define TP_WAKEUP_NEW TT_WAKEUP_NEW
#define TP_COUNT TT_KINDS
static const char *const tp_names[TP_COUNT][2] = {
	{ "sched", "sched_switch" }, { "sched", "sched_wakeup" }, { "sched", "sched_wakeup_new" },
	{ "raw_syscalls", "sys_enter" }, { "raw_syscalls", "sys_exit" },
};

#define SLOT_NS 1000000000ULL  /* the rate is looked at, and tracing resumed, each second */
#define LAG_NS 10000000ULL     /* records this much older than the newest are in order */
#define F_MIN 0.05             /* the smallest share of a second traced */

struct trace_tier {
	struct perf_tp tps[TP_COUNT];
	int ntps;                /* without syscalls: the 3 sched ones */
	struct perf_event_attr attr[TP_COUNT];
	struct perf_event_attr sample_attr; /* the timeline's cpu-clock samples */
	struct perf_event_attr fault_attr;  /* the timeline's page faults (every one) */
	struct hmap fault_ids;   /* the fault events' ids: their samples are faults */
	struct perf_ring *rings;
	int *cpu_of;             /* rings[i] is on CPU cpu_of[i] */
	int nrings;
	int *sched_fds;          /* TP_WAKEUP_NEW + 1 per ring; -1 closed */
	struct perf_reader rd;
	struct tt_threads ts;
	struct tt_ev *q;         /* records read, not yet applied (by time) */
	size_t nq, qcap;
	uint64_t newest;
	bool on;                 /* the events are open */
	double f;                /* share of each second traced */
	uint64_t slot_end, on_since, on_until, on_ns; /* CLOCK_MONOTONIC */
	uint64_t slot_records, events, dropped_fds;
	bool sampled;
	struct tm_session *s;
};

int tm_trace_check(struct ps_error *e)
{
	char dir[64];
	int r = perf_tracefs(dir, sizeof(dir), e);

	if (r < 0)
		return r;
	if (!door_have_perfmon()) {
		ps_error_set(e, EPERM, _("the tracepoint tier reads the scheduler's events of every CPU: it needs CAP_PERFMON"));
		e->door = DOOR_PERF_CAP;
		snprintf(e->fix, sizeof(e->fix), "%s", _("run pscope as root, or `setcap cap_perfmon+ep pscope`"));
		return -EPERM;
	}
	return 0;
}

/* Per thread and ring: sys_enter, sys_exit, and for the timeline a
 * cpu-clock sampler and a page-fault event. */
static int per_ring(const struct trace_tier *tt)
{
	return tt->s->o.timeline ? 4 : 2;
}

static int ncpu_fds(const struct trace_tier *tt)
{
	return per_ring(tt) * tt->nrings;
}

/* Start following tid (its syscall events open when tracing is on). */
static struct tt_thread *add_thread(struct trace_tier *tt, pid_t tid)
{
	struct tt_thread *t = tt_find(&tt->ts, tid);

	if (t)
		return t;
	if (!(t = tt_add(&tt->ts, tid)))
		return NULL;
	if (!(t->fds = malloc((size_t)ncpu_fds(tt) * sizeof(int))))
		return NULL; /* kept, without syscall events */
	for (int i = 0; i < ncpu_fds(tt); i++)
		t->fds[i] = -1;
	return t;
}

static void open_syscalls(struct trace_tier *tt, struct tt_thread *t)
{
	if (tt->ntps < TP_COUNT || !t || !t->fds)
		return;
	for (int r = 0; r < tt->nrings; r++)
		for (int k = 0; k < per_ring(tt); k++) {
			int *fd = &t->fds[per_ring(tt) * r + k];
			uint64_t id;
			if (*fd >= 0)
				continue;
			if (k >= 2) { /* the timeline's samples and faults: not tracepoints */
				*fd = perf_open_into(k == 2 ? &tt->sample_attr : &tt->fault_attr, t->tid, tt->cpu_of[r],
						     &tt->rings[r]);
				if (*fd < 0) {
					tt->dropped_fds += *fd != -ESRCH;
					*fd = -1;
				} else if (k == 3 && (perf_event_id(*fd, &id) < 0 || hmap_put(&tt->fault_ids, id, 1) < 0)) {
					close(*fd); /* a fault not told from a sample: none */
					*fd = -1;
				}
				continue;
			}
			*fd = perf_open_into(&tt->attr[TP_SYS_ENTER + k], t->tid, tt->cpu_of[r], &tt->rings[r]);
			if (*fd < 0) { /* gone, or out of fds: that thread's syscalls are not timed */
				tt->dropped_fds += *fd != -ESRCH;
				*fd = -1;
			} else if (perf_event_id(*fd, &id) < 0 || perf_reader_add_tp(&tt->rd, id, &tt->tps[TP_SYS_ENTER + k]) < 0) {
				close(*fd);
				*fd = -1;
			}
		}
}

static void close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

static void drain(struct trace_tier *tt, bool all);

/* Open every event: tracing on, the stretches start unknown. */
static int events_on(struct trace_tier *tt, uint64_t now, struct ps_error *e)
{
	for (int r = 0; r < tt->nrings; r++)
		for (int k = 0; k <= TP_WAKEUP_NEW; k++) {
			int *fd = &tt->sched_fds[3 * r + k];
			uint64_t id;
			*fd = perf_open_into(&tt->attr[k], -1, tt->cpu_of[r], &tt->rings[r]);
			if (*fd < 0) {
				int err = *fd;
				*fd = -1;
				return perf_refused(e, -1, -err, _("trace the scheduler of every CPU"));
			}
			if (perf_event_id(*fd, &id) < 0 || perf_reader_add_tp(&tt->rd, id, &tt->tps[k]) < 0)
				return ps_error_set(e, ENOMEM, _("out of memory"));
		}
	tt_reset(&tt->ts);
	for (size_t i = 0; i < tt->ts.n; i++)
		open_syscalls(tt, &tt->ts.v[i]);
	tt->on = true;
	tt->on_since = now;
	tt->on_until = now + (uint64_t)(tt->f * (double)SLOT_NS);
	return 0;
}

static void events_off(struct trace_tier *tt, uint64_t now)
{
	drain(tt, true);
	close_fds(tt->sched_fds, 3 * tt->nrings);
	for (size_t i = 0; i < tt->ts.n; i++)
		if (tt->ts.v[i].fds)
			close_fds(tt->ts.v[i].fds, ncpu_fds(tt));
	hmap_clear(&tt->rd.tps); /* the closed events' ids */
	hmap_clear(&tt->fault_ids);
	tt->on = false;
	tt->on_ns += now > tt->on_since ? now - tt->on_since : 0;
}

static void on_tp(void *ctx, const struct perf_sample *smp, const struct perf_tp_event *ev)
{
	struct trace_tier *tt = ctx;
	struct tt_ev x = { .time = smp->time, .cpu = (int)smp->cpu, .tid = (pid_t)smp->tid };

	tt->slot_records++; /* every record costs, ours or not */

	switch (ev->tp->kind) {
	case PERF_TP_SCHED_SWITCH:
		if (!tt_find(&tt->ts, ev->sw.prev_pid) && !tt_find(&tt->ts, ev->sw.next_pid))
			return; /* another process's */
		x.kind = TT_SWITCH;
		x.a = ev->sw.prev_pid;
		x.b = ev->sw.next_pid;
		x.state_or_ret = ev->sw.prev_state;
		memcpy(x.comm, ev->sw.prev_comm, sizeof(x.comm));
		break;
	case PERF_TP_SCHED_WAKEUP:
	case PERF_TP_SCHED_WAKEUP_NEW: {
		bool is_new = ev->tp->kind == PERF_TP_SCHED_WAKEUP_NEW;
		char name[16];
		snprintf(name, sizeof(name), "%d", (int)ev->wk.pid);
		/* A new thread of the target appears in its task directory. */
		if (!tt_find(&tt->ts, ev->wk.pid) &&
		    !(is_new && faccessat(tt->s->ps.taskfd, name, F_OK, 0) == 0 && add_thread(tt, ev->wk.pid)))
			return;
		if (is_new && tt->on)
			open_syscalls(tt, tt_find(&tt->ts, ev->wk.pid));
		x.kind = is_new ? TT_WAKEUP_NEW : TT_WAKEUP;
		x.a = ev->wk.pid;
		break;
	}
	case PERF_TP_SYS_ENTER:
	case PERF_TP_SYS_EXIT:
		x.kind = ev->tp->kind == PERF_TP_SYS_ENTER ? TT_SYS_ENTER : TT_SYS_EXIT;
		x.a = (pid_t)(ev->tp->kind == PERF_TP_SYS_ENTER ? ev->enter.id : ev->exit.id);
		x.state_or_ret = ev->tp->kind == PERF_TP_SYS_EXIT ? ev->exit.ret : 0;
		break;
	default:
		return;
	}
	if (array_reserve((void **)&tt->q, &tt->qcap, tt->nq, sizeof(*tt->q), 1024) < 0) {
		tt->rd.lost++; /* counted as lost, like the kernel's own */
		return;
	}
	tt->q[tt->nq++] = x;
	if (x.time > tt->newest)
		tt->newest = x.time;
}

/* A cpu-clock sample or a page fault (the timeline's): an instant of its thread. */
static void on_smp(void *ctx, const struct perf_sample *smp)
{
	struct trace_tier *tt = ctx;
	struct tt_ev x = { .time = smp->time, .cpu = (int)smp->cpu, .tid = (pid_t)smp->tid, .kind = TT_SAMPLE };

	tt->slot_records++; /* they cost like the tracepoints' records: the rate counts them */
	if (hmap_get(&tt->fault_ids, smp->id) != HMAP_NONE)
		x.kind = TT_FAULT;
	if (!tt->s->o.timeline || !tt_find(&tt->ts, x.tid))
		return;
	if (array_reserve((void **)&tt->q, &tt->qcap, tt->nq, sizeof(*tt->q), 1024) < 0) {
		tt->rd.lost++;
		return;
	}
	tt->q[tt->nq++] = x;
	if (x.time > tt->newest)
		tt->newest = x.time;
}

static const struct perf_consumer consumer = { .on_tracepoint = on_tp, .on_sample = on_smp };

/* The record as the timeline keeps it. */
static void to_timeline(struct tm_timeline *tl, const struct tt_ev *x)
{
	struct tm_tlev e = { .time = x->time, .tid = x->tid };

	switch ((int)x->kind) {
	case TT_SWITCH:
		e.kind = TM_TL_SWITCH;
		e.tid = x->a;
		e.a = (int32_t)x->state_or_ret;
		e.b = x->b;
		break;
	case TT_WAKEUP:
	case TT_WAKEUP_NEW:
		e.kind = TM_TL_WAKEUP;
		e.tid = x->a;
		e.b = x->tid;
		break;
	case TT_SYS_ENTER:
		e.kind = TM_TL_SYS_ENTER;
		e.a = x->a;
		break;
	case TT_SYS_EXIT:
		e.kind = TM_TL_SYS_EXIT;
		e.a = x->a;
		e.b = x->state_or_ret < INT32_MIN ? INT32_MIN : x->state_or_ret > INT32_MAX ? INT32_MAX : (int32_t)x->state_or_ret;
		break;
	case TT_SAMPLE:
		e.kind = TM_TL_SAMPLE;
		break;
	case TT_FAULT:
		e.kind = TM_TL_FAULT;
		break;
	default:
		return;
	}
	tm_tl_add(tl, &e);
}

static int cmp_ev(const void *a, const void *b)
{
	const struct tt_ev *x = a, *y = b;
	return (x->time > y->time) - (x->time < y->time);
}

/* Read every ring, and apply the records in time order: all of them
 * (the events being closed), else those older than the newest less the
 * lag (a ring read a moment before another may still get older ones). */
static void drain(struct trace_tier *tt, bool all)
{
	for (int r = 0; r < tt->nrings; r++)
		perf_read(&tt->rd, &tt->rings[r]);
	sort_array(tt->q, tt->nq, sizeof(*tt->q), cmp_ev);
	uint64_t mark = all ? UINT64_MAX : tt->newest > LAG_NS ? tt->newest - LAG_NS : 0;
	size_t i = 0;
	for (; i < tt->nq && tt->q[i].time <= mark; i++) {
		tt_apply(&tt->ts, &tt->q[i]);
		if (tt->s->o.timeline)
			to_timeline(tt->s->o.timeline, &tt->q[i]);
	}
	tt->events += i;
	if (i > 0 && i < tt->nq)
		memmove(tt->q, tt->q + i, (tt->nq - i) * sizeof(*tt->q));
	tt->nq -= i;
}

static void trace_close(struct tm_session *s);

static int trace_open(struct tm_session *s, struct ps_error *e)
{
	struct trace_tier *tt = calloc(1, sizeof(*tt));
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int r;

	if (!tt)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	s->tier = tt;
	tt->s = s;
	tt->f = 1;
	tt->ntps = s->o.no_syscalls ? TP_SYS_ENTER : TP_COUNT;
	for (int k = 0; k < tt->ntps; k++) {
		if ((r = perf_tp_load(&tt->tps[k], tp_names[k][0], tp_names[k][1], e)) < 0)
			goto fail;
		perf_tp_attr(&tt->tps[k], PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU, &tt->attr[k]);
	}
	/* The timeline's samples, laid out as the tracepoints' records (one ring). */
	tt->sample_attr = (struct perf_event_attr){ .size = sizeof(tt->sample_attr), .type = PERF_TYPE_SOFTWARE,
						    .config = PERF_COUNT_SW_CPU_CLOCK, .freq = 1,
						    .sample_freq = TM_TL_SAMPLE_HZ, .sample_type = tt->attr[0].sample_type,
						    .exclude_hv = 1, .exclude_guest = 1 };
	tt->fault_attr = (struct perf_event_attr){ .size = sizeof(tt->fault_attr), .type = PERF_TYPE_SOFTWARE,
						   .config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = 1,
						   .sample_type = tt->attr[0].sample_type, .exclude_hv = 1,
						   .exclude_guest = 1 };
	struct perf_format fmt;
	perf_format_of(&tt->attr[0], &fmt);
	tt->rings = calloc((size_t)ncpu, sizeof(*tt->rings));
	tt->cpu_of = calloc((size_t)ncpu, sizeof(int));
	tt->sched_fds = malloc((size_t)ncpu * 3 * sizeof(int));
	if (!tt->rings || !tt->cpu_of || !tt->sched_fds || perf_reader_init(&tt->rd, &consumer, tt, &fmt) < 0) {
		r = ps_error_set(e, ENOMEM, _("out of memory"));
		goto fail;
	}
	for (long c = 0; c < ncpu; c++) {
		int rc = perf_ring_open(&tt->rings[tt->nrings], (int)c, false, PERF_RING_PAGES, s->t.id.pid, e);
		if (rc == -ENODEV)
			continue;
		if ((r = rc) < 0)
			goto fail;
		tt->cpu_of[tt->nrings++] = (int)c;
	}
	for (int i = 0; i < 3 * tt->nrings; i++)
		tt->sched_fds[i] = -1;
	/* The threads there are now (the session's baseline scan follows). */
	uint64_t now = now_ns();
	if ((r = tm_procset_scan(&s->ps, now)) < 0) {
		ps_error_set(e, -r, _("cannot read the threads of process %d: %s"), (int)s->t.id.pid, strerror(-r));
		goto fail;
	}
	for (size_t i = 0; i < s->ps.n; i++)
		if (!add_thread(tt, s->ps.v[i].tid)) {
			r = ps_error_set(e, ENOMEM, _("out of memory"));
			goto fail;
		}
	if ((r = events_on(tt, now, e)) < 0)
		goto fail;
	s->start_ns = now; /* from before the baseline read: the window holds it */
	tt->slot_end = s->start_ns + SLOT_NS;
	return 0;
fail:
	trace_close(s);
	return r;
}

/* The end of a second: the rate of its records decides how much of the
 * next one is traced; the events of threads gone are closed. */
static void next_slot(struct trace_tier *tt, uint64_t now)
{
	for (size_t i = 0; i < tt->ts.n; i++) {
		char name[16];
		snprintf(name, sizeof(name), "%d", (int)tt->ts.v[i].tid);
		if (tt->ts.v[i].fds && tt->ts.v[i].fds[0] >= 0 && faccessat(tt->s->ps.taskfd, name, F_OK, 0) < 0)
			close_fds(tt->ts.v[i].fds, ncpu_fds(tt));
	}
	double rate = (double)tt->slot_records / (tt->f * (double)SLOT_NS / 1e9);
	double want = rate > (double)tt->s->o.trace_rate ? (double)tt->s->o.trace_rate / rate : 1.0;

	tt->f = want < F_MIN ? F_MIN : want;
	if (tt->f < 1)
		tt->sampled = true;
	tt->slot_records = 0;
	tt->slot_end = now + SLOT_NS;
	if (!tt->on) {
		struct ps_error e;
		events_on(tt, now, &e); /* a refusal now leaves this second untraced */
	} else {
		tt->on_until = now + (uint64_t)(tt->f * (double)SLOT_NS);
	}
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int trace_poll(struct tm_session *s, int timeout_ms)
{
	struct trace_tier *tt = s->tier;
	uint64_t until = now_ns() + (uint64_t)timeout_ms * 1000000ULL;

	for (;;) {
		uint64_t now = now_ns();
		if (tt->on)
			drain(tt, false);
		if (tt->on && tt->f < 1 && now >= tt->on_until)
			events_off(tt, now);
		if (now >= tt->slot_end)
			next_slot(tt, now);
		if (now >= until)
			return 0;
		uint64_t left = (until - now) / 1000000ULL, step = tt->on && tt->f < 1 ? 20 : 50;
		sleep_ms(left < step ? (int)left + 1 : (int)step);
	}
}

static uint64_t since(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static int trace_fill(struct tm_session *s, struct tm_snapshot *snap, uint64_t now)
{
	struct trace_tier *tt = s->tier;
	int r;

	if (tt->on)
		drain(tt, true);
	if ((r = tm_procset_scan(&s->ps, now)) < 0)
		return r;
	uint64_t traced = tt->on_ns + (tt->on ? since(now, tt->on_since) : 0);
	uint64_t window = since(now, s->start_ns);
	double scale = traced && traced < window ? (double)window / (double)traced : 1.0;
	uint64_t newest = tt->newest;
	for (size_t i = 0; i < s->ps.n; i++) {
		const struct tm_pthread *p = &s->ps.v[i];
		struct tm_thread *t = tm_snapshot_add(snap);
		if (!t)
			return -ENOMEM;
		tm_thread_from_proc(t, p, s->start_ns, now);
		uint64_t rest = since(t->span_ns, t->oncpu_ns + t->runq_ns);
		const struct tt_thread *x = tt_find(&tt->ts, p->tid);
		uint64_t measured = 0, blocked[TM_R_COUNT] = { 0 }, stopped = 0;
		if (x) {
			memcpy(blocked, x->blocked, sizeof(blocked));
			stopped = x->stopped;
			/* The stretch in progress. */
			if (tt->on && x->since && (x->state == TT_BLOCKED || x->state == TT_STOPPED)) {
				uint64_t d = since(newest, x->since);
				if (x->state == TT_STOPPED)
					stopped += d;
				else
					blocked[tm_reason_of(x->sys_block, x->hints)] += d;
			}
			for (int k = 0; k < TM_R_COUNT; k++)
				measured += blocked[k];
			measured += stopped;
		}
		if (measured) { /* the records' split of the rest */
			t->stopped_ns = (uint64_t)((double)rest * (double)stopped / (double)measured);
			for (int k = 0; k < TM_R_COUNT; k++)
				t->blocked_ns[k] = (uint64_t)((double)rest * (double)blocked[k] / (double)measured);
		} else if (p->base.state == 'T' || p->base.state == 't') {
			t->stopped_ns = rest;
		} else {
			t->blocked_ns[tm_pread_reason(&p->base)] += rest;
		}
		if (!x)
			continue;
		t->runq_count = (uint64_t)((double)x->acc.runq_count * scale);
		t->runq_hist = x->acc.runq_hist;
		memcpy(t->worst, x->acc.worst, sizeof(t->worst));
		t->nworst = x->acc.nworst;
		for (size_t k = 0; k < x->acc.nsys; k++) {
			const struct tm_syscall *c = &x->acc.sys[k];
			struct tm_syscall *d = tm_thread_syscall(t, c->nr);
			if (!d)
				return -ENOMEM;
			*d = *c;
			d->count = (uint64_t)((double)c->count * scale);
			d->errors = (uint64_t)((double)c->errors * scale);
			d->total_ns = (uint64_t)((double)c->total_ns * scale);
			d->blocked_ns = (uint64_t)((double)c->blocked_ns * scale);
		}
	}
	snap->have = (tt->ntps == TP_COUNT ? TM_HAVE_SYSCALLS : 0) | TM_HAVE_RUNQ_HIST | TM_HAVE_WORST;
	bool migr = s->ps.n > 0;
	for (size_t i = 0; i < s->ps.n; i++)
		migr = migr && s->ps.v[i].cur.migr;
	if (migr)
		snap->have |= TM_HAVE_MIGR;
	if (tt->sampled)
		snap->sampled |= TM_SAMPLED_EVENTS;
	snap->samples = tt->events;
	snap->events = (uint64_t)((double)tt->events * scale);
	snap->drops = tt->rd.lost + tt->dropped_fds;
	snprintf(snap->source, sizeof(snap->source),
		 _("tracepoints through perf_event_open: sched_switch, sched_wakeup, sched_wakeup_new on every CPU%s; "
		   "on CPU and run queue from schedstat (exact); traced %.0f%% of the window (above %ld events/s the "
		   "tier traces part of each second)"),
		 tt->ntps == TP_COUNT ? _(", raw_syscalls sys_enter and sys_exit per thread") : _(" (no syscall events: --no-syscalls)"),
		 window ? 100.0 * (double)(traced < window ? traced : window) / (double)window : 100.0, s->o.trace_rate);
	return 0;
}

static void trace_close(struct tm_session *s)
{
	struct trace_tier *tt = s->tier;

	if (!tt)
		return;
	if (tt->sched_fds)
		close_fds(tt->sched_fds, 3 * tt->nrings);
	for (size_t i = 0; i < tt->ts.n; i++) {
		if (tt->ts.v[i].fds)
			close_fds(tt->ts.v[i].fds, ncpu_fds(tt));
		free(tt->ts.v[i].fds);
	}
	tt_free(&tt->ts);
	hmap_free(&tt->fault_ids);
	for (int r = 0; r < tt->nrings; r++)
		perf_ring_close(&tt->rings[r]);
	perf_reader_fini(&tt->rd);
	free(tt->q);
	free(tt->rings);
	free(tt->cpu_of);
	free(tt->sched_fds);
	free(tt);
	s->tier = NULL;
}

const struct tm_tier_ops tm_tier_trace = {
	.tier = TM_TIER_TRACE,
	.open = trace_open,
	.poll = trace_poll,
	.fill = trace_fill,
	.close = trace_close,
};
