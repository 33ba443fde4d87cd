/* The sampler as a job on the long lane (beside the other long jobs): any
 * sampler source (source.h) driven by samp_source_run until cancelled, a
 * snapshot about once per second. The screen talks back only through a
 * control block of atomics (the requested frequency, the idle switch, the
 * mode). */
#include "sample/sample.h"
#include "sample/source.h"
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
	atomic_int py_refused; /* errno of AUTO's CPython sampler, 0 */
	atomic_ullong min_block; /* the off-CPU tracer's, ns */
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
	atomic_init(&c->py_refused, 0);
	atomic_init(&c->min_block, SAMP_MIN_BLOCK_DEFAULT);
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

void samp_ctl_set_min_block(struct samp_ctl *c, uint64_t ns)
{
	atomic_store(&c->min_block, (unsigned long long)ns);
}

uint64_t samp_ctl_min_block(struct samp_ctl *c)
{
	return (uint64_t)atomic_load(&c->min_block);
}

int samp_ctl_py_refused(struct samp_ctl *c)
{
	return atomic_load(&c->py_refused);
}

/* The job's source: the CPython sampler for a CPython process (mode AUTO
 * or PYTHON), else perf. NULL after posting the error. */
static struct samp_source *open_source(struct job *j, struct samp_ctl *ctl)
{
	struct samp_source *src;
	struct ps_error e;
	enum samp_mode mode = samp_ctl_mode(ctl);
	int r;

	ps_error_clear(&e);
	if (mode == SAMP_MODE_OFFCPU) {
		struct samp_offcpu_opts o = { .pid = j->target.pid, .want = &j->target,
					      .min_block_ns = samp_ctl_min_block(ctl) };
		if (samp_offcpu_open(&src, &o, &e) < 0) {
			job_error(j, &e);
			return NULL;
		}
		return src;
	}
	if (mode != SAMP_MODE_NATIVE) {
		int freq = samp_ctl_freq(ctl);
		if (mode == SAMP_MODE_AUTO && freq == SAMP_FREQ_DEFAULT) /* perf's 99 Hz: py-spy's 100 */
			samp_ctl_set_freq(ctl, freq = SAMP_PY_FREQ_DEFAULT);
		struct samp_py_opts o = { .pid = j->target.pid, .want = &j->target,
					  .freq = freq > SAMP_PY_FREQ_MAX ? SAMP_PY_FREQ_MAX : freq,
					  .idle = samp_ctl_idle(ctl) };
		r = samp_py_open(&src, &o, &e);
		if (r == 0)
			return src;
		if (mode != SAMP_MODE_AUTO) {
			job_error(j, &e);
			return NULL;
		}
		/* AUTO: perf then, and its own refusal if it is refused too. */
		atomic_store(&ctl->py_refused, -r);
		if (r == -ENOTSUP || r == -EPROTO)
			job_progress(j, -1, "%s", e.msg);
		if (freq == SAMP_PY_FREQ_DEFAULT)
			samp_ctl_set_freq(ctl, SAMP_FREQ_DEFAULT);
		ps_error_clear(&e);
	}
	if (samp_ctl_freq(ctl) < SAMP_FREQ_MIN)
		samp_ctl_set_freq(ctl, SAMP_FREQ_DEFAULT);
	struct samp_opts o = { .pid = j->target.pid, .want = &j->target, .freq = samp_ctl_freq(ctl) };
	if (samp_perf_open(&src, &o, &e) < 0) {
		job_error(j, &e);
		return NULL;
	}
	return src;
}

/* The run's callbacks: the job's cancel flag, its snapshots, the screen's
 * control block. */
struct run_ctx {
	struct job *j;
	struct samp_ctl *ctl;
};

static bool run_stop(void *arg)
{
	return job_cancelled(((struct run_ctx *)arg)->j);
}

static void run_tick(void *arg, struct samp_snapshot *snap)
{
	job_snapshot(((struct run_ctx *)arg)->j, snap, samp_snapshot_free);
}

static void run_want(void *arg, int *freq, bool *idle)
{
	struct run_ctx *c = arg;
	*freq = samp_ctl_freq(c->ctl);
	*idle = samp_ctl_idle(c->ctl);
}

static void run_refused(void *arg, int freq, const struct ps_error *e)
{
	struct run_ctx *c = arg;
	samp_ctl_set_freq(c->ctl, freq);
	job_progress(c->j, -1, "%s", e->msg);
}

/* The one sampler job: whatever the source, sample until cancelled,
 * a snapshot each second, the last one as the result when the target
 * ends. */
static void sample_job(struct job *j)
{
	struct run_ctx c = { .j = j, .ctl = j->arg };
	struct samp_run run = { .stop = run_stop, .tick = run_tick, .want = run_want, .refused = run_refused, .arg = &c };
	struct samp_source *src = open_source(j, c.ctl);
	struct ps_error e;
	char why[192];

	if (!src)
		return;
	ps_error_clear(&e);
	switch (samp_source_run(src, &run, why, sizeof(why), &e)) {
	case SAMP_END_TARGET: {
		struct samp_snapshot *snap = src->ops->publish(src, why);
		if (snap)
			job_result(j, snap, samp_snapshot_free);
		break;
	}
	case SAMP_END_FAILED:
		job_error(j, &e);
		break;
	case SAMP_END_STOPPED:
		break;
	}
	samp_source_close(src);
}

unsigned samp_job_submit(struct workers *w, const struct target_id *target, struct samp_ctl *ctl,
			 const struct job_handler *h)
{
	atomic_fetch_add(&ctl->refs, 1);
	return workers_submit(w, LANE_LONG, target, sample_job, ctl, ctl_put, h);
}
