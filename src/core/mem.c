/* The memory of a core: where each mapping's data goes in the file, and
 * copying it there from the live process (stopped) or from the fork
 * snapshot child, through one bounded buffer — or, for the copy method,
 * into the staging arena first. */
#include "core/cw.h"
#include "i18n.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

uint64_t cw_mem_available(void)
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

/* The two buffers in one mapping, in huge pages where the system allows:
 * each buffer is read into from the snapshot and pinned for each direct
 * write, 4 MiB at a time; huge pages make both walks 512 times shorter. */
static void cw_buffers_alloc(struct cw *c)
{
	const size_t huge = (size_t)2 << 20, len = 2 * CORE_BUF;
	unsigned char *p = mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	unsigned char *a = (unsigned char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (a + len < p + len + huge)
		munmap(a + len, (size_t)(p + len + huge - (a + len)));
	madvise(a, len, MADV_HUGEPAGE);
	c->bufmap = a;
	c->bufmap_len = len;
	c->buf[0] = a;
	c->buf[1] = a + CORE_BUF;
}

/* ---- layout ---- */

/* Each mapping's data gets a fixed place in the file (its whole dump
 * size), so mappings can be copied in any order; unreadable ranges stay
 * holes that no segment points at. */
int cw_plan(struct cw *c)
{
	uint64_t hdr, off;

	c->seg_limit = c->maps.n + EXTRA_SEGS;
	c->segs = calloc(c->seg_limit, sizeof(*c->segs));
	c->map_off = calloc(c->maps.n + 1, sizeof(*c->map_off));
	/* Page-aligned: the data is written with O_DIRECT (out.c). */
	c->hdrbuf = aligned_alloc(c->page, c->page);
	cw_buffers_alloc(c);
	if (!c->segs || !c->map_off || !c->hdrbuf || !c->buf[0] || !c->buf[1])
		return ps_error_set(c->e, ENOMEM, _("out of memory"));
	hdr = sizeof(Elf64_Ehdr) + (c->seg_limit + 1) * sizeof(Elf64_Phdr) + c->notes.len;
	c->data_start = off = (hdr + c->page - 1) / c->page * c->page;
	c->total = 0;
	for (size_t i = 0; i < c->maps.n; i++) {
		uint64_t n = core_map_dump_bytes(&c->maps.v[i], c->page);
		c->map_off[i] = off;
		off += n;
		c->total += n;
	}
	c->data_end = off;
	return 0;
}

static int seg_add(struct cw *c, uint64_t vaddr, uint64_t memsz, uint64_t filesz, uint64_t off,
		   const struct core_map *m)
{
	if (c->nseg == c->seg_limit)
		return ps_error_set(c->e, E2BIG, _("too many segments for the core of process %d"), (int)c->pid);
	struct seg *s = &c->segs[c->nseg++];
	s->vaddr = vaddr;
	s->memsz = memsz;
	s->filesz = filesz;
	/* An empty segment's offset is where the data so far ends, as the
	 * kernel writes it: readers (libdwfl) take segments whose offsets
	 * follow their addresses as one contiguous image. */
	if (!filesz)
		off = c->nseg > 1 ? s[-1].offset + s[-1].filesz : c->data_start;
	s->offset = off;
	s->flags = (m->r ? PF_R : 0) | (m->w ? PF_W : 0) | (m->x ? PF_X : 0);
	return 0;
}

static int skip_add(struct cw *c, const struct core_map *m, uint64_t a, uint64_t b, const char *why)
{
	struct core_result *res = c->res;
	struct core_skip *v = realloc(res->skipped, (res->nskipped + 1) * sizeof(*v));

	if (!v)
		return ps_error_set(c->e, ENOMEM, _("out of memory"));
	res->skipped = v;
	struct core_skip *s = &v[res->nskipped++];
	memset(s, 0, sizeof(*s));
	s->start = a;
	s->end = b;
	strlcpy_ps(s->path, m->path, sizeof(s->path));
	strlcpy_ps(s->reason, why, sizeof(s->reason));
	return 0;
}

/* ---- the arena (copy method) ---- */

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
			return ps_error_set(c->e, ENOMEM, _("out of memory"));
		c->ext = v;
		c->ext_cap = cap;
	}
	c->ext[c->next++] = (struct extent){ file_off, arena_off, len };
	return 0;
}

/* RAM for the copy, as huge pages where possible, faulted in before the
 * stop: measured on a loaded 2-core VM with 2 GiB, faulting it in during
 * the copy made the pause 4-8 s, faulting it in first 1.7-1.9 s. */
