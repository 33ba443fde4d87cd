/* The core file: an unnamed temporary in the destination directory, the
 * memory written sparsely and directly (O_DIRECT) from a bounded buffer,
 * the ELF headers through libelf, then fsync and link (see core.h). */
#include "core/cw.h"
#include "i18n.h"
#include "doors/doors.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Write-behind, for what goes through the page cache: every KICK bytes,
 * start writeback of what was written
 * (SYNC_FILE_RANGE_WRITE, which does not wait), so the disk works while
 * the memory is still read and the final fsync has little left. Waiting
 * for it here as well was measured: it bound the read, and with it the
 * life of a fork snapshot (the process's copy-on-write window), to the
 * disk; the kernel's dirty-page throttling bounds the page cache anyway. */
#define KICK ((uint64_t)64 << 20)

int cw_fs_error(struct ps_error *e, int err, const char *fix, const char *fmt, ...)
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

static bool zero_page(const unsigned char *p, size_t n)
{
	const uint64_t *w = (const uint64_t *)p;

	for (size_t i = 0; i < n / 8; i += 8)
		if (w[i] | w[i + 1] | w[i + 2] | w[i + 3] | w[i + 4] | w[i + 5] | w[i + 6] | w[i + 7])
			return false;
	return true;
}

static int write_error(struct cw *c, int err)
{
	return cw_fs_error(c->e, err,
			err == ENOSPC || err == EDQUOT ? _("free some space or choose another destination (-o FILE)")
						       : _("choose another destination (-o FILE)"),
			_("cannot write the core in %s (the partial file was removed, process %d runs on)"), c->dir,
			(int)c->pid);
}

static int pwrite_all(int fd, const unsigned char *buf, size_t len, uint64_t off, size_t *done)
{
	*done = 0;
	while (*done < len) {
		ssize_t n = pwrite(fd, buf + *done, len - *done, (off_t)(off + *done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		*done += (size_t)n;
	}
	return 0;
}

/* The memory goes to the disk directly (O_DIRECT). Through the page cache
 * every page of the core is a fresh page of RAM to allocate and fill, and
 * on a VM that hands freed memory back to its host (free page reporting)
 * that first touch is the host's too: 2.8 s of CPU per GiB measured here
 * (0.2 s to overwrite pages already cached), 60% of pscope's time for a
 * 2 GiB core; written directly, the same GiB took 0.1 s of CPU and went
 * at the disk's speed. It also keeps a core the size of the process out
 * of the page cache. Pieces that are not page-aligned (headers, notes),
 * and files whose filesystem refuses O_DIRECT, go through the cache. */
int cw_pwrite(struct cw *c, const unsigned char *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	int r;

	if (c->dfd >= 0 && ((uintptr_t)buf | off | len) % c->page == 0) {
		r = pwrite_all(c->dfd, buf, len, off, &done);
		if (r == 0)
			return 0;
		if (r != -EINVAL)
			return write_error(c, -r);
		/* Not for this file after all: the rest through the cache. */
		close(c->dfd);
		c->dfd = -1;
		done = done / c->page * c->page;
	}
	r = pwrite_all(c->fd, buf + done, len - done, off + done, &done);
	if (r < 0)
		return write_error(c, -r);
	c->since_kick += len;
	return 0;
}

/* Zero runs shorter than this are written as data: each hole costs a
 * write and a file extent, and 2 GiB with every other page zero took
 * three times as long to write and sync as 2 GiB of data. */
#define HOLE_MIN_PAGES 16

static void kick(struct cw *c)
{
	sync_file_range(c->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	c->since_kick = 0;
}

int cw_emit(struct cw *c, const unsigned char *buf, size_t len, uint64_t off)
{
	size_t pg = c->page, i = 0;

	/* Its final size first: direct writes then fill holes inside the
	 * file instead of extending it, each with its own journal update. */
	if (!c->sized) {
		if (ftruncate(c->fd, (off_t)c->data_end) < 0)
			return write_error(c, errno);
		c->sized = true;
	}
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
		int r = cw_pwrite(c, buf + i, j - i, off + i);
		if (r < 0)
			return r;
		i = j;
	}
	if (c->since_kick >= KICK)
		kick(c);
	return 0;
}

/* libelf lays out and encodes the ELF header and the program headers; it
 * writes a whole file (and sizes it), so it writes into a memfd and the
 * bytes are copied to the start of the core. */
static int seg_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* ---- the writer thread ---- */

struct cw_writer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	const unsigned char *buf;      /* pending, or NULL */
	size_t len;
	uint64_t off;
	int rc;
	bool quit;
};

static void *writer_main(void *arg)
{
	struct cw *c = arg;
	struct cw_writer *w = c->writer;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->buf && !w->quit)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!w->buf)
			break;
		pthread_mutex_unlock(&w->lock);
		int r = w->rc < 0 ? w->rc : cw_emit(c, w->buf, w->len, w->off);
		pthread_mutex_lock(&w->lock);
		if (r < 0)
			w->rc = r;
		w->buf = NULL;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int cw_emit_async(struct cw *c, const unsigned char *buf, size_t len, uint64_t off)
{
	struct cw_writer *w = c->writer;
	int r;

	if (!w) {
		if (!(w = calloc(1, sizeof(*w))))
			return cw_emit(c, buf, len, off);
		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->cond, NULL);
		c->writer = w;
		if (pthread_create(&w->thread, NULL, writer_main, c) != 0) {
			c->writer = NULL;
			pthread_cond_destroy(&w->cond);
			pthread_mutex_destroy(&w->lock);
			free(w);
			return cw_emit(c, buf, len, off);
		}
	}
	pthread_mutex_lock(&w->lock);
	while (w->buf)
		pthread_cond_wait(&w->cond, &w->lock);
	r = w->rc;
	if (r == 0) {
		w->buf = buf;
		w->len = len;
		w->off = off;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return r;
}

int cw_flush(struct cw *c)
{
	struct cw_writer *w = c->writer;
	int r;

	if (!w)
		return 0;
	pthread_mutex_lock(&w->lock);
	w->quit = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	r = w->rc;
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
	c->writer = NULL;
	return r;
}

int cw_write_headers(struct cw *c)
{
	Elf *elf = NULL;
	GElf_Ehdr eh;
	size_t nph = c->nseg + 1;
	uint64_t note_off = sizeof(Elf64_Ehdr) + nph * sizeof(Elf64_Phdr);
	int mfd = -1, r = -EIO;
	unsigned char *hdr = NULL;

	if (nph >= PN_XNUM)
		return ps_error_set(c->e, E2BIG, _("process %d has too many mappings (%zu) for one core"), (int)c->pid, nph);
	/* Mappings copied out of order (fork: shared ones during the pause). */
	sort_array(c->segs, c->nseg, sizeof(*c->segs), seg_cmp);
	if ((r = cw_pwrite(c, c->notes.buf, c->notes.len, note_off)) < 0)
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
	r = cw_pwrite(c, hdr, note_off, 0);
	goto out;
fail:
	r = ps_error_set(c->e, EIO, _("cannot build the ELF headers: %s"), elf_errmsg(-1));
out:
	free(hdr);
	if (elf)
		elf_end(elf);
	close(mfd);
	return r;
}

/* A second descriptor of the same file for the direct writes (a flag of
 * the open file, not of the descriptor: the headers stay buffered). */
static void open_direct(struct cw *c, int dirfd, const char *path, int flags)
{
	const char *no = getenv("PSCOPE_TEST_CORE_BUFFERED"); /* test hook: the page-cache path */
	struct stat a, b;

	if (no && *no && strcmp(no, "0"))
		return;
	c->dfd = openat(dirfd, path, O_WRONLY | O_DIRECT | O_CLOEXEC | flags);
	if (c->dfd >= 0 && (fstat(c->fd, &a) < 0 || fstat(c->dfd, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)) {
		close(c->dfd);
		c->dfd = -1;
	}
}

int cw_make_temp(struct cw *c)
{
	/* An unnamed file first: if pscope dies, nothing is left behind;
	 * else a hidden name, removed on every error (src/out/save.c). */
	int r = out_file_begin(&c->of, c->dirfd, "core", 0600, NULL);

	if (r < 0)
		return door_file_refused(c->e, c->dir, -r, _("create a file in"));
	c->fd = c->of.fd;
	if (c->of.unnamed) {
		char self[64];
		snprintf(self, sizeof(self), "/proc/self/fd/%d", c->fd);
		open_direct(c, AT_FDCWD, self, 0); /* a magic link: followed */
	} else {
		open_direct(c, c->dirfd, c->of.tmp, O_NOFOLLOW);
	}
	return 0;
}

int cw_open_dest(struct cw *c)
{
	struct stat sb;
	struct ps_error de;

	/* Symlinks only root or we own, no directory others can write
	 * without the sticky bit (src/out/save.c). */
	c->dirfd = out_dir_open(c->dir, &de);
	if (c->dirfd < 0) {
		if (c->e)
			*c->e = de;
		if (c->e && !c->e->fix[0])
			strlcpy_ps(c->e->fix, _("choose another destination (-o FILE)"), sizeof(c->e->fix));
		return c->dirfd;
	}
	if (fstatat(c->dirfd, c->base, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
		ps_error_set(c->e, EEXIST, _("%s/%s already exists: pscope never overwrites a file"), c->dir, c->base);
		if (c->e) {
			c->e->door = DOOR_FILESYSTEM;
			strlcpy_ps(c->e->fix, _("choose another name (-o FILE) or remove the old file"), sizeof(c->e->fix));
		}
		return -EEXIST;
	}
	return 0;
}

int cw_finish_file(struct cw *c)
{
	struct stat sb;
	int r;

	cw_phase(c, CORE_PHASE_SYNC, 0);
	uint64_t t = now_ns();
	if (ftruncate(c->fd, (off_t)c->data_end) < 0 || fsync(c->fd) < 0)
		return write_error(c, errno);
	c->res->sync_ms = (double)(now_ns() - t) / 1e6;
	/* Named only now, never over an existing file. */
	r = out_file_commit(&c->of, c->dirfd, c->base, false, NULL, NULL);
	errno = -r;
	if (r < 0)
		return cw_fs_error(c->e, errno, errno == EEXIST ? _("choose another name (-o FILE)") : NULL,
				_("cannot rename the core to %s/%s"), c->dir, c->base);
	if (fstat(c->fd, &sb) == 0) {
		c->res->bytes = (uint64_t)sb.st_size;
		c->res->disk_bytes = (uint64_t)sb.st_blocks * 512;
	}
	return 0;
}

