/* A time session: the tier the doors allow (or the one forced), the
 * target's identity checked while it runs, and the snapshots. */
#include "time/tpriv.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct tm_tier_ops *const tiers[TM_TIER_COUNT] = {
	[TM_TIER_BPF] = &tm_tier_bpf,
	[TM_TIER_TRACE] = &tm_tier_trace,
	[TM_TIER_PROC] = &tm_tier_proc,
};

int tm_tier_check(enum tm_tier t, pid_t pid, struct ps_error *e)
{
	switch (t) {
	case TM_TIER_BPF:
		return tm_bpf_check(e);
	case TM_TIER_TRACE:
		return tm_trace_check(e);
	default: {
		int fd = proc_open_pid(pid);
		if (fd < 0)
			return ps_error_set(e, ESRCH, _("no process with PID %d"), (int)pid);
		int r = tm_proc_check(pid, fd, e);
		close(fd);
		return r;
	}
	}
}

static void note_refusal(struct tm_session *s, enum tm_tier t, const struct ps_error *e)
{
	char buf[640];
	size_t len = strlen(s->note);

	snprintf(s->note + len, sizeof(s->note) - len, "%s%s: %s", len ? "; " : "", tm_tier_name(t),
		 ps_error_str(e, buf, sizeof(buf)));
}

static int open_tier(struct tm_session *s, enum tm_tier t, struct ps_error *e)
{
	int r = t == TM_TIER_PROC ? 0 : tm_tier_check(t, s->t.id.pid, e);

	if (r == 0)
		r = tiers[t]->open(s, e);
	if (r == 0)
		s->ops = tiers[t];
	return r;
}

int tm_open(struct tm_session **out, const struct tm_opts *o, struct ps_error *e)
{
	struct tm_session *s = calloc(1, sizeof(*s));
	int r;

	*out = NULL;
	if (!s)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	s->o = *o;
	if (!s->o.proc_hz)
		s->o.proc_hz = TM_PROC_HZ_DEFAULT;
	if (!s->o.trace_rate)
		s->o.trace_rate = TM_TRACE_RATE_DEFAULT;
	s->ps.taskfd = -1;
	s->ps.ts.fd = -1;
	if ((r = target_open(&s->t, o->pid, o->want, e)) < 0) {
		free(s);
		return r;
	}
	if (target_is_kernel_thread(&s->t)) {
		r = ps_error_set(e, EINVAL, _("process %d is a kernel thread: it has no system calls or page faults of its own to trace"),
				 (int)o->pid);
		goto fail;
	}
	if ((r = tm_procset_open(&s->ps, s->t.dirfd)) < 0) {
		ps_error_set(e, -r, _("cannot read /proc/%d/task: %s"), (int)o->pid, strerror(-r));
		goto fail;
	}
	if (proc_cgroup2_dir(o->pid, s->cgroup, sizeof(s->cgroup)) < 0)
		s->cgroup[0] = '\0';
	if (o->tier >= 0) {
		if ((r = open_tier(s, (enum tm_tier)o->tier, e)) < 0)
			goto fail;
	} else {
		struct ps_error why;
		for (int t = 0; t < TM_TIER_COUNT; t++) {
			ps_error_clear(&why);
			if (open_tier(s, (enum tm_tier)t, &why) == 0)
				break;
			note_refusal(s, (enum tm_tier)t, &why);
			if (t == TM_TIER_COUNT - 1) {
				*e = why;
				r = -why.code;
				goto fail;
			}
		}
	}
	/* The window starts as the tier runs (a tier that started its clock
	 * itself, the BPF one at its attach, keeps it): the /proc baseline of
	 * every thread and the pressure totals then. */
	if (!s->start_ns) /* from before the baseline is read: the window holds every read */
		s->start_ns = now_ns();
	if ((r = tm_procset_scan(&s->ps, s->start_ns)) < 0) {
		ps_error_set(e, -r, _("cannot read the threads of process %d: %s"), (int)o->pid, strerror(-r));
		goto fail;
	}
	if (target_verify(&s->t, e) < 0) { /* gone before the window began */
		r = -ESRCH;
		goto fail;
	}
	tm_psi_read(s->cgroup, &s->psi0);
	*out = s;
	return 0;
fail:
	tm_close(s);
	return r < 0 ? r : -EINVAL;
}

int tm_poll(struct tm_session *s, int timeout_ms)
{
	int r = 0;

	if (s->ops->poll)
		r = s->ops->poll(s, timeout_ms);
	else
		usleep((useconds_t)timeout_ms * 1000);
	if (r < 0)
		return r;
	if (target_verify(&s->t, NULL) < 0)
		return -ESRCH;
	if (target_execd(&s->t, s->exec_comm, sizeof(s->exec_comm)) == 1)
		return -ESTALE;
	return 0;
}

const char *tm_exec_comm(const struct tm_session *s)
{
	return s->exec_comm;
}

enum tm_tier tm_session_tier(const struct tm_session *s)
{
	return s->ops->tier;
}

struct tm_snapshot *tm_publish(struct tm_session *s, const char *ended)
{
	struct tm_snapshot *snap = calloc(1, sizeof(*snap));
	uint64_t now = now_ns();

	if (!snap)
		return NULL;
	snap->tier = s->ops->tier;
	strlcpy_ps(snap->tier_note, s->note, sizeof(snap->tier_note));
	snap->target = s->t.id;
	strlcpy_ps(snap->comm, s->t.comm, sizeof(snap->comm));
	snap->start_ns = s->start_ns;
	snap->end_ns = now;
	if (ended)
		strlcpy_ps(snap->ended, ended, sizeof(snap->ended));
	if (s->ops->fill(s, snap, now) < 0) {
		tm_snapshot_free(snap);
		return NULL;
	}
	snap->end_ns = now_ns(); /* after the last read: the window holds it */
	if (tm_snapshot_finish(snap) < 0) {
		tm_snapshot_free(snap);
		return NULL;
	}
	tm_delay_note(&s->ps, snap);
	struct tm_psi_raw psi;
	tm_psi_read(s->cgroup, &psi);
	tm_psi_delta(&s->psi0, &psi, snap);
	strlcpy_ps(snap->cgroup, s->cgroup, sizeof(snap->cgroup));
	return snap;
}

void tm_close(struct tm_session *s)
{
	if (!s)
		return;
	if (s->ops && s->ops->close)
		s->ops->close(s);
	tm_procset_close(&s->ps);
	target_close(&s->t);
	free(s);
}
