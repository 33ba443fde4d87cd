/* A recording as a source: the interval the screen asks for
 * (source_want.replay_at) made again into a list snapshot, its rates
 * against the interval before it (as the live list's are against the
 * scan before); a new snapshot only when another interval is asked for. */
#include "source/source.h"
#include "i18n.h"
#include "record/convert.h"
#include "record/file.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct source_ops record_ops;

static struct rec_reader *reader(const struct source *s)
{
	return s->ops == &record_ops ? s->st : NULL;
}

static void record_close(void *st)
{
	rec_reader_close(st);
}

/* Interval i as a snapshot (its rates not made). */
static int snapshot(struct rec_reader *r, size_t i, struct snap_list **out, struct ps_error *e)
{
	const struct rec_interval *iv;
	int err = rec_reader_get(r, i, &iv, e);

	*out = NULL;
	if (err < 0)
		return err;
	if (!(*out = rec_snap_of(iv, r->h.hz, r->h.btime)))
		return ps_error_set(e, ENOMEM, "%s", _("out of memory while making an interval again"));
	(*out)->rec_i = i;
	(*out)->rec_n = r->n;
	(*out)->rec_first = (double)r->v[0].wall_ns / 1e9;
	(*out)->rec_last = (double)r->v[r->n - 1].wall_ns / 1e9;
	return 0;
}

static int record_read(void *st, const struct source_io *io, const struct source_want *w, const struct snap_head *last,
		       bool tick, struct snap_head **out, struct ps_error *e)
{
	struct rec_reader *r = st;
	const struct snap_list *prev = (const struct snap_list *)last;
	size_t i = w->replay_wall > 0 ? rec_entry_nearest(r->v, r->n, (uint64_t)(w->replay_wall * 1e9))
		   : w->replay_at < 0 ? 0 : (size_t)w->replay_at >= r->n ? r->n - 1 : (size_t)w->replay_at;
	struct snap_list *before = NULL, *s = NULL;
	int err;

	(void)io;
	(void)tick;
	*out = NULL;
	if (prev && prev->rec_i == i && prev->rec_n == r->n)
		return 0;
	if (i > 0 && (err = snapshot(r, i - 1, &before, e)) < 0)
		return err;
	if ((err = snapshot(r, i, &s, e)) < 0) {
		snap_put(before ? &before->h : NULL);
		return err;
	}
	if (before)
		snap_list_rates(NULL, before);
	snap_list_rates(before, s);
	snap_put(before ? &before->h : NULL);
	*out = &s->h;
	return 0;
}

static const struct source_ops record_ops = {
	.name = "recording",
	.read = record_read,
	.close = record_close,
};

int source_record(struct source *out, const char *path, char *note, size_t note_size, struct ps_error *e)
{
	struct rec_reader *r;
	int err;

	memset(out, 0, sizeof(*out));
	if (!rec_zstd_ok(e))
		return -e->code;
	if ((err = rec_reader_open(&r, path, e)) < 0)
		return err;
	if (note)
		strlcpy_ps(note, r->note, note_size);
	out->ops = &record_ops;
	out->st = r;
	return 0;
}

long source_record_nearest(const struct source *s, double wall)
{
	struct rec_reader *r = reader(s);

	if (!r || !r->n)
		return -1;
	return (long)rec_entry_nearest(r->v, r->n, wall <= 0 ? 0 : (uint64_t)(wall * 1e9));
}

void source_record_span(const struct source *s, size_t *n, double *first, double *last)
{
	struct rec_reader *r = reader(s);

	*n = r ? r->n : 0;
	*first = r && r->n ? (double)r->v[0].wall_ns / 1e9 : 0;
	*last = r && r->n ? (double)r->v[r->n - 1].wall_ns / 1e9 : 0;
}
