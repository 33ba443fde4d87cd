#include "proc/ptable.h"
#include "proc/ptable-priv.h"
#include "proc/stat.h"
#include "proc/sysinfo.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMDLINE_MAX 4096
/* CPU time (ticks, all CPUs) the lazy scan tolerates as not accounted for
 * by the processes it read: the kernel's tick accounting and the per-task
 * times differ by a tick or two per interval. */
#define LAZY_SLACK_TICKS 3

struct user_ent {
	uid_t uid;
	char name[33];
};

struct ptable {
	struct proc_row *rows;
	size_t n, cap;
	int *hash;                 /* open addressing: row index + 1, 0 = empty */
	size_t hcap;
	DIR *proc;
	unsigned gen;
	uint64_t last_ns;
	double interval;
	long hz, page_kb;
	unsigned long long mem_total_kb;
	int nfds, maxfds;          /* held stat fds and the list's fd budget */
	unsigned fd_misses;        /* reads by path this scan for want of budget */
	struct user_ent **users;
	size_t nusers;
	struct ptable_counts counts;
	/* the lazy scan (ptable_scan) */
	bool lazy, have_busy, have_la;
	unsigned long long busy_prev, accounted;
	struct sys_loadavg la;
	size_t nskipped;
	struct ptable_stats stats;
	unsigned long long btime;
};

/* ---- sort keys ---- */

static const struct {
	const char *name, *title;
	bool desc;
	unsigned px;
} sort_keys[PSORT_COUNT] = {
	[PSORT_PID] = { "pid", "PID", false, 0 },       [PSORT_USER] = { "user", "USER", false, 0 },
	[PSORT_PRI] = { "pri", "PRI", false, 0 },       [PSORT_NI] = { "ni", "NI", false, 0 },
	[PSORT_VIRT] = { "virt", "VIRT", true, 0 },     [PSORT_RES] = { "res", "RES", true, 0 },
	[PSORT_SHR] = { "shr", "SHR", true, 0 },        [PSORT_STATE] = { "state", "S", false, 0 },
	[PSORT_CPU] = { "cpu", "CPU%", true, 0 },       [PSORT_MEM] = { "mem", "MEM%", true, 0 },
	[PSORT_TIME] = { "time", "TIME+", true, 0 },    [PSORT_COMMAND] = { "command", "COMMAND", false, 0 },
	[PSORT_PPID] = { "ppid", "PPID", false, 0 },    [PSORT_PGRP] = { "pgrp", "PGRP", false, 0 },
	[PSORT_SID] = { "sid", "SID", false, 0 },       [PSORT_TTY] = { "tty", "TTY", false, 0 },
	[PSORT_NLWP] = { "nlwp", "NLWP", true, 0 },     [PSORT_PROCESSOR] = { "processor", "CPU#", false, 0 },
	[PSORT_STARTTIME] = { "starttime", "START", false, 0 },
	[PSORT_IO_READ] = { "io_read_rate", "IO_READ_RATE", true, PX_IO },
	[PSORT_IO_WRITE] = { "io_write_rate", "IO_WRITE_RATE", true, PX_IO },
	[PSORT_MAJFLT] = { "majflt", "MAJFLT", true, 0 },
	[PSORT_CTXT] = { "ctxt", "CTXT/s", true, PX_CTXT },
	[PSORT_OOM] = { "oom", "OOM", true, PX_OOM },
	[PSORT_CGROUP] = { "cgroup", "CGROUP", false, PX_CGROUP },
	[PSORT_CONTAINER] = { "container", "CONTAINER", false, PX_CGROUP },
};

unsigned proc_sort_extra(enum proc_sort k)
{
	return (unsigned)k < PSORT_COUNT ? sort_keys[k].px : 0;
}

const char *proc_sort_title(enum proc_sort k)
{
	return (unsigned)k < PSORT_COUNT ? sort_keys[k].title : "?";
}

const char *proc_sort_name(enum proc_sort k)
{
	return (unsigned)k < PSORT_COUNT ? sort_keys[k].name : "?";
}

int proc_sort_parse(const char *s)
{
	if (!s)
		return -1;
	for (int i = 0; i < PSORT_COUNT; i++)
		if (!strcasecmp(s, sort_keys[i].name) || !strcasecmp(s, sort_keys[i].title))
			return i;
	if (!strcasecmp(s, "s") || !strcasecmp(s, "nice"))
		return !strcasecmp(s, "s") ? PSORT_STATE : PSORT_NI;
	return -1;
}

bool proc_sort_desc_default(enum proc_sort k)
{
	return (unsigned)k < PSORT_COUNT && sort_keys[k].desc;
}

/* ---- users ---- */

static const char *user_name(struct ptable *pt, uid_t uid)
{
	for (size_t i = 0; i < pt->nusers; i++)
		if (pt->users[i]->uid == uid)
			return pt->users[i]->name;
	struct user_ent *u = calloc(1, sizeof(*u));
	struct user_ent **nu = realloc(pt->users, (pt->nusers + 1) * sizeof(*nu));
	if (!u || !nu) {
		free(u);
		if (nu)
			pt->users = nu;
		return "?";
	}
	pt->users = nu;
	u->uid = uid;
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res)
		strlcpy_ps(u->name, res->pw_name, sizeof(u->name));
	else
		snprintf(u->name, sizeof(u->name), "%u", (unsigned)uid);
	pt->users[pt->nusers++] = u;
	return u->name;
}

