/* Reading a recording: its header, its intervals through the footer's
 * index (O(log n) by time) or, when there is none or it is damaged, by
 * reading each frame's header once; a torn tail is said and skipped. */
#include "record/file.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int pread_all(int fd, void *p, size_t n, uint64_t off)
{
	char *c = p;

	while (n) {
		ssize_t k = pread(fd, c, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ENODATA;
		c += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* "PATH: at offset N: what" into e, keeping e's code. */
static int at(struct rec_reader *r, struct ps_error *e, uint64_t off, const char *what)
{
	char msg[sizeof(e->msg)];

	strlcpy_ps(msg, what, sizeof(msg));
	return ps_error_set(e, e->code ? e->code : EPROTO, _("%s: at offset %llu: %s"), r->path,
			     (unsigned long long)off, msg);
}

/* The payload of the frame at off (header fh) into a new buffer, its
 * checksum checked. */
static int read_payload(struct rec_reader *r, uint64_t off, const struct rec_frame_head *fh, uint8_t **out,
			struct ps_error *e)
{
	uint8_t *p = malloc((size_t)fh->packed_len + 1);
	int err;

	*out = NULL;
	if (!p)
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	if ((err = pread_all(r->fd, p, fh->packed_len, off + REC_FRAME_HEAD)) < 0) {
		free(p);
		ps_error_set(e, -err, "%s", err == -ENODATA ? _("the frame is cut short") : strerror(-err));
		return at(r, e, off, e->msg);
	}
	if (rec_crc32(p, fh->packed_len) != fh->crc) {
		free(p);
		e->code = EPROTO;
		return at(r, e, off, _("the interval's compressed block is damaged (its checksum is wrong)"));
	}
	*out = p;
	return 0;
}

/* Every frame from the header on, by their headers. */
static int scan(struct rec_reader *r, struct ps_error *e)
{
	uint64_t off = r->h.len;
	size_t cap = 0;

	r->n = 0;
	while (off < r->size) {
		uint8_t hb[REC_FRAME_HEAD], fb[REC_FOOTER];
		struct rec_frame_head fh;
		struct ps_error fe;
		const char *why = NULL;

		ps_error_clear(&fe);
		if (r->size - off == REC_FOOTER && pread_all(r->fd, fb, sizeof(fb), off) == 0) {
			struct rec_footer ft;
			if (rec_footer_parse(fb, &ft) == 0)
				break;
		}
		if (r->size - off < REC_FRAME_HEAD || pread_all(r->fd, hb, sizeof(hb), off) < 0)
			why = _("a frame header is cut short");
		else if (rec_frame_head_parse(hb, &fh, &fe) < 0)
			why = fe.msg;
		else if (fh.packed_len > r->size - off - REC_FRAME_HEAD)
			why = _("the frame is cut short");
		else if (off + REC_FRAME_HEAD + fh.packed_len == r->size || r->size - (off + REC_FRAME_HEAD + fh.packed_len) == REC_FOOTER) {
			/* The last frame: its payload checked too (a tear can
			 * leave a header over zeros). */
			uint8_t *p;
			struct ps_error pe;
			ps_error_clear(&pe);
			if (read_payload(r, off, &fh, &p, &pe) < 0)
				why = _("the last frame's data is damaged");
			free(p);
		}
		if (why) {
			snprintf(r->note, sizeof(r->note),
				 _("%s: at offset %llu: %s: the %llu bytes from there on were skipped (a torn tail: the recorder stopped while writing; at most that interval is lost)"),
				 r->path, (unsigned long long)off, why, (unsigned long long)(r->size - off));
			break;
		}
		if (fh.type != REC_FRAME_INDEX) {
			if (array_reserve((void **)&r->v, &cap, r->n, sizeof(*r->v), 256) < 0)
				return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
			r->v[r->n++] = (struct rec_entry){ .wall_ns = fh.wall_ns, .off = off, .packed_len = fh.packed_len,
							   .type = (uint8_t)fh.type };
		}
		off += REC_FRAME_HEAD + fh.packed_len;
	}
	return 0;
}

/* The index the footer points to; -errno with e when it is not usable. */
static int load_index(struct rec_reader *r, const struct rec_footer *ft, struct ps_error *e)
{
	uint8_t hb[REC_FRAME_HEAD], *p = NULL;
	struct rec_frame_head fh;

	if (ft->index_off < r->h.len || ft->index_off + REC_FRAME_HEAD > r->size - REC_FOOTER ||
	    pread_all(r->fd, hb, sizeof(hb), ft->index_off) < 0)
		return at(r, e, r->size - REC_FOOTER, _("the footer points outside the file"));
	if (rec_frame_head_parse(hb, &fh, e) < 0 || fh.type != REC_FRAME_INDEX)
		return at(r, e, ft->index_off, _("the index frame is damaged"));
	if (fh.packed_len != (uint64_t)ft->count * REC_INDEX_ENTRY || fh.raw_len != fh.packed_len)
		return at(r, e, ft->index_off, _("the index's length does not match the footer's count"));
	if (read_payload(r, ft->index_off, &fh, &p, e) < 0)
		return at(r, e, ft->index_off, _("the index is damaged (its checksum is wrong)"));
	r->v = calloc((size_t)ft->count + 1, sizeof(*r->v));
	if (!r->v) {
		free(p);
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	}
	uint64_t prev_end = r->h.len;
	for (uint32_t i = 0; i < ft->count; i++) {
		struct rec_entry *en = &r->v[i];
		rec_entry_parse(p + (size_t)i * REC_INDEX_ENTRY, en);
		if (en->off < prev_end || en->off + REC_FRAME_HEAD + en->packed_len > ft->index_off ||
		    (en->type != REC_FRAME_KEY && en->type != REC_FRAME_DELTA) || (i && en->wall_ns < r->v[i - 1].wall_ns)) {
			free(p);
			free(r->v);
			r->v = NULL;
			return at(r, e, ft->index_off + REC_FRAME_HEAD + (uint64_t)i * REC_INDEX_ENTRY,
				  _("an index entry is inconsistent"));
		}
		prev_end = en->off + REC_FRAME_HEAD + en->packed_len;
	}
	free(p);
	r->n = ft->count;
	r->indexed = true;
	return 0;
}

int rec_reader_open(struct rec_reader **out, const char *path, struct ps_error *e)
{
	struct rec_reader *r = calloc(1, sizeof(*r));
	uint8_t head[REC_HEAD_MAX];
	struct stat st;
	size_t need = 0;
	int err;

	*out = NULL;
	if (!r)
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	strlcpy_ps(r->path, path, sizeof(r->path));
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st) < 0) {
		err = errno;
		ps_error_set(e, err, _("cannot open %s: %s"), path, strerror(err));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		ps_error_set(e, EINVAL, _("%s is not a regular file"), path);
		goto fail;
	}
	r->size = (uint64_t)st.st_size;
	size_t len = r->size < sizeof(head) ? (size_t)r->size : sizeof(head);
	if ((err = pread_all(r->fd, head, len, 0)) < 0) {
		ps_error_set(e, -err, _("cannot read %s: %s"), path, strerror(-err));
		goto fail;
	}
	if (rec_header_parse(head, len, &r->h, &need, e) < 0) {
		at(r, e, 0, e->msg);
		goto fail;
	}
	/* The footer's index when the recording was closed, else a scan. */
	uint8_t fb[REC_FOOTER];
	struct rec_footer ft;
	if (r->size >= r->h.len + REC_FRAME_HEAD + REC_FOOTER && pread_all(r->fd, fb, sizeof(fb), r->size - REC_FOOTER) == 0 &&
	    rec_footer_parse(fb, &ft) == 0) {
		struct ps_error ie;
		ps_error_clear(&ie);
		if (load_index(r, &ft, &ie) < 0)
			snprintf(r->note, sizeof(r->note), _("%s (the intervals were found by reading each frame instead)"), ie.msg);
	}
	if (!r->indexed) {
		char idx_note[sizeof(r->note)];
		strlcpy_ps(idx_note, r->note, sizeof(idx_note));
		r->note[0] = '\0';
		if (scan(r, e) < 0)
			goto fail;
		if (idx_note[0]) {
			char both[sizeof(r->note)];
			snprintf(both, sizeof(both), "%s%s%s", idx_note, r->note[0] ? "; " : "", r->note);
			strlcpy_ps(r->note, both, sizeof(r->note));
		}
	}
	if (!r->n) {
		ps_error_set(e, ENODATA, _("%s holds no interval yet"), path);
		if (r->note[0])
			ps_error_set(e, ENODATA, "%s", r->note);
		goto fail;
	}
	*out = r;
	return 0;
fail:
	rec_reader_close(r);
	return -e->code;
}

/* Decode interval i from the one before it (or alone: a key). */
static int decode(struct rec_reader *r, size_t i, const struct rec_interval *prev, struct rec_interval *out,
		  struct ps_error *e)
{
	const struct rec_entry *en = &r->v[i];
	uint8_t hb[REC_FRAME_HEAD], *p = NULL, *raw = NULL;
	struct rec_frame_head fh;
	int err;

	if ((err = pread_all(r->fd, hb, sizeof(hb), en->off)) < 0) {
		ps_error_set(e, EPROTO, "%s", _("the frame is cut short"));
		return at(r, e, en->off, e->msg);
	}
	if (rec_frame_head_parse(hb, &fh, e) < 0 || fh.packed_len != en->packed_len || (uint8_t)fh.type != en->type)
		return at(r, e, en->off, _("the frame does not match the index"));
	if ((err = read_payload(r, en->off, &fh, &p, e)) < 0)
		return err;
	if (!(raw = malloc((size_t)fh.raw_len + 1))) {
		free(p);
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	}
	err = rec_unpack(p, fh.packed_len, raw, fh.raw_len, e);
	free(p);
	if (err == 0)
		err = rec_interval_decode(prev, raw, fh.raw_len, fh.type == REC_FRAME_KEY, out, e);
	free(raw);
	if (err < 0)
		return at(r, e, en->off, e->msg);
	return 0;
}

int rec_reader_get(struct rec_reader *r, size_t i, const struct rec_interval **out, struct ps_error *e)
{
	size_t k = i;

	*out = NULL;
	if (i >= r->n)
		return ps_error_set(e, ERANGE, "%s", _("no such interval"));
	if (r->have_cur && r->cur_i == i) {
		*out = &r->cur;
		return 0;
	}
	/* From the key before i, or from the one decoded last. */
	while (k > 0 && r->v[k].type != REC_FRAME_KEY && !(r->have_cur && r->cur_i + 1 == k))
		k--;
	if (r->v[k].type != REC_FRAME_KEY && !(r->have_cur && r->cur_i + 1 == k)) {
		e->code = EPROTO;
		return at(r, e, r->v[k].off, _("a delta interval without the one before it"));
	}
	for (; k <= i; k++) {
		struct rec_interval next;
		int err = decode(r, k, r->have_cur ? &r->cur : NULL, &next, e);
		if (err < 0)
			return err;
		if (r->have_cur)
			rec_interval_free(&r->cur);
		r->cur = next;
		r->cur_i = k;
		r->have_cur = true;
	}
	*out = &r->cur;
	return 0;
}

void rec_reader_close(struct rec_reader *r)
{
	if (!r)
		return;
	if (r->fd > 0)
		close(r->fd);
	if (r->have_cur)
		rec_interval_free(&r->cur);
	free(r->v);
	free(r);
}
