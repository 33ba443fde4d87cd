#include "out/save.h"
#include "i18n.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Give the unnamed file fd a temporary name next to path (in tmp). */
static int link_temp(int fd, const char *path, char *tmp, size_t size)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (unsigned i = 0; i < 100; i++) {
		snprintf(tmp, size, "%s.%d.%u", path, (int)getpid(), i);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return errno;
	}
	return EEXIST;
}

static int refused(struct ps_error *e, const char *path, int err)
{
	ps_error_set(e, err, _("cannot write %s: %s"), path, strerror(err));
	e->door = DOOR_FILESYSTEM;
	switch (err) {
	case EACCES:
	case EPERM:
		snprintf(e->fix, sizeof(e->fix), "%s", _("choose a directory you can write to"));
		break;
	case EROFS:
		snprintf(e->fix, sizeof(e->fix), "%s", _("the filesystem is read-only: write elsewhere"));
		break;
	case ENOSPC:
	case EDQUOT:
	case EFBIG:
		snprintf(e->fix, sizeof(e->fix), "%s",
			 _("free some space or write to a larger filesystem; df -h shows what is free"));
		break;
	case ENOENT:
	case ENOTDIR:
		snprintf(e->fix, sizeof(e->fix), "%s", _("the directory does not exist: create it or choose another"));
		break;
	default:
		e->door = DOOR_NONE;
		break;
	}
	return -err;
}

int out_save(const char *path, int (*write)(FILE *f, void *arg), void *arg, struct ps_error *e)
{
	size_t len = strlen(path), size = len + 32;
	char *tmp = malloc(size);
	int fd, keep = -1, r;
	FILE *f;

	if (!tmp)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	/* An unnamed file in the destination's directory, named only once it
	 * is complete: a pscope killed while writing leaves nothing behind. */
	snprintf(tmp, size, "%s", path);
	char *slash = strrchr(tmp, '/');
	if (slash)
		slash[slash == tmp ? 1 : 0] = '\0';
	fd = open(slash ? tmp : ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	tmp[0] = '\0';
	if (fd >= 0) {
		keep = dup(fd);
	} else if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) {
		snprintf(tmp, size, "%s.XXXXXX", path);
		fd = mkstemp(tmp); /* a filesystem without O_TMPFILE */
	}
	if (fd < 0 || (!tmp[0] && keep < 0)) {
		r = errno;
		if (fd >= 0)
			close(fd);
		free(tmp);
		return refused(e, path, r);
	}
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		r = errno;
		close(fd);
		goto fail;
	}
	r = write(f, arg);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		r = -errno;
	if (fclose(f) != 0 && !r)
		r = -errno;
	if (r < 0) {
		r = -r;
		goto fail;
	}
	/* Named under a temporary name, then over the old file: only these two
	 * calls apart can a kill leave that name behind. */
	if (keep >= 0 && (r = link_temp(keep, path, tmp, size)) != 0) {
		tmp[0] = '\0';
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		r = errno;
		goto fail;
	}
	if (keep >= 0)
		close(keep);
	free(tmp);
	return 0;
fail:
	if (keep >= 0)
		close(keep);
	if (tmp[0])
		unlink(tmp);
	free(tmp);
	return refused(e, path, r);
}
