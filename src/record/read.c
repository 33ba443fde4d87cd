/* Reading a recording: the header checked, the index chain loaded, the
 * frames after it found by a scan (a torn tail reported and skipped),
 * and a frame made again from its key frame and the deltas after it. */
#include "record/record.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "FILE: offset N: what" */
static int fail_at(struct rec_file *f, uint64_t off, int code, const char *what, struct ps_error *e)
{
	return ps_error_set(e, code, _("%s: offset %llu: %s"), f->path, (unsigned long long)off, what);
}

static int read_at(struct rec_file *f, void *buf, size_t len, uint64_t off, struct ps_error *e)
{
	size_t got = 0;

	while (got < len) {
		ssize_t k = pread(f->fd, (char *)buf + got, len - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return ps_error_set(e, errno, _("%s: cannot read at offset %llu: %s"), f->path,
					    (unsigned long long)(off + got), strerror(errno));
		if (k == 0)
			return fail_at(f, off + got, EBADMSG, _("the file ends here"), e);
		got += (size_t)k;
	}
	return 0;
}

/* The block at off: its head, and its payload when want (malloc'ed,
 * checked against the head's checksum). */
static int read_block(struct rec_file *f, uint64_t off, struct rec_block *b, unsigned char **payload,
		      struct ps_error *e)
{
	unsigned char head[REC_BLOCK_HEAD];
	size_t bad_off = 0;
	struct ps_error pe;

	if (payload)
		*payload = NULL;
	if (off + REC_BLOCK_HEAD > f->size)
		return fail_at(f, off, EBADMSG, _("the file ends inside a block head"), e);
	int r = read_at(f, head, sizeof(head), off, e);
	if (r < 0)
		return r;
	ps_error_clear(&pe);
	if (rec_block_parse(head, sizeof(head), b, &bad_off, &pe) < 0)
		return fail_at(f, off + bad_off, pe.code, pe.msg, e);
	if (off + REC_BLOCK_HEAD + b->stored_len > f->size)
		return fail_at(f, off, EBADMSG, _("the file ends inside this block"), e);
	if (!payload)
		return 0;
	unsigned char *p = malloc(b->stored_len ? b->stored_len : 1);
	if (!p)
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	if ((r = read_at(f, p, b->stored_len, off + REC_BLOCK_HEAD, e)) < 0) {
		free(p);
		return r;
	}
	if (rec_crc(p, b->stored_len) != b->stored_crc) {
		free(p);
		return fail_at(f, off + REC_BLOCK_HEAD, EBADMSG,
			       b->type == REC_B_INDEX ? _("index block checksum mismatch: the index is corrupted")
						      : _("frame checksum mismatch: the compressed block is corrupted"),
			       e);
	}
	*payload = p;
	return 0;
}

static int push(struct rec_file *f, size_t *cap, const struct rec_entry *en)
{
	if (array_reserve((void **)&f->v, cap, f->n, sizeof(*f->v), 256) < 0)
		return -ENOMEM;
	f->v[f->n++] = *en;
	return 0;
}

/* The index chain back from the newest block. 0 with the entries and the
 * end of the newest block in *tail; -errno (e: which block, what). */
static int load_index(struct rec_file *f, const struct rec_slot *s, size_t *cap, uint64_t *tail, struct ps_error *e)
{
	uint64_t off = s->last_index;
	struct rec_entry **blocks = NULL;
	size_t *counts = NULL, nb = 0, bcap = 0, ccap = 0;
	int r = 0;

	*tail = REC_DATA_OFF;
	while (off) {
		struct rec_block b;
		unsigned char *p;
		uint64_t prev;
		struct rec_entry *v;
		size_t k, bad_off = 0;
		struct ps_error pe;
		if (off < REC_DATA_OFF || off >= f->size) {
			r = fail_at(f, off, EBADMSG, _("the index points outside the file"), e);
			break;
		}
		if ((r = read_block(f, off, &b, &p, e)) < 0)
			break;
		if (b.type != REC_B_INDEX) {
			free(p);
			r = fail_at(f, off, EBADMSG, _("the index points at a block that is not an index block"), e);
			break;
		}
		ps_error_clear(&pe);
		r = rec_index_parse(p, b.stored_len, &prev, &v, &k, &bad_off, &pe);
		free(p);
		if (r < 0) {
			r = fail_at(f, off + REC_BLOCK_HEAD + bad_off, pe.code, pe.msg, e);
			break;
		}
		if (!nb)
			*tail = off + REC_BLOCK_HEAD + b.stored_len;
		if (array_reserve((void **)&blocks, &bcap, nb, sizeof(*blocks), 16) < 0 ||
		    array_reserve((void **)&counts, &ccap, nb, sizeof(*counts), 16) < 0) {
			free(v);
			r = ps_error_set(e, ENOMEM, "%s", _("out of memory"));
			break;
		}
		blocks[nb] = v;
		counts[nb++] = k;
		if (prev >= off) {
			r = fail_at(f, off + REC_BLOCK_HEAD, EBADMSG, _("the index chain goes forward"), e);
			break;
		}
		off = prev;
	}
	for (size_t i = nb; r == 0 && i-- > 0;) {
		for (size_t j = 0; j < counts[i] && r == 0; j++) {
			const struct rec_entry *en = &blocks[i][j];
			if (en->seq != f->n || en->off + en->len > *tail ||
			    (f->n && (en->off < f->v[f->n - 1].off + f->v[f->n - 1].len || en->wall_ns < f->v[f->n - 1].wall_ns)))
				r = fail_at(f, en->off, EBADMSG, _("the index does not match the frames"), e);
			else if (push(f, cap, en) < 0)
				r = ps_error_set(e, ENOMEM, "%s", _("out of memory"));
		}
	}
	if (r == 0 && f->n != s->nframes)
		r = fail_at(f, s->last_index, EBADMSG, _("the index holds fewer frames than its checkpoint says"), e);
	for (size_t i = 0; i < nb; i++)
		free(blocks[i]);
	free(blocks);
	free(counts);
	return r;
}

/* The frames from pos on, block by block, until the end or the first
 * block that is not whole (a torn tail). */
static int scan(struct rec_file *f, uint64_t pos, size_t *cap, struct ps_error *e)
{
	while (pos < f->size) {
		struct rec_block b;
		unsigned char *p;
		struct ps_error pe;
		ps_error_clear(&pe);
		/* An index block is not needed here (a damaged one is skipped
		 * when its head is whole); a frame must be whole. */
		int r = read_block(f, pos, &b, NULL, &pe);
		p = NULL;
		if (r == 0 && b.type == REC_B_FRAME)
			r = read_block(f, pos, &b, &p, &pe);
		if (r == -ENOMEM)
			return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
		free(p);
		if (r == 0 && b.type == REC_B_FRAME && b.seq != f->n)
			r = -EBADMSG;
		if (r == 0 && b.type == REC_B_FRAME && f->n && b.wall_ns < f->v[f->n - 1].wall_ns)
			r = -EBADMSG;
		if (r < 0) {
			f->tear_off = pos;
			f->tear_len = f->size - pos;
			return 0;
		}
		if (b.type == REC_B_FRAME) {
			struct rec_entry en = { b.wall_ns, pos, b.seq, (uint32_t)(REC_BLOCK_HEAD + b.stored_len) };
			if (push(f, cap, &en) < 0)
				return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
		}
		pos += REC_BLOCK_HEAD + b.stored_len;
	}
	return 0;
}

static void add_note(struct rec_file *f, const char *s)
{
	size_t o = strlen(f->note);
	snprintf(f->note + o, sizeof(f->note) - o, "%s%s", o ? "\n" : "", s);
}

int rec_open(const char *path, struct rec_file **out, struct ps_error *e)
{
	struct rec_file *f = calloc(1, sizeof(*f));
	unsigned char head[REC_DATA_OFF];
	struct stat st;
	size_t bad_off = 0, cap = 0;
	struct ps_error pe;
	char msg[512];
	int r;

	*out = NULL;
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	}
	f->cache_i = SIZE_MAX;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		r = ps_error_set(e, errno, _("%s: cannot open: %s"), path, strerror(errno));
		goto fail;
	}
	if (fstat(f->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = ps_error_set(e, EINVAL, _("%s: not a regular file"), path);
		goto fail;
	}
	f->size = (uint64_t)st.st_size;
	size_t hl = f->size < sizeof(head) ? (size_t)f->size : sizeof(head);
	if ((r = read_at(f, head, hl, 0, e)) < 0)
		goto fail;
	ps_error_clear(&pe);
	if ((r = rec_header_parse(head, hl, &f->h, &bad_off, &pe)) < 0) {
		r = fail_at(f, bad_off, pe.code, pe.msg, e);
		goto fail;
	}
	if (hl < REC_DATA_OFF) {
		r = fail_at(f, hl, EBADMSG, _("truncated header: the file ends inside its checkpoint slots"), e);
		goto fail;
	}
	struct rec_slot s[2], *best = NULL;
	bool slot_bad = false;
	for (int i = 0; i < 2; i++) {
		int k = rec_slot_parse(head + REC_SLOT_OFF + i * REC_SLOT_SIZE, REC_SLOT_SIZE, &s[i]);
		if (k == -EBADMSG)
			slot_bad = true;
		if (k == 0 && (!best || s[i].gen > best->gen))
			best = &s[i];
	}
	uint64_t tail = REC_DATA_OFF;
	if (best) {
		ps_error_clear(&pe);
		if (load_index(f, best, &cap, &tail, &pe) < 0) {
			if (pe.code == ENOMEM) {
				r = ps_error_set(e, ENOMEM, "%s", pe.msg);
				goto fail;
			}
			snprintf(msg, sizeof(msg), _("%s; the frames were found by a scan instead"), pe.msg);
			add_note(f, msg);
			f->n = 0;
			tail = REC_DATA_OFF;
			f->scanned = true;
		} else {
			f->closed = best->closed;
		}
	} else if (slot_bad) {
		snprintf(msg, sizeof(msg), _("%s: offset %d: the checkpoint is corrupted; the frames were found by a scan instead"),
			 path, REC_SLOT_OFF);
		add_note(f, msg);
		f->scanned = true;
	}
	if ((r = scan(f, tail, &cap, e)) < 0)
		goto fail;
	if (f->closed && (f->tear_len || tail != f->size))
		f->closed = false; /* written to after it was closed: say what was found */
	if (f->tear_len) {
		snprintf(msg, sizeof(msg),
			 _("%s: torn tail at offset %llu: %llu bytes after the last whole interval skipped (the recorder was stopped while writing)"),
			 path, (unsigned long long)f->tear_off, (unsigned long long)f->tear_len);
		add_note(f, msg);
	} else if (!f->closed) {
		snprintf(msg, sizeof(msg), _("%s: not closed (the recorder was killed, or still runs): it ends at the last whole interval"),
			 path);
		add_note(f, msg);
	}
	if (!f->n) {
		r = fail_at(f, f->tear_len ? f->tear_off : f->size, ENODATA, _("no whole interval recorded"), e);
		goto fail;
	}
	*out = f;
	return 0;
fail:
	rec_close(f);
	return r;
}

