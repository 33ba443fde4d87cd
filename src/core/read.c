/* The core reader's I/O: map the file, parse what it holds, and read the
 * dumped process's memory from it (falling back to the mapped files on
 * disk for read-only pages the core leaves out). */
#include "core/read.h"
#include "sym/sym.h"
#include "doors/doors.h"
#include "i18n.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int core_modules_load(struct core *c, const struct core_open_opts *o, struct ps_error *e);

/* What a listing decompresses of a compressed core: the headers and notes
 * (the kernel writes them first), not the memory. */
#define CORE_HEAD_BYTES (8u << 20)
void core_modules_free(struct core *c);

const struct core_segment *core_segment_at(const struct core *c, uint64_t addr)
{
	size_t lo = 0, hi = c->info.n_segs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct core_segment *s = &c->info.segs[mid];
		if (addr < s->vaddr)
			hi = mid;
		else if (addr - s->vaddr >= s->memsz)
			lo = mid + 1;
		else
			return s;
	}
	return NULL;
}

/* The path a file of the core is opened under: --exe for the executable,
 * under --sysroot for the rest. */
int core_file_fd(struct core *c, size_t fi)
{
	if (c->file_fds[fi] != -2)
		return c->file_fds[fi];
	c->file_fds[fi] = -1;
	const char *path = c->info.files[fi].path;
	for (size_t m = 0; m < c->n_mods; m++)
		if (!strcmp(c->mods[m].path, path)) {
			if (c->mods[m].disk_path && c->mods[m].status != CORE_MOD_MISSING) {
				int fd = sym_open_regular(AT_FDCWD, c->mods[m].disk_path);
				c->file_fds[fi] = fd >= 0 ? fd : -1;
			}
			return c->file_fds[fi];
		}
	return -1;
}

/* From the file mapped at addr, for a page the core does not hold. */
static size_t read_from_file(struct core *c, uint64_t addr, void *buf, size_t len)
{
	const struct core_info *ci = &c->info;

	for (size_t i = 0; i < ci->n_files; i++) {
		const struct core_file_map *f = &ci->files[i];
		if (addr < f->start || addr >= f->end)
			continue;
		int fd = core_file_fd(c, i);
		if (fd < 0)
			return 0;
		size_t n = f->end - addr < len ? (size_t)(f->end - addr) : len;
		ssize_t got = pread(fd, buf, n, (off_t)(f->pgoff + (addr - f->start)));
		return got > 0 ? (size_t)got : 0;
	}
	return 0;
}

size_t core_read_mem(struct core *c, uint64_t addr, void *buf, size_t len, bool file_fallback)
{
	unsigned char *out = buf;
	size_t done = 0;

	while (done < len) {
		uint64_t a = addr + done;
		size_t want = len - done, n = 0;
		const struct core_segment *s = core_segment_at(c, a);
		if (s) {
			uint64_t off = a - s->vaddr;
			if (off < s->avail) {
				n = s->avail - off < want ? (size_t)(s->avail - off) : want;
				memcpy(out + done, c->map + s->offset + off, n);
			} else if (file_fallback && (s->filesz == 0 || !(s->flags & PF_W))) {
				/* Not dumped (filter, or cut short): a read-only or
				 * untouched file page reads the same from the file. */
				size_t cap = s->memsz - off < want ? (size_t)(s->memsz - off) : want;
				n = read_from_file(c, a, out + done, cap);
			}
		} else if (file_fallback) {
			n = read_from_file(c, a, out + done, want);
		}
		if (!n)
			break;
		done += n;
	}
	return done;
}

static void check_truncation(struct core *c)
{
	struct core_info *ci = &c->info;
	uint64_t want = 0;

	for (size_t i = 0; i < ci->n_segs; i++) {
		const struct core_segment *s = &ci->segs[i];
		if (s->filesz && s->offset + s->filesz > want)
			want = s->offset + s->filesz;
		if (s->avail < s->filesz) {
			c->segs_cut++;
			c->bytes_missing += s->filesz - s->avail;
		}
	}
	if (!c->segs_cut)
		return;
	char a[32], b[32];
	c->truncated = true;
	core_warn(ci,
		  _("the core is cut short: %s of %s (a `ulimit -c` limit or a full disk when it was written); "
		    "%zu of %zu memory segments are missing or partial, frames in them cannot be unwound"),
		  human_bytes(c->size, a, sizeof(a)), human_bytes(want, b, sizeof(b)), c->segs_cut, ci->n_segs);
}

static void file_id_of(struct core_file_id *id, const struct stat *st)
{
	id->dev = (unsigned long long)st->st_dev;
	id->ino = (unsigned long long)st->st_ino;
	id->size = (unsigned long long)st->st_size;
	id->mtime_ns = (long long)st->st_mtim.tv_sec * 1000000000ll + st->st_mtim.tv_nsec;
}

int core_file_id_read(struct core_file_id *id)
{
	struct stat st;

	if (stat(id->path, &st) < 0)
		return -errno;
	file_id_of(id, &st);
	return 0;
}

bool core_file_id_equal(const struct core_file_id *a, const struct core_file_id *b)
{
	return !strcmp(a->path, b->path) && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns;
}