/* ---- the pid -> row hash ---- */

static size_t hslot(const struct ptable *pt, pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (pt->hcap - 1);
}

static int hash_rebuild(struct ptable *pt)
{
	size_t want = 1024;
	while (want < pt->n * 2 + 16)
		want *= 2;
	if (want != pt->hcap) {
		int *h = realloc(pt->hash, want * sizeof(*h));
		if (!h)
			return -ENOMEM;
		pt->hash = h;
		pt->hcap = want;
	}
	memset(pt->hash, 0, pt->hcap * sizeof(*pt->hash));
	for (size_t i = 0; i < pt->n; i++) {
		size_t s = hslot(pt, pt->rows[i].pid);
		while (pt->hash[s])
			s = (s + 1) & (pt->hcap - 1);
		pt->hash[s] = (int)i + 1;
	}
	return 0;
}

static long hash_find(const struct ptable *pt, pid_t pid)
{
	if (!pt->hcap)
		return -1;
	for (size_t s = hslot(pt, pid); pt->hash[s]; s = (s + 1) & (pt->hcap - 1))
		if (pt->rows[pt->hash[s] - 1].pid == pid)
			return pt->hash[s] - 1;
	return -1;
}

static int hash_add(struct ptable *pt, size_t idx)
{
	if ((pt->n + 1) * 2 > pt->hcap)
		return hash_rebuild(pt); /* n already counts idx */
	size_t s = hslot(pt, pt->rows[idx].pid);
	while (pt->hash[s])
		s = (s + 1) & (pt->hcap - 1);
	pt->hash[s] = (int)idx + 1;
	return 0;
}

/* ---- table ---- */

/* btime from /proc/stat: STARTTIME is boot time + starttime ticks. */
static unsigned long long read_btime(void)
{
	char buf[8192];
	ssize_t n = read_file_at(AT_FDCWD, "/proc/stat", buf, sizeof(buf));
	const char *p = n > 0 ? strstr(buf, "\nbtime ") : NULL;
	return p ? strtoull(p + 7, NULL, 10) : 0;
}

unsigned long long ptable_btime(const struct ptable *pt)
{
	return pt->btime;
}

int ptable_dirfd_(const struct ptable *pt)
{
	return dirfd(pt->proc);
}

unsigned ptable_gen_(const struct ptable *pt)
{
	return pt->gen;
}

struct ptable *ptable_new(void)
{
	struct ptable *pt = calloc(1, sizeof(*pt));
	struct sys_meminfo mi;
	struct rlimit rl;

