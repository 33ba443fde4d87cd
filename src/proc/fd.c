#include "proc/fd.h"
#include "proc/net.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const type_names[FDT_COUNT] = {
	[FDT_FILE] = "file", [FDT_DIR] = "dir", [FDT_DEVICE] = "device", [FDT_PIPE] = "pipe",
	[FDT_FIFO] = "fifo", [FDT_SOCKET] = "socket", [FDT_EVENTFD] = "eventfd",
	[FDT_EPOLL] = "epoll", [FDT_TIMERFD] = "timerfd", [FDT_SIGNALFD] = "signalfd",
	[FDT_INOTIFY] = "inotify", [FDT_FANOTIFY] = "fanotify", [FDT_MEMFD] = "memfd",
	[FDT_PIDFD] = "pidfd", [FDT_ANON] = "anon", [FDT_OTHER] = "other",
};

const char *proc_fd_type_name(enum proc_fd_type t)
{
	return (unsigned)t < FDT_COUNT ? type_names[t] : "?";
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

enum proc_fd_type proc_fd_classify(const char *t, bool *deleted, unsigned long long *ino)
{
	static const struct {
		const char *name;
		enum proc_fd_type type;
	} anon[] = {
		{ "[eventfd]", FDT_EVENTFD }, { "[eventpoll]", FDT_EPOLL }, { "[timerfd]", FDT_TIMERFD },
		{ "[signalfd]", FDT_SIGNALFD }, { "inotify", FDT_INOTIFY }, { "[fanotify]", FDT_FANOTIFY },
		{ "[pidfd]", FDT_PIDFD },
	};
	size_t len = strlen(t);

	*deleted = false;
	*ino = 0;
	if (starts(t, "socket:[") || starts(t, "pipe:[")) {
		*ino = strtoull(strchr(t, '[') + 1, NULL, 10);
		return t[0] == 's' ? FDT_SOCKET : FDT_PIPE;
	}
	if (starts(t, "anon_inode:")) {
		for (size_t i = 0; i < ARRAY_SIZE(anon); i++)
			if (!strcmp(t + 11, anon[i].name))
				return anon[i].type;
		return FDT_ANON;
	}
	if (t[0] != '/')
		return FDT_OTHER; /* "net:[...]", "mnt:[...]" (namespace fds)... */
	if (len > 10 && !strcmp(t + len - 10, " (deleted)"))
		*deleted = true;
	if (starts(t, "/memfd:"))
		return FDT_MEMFD;
	if (starts(t, "/dev/") && !starts(t, "/dev/shm/") && !starts(t, "/dev/mqueue/"))
		return FDT_DEVICE;
	return FDT_FILE;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

/* Keys of fdinfo: pos, flags, mnt_id, then per type: eventfd-count,
 * tfd (epoll watches), clockid/ticks (timerfd), sigmask (signalfd),
 * inotify wd, Pid (pidfd). */
int proc_fdinfo_parse(const char *buf, size_t len, struct proc_fdinfo *out)
{
	const char *p = buf, *end = buf + len;
	int seen = 0, watches = 0, inotify = 0;
	long tfd[8];

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char line[256];
		size_t ll = (size_t)(le - p) < sizeof(line) - 1 ? (size_t)(le - p) : sizeof(line) - 1;
		memcpy(line, p, ll);
		line[ll] = '\0';
		p = le + 1;
		char *v = strchr(line, ':');
		if (!v)
			continue;
		*v++ = '\0';
		while (*v == ' ' || *v == '\t')
			v++;
		if (!strcmp(line, "pos")) {
			out->pos = strtoull(v, NULL, 10);
			seen++;
		} else if (!strcmp(line, "flags")) {
			out->flags = (unsigned)strtoul(v, NULL, 8);
			seen++;
		} else if (!strcmp(line, "mnt_id")) {
			out->mnt_id = (int)strtol(v, NULL, 10);
		} else if (!strcmp(line, "eventfd-count")) {
			snprintf(out->extra, sizeof(out->extra), "count=%llu", strtoull(v, NULL, 16));
		} else if (!strcmp(line, "tfd")) {
			if (watches < (int)ARRAY_SIZE(tfd))
				tfd[watches] = strtol(v, NULL, 10);
			watches++;
		} else if (!strcmp(line, "ticks")) {
			snprintf(out->extra, sizeof(out->extra), "ticks=%s", v);
		} else if (!strcmp(line, "sigmask")) {
			snprintf(out->extra, sizeof(out->extra), "sigmask=%s", v);
		} else if (!strcmp(line, "inotify wd")) {
			inotify++;
		} else if (!strcmp(line, "Pid")) {
			snprintf(out->extra, sizeof(out->extra), "pid=%s", v);
		}
	}
	if (watches) {
		/* The kernel lists watches in tree order: show them sorted. */
		int shown = watches < (int)ARRAY_SIZE(tfd) ? watches : (int)ARRAY_SIZE(tfd);
		size_t l = (size_t)snprintf(out->extra, sizeof(out->extra), "watches=%d (fd ", watches);
		qsort(tfd, (size_t)shown, sizeof(*tfd), cmp_long);
		for (int i = 0; i < shown && l < sizeof(out->extra); i++)
			l += (size_t)snprintf(out->extra + l, sizeof(out->extra) - l, "%s%ld", i ? "," : "", tfd[i]);
		if (l < sizeof(out->extra))
			snprintf(out->extra + l, sizeof(out->extra) - l, "%s)", shown < watches ? ",..." : "");
	}
	if (inotify)
		snprintf(out->extra, sizeof(out->extra), "watches=%d", inotify);
	return seen ? 0 : -EINVAL;
}

const char *proc_fd_flags_str(unsigned f, char *buf, size_t size)
{
	static const struct {
		unsigned bit;
		const char *name;
	} bits[] = {
		{ O_APPEND, "append" }, { O_NONBLOCK, "nonblock" }, { O_CLOEXEC, "cloexec" },
		{ O_DIRECTORY, "directory" }, { O_SYNC, "sync" }, { O_DIRECT, "direct" },
		{ O_NOATIME, "noatime" }, { O_PATH, "path" }, { O_CREAT, "creat" },
		{ O_TRUNC, "trunc" }, { O_NOFOLLOW, "nofollow" },
	};
	unsigned acc = f & O_ACCMODE;
	size_t len = (size_t)snprintf(buf, size, "%s",
				      acc == O_RDONLY ? "r" : acc == O_WRONLY ? "w" : acc == O_RDWR ? "rw" : "?");
	for (size_t i = 0; i < ARRAY_SIZE(bits) && len < size; i++) {
		if ((f & bits[i].bit) != bits[i].bit)
			continue;
		if (bits[i].bit == O_SYNC && !(f & 04000000))
			continue;
		len += (size_t)snprintf(buf + len, size - len, ",%s", bits[i].name);
	}
	return buf;
}

static int cmp_fd(const void *a, const void *b)
{
	const struct proc_fd *x = a, *y = b;
	return (x->fd > y->fd) - (x->fd < y->fd);
}

int proc_fd_read(int dirfd, struct proc_fd_list *out)
{
	int fdd = openat(dirfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int infd;
	DIR *d;
	struct dirent *de;

	out->n = 0;
	memset(out->count, 0, sizeof(out->count));
	if (fdd < 0)
		return -errno;
	infd = openat(dirfd, "fdinfo", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fdopendir(fdd);
	if (!d) {
		int err = errno;
		close(fdd);
		if (infd >= 0)
			close(infd);
		return -err;
	}
	errno = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (out->n == out->cap) {
			size_t nc = out->cap ? out->cap * 2 : 64;
			struct proc_fd *nv = realloc(out->v, nc * sizeof(*nv));
			if (!nv) {
				closedir(d);
				if (infd >= 0)
					close(infd);
				return -ENOMEM;
			}
			out->v = nv;
			out->cap = nc;
		}
		struct proc_fd *f = &out->v[out->n];
		ssize_t ln = readlinkat(fdd, de->d_name, f->target, sizeof(f->target) - 1);
		if (ln < 0)
			continue; /* closed since readdir */
		f->target[ln] = '\0';
		f->fd = atoi(de->d_name);
		f->type = proc_fd_classify(f->target, &f->deleted, &f->ino);
		f->info_err = -EBADF;
		memset(&f->info, 0, sizeof(f->info));
		if (infd >= 0) {
			char buf[4096];
			ssize_t n = read_file_at(infd, de->d_name, buf, sizeof(buf));
			f->info_err = n < 0 ? (int)n : proc_fdinfo_parse(buf, (size_t)n, &f->info);
		}
		if (f->type == FDT_FILE && !f->deleted) {
			/* A path: directory, device or named pipe? (O_DIRECTORY
			 * in the flags says so without a stat.) */
			struct stat sb;
			if (f->info_err == 0 && (f->info.flags & O_DIRECTORY))
				f->type = FDT_DIR;
			else if (fstatat(fdd, de->d_name, &sb, 0) == 0) {
				if (S_ISDIR(sb.st_mode))
					f->type = FDT_DIR;
				else if (S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode))
					f->type = FDT_DEVICE;
				else if (S_ISFIFO(sb.st_mode))
					f->type = FDT_FIFO;
			}
		}
		out->count[f->type]++;
		out->n++;
	}
	int err = errno;
	closedir(d);
	if (infd >= 0)
		close(infd);
	if (err && !out->n)
		return -err;
	qsort(out->v, out->n, sizeof(*out->v), cmp_fd);
	return 0;
}

void proc_fd_list_free(struct proc_fd_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static bool any_addr(const char *a)
{
	return !strcmp(a, "0.0.0.0:0") || !strcmp(a, "[::]:0");
}

const char *proc_fd_describe(const struct proc_fd *f, const struct proc_net *net, char *buf, size_t size)
{
	const struct proc_sock *s = f->type == FDT_SOCKET && net ? proc_net_find(net, f->ino) : NULL;

	if (s && s->proto == NET_UNIX)
		snprintf(buf, size, "unix %s %s%s%s", proc_sock_unix_type(s), s->local[0] ? s->local : "",
			 s->local[0] ? " " : "", proc_sock_state(s));
	else if (s && any_addr(s->peer))
		snprintf(buf, size, "%s %s %s", proc_net_proto_name(s->proto), s->local, proc_sock_state(s));
	else if (s)
		snprintf(buf, size, "%s %s -> %s %s", proc_net_proto_name(s->proto), s->local, s->peer,
			 proc_sock_state(s));
	else if (f->info.extra[0])
		snprintf(buf, size, "%s %s", f->target, f->info.extra);
	else
		snprintf(buf, size, "%s", f->target);
	return buf;
}
