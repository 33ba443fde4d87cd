/* A recording on disk: the writer (append, sync, index at the end) and
 * the reader (footer and index, or a scan of the frame headers). */
#include "record/file.h"
#include "i18n.h"
#include "out/save.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_ZSTD
#include <zstd.h>

static struct {
	size_t (*compress)(void *dst, size_t cap, const void *src, size_t n, int level);
	size_t (*decompress)(void *dst, size_t cap, const void *src, size_t n);
	size_t (*bound)(size_t n);
	unsigned (*is_error)(size_t code);
	const char *(*error_name)(size_t code);
} zs;
static const struct lazy_sym zs_syms[] = {
	{ "ZSTD_compress", (void **)&zs.compress }, { "ZSTD_decompress", (void **)&zs.decompress },
	{ "ZSTD_compressBound", (void **)&zs.bound }, { "ZSTD_isError", (void **)&zs.is_error },
	{ "ZSTD_getErrorName", (void **)&zs.error_name }, { NULL, NULL }
};
static struct lazy_lib zs_lib = { .soname = "libzstd.so.1", .package = "libzstd1", .syms = zs_syms,
				  .lock = PTHREAD_MUTEX_INITIALIZER };
#endif

bool rec_zstd_ok(struct ps_error *e)
{
#ifdef HAVE_ZSTD
	if (lazy_lib_open(&zs_lib))
		return true;
	ps_error_set(e, ENOSYS, _("recordings are zstd-compressed and %s cannot be loaded (%s): apt-get install %s"),
		     zs_lib.soname, zs_lib.why, zs_lib.package);
#else
	ps_error_set(e, ENOSYS, "%s", _("this pscope was built without libzstd, which recordings need (apt-get install libzstd-dev, then rebuild)"));
#endif
	return false;
}

/* ---- writing ---- */

struct rec_writer {
	int fd;
	uint64_t size;
	struct rec_entry *v;
	size_t n, cap;
	struct rec_interval prev;  /* the last interval written (a copy) */
	bool have_prev;
	size_t since_key;
	struct rec_buf raw;
	uint8_t *packed;
	size_t packed_cap;
};

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t k = write(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

int rec_writer_open(struct rec_writer **out, const char *path, const struct rec_header *h, char *made,
		    size_t made_size, struct ps_error *e)
{
	char dir[4096], base[NAME_MAX + 1], t1[4096], t2[4096];
	struct stat st;
	uint8_t head[REC_HEAD_MAX];

	*out = NULL;
	if (!rec_zstd_ok(e))
		return -e->code;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strlcpy_ps(dir, path, sizeof(dir));
		strftime(base, sizeof(base), "pscope-%Y%m%d-%H%M%S.psrec", &tm);
	} else {
		strlcpy_ps(t1, path, sizeof(t1));
		strlcpy_ps(t2, path, sizeof(t2));
		strlcpy_ps(dir, dirname(t1), sizeof(dir));
		strlcpy_ps(base, basename(t2), sizeof(base));
	}
	int dfd = out_dir_open(dir, e);
	if (dfd < 0)
		return dfd;
	int fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0640);
	int err = errno;
	close(dfd);
	if (fd < 0)
		return ps_error_set(e, err, err == EEXIST ? _("%s/%s exists: pscope record never writes over a file (name a new one, or a directory)")
							    : _("cannot create %s/%s: %s"), dir, base, strerror(err));
	if (made)
		snprintf(made, made_size, "%s/%s", dir, base);
	struct rec_writer *w = calloc(1, sizeof(*w));
	size_t hl = rec_header_encode(h, head, sizeof(head));
	int r = w ? write_all(fd, head, hl) : -ENOMEM;
	if (r == 0 && fdatasync(fd) < 0)
		r = -errno;
	if (r < 0) {
		ps_error_set(e, -r, _("cannot write %s/%s: %s"), dir, base, strerror(-r));
		close(fd);
		free(w);
		return r;
	}
	w->fd = fd;
	w->size = hl;
	*out = w;
	return 0;
}

/* A deep copy of the interval (the next delta's base). */
static int interval_copy(struct rec_interval *dst, const struct rec_interval *src)
{
	*dst = *src;
	dst->cpu_id = malloc(((size_t)src->ncpu + 1) * sizeof(*dst->cpu_id));
	dst->cpu_t = malloc(((size_t)src->ncpu + 1) * sizeof(*dst->cpu_t));
	dst->users = malloc((src->nusers + 1) * sizeof(*dst->users));
	dst->rows = malloc((src->n + 1) * sizeof(*dst->rows));
	if (!dst->cpu_id || !dst->cpu_t || !dst->users || !dst->rows) {
		dst->n = 0;
		rec_interval_free(dst);
		return -ENOMEM;
	}
	memcpy(dst->cpu_id, src->cpu_id, (size_t)src->ncpu * sizeof(*dst->cpu_id));
	memcpy(dst->cpu_t, src->cpu_t, (size_t)src->ncpu * sizeof(*dst->cpu_t));
	memcpy(dst->users, src->users, src->nusers * sizeof(*dst->users));
	for (size_t i = 0; i < src->n; i++) {
		dst->rows[i] = src->rows[i];
		dst->rows[i].cmdline = src->rows[i].cmdline ? strdup(src->rows[i].cmdline) : NULL;
		dst->rows[i].x.cgroup = src->rows[i].x.cgroup ? strdup(src->rows[i].x.cgroup) : NULL;
	}
	return 0;
}

