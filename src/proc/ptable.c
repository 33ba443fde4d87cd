#include "proc/ptable.h"
#include "clock.h"
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

/* CPU time (ticks, all CPUs) the lazy scan tolerates as not accounted for
 * by the processes it read: the kernel's tick accounting and the per-task
 * times differ by a tick or two per interval. */
#define LAZY_SLACK_TICKS 3
/* A process that used no CPU is still re-read at least this often, in
 * seconds (for its memory and state): every eighth scan at the default
 * 1.5 s refresh, every twelfth at 1 s, every scan from 12 s up. */
#define LAZY_REREAD_S 12.0

unsigned ptable_lazy_period_(double interval)
{
	if (!(interval > 0))
		return 8; /* not measured yet */
	double p = LAZY_REREAD_S / interval + 0.5;
	return p < 1 ? 1 : p > 250 ? 250 : (unsigned)p;
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

void ptable_set_eager(struct ptable *pt, bool eager)
{
	pt->eager = eager;
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

struct ptable *ptable_new(const struct ps_clock *clk)
{
	struct ptable *pt = calloc(1, sizeof(*pt));
	struct sys_meminfo mi;
	struct rlimit rl;

	if (!pt)
		return NULL;
	pt->clk = clk;
	pt->proc = opendir("/proc");
	pt->users = calloc(1, sizeof(*pt->users));
	if (pt->users)
		atomic_init(&pt->users->refs, 1);
	if (!pt->proc || !pt->users || pid_index_build(&pt->ix, NULL, 0) < 0) {
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

/* The table lets row r go: its held fd closed, its reference dropped (a
 * snapshot may keep the row). */
static void row_release(struct ptable *pt, struct proc_row *r)
{
	struct ptable_priv *p = ptable_priv_(pt, r);

	if (p->fd >= 0) {
		close(p->fd);
		pt->nfds--;
		p->fd = -1;
	}
	proc_row_put(r);
}

void ptable_free(struct ptable *pt)
{
	if (!pt)
		return;
	for (size_t i = 0; i < pt->n; i++)
		row_release(pt, pt->rows[i]);
	ptable_users_put(pt->users);
	free(pt->rows);
	pid_index_free(&pt->ix);
	if (pt->proc)
		closedir(pt->proc);
	free(pt);
}

long proc_hz(void)
{
	long hz = sysconf(_SC_CLK_TCK);
	return hz > 0 ? hz : 100;
}

/* A process that used no CPU (nor reaped a child) in its last two reads is
 * read every lazy_period-th scan only (LAZY_REREAD_S), unless the CPU time
 * the system spent is not accounted for by the processes read (see
 * ptable_scan). */
static bool lazy_skip(const struct ptable *pt, const struct proc_row *r)
{
	return pt->lazy && ptable_priv_(pt, r)->idle >= 2 && (unsigned)(r->pid + pt->gen) % pt->lazy_period != 0;
}

static const char *pid_name(char *buf, size_t size, pid_t pid)
{
	snprintf(buf, size, "%d", (int)pid);
	return buf;
}

/* name: pid as a string (the /proc entry), or NULL to format it here only
 * when the process is read (most are skipped). */
/* When a row is read: the scan's start, or for a recorder (eager) the
 * row's own instant, so that the rates of two recorded scans cover
 * exactly the time between the two reads of each row however long a
 * scan takes on a loaded machine. */
static uint64_t read_ns(const struct ptable *pt, uint64_t scan)
{
	return pt->eager ? clock_mono_ns(pt->clk) : scan;
}

static void scan_process(struct ptable *pt, pid_t pid, const char *name, uint64_t now)
{
	long idx = ptable_hash_find_(pt, pid);
	char buf[16];

	if (idx >= 0) {
		struct proc_row *r = pt->rows[idx];
		struct ptable_priv *p = ptable_priv_(pt, r);
		if (!r->is_thread && lazy_skip(pt, r)) {
			p->gen = p->skip_gen = pt->gen;
			pt->nskipped++;
			return;
		}
		if (!(r = ptable_mut_(pt, idx))) {
			p->gen = pt->gen; /* out of memory: as it was */
			return;
		}
		p = ptable_priv_(pt, r);
		if (!name)
			name = pid_name(buf, sizeof(buf), pid);
		if (ptable_row_refresh_(pt, r, name, now)) {
			p->gen = pt->gen;
			return;
		}
		/* Gone, or the pid now names another process (or a thread
		 * row's tid became a process): start the row afresh. */
		struct proc_row *n = ptable_row_new_();
		if (!n) {
			p->gen = 0; /* dropped */
			return;
		}
		row_release(pt, r);
		pt->rows[idx] = n;
		n->pid = pid; /* keep the hash slot valid */
		if (ptable_row_open_(pt, n, pid, name, now) == 0)
			ptable_priv_(pt, n)->gen = pt->gen;
		return;
	}
	struct proc_row *r = ptable_row_append_(pt);
	if (!r)
		return;
	if (!name)
		name = pid_name(buf, sizeof(buf), pid);
	if (ptable_row_open_(pt, r, pid, name, now) < 0) {
		row_release(pt, r); /* vanished: normal */
		pt->n--;
		return;
	}
	ptable_priv_(pt, r)->gen = pt->gen;
	pid_index_add(&pt->ix, (const struct proc_row *const *)pt->rows, pt->n, pt->n - 1);
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
static void scan_threads(struct ptable *pt, pid_t tgid, uint64_t now)
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
		if (idx >= 0 && pt->rows[idx]->is_thread && pt->rows[idx]->tgid == tgid &&
		    pt->rows[idx]->starttime == st.starttime) {
			if (!(r = ptable_mut_(pt, idx))) {
				ptable_priv_(pt, pt->rows[idx])->gen = pt->gen;
				continue;
			}
			r->fresh = false;
		} else if (idx >= 0) {
			continue; /* the tid is still a process row this scan */
		} else {
			if (!(r = ptable_row_append_(pt)))
				break;
			r->fresh = true;
			r->pid = tid;
			pid_index_add(&pt->ix, (const struct proc_row *const *)pt->rows, pt->n, pt->n - 1);
		}
		const struct proc_row *owner = pt->rows[pidx];
		r->pid = tid;
		r->tgid = tgid;
		r->is_thread = true;
		r->starttime = st.starttime;
		r->owner_start = owner->starttime;
		r->uid = owner->uid;
		r->user = owner->user;
		strlcpy_ps(r->comm, st.comm, sizeof(r->comm));
		ptable_row_from_stat_(pt, r, &st, now);
		r->ppid = tgid;
		ptable_priv_(pt, r)->gen = pt->gen;
	}
	closedir(d);
}

int ptable_scan(struct ptable *pt, bool threads, struct ps_error *e)
{
	struct dirent *de;
	struct sys_loadavg la;
	uint64_t now = clock_mono_ns(pt->clk);
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
	pt->lazy = have_busy && pt->have_busy && !threads && !pt->eager;
	pt->lazy_period = ptable_lazy_period_(pt->interval);
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
				scan_process(pt, (pid_t)atoi(de->d_name), de->d_name, read_ns(pt, now));
		}
		if (errno)
			return ps_error_set(e, errno, _("cannot list /proc: %s"), strerror(errno));
	} else {
		for (size_t i = 0, n = pt->n; i < n; i++)
			if (!pt->rows[i]->is_thread)
				scan_process(pt, pt->rows[i]->pid, NULL, read_ns(pt, now));
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
			const struct proc_row *r = pt->rows[i];
			if (ptable_priv_(pt, r)->gen == pt->gen || r->is_thread)
				continue;
			long pi = ptable_hash_find_(pt, r->ppid);
			const struct ptable_priv *pp = pi >= 0 ? ptable_priv_(pt, pt->rows[pi]) : NULL;
			if (pp && pp->gen == pt->gen && pp->skip_gen != pt->gen)
				gone += r->ticks;
		}
		long long unacc = (long long)(busy_end - pt->busy_prev) - (long long)pt->accounted + (long long)gone;
		pt->stats.skipped += pt->nskipped;
		if (unacc > LAZY_SLACK_TICKS) {
			pt->stats.full_passes++;
			for (size_t i = 0, n = pt->n; i < n; i++) {
				struct proc_row *r = pt->rows[i];
				struct ptable_priv *p = ptable_priv_(pt, r);
				char name[16];
				if (p->skip_gen != pt->gen || r->is_thread)
					continue;
				if (!(r = ptable_mut_(pt, i)))
					continue; /* out of memory: as it was */
				p = ptable_priv_(pt, r);
				snprintf(name, sizeof(name), "%d", (int)r->pid);
				if (!ptable_row_refresh_(pt, r, name, now))
					p->gen = 0; /* gone: dropped below */
				p->skip_gen = 0; /* read after all */
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
			const struct proc_row *r = pt->rows[i];
			if (!r->is_thread && ptable_priv_(pt, r)->gen == pt->gen && r->nlwp > 1 && !r->is_kthread)
				scan_threads(pt, r->pid, now);
		}

	/* Drop what was not seen (exited, or threads no longer wanted). */
	size_t o = 0;
	memset(&pt->counts, 0, sizeof(pt->counts));
	for (size_t i = 0; i < pt->n; i++) {
		struct proc_row *r = pt->rows[i];
		if (ptable_priv_(pt, r)->gen != pt->gen) {
			row_release(pt, r);
			continue;
		}
		if (r->is_kthread)
			pt->counts.kthreads++;
		else if (!r->is_thread) {
			pt->counts.procs++;
			/* htop's "thr": the threads besides each main thread */
			pt->counts.threads += r->nlwp > 1 ? (int)r->nlwp - 1 : 0;
		}
		if (r->state == 'R' && (threads || !r->is_thread))
			pt->counts.running++;
		pt->rows[o++] = r;
	}
	pt->n = o;
	/* Processes read by path for want of budget: those not read in this
	 * scan (idle, skipped) give their fds up, least recently read first,
	 * so the busy ones hold them next time. */
	if (pt->fd_misses && pt->nfds >= pt->maxfds) {
		int before = pt->nfds;
		ptable_evict_lru_(pt, pt->fd_misses, now);
		pt->stats.fd_evictions += (unsigned long)(before - pt->nfds);
	}
	pt->fd_misses = 0;
	return pid_index_build(&pt->ix, (const struct proc_row *const *)pt->rows, pt->n);
}

int ptable_fds(const struct ptable *pt, int *budget)
{
	if (budget)
		*budget = pt->maxfds;
	return pt->nfds;
}

uint64_t ptable_scan_ns(const struct ptable *pt)
{
	return pt->last_ns;
}

size_t ptable_size(const struct ptable *pt)
{
	return pt->n;
}

const struct proc_row *ptable_row(const struct ptable *pt, size_t i)
{
	return i < pt->n ? pt->rows[i] : NULL;
}

const struct proc_row *ptable_find(const struct ptable *pt, pid_t pid)
{
	long i = ptable_hash_find_(pt, pid);
	return i >= 0 ? pt->rows[i] : NULL;
}

void ptable_stats(const struct ptable *pt, struct ptable_stats *s)
{
	*s = pt->stats;
}

int ptable_running(const struct ptable_counts *c, int ncpu)
{
	return ncpu > 0 && c->running > ncpu ? ncpu : c->running;
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

void ptable_fill_shr(struct ptable *pt, pid_t pid)
{
	char path[64];
	struct proc_statm sm;
	long idx = ptable_hash_find_(pt, pid);

	if (idx < 0)
		return;
	/* Once per scan; a row whose stat was skipped this scan (idle) keeps
	 * its memory figures as they were read with it. */
	const struct proc_row *cr = pt->rows[idx];
	struct ptable_priv *p = ptable_priv_(pt, cr);
	if (p->shr_gen == pt->gen || (p->shr_gen && p->skip_gen == pt->gen))
		return;
	p->shr_gen = pt->gen;
	if (cr->is_thread)
		snprintf(path, sizeof(path), "%d/task/%d/statm", (int)cr->tgid, (int)cr->pid);
	else
		snprintf(path, sizeof(path), "%d/statm", (int)cr->pid);
	char buf[256];
	ssize_t n = read_file_at(dirfd(pt->proc), path, buf, sizeof(buf));
	struct proc_row *r;
	if (n > 0 && proc_statm_parse(buf, (size_t)n, &sm) == 0 && (r = ptable_mut_(pt, (size_t)idx))) {
		r->shr_kb = sm.shared * (unsigned long long)pt->page_kb;
		/* statm's resident is the exact sum; stat's rss field is an
		 * approximate per-CPU counter that can read below SHR. */
		r->res_kb = sm.resident * (unsigned long long)pt->page_kb;
		r->mem = pt->mem_total_kb ? (double)r->res_kb * 100.0 / (double)pt->mem_total_kb : 0;
	}
}
