/* The core writer (see core.h for the method). */
#include "core/core.h"
#include "core/maps.h"
#include "core/notes.h"
#include "doors.h"
#include "freeze.h"
#include "i18n.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHUNK ((size_t)32 << 20)          /* one process_vm_readv */
#define SYNC_EVERY ((uint64_t)64 << 20)   /* start writeback this often */
#define EXTRA_SEGS 64                     /* room for unreadable ranges splitting mappings */

struct seg {
	uint64_t vaddr, memsz, filesz, offset;
	uint32_t flags;
};

struct extent {
	uint64_t file_off, arena_off, len;
};

struct cw {
	pid_t pid;
	const struct target_id *want;
	const struct core_opts *o;
	struct core_result *res;
	struct ps_error *e;
	uint64_t page;
	uint64_t t0;

	struct target t;
	bool have_target;
	struct freeze fz;
	bool frozen;
	struct core_maps maps;
	int pagemap_fd;

	/* Destination. */
	int dirfd, fd;
	char dir[PATH_MAX], base[NAME_MAX + 1], tmp[64];
	bool anon;              /* O_TMPFILE: no name until linked in */

	/* Layout. */
	struct seg *segs;
	size_t nseg, seg_limit;
	uint64_t data_start, data_off;
	struct core_notes notes;

	/* While stopped, memory is copied into the arena (RAM faulted in
	 * before the stop) and the file is written from it after the release:
	 * the stop pays only the copy. Past the arena (memory is short), memory
	 * streams through bounce into the file while stopped. (Writing while
	 * copying was measured: it saves no wall time, the disk decides, and
	 * doubles the pause on two cores.) */
	unsigned char *arena;
	size_t arena_len, arena_used;
	unsigned char *bounce, *hdrbuf;
	struct extent *ext;              /* staged data: file offset <- arena offset */
	size_t next, ext_cap;
	uint64_t total, done;
	uint64_t since_sync;             /* bytes written since the last writeback kick */
	uint64_t phase_t0, phase_done0;
	uint64_t last_progress;
	enum core_phase phase;
};