int core_open(const char *path, const struct core_open_opts *o, struct core **out, struct ps_error *e)
{
	static const struct core_open_opts none;
	struct core *c = calloc(1, sizeof(*c));
	struct stat st;
	int r;

	*out = NULL;
	if (!o)
		o = &none;
	if (!c)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	c->fd = -1;
	strlcpy_ps(c->path, path, sizeof(c->path));
	/* A FIFO put in the core's place must not hang the open, nor a
	 * device's driver be run by it (sym/file.c). */
	c->fd = sym_open_regular(AT_FDCWD, path);
	if (c->fd == -EINVAL) {
		r = ps_error_set(e, EINVAL, _("%s is not a regular file"), path);
		goto fail;
	}
	if (c->fd < 0) {
		r = door_file_refused(e, path, -c->fd, _("open the core"));
		goto fail;
	}
	if (fstat(c->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = ps_error_set(e, EINVAL, _("%s is not a regular file"), path);
		goto fail;
	}
	if (st.st_size == 0) {
		r = ps_error_set(e, EINVAL, _("%s is empty: the core was not written (see `pscope cores`)"), path);
		goto fail;
	}
	strlcpy_ps(c->id.path, path, sizeof(c->id.path));
	file_id_of(&c->id, &st);
	unsigned char magic[8];
	enum core_comp k = pread(c->fd, magic, sizeof(magic), 0) == sizeof(magic)
				   ? core_compression(magic, sizeof(magic))
				   : CORE_COMP_NONE;
	/* A core its owner can change (not root's) is copied to a private
	 * file first, as a compressed one is decompressed: cut short under
	 * the mapping it would raise SIGBUS (src/sym/file.c). */
	bool copy = k == CORE_COMP_NONE && !sym_file_trusted(c->fd, &st);
	if (k != CORE_COMP_NONE || copy) {
		/* Listing needs the headers and notes only: the kernel writes
		 * them first. */
		int fd;
		r = core_unpack(c->fd, path, k, o->headers_only ? CORE_HEAD_BYTES : 0, &fd, &c->packed_cut, e);
		if (r < 0)
			goto fail;
		close(c->fd);
		c->fd = fd;
		c->compression = core_comp_name(k);
		c->packed_size = k != CORE_COMP_NONE ? (uint64_t)st.st_size : 0;
		if (fstat(c->fd, &st) < 0) {
			r = ps_error_set(e, errno, _("cannot read %s: %s"), path, strerror(errno));
			goto fail;
		}
	}
	c->size = (uint64_t)st.st_size;
	void *m = mmap(NULL, (size_t)c->size, PROT_READ, MAP_PRIVATE, c->fd, 0);
	if (m == MAP_FAILED) {
		r = ps_error_set(e, errno, _("cannot map %s: %s"), path, strerror(errno));
		goto fail;
	}
	c->map = m;
	r = core_elf_parse(c->map, (size_t)c->size, c->size, &c->info, e);
	if (r < 0)
		goto fail;
	for (size_t i = 0; i < c->info.n_notes; i++) {
		uint64_t off = c->info.notes[i].offset, len = c->info.notes[i].filesz;
		if (off >= c->size) {
			core_warn(&c->info, _("the notes are past the end of the file (cut short): no threads or signal"));
			continue;
		}
		if (len > c->size - off) {
			core_warn(&c->info, _("the notes are cut short by the end of the file: later threads are missing"));
			len = c->size - off;
		}
		if (core_notes_parse(c->map + off, (size_t)len, &c->info) < 0) {
			r = ps_error_set(e, ENOMEM, _("out of memory"));
			goto fail;
		}
	}
	if (!c->info.n_threads)
		core_warn(&c->info, _("the core records no thread: there are no stacks to show"));
	if (c->packed_cut)
		core_warn(&c->info, _("the %s data of the core ends early (the file is cut short): what it holds is read"),
			  c->compression);
	check_truncation(c);
	if (!o->headers_only && !c->info.n_files) {
		r = core_linkmap_files(c, o->exe);
		if (r == -ENOMEM) {
			r = ps_error_set(e, ENOMEM, _("out of memory"));
			goto fail;
		}
		core_warn(&c->info, r == 0 ? _("the core has no NT_FILE note: its files were found from the dynamic linker's list in its memory")
					   : _("the core has no NT_FILE note and no dynamic linker's list: only the program's own mappings are known"));
	}
	c->file_fds = malloc((c->info.n_files + 1) * sizeof(int));
	if (!c->file_fds) {
		r = ps_error_set(e, ENOMEM, _("out of memory"));
		goto fail;
	}
	for (size_t i = 0; i < c->info.n_files; i++)
		c->file_fds[i] = -2;
	if (!o->headers_only && (r = core_modules_load(c, o, e)) < 0)
		goto fail;
	*out = c;
	return 0;
fail:
	core_close(c);
	return r;
}

void core_close(struct core *c)
{
	if (!c)
		return;
	if (c->file_fds)
		for (size_t i = 0; i < c->info.n_files; i++)
			if (c->file_fds[i] >= 0)
				close(c->file_fds[i]);
	free(c->file_fds);
	core_modules_free(c);
	core_info_free(&c->info);
	if (c->map)
		munmap((void *)c->map, (size_t)c->size);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

int core_signal(const struct core *c)
{
	const struct core_info *ci = &c->info;
	int signo = ci->sig.valid ? ci->sig.signo : ci->n_threads ? ci->threads[0].cursig : 0;

	/* A debugger's snapshot (gcore) records the SIGSTOP of its attach. */
	return signo == SIGSTOP ? 0 : signo;
}

const struct core_thread *core_crashed_thread(const struct core *c)
{
	if (!core_signal(c))
		return NULL;
	for (size_t i = 0; i < c->info.n_threads; i++)
		if (c->info.threads[i].crashed)
			return &c->info.threads[i];
	return c->info.n_threads ? &c->info.threads[0] : NULL;
}
