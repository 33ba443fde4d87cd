/* Files another user can change: the executables, libraries, debug files
 * and cores pscope reads as root belong to whoever runs the target, and
 * that user can rewrite or cut them while pscope reads them. A file that
 * shrinks under an mmap of it raises SIGBUS at the next read of a lost
 * page, and one rewritten in place changes under a parser between its
 * bounds check and its read. libelf and libdw map the files they read, so
 * such a file is given to them as a private copy instead: a sealed memfd
 * (no one can write, shrink or grow it), taken whole and checked not to
 * have changed while it was copied (size, mtime, ctime before and after).
 *
 * A file only root can change (owned by root, not writable by its group or
 * others, on a filesystem that is not FUSE) is read in place: that is
 * every packaged library and executable, so the copy costs nothing in the
 * common case. Package managers replace files (a new inode) rather than
 * rewrite them, and a replaced file stays whole under an old mapping. */
#include "sym/local.h"
#include "i18n.h"

#include <elfutils/libdwelf.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546
#endif

enum { COPY_CHUNK = 256 * 1024, COPY_TRIES = 3 };

bool sym_file_trusted(int fd, const struct stat *st)
{
	struct statfs sf;
	int seals = fcntl(fd, F_GET_SEALS);

	if (!S_ISREG(st->st_mode))
		return false;
	/* A memfd sealed against change (pscope's own copies). */
	if (seals > 0 && (seals & (F_SEAL_SHRINK | F_SEAL_WRITE)) == (F_SEAL_SHRINK | F_SEAL_WRITE))
		return true;
	if (st->st_uid != 0 || (st->st_mode & (S_IWGRP | S_IWOTH)))
		return false;
	/* A FUSE filesystem says whatever its server wants. */
	return fstatfs(fd, &sf) == 0 && sf.f_type != FUSE_SUPER_MAGIC;
}