static int append_frame(struct rec_writer *w, enum rec_frame_type type, uint64_t t_ns, uint64_t wall_ns,
			const uint8_t *payload, size_t packed, size_t raw, struct ps_error *e)
{
	struct rec_frame_head fh = { .type = type, .t_ns = t_ns, .wall_ns = wall_ns, .packed_len = (uint32_t)packed,
				     .raw_len = (uint32_t)raw, .crc = rec_crc32(payload, packed) };
	uint8_t head[REC_FRAME_HEAD];
	int r;

	rec_frame_head_encode(&fh, head);
	/* One write: the header and payload land together or the tail is torn. */
	uint8_t *all = malloc(REC_FRAME_HEAD + packed);
	if (!all)
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	memcpy(all, head, REC_FRAME_HEAD);
	memcpy(all + REC_FRAME_HEAD, payload, packed);
	r = write_all(w->fd, all, REC_FRAME_HEAD + packed);
	free(all);
	if (r == 0 && fdatasync(w->fd) < 0)
		r = -errno;
	if (r < 0) {
		/* A half-written frame is a torn tail the reader skips. */
		return ps_error_set(e, -r, _("cannot write the recording: %s"), strerror(-r));
	}
	if (type != REC_FRAME_INDEX) {
		if (array_reserve((void **)&w->v, &w->cap, w->n, sizeof(*w->v), 256) < 0)
			return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
		w->v[w->n++] = (struct rec_entry){ .wall_ns = wall_ns, .off = w->size, .packed_len = (uint32_t)packed,
						   .type = (uint8_t)type };
	}
	w->size += REC_FRAME_HEAD + packed;
	return 0;
}

int rec_writer_add(struct rec_writer *w, const struct rec_interval *iv, struct ps_error *e)
{
#ifdef HAVE_ZSTD
	bool key = !w->have_prev || w->since_key + 1 >= REC_KEY_EVERY;
	int r;

	w->raw.len = 0;
	w->raw.oom = false;
	if (rec_interval_encode(key ? NULL : &w->prev, iv, &w->raw) < 0)
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	size_t bound = zs.bound(w->raw.len);
	if (bound > w->packed_cap) {
		uint8_t *p = realloc(w->packed, bound);
		if (!p)
			return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
		w->packed = p;
		w->packed_cap = bound;
	}
	size_t packed = zs.compress(w->packed, w->packed_cap, w->raw.p, w->raw.len, 6);
	if (zs.is_error(packed))
		return ps_error_set(e, EIO, _("zstd cannot compress an interval: %s"), zs.error_name(packed));
	if (packed > REC_FRAME_MAX || w->raw.len > REC_FRAME_MAX)
		return ps_error_set(e, EFBIG, "%s", _("an interval is bigger than a frame can be"));
	r = append_frame(w, key ? REC_FRAME_KEY : REC_FRAME_DELTA, iv->t_ns, iv->wall_ns, w->packed, packed, w->raw.len, e);
	if (r < 0)
		return r;
	if (w->have_prev)
		rec_interval_free(&w->prev);
	w->have_prev = interval_copy(&w->prev, iv) == 0; /* else the next one is a key */
	w->since_key = key ? 0 : w->since_key + 1;
	return 0;
#else
	return rec_zstd_ok(e) ? 0 : -e->code;
#endif
}

uint64_t rec_writer_size(const struct rec_writer *w)
{
	return w->size;
}

size_t rec_writer_count(const struct rec_writer *w)
{
	return w->n;
}

int rec_writer_close(struct rec_writer *w, struct ps_error *e)
{
	int r = 0;

	if (!w)
		return 0;
	size_t len = w->n * REC_INDEX_ENTRY;
	uint8_t *ix = malloc(len + 1);
	if (ix) {
		for (size_t i = 0; i < w->n; i++)
			rec_entry_encode(&w->v[i], ix + i * REC_INDEX_ENTRY);
		struct rec_footer ft = { .index_off = w->size, .count = (uint32_t)w->n };
		uint8_t foot[REC_FOOTER];
		rec_footer_encode(&ft, foot);
		r = append_frame(w, REC_FRAME_INDEX, 0, 0, ix, len, len, e);
		if (r == 0 && (r = write_all(w->fd, foot, sizeof(foot))) == 0 && fdatasync(w->fd) < 0)
			r = -errno;
		if (r < 0 && !e->code)
			ps_error_set(e, -r, _("cannot write the recording's index: %s"), strerror(-r));
		free(ix);
	}
	close(w->fd);
	if (w->have_prev)
		rec_interval_free(&w->prev);
	rec_buf_free(&w->raw);
	free(w->packed);
	free(w->v);
	free(w);
	return r;
}

int rec_unpack(const uint8_t *src, size_t n, uint8_t *dst, size_t raw, struct ps_error *e)
{
#ifdef HAVE_ZSTD
	if (!rec_zstd_ok(e))
		return -e->code;
	size_t got = zs.decompress(dst, raw, src, n);
	if (zs.is_error(got))
		return ps_error_set(e, EPROTO, _("its zstd data cannot be decompressed: %s"), zs.error_name(got));
	if (got != raw)
		return ps_error_set(e, EPROTO, _("it decompresses to %zu bytes, not the %zu its header says"), got, raw);
	return 0;
#else
	return rec_zstd_ok(e) ? 0 : -e->code;
#endif
}
