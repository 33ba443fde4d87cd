/* Shared by live-list.c and live-rec.c only: the live process list
 * recording itself (the list screen's R), one frame a tick, from the
 * snapshots the screen draws: nothing is read twice. */
#ifndef PS_SOURCE_LIVE_REC_H
#define PS_SOURCE_LIVE_REC_H

#include "source/source.h"

/* What a recorder reads of every row (pscope record's too). */
#define LIVE_REC_PX (PX_SHR | PX_IO | PX_CTXT | PX_OOM | PX_CGROUP)

struct live_rec;
/* A new recording at path of the ticks to come, their clock ticks and
 * boot time those of s; the exit listener started when it can be (as
 * root). 0, or -errno with e saying why. */
int live_rec_start(struct live_rec **out, const char *path, const struct snap_list *s, double interval_s,
		   struct ps_error *e);
/* One tick's snapshot (not yet shared: its short-lived processes are
 * added) as a frame; prev the tick before. s->live_rec says how far the
 * recording is, or why it stopped (then r is closed: live_rec_stop). */
int live_rec_add(struct live_rec *r, struct snap_list *s, const struct snap_list *prev);
/* Closed cleanly (the index, the closed mark); frees r. */
void live_rec_stop(struct live_rec *r);
/* What a snapshot says of a recording that is on. */
void live_rec_note(const struct live_rec *r, struct snap_list *s);

#endif
