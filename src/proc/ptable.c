#include "proc/ptable.h"
#include "i18n.h"
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
	if (!pt->proc || ptable_hash_rebuild_(pt) < 0) {
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
	if (r->x)
		free(r->x->cgroup);
	free(r->x);
	r->fd = -1;
	r->cmdline = NULL;
	r->x = NULL;
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
	r->cmdline_cut = n >= (ssize_t)sizeof(raw) - 1;
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
	r->user = ptable_user_name_(pt, sb.st_uid);
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
			r->user = ptable_user_name_(pt, sb.st_uid);
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
	long idx = ptable_hash_find_(pt, pid);

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
	ptable_hash_add_(pt, (size_t)(r - pt->rows));
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
		long pidx = ptable_hash_find_(pt, tgid);
		if (pidx < 0)
			break;
		long idx = ptable_hash_find_(pt, tid);
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
			ptable_hash_add_(pt, (size_t)(r - pt->rows));
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
			return ps_error_set(e, errno, _("cannot list /proc: %s"), strerror(errno));
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
			long pi = ptable_hash_find_(pt, r->ppid);
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
	return ptable_hash_rebuild_(pt);
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
	long i = ptable_hash_find_(pt, pid);
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
