/* Safe writes into directories another user may control (see save.h). */
#include "out/save.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <pwd.h>
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

/* "nobody (uid 65534)" */
static const char *owner_str(uid_t uid, char *buf, size_t size)
{
	char pw[1024];
	struct passwd pwd, *res = NULL;

	if (getpwuid_r(uid, &pwd, pw, sizeof(pw), &res) == 0 && res)
		snprintf(buf, size, "%s (uid %u)", res->pw_name, (unsigned)uid);
	else
		snprintf(buf, size, "uid %u", (unsigned)uid);
	return buf;
}

static int dir_refused(struct ps_error *e, const char *why, const char *dir, const struct stat *st, const char *fix)
{
	char own[128];

	ps_error_set(e, EPERM, why, dir, owner_str(st->st_uid, own, sizeof(own)), (unsigned)(st->st_mode & 07777));
	if (e) {
		e->door = DOOR_FILESYSTEM;
		strlcpy_ps(e->fix, fix, sizeof(e->fix));
	}
	return -EPERM;
}

/* Only root or pscope's user may own the directory; others may write in
 * it only under the sticky bit (then they cannot rename what is not
 * theirs). */
static int dir_check(const char *dir, const struct stat *st, struct ps_error *e)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return dir_refused(e,
				   _("%s (owner %s, mode %04o) belongs to another user, who can rename, remove or swap "
				     "anything in it: pscope does not write there"),
				   dir, st,
				   _("write to a directory of your own or root's, or run pscope as the directory's owner"));
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return dir_refused(e,
				   _("%s (owner %s, mode %04o) is writable by other users without the sticky bit: anyone "
				     "there could swap the file pscope writes"),
				   dir, st,
				   _("write to a directory only you can change, one with the sticky bit like /tmp, or "
				     "remove the others' write permission (chmod go-w)"));
	return 0;
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
	int r = dir_check(dir && *dir ? dir : ".", &st, e);
	if (r < 0) {
		close(fd);
		return r;
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

static int no_replace(int dirfd, const char *from, const char *to)
{
	int r = (int)syscall(SYS_renameat2, dirfd, from, dirfd, to, 1 /* RENAME_NOREPLACE */);

	if (r < 0 && (errno == EINVAL || errno == ENOSYS) && (r = linkat(dirfd, from, dirfd, to, 0)) == 0)
		unlinkat(dirfd, from, 0); /* no RENAME_NOREPLACE here: link(2) */
	return r < 0 ? -errno : 0;
}

/* Put tmp in place as base, replacing an old base only when it is ours:
 * in a directory others can write (sticky), a name of another user's is
 * theirs (a file, or a link they can point anywhere) and is left alone. */
static int replace_name(int dirfd, const char *tmp, const char *base, const char *shown, struct ps_error *e)
{
	struct stat d, st;
	bool shared = fstat(dirfd, &d) == 0 && (d.st_mode & (S_IWGRP | S_IWOTH));

	for (int tries = 0; tries < 64; tries++) {
		int r = no_replace(dirfd, tmp, base);
		if (r != -EEXIST)
			return r;
		if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue; /* gone meanwhile: try again */
			return -errno;
		}
		if (shared && st.st_uid != 0 && st.st_uid != geteuid()) {
			char own[128];
			ps_error_set(e, EEXIST,
				     _("%s exists and belongs to %s in a directory others can write: pscope does not "
				       "replace another user's %s"),
				     shown, owner_str(st.st_uid, own, sizeof(own)),
				     S_ISLNK(st.st_mode) ? _("symbolic link") : _("file"));
			if (e) {
				e->door = DOOR_FILESYSTEM;
				strlcpy_ps(e->fix, _("choose another name, or write to a directory of your own"), sizeof(e->fix));
			}
			return -EEXIST;
		}
		/* Ours or root's, in a directory nobody else can change, or one
		 * where only its owner may rename it: a rename replaces the name
		 * itself, never a file a link there points to. */
		if (renameat(dirfd, tmp, dirfd, base) < 0)
			return -errno;
		return 0;
	}
	return -EEXIST;
}

