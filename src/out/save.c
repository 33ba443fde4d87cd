/* Safe writes into directories another user may control (see save.h). */
#include "out/save.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { MAX_LINKS = 16 };

static int refused(struct ps_error *e, const char *path, int err)
{
	const char *fix = NULL;

	ps_error_set(e, err, _("cannot write %s: %s"), path, strerror(err));
	switch (err) {
	case EACCES:
	case EPERM: fix = _("choose a directory you can write to"); break;
	case EROFS: fix = _("the filesystem is read-only: write elsewhere"); break;
	case ENOSPC:
	case EDQUOT:
	case EFBIG: fix = _("free some space or write to a larger filesystem; df -h shows what is free"); break;
	case ENOENT:
	case ENOTDIR: fix = _("the directory does not exist: create it or choose another"); break;
	default: break;
	}
	if (e && fix) {
		e->door = DOOR_FILESYSTEM;
		strlcpy_ps(e->fix, fix, sizeof(e->fix));
	}
	return -err;
}

/* Open path (relative to at) as an O_PATH descriptor of a directory,
 * following only symlinks root or we own. *bad: the owner of a link that
 * was refused. */
static int walk(int at, const char *path, int *links, uid_t *bad)
{
	char buf[PATH_MAX], *save = NULL;
	int fd = openat(at, path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (strlen(path) >= sizeof(buf)) {
		if (fd >= 0)
			close(fd);
		return -ENAMETOOLONG;
	}
	strcpy(buf, path);
	for (char *c = strtok_r(buf, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
		struct stat st;
		int n = openat(fd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (n < 0 || fstat(n, &st) < 0) {
			int err = errno;
			if (n >= 0)
				close(n);
			close(fd);
			return -err;
		}
		if (S_ISLNK(st.st_mode)) {
			char to[PATH_MAX];
			ssize_t l = readlinkat(n, "", to, sizeof(to) - 1);
			close(n);
			if (st.st_uid != 0 && st.st_uid != geteuid()) {
				*bad = st.st_uid;
				close(fd);
				return -ELOOP;
			}
			if (l < 0 || ++*links > MAX_LINKS) {
				close(fd);
				return l < 0 ? -errno : -ELOOP;
			}
			to[l] = '\0';
			n = walk(fd, to, links, bad);
			if (n < 0) {
				close(fd);
				return n;
			}
		} else if (!S_ISDIR(st.st_mode)) {
			close(n);
			close(fd);
			return -ENOTDIR;
		}
		close(fd);
		fd = n;
	}
	return fd < 0 ? -errno : fd;
}

/* out_dir_open, naming shown (the file to be written) in plain errors. */
static int dir_open(const char *dir, const char *shown, struct ps_error *e)
{
	struct stat st;
	int links = 0;
	uid_t bad = 0;
	int p = walk(AT_FDCWD, dir && *dir ? dir : ".", &links, &bad);

	if (p == -ELOOP && bad) {
		ps_error_set(e, ELOOP, _("%s goes through a symbolic link owned by another user (uid %u), who can point it "
					 "anywhere: pscope does not write there"), dir, (unsigned)bad);
		if (e) {
			e->door = DOOR_FILESYSTEM;
			strlcpy_ps(e->fix, _("give the real path of the directory"), sizeof(e->fix));
		}
		return p;
	}
	if (p < 0)
		return refused(e, shown, -p);
	int fd = openat(p, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = errno;
	close(p);
	if (fd < 0)
		return refused(e, shown, err);
	if (fstat(fd, &st) < 0) {
		err = errno;
		close(fd);
		return refused(e, shown, err);
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		close(fd);
		ps_error_set(e, EPERM, _("%s is writable by other users (mode %04o) without the sticky bit: anyone "
					 "there could swap the file pscope writes"), dir, (unsigned)(st.st_mode & 07777));
		if (e) {
			e->door = DOOR_FILESYSTEM;
			strlcpy_ps(e->fix, _("write to a directory only you can change (or one with the sticky bit, like /tmp)"),
				   sizeof(e->fix));
		}
		return -EPERM;
	}
	return fd;
}

int out_dir_open(const char *dir, struct ps_error *e)
{
	return dir_open(dir, dir, e);
}

int out_file_begin(struct out_file *f, int dirfd, const char *hint, mode_t mode, struct ps_error *e)
{
	unsigned rnd = 0;

	f->tmp[0] = '\0';
	f->unnamed = false;
	f->fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
	if (f->fd >= 0) {
		f->unnamed = true;
		fchmod(f->fd, mode); /* not the umask's */
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return refused(e, ".", errno);
	/* No O_TMPFILE here: a hidden name, never an existing file or link. */
	for (int tries = 0; tries < 100; tries++) {
		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			rnd = (unsigned)now_ns() ^ (unsigned)tries;
		snprintf(f->tmp, sizeof(f->tmp), ".pscope-%s.%d.%08x.tmp", hint, (int)getpid(), rnd);
		f->fd = openat(dirfd, f->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (f->fd >= 0) {
			fchmod(f->fd, mode);
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	int err = errno;
	f->tmp[0] = '\0';
	return refused(e, ".", err);
}

/* A temporary name for the unnamed file, so it can be renamed over base. */
static int name_unnamed(struct out_file *f, int dirfd, const char *self)
{
	unsigned rnd = 0;

	for (int tries = 0; tries < 100; tries++) {
		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			rnd = (unsigned)now_ns() ^ (unsigned)tries;
		snprintf(f->tmp, sizeof(f->tmp), ".pscope.%d.%08x.tmp", (int)getpid(), rnd);
		if (linkat(AT_FDCWD, self, dirfd, f->tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	int err = errno;
	f->tmp[0] = '\0';
	return -err;
}

int out_file_commit(struct out_file *f, int dirfd, const char *base, bool replace)
{
	char self[64];
	int r = 0;

	if (fsync(f->fd) < 0)
		return -errno;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", f->fd);
	if (f->unnamed && !replace) {
		/* link(2) never replaces a file. */
		if (linkat(AT_FDCWD, self, dirfd, base, AT_SYMLINK_FOLLOW) < 0)
			return -errno;
	} else {
		if (f->unnamed && (r = name_unnamed(f, dirfd, self)) < 0)
			return r;
		if (replace)
			r = renameat(dirfd, f->tmp, dirfd, base);
		else if ((r = (int)syscall(SYS_renameat2, dirfd, f->tmp, dirfd, base, 1 /* RENAME_NOREPLACE */)) < 0 &&
			 (errno == EINVAL || errno == ENOSYS) && (r = linkat(dirfd, f->tmp, dirfd, base, 0)) == 0)
			unlinkat(dirfd, f->tmp, 0); /* no RENAME_NOREPLACE here: link(2) */
		if (r < 0) {
			r = -errno;
			unlinkat(dirfd, f->tmp, 0);
			f->tmp[0] = '\0';
			return r;
		}
		f->tmp[0] = '\0';
	}
	fsync(dirfd);
	return 0;
}

void out_file_abort(struct out_file *f, int dirfd)
{
	if (f->tmp[0] && dirfd >= 0)
		unlinkat(dirfd, f->tmp, 0);
	f->tmp[0] = '\0';
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

int out_scratch(const char *dir, struct ps_error *e)
{
	struct out_file f;
	int dirfd = out_dir_open(dir, e);

	if (dirfd < 0)
		return dirfd;
	int r = out_file_begin(&f, dirfd, "scratch", 0600, e);
	if (r == 0 && f.tmp[0] && unlinkat(dirfd, f.tmp, 0) < 0) {
		r = refused(e, dir, errno);
		close(f.fd);
	}
	close(dirfd);
	return r < 0 ? r : f.fd;
}

/* Split path into its directory (in dir) and its last component. */
static const char *split(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		strlcpy_ps(dir, ".", size);
		return path;
	}
	size_t l = slash == path ? 1 : (size_t)(slash - path);
	snprintf(dir, size, "%.*s", (int)l, path);
	return slash + 1;
}

int out_save(const char *path, int (*write)(FILE *f, void *arg), void *arg, struct ps_error *e)
{
	return out_save_mode(path, 0644, write, arg, e);
}

int out_save_mode(const char *path, mode_t mode, int (*write)(FILE *f, void *arg), void *arg, struct ps_error *e)
{
	char dir[PATH_MAX];
	const char *base = split(path, dir, sizeof(dir));
	struct out_file of;
	int r, dirfd;

	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return refused(e, path, EISDIR);
	if ((dirfd = dir_open(dir, path, e)) < 0)
		return dirfd;
	if ((r = out_file_begin(&of, dirfd, "out", mode, NULL)) < 0) {
		close(dirfd);
		return refused(e, path, -r);
	}
	int fd2 = dup(of.fd);
	FILE *f = fd2 >= 0 ? fdopen(fd2, "w") : NULL;
	if (!f) {
		r = -errno;
		if (fd2 >= 0)
			close(fd2);
		goto fail;
	}
	r = write(f, arg);
	/* A full disk shows at the flush (write only saw ferror). */
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		r = -errno;
	if (fclose(f) != 0 && !r)
		r = -errno;
	if (!r)
		r = out_file_commit(&of, dirfd, base, true);
	if (r < 0)
		goto fail;
	close(of.fd);
	close(dirfd);
	return 0;
fail:
	out_file_abort(&of, dirfd);
	close(dirfd);
	return refused(e, path, -r);
}
