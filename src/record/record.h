/* Recordings: the process list's snapshots written one per interval into
 * an append-only file (doc/record-format.md, src/record/format.h), and
 * read back as the same snapshots, their rates made again from two
 * consecutive frames, so every screen and `pscope list` draws a recorded
 * interval as it draws a live one.
 *
 *   writer (write.c)  one frame per interval; a key frame every
 *                     key_every frames, the others zstd deltas against
 *                     the frame before; an index block every key_every
 *                     frames; fdatasync after each frame, so SIGKILL or a
 *                     power loss loses at most the interval being written
 *   reader (read.c)   the header checked (a newer version refused by
 *                     name), the index chain loaded (O(log n) seek by
 *                     time), the frames after the last index block found
 *                     by a scan, a torn tail reported and skipped
 *   frames (frame2.c) the pure payload encoder and decoder (schema 2;
 *                     frame1.c reads schema 1)
 *   times (when.c)    HH:MM[:SS], an ISO date-time, +30s, -10m */
#ifndef PS_RECORD_RECORD_H
#define PS_RECORD_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "reads.h"
#include "record/format.h"
#include "source/snap.h"

/* ---- frames (pure) ---- */

/* s's rows (those keep accepts; keep NULL: all), counts and meters as one
 * payload of schema REC_SCHEMA, malloc'ed into *out. */
int rec_frame_encode(const struct snap_list *s, bool (*keep)(const struct proc_row *r, void *arg), void *arg,
		     void **out, size_t *len, struct ps_error *e);
/* A payload made again into a snapshot without rates (snap_list_rates
 * against the frame before gives them); the clock ticks and boot time
 * come from the header. -EBADMSG with *bad_off (within data) when it is
 * not a whole frame. */
int rec_frame_decode(const void *data, size_t len, const struct rec_header *h, struct snap_list **out,
		     size_t *bad_off, struct ps_error *e);
/* The readers of each schema rec_frame_decode picks by h->schema. */
int rec_frame1_decode(const void *data, size_t len, const struct rec_header *h, struct snap_list **out,
		      size_t *bad_off, struct ps_error *e);
int rec_frame2_decode(const void *data, size_t len, const struct rec_header *h, struct snap_list **out,
		      size_t *bad_off, struct ps_error *e);

/* ---- writing ---- */

struct rec_writer;
/* A new file at path (never an existing one: O_EXCL), with h's header
 * (version, schema and start filled in here). */
int rec_writer_open(struct rec_writer **out, const char *path, const struct rec_header *h, bool sync,
		    struct ps_error *e);
/* One interval. A failed write (a full disk) leaves the file as it was
 * before it: readable up to the frame before. */
int rec_writer_add(struct rec_writer *w, const struct snap_list *s, bool (*keep)(const struct proc_row *r, void *arg),
		   void *arg, struct ps_error *e);
uint64_t rec_writer_size(const struct rec_writer *w);
unsigned rec_writer_frames(const struct rec_writer *w);
/* The last index block and the closed mark; frees w either way. */
int rec_writer_close(struct rec_writer *w, struct ps_error *e);

/* ---- reading ---- */

struct rec_file {
	char *path;
	int fd;
	uint64_t size;
	struct rec_header h;
	struct rec_entry *v;       /* every whole frame, by time */
	size_t n;
	bool closed;               /* the recorder ended cleanly */
	bool scanned;              /* no usable index: the frames were found by a scan */
	uint64_t tear_off, tear_len; /* a torn tail skipped (tear_len 0: none) */
	char note[640];            /* what the user should know ("" none): the tear,
				    * not closed, an index rebuilt */
	/* the newest frame made again, the base of the next delta */
	size_t cache_i;
	void *cache;
	size_t cache_len;
};

/* Open and check path. Every failure names the file and the offset. */
PS_READS int rec_open(const char *path, struct rec_file **out, struct ps_error *e);
void rec_close(struct rec_file *f);
/* The frame nearest to wall (seconds since 1970): O(log n). */
size_t rec_find(const struct rec_file *f, double wall);
static inline double rec_wall(const struct rec_file *f, size_t i)
{
	return (double)f->v[i].wall_ns / 1e9;
}
/* Frame i as a snapshot, its rates made from frame i-1 (none for the
 * first). */
PS_READS int rec_snapshot(struct rec_file *f, size_t i, struct snap_list **out, struct ps_error *e);

/* ---- short-lived processes (exits.c) ---- */

/* A thread listening to every process's exit (taskstats; CAP_NET_ADMIN):
 * 0, or -errno with e saying why. */
struct rec_exits;
PS_READS int rec_exits_start(struct rec_exits **out, struct ps_error *e);
/* The processes (main threads) that exited since the last take,
 * malloc'ed into *out; *lost: messages the socket dropped so far. */
size_t rec_exits_take(struct rec_exits *x, struct snap_exit **out, unsigned long *lost);
void rec_exits_stop(struct rec_exits *x);
/* The processes taken now that are in no frame into s (their exits,
 * exits_on set): those prev (the frame before) does not hold, and that
 * keep accepts (NULL: all). */
void rec_exits_attach(struct rec_exits *x, struct snap_list *s, const struct snap_list *prev,
		      bool (*keep)(const struct snap_exit *x, void *arg), void *arg);

/* ---- times (pure) ---- */

/* A TIME of the user's: HH:MM[:SS] (the day of the recording's start, or
 * the next when that is before it), YYYY-MM-DD[T ]HH:MM[:SS] (local
 * time), +N[smhd] from start, -N[smhd] from end. Seconds since 1970. */
int rec_time_parse(const char *s, double start, double end, double *out, struct ps_error *e);
/* "2026-12-04 02:13:05" (local time). */
const char *rec_fmt_time(double wall, char *buf, size_t size);

#endif
