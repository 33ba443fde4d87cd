/* The stack dump as an ATTACH-lane job: progress and cancel through the
 * job, the dump as its result. */
#include "stack/stack.h"
#include "worker.h"

#include <errno.h>
#include <stdlib.h>

struct stk_job_arg {
	bool source, goroutines;
};

static void progress_cb(void *arg, double f, const char *text)
{
	job_progress(arg, f, "%s", text);
}

static void dump_free(void *p)
{
	stk_dump_free(p);
}

static void stk_job(struct job *j)
{
	struct stk_job_arg *a = j->arg;
	struct stk_opts o = {
		.source = a->source,
		.goroutines = a->goroutines,
		.cancel = &j->cancel,
		.progress = progress_cb,
		.progress_arg = j,
	};
	struct stk_dump *d;
	struct ps_error e;

	ps_error_clear(&e);
	if (stk_dump_run(&j->target, &o, &d, &e) < 0) {
		if (e.code != ECANCELED)
			job_error(j, &e);
		return;
	}
	job_result(j, d, dump_free);
}

unsigned stk_submit(struct workers *w, const struct target_id *id, bool source, bool goroutines,
		    const struct job_handler *h)
{
	struct stk_job_arg *a = calloc(1, sizeof(*a));

	if (!a)
		return 0;
	a->source = source;
	a->goroutines = goroutines;
	return workers_submit(w, LANE_ATTACH, id, stk_job, a, free, h);
}
