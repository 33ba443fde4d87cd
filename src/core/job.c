/* The core writer as an ATTACH-lane job: progress and cancel through the
 * job, a struct core_result as its result; and the estimate the prompt
 * shows before it, read on the long lane. */
#include "core/core.h"
#include "i18n.h"
#include "util.h"
#include "worker.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

struct core_job_arg {
	char path[PATH_MAX];
};

void core_result_release(void *res)
{
	if (res) {
		core_result_free(res);
		free(res);
	}
}

static void progress_cb(void *arg, const struct core_progress *p)
{
	char line[200];
	double frac = p->total ? (double)p->done / (double)p->total : -1;

	job_progress(arg, frac, "%s", core_progress_text(p, line, sizeof(line)));
}

static void core_job(struct job *j)
{
	struct core_job_arg *a = j->arg;
	struct core_opts o = { .path = a->path, .cancel = &j->cancel, .progress = progress_cb, .progress_arg = j };
	struct core_result *r = calloc(1, sizeof(*r));
	struct ps_error e;

	ps_error_clear(&e);
	if (!r) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		job_error(j, &e);
		return;
	}
	if (core_write(j->target.pid, &j->target, &o, r, &e) < 0) {
		free(r);
		job_error(j, &e);
		return;
	}
	job_result(j, r, core_result_release);
}

unsigned core_job_submit(struct workers *w, const struct target_id *id, const char *path,
			 const struct job_handler *h)
{
	struct core_job_arg *a = calloc(1, sizeof(*a));

	if (!a)
		return 0;
	strlcpy_ps(a->path, path, sizeof(a->path));
	return workers_submit(w, LANE_ATTACH, id, core_job, a, free, h);
}

struct estimate_arg {
	char path[PATH_MAX];       /* "": the default place */
};

static void estimate_job(struct job *j)
{
	struct estimate_arg *a = j->arg;
	struct core_opts o = { .path = a->path[0] ? a->path : NULL };
	struct core_check *c = calloc(1, sizeof(*c));
	struct target t;
	struct ps_error e;

	ps_error_clear(&e);
	if (!c) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		job_error(j, &e);
		return;
	}
	/* The process the user picked, or nothing: a reused PID is refused. */
	if (target_open(&t, j->target.pid, j->target.starttime ? &j->target : NULL, &e) < 0) {
		free(c);
		job_error(j, &e);
		return;
	}
	c->id = t.id;
	strlcpy_ps(c->comm, t.comm, sizeof(c->comm));
	target_close(&t);
	if (core_estimate(c->id.pid, &c->id, &o, &c->est, &e) < 0) {
		free(c);
		job_error(j, &e);
		return;
	}
	job_result(j, c, free);
}

unsigned core_estimate_submit(struct workers *w, const struct target_id *id, const char *path,
			      const struct job_handler *h)
{
	struct estimate_arg *a = calloc(1, sizeof(*a));

	if (!a)
		return 0;
	if (path)
		strlcpy_ps(a->path, path, sizeof(a->path));
	return workers_submit(w, LANE_LONG, id, estimate_job, a, free, h);
}
