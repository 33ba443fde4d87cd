/* The live process list recording itself (the list screen's R): each
 * tick's snapshot, the one the screen draws, written as a frame of a
 * recording (src/record/), with the short-lived processes of the tick
 * from the exit listener. The frames are those of `pscope record`: every
 * row read on every tick and every extra a recorder reads (live-list.c
 * asks the table for them while a recording is on). */
#include "source/live-rec.h"
#include "i18n.h"
#include "proc/ptable.h"
#include "record/record.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct live_rec {
	struct rec_writer *w;
	struct rec_exits *x;       /* NULL: short-lived processes not recorded */
	char path[SNAP_REC_PATH];
	char err[SNAP_REC_PATH + 160]; /* why it stopped, "" while on */
};

int live_rec_start(struct live_rec **out, const char *path, const struct snap_list *s, double interval_s,
		   struct ps_error *e)
{
	struct live_rec *r = calloc(1, sizeof(*r));
	struct rec_header h = {
		.hz = (unsigned)(s->times.hz > 0 ? s->times.hz : proc_hz()), .interval_ms = (unsigned)lround(interval_s * 1000),
		.key_every = 32, .btime = s->times.btime, .start = s->h.wall,
	};
	struct ps_error xe;

	*out = NULL;
	if (!r)
		return -ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	strlcpy_ps(r->path, path, sizeof(r->path));
	if (rec_writer_open(&r->w, path, &h, true, e) < 0) {
		free(r);
		return -e->code;
	}
	ps_error_clear(&xe);
	if (rec_exits_start(&r->x, &xe) < 0)
		r->x = NULL;
	*out = r;
	return 0;
}

void live_rec_note(const struct live_rec *r, struct snap_list *s)
{
	s->live_rec.on = !r->err[0];
	s->live_rec.exits = r->x != NULL;
	s->live_rec.frames = rec_writer_frames(r->w);
	s->live_rec.bytes = rec_writer_size(r->w);
	strlcpy_ps(s->live_rec.path, r->path, sizeof(s->live_rec.path));
	strlcpy_ps(s->live_rec.err, r->err, sizeof(s->live_rec.err));
}

int live_rec_add(struct live_rec *r, struct snap_list *s, const struct snap_list *prev)
{
	struct ps_error e;

	if (r->err[0])
		return -EIO;
	ps_error_clear(&e);
	if (r->x)
		rec_exits_attach(r->x, s, prev, NULL, NULL);
	int rc = rec_writer_add(r->w, s, NULL, NULL, &e);
	if (rc < 0)
		snprintf(r->err, sizeof(r->err), "%s", e.msg);
	live_rec_note(r, s);
	return rc;
}

void live_rec_stop(struct live_rec *r)
{
	struct ps_error e;

	if (!r)
		return;
	rec_exits_stop(r->x);
	ps_error_clear(&e);
	rec_writer_close(r->w, &e);
	free(r);
}