static int fs_error(struct ps_error *e, int err, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fs_error(struct ps_error *e, int err, const char *fix, const char *fmt, ...)
{
	char msg[sizeof(e->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ps_error_set(e, err, "%s: %s", msg, strerror(err));
	if (e && fix) {
		e->door = DOOR_FILESYSTEM;
		strlcpy_ps(e->fix, fix, sizeof(e->fix));
	}
	return -err;
}

static int read_smaps(struct target *t, struct core_maps *m, struct ps_error *e)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = read_file_alloc_at(t->dirfd, "smaps", &buf, &cap);
	int r;

	if (n < 0) {
		free(buf);
		char what[64];
		snprintf(what, sizeof(what), "read the memory map (/proc/%d/smaps)", (int)t->id.pid);
		return door_refused(e, PS_OP_CORE, t->id.pid, (int)-n, what);
	}
	r = core_maps_parse(buf, (size_t)n, m);
	free(buf);
	if (r < 0)
		return ps_error_set(e, -r, "cannot parse /proc/%d/smaps", (int)t->id.pid);
	return 0;
}

static unsigned read_filter(struct target *t)
{
	char buf[32];

	if (read_file_at(t->dirfd, "coredump_filter", buf, sizeof(buf)) <= 0)
		return CORE_FILTER_DEFAULT;
	return (unsigned)strtoul(buf, NULL, 16);
}

static uint64_t mem_available(void)
{
	char buf[4096];
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	uint64_t kb = 0;

	if (fd < 0)
		return 0;
	if (read_file_at(fd, "meminfo", buf, sizeof(buf)) > 0) {
		char *p = strstr(buf, "MemAvailable:");
		if (p)
			kb = strtoull(p + 13, NULL, 10);
	}
	close(fd);
	return kb * 1024;
}

/* Bytes of header, phdrs and notes before the memory data. */
static uint64_t header_estimate(size_t nmaps, unsigned threads, uint64_t page)
{
	uint64_t h = sizeof(Elf64_Ehdr) + (nmaps + 1 + EXTRA_SEGS) * sizeof(Elf64_Phdr);
	h += threads * 4096u + 64 * 1024u + nmaps * 128u; /* registers, xstate, NT_FILE */
	return (h + page - 1) / page * page;
}

static void estimate_from(const struct core_maps *m, unsigned filter, bool all, unsigned threads, uint64_t page,
			  struct core_estimate *est)
{
	uint64_t hdr = header_estimate(m->n, threads, page);

	est->bytes = hdr;
	est->disk_bytes = hdr;
	est->mappings = 0;
	for (size_t i = 0; i < m->n; i++) {
		if (m->v[i].how == CORE_DUMP_OMIT)
			continue;
		est->mappings++;
		est->bytes += core_map_dump_bytes(&m->v[i], page);
		est->disk_bytes += core_map_disk_bytes(&m->v[i], page);
	}
	(void)filter;
	(void)all;
}

static int free_space(const char *dir, uint64_t *out, struct ps_error *e)
{
	struct statvfs vfs;

	if (statvfs(dir, &vfs) < 0)
		return fs_error(e, errno, "choose another destination (-o FILE)", "cannot check the free space in %s",
				dir);
	/* A directory nobody may write to is refused for that, not for the
	 * space it lacks (a read-only filesystem shows little or none free). */
	if (vfs.f_flag & ST_RDONLY)
		return door_file_refused(e, dir, EROFS, "create a file in");
	if (faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) < 0 && (errno == EACCES || errno == EPERM || errno == EROFS))
		return door_file_refused(e, dir, errno, "create a file in");
	*out = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	return 0;
}

static unsigned thread_count(struct target *t)
{
	char buf[4096];
	char *p;

	if (read_file_at(t->dirfd, "status", buf, sizeof(buf)) <= 0 || !(p = strstr(buf, "\nThreads:")))
		return 1;
	return (unsigned)strtoul(p + 9, NULL, 10);
}

int core_estimate(pid_t pid, const struct target_id *want, const struct core_opts *o, struct core_estimate *est,
		  struct ps_error *e)
{
	struct target t;
	struct core_maps m;
	char dir[PATH_MAX], base[NAME_MAX + 1];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	int r;

	memset(est, 0, sizeof(*est));
	if ((r = target_open(&t, pid, want, e)) < 0)
		return r;
	r = core_dest_split(o->path, t.comm, pid, dir, sizeof(dir), base, sizeof(base), e);
	if (r == 0)
		r = read_smaps(&t, &m, e);
	if (r < 0) {
		target_close(&t);
		return r;
	}
	core_maps_decide(&m, read_filter(&t), o->all_mappings);
	est->threads = thread_count(&t);
	estimate_from(&m, 0, o->all_mappings, est->threads, page, est);
	core_maps_free(&m);
	target_close(&t);
	if (snprintf(est->path, sizeof(est->path), "%s/%s", dir, base) >= (int)sizeof(est->path))
		return fs_error(e, ENAMETOOLONG, NULL, "destination too long");
	return free_space(dir, &est->free_bytes, e);
}

/* ---- progress ---- */

static void progress(struct cw *c, bool force)
{
	struct core_progress p;
	uint64_t now = now_ns();

	if (!c->o->progress || (!force && now - c->last_progress < 100000000ull))
		return;
	c->last_progress = now;
	memset(&p, 0, sizeof(p));
	p.phase = c->phase;
	p.done = c->done;
	p.total = c->total;
	p.elapsed_s = (double)(now - c->t0) / 1e9;
	double dt = (double)(now - c->phase_t0) / 1e9;
	p.rate = dt > 0.05 ? (double)(c->done - c->phase_done0) / dt : 0;
	p.eta_s = p.rate > 0 && c->total >= c->done ? (double)(c->total - c->done) / p.rate : -1;
	c->o->progress(c->o->progress_arg, &p);
}

static void phase(struct cw *c, enum core_phase ph, uint64_t total)
{
	c->phase = ph;
	c->phase_t0 = now_ns();
	c->done = c->phase_done0 = 0;
	c->total = total;
	progress(c, true);
}

static bool cancelled(struct cw *c)
{
	return c->o->cancel && atomic_load(c->o->cancel);
}

/* ---- output ---- */

static bool zero_page(const unsigned char *p, size_t n)
{
	const uint64_t *w = (const uint64_t *)p;

	for (size_t i = 0; i < n / 8; i += 8)
		if (w[i] | w[i + 1] | w[i + 2] | w[i + 3] | w[i + 4] | w[i + 5] | w[i + 6] | w[i + 7])
			return false;
	return true;
}

static int write_error(struct cw *c, struct ps_error *e, int err)
{
	return fs_error(e, err,
			err == ENOSPC || err == EDQUOT ? "free some space or choose another destination (-o FILE)"
						       : "choose another destination (-o FILE)",
			"cannot write the core in %s (the partial file was removed, process %d runs on)", c->dir,
			(int)c->pid);
}

static int pwrite_all(struct cw *c, struct ps_error *e, const unsigned char *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(c->fd, buf, len, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return write_error(c, e, errno);
		}
		if (n == 0)
			return write_error(c, e, EIO);
		buf += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Zero runs shorter than this are written as data: each hole costs a
 * write and a file extent, and 2 GiB with every other page zero took
 * three times as long to write and sync as 2 GiB of data. */
#define HOLE_MIN_PAGES 16

/* Write buf at off, leaving runs of zero pages as holes. With may_sync, start
 * writeback every SYNC_EVERY bytes so the final fsync has little left
 * (not from the thread that copies while the target is stopped). */
static int emit(struct cw *c, struct ps_error *e, const unsigned char *buf, size_t len, uint64_t off,
		uint64_t *since_sync, bool may_sync)
{
	size_t pg = c->page, i = 0;

	while (i < len) {
		size_t n = len - i < pg ? len - i : pg;
		if (zero_page(buf + i, n)) {
			i += n;
			continue;
		}
		/* Extend over data and over zero runs too short to be holes. */
		size_t j = i + n;
		while (j < len) {
			size_t z = j;
			while (z < len && z - j < HOLE_MIN_PAGES * pg) {
				size_t m = len - z < pg ? len - z : pg;
				if (!zero_page(buf + z, m))
					break;
				z += m;
			}
			if (z == j) {
				j += len - j < pg ? len - j : pg;
				continue;
			}
			if (z >= len || z - j >= HOLE_MIN_PAGES * pg)
				break;
			j = z;
		}
		int r = pwrite_all(c, e, buf + i, j - i, off + i);
		if (r < 0)
			return r;
		*since_sync += j - i;
		i = j;
	}
	if (may_sync && *since_sync >= SYNC_EVERY) {
		sync_file_range(c->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		*since_sync = 0;
	}
	return 0;
}

/* ---- layout ---- */

static int seg_add(struct cw *c, uint64_t vaddr, uint64_t memsz, uint64_t filesz, const struct core_map *m)
{
	if (c->nseg == c->seg_limit)
		return ps_error_set(c->e, E2BIG, "too many segments for the core of process %d", (int)c->pid);
	struct seg *s = &c->segs[c->nseg++];
	s->vaddr = vaddr;
	s->memsz = memsz;
	s->filesz = filesz;
	s->offset = c->data_off;
	s->flags = (m->r ? PF_R : 0) | (m->w ? PF_W : 0) | (m->x ? PF_X : 0);
	c->data_off += filesz;
	return 0;
}

static int skip_add(struct cw *c, const struct core_map *m, uint64_t a, uint64_t b, const char *why)
{
	struct core_result *res = c->res;
	struct core_skip *v = realloc(res->skipped, (res->nskipped + 1) * sizeof(*v));

	if (!v)
		return ps_error_set(c->e, ENOMEM, "out of memory");
	res->skipped = v;
	struct core_skip *s = &v[res->nskipped++];
	memset(s, 0, sizeof(*s));
	s->start = a;
	s->end = b;
	strlcpy_ps(s->path, m->path, sizeof(s->path));
	strlcpy_ps(s->reason, why, sizeof(s->reason));
	return 0;
}

/* ---- the arena ---- */

/* Hand [arena_off, +len) of the arena to the write phase, for file
 * offset file_off. */
static int extent_add(struct cw *c, uint64_t file_off, uint64_t arena_off, uint64_t len)
{
	if (c->next && c->ext[c->next - 1].file_off + c->ext[c->next - 1].len == file_off &&
	    c->ext[c->next - 1].arena_off + c->ext[c->next - 1].len == arena_off) {
		c->ext[c->next - 1].len += len;
		return 0;
	}
	if (c->next == c->ext_cap) {
		size_t cap = c->ext_cap ? c->ext_cap * 2 : 256;
		struct extent *v = realloc(c->ext, cap * sizeof(*v));
		if (!v)
			return ps_error_set(c->e, ENOMEM, "out of memory");
		c->ext = v;
		c->ext_cap = cap;
	}
	c->ext[c->next++] = (struct extent){ file_off, arena_off, len };
	return 0;
}

/* RAM for the copy, as huge pages where possible, faulted in now, before
 * the stop: measured on a loaded 2-core VM with 2 GiB, faulting it in
 * during the copy made the pause 4-8 s, faulting it in first 1.7-1.9 s
 * (and the whole run shorter too). Without an arena everything streams. */
static void arena_prepare(struct cw *c, uint64_t want)
{
	uint64_t budget = mem_available() / 2, huge = 2u << 20;

	want += want / 8 + (16u << 20);
	if (want > budget)
		want = budget;
	want = want / huge * huge;
	if (want < huge)
		return;
	void *p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;
	madvise(p, want, MADV_HUGEPAGE);
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
	if (madvise(p, want, MADV_POPULATE_WRITE) < 0) /* before Linux 5.14 */
		for (uint64_t o = 0; o < want; o += c->page)
			((volatile unsigned char *)p)[o] = 0;
	c->arena = p;
	c->arena_len = want;
}

/* After the release: write what the arena holds (zero pages as holes). */
static int write_extents(struct cw *c)
{
	phase(c, CORE_PHASE_WRITE, c->arena_used);
	for (size_t i = 0; i < c->next; i++) {
		const struct extent *x = &c->ext[i];
		for (uint64_t k = 0; k < x->len; k += CHUNK) {
			size_t n = x->len - k < CHUNK ? (size_t)(x->len - k) : CHUNK;
			if (cancelled(c))
				return -ECANCELED;
			int r = emit(c, c->e, c->arena + x->arena_off + k, n, x->file_off + k, &c->since_sync, true);
			if (r < 0)
				return r;
			c->done += n;
			progress(c, false);
		}
	}
	return 0;
}

/* ---- reading the target ---- */

/* The pidfd turns readable once the whole process has exited (a leader
 * that is a zombie while other threads run does not count). */
static bool target_gone(struct cw *c)
{
	if (c->t.pidfd >= 0) {
		struct pollfd p = { .fd = c->t.pidfd, .events = POLLIN };
		return poll(&p, 1, 0) > 0;
	}
	return target_verify(&c->t, NULL) < 0;
}

static int gone_error(struct cw *c)
{
	return door_refused(c->e, PS_OP_CORE, c->pid, ESRCH,
			    "finish the core (the process exited while it was copied; no file was written)");
}

/* Read [a, a+len) into dst: returns the bytes read before the first
 * unreadable page (a multiple of the page size unless all was read), or
 * -ESRCH when the process is gone. */
static ssize_t read_span(struct cw *c, uint64_t a, unsigned char *dst, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = freeze_read(&c->fz, a + got, dst + got, len - got);
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == -ESRCH || target_gone(c))
			return -ESRCH;
		break;
	}
	return (ssize_t)(got / c->page * c->page == got ? got : got / c->page * c->page);
}

/* Length of the unreadable run starting at a (at least one page). */
static uint64_t probe_bad(struct cw *c, uint64_t a, uint64_t end)
{
	unsigned char b;
	uint64_t p = a + c->page;

	for (; p < end; p += c->page)
		if (freeze_read(&c->fz, p, &b, 1) == 1)
			break;
	return p - a;
}

/* Present-or-swapped pages of a private anonymous range from pagemap;
 * everything else there reads as zero and becomes a hole without a read.
 * Fills present[i] for each page; false when pagemap is unavailable. */
static bool pagemap_present(struct cw *c, uint64_t a, size_t npages, unsigned char *present)
{
	static _Thread_local uint64_t ent[4096];

	if (c->pagemap_fd < 0)
		return false;
	for (size_t i = 0; i < npages;) {
		size_t k = npages - i < 4096 ? npages - i : 4096;
		ssize_t n = pread(c->pagemap_fd, ent, k * 8, (off_t)((a / c->page + i) * 8));
		if (n != (ssize_t)(k * 8))
			return false;
		for (size_t j = 0; j < k; j++)
			present[i + j] = (ent[j] >> 62) != 0; /* bit 63 present, bit 62 swapped */
		i += k;
	}
	return true;
}

/* Data for file offset off: into the arena for the write phase, or straight
 * into the file (the arena is full, or there is none). */
static int stash(struct cw *c, const unsigned char *buf, size_t len, uint64_t off)
{
	if (c->arena && c->arena_len - c->arena_used >= len) {
		memcpy(c->arena + c->arena_used, buf, len);
		int r = extent_add(c, off, c->arena_used, len);
		c->arena_used += len;
		return r;
	}
	return emit(c, c->e, buf, len, off, &c->since_sync, !c->frozen);
}

/* Copy [a, a+len) whose data goes at file offset off, up to the first
 * unreadable page: returns bytes copied (a page multiple unless all) or
 * -errno. */
static ssize_t copy_span(struct cw *c, uint64_t a, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		size_t room = c->arena ? (c->arena_len - c->arena_used) / c->page * c->page : 0;
		size_t piece = len - got;
		unsigned char *dst;
		int r;

		if (room) {
			if (piece > room)
				piece = room;
			dst = c->arena + c->arena_used;
		} else {
			if (piece > CHUNK)
				piece = CHUNK;
			if (!c->bounce && !(c->bounce = malloc(CHUNK)))
				return ps_error_set(c->e, ENOMEM, "out of memory");
			dst = c->bounce;
		}
		ssize_t n = read_span(c, a + got, dst, piece);
		if (n < 0)
			return n;
		if (n > 0) {
			if (room) {
				r = extent_add(c, off + got, c->arena_used, (uint64_t)n);
				c->arena_used += (size_t)n;
			} else {
				r = emit(c, c->e, dst, (size_t)n, off + got, &c->since_sync, !c->frozen);
			}
			if (r < 0)
				return r;
		}
		got += (size_t)n;
		if ((size_t)n < piece)
			break;
	}
	return (ssize_t)got;
}