	if (!pt)
		return NULL;
	pt->proc = opendir("/proc");
	if (!pt->proc || hash_rebuild(pt) < 0) {
		ptable_free(pt);
		return NULL;
	}
	pt->hz = proc_hz();
	pt->page_kb = sysconf(_SC_PAGESIZE) / 1024;
	if (pt->page_kb <= 0)
		pt->page_kb = 4;
	if (sys_meminfo_read(&mi) == 0)
		pt->mem_total_kb = mi.total;
	pt->btime = read_btime();
	/* Holding /proc/PID/stat open and re-reading it with pread costs one
	 * syscall per process per refresh instead of four. The list's budget
	 * is a quarter of the soft limit, at most PTABLE_FD_BUDGET: the
	 * processes read most recently keep theirs, the rest are read by path
	 * (the least recently used fds are closed first), and the panes, the
	 * sampler and the symbolizer keep the other three quarters. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
		if (rl.rlim_cur < want) {
			rl.rlim_cur = want;
			setrlimit(RLIMIT_NOFILE, &rl);
			getrlimit(RLIMIT_NOFILE, &rl);
		}
		rlim_t q = rl.rlim_cur == RLIM_INFINITY ? PTABLE_FD_BUDGET : rl.rlim_cur / 4;
		pt->maxfds = q > PTABLE_FD_BUDGET ? PTABLE_FD_BUDGET : (int)q;
	}
	return pt;
}

static void row_release(struct ptable *pt, struct proc_row *r)
{
	if (r->fd >= 0) {
		close(r->fd);
		pt->nfds--;
	}
	free(r->cmdline);
	free(r->cgroup);
	r->fd = -1;
	r->cmdline = NULL;
	r->cgroup = NULL;
}

void ptable_free(struct ptable *pt)
{
	if (!pt)
		return;
	for (size_t i = 0; i < pt->n; i++)
		row_release(pt, &pt->rows[i]);
	for (size_t i = 0; i < pt->nusers; i++)
		free(pt->users[i]);
	free(pt->users);
	free(pt->rows);
	free(pt->hash);
	if (pt->proc)
		closedir(pt->proc);
	free(pt);
}

long proc_hz(void)
{
	long hz = sysconf(_SC_CLK_TCK);
	return hz > 0 ? hz : 100;
}

static void read_cmdline(struct ptable *pt, struct proc_row *r, int dirfd, const char *path)
{
	char raw[CMDLINE_MAX], clean[CMDLINE_MAX];
	ssize_t n = read_file_at(dirfd, path, raw, sizeof(raw));

	free(r->cmdline);
	r->cmdline = NULL;
	if (n > 0 && proc_cmdline_parse(raw, (size_t)n, clean, sizeof(clean)) > 0)
		r->cmdline = strdup(clean);
}

/* Fill r's numbers from a parsed stat. */
static void row_from_stat(struct ptable *pt, struct proc_row *r, const struct proc_stat *st,
			  unsigned long long prev_ticks, bool have_prev, uint64_t now)
{
	double dt = have_prev && r->read_ns && now > r->read_ns ? (double)(now - r->read_ns) / 1e9 : 0;

	r->ppid = st->ppid;
	r->state = st->state;
	r->priority = st->priority;
	r->nice = st->nice;
	r->nlwp = st->num_threads;
	r->virt_kb = st->vsize / 1024;
	r->res_kb = st->rss > 0 ? (unsigned long long)st->rss * (unsigned long long)pt->page_kb : 0;
	r->ticks = (unsigned long long)st->utime + st->stime;
	r->cticks = (unsigned long long)(st->cutime > 0 ? st->cutime : 0) + (unsigned long long)(st->cstime > 0 ? st->cstime : 0);
	r->processor = st->processor;
	r->pgrp = st->pgrp;
	r->session = st->session;
	r->tty_nr = st->tty_nr;
	r->majflt = st->majflt;
	r->is_kthread = (st->flags & PROC_PF_KTHREAD) != 0;
	r->cpu = 0;
	if (dt > 0 && r->ticks >= prev_ticks)
		r->cpu = (double)(r->ticks - prev_ticks) * 100.0 / (double)pt->hz / dt;
	r->read_ns = now;
	r->mem = pt->mem_total_kb ? (double)r->res_kb * 100.0 / (double)pt->mem_total_kb : 0;
}

static int cmp_read_ns(const void *a, const void *b)
{
	const struct proc_row *const *x = a, *const *y = b;
	return (*x)->read_ns < (*y)->read_ns ? -1 : (*x)->read_ns > (*y)->read_ns;
}

/* Close the held stat fds of the n rows read least recently, of those
 * last read before `before` (ns). */
static void evict_lru(struct ptable *pt, unsigned n, uint64_t before)
{
	struct proc_row **v = malloc((size_t)(pt->nfds > 0 ? pt->nfds : 1) * sizeof(*v));
	size_t k = 0;

	if (!v)
		return;
	for (size_t i = 0; i < pt->n && k < (size_t)pt->nfds; i++)
		if (pt->rows[i].fd >= 0 && pt->rows[i].read_ns < before)
			v[k++] = &pt->rows[i];
	qsort(v, k, sizeof(*v), cmp_read_ns);
	for (size_t i = 0; i < k && i < n; i++) {
		close(v[i]->fd);
		v[i]->fd = -1;
		pt->nfds--;
	}
	free(v);
}

/* openat that never leaves the list without a file: when the process runs
 * out of fds (EMFILE, or ENFILE machine-wide), the list gives back half of
 * the fds it holds, lowers its budget to what it keeps, and tries again. */
static int open_at(struct ptable *pt, int dfd, const char *path, int flags)
{
	int fd = openat(dfd, path, flags);

	if (fd < 0 && (errno == EMFILE || errno == ENFILE) && pt->nfds > 0) {
		evict_lru(pt, (unsigned)(pt->nfds + 1) / 2, UINT64_MAX);
		pt->maxfds = pt->nfds;
		fd = openat(dfd, path, flags);
	}
	return fd < 0 ? -errno : fd;
}

/* A stat fd opened by path: kept while the budget allows, else closed
 * (and counted: the scan's end frees the least recently used). */
static void keep_fd(struct ptable *pt, struct proc_row *r, int fd)
{
	if (pt->nfds < pt->maxfds) {
		r->fd = fd;
		pt->nfds++;
	} else {
		close(fd);
		pt->fd_misses++;
	}
}

/* Read the stat of a known process through its held fd (or by path). */
static int read_stat(struct ptable *pt, struct proc_row *r, const char *name, struct proc_stat *st)
{
	char buf[1024], path[64];
	ssize_t n;

	if (r->fd >= 0) {
		n = pread(r->fd, buf, sizeof(buf) - 1, 0);
		if (n < 0)
			return -errno;
		buf[n] = '\0';
	} else {
		int fd;
		snprintf(path, sizeof(path), "%s/stat", name);
		fd = open_at(pt, dirfd(pt->proc), path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fd;
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			int err = -errno;
			close(fd);
			return err;
		}
		buf[n] = '\0';
		keep_fd(pt, r, fd);
	}
	if (n == 0)
		return -ESRCH;
	return proc_stat_parse(buf, (size_t)n, st);
}

static struct proc_row *row_append(struct ptable *pt)
{
	if (array_reserve((void **)&pt->rows, &pt->cap, pt->n, sizeof(*pt->rows), 512) < 0)
		return NULL;
	struct proc_row *r = &pt->rows[pt->n++];
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	return r;
}

/* Open a process seen for the first time (or a pid reused since). r is
 * zeroed except for fd. Returns 0 or -errno (the process is gone). */
static int row_open(struct ptable *pt, struct proc_row *r, pid_t pid, const char *name, uint64_t now)
{
	struct proc_stat st;
	struct stat sb;
	char buf[1024];
	ssize_t n;
	int dfd = open_at(pt, dirfd(pt->proc), name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return dfd;
	if (fstat(dfd, &sb) < 0) {
		int err = -errno;
		close(dfd);
		return err;
	}
	int fd = open_at(pt, dfd, "stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (n = pread(fd, buf, sizeof(buf) - 1, 0)) <= 0) {
		int err = fd < 0 ? fd : -ESRCH;
		if (fd >= 0)
			close(fd);
		close(dfd);
		return err;
	}
	buf[n] = '\0';
	if (proc_stat_parse(buf, (size_t)n, &st) < 0) {
		close(fd);
		close(dfd);
		return -ESRCH;
	}
	r->pid = r->tgid = pid;
	r->starttime = st.starttime;
	r->uid = sb.st_uid;
	r->user = user_name(pt, sb.st_uid);
	strlcpy_ps(r->comm, st.comm, sizeof(r->comm));
	row_from_stat(pt, r, &st, 0, false, now);
	r->fresh = true;
	pt->stats.reads++;
	pt->accounted += r->ticks + r->cticks; /* a newcomer: its life so far */
	if (!r->is_kthread)
		read_cmdline(pt, r, dfd, "cmdline");
	keep_fd(pt, r, fd);
	close(dfd);
	return 0;
}

/* Re-read a known process. False when it is gone or its pid was reused. */
static bool row_refresh(struct ptable *pt, struct proc_row *r, const char *name, uint64_t now)
{
	struct proc_stat st;

	if (r->is_thread || read_stat(pt, r, name, &st) < 0 || st.starttime != r->starttime)
		return false;
	unsigned long long prev = r->ticks, cprev = r->cticks;
	r->fresh = false;
	row_from_stat(pt, r, &st, prev, true, now);
	pt->stats.reads++;
	/* Children reaped since count too: their time moved to cutime. */
	unsigned long long d = (r->ticks > prev ? r->ticks - prev : 0) + (r->cticks > cprev ? r->cticks - cprev : 0);
	pt->accounted += d;
	if (d)
		r->idle = 0;
	else if (r->idle < 255)
		r->idle++;
	/* exec renames: read the new command line; a changed owner (setuid
	 * exec, dropped privileges) shows too. */
	bool renamed = strcmp(r->comm, st.comm) != 0;
	if (renamed) {
		char path[64];
		strlcpy_ps(r->comm, st.comm, sizeof(r->comm));
		snprintf(path, sizeof(path), "%s/cmdline", name);
		read_cmdline(pt, r, dirfd(pt->proc), path);
	}
	if (renamed || (unsigned)(r->pid + pt->gen) % 16 == 0) {
		struct stat sb;
		if (fstatat(dirfd(pt->proc), name, &sb, 0) == 0 && sb.st_uid != r->uid) {
			r->uid = sb.st_uid;
			r->user = user_name(pt, sb.st_uid);
		}
	}
	return true;
}

/* A process that used no CPU (nor reaped a child) in its last two reads is
 * read every eighth scan only, unless the CPU time the system spent is not
 * accounted for by the processes read (see ptable_scan). */
static bool lazy_skip(const struct ptable *pt, const struct proc_row *r)
{
	return pt->lazy && r->idle >= 2 && (unsigned)(r->pid + pt->gen) % 8 != 0;
}

static void scan_process(struct ptable *pt, pid_t pid, const char *name, uint64_t now)
{
	long idx = hash_find(pt, pid);

	if (idx >= 0) {
		struct proc_row *r = &pt->rows[idx];
		if (!r->is_thread && lazy_skip(pt, r)) {
			r->gen = r->skip_gen = pt->gen;
			pt->nskipped++;
			return;
		}
		if (row_refresh(pt, r, name, now)) {
			r->gen = pt->gen;
			return;
		}
		/* Gone, or the pid now names another process (or a thread
		 * row's tid became a process): start the row afresh. */
		row_release(pt, r);
		memset(r, 0, sizeof(*r));
		r->fd = -1;
		r->pid = pid; /* keep the hash slot valid */
		if (row_open(pt, r, pid, name, now) == 0)
			r->gen = pt->gen;
		return;
	}
	struct proc_row *r = row_append(pt);
	if (!r)
		return;
	if (row_open(pt, r, pid, name, now) < 0) {
		pt->n--; /* vanished: normal */
		return;
	}
	r->gen = pt->gen;
	hash_add(pt, (size_t)(r - pt->rows));
}

/* user + nice + system ticks of all CPUs, from the first line of /proc/stat. */
static int read_busy(unsigned long long *busy)
{
	char buf[512];
	struct sys_cpu_times t;
	ssize_t n = read_file_at(AT_FDCWD, "/proc/stat", buf, sizeof(buf));

	if (n < 5 || strncmp(buf, "cpu ", 4))
		return -EINVAL;
	if (sscanf(buf + 4, "%llu %llu %llu", &t.user, &t.nice, &t.system) != 3)
		return -EINVAL;
	*busy = t.user + t.nice + t.system;
	return 0;
}

/* Thread rows of one process: task/TID/stat, read by path (not held). */
static void scan_threads(struct ptable *pt, pid_t tgid)
{
	char path[64];
	int tfd;
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%d/task", (int)tgid);
	tfd = openat(dirfd(pt->proc), path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0)
		return;
	d = fdopendir(tfd);
	if (!d) {
		close(tfd);
		return;
	}
	while ((de = readdir(d))) {
		char spath[64], buf[1024];
		struct proc_stat st;
		pid_t tid;
		ssize_t n;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tid = (pid_t)atoi(de->d_name);
		if (tid == tgid)
			continue;
		snprintf(spath, sizeof(spath), "%d/stat", (int)tid);
		n = read_file_at(dirfd(d), spath, buf, sizeof(buf));
		if (n <= 0 || proc_stat_parse(buf, (size_t)n, &st) < 0)
			continue; /* thread exited */
		/* the owner may have been appended: look it up each time */
		long pidx = hash_find(pt, tgid);
		if (pidx < 0)
			break;
		long idx = hash_find(pt, tid);
		struct proc_row *r;
		bool have_prev = false;
		unsigned long long prev = 0;
		if (idx >= 0 && pt->rows[idx].is_thread && pt->rows[idx].tgid == tgid &&
		    pt->rows[idx].starttime == st.starttime) {
			r = &pt->rows[idx];
			prev = r->ticks;
			have_prev = true;
			r->fresh = false;
		} else if (idx >= 0) {
			continue; /* the tid is still a process row this scan */
		} else {
			if (!(r = row_append(pt)))
				break;
			r->fresh = true;
			hash_add(pt, (size_t)(r - pt->rows));
		}
		const struct proc_row *owner = &pt->rows[pidx];
		r->pid = tid;
		r->tgid = tgid;
		r->is_thread = true;
		r->starttime = st.starttime;
		r->uid = owner->uid;
		r->user = owner->user;
		strlcpy_ps(r->comm, st.comm, sizeof(r->comm));
		row_from_stat(pt, r, &st, prev, have_prev, now_ns());
		r->ppid = tgid;
		r->gen = pt->gen;
	}
	closedir(d);
}

int ptable_scan(struct ptable *pt, bool threads, struct ps_error *e)
{
	struct dirent *de;
	struct sys_loadavg la;
	uint64_t now = now_ns();
	unsigned long long busy = 0;
	bool dir = true, have_busy;
	size_t nproc;

	pt->gen++;
	pt->interval = pt->last_ns ? (double)(now - pt->last_ns) / 1e9 : 0;
	pt->last_ns = now;
	pt->accounted = 0;
	pt->nskipped = 0;
	have_busy = read_busy(&busy) == 0;
	/* Thread rows need every process's thread count: no skipping then. */
	pt->lazy = have_busy && pt->have_busy && !threads;
	/* No pid allocated and no task released since the last scan (the
	 * last pid and the task count of /proc/loadavg are unchanged): the
	 * set of processes is the same, no need to list /proc. */
	if (sys_loadavg_read(&la) == 0) {
		dir = !pt->have_la || la.last_pid != pt->la.last_pid || la.total != pt->la.total;
		pt->la = la;
		pt->have_la = true;
	}
	if (dir) {
		pt->stats.dir_scans++;
		rewinddir(pt->proc);
		for (;;) {
			errno = 0; /* readdir sets it only on failure */
			if (!(de = readdir(pt->proc)))
				break;
			if (isdigit((unsigned char)de->d_name[0]))
				scan_process(pt, (pid_t)atoi(de->d_name), de->d_name, now);
		}
		if (errno)
			return ps_error_set(e, errno, "cannot list /proc: %s", strerror(errno));
	} else {
		for (size_t i = 0, n = pt->n; i < n; i++) {
			char name[16];
			if (pt->rows[i].is_thread)
				continue;
			snprintf(name, sizeof(name), "%d", (int)pt->rows[i].pid);
			scan_process(pt, pt->rows[i].pid, name, now);
		}
	}
	/* Closing the books: the CPU time the system spent from the start of
	 * the last scan to the end of this one covers every delta read; minus
	 * what the processes read account for, it bounds what the skipped ones
	 * can have used. More than a little: read them all. */
	unsigned long long busy_end = 0;
	if (pt->nskipped && have_busy && read_busy(&busy_end) == 0) {
		/* A process gone since the last scan: if its parent was read,
		 * the parent's cutime now holds the child's whole life, of
		 * which all but the last moments were counted before. */
		unsigned long long gone = 0;
		for (size_t i = 0; i < pt->n; i++) {
			const struct proc_row *r = &pt->rows[i];
			if (r->gen == pt->gen || r->is_thread)
				continue;
			long pi = hash_find(pt, r->ppid);
			if (pi >= 0 && pt->rows[pi].gen == pt->gen && pt->rows[pi].skip_gen != pt->gen)
				gone += r->ticks;
		}
		long long unacc = (long long)(busy_end - pt->busy_prev) - (long long)pt->accounted + (long long)gone;
		pt->stats.skipped += pt->nskipped;
		if (unacc > LAZY_SLACK_TICKS) {
			pt->stats.full_passes++;
			for (size_t i = 0, n = pt->n; i < n; i++) {
				struct proc_row *r = &pt->rows[i];
				char name[16];
				if (r->skip_gen != pt->gen || r->is_thread)
					continue;
				snprintf(name, sizeof(name), "%d", (int)r->pid);
				if (!row_refresh(pt, r, name, now))
					r->gen = 0; /* gone: dropped below */
			}
		}
	}
	if (have_busy) {
		pt->busy_prev = busy;
		pt->have_busy = true;
	}
	nproc = pt->n;
	if (threads)
		for (size_t i = 0; i < nproc; i++) {
			struct proc_row *r = &pt->rows[i];
			if (!r->is_thread && r->gen == pt->gen && r->nlwp > 1 && !r->is_kthread)
				scan_threads(pt, r->pid);
		}

	/* Drop what was not seen (exited, or threads no longer wanted). */
	size_t o = 0;
	memset(&pt->counts, 0, sizeof(pt->counts));
	for (size_t i = 0; i < pt->n; i++) {
		struct proc_row *r = &pt->rows[i];
		if (r->gen != pt->gen) {
			row_release(pt, r);
			continue;
		}
		if (r->is_kthread)
			pt->counts.kthreads++;
		else if (!r->is_thread) {
			pt->counts.procs++;
			pt->counts.threads += (int)r->nlwp;
		}
		if (r->state == 'R' && (threads || !r->is_thread))
			pt->counts.running++;
		if (o != i)
			pt->rows[o] = *r;
		o++;
	}
	pt->n = o;
	/* Processes read by path for want of budget: those not read in this
	 * scan (idle, skipped) give their fds up, least recently read first,
	 * so the busy ones hold them next time. */
	if (pt->fd_misses && pt->nfds >= pt->maxfds) {
		int before = pt->nfds;
		evict_lru(pt, pt->fd_misses, now);
		pt->stats.fd_evictions += (unsigned long)(before - pt->nfds);
	}
	pt->fd_misses = 0;
	return hash_rebuild(pt);
}

int ptable_fds(const struct ptable *pt, int *budget)
{
	if (budget)
		*budget = pt->maxfds;
	return pt->nfds;
}

double ptable_interval(const struct ptable *pt)
{
	return pt->interval;
}

size_t ptable_size(const struct ptable *pt)
{
	return pt->n;
}

struct proc_row *ptable_row(struct ptable *pt, size_t i)
{
	return i < pt->n ? &pt->rows[i] : NULL;
}

struct proc_row *ptable_find(struct ptable *pt, pid_t pid)
{
	long i = hash_find(pt, pid);
	return i >= 0 ? &pt->rows[i] : NULL;
}

void ptable_stats(const struct ptable *pt, struct ptable_stats *s)
{
	*s = pt->stats;
}

void ptable_counts(const struct ptable *pt, struct ptable_counts *c)
{
	*c = pt->counts;
}

void ptable_set_mem_total(struct ptable *pt, unsigned long long kb)
{
	if (kb)
		pt->mem_total_kb = kb;
}

void ptable_fill_shr(struct ptable *pt, struct proc_row *r)
{
	char path[64];
	struct proc_statm sm;

	if (r->shr_gen == pt->gen)
		return;
	r->shr_gen = pt->gen;
	if (r->is_thread)
		snprintf(path, sizeof(path), "%d/task/%d/statm", (int)r->tgid, (int)r->pid);
	else
		snprintf(path, sizeof(path), "%d/statm", (int)r->pid);
	char buf[256];
	ssize_t n = read_file_at(dirfd(pt->proc), path, buf, sizeof(buf));
	if (n > 0 && proc_statm_parse(buf, (size_t)n, &sm) == 0) {
		r->shr_kb = sm.shared * (unsigned long long)pt->page_kb;
		/* statm's resident is the exact sum; stat's rss field is an
		 * approximate per-CPU counter that can read below SHR. */
		r->res_kb = sm.resident * (unsigned long long)pt->page_kb;
		r->mem = pt->mem_total_kb ? (double)r->res_kb * 100.0 / (double)pt->mem_total_kb : 0;
	}
}

/* ---- order ---- */

struct order_ctx {
	enum proc_sort key;
	bool desc;
};

static int cmp_num(double a, double b)
{
	return a < b ? -1 : a > b ? 1 : 0;
}

static int state_rank(char s)
{
	/* R first, then D, then the rest alphabetically */
	return s == 'R' ? 0 : s == 'D' ? 1 : 2 + (unsigned char)s;
}

static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct proc_row *a = *(struct proc_row *const *)pa, *b = *(struct proc_row *const *)pb;
	const struct order_ctx *c = arg;
	int r = 0;

	switch (c->key) {
	case PSORT_PID: r = cmp_num(a->pid, b->pid); break;
	case PSORT_USER: r = strcmp(a->user, b->user); break;
	case PSORT_PRI: r = cmp_num(a->priority, b->priority); break;
	case PSORT_NI: r = cmp_num(a->nice, b->nice); break;
	case PSORT_VIRT: r = cmp_num(a->virt_kb, b->virt_kb); break;
	case PSORT_RES: r = cmp_num(a->res_kb, b->res_kb); break;
	case PSORT_SHR: r = cmp_num(a->shr_kb, b->shr_kb); break;
	case PSORT_STATE: r = cmp_num(state_rank(a->state), state_rank(b->state)); break;
	case PSORT_CPU: r = cmp_num(a->cpu, b->cpu); break;
	case PSORT_MEM: r = cmp_num(a->res_kb, b->res_kb); break;
	case PSORT_TIME: r = cmp_num(a->ticks, b->ticks); break;
	case PSORT_COMMAND: {
		const char *x = a->cmdline ? a->cmdline : a->comm, *y = b->cmdline ? b->cmdline : b->comm;
		r = strcmp(x, y);
		break;
	}
	case PSORT_PPID: r = cmp_num(a->ppid, b->ppid); break;
	case PSORT_PGRP: r = cmp_num(a->pgrp, b->pgrp); break;
	case PSORT_SID: r = cmp_num(a->session, b->session); break;
	case PSORT_TTY: r = cmp_num((unsigned)a->tty_nr, (unsigned)b->tty_nr); break;
	case PSORT_NLWP: r = cmp_num(a->nlwp, b->nlwp); break;
	case PSORT_PROCESSOR: r = cmp_num(a->processor, b->processor); break;
	case PSORT_STARTTIME: r = cmp_num(a->starttime, b->starttime); break;
	case PSORT_IO_READ: r = cmp_num(a->io_err ? -1 : a->io_read_rate, b->io_err ? -1 : b->io_read_rate); break;
	case PSORT_IO_WRITE: r = cmp_num(a->io_err ? -1 : a->io_write_rate, b->io_err ? -1 : b->io_write_rate); break;
	case PSORT_MAJFLT: r = cmp_num(a->majflt, b->majflt); break;
	case PSORT_CTXT: r = cmp_num(a->ctxt_rate, b->ctxt_rate); break;
	case PSORT_OOM: r = cmp_num(a->oom, b->oom); break;
	case PSORT_CGROUP: r = strcmp(a->cgroup ? a->cgroup : "", b->cgroup ? b->cgroup : ""); break;
	case PSORT_CONTAINER: r = strcmp(a->container, b->container); break;
	default: break;
	}
	if (c->desc)
		r = -r;
	return r ? r : cmp_num(a->pid, b->pid);
}

static int view_reserve(struct proc_view *v, size_t n)
{
	if (n <= v->cap)
		return 0;
	struct proc_row **nv = realloc(v->v, n * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	v->v = nv;
	v->cap = n;
	return 0;
}

void proc_view_free(struct proc_view *v)
{
	free(v->v);
	memset(v, 0, sizeof(*v));
}

int proc_view_index(const struct proc_view *v, pid_t pid)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i]->pid == pid)
			return (int)i;
	return -1;
}

