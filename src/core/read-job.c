/* Reading a core as a job (the TUI's `pscope -c`): open it, build every
 * thread's stack and the memory map, off the UI thread. */
#include "core/read.h"
#include "i18n.h"
#include "stack/stack.h"
#include "util.h"
#include "worker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct read_arg {
	struct core_file_id id;
	char *exe, *sysroot;
};

static void arg_free(void *p)
{
	struct read_arg *a = p;
	free(a->exe);
	free(a->sysroot);
	free(a);
}

void core_view_free(struct core_view *v)
{
	if (!v)
		return;
	stk_dump_free(v->dump);
	free(v->maps_text);
	core_close(v->core);
	free(v);
}

static void view_free(void *p)
{
	core_view_free(p);
}

static void progress_cb(void *arg, double f, const char *text)
{
	job_progress(arg, f, "%s", text);
}

static void read_job(struct job *j)
{
	struct read_arg *a = j->arg;
	struct core_open_opts co = { .exe = a->exe, .sysroot = a->sysroot };
	struct stk_opts o = { .source = true, .cancel = &j->cancel, .progress = progress_cb, .progress_arg = j };
	struct core_view *v = calloc(1, sizeof(*v));
	struct ps_error e;

	ps_error_clear(&e);
	if (!v) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		job_error(j, &e);
		return;
	}
	job_progress(j, 0, _("reading %s"), a->id.path);
	if (core_open(a->id.path, &co, &v->core, &e) == 0 && a->id.ino && !core_file_id_equal(&a->id, &v->core->id))
		ps_error_set(&e, ESTALE, _("%s is another file now (replaced since it was read): r reads the new one"),
			     a->id.path);
	if (e.code || core_stack_dump(v->core, &o, &v->dump, &e) < 0) {
		if (e.code != ECANCELED)
			job_error(j, &e);
		core_view_free(v);
		return;
	}
	v->maps_text = core_maps_text(v->core, false);
	job_result(j, v, view_free);
}

unsigned core_read_submit(struct workers *w, const struct core_file_id *id, const char *exe, const char *sysroot,
			  const struct job_handler *h)
{
	struct read_arg *a = calloc(1, sizeof(*a));
	struct target_id none = { 0 };

	if (!a)
		return 0;
	a->id = *id;
	a->exe = exe ? strdup(exe) : NULL;
	a->sysroot = sysroot ? strdup(sysroot) : NULL;
	if ((exe && !a->exe) || (sysroot && !a->sysroot)) {
		arg_free(a);
		return 0;
	}
	return workers_submit(w, LANE_ATTACH, &none, read_job, a, arg_free, h);
}