static bool same(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size && a->st_ino == b->st_ino && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Copy fd (st->st_size bytes) into a new sealed memfd: the memfd, -ESTALE
 * when the file did not have that size or changed meanwhile, -errno. */
static int copy_once(int fd, const struct stat *st, char *buf)
{
	int mfd = memfd_create("pscope-copy", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	off_t off = 0;
	struct stat now;
	int r = 0;

	if (mfd < 0)
		return -errno;
	while (!r) {
		ssize_t n = pread(fd, buf, COPY_CHUNK, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		if (off + n > st->st_size) {
			r = -ESTALE; /* it grew */
			break;
		}
		for (ssize_t done = 0; done < n && !r;) {
			ssize_t w = write(mfd, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				r = w < 0 ? -errno : -ENOSPC;
			else
				done += w;
		}
		off += n;
	}
	if (!r && (off != st->st_size || fstat(fd, &now) < 0 || !same(st, &now)))
		r = -ESTALE;
	if (!r && fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		r = -errno;
	if (r) {
		close(mfd);
		return r;
	}
	return mfd;
}

int sym_file_stable(int fd)
{
	struct stat st;
	int r = -ESTALE;

	if (fd < 0)
		return -EBADF;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (sym_file_trusted(fd, &st))
		return fd;
	if ((uint64_t)st.st_size > SYM_FILE_COPY_MAX) {
		close(fd);
		return -EFBIG;
	}
	char *buf = malloc(COPY_CHUNK);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (int i = 0; i < COPY_TRIES && r == -ESTALE; i++) {
		r = copy_once(fd, &st, buf);
		if (r == -ESTALE && fstat(fd, &st) < 0)
			r = -errno;
		if (r == -ESTALE && (uint64_t)st.st_size > SYM_FILE_COPY_MAX)
			r = -EFBIG;
	}
	free(buf);
	close(fd);
	return r;
}

int sym_reopen(int pfd)
{
	char self[32];

	/* Opened again from the inode pfd holds: no second lookup by name
	 * that could meet a device or a FIFO swapped in meanwhile. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	int fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

int sym_open_regular(int dirfd, const char *path)
{
	struct stat st;
	int pfd = openat(dirfd, path, O_PATH | O_CLOEXEC), r;

	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = S_ISREG(st.st_mode) ? -errno : -EINVAL;
		close(pfd);
		return r;
	}
	r = sym_reopen(pfd);
	close(pfd);
	return r;
}

const char *sym_file_why(int err)
{
	switch (err < 0 ? -err : err) {
	case ESTALE: return _("the file changed while it was read");
	case EFBIG: return _("over the 1 GiB cap for copying a file its owner can change");
	case EINVAL: return _("not a regular file");
	default: return _("the file could not be copied");
	}
}

/* Whether the debug file in fd has the build-id of mod. */
static bool same_build_id(Dwfl_Module *mod, int fd)
{
	const unsigned char *want = NULL;
	const void *have = NULL;
	GElf_Addr va;
	int wn = dwfl_module_build_id(mod, &want, &va);
	Elf *elf = wn > 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	ssize_t hn = elf ? dwelf_elf_gnu_build_id(elf, &have) : -1;
	bool ok = hn == wn && !memcmp(want, have, (size_t)wn);

	if (elf)
		elf_end(elf);
	return ok;
}

char *sym_debuginfo_path;
static pthread_once_t debug_once = PTHREAD_ONCE_INIT;

/* PSCOPE_DEBUG_DIR: a debug root (DIR/.build-id/xx/rest.debug) searched
 * before /usr/lib/debug; libdwfl's default path otherwise. */
static void debug_path_init(void)
{
	const char *d = getenv("PSCOPE_DEBUG_DIR");
	char *abs = d && *d ? realpath(d, NULL) : NULL;

	if (!abs || strchr(abs, ':')) {
		free(abs);
		return;
	}
	size_t l = strlen(abs) + sizeof(":.debug::/usr/lib/debug");
	sym_debuginfo_path = malloc(l);
	if (sym_debuginfo_path)
		snprintf(sym_debuginfo_path, l, ":.debug:%s:/usr/lib/debug", abs);
	free(abs);
}

void sym_debug_path_init(void)
{
	pthread_once(&debug_once, debug_path_init);
}

/* Separate debug files. libdwfl's standard search would open and map a
 * .gnu_debuglink file next to the module itself (checking its CRC from the
 * mapping), where its owner can cut it short under the mapping; so: by
 * build-id under /usr/lib/debug (root's files, with the dwz file of a
 * debug package), then the debug link next to the file, in .debug/ there
 * and under /usr/lib/debug, each through a stable copy (sym/file.c) and
 * taken only with the module's build-id. */
int sym_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
		       const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		       char **debuginfo_file_name)
{
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					      debuglink_crc, debuginfo_file_name);
	if (fd >= 0) {
		fd = sym_file_stable(fd);
		return fd >= 0 ? fd : -1;
	}
	/* No link, or the dwz file of a module (no CRC): nothing more. */
	if (!file_name || !debuglink_file || !debuglink_crc || strchr(debuglink_file, '/'))
		return -1;
	const char *slash = strrchr(file_name, '/'), *host = file_name;
	int dl = slash ? (int)(slash - file_name) : 0;
	if (!strncmp(host, "/proc/", 6) && (host = strchr(host + 6, '/')) && !strncmp(host, "/root/", 6))
		host += 5; /* /proc/PID/root/usr/lib/x.so: /usr/lib under /usr/lib/debug */
	else
		host = file_name;
	int hl = slash && slash >= host ? (int)(slash - host) : 0;
	for (int i = 0; i < 3; i++) {
		char path[PATH_MAX];
		if (i == 0)
			snprintf(path, sizeof(path), "%.*s/%s", dl, file_name, debuglink_file);
		else if (i == 1)
			snprintf(path, sizeof(path), "%.*s/.debug/%s", dl, file_name, debuglink_file);
		else
			snprintf(path, sizeof(path), "/usr/lib/debug%.*s/%s", hl, host, debuglink_file);
		fd = sym_open_regular(AT_FDCWD, path);
		fd = fd >= 0 ? sym_file_stable(fd) : -1;
		if (fd < 0)
			continue;
		if (same_build_id(mod, fd) && (*debuginfo_file_name = strdup(path)))
			return fd;
		close(fd);
	}
	return -1;
}
