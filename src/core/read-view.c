/* A core read for a screen (the TUI's `pscope -c`, through the core
 * source, src/source/core.c): the core, every thread's stack and the
 * memory map, read on a worker thread with progress and a cancel. */
#include "core/read.h"
#include "i18n.h"
#include "stack/stack.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void core_view_free(struct core_view *v)
{
	if (!v)
		return;
	stk_dump_free(v->dump);
	free(v->maps_text);
	core_close(v->core);
	free(v);
}

int core_view_read(const struct core_file_id *id, const char *exe, const char *sysroot, atomic_bool *cancel,
		   void (*progress)(void *arg, double fraction, const char *text), void *arg, struct core_view **out,
		   struct ps_error *e)
{
	struct core_open_opts co = { .exe = exe, .sysroot = sysroot };
	struct stk_opts o = { .source = true, .cancel = cancel, .progress = progress, .progress_arg = arg };
	struct core_view *v = calloc(1, sizeof(*v));
	char what[4200];

	*out = NULL;
	if (!v)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	if (progress) {
		snprintf(what, sizeof(what), _("reading %s"), id->path);
		progress(arg, 0, what);
	}
	if (core_open(id->path, &co, &v->core, e) == 0 && id->ino && !core_file_id_equal(id, &v->core->id))
		ps_error_set(e, ESTALE, _("%s is another file now (replaced since it was read): r reads the new one"),
			     id->path);
	if (e->code || core_stack_dump(v->core, &o, &v->dump, e) < 0) {
		int r = -(e->code ? e->code : EIO);
		core_view_free(v);
		return r;
	}
	v->maps_text = core_maps_text(v->core, false);
	*out = v;
	return 0;
}
