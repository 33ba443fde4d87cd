/* The Time pane: where each thread's time went over the last second --
 * on a CPU, waiting for one, blocked and why -- measured by a time
 * session (src/time/) on the tier the doors allow. `pscope show --pane
 * time` measures one window and prints what `pscope time` prints. */
#include "pane/pane.h"
#include "cmd/time-out.h"
#include "i18n.h"
#include "sample/sample.h"
#include "time/job.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static void show_time(struct pane_show *s)
{
	struct tm_opts o = { .pid = s->pid, .tier = -1 };
	struct tm_session *t;
	struct ps_error e;
	char why[192];

	if (pane_show_zombie(s, &pane_desc_time))
		return;
	ps_error_clear(&e);
	if (tm_open(&t, &o, &e) < 0) {
		pane_show_refusal(s, &pane_desc_time, &e, NULL);
		return;
	}
	/* The window: --interval, at least the TUI's second. */
	double window = s->interval > TM_JOB_WINDOW_MS / 1000.0 ? s->interval : TM_JOB_WINDOW_MS / 1000.0;
	const char *ended = NULL;
	uint64_t deadline = now_ns() + (uint64_t)(window * 1e9);
	for (uint64_t now = now_ns(); now < deadline && !ended; now = now_ns()) {
		uint64_t left_ms = (deadline - now) / 1000000;
		int r = tm_poll(t, left_ms < 100 ? (int)(left_ms ? left_ms : 1) : 100);
		if (r == -ESRCH)
			ended = _("the process exited");
		else if (r == -ESTALE)
			ended = samp_end_exec(tm_exec_comm(t), why, sizeof(why));
	}
	struct tm_snapshot *snap = tm_publish(t, ended);
	tm_close(t);
	if (!snap) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		pane_show_refusal(s, &pane_desc_time, &e, NULL);
		return;
	}
	if (s->json) {
		json_object_object_add(s->jpanes, "time", time_json(snap, 0));
	} else {
		pane_show_section(s, &pane_desc_time, NULL);
		time_print_text(snap, 0);
	}
	tm_snapshot_free(snap);
}

const struct pane_desc pane_desc_time = {
	.name = "time",
	.title = N_("Time"),
	.summary = N_("per thread: on CPU, waiting for a CPU, blocked and why, over the last second"),
	.source = N_("a time session: BPF programs (root, or CAP_BPF and CAP_PERFMON), else sched and raw_syscalls "
		     "tracepoints (CAP_PERFMON), else /proc/PID/task/TID/{schedstat,syscall,wchan}"),
	.file = "task",
	.refresh_ms = TM_JOB_WINDOW_MS,
	.help = "pane-time",
	.show = show_time,
};