int out_file_commit(struct out_file *f, int dirfd, const char *base, bool replace, const char *shown,
		    struct ps_error *e)
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
		r = replace ? replace_name(dirfd, f->tmp, base, shown ? shown : base, e) : no_replace(dirfd, f->tmp, base);
		if (r < 0) {
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

int out_dest_begin(struct out_dest *d, const char *path, const char *hint, mode_t mode, struct ps_error *e)
{
	char dir[PATH_MAX];
	const char *base = split(path, dir, sizeof(dir));
	int r;

	d->dirfd = -1;
	d->f.fd = -1;
	d->f.tmp[0] = '\0';
	d->path = path;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return refused(e, path, EISDIR);
	if (strlen(base) > NAME_MAX)
		return refused(e, path, ENAMETOOLONG);
	strlcpy_ps(d->base, base, sizeof(d->base));
	if ((d->dirfd = dir_open(dir, path, e)) < 0)
		return d->dirfd;
	if ((r = out_file_begin(&d->f, d->dirfd, hint, mode, NULL)) < 0) {
		close(d->dirfd);
		d->dirfd = -1;
		return refused(e, path, -r);
	}
	return 0;
}

int out_dest_commit(struct out_dest *d, bool replace, struct ps_error *e)
{
	struct ps_error ce;

	ps_error_clear(&ce);
	int r = out_file_commit(&d->f, d->dirfd, d->base, replace, d->path, &ce);
	if (r == 0) {
		close(d->dirfd);
		d->dirfd = -1;
		return 0;
	}
	if (ce.code) {
		if (e)
			*e = ce;
		return r;
	}
	if (r == -EEXIST) {
		ps_error_set(e, EEXIST, _("%s already exists: pscope never overwrites it"), d->path);
		if (e) {
			e->door = DOOR_FILESYSTEM;
			strlcpy_ps(e->fix, _("choose another name or remove the old file"), sizeof(e->fix));
		}
		return r;
	}
	return refused(e, d->path, -r);
}

void out_dest_abort(struct out_dest *d)
{
	out_file_abort(&d->f, d->dirfd);
	if (d->dirfd >= 0)
		close(d->dirfd);
	d->dirfd = -1;
}

struct cookie {
	int fd;
	int err; /* the first write error */
};

static ssize_t cookie_write(void *arg, const char *buf, size_t n)
{
	struct cookie *c = arg;

	for (size_t done = 0; done < n;) {
		ssize_t w = write(c->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!c->err)
				c->err = w < 0 ? errno : ENOSPC;
			errno = c->err;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

int out_save(const char *path, int (*write)(FILE *f, void *arg), void *arg, struct ps_error *e)
{
	return out_save_mode(path, 0644, write, arg, e);
}

int out_save_mode(const char *path, mode_t mode, int (*write)(FILE *f, void *arg), void *arg, struct ps_error *e)
{
	struct out_dest d;
	int r;

	if ((r = out_dest_begin(&d, path, "out", mode, e)) < 0)
		return r;
	/* Through a cookie: the first write error's errno is kept (a writer
	 * sees only ferror, stdio loses the cause: ENOSPC, EDQUOT, EIO). */
	struct cookie c = { d.f.fd, 0 };
	FILE *f = fopencookie(&c, "w", (cookie_io_functions_t){ .write = cookie_write });
	if (!f) {
		r = -errno;
		goto fail;
	}
	r = write(f, arg);
	if (fflush(f) != 0 && !r)
		r = -EIO;
	if (fclose(f) != 0 && !r)
		r = -EIO;
	if (r < 0 && c.err)
		r = -c.err;
	if (!r && fsync(d.f.fd) != 0)
		r = -errno; /* a full disk may show only here */
	if (r < 0)
		goto fail;
	if ((r = out_dest_commit(&d, true, e)) < 0) {
		out_dest_abort(&d);
		return r;
	}
	close(d.f.fd);
	return 0;
fail:
	out_dest_abort(&d);
	return refused(e, path, -r);
}

int out_file_remove(int dirfd, const char *base, uid_t owner, struct ps_error *e)
{
	struct stat st;

	/* Only a name of this directory, never a path, and never through a
	 * link: the entry itself is checked (a regular file of owner's) and
	 * removed relative to the descriptor out_dir_open checked. */
	if (!base[0] || strchr(base, '/') || !strcmp(base, ".") || !strcmp(base, ".."))
		return ps_error_set(e, EINVAL, _("cannot remove '%s': not a file name"), base);
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return ps_error_set(e, errno, _("cannot remove %s: %s"), base, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return ps_error_set(e, EPERM, _("cannot remove %s: not a regular file"), base);
	if (st.st_uid != owner)
		return ps_error_set(e, EPERM, _("cannot remove %s: it belongs to another user"), base);
	if (unlinkat(dirfd, base, 0) < 0)
		return ps_error_set(e, errno, _("cannot remove %s: %s"), base, strerror(errno));
	return 0;
}
