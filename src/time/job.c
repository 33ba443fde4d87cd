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

/* The timeline's chunks: the last tl_s seconds (tm_opts.timeline_s). */
struct tl_keep {
	struct tm_timeline ring;
	struct tm_tlchunk **c;
	size_t n;
	uint64_t t1;                /* where the last chunk ended */
};

/* Take the ring's events as the window's chunk, forget chunks older than
 * the seconds kept, and give win a reference to each. -ENOMEM. */
static int tl_window(struct tl_keep *k, unsigned secs, struct tm_snapshot *win)
{
	uint64_t t0 = k->t1 ? k->t1 : win->start_ns, t1 = win->end_ns;

	/* The tier says it sampled since the start (not per window): each
	 * chunk after it says so, erring on the side of the gaps. */
	k->ring.sampled = (win->sampled & TM_SAMPLED_EVENTS) != 0;
	if (k->ring.n && tm_tl_at(&k->ring, k->ring.n - 1)->time > t1)
		t1 = tm_tl_at(&k->ring, k->ring.n - 1)->time;
	struct tm_tlchunk *c = tm_tlchunk_take(&k->ring, t0, t1 > t0 ? t1 : t0);
	struct tm_tlchunk **v = realloc(k->c, (k->n + 1) * sizeof(*v));
	if (!c || !v) {
		tm_tlchunk_put(c);
		if (v)
			k->c = v;
		return -ENOMEM;
	}
	k->c = v;
	k->c[k->n++] = c;
	k->t1 = c->t1;
	size_t old = 0;
	while (old + 1 < k->n && k->c[old]->t1 + (uint64_t)secs * 1000000000ull < c->t1)
		tm_tlchunk_put(k->c[old++]);
	memmove(k->c, k->c + old, (k->n - old) * sizeof(*k->c));
	k->n -= old;
	if (!(win->tl = malloc(k->n * sizeof(*win->tl))))
		return -ENOMEM;
	for (size_t i = 0; i < k->n; i++)
		win->tl[i] = tm_tlchunk_get(k->c[i]);
	win->ntl = k->n;
	win->timeline_s = secs;
	return 0;
}

static void tl_keep_free(struct tl_keep *k)
{
	for (size_t i = 0; i < k->n; i++)
		tm_tlchunk_put(k->c[i]);
	free(k->c);
	tm_tl_free(&k->ring);
}

static void time_job(struct job *j)
{
	struct tm_opts o = *(const struct tm_opts *)j->arg;
	struct tm_session *s;
	struct tm_snapshot *prev;
	struct ps_error e;
	struct tl_keep tl = { 0 };
	char why[192];

	ps_error_clear(&e);
	o.pid = j->target.pid;
	o.want = j->target.starttime ? &j->target : NULL;
	o.timeline = NULL;
	if (o.timeline_s) {
		if (tm_tl_init(&tl.ring, TM_TL_JOB_CAP / o.timeline_s) < 0) {
			ps_error_set(&e, ENOMEM, _("out of memory"));
			job_error(j, &e);
			return;
		}
		o.timeline = &tl.ring;
	}
	if (tm_open(&s, &o, &e) < 0) {
		job_error(j, &e);
		tl_keep_free(&tl);
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
		if (win && o.timeline_s && tl_window(&tl, o.timeline_s, win) < 0) {
			tm_snapshot_free(win);
			win = NULL;
		}
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
	tl_keep_free(&tl);
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
