/* The sampler as a job on the long lane (beside the other long jobs):
 * sample until cancelled, publish a snapshot about once per second. The
 * screen talks back only through a control block of atomics (the
 * requested frequency). */
#include "sample/sample.h"
#include "i18n.h"
#include "util.h"
#include "worker.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

struct samp_ctl {
	atomic_int refs;
	atomic_int freq;
	atomic_bool idle;
	atomic_int mode;     /* enum samp_mode */
};

struct samp_ctl *samp_ctl_new(int freq)
{
	struct samp_ctl *c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	atomic_init(&c->refs, 1);
	atomic_init(&c->freq, freq);
	atomic_init(&c->idle, false);
	atomic_init(&c->mode, SAMP_MODE_AUTO);
	return c;
}

void samp_ctl_put(struct samp_ctl *c)
{
	if (c && atomic_fetch_sub(&c->refs, 1) == 1)
		free(c);
}

static void ctl_put(void *c)
{
	samp_ctl_put(c);
}

void samp_ctl_set_freq(struct samp_ctl *c, int hz)
{
	if (hz < 1)
		hz = 1;
	if (hz > SAMP_FREQ_MAX)
		hz = SAMP_FREQ_MAX;
	atomic_store(&c->freq, hz);
}

int samp_ctl_freq(struct samp_ctl *c)
{
	return atomic_load(&c->freq);
}

void samp_ctl_set_idle(struct samp_ctl *c, bool idle)
{
	atomic_store(&c->idle, idle);
}

bool samp_ctl_idle(struct samp_ctl *c)
{
	return atomic_load(&c->idle);
}

void samp_ctl_set_mode(struct samp_ctl *c, enum samp_mode m)
{
	atomic_store(&c->mode, (int)m);
}

enum samp_mode samp_ctl_mode(struct samp_ctl *c)
{
	return (enum samp_mode)atomic_load(&c->mode);
}

/* The CPython sampler until cancelled. Returns false (nothing posted) when
 * it cannot start and the mode is AUTO: the perf sampler takes over. */
static bool python_job(struct job *j, struct samp_ctl *ctl)
{
	struct samp_py_session *s;
	struct ps_error e;
	enum samp_mode mode = samp_ctl_mode(ctl);
	int freq = samp_ctl_freq(ctl);
	if (mode == SAMP_MODE_AUTO && freq == SAMP_FREQ_DEFAULT) /* perf's 99 Hz: py-spy's 100 */
		samp_ctl_set_freq(ctl, freq = SAMP_PY_FREQ_DEFAULT);
	struct samp_py_opts o = { .pid = j->target.pid, .want = &j->target,
				  .freq = freq > SAMP_PY_FREQ_MAX ? SAMP_PY_FREQ_MAX : freq, .idle = samp_ctl_idle(ctl) };

	ps_error_clear(&e);
	int r = samp_py_open(&s, &o, &e);
	if (r < 0) {
		/* AUTO: perf then, and its own refusal if it is refused too. */
		if (mode == SAMP_MODE_AUTO) {
			if (r == -ENOTSUP || r == -EPROTO)
				job_progress(j, -1, "%s", e.msg);
			if (freq == SAMP_PY_FREQ_DEFAULT)
				samp_ctl_set_freq(ctl, SAMP_FREQ_DEFAULT);
			return false;
		}
		job_error(j, &e);
		return true;
	}
	uint64_t next = now_ns() + 1000000000ULL;
	while (!job_cancelled(j)) {
		int pr = samp_py_poll(s, 100);
		if (pr == -ESRCH || pr == -ESTALE) {
			char why[160];
			struct samp_snapshot *snap = samp_py_publish(
				s, pr == -ESRCH ? _("the process exited") : samp_end_exec(samp_py_exec_comm(s), why, sizeof(why)));
			if (snap)
				job_result(j, snap, samp_snapshot_free);
			break;
		}
		freq = samp_ctl_freq(ctl);
		samp_py_set(s, freq > SAMP_PY_FREQ_MAX ? SAMP_PY_FREQ_MAX : freq, samp_ctl_idle(ctl));
		if (now_ns() >= next) {
			next += 1000000000ULL;
			if (next < now_ns())
				next = now_ns() + 1000000000ULL;
			struct samp_snapshot *snap = samp_py_publish(s, NULL);
			if (snap)
				job_snapshot(j, snap, samp_snapshot_free);
		}
	}
	samp_py_close(s);
	return true;
}

static void sample_job(struct job *j)
{
	struct samp_ctl *ctl = j->arg;
	struct samp_session *s;
	struct ps_error e;

	if (samp_ctl_mode(ctl) != SAMP_MODE_NATIVE && python_job(j, ctl))
		return;
	if (samp_ctl_freq(ctl) < SAMP_FREQ_MIN)
		samp_ctl_set_freq(ctl, SAMP_FREQ_DEFAULT);
	struct samp_opts o = { .pid = j->target.pid, .want = &j->target, .freq = samp_ctl_freq(ctl) };

	ps_error_clear(&e);
	if (samp_open(&s, &o, &e) < 0) {
		job_error(j, &e);
		return;
	}
	uint64_t next = now_ns() + 1000000000ULL;
	while (!job_cancelled(j)) {
		int pr = samp_poll(s, 100);
		if (pr == -ESRCH || pr == -ESTALE) {
			char why[160];
			struct samp_snapshot *snap = samp_publish(
				s, pr == -ESRCH ? _("the process exited") : samp_end_exec(samp_exec_comm(s), why, sizeof(why)));
			if (snap)
				job_result(j, snap, samp_snapshot_free);
			break;
		}
		int want = samp_ctl_freq(ctl);
		if (want != samp_get_freq(s) && samp_set_freq(s, want, &e) < 0) {
			if (e.code != EINVAL) {
				job_error(j, &e);
				break;
			}
			/* Refused before anything changed: go on at the old rate. */
			samp_ctl_set_freq(ctl, samp_get_freq(s));
			job_progress(j, -1, "%s", e.msg);
		}
		if (now_ns() >= next) {
			next += 1000000000ULL;
			if (next < now_ns())
				next = now_ns() + 1000000000ULL;
			struct samp_snapshot *snap = samp_publish(s, NULL);
			if (snap)
				job_snapshot(j, snap, samp_snapshot_free);
		}
	}
	samp_close(s);
}

unsigned samp_job_submit(struct workers *w, const struct target_id *target, struct samp_ctl *ctl,
			 const struct job_handler *h)
{
	atomic_fetch_add(&ctl->refs, 1);
	return workers_submit(w, LANE_LONG, target, sample_job, ctl, ctl_put, h);
}
