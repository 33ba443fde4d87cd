#include "proc/fd.h"
#include "i18n.h"
#include "proc/net.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
		sort_array(tfd, (size_t)shown, sizeof(*tfd), cmp_long);
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

/* One open + one read + close: fdinfo fits in a page except for epoll or
 * inotify fds with hundreds of watches (then the count is a lower bound). */
static int read_info_at(int infd, const char *name, struct proc_fd *f)
{
	char buf[8192];
	int fd = openat(infd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	close(fd);
	buf[n] = '\0';
	return proc_fdinfo_parse(buf, (size_t)n, &f->info);
}

int proc_fd_read_info(int dirfd, struct proc_fd *f)
{
	char name[32];
	snprintf(name, sizeof(name), "fdinfo/%d", f->fd);
	f->info_err = read_info_at(dirfd, name, f);
	return f->info_err;
}

/* Paths: directory, device or named pipe? One stat per distinct path and
 * read (a process often holds many fds on the same file). */
#define STAT_CACHE 1024
struct stat_cache {
	unsigned long long key[STAT_CACHE];
	unsigned char type[STAT_CACHE];
};

static unsigned long long fnv(const char *s)
{
	unsigned long long h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h | 1; /* 0 marks an empty slot */
}

static enum proc_fd_type path_type(struct stat_cache *c, int fdd, const char *name, const struct proc_fd *f)
{
	unsigned long long k = fnv(f->target);
	size_t i = k % STAT_CACHE;
	enum proc_fd_type t = FDT_FILE;
	struct stat sb;

	if (f->info_err == 0 && (f->info.flags & O_DIRECTORY))
		return FDT_DIR;
	if (c->key[i] == k)
		return (enum proc_fd_type)c->type[i];
	if (fstatat(fdd, name, &sb, 0) == 0) {
		if (S_ISDIR(sb.st_mode))
			t = FDT_DIR;
		else if (S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode))
			t = FDT_DEVICE;
		else if (S_ISFIFO(sb.st_mode))
			t = FDT_FIFO;
	}
	c->key[i] = k;
	c->type[i] = (unsigned char)t;
	return t;
}

struct linux_dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#define DENTS_BUF (512 * 1024)

/* readlink of one fd: the bulk of the cost (a lookup and a ptrace access
 * check in the kernel, several microseconds each). */
static int read_link(int fdd, struct proc_fd *f)
{
	char name[16];
	snprintf(name, sizeof(name), "%d", f->fd);
	ssize_t ln = readlinkat(fdd, name, f->target, sizeof(f->target) - 1);
	if (ln < 0)
		return -errno; /* closed since getdents */
	f->target[ln] = '\0';
	return 0;
}

/* The fd numbers, in order (getdents64 with a big buffer: a few calls for
 * 10,000 fds). */
static int read_numbers(int fdd, struct proc_fd_list *out, size_t *np)
{
	size_t n = 0;
	bool sorted = true;
	long r;

	while ((r = syscall(SYS_getdents64, fdd, out->io, DENTS_BUF)) > 0) {
		for (long off = 0; off < r;) {
			struct linux_dirent64 *de = (struct linux_dirent64 *)(out->io + off);
			off += de->d_reclen;
			if (de->d_name[0] < '0' || de->d_name[0] > '9')
				continue;
			if (array_reserve((void **)&out->v, &out->cap, n, sizeof(*out->v), 64) < 0)
				return -ENOMEM;
			out->v[n].fd = atoi(de->d_name);
			sorted = sorted && (!n || out->v[n - 1].fd < out->v[n].fd);
			n++;
		}
	}
	if (!sorted) /* the kernel lists them in order; the merge relies on it */
		sort_array(out->v, n, sizeof(*out->v), cmp_fd);
	*np = n;
	return r < 0 && !n ? -errno : 0;
}

