/* A recording as a source: the interval the screen asks for, made again
 * from the file with its rates from the interval before it (src/record/);
 * nothing new while the screen asks for the same one. The file is opened
 * on the first read, on the source's worker. */
#include "source/source.h"
#include "i18n.h"
#include "record/record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct replay {
	char *path;
	struct rec_file *f;
};

static void replay_close(void *st)
{
	struct replay *r = st;

	if (!r)
		return;
	rec_close(r->f);
	free(r->path);
	free(r);
}

static int replay_read(void *st, const struct source_io *io, const struct source_want *w, const struct snap_head *last,
		       bool tick, struct snap_head **out, struct ps_error *e)
{
	struct replay *r = st;
	const struct snap_list *prev = (const struct snap_list *)last;
	struct snap_list *s;

	(void)io;
	(void)tick;
	*out = NULL;
	if (!r->f && rec_open(r->path, &r->f, e) < 0)
		return -e->code;
	size_t n = r->f->n, i;
	if (w->replay_at > 0)
		i = rec_find(r->f, w->replay_at);
	else if (w->replay_i < 0)
		i = n - 1;
	else
		i = (size_t)w->replay_i < n ? (size_t)w->replay_i : n - 1;
	if (prev && prev->rec.on && prev->rec.i == i && prev->threads == w->threads)
		return 0;
	if (rec_snapshot(r->f, i, &s, e) < 0)
		return -e->code;
	s->rec.on = true;
	s->rec.i = i;
	s->rec.n = n;
	s->rec.start = r->f->h.start;
	s->rec.end = rec_wall(r->f, n - 1);
	s->rec.torn = r->f->tear_len > 0;
	s->rec.unclosed = !r->f->closed;
	s->rec.scanned = r->f->scanned;
	*out = &s->h;
	return 0;
}

static const struct source_ops replay_ops = {
	.name = "recording",
	.read = replay_read,
	.close = replay_close,
};

int source_replay(struct source *out, const char *path)
{
	struct replay *r = calloc(1, sizeof(*r));

	memset(out, 0, sizeof(*out));
	if (!r || !(r->path = strdup(path))) {
		free(r);
		return -ENOMEM;
	}
	out->ops = &replay_ops;
	out->st = r;
	return 0;
}
