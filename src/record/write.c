/* The recorder's file: frames appended one interval at a time, an index
 * block every key_every frames, the checkpoint slots pointing at the
 * newest index block. */
#include "record/record.h"
#include "out/save.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

struct rec_writer {
	int fd;
	char *path;
	struct rec_header h;
	bool sync;
	uint64_t off;              /* where the next block goes */
	unsigned seq;              /* the next frame's number */
	void *prev;                /* the last frame's payload: the next delta's base */
	size_t prev_len;
	struct rec_entry *pend;    /* frames since the last index block */
	size_t npend, cap;
	uint64_t last_index, gen;
	unsigned nindexed;
};

static int io_fail(struct rec_writer *w, int err, uint64_t at, struct ps_error *e)
{
	return ps_error_set(e, err, _("%s: cannot write at offset %llu: %s"), w->path, (unsigned long long)at,
			    strerror(err));
}

static int write_at(struct rec_writer *w, const struct iovec *iov, int n, uint64_t at, struct ps_error *e)
{
	size_t want = 0;

	for (int i = 0; i < n; i++)
		want += iov[i].iov_len;
	ssize_t k = pwritev(w->fd, iov, n, (off_t)at);
	if (k == (ssize_t)want)
		return 0;
	int err = k < 0 ? errno : ENOSPC;
	/* Nothing half-written stays behind: the file ends at the last
	 * whole block again. */
	if (ftruncate(w->fd, (off_t)at) < 0) {
		/* the reader skips a torn tail anyway */
	}
	return io_fail(w, err, at, e);
}

static int sync_fd(struct rec_writer *w, struct ps_error *e)
{
	if (w->sync && fdatasync(w->fd) < 0)
		return io_fail(w, errno, w->off, e);
	return 0;
}

int rec_writer_open(struct rec_writer **out, const char *path, const struct rec_header *h, bool sync,
		    struct ps_error *e)
{
	unsigned char b[REC_DATA_OFF] = { 0 };
	struct rec_writer *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w || !(w->path = strdup(path))) {
		free(w);
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	}
	w->h = *h;
	w->h.version = REC_VERSION;
	w->h.schema = REC_SCHEMA;
	if (!w->h.key_every)
		w->h.key_every = 32;
	w->sync = sync;
	/* Through the checked directory, unnamed until the header is on disk:
	 * the name never shows a file that is not a recording, never an old
	 * file or a link (src/out/save.c). From then on a frame is whole or
	 * a torn tail the reader skips (doc/record-format.md). */
	struct out_dest d;
	if (out_dest_begin(&d, path, "rec", 0644, e) < 0) {
		free(w->path);
		free(w);
		return -e->code;
	}
	w->fd = d.f.fd;
	rec_header_encode(&w->h, b);
	struct iovec iov = { b, sizeof(b) };
	if (write_at(w, &iov, 1, 0, e) < 0 || out_dest_commit(&d, false, e) < 0) {
		out_dest_abort(&d);
		free(w->path);
		free(w);
		return -e->code;
	}
	w->off = REC_DATA_OFF;
	*out = w;
	return 0;
}

static int write_slot(struct rec_writer *w, bool closed, struct ps_error *e)
{
	unsigned char b[REC_SLOT_SIZE];
	struct rec_slot s = { .gen = ++w->gen, .last_index = w->last_index, .nframes = w->nindexed, .closed = closed };

	rec_slot_encode(&s, b);
	struct iovec iov = { b, sizeof(b) };
	/* The slot not written last: a torn write leaves the other whole. */
	uint64_t at = REC_SLOT_OFF + (w->gen % 2) * REC_SLOT_SIZE;
	ssize_t k = pwritev(w->fd, &iov, 1, (off_t)at);
	if (k != (ssize_t)sizeof(b))
		return io_fail(w, k < 0 ? errno : ENOSPC, at, e);
	return sync_fd(w, e);
}