void cw_arena_prepare(struct cw *c, uint64_t want)
{
	uint64_t budget = cw_mem_available() / 2, huge = 2u << 20;

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

int cw_write_arena(struct cw *c)
{
	cw_phase(c, CORE_PHASE_WRITE, c->arena_used);
	for (size_t i = 0; i < c->next; i++) {
		const struct extent *x = &c->ext[i];
		for (uint64_t k = 0; k < x->len; k += CORE_BUF) {
			size_t n = x->len - k < CORE_BUF ? (size_t)(x->len - k) : CORE_BUF;
			if (cw_cancelled(c))
				return -ECANCELED;
			int r = cw_emit(c, c->arena + x->arena_off + k, n, x->file_off + k);
			if (r < 0)
				return r;
			c->done += n;
			cw_progress(c, false);
		}
	}
	return 0;
}

void cw_mem_free(struct cw *c)
{
	if (c->arena)
		munmap(c->arena, c->arena_len);
	c->arena = NULL;
	free(c->ext);
	free(c->hdrbuf);
	cw_flush(c);
	if (c->buf[0])
		munmap(c->bufmap, c->bufmap_len);
	c->buf[0] = c->buf[1] = NULL;
	free(c->segs);
	free(c->map_off);
}

/* ---- reading ---- */

/* The pidfd turns readable once the whole process has exited. */
bool cw_target_gone(struct cw *c)
{
	if (c->t.pidfd >= 0) {
		struct pollfd p = { .fd = c->t.pidfd, .events = POLLIN };
		return poll(&p, 1, 0) > 0;
	}
	return target_verify(&c->t, NULL) < 0;
}

/* Test hook: PSCOPE_TEST_SLOW_CORE=MICROSECONDS delays each memory read. */
static void test_delay(size_t len)
{
	static long us = -1;

	if (us < 0) {
		const char *v = getenv("PSCOPE_TEST_SLOW_CORE");
		us = v ? atol(v) : 0;
	}
	if (us > 0 && len >= 4096) {
		struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
		nanosleep(&ts, NULL);
	}
}

static ssize_t read_some(struct cw *c, uint64_t a, unsigned char *dst, size_t len)
{
	test_delay(len);
	if (c->src_fd < 0)
		return freeze_read(&c->fz, a, dst, len);
	ssize_t n = pread(c->src_fd, dst, len, (off_t)a);
	return n < 0 ? -errno : n;
}

static bool source_gone(struct cw *c)
{
	return c->src_fd >= 0 ? snap_child_gone(c) : cw_target_gone(c);
}

/* Read [a, a+len): the bytes read before the first unreadable page (a
 * page multiple unless all), or -ESRCH when the source is gone. */
static ssize_t read_span(struct cw *c, uint64_t a, unsigned char *dst, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read_some(c, a + got, dst + got, len - got);
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == -ESRCH || source_gone(c))
			return -ESRCH;
		break;
	}
	if (c->src_fd >= 0)
		snap_patch(c, a, dst, got);
	return (ssize_t)(got == len ? got : got / c->page * c->page);
}

static uint64_t probe_bad(struct cw *c, uint64_t a, uint64_t end)
{
	unsigned char b;
	uint64_t p = a + c->page;

	for (; p < end; p += c->page)
		if (read_some(c, p, &b, 1) == 1)
			break;
	return p - a;
}

#define PAGEMAP_BATCH 4096 /* pagemap entries read at once */

/* Present-or-swapped pages of a private anonymous range from pagemap (ent:
 * room for PAGEMAP_BATCH entries); the rest reads as zeros and becomes a
 * hole without a read. */
static bool pagemap_present(struct cw *c, uint64_t a, size_t npages, unsigned char *present,
			    uint64_t *ent)
{
	if (c->pagemap_fd < 0)
		return false;
	for (size_t i = 0; i < npages;) {
		size_t k = npages - i < PAGEMAP_BATCH ? npages - i : PAGEMAP_BATCH;
		ssize_t n = pread(c->pagemap_fd, ent, k * 8, (off_t)((a / c->page + i) * 8));
		if (n != (ssize_t)(k * 8))
			return false;
		for (size_t j = 0; j < k; j++)
			present[i + j] = (ent[j] >> 62) != 0; /* bit 63 present, bit 62 swapped */
		i += k;
	}
	return true;
}

/* Copy [a, a+len) to file offset off (or the arena), up to the first
 * unreadable page: bytes copied (a page multiple unless all) or -errno. */
