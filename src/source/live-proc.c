/* One live process: pinned by its /proc/PID dirfd and start time, its
 * header (stat, status and the extras) read on every tick with the rates
 * against the last one, and the pane the screen shows read at the pane's
 * own interval (src/source/live-panes.c). Once the process exits, execs
 * or its PID names another one, the last data is kept, frozen, and the
 * source stops. */
#include "source/live.h"
#include "doors/doors.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void live_close(void *st)
{
	struct live_proc *l = st;

	if (!l)
		return;
	live_panes_close(l);
	if (l->opened)
		target_close(&l->t);
	free(l);
}

/* "exited with code 3", "killed by SIGKILL" from a wait status. */
static void describe_exit(int code, char *buf, size_t size)
{
	int sig = code & 0x7f;
	if (code < 0)
		snprintf(buf, size, "%s", _("exit code unknown: already reaped by its parent"));
	else if (!sig)
		snprintf(buf, size, _("exit code %d"), (code >> 8) & 0xff);
	else
		snprintf(buf, size, _("killed by signal %d (SIG%s)%s"), sig, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?",
			 code & 0x80 ? _(", core dumped") : "");
}

static void freeze(struct snap_proc *s, const char *why)
{
	s->frozen = true;
	snprintf(s->frozen_msg, sizeof(s->frozen_msg), _("%s; showing the last data, frozen (Esc: back to the list)"),
		 why);
}

/* The door sentence for a file of the process that could not be read
 * ("" for none, and for a kernel thread's missing cwd and exe). */
static void refused(struct live_proc *l, int err, const char *file, struct ps_error *out)
{
	char what[96];

	ps_error_clear(out);
	if (!err || err == -ENOENT)
		return;
	snprintf(what, sizeof(what), _("read /proc/%d/%s"), (int)l->t.id.pid, file);
	door_refused(out, PS_OP_READ_PROC, l->t.id.pid, err, what);
}

/* The whole command line (info keeps 4 KiB), kept when it cannot be read. */
static void read_cmdline(struct live_proc *l, struct snap_proc *s)
{
	char *c;

	if (proc_nul_list_read_at(l->t.dirfd, "cmdline", ' ', &c) < 0)
		return;
	free(s->cmdline);
	s->cmdline = c;
}

/* The header into s (from last's); notices the exit. */
void live_proc_info(struct live_proc *l, struct snap_proc *s)
{
	struct proc_info ni;
	char why[160], ex[96], now[64];
	int r = proc_info_read(l->t.dirfd, &ni);

	if (r == 0 && ni.stat.starttime != l->t.id.starttime) {
		/* Cannot happen through the pinned dirfd; checked anyway. */
		snprintf(why, sizeof(why), _("PID %d now names another process"), (int)l->t.id.pid);
		freeze(s, why);
	} else if (r == 0 && proc_info_exited(&ni)) {
		/* A zombie still has its exit code in stat (field 52). */
		describe_exit(ni.exit_code, ex, sizeof(ex));
		snprintf(why, sizeof(why), _("process %d has exited (%s)"), (int)l->t.id.pid, ex);
		freeze(s, why);
	} else if (r == 0 && target_execd(&l->t, now, sizeof(now)) == 1) {
		/* Another program in the same process: its data would mix
		 * with the old one's in the panes (histories, rates, new fds). */
		snprintf(why, sizeof(why), _("process %d exec'd (it now runs %s)"), (int)l->t.id.pid, now);
		freeze(s, why);
	} else if (r < 0) {
		/* The dirfd pins the old process: a reused PID reads as gone,
		 * never as the new process. */
		describe_exit(-1, ex, sizeof(ex));
		snprintf(why, sizeof(why), _("process %d has exited (%s)"), (int)l->t.id.pid, ex);
		freeze(s, why);
	} else {
		struct proc_info prev = s->info;
		bool had = s->info_ns != 0;
		s->info = ni;
		s->info.when = (double)clock_mono_ns(l->clk) / 1e9;
		s->info_ns = clock_mono_ns(l->clk);
		if (had) {
			proc_info_rates(&prev, &s->info, &s->rates);
			s->have_rates = true;
		}
		read_cmdline(l, s);
		refused(l, ni.cwd_err, "cwd", &s->cwd_err);
		refused(l, ni.exe_err, "exe", &s->exe_err);
	}
}

/* The first read: the process, pinned, and its header. */
static int open_proc(struct live_proc *l, struct snap_proc *s, struct ps_error *e)
{
	if (target_open(&l->t, l->want.pid, l->want.starttime ? &l->want : NULL, e) < 0)
		return -(e->code ? e->code : ESRCH);
	l->opened = true;
	s->id = l->t.id;
	int r = proc_info_read(l->t.dirfd, &s->info);
	if (r < 0) {
		char what[64];
		snprintf(what, sizeof(what), _("read /proc/%d/%s"), (int)l->t.id.pid, "status");
		door_refused(e, PS_OP_READ_PROC, l->t.id.pid, r, what);
		return r;
	}
	s->info.when = (double)clock_mono_ns(l->clk) / 1e9;
	s->info_ns = clock_mono_ns(l->clk);
	read_cmdline(l, s);
	refused(l, s->info.cwd_err, "cwd", &s->cwd_err);
	refused(l, s->info.exe_err, "exe", &s->exe_err);
	if (proc_info_exited(&s->info)) {
		char ex[96], why[160];
		describe_exit(s->info.exit_code, ex, sizeof(ex));
		snprintf(why, sizeof(why), _("process %d has exited (%s)"), (int)l->t.id.pid, ex);
		l->exited_at_open = true;
		snprintf(l->exited_why, sizeof(l->exited_why), "%s", why);
	}
	return 0;
}

static int live_read(void *st, const struct source_io *io, const struct source_want *w, const struct snap_head *last,
		     bool tick, struct snap_head **out, struct ps_error *e)
{
	struct live_proc *l = st;
	const struct snap_proc *prev = (const struct snap_proc *)last;
	struct snap_proc *s = snap_proc_next(prev);
	bool changed = tick;

	(void)io;
	*out = NULL;
	if (!s)
		return -ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	s->h.t_ns = clock_mono_ns(l->clk);
	s->h.wall = clock_wall_s(l->clk);
	if (!l->opened) {
		int r = open_proc(l, s, e);
		if (r < 0) {
			snap_put(&s->h);
			return r;
		}
	} else if (tick) {
		live_proc_info(l, s);
	}
	if (!s->frozen)
		changed |= live_pane_read(l, s, w, tick);
	if (l->exited_at_open && !s->frozen)
		freeze(s, l->exited_why); /* the pane read once, then no more */
	if (!changed) {
		snap_put(&s->h);
		return 0;
	}
	*out = &s->h;
	return s->frozen ? 1 : 0;
}

static const struct source_ops live_proc_ops = {
	.name = "live process",
	.read = live_read,
	.close = live_close,
};

int source_live_proc(struct source *out, const struct target_id *id, const struct ps_clock *clk)
{
	struct live_proc *l = calloc(1, sizeof(*l));

	memset(out, 0, sizeof(*out));
	if (!l)
		return -ENOMEM;
	l->clk = clk;
	l->want = *id;
	out->ops = &live_proc_ops;
	out->st = l;
	return 0;
}
