/* A core file as a source: one process at one instant. The first read
 * opens the core, unwinds every thread (src/core/read-view.c) and parses
 * its memory map into the Maps pane's data, the same as a live process's;
 * every tick after that checks the file is still the one read (device,
 * inode, size, mtime) and says so when it was replaced. */
#include "source/source.h"
#include "core/read.h"
#include "i18n.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct snap_core {
	atomic_int refs;
	struct core_view *cv;      /* the core, its stacks, its map */
};

struct snap_core *snap_core_get(struct snap_core *c)
{
	if (c)
		atomic_fetch_add(&c->refs, 1);
	return c;
}

void snap_core_put(struct snap_core *c)
{
	if (c && atomic_fetch_sub(&c->refs, 1) == 1) {
		core_view_free(c->cv);
		free(c);
	}
}

struct core_view *snap_core_view(const struct snap_core *c)
{
	return c ? c->cv : NULL;
}

struct core_src {
	struct core_file_id id;    /* the file to read; then the one read */
	char *exe;
	const struct ps_clock *clk;
	bool read, replaced;
};

static void core_close_src(void *st)
{
	struct core_src *c = st;

	if (!c)
		return;
	free(c->exe);
	free(c);
}

static int first_read(struct core_src *c, const struct source_io *io, struct snap_proc *s, struct ps_error *e)
{
	struct core_view *v;
	int r = core_view_read(&c->id, c->exe, NULL, io->cancel, io->progress, io->progress_arg, &v, e);

	if (r < 0)
		return r;
	c->id = v->core->id;
	c->read = true;
	if (!(s->core = calloc(1, sizeof(*s->core)))) {
		core_view_free(v);
		return -ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	}
	atomic_init(&s->core->refs, 1);
	s->core->cv = v;
	s->id.pid = v->dump ? v->dump->target.pid : 0;
	s->frozen = true; /* no process to read again */
	/* The Maps pane's data, as for a live process: from NT_FILE and
	 * PT_LOAD (the mappings never change). */
	struct pane_data *d = pane_data_new(PANE_ID_maps, s->h.t_ns);
	if (d && v->maps_text && (d->err = proc_maps_parse(v->maps_text, strlen(v->maps_text), false, &d->u.maps)) < 0)
		ps_error_set(&d->e, -d->err, "%s", _("the core's memory map does not parse"));
	s->pane[PANE_ID_maps] = d;
	return 0;
}

static int core_read(void *st, const struct source_io *io, const struct source_want *w, const struct snap_head *last,
		     bool tick, struct snap_head **out, struct ps_error *e)
{
	struct core_src *c = st;
	struct snap_proc *s;

	(void)w;
	*out = NULL;
	if (c->read && (!tick || c->replaced))
		return 0;
	if (c->read) {
		/* Still the file that was read? */
		struct core_file_id now = c->id;
		if (core_file_id_read(&now) == 0 && core_file_id_equal(&now, &c->id))
			return 0;
		c->replaced = true;
	}
	if (!(s = snap_proc_next((const struct snap_proc *)last)))
		return -ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	s->h.t_ns = clock_mono_ns(c->clk);
	s->h.wall = clock_wall_s(c->clk);
	if (!c->read) {
		int r = first_read(c, io, s, e);
		if (r < 0) {
			snap_put(&s->h);
			return r;
		}
	} else {
		snprintf(s->note, sizeof(s->note),
			 _("%s changed on disk since it was read (replaced or rewritten): this is the old one; r reads the new one"),
			 c->id.path);
	}
	*out = &s->h;
	return 0;
}

static const struct source_ops core_ops = {
	.name = "core",
	.read = core_read,
	.close = core_close_src,
};

int source_core(struct source *out, const struct core_file_id *id, const char *exe, const struct ps_clock *clk)
{
	struct core_src *c = calloc(1, sizeof(*c));

	memset(out, 0, sizeof(*out));
	if (!c)
		return -ENOMEM;
	c->id = *id;
	c->clk = clk;
	if (exe && !(c->exe = strdup(exe))) {
		free(c);
		return -ENOMEM;
	}
	out->ops = &core_ops;
	out->st = c;
	return 0;
}