static int write_index(struct rec_writer *w, struct ps_error *e)
{
	size_t len = rec_index_size(w->npend);
	unsigned char *p = malloc(len), head[REC_BLOCK_HEAD];

	if (!p)
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	rec_index_encode(w->last_index, w->pend, w->npend, p);
	struct rec_block b = { .type = REC_B_INDEX, .codec = REC_C_RAW, .seq = w->pend[0].seq, .ref = REC_NO_REF,
			       .stored_len = (uint32_t)len, .raw_len = (uint32_t)len };
	b.stored_crc = b.raw_crc = rec_crc(p, len);
	rec_block_encode(&b, head);
	struct iovec iov[2] = { { head, sizeof(head) }, { p, len } };
	int r = write_at(w, iov, 2, w->off, e);
	free(p);
	if (r < 0 || (r = sync_fd(w, e)) < 0)
		return r;
	w->last_index = w->off;
	w->off += REC_BLOCK_HEAD + len;
	w->nindexed += (unsigned)w->npend;
	w->npend = 0;
	return write_slot(w, false, e);
}

int rec_writer_add(struct rec_writer *w, const struct snap_list *s, bool (*keep)(const struct proc_row *r, void *arg),
		   void *arg, struct ps_error *e)
{
	void *raw = NULL, *packed = NULL;
	size_t len = 0, plen = 0;
	unsigned char head[REC_BLOCK_HEAD];
	int r;

	if ((r = rec_frame_encode(s, keep, arg, &raw, &len, e)) < 0)
		return r;
	if (len > REC_FRAME_MAX) {
		free(raw);
		return ps_error_set(e, E2BIG, "%s", _("a frame larger than a recording can hold"));
	}
	bool key = !w->prev || w->seq % w->h.key_every == 0;
	if ((r = rec_pack(raw, len, key ? NULL : w->prev, key ? 0 : w->prev_len, &packed, &plen, e)) < 0) {
		free(raw);
		return r;
	}
	struct rec_block b = {
		.type = REC_B_FRAME, .codec = REC_C_ZSTD, .seq = w->seq, .ref = key ? REC_NO_REF : w->seq - 1,
		.wall_ns = (uint64_t)(s->h.wall * 1e9), .stored_len = (uint32_t)plen, .raw_len = (uint32_t)len,
		.stored_crc = rec_crc(packed, plen), .raw_crc = rec_crc(raw, len),
	};
	rec_block_encode(&b, head);
	struct iovec iov[2] = { { head, sizeof(head) }, { packed, plen } };
	if (array_reserve((void **)&w->pend, &w->cap, w->npend, sizeof(*w->pend), 64) < 0) {
		free(raw);
		free(packed);
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	}
	r = write_at(w, iov, 2, w->off, e);
	free(packed);
	if (r < 0 || (r = sync_fd(w, e)) < 0) {
		free(raw);
		return r;
	}
	w->pend[w->npend++] = (struct rec_entry){ b.wall_ns, w->off, w->seq, (uint32_t)(REC_BLOCK_HEAD + plen) };
	w->off += REC_BLOCK_HEAD + plen;
	w->seq++;
	free(w->prev);
	w->prev = raw;
	w->prev_len = len;
	if (w->npend >= w->h.key_every)
		return write_index(w, e);
	return 0;
}

uint64_t rec_writer_size(const struct rec_writer *w)
{
	return w->off;
}

unsigned rec_writer_frames(const struct rec_writer *w)
{
	return w->seq;
}

int rec_writer_close(struct rec_writer *w, struct ps_error *e)
{
	int r = 0;

	if (!w)
		return 0;
	if (w->npend)
		r = write_index(w, e);
	if (r == 0)
		r = write_slot(w, true, e);
	if (close(w->fd) < 0 && r == 0)
		r = io_fail(w, errno, w->off, e);
	free(w->prev);
	free(w->pend);
	free(w->path);
	free(w);
	return r;
}