int proc_fd_read(int dirfd, struct proc_fd_list *out, unsigned flags)
{
	int fdd = openat(dirfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int infd = -1, err = 0;
	struct stat_cache *cache = NULL;
	size_t n = 0, nprev = 0, j = 0;
	bool reuse = (flags & PROC_FD_CACHED) && out->round > 0;
	unsigned turn = out->round % PROC_FD_RECHECK;

	if (fdd < 0) {
		out->n = 0;
		memset(out->count, 0, sizeof(out->count));
		return -errno;
	}
	if (reuse) { /* keep the previous read to take unchanged entries from */
		struct proc_fd *t = out->prev;
		size_t tc = out->prev_cap;
		out->prev = out->v;
		out->prev_cap = out->cap;
		out->v = t;
		out->cap = tc;
		nprev = out->n;
	}
	out->n = 0;
	memset(out->count, 0, sizeof(out->count));
	if (flags & PROC_FD_INFO)
		infd = openat(dirfd, "fdinfo", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!out->io)
		out->io = malloc(DENTS_BUF);
	cache = calloc(1, sizeof(*cache));
	if (!out->io || !cache) {
		err = -ENOMEM;
		goto done;
	}
	err = read_numbers(fdd, out, &n);
	if (err)
		goto done;
	out->round++;
	for (size_t i = 0; i < n; i++) {
		struct proc_fd *f = &out->v[out->n];
		int fd = out->v[i].fd;
		char name[16];
		bool fresh = true;

		while (j < nprev && out->prev[j].fd < fd) /* both sorted by fd */
			j++;
		if (j < nprev && out->prev[j].fd == fd && (unsigned)fd % PROC_FD_RECHECK != turn) {
			*f = out->prev[j];
			fresh = false;
		} else {
			f->fd = fd;
			if (read_link(fdd, f) < 0)
				continue;
			f->type = proc_fd_classify(f->target, &f->deleted, &f->ino);
		}
		snprintf(name, sizeof(name), "%d", fd);
		memset(&f->info, 0, sizeof(f->info));
		f->info_err = infd >= 0 ? read_info_at(infd, name, f) : -EAGAIN;
		if (fresh && f->type == FDT_FILE && !f->deleted)
			f->type = path_type(cache, fdd, name, f);
		out->count[f->type]++;
		out->n++;
	}
done:
	free(cache);
	close(fdd);
	if (infd >= 0)
		close(infd);
	return err;
}

void proc_fd_list_free(struct proc_fd_list *l)
{
	free(l->v);
	free(l->io);
	free(l->prev);
	l->v = NULL;
	l->io = NULL;
	l->prev = NULL;
	l->n = l->cap = l->prev_cap = 0;
	l->round = 0;
}

struct ino_fd {
	unsigned long long ino;
	int fd;
};

static int cmp_ino_fd(const void *a, const void *b)
{
	const struct ino_fd *x = a, *y = b;
	return (x->ino > y->ino) - (x->ino < y->ino);
}

/* Unix peers: sock_diag gives the peer's inode; when it is one of this
 * process's fds (a socketpair), name that fd. */
static void map_unix_peers(const struct proc_fd_list *l, struct proc_net *net)
{
	struct ino_fd *idx = malloc(l->count[FDT_SOCKET] * sizeof(*idx));
	size_t k = 0;

	if (!idx)
		return;
	for (size_t i = 0; i < l->n && k < l->count[FDT_SOCKET]; i++)
		if (l->v[i].type == FDT_SOCKET)
			idx[k++] = (struct ino_fd){ l->v[i].ino, l->v[i].fd };
	sort_array(idx, k, sizeof(*idx), cmp_ino_fd);
	for (size_t i = 0; i < net->n; i++) {
		struct ino_fd key = { net->v[i].peer_ino, 0 }, *hit = NULL;
		if (net->v[i].peer_ino)
			hit = bsearch(&key, idx, k, sizeof(*idx), cmp_ino_fd);
		net->v[i].peer_fd = hit ? hit->fd : -1;
	}
	free(idx);
}

static void link_unix_peers(int dirfd, const struct proc_fd_list *l, struct proc_net *net)
{
	bool have_unix = false;

	for (size_t i = 0; i < l->n && !have_unix; i++) {
		const struct proc_sock *s = l->v[i].type == FDT_SOCKET ? proc_net_find(net, l->v[i].ino) : NULL;
		have_unix = s && s->proto == NET_UNIX;
	}
	if (have_unix && proc_net_unix_peers(dirfd, net) == 0)
		map_unix_peers(l, net);
}

/* Does net (the previous read) know every socket of l? */
static bool knows_all(const struct proc_fd_list *l, const struct proc_net *net)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].type == FDT_SOCKET && !proc_net_find(net, l->v[i].ino))
			return false;
	return true;
}

int proc_fd_read_net(int dirfd, const struct proc_fd_list *l, struct proc_net *net)
{
	unsigned long long *want;
	size_t n = 0;
	int r;

	if (!l->count[FDT_SOCKET]) {
		net->n = 0;
		return 0;
	}
	/* The net files list every socket of the namespace (and sock_diag
	 * every unix socket): milliseconds with thousands. A socket seen
	 * before keeps its entry for a few calls; its state may lag. */
	if (net->n && net->kept + 1 < PROC_FD_RECHECK && knows_all(l, net)) {
		net->kept++;
		map_unix_peers(l, net);
		return 0;
	}
	net->kept = 0;
	net->n = 0;
	want = malloc(l->count[FDT_SOCKET] * sizeof(*want));
	if (!want)
		return -ENOMEM;
	for (size_t i = 0; i < l->n && n < l->count[FDT_SOCKET]; i++)
		if (l->v[i].type == FDT_SOCKET)
			want[n++] = l->v[i].ino;
	r = proc_net_read(dirfd, net, want, n);
	free(want);
	link_unix_peers(dirfd, l, net);
	return r;
}

static bool any_addr(const char *a)
{
	return !strcmp(a, "0.0.0.0:0") || !strcmp(a, "[::]:0");
}

const char *proc_fd_describe(const struct proc_fd *f, const struct proc_net *net, char *buf, size_t size)
{
	const struct proc_sock *s = f->type == FDT_SOCKET && net ? proc_net_find(net, f->ino) : NULL;

	if (s && s->ambiguous)
		snprintf(buf, size, _("%s (ambiguous: /proc/net/%s lists this inode twice, a socket name forged a line)"),
			 f->target, proc_net_proto_name(s->proto));
	else if (s && s->proto == NET_NETLINK)
		snprintf(buf, size, "netlink %s %s", proc_netlink_family(s), s->local);
	else if (s && s->proto == NET_UNIX) {
		char peer[48] = "";
		if (s->peer_fd >= 0)
			snprintf(peer, sizeof(peer), " -> fd %d", s->peer_fd);
		else if (s->peer_ino)
			snprintf(peer, sizeof(peer), " -> socket:[%llu]", s->peer_ino);
		snprintf(buf, size, "unix %s %s%s%s%s", proc_sock_unix_type(s), s->local[0] ? s->local : "",
			 s->local[0] ? " " : "", proc_sock_state(s), peer);
	}
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