static int copy_whole(struct cw *c, const struct core_map *m, bool anon)
{
	uint64_t end = m->end, a = m->start;
	uint64_t run_start = a;
	size_t maxpages = CHUNK / c->page;
	unsigned char *present = anon ? malloc(maxpages) : NULL;
	int r = 0;

	while (a < end) {
		if (cancelled(c)) {
			r = -ECANCELED;
			break;
		}
		size_t clen = end - a < CHUNK ? (size_t)(end - a) : CHUNK;
		size_t np = clen / c->page;
		bool have_map = present && pagemap_present(c, a, np, present);
		uint64_t bad = 0;

		for (size_t i = 0; i < np && !bad;) {
			size_t j = i;
			if (have_map) {
				while (i < np && !present[i])
					i++;
				j = i;
				while (j < np && present[j])
					j++;
			} else {
				j = np;
			}
			if (i == j)
				break;
			uint64_t sa = a + i * c->page, slen = (j - i) * c->page;
			ssize_t n = copy_span(c, sa, (size_t)slen, c->data_off + (sa - run_start));
			if (n < 0) {
				r = (int)n;
				goto out;
			}
			if ((uint64_t)n < slen)
				bad = sa + (uint64_t)n;
			i = j;
		}
		if (!bad) {
			a += clen;
			c->done += clen;
			progress(c, false);
			continue;
		}
		/* Close the readable run, record the unreadable one. */
		uint64_t blen = probe_bad(c, bad, end);
		bool room = c->nseg + 3 <= c->seg_limit;
		if (!room)
			blen = end - bad;
		if (bad > run_start && (r = seg_add(c, run_start, bad - run_start, bad - run_start, m)) < 0)
			goto out;
		if ((r = seg_add(c, bad, blen, 0, m)) < 0)
			goto out;
		if ((r = skip_add(c, m, bad, bad + blen, room ? "unreadable" : "unreadable (rest of the mapping)")) < 0)
			goto out;
		c->done += bad + blen - a;
		a = run_start = bad + blen;
	}
	if (r == 0 && a > run_start)
		r = seg_add(c, run_start, a - run_start, a - run_start, m);
out:
	free(present);
	return r;
}