/* Depth-first walk of the (already sorted) rows by parent. */
static int tree_order(struct ptable *pt, struct proc_row **sorted, size_t n, struct proc_row **out)
{
	long *parent = malloc(n * sizeof(long));
	size_t *first = calloc(n + 1, sizeof(size_t)), *kids = malloc(n * sizeof(size_t));
	size_t *fill = malloc((n + 1) * sizeof(size_t));
	struct { size_t idx, next; } *stack = malloc(n * sizeof(*stack));
	bool *done = calloc(n, sizeof(bool));
	long *pos = malloc(pt->n * sizeof(long)); /* table index -> sorted index */
	size_t o = 0;
	int rc = 0;

	if (!parent || !first || !kids || !fill || !stack || !done || !pos) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		pos[sorted[i] - pt->rows] = (long)i;
	for (size_t i = 0; i < n; i++) {
		const struct proc_row *r = sorted[i];
		pid_t pp = r->is_thread ? r->tgid : r->ppid;
		long ti = pp > 0 && pp != r->pid ? hash_find(pt, pp) : -1;
		parent[i] = ti >= 0 ? pos[ti] : -1;
		if (parent[i] >= 0)
			first[parent[i] + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	memcpy(fill, first, (n + 1) * sizeof(size_t));
	for (size_t i = 0; i < n; i++) /* children keep the sorted order */
		if (parent[i] >= 0)
			kids[fill[parent[i]]++] = i;

	/* Roots in sorted order; then anything a cycle left out. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t root = 0; root < n; root++) {
			if (done[root] || (pass == 0 && parent[root] >= 0))
				continue;
			size_t sp = 0;
			struct proc_row *rr = sorted[root];
			rr->depth = 0;
			rr->tree_last = true;
			rr->tree_more = 0;
			done[root] = true;
			out[o++] = rr;
			stack[sp].idx = root;
			stack[sp].next = first[root];
			sp++;
			while (sp) {
				size_t top = stack[sp - 1].idx;
				if (stack[sp - 1].next == first[top + 1]) {
					sp--;
					continue;
				}
				size_t k = kids[stack[sp - 1].next++];
				if (done[k])
					continue;
				struct proc_row *pr = sorted[top], *kr = sorted[k];
				done[k] = true;
				kr->depth = pr->depth + 1;
				kr->tree_last = stack[sp - 1].next == first[top + 1];
				kr->tree_more = pr->tree_more;
				if (pr->depth > 0 && pr->depth <= 32 && !pr->tree_last)
					kr->tree_more |= 1u << (pr->depth - 1);
				out[o++] = kr;
				stack[sp].idx = k;
				stack[sp].next = first[k];
				sp++;
			}
		}
out:
	free(parent);
	free(first);
	free(kids);
	free(fill);
	free(stack);
	free(done);
	free(pos);
	return rc;
}

int ptable_order(struct ptable *pt, enum proc_sort key, bool desc, bool tree,
		 bool (*keep)(const struct proc_row *r, void *arg), void *arg, struct proc_view *out)
{
	struct order_ctx c = { key, desc };
	struct proc_row **tmp = NULL;
	size_t n = pt->n, o = 0;

	if (view_reserve(out, n ? n : 1) < 0)
		return -ENOMEM;
	if (key == PSORT_SHR)
		for (size_t i = 0; i < n; i++)
			ptable_fill_shr(pt, &pt->rows[i]);
	if (proc_sort_extra(key)) /* sorting by it needs it for every row */
		for (size_t i = 0; i < n; i++)
			ptable_fill_extra(pt, &pt->rows[i], proc_sort_extra(key));
	for (size_t i = 0; i < n; i++)
		out->v[i] = &pt->rows[i];
	qsort_r(out->v, n, sizeof(*out->v), row_cmp, &c);
	if (tree && n) {
		tmp = malloc(n * sizeof(*tmp));
		if (!tmp || tree_order(pt, out->v, n, tmp) < 0) {
			free(tmp);
			return -ENOMEM;
		}
		memcpy(out->v, tmp, n * sizeof(*tmp));
		free(tmp);
	} else {
		for (size_t i = 0; i < n; i++) {
			out->v[i]->depth = 0;
			out->v[i]->tree_last = true;
			out->v[i]->tree_more = 0;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!keep || keep(out->v[i], arg))
			out->v[o++] = out->v[i];
	out->n = o;
	return 0;
}

/* ---- text ---- */

const char *proc_row_command(const struct proc_row *r, char *buf, size_t size)
{
	if (r->is_thread || !r->cmdline) {
		snprintf(buf, size, "%s", r->comm);
		return buf;
	}
	/* basename of argv[0]: the kernel's comm is its first 15 bytes */
	const char *a0 = r->cmdline, *end = strchr(a0, ' ');
	size_t a0len = end ? (size_t)(end - a0) : strlen(a0);
	const char *base = a0;
	for (const char *p = a0; p < a0 + a0len; p++)
		if (*p == '/')
			base = p + 1;
	size_t blen = (size_t)(a0 + a0len - base), clen = strlen(r->comm);
	bool same = clen > 0 && ((blen >= clen && !strncmp(base, r->comm, clen)) ||
				 (clen >= 15 && !strncmp(base, r->comm, clen < blen ? clen : blen)));
	/* interpreters: "python3 /x/app.py" with comm "app.py" */
	if (!same && clen && strstr(r->cmdline, r->comm))
		same = true;
	if (same)
		snprintf(buf, size, "%s", r->cmdline);
	else
		snprintf(buf, size, "%s\u2502%s", r->comm, r->cmdline);
	return buf;
}

bool proc_row_matches(const struct proc_row *r, const char *needle)
{
	if (!needle || !*needle)
		return true;
	if (strcasestr(r->comm, needle))
		return true;
	return r->cmdline && strcasestr(r->cmdline, needle);
}

const char *proc_fmt_kb(unsigned long long kb, char *buf, size_t size)
{
	if (kb < 100000)
		snprintf(buf, size, "%llu", kb);
	else if (kb / 1024 < 10000)
		snprintf(buf, size, "%lluM", kb / 1024);
	else if (kb < 100ull * 1024 * 1024)
		snprintf(buf, size, "%.1fG", (double)kb / (1024.0 * 1024.0));
	else if (kb / (1024 * 1024) < 10000)
		snprintf(buf, size, "%lluG", kb / (1024 * 1024));
	else
		snprintf(buf, size, "%lluT", kb / (1024ull * 1024 * 1024));
	return buf;
}

const char *proc_fmt_time(unsigned long long ticks, long hz, char *buf, size_t size)
{
	unsigned long long cs = ticks * 100 / (unsigned long long)hz;
	unsigned long long sec = cs / 100, min = sec / 60, hours = min / 60;

	if (hours == 0)
		snprintf(buf, size, "%llu:%02llu.%02llu", min, sec % 60, cs % 100);
	else if (hours < 100)
		snprintf(buf, size, "%lluh%02llu:%02llu", hours, min % 60, sec % 60);
	else
		snprintf(buf, size, "%lluh", hours);
	return buf;
}

const char *proc_fmt_pri(long pri, char *buf, size_t size)
{
	if (pri <= -100)
		snprintf(buf, size, "RT");
	else
		snprintf(buf, size, "%ld", pri);
	return buf;
}

/* ---- signals ---- */
