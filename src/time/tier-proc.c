/* The /proc tier (any user, own processes; root for others): on CPU and
 * run-queue wait exactly from Δschedstat, faults, switches and migrations
 * from stat, status and sched, and what a blocked thread waits for from
 * samples of its syscall and wchan files (statistical, and said so). */
#include "time/tpriv.h"
#include "doors/doors.h"
#include "i18n.h"
#include "proc/task.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct proc_tier {
	uint64_t next_ns, period_ns;
};

int tm_proc_check(pid_t pid, int dirfd, struct ps_error *e)
{
	char buf[256], what[96];
	char path[64];

	snprintf(path, sizeof(path), "task/%d/schedstat", (int)pid);
	if (read_file_at(dirfd, path, buf, sizeof(buf)) < 0)
		return ps_error_set(e, ENOTSUP, _("/proc/%d/task/%d/schedstat is missing: the kernel lacks CONFIG_SCHED_INFO"),
				    (int)pid, (int)pid);
	snprintf(path, sizeof(path), "task/%d/syscall", (int)pid);
	ssize_t n = read_file_at(dirfd, path, buf, sizeof(buf));
	if (n == -EACCES || n == -EPERM) {
		snprintf(what, sizeof(what), _("read /proc/%d/task/%d/syscall"), (int)pid, (int)pid);
		return door_refused(e, PS_OP_READ_MEM, pid, (int)-n, what);
	}
	return 0;
}

static int proc_open(struct tm_session *s, struct ps_error *e)
{
	struct proc_tier *pt;
	int r = tm_proc_check(s->t.id.pid, s->t.dirfd, e);

	if (r < 0)
		return r;
	if (!(pt = calloc(1, sizeof(*pt))))
		return ps_error_set(e, ENOMEM, _("out of memory"));
	pt->period_ns = 1000000000ULL / (uint64_t)s->o.proc_hz;
	pt->next_ns = now_ns() + pt->period_ns;
	s->tier = pt;
	return 0;
}

static void sleep_until(uint64_t when)
{
	struct timespec ts = { .tv_sec = (time_t)(when / 1000000000ULL), .tv_nsec = (long)(when % 1000000000ULL) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int proc_poll(struct tm_session *s, int timeout_ms)
{
	struct proc_tier *pt = s->tier;
	uint64_t until = now_ns() + (uint64_t)timeout_ms * 1000000ULL;

	for (;;) {
		uint64_t now = now_ns();
		if (pt->next_ns > until) {
			sleep_until(until);
			return 0;
		}
		if (pt->next_ns > now)
			sleep_until(pt->next_ns);
		now = now_ns();
		int r = tm_procset_sample(&s->ps, now);
		if (r < 0)
			return r;
		pt->next_ns += pt->period_ns;
		if (pt->next_ns < now) /* we fell behind (a loaded machine): skip, do not burst */
			pt->next_ns = now + pt->period_ns;
		if (now >= until)
			return 0;
	}
}

static uint64_t share(uint64_t total, uint64_t part, uint64_t of)
{
	return of ? (uint64_t)((double)total * (double)part / (double)of) : 0;
}

/* One thread: the exact deltas, then the blocked rest split by samples. */
static int fill_thread(struct tm_thread *t, const struct tm_pthread *p, uint64_t start, uint64_t now)
{
	tm_thread_from_proc(t, p, start, now);
	uint64_t rest = t->span_ns > t->oncpu_ns + t->runq_ns ? t->span_ns - t->oncpu_ns - t->runq_ns : 0;
	uint64_t off = p->samp_blocked + p->samp_stopped;
	t->stopped_ns = share(rest, p->samp_stopped, off);
	uint64_t blocked = rest - t->stopped_ns, given = 0, nsamp = p->samp_blocked;
	/* Delay accounting measures block I/O exactly: the samples split the rest. */
	bool exact_io = t->delay.blkio > 0;
	if (exact_io) {
		t->blocked_ns[TM_R_IO] = t->delay.blkio < blocked ? t->delay.blkio : blocked;
		given = t->blocked_ns[TM_R_IO];
		blocked -= given;
		nsamp -= p->samp_reason[TM_R_IO];
	}
	for (int r = 0; r < TM_R_COUNT; r++) {
		if (exact_io && r == TM_R_IO)
			continue;
		t->blocked_ns[r] = share(blocked, p->samp_reason[r], nsamp);
		given += t->blocked_ns[r];
	}
	blocked += exact_io ? t->blocked_ns[TM_R_IO] : 0;
	/* What no sample caught (too short a window): not a reason we know. */
	if (given < blocked && !nsamp)
		t->blocked_ns[TM_R_OTHER] += blocked - given;
	for (size_t i = 0; i < p->npsys; i++) {
		struct tm_syscall *sc = tm_thread_syscall(t, p->psys[i].nr);
		if (!sc)
			return -ENOMEM;
		sc->samples = p->psys[i].samples;
		sc->total_ns = share(t->span_ns, p->psys[i].samples, p->nsamp);
	}
	return 0;
}

static int proc_fill(struct tm_session *s, struct tm_snapshot *snap, uint64_t now)
{
	int r = tm_procset_scan(&s->ps, now);
	bool migr = true;

	if (r < 0)
		return r;
	for (size_t i = 0; i < s->ps.n; i++) {
		const struct tm_pthread *p = &s->ps.v[i];
		struct tm_thread *t = tm_snapshot_add(snap);
		if (!t || fill_thread(t, p, s->start_ns, now) < 0)
			return -ENOMEM;
		migr = migr && p->cur.migr;
	}
	snap->have = migr ? TM_HAVE_MIGR : 0;
	snap->sampled = TM_SAMPLED_BLOCKED;
	snap->samples = s->ps.rounds;
	double w = (double)(now - s->start_ns) / 1e9;
	snap->sample_hz = w > 0 ? (double)s->ps.rounds / w : 0;
	int n = snprintf(snap->source, sizeof(snap->source),
			 _("/proc/PID/task/TID: schedstat (on CPU, run queue: exact), stat, status, sched (faults, "
			   "switches, migrations: exact); syscall and wchan sampled at %d Hz (blocked reasons: "
			   "statistical)"),
			 s->o.proc_hz);
	/* A busy machine delays the sampling thread: rounds are skipped, not bunched. */
	if (w >= 0.5 && snap->sample_hz < 0.9 * s->o.proc_hz && n > 0 && (size_t)n < sizeof(snap->source))
		snprintf(snap->source + n, sizeof(snap->source) - (size_t)n,
			 _("; %.0f Hz reached (the machine is busy)"), snap->sample_hz);
	return 0;
}

static void proc_close(struct tm_session *s)
{
	free(s->tier);
	s->tier = NULL;
}

const struct tm_tier_ops tm_tier_proc = {
	.tier = TM_TIER_PROC,
	.open = proc_open,
	.poll = proc_poll,
	.fill = proc_fill,
	.close = proc_close,
};