static ssize_t copy_span(struct cw *c, uint64_t a, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		bool staged = c->method == CORE_METHOD_COPY && c->arena;
		size_t room = staged ? (c->arena_len - c->arena_used) / c->page * c->page : 0;
		size_t piece = len - got;
		unsigned char *dst;
		int r;

		if (room) {
			if (piece > room)
				piece = room;
			dst = c->arena + c->arena_used;
		} else {
			if (piece > CORE_BUF)
				piece = CORE_BUF;
			dst = c->buf[c->cur];
		}
		ssize_t n = read_span(c, a + got, dst, piece);
		if (n < 0)
			return n;
		if (n > 0) {
			if (room) {
				r = extent_add(c, off + got, c->arena_used, (uint64_t)n);
				c->arena_used += (size_t)n;
			} else {
				/* Written by the writer thread while the next is read. */
				r = cw_emit_async(c, dst, (size_t)n, off + got);
				c->cur ^= 1;
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

static int copy_whole(struct cw *c, const struct core_map *m, uint64_t off, bool anon)
{
	uint64_t end = m->end, a = m->start, run_start = a;
	size_t maxpages = CORE_BUF / c->page;
	unsigned char *present = anon ? malloc(maxpages) : NULL;
	uint64_t *ent = present ? malloc(PAGEMAP_BATCH * sizeof(*ent)) : NULL;
	int r = 0;

	while (a < end) {
		if (cw_cancelled(c)) {
			r = -ECANCELED;
			break;
		}
		size_t clen = end - a < CORE_BUF ? (size_t)(end - a) : CORE_BUF;
		size_t np = clen / c->page;
		bool have_map = present && ent && pagemap_present(c, a, np, present, ent);
		uint64_t bad = 0;

		for (size_t i = 0; i < np && !bad;) {
			size_t j = np;
			if (have_map) {
				while (i < np && !present[i])
					i++;
				j = i;
				while (j < np && present[j])
					j++;
			}
			if (i == j)
				break;
			uint64_t sa = a + i * c->page, slen = (j - i) * c->page;
			ssize_t n = copy_span(c, sa, (size_t)slen, off + (sa - m->start));
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
			cw_progress(c, false);
			continue;
		}
		/* Close the readable run, record the unreadable one. */
		uint64_t blen = probe_bad(c, bad, end);
		bool room = c->nseg + 3 <= c->seg_limit;
		if (!room)
			blen = end - bad;
		if (bad > run_start &&
		    (r = seg_add(c, run_start, bad - run_start, bad - run_start, off + (run_start - m->start), m)) < 0)
			goto out;
		if ((r = seg_add(c, bad, blen, 0, 0, m)) < 0)
			goto out;
		if ((r = skip_add(c, m, bad, bad + blen, room ? _("unreadable") : _("unreadable (rest of the mapping)"))) < 0)
			goto out;
		c->done += bad + blen - a;
		a = run_start = bad + blen;
	}
	if (r == 0 && a > run_start)
		r = seg_add(c, run_start, a - run_start, a - run_start, off + (run_start - m->start), m);
out:
	free(present);
	free(ent);
	return r;
}

static int copy_header(struct cw *c, const struct core_map *m, uint64_t off)
{
	unsigned char *buf = c->hdrbuf;
	size_t len = (size_t)core_map_dump_bytes(m, c->page);
	ssize_t n = read_span(c, m->start, buf, len);
	int r;

	if (n < 0)
		return (int)n;
	if ((size_t)n < len || memcmp(buf, ELFMAG, SELFMAG) != 0)
		return seg_add(c, m->start, m->end - m->start, 0, 0, m);
	if (c->method == CORE_METHOD_COPY && c->arena && c->arena_len - c->arena_used >= len) {
		memcpy(c->arena + c->arena_used, buf, len);
		r = extent_add(c, off, c->arena_used, len);
		c->arena_used += len;
	} else {
		r = cw_flush(c);
		if (r == 0)
			r = cw_emit(c, buf, len, off);
	}
	if (r < 0)
		return r;
	c->done += len;
	return seg_add(c, m->start, m->end - m->start, len, off, m);
}

int cw_copy(struct cw *c, bool (*pick)(const struct cw *c, const struct core_map *m))
{
	for (size_t i = 0; i < c->maps.n; i++) {
		const struct core_map *m = &c->maps.v[i];
		int r = 0;

		if (m->how == CORE_DUMP_OMIT || (pick && !pick(c, m)))
			continue;
		switch (m->how) {
		case CORE_DUMP_OMIT:
			continue;
		case CORE_DUMP_NONE:
			r = seg_add(c, m->start, m->end - m->start, 0, 0, m);
			break;
		case CORE_DUMP_HEADER:
			r = copy_header(c, m, c->map_off[i]);
			break;
		case CORE_DUMP_WHOLE:
			r = copy_whole(c, m, c->map_off[i],
				       !core_map_is_file(m) && !m->shared && strcmp(m->path, "[vdso]"));
			break;
		}
		if (r < 0) {
			cw_flush(c);
			return r;
		}
	}
	return cw_flush(c);
}
