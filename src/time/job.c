/* The time session as a long job: open the tier the doors allow, poll it,
 * and each TM_JOB_WINDOW_MS post the difference of two cumulative
 * snapshots (tm_snapshot_diff): the window just past. The job keeps the
 * cumulative one for the next difference; what it posts belongs to the
 * message alone. The session is closed (BPF links and perf events with
 * it) on every way out, a cancel included. */
#include "time/job.h"
#include "i18n.h"
#include "sample/sample.h"
#include "util.h"
#include "worker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void tm_snapshot_free_void(void *s)
{
	tm_snapshot_free(s);
}

/* The window from prev to now; prev becomes now. NULL without memory. */
static struct tm_snapshot *next_window(struct tm_session *s, struct tm_snapshot **prev, const char *ended)
{
	struct tm_snapshot *cur = tm_publish(s, ended);

	if (!cur)
		return NULL;
	struct tm_snapshot *win = tm_snapshot_diff(*prev, cur);
	tm_snapshot_free(*prev);
	*prev = cur;
	return win;
}

static void time_job(struct job *j)
{
	struct tm_opts o = *(const struct tm_opts *)j->arg;
	struct tm_session *s;
	struct tm_snapshot *prev;
	struct ps_error e;
	char why[192];

	ps_error_clear(&e);
	o.pid = j->target.pid;
	o.want = j->target.starttime ? &j->target : NULL;
	if (tm_open(&s, &o, &e) < 0) {
		job_error(j, &e);
		return;
	}
	/* The baseline: the first window starts here. */
	if (!(prev = tm_publish(s, NULL))) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		job_error(j, &e);
		tm_close(s);
		return;
	}
	uint64_t next = now_ns() + TM_JOB_WINDOW_MS * 1000000ull;
	while (!job_cancelled(j)) {
		const char *ended = NULL;
		int r = tm_poll(s, 100);
		if (r == -ESRCH)
			ended = _("the process exited");
		else if (r == -ESTALE)
			ended = samp_end_exec(tm_exec_comm(s), why, sizeof(why));
		else if (r < 0) {
			ps_error_set(&e, -r, _("measuring process %d failed: %s"), (int)o.pid, strerror(-r));
			job_error(j, &e);
			break;
		}
		if (!ended && now_ns() < next)
			continue;
		next += TM_JOB_WINDOW_MS * 1000000ull;
		struct tm_snapshot *win = next_window(s, &prev, ended);
		if (!win) {
			ps_error_set(&e, ENOMEM, _("out of memory"));
			job_error(j, &e);
			break;
		}
		if (ended) {
			job_result(j, win, tm_snapshot_free_void);
			break;
		}
		job_snapshot(j, win, tm_snapshot_free_void);
	}
	tm_snapshot_free(prev);
	tm_close(s);
}

unsigned tm_job_submit(struct workers *w, const struct target_id *id, const struct tm_opts *o,
		       const struct job_handler *h)
{
	struct tm_opts *arg = malloc(sizeof(*arg));

	if (!arg)
		return 0;
	*arg = *o;
	arg->want = NULL;
	return workers_submit(w, LANE_LONG, id, time_job, arg, free, h);
}