void rec_close(struct rec_file *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	free(f->v);
	free(f->cache);
	free(f->path);
	free(f);
}

size_t rec_find(const struct rec_file *f, double wall)
{
	uint64_t t = !(wall > 0) ? 0 : wall >= 1.8e10 ? UINT64_MAX : (uint64_t)(wall * 1e9);
	size_t lo = 0, hi = f->n;

	while (lo < hi) { /* the first frame at or after t */
		size_t mid = lo + (hi - lo) / 2;
		if (f->v[mid].wall_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == f->n)
		return f->n - 1;
	if (lo > 0 && t - f->v[lo - 1].wall_ns <= f->v[lo].wall_ns - t)
		return lo - 1;
	return lo;
}

/* Frame i's payload made again (into the cache): from its key frame, or
 * from the cached frame when that is on the way. */
static int raw_frame(struct rec_file *f, size_t i, struct ps_error *e)
{
	size_t from = i;
	struct rec_block b;
	int r;

	if (f->cache_i == i)
		return 0;
	/* Back to a key frame (or the cached frame before i). */
	for (;;) {
		if ((r = read_block(f, f->v[from].off, &b, NULL, e)) < 0)
			return r;
		if (b.ref == REC_NO_REF || (f->cache_i != SIZE_MAX && f->cache_i + 1 == from))
			break;
		if (b.ref != from - 1 || from == 0)
			return fail_at(f, f->v[from].off + 12, EBADMSG, _("a delta frame against another frame than the one before it"), e);
		from--;
	}
	if (b.ref == REC_NO_REF) {
		free(f->cache);
		f->cache = NULL;
		f->cache_i = SIZE_MAX;
	}
	for (size_t j = from; j <= i; j++) {
		unsigned char *p;
		const struct rec_entry *en = &f->v[j];
		if ((r = read_block(f, en->off, &b, &p, e)) < 0)
			goto bad;
		if (b.type != REC_B_FRAME || b.seq != en->seq || b.wall_ns != en->wall_ns) {
			free(p);
			r = fail_at(f, en->off, EBADMSG, _("the index does not match the frame found there"), e);
			goto bad;
		}
		bool delta = b.ref != REC_NO_REF;
		if (delta && (f->cache_i != j - 1 || b.ref != j - 1)) {
			free(p);
			r = fail_at(f, en->off + 12, EBADMSG, _("a delta frame whose base frame is not the one before it"), e);
			goto bad;
		}
		void *raw = malloc(b.raw_len ? b.raw_len : 1);
		struct ps_error pe;
		ps_error_clear(&pe);
		if (!raw) {
			free(p);
			r = ps_error_set(e, ENOMEM, "%s", _("out of memory"));
			goto bad;
		}
		if (b.codec == REC_C_ZSTD)
			r = rec_unpack(p, b.stored_len, delta ? f->cache : NULL, delta ? f->cache_len : 0, raw, b.raw_len, &pe);
		else if (!delta)
			memcpy(raw, p, b.raw_len), r = 0;
		else
			r = ps_error_set(&pe, EBADMSG, "%s", _("an uncompressed delta frame"));
		free(p);
		if (r == 0 && rec_crc(raw, b.raw_len) != b.raw_crc)
			r = ps_error_set(&pe, EBADMSG, "%s",
					 _("the frame made again does not match its checksum (decoded against the wrong frame?)"));
		if (r < 0) {
			free(raw);
			r = pe.code == ENOSYS ? ps_error_set(e, ENOSYS, "%s", pe.msg)
					      : fail_at(f, en->off + REC_BLOCK_HEAD, pe.code, pe.msg, e);
			goto bad;
		}
		free(f->cache);
		f->cache = raw;
		f->cache_len = b.raw_len;
		f->cache_i = j;
	}
	return 0;
bad:
	free(f->cache);
	f->cache = NULL;
	f->cache_i = SIZE_MAX;
	return r;
}

static int decode(struct rec_file *f, size_t i, struct snap_list **out, struct ps_error *e)
{
	size_t bad_off = 0;
	struct ps_error pe;
	int r = raw_frame(f, i, e);

	if (r < 0)
		return r;
	ps_error_clear(&pe);
	if (rec_frame_decode(f->cache, f->cache_len, &f->h, out, &bad_off, &pe) < 0) {
		if (pe.code == ENOMEM)
			return ps_error_set(e, ENOMEM, "%s", pe.msg);
		char msg[600];
		snprintf(msg, sizeof(msg), _("%s (at byte %zu of the frame made again)"), pe.msg, bad_off);
		return fail_at(f, f->v[i].off, pe.code, msg, e);
	}
	return 0;
}

int rec_snapshot(struct rec_file *f, size_t i, struct snap_list **out, struct ps_error *e)
{
	struct snap_list *prev = NULL, *cur = NULL;
	int r;

	*out = NULL;
	if (i >= f->n)
		return ps_error_set(e, ERANGE, "%s", _("no such interval in the recording"));
	if (i > 0) {
		if ((r = decode(f, i - 1, &prev, e)) < 0)
			return r;
		snap_list_rates(NULL, prev);
	}
	if ((r = decode(f, i, &cur, e)) < 0) {
		snap_put(prev ? &prev->h : NULL);
		return r;
	}
	/* The rates of interval i: its counters against frame i-1's. */
	snap_list_rates(prev, cur);
	cur->h.seq = (unsigned)i + 1;
	snap_put(prev ? &prev->h : NULL);
	*out = cur;
	return 0;
}