static int copy_header(struct cw *c, const struct core_map *m)
{
	unsigned char *buf = c->hdrbuf;
	size_t len = (size_t)core_map_dump_bytes(m, c->page);
	ssize_t n = read_span(c, m->start, buf, len);
	int r;

	if (n < 0)
		return (int)n;
	if ((size_t)n < len || memcmp(buf, ELFMAG, SELFMAG) != 0)
		return seg_add(c, m->start, m->end - m->start, 0, m);
	if ((r = stash(c, buf, len, c->data_off)) < 0)
		return r;
	c->done += len;
	return seg_add(c, m->start, m->end - m->start, len, m);
}

static int copy_memory(struct cw *c)
{
	for (size_t i = 0; i < c->maps.n; i++) {
		const struct core_map *m = &c->maps.v[i];
		int r = 0;

		switch (m->how) {
		case CORE_DUMP_OMIT:
			continue;
		case CORE_DUMP_NONE:
			r = seg_add(c, m->start, m->end - m->start, 0, m);
			break;
		case CORE_DUMP_HEADER:
			r = copy_header(c, m);
			break;
		case CORE_DUMP_WHOLE:
			r = copy_whole(c, m, !core_map_is_file(m) && !m->shared && strcmp(m->path, "[vdso]"));
			break;
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- ELF headers through libelf ---- */

/* libelf lays out and encodes the ELF header and the program headers; it
 * writes a whole file (and sizes it), so it writes into a memfd and the
 * bytes are copied to the start of the core. */
static int write_headers(struct cw *c)
{
	Elf *elf = NULL;
	GElf_Ehdr eh;
	size_t nph = c->nseg + 1;
	uint64_t note_off = sizeof(Elf64_Ehdr) + nph * sizeof(Elf64_Phdr);
	int mfd = -1, r = -EIO;
	unsigned char *hdr = NULL;

	if (nph >= PN_XNUM)
		return ps_error_set(c->e, E2BIG, "process %d has too many mappings (%zu) for one core", (int)c->pid, nph);
	if ((r = pwrite_all(c, c->e, c->notes.buf, c->notes.len, note_off)) < 0)
		return r;
	r = -EIO;
	mfd = memfd_create("pscope-core-headers", MFD_CLOEXEC);
	if (mfd < 0)
		return ps_error_set(c->e, errno, "memfd_create: %s", strerror(errno));
	if (elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_begin(mfd, ELF_C_WRITE, NULL)))
		goto fail;
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	if (!gelf_newehdr(elf, ELFCLASS64) || !gelf_getehdr(elf, &eh))
		goto fail;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_CORE;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(Elf64_Ehdr);
	eh.e_ehsize = sizeof(Elf64_Ehdr);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	if (!gelf_update_ehdr(elf, &eh) || !gelf_newphdr(elf, nph))
		goto fail;
	GElf_Phdr ph = { .p_type = PT_NOTE, .p_offset = note_off, .p_filesz = c->notes.len, .p_align = 4 };
	if (!gelf_update_phdr(elf, 0, &ph))
		goto fail;
	for (size_t i = 0; i < c->nseg; i++) {
		const struct seg *s = &c->segs[i];
		GElf_Phdr p = {
			.p_type = PT_LOAD, .p_flags = s->flags, .p_offset = s->offset, .p_vaddr = s->vaddr,
			.p_filesz = s->filesz, .p_memsz = s->memsz, .p_align = c->page,
		};
		if (!gelf_update_phdr(elf, (int)(i + 1), &p))
			goto fail;
	}
	if (elf_update(elf, ELF_C_WRITE) < 0)
		goto fail;
	hdr = malloc(note_off);
	if (!hdr || pread(mfd, hdr, note_off, 0) != (ssize_t)note_off)
		goto fail;
	r = pwrite_all(c, c->e, hdr, note_off, 0);
	goto out;
fail:
	r = ps_error_set(c->e, EIO, "cannot build the ELF headers: %s", elf_errmsg(-1));
out:
	free(hdr);
	if (elf)
		elf_end(elf);
	close(mfd);
	return r;
}

/* ---- the dump ---- */

static int make_temp(struct cw *c)
{
	unsigned rnd = 0;

	/* An unnamed file first: if pscope dies, nothing is left behind. */
	c->fd = openat(c->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (c->fd >= 0) {
		c->anon = true;
		c->tmp[0] = '\0';
		return 0;
	}
	/* Filesystems without O_TMPFILE: a hidden name, removed on every error. */
	for (int tries = 0; tries < 100; tries++) {
		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			rnd = (unsigned)now_ns() ^ (unsigned)tries;
		snprintf(c->tmp, sizeof(c->tmp), ".pscope-core.%d.%08x.tmp", (int)c->pid, rnd);
		c->fd = openat(c->dirfd, c->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (c->fd >= 0) {
			fchmod(c->fd, 0600);
			return 0;
		}
		if (errno != EEXIST)
			return door_file_refused(c->e, c->dir, errno, "create a file in");
	}
	return fs_error(c->e, EEXIST, NULL, "cannot create a temporary file in %s", c->dir);
}

static int open_dest(struct cw *c)
{
	struct stat sb;

	c->dirfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->dirfd < 0)
		return fs_error(c->e, errno, "choose another destination (-o FILE)", "cannot open the directory %s",
				c->dir);
	if (fstatat(c->dirfd, c->base, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
		ps_error_set(c->e, EEXIST, "%s/%s already exists: pscope never overwrites a file", c->dir, c->base);
		if (c->e) {
			c->e->door = DOOR_FILESYSTEM;
			strlcpy_ps(c->e->fix, "choose another name (-o FILE) or remove the old file", sizeof(c->e->fix));
		}
		return -EEXIST;
	}
	return 0;
}

static int check_space(struct cw *c, const struct core_estimate *est)
{
	char need[32], have[32];
	/* The estimate plus 1 MiB for the ELF headers, notes and filesystem metadata. */
	unsigned long long needed = est->disk_bytes + (1u << 20);

	if (c->o->force || needed <= est->free_bytes)
		return 0;
	ps_error_set(c->e, ENOSPC, "not enough space in %s: the core needs about %s on disk (with 1 MiB of headroom), %s is free",
		     c->dir, human_bytes(needed, need, sizeof(need)), human_bytes(est->free_bytes, have, sizeof(have)));
	if (c->e) {
		c->e->door = DOOR_FILESYSTEM;
		strlcpy_ps(c->e->fix, "free some space, choose another destination (-o FILE), or --force if the filesystem compresses",
			   sizeof(c->e->fix));
	}
	return -ENOSPC;
}

static char *read_at(int dirfd, const char *path, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = read_file_alloc_at(dirfd, path, &buf, &cap);

	if (n < 0) {
		free(buf);
		*len = 0;
		return NULL;
	}
	*len = (size_t)n;
	return buf;
}

/* Everything from /proc that goes into the notes. Without tasks, the
 * per-thread times and signal masks (two /proc files per thread: a
 * quarter of a second for 1000 threads) are left out: that build, while
 * stopped, fixes the layout; the full one is made after the release. */
static int collect_notes(struct cw *c, bool tasks)
{
	struct core_proc_info pi;
	size_t sl, stl, cl, n = 0;
	char *stat = read_at(c->t.dirfd, "stat", &sl);
	char *status = read_at(c->t.dirfd, "status", &stl);
	char *cmd = read_at(c->t.dirfd, "cmdline", &cl);
	const struct frozen_thread **th = calloc(c->fz.n + 1, sizeof(*th));
	char **tstat = calloc(c->fz.n + 1, sizeof(char *)), **tstatus = calloc(c->fz.n + 1, sizeof(char *));
	int r = -ENOMEM;

	memset(&pi, 0, sizeof(pi));
	if (!th || !tstat || !tstatus)
		goto out;
	core_prpsinfo_fill(&pi.psinfo, stat, sl, status, stl, cmd, cl);
	/* The state before pscope stopped it, not the tracing stop. */
	for (size_t i = 0; i < c->fz.n; i++)
		if (c->fz.threads[i].tid == c->pid && c->fz.threads[i].state) {
			const char *s = strchr("RSDTZW", c->fz.threads[i].state);
			pi.psinfo.pr_sname = c->fz.threads[i].state;
			pi.psinfo.pr_state = s ? (char)(s - "RSDTZW") : 0;
		}
	pi.ppid = pi.psinfo.pr_ppid;
	pi.pgrp = pi.psinfo.pr_pgrp;
	pi.sid = pi.psinfo.pr_sid;
	pi.auxv = (unsigned char *)read_at(c->t.dirfd, "auxv", &pi.auxv_len);
	/* The main thread first (gdb takes the first as the current one). */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < c->fz.n; i++) {
			const struct frozen_thread *f = &c->fz.threads[i];
			if (!f->stopped || f->skipped || (f->tid == c->pid) != (pass == 0))
				continue;
			char p[64];
			size_t l;
			if (tasks) {
				snprintf(p, sizeof(p), "task/%d/stat", (int)f->tid);
				tstat[n] = read_at(c->t.dirfd, p, &l);
				snprintf(p, sizeof(p), "task/%d/status", (int)f->tid);
				tstatus[n] = read_at(c->t.dirfd, p, &l);
			}
			th[n++] = f;
		}
	c->res->threads = (unsigned)n;
	c->res->threads_missed = (unsigned)(c->fz.n - n);
	if (n == 0) {
		r = door_refused(c->e, PS_OP_CORE, c->pid, ESRCH, "stop any thread");
		goto out;
	}
	r = core_notes_build(&c->notes, th, n, &pi, &c->maps, c->page, tstat, tstatus);
	if (r < 0)
		ps_error_set(c->e, -r, "out of memory building the notes");
out:
	for (size_t i = 0; i < n; i++) {
		free(tstat[i]);
		free(tstatus[i]);
	}
	free(tstat);
	free(tstatus);
	free(th);
	free(pi.auxv);
	free(stat);
	free(status);
	free(cmd);
	return r;
}

/* The segment table and where the memory data starts in the file. */
static int plan_memory(struct cw *c)
{
	uint64_t data = 0, hdr;

	for (size_t i = 0; i < c->maps.n; i++)
		data += core_map_dump_bytes(&c->maps.v[i], c->page);
	c->seg_limit = c->maps.n + EXTRA_SEGS;
	c->segs = calloc(c->seg_limit, sizeof(*c->segs));
	if (!c->segs)
		return ps_error_set(c->e, ENOMEM, "out of memory");
	hdr = sizeof(Elf64_Ehdr) + (c->seg_limit + 1) * sizeof(Elf64_Phdr) + c->notes.len;
	c->data_start = c->data_off = (hdr + c->page - 1) / c->page * c->page;
	c->total = data;
	if (!(c->hdrbuf = malloc(c->page)))
		return ps_error_set(c->e, ENOMEM, "out of memory");
	return 0;
}

static int finish_file(struct cw *c)
{
	struct stat sb;
	int r;

	phase(c, CORE_PHASE_SYNC, 0);
	if (ftruncate(c->fd, (off_t)c->data_off) < 0 || fsync(c->fd) < 0)
		return write_error(c, c->e, errno);
	if (c->anon) {
		/* Give the unnamed file its name; link(2) never replaces a file. */
		char self[64];
		snprintf(self, sizeof(self), "/proc/self/fd/%d", c->fd);
		r = linkat(AT_FDCWD, self, c->dirfd, c->base, AT_SYMLINK_FOLLOW);
	} else {
		r = (int)syscall(SYS_renameat2, c->dirfd, c->tmp, c->dirfd, c->base, 1 /* RENAME_NOREPLACE */);
	}
	if (r < 0 && !c->anon && (errno == EINVAL || errno == ENOSYS)) {
		/* No RENAME_NOREPLACE here: link(2) never replaces either. */
		r = linkat(c->dirfd, c->tmp, c->dirfd, c->base, 0);
		if (r == 0)
			unlinkat(c->dirfd, c->tmp, 0);
	}
	if (r < 0)
		return fs_error(c->e, errno, errno == EEXIST ? "choose another name (-o FILE)" : NULL,
				"cannot rename the core to %s/%s", c->dir, c->base);
	c->tmp[0] = '\0';
	fsync(c->dirfd);
	if (fstat(c->fd, &sb) == 0) {
		c->res->bytes = (uint64_t)sb.st_size;
		c->res->disk_bytes = (uint64_t)sb.st_blocks * 512;
	}
	return 0;
}

static void cleanup(struct cw *c)
{
	if (c->frozen) {
		freeze_release(&c->fz);
		c->frozen = false;
	}
	if (c->fd >= 0)
		close(c->fd);
	if (c->tmp[0] && c->dirfd >= 0)
		unlinkat(c->dirfd, c->tmp, 0);
	if (c->dirfd >= 0)
		close(c->dirfd);
	if (c->pagemap_fd >= 0)
		close(c->pagemap_fd);
	if (c->arena)
		munmap(c->arena, c->arena_len);
	free(c->ext);
	free(c->hdrbuf);
	free(c->bounce);
	free(c->segs);
	core_notes_free(&c->notes);
	core_maps_free(&c->maps);
	freeze_free(&c->fz);
	if (c->have_target)
		target_close(&c->t);
}

static int dump(struct cw *c)
{
	struct core_estimate est;
	struct freeze_opts fo = { .core_regs = true, .cancel = c->o->cancel };
	int r;

	if ((r = target_open(&c->t, c->pid, c->want, c->e)) < 0)
		return r;
	c->have_target = true;
	if ((r = core_dest_split(c->o->path, c->t.comm, c->pid, c->dir, sizeof(c->dir), c->base, sizeof(c->base), c->e)) < 0 ||
	    (r = open_dest(c)) < 0)
		return r;
	if (strlen(c->dir) + 1 + strlen(c->base) >= sizeof(c->res->path))
		return fs_error(c->e, ENAMETOOLONG, NULL, "destination too long");
	strlcpy_ps(c->res->path, c->dir, sizeof(c->res->path));
	strcat(c->res->path, "/");
	strcat(c->res->path, c->base);
	/* Estimate before stopping anything. */
	if ((r = read_smaps(&c->t, &c->maps, c->e)) < 0)
		return r;
	core_maps_decide(&c->maps, read_filter(&c->t), c->o->all_mappings);
	memset(&est, 0, sizeof(est));
	estimate_from(&c->maps, 0, false, thread_count(&c->t), c->page, &est);
	core_maps_free(&c->maps);
	if ((r = free_space(c->dir, &est.free_bytes, c->e)) < 0 || (r = check_space(c, &est)) < 0 ||
	    (r = make_temp(c)) < 0)
		return r;
	arena_prepare(c, est.disk_bytes);
	char exe[PATH_MAX];
	ssize_t el = readlinkat(c->t.dirfd, "exe", exe, sizeof(exe) - 1);
	if (el > 0) {
		exe[el] = '\0';
		strlcpy_ps(c->res->exe, exe, sizeof(c->res->exe));
	}

	phase(c, CORE_PHASE_STOP, 0);
	if ((r = freeze_stop(&c->fz, &c->t, &fo, c->e)) < 0)
		return r;
	c->frozen = true;
	/* While stopped: the mapping table, the notes, the memory. */
	if ((r = read_smaps(&c->t, &c->maps, c->e)) < 0)
		return target_gone(c) ? gone_error(c) : r;
	core_maps_decide(&c->maps, read_filter(&c->t), c->o->all_mappings);
	c->pagemap_fd = openat(c->t.dirfd, "pagemap", O_RDONLY | O_CLOEXEC);
	if ((r = collect_notes(c, false)) < 0 || (r = plan_memory(c)) < 0)
		return r;
	phase(c, CORE_PHASE_COPY, c->total);
	r = copy_memory(c);
	if (r == -ESRCH || (r == 0 && target_gone(c)))
		return gone_error(c);
	if (r == -ECANCELED)
		return ps_error_set(c->e, ECANCELED, "cancelled: no file written, process %d runs on", (int)c->pid);
	if (r < 0)
		return r;
	freeze_release(&c->fz);
	c->frozen = false;
	c->res->pause_ms = freeze_pause_ms(&c->fz);
	progress(c, true);
	/* The notes with the threads' times and signal masks; if the process
	 * is gone by now, the ones made while stopped. */
	struct core_notes stopped = c->notes;
	memset(&c->notes, 0, sizeof(c->notes));
	if (collect_notes(c, true) == 0 && c->notes.len == stopped.len) {
		core_notes_free(&stopped);
	} else {
		core_notes_free(&c->notes);
		c->notes = stopped;
	}

	/* The process runs again: write, sync, rename. */
	c->res->staged = c->arena_used > 0;
	if ((r = write_extents(c)) < 0) {
		if (r == -ECANCELED)
			return ps_error_set(c->e, ECANCELED, "cancelled: no file written, process %d runs on", (int)c->pid);
		return r;
	}
	if ((r = write_headers(c)) < 0)
		return r;
	if (cancelled(c))
		return ps_error_set(c->e, ECANCELED, "cancelled: no file written, process %d runs on", (int)c->pid);
	if ((r = finish_file(c)) < 0)
		return r;
	c->res->mappings = (unsigned)c->nseg;
	return 0;
}

int core_write(pid_t pid, const struct target_id *want, const struct core_opts *o, struct core_result *res,
	       struct ps_error *e)
{
	struct cw c;
	int r;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	c.pid = pid;
	c.o = o;
	c.res = res;
	c.e = e;
	c.page = (uint64_t)sysconf(_SC_PAGESIZE);
	c.t0 = now_ns();
	c.fd = c.dirfd = c.pagemap_fd = -1;
	c.t.pidfd = c.t.dirfd = -1;
#if !defined(__x86_64__)
	return ps_error_set(e, ENOTSUP, "core files are written for x86-64 only");
#endif
	c.want = want;
	r = dump(&c);
	cleanup(&c);
	res->wall_ms = (double)(now_ns() - c.t0) / 1e6;
	if (r < 0)
		core_result_free(res);
	return r;
}

void core_result_free(struct core_result *res)
{
	free(res->skipped);
	res->skipped = NULL;
	res->nskipped = 0;
}
