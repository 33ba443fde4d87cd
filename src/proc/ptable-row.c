/* One row of the process table read from /proc: a process opened for the
 * first time or read again, its stat fd kept within the list's fd budget
 * (the least recently read give theirs back), its command line. */
#include "proc/cmdline.h"
#include "proc/ptable-priv.h"
#include "proc/stat.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMDLINE_MAX 4096

static void read_cmdline(struct ptable *pt, struct proc_row *r, int dirfd, const char *path)
{
	char raw[CMDLINE_MAX], clean[CMDLINE_MAX];
	ssize_t n = read_file_at(dirfd, path, raw, sizeof(raw));

	free(r->cmdline);
	r->cmdline = NULL;
	r->cmdline_cut = n >= (ssize_t)sizeof(raw) - 1;
	r->cmdline_len = 0;
	if (n > 0 && proc_cmdline_parse(raw, (size_t)n, clean, sizeof(clean)) > 0)
		r->cmdline = strdup(clean);
	if (r->cmdline_cut) {
		/* Longer than kept: only its length, for the mark that says
		 * how much was cut (rare: read once, at first sight or exec). */
		char *whole;
		ssize_t len = proc_nul_list_read_at(dirfd, path, ' ', &whole);
		if (len > 0)
			r->cmdline_len = (size_t)len;
		free(whole);
		if (len > 0 && r->cmdline && r->cmdline_len <= strlen(r->cmdline))
			r->cmdline_cut = false; /* exactly CMDLINE_MAX-1 bytes */
	}
}

/* Fill r's numbers from a parsed stat read at now (CPU% is a rate: made
 * from two snapshots, snap_list_rates). */
void ptable_row_from_stat_(struct ptable *pt, struct proc_row *r, const struct proc_stat *st, uint64_t now)
{
	r->ppid = st->ppid;
	r->state = st->state;
	r->priority = st->priority;
	r->nice = st->nice;
	r->nlwp = st->num_threads;
	r->virt_kb = st->vsize / 1024;
	r->res_kb = st->rss > 0 ? (unsigned long long)st->rss * (unsigned long long)pt->page_kb : 0;
	r->ticks = (unsigned long long)st->utime + st->stime;
	ptable_priv_(pt, r)->cticks =
		(unsigned long long)(st->cutime > 0 ? st->cutime : 0) + (unsigned long long)(st->cstime > 0 ? st->cstime : 0);
	r->processor = st->processor;
	r->pgrp = st->pgrp;
	r->session = st->session;
	r->tty_nr = st->tty_nr;
	r->majflt = st->majflt;
	r->is_kthread = (st->flags & PROC_PF_KTHREAD) != 0;
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
void ptable_evict_lru_(struct ptable *pt, unsigned n, uint64_t before)
{
	struct proc_row **v = malloc((size_t)(pt->nfds > 0 ? pt->nfds : 1) * sizeof(*v));
	size_t k = 0;

	if (!v)
		return;
	for (size_t i = 0; i < pt->n && k < (size_t)pt->nfds; i++)
		if (ptable_priv_(pt, pt->rows[i])->fd >= 0 && pt->rows[i]->read_ns < before)
			v[k++] = pt->rows[i];
	sort_array(v, k, sizeof(*v), cmp_read_ns);
	for (size_t i = 0; i < k && i < n; i++) {
		struct ptable_priv *p = ptable_priv_(pt, v[i]);
		close(p->fd);
		p->fd = -1;
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
		ptable_evict_lru_(pt, (unsigned)(pt->nfds + 1) / 2, UINT64_MAX);
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
		ptable_priv_(pt, r)->fd = fd;
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
	int held = ptable_priv_(pt, r)->fd;

	if (held >= 0) {
		n = pread(held, buf, sizeof(buf) - 1, 0);
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

struct proc_row *ptable_row_new_(void)
{
	struct ptable_obj *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	atomic_init(&o->refs, 1);
	o->p.fd = -1;
	return &o->row;
}

struct proc_row *ptable_row_append_(struct ptable *pt)
{
	struct proc_row *r;

	if (array_reserve((void **)&pt->rows, &pt->cap, pt->n, sizeof(*pt->rows), 512) < 0 || !(r = ptable_row_new_()))
		return NULL;
	pt->rows[pt->n++] = r;
	return r;
}

/* Open a process seen for the first time (or a pid reused since). r is
 * zeroed except for fd. Returns 0 or -errno (the process is gone). */
int ptable_row_open_(struct ptable *pt, struct proc_row *r, pid_t pid, const char *name, uint64_t now)
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
	ptable_row_from_stat_(pt, r, &st, now);
	r->fresh = true;
	pt->stats.reads++;
	pt->accounted += r->ticks + ptable_priv_(pt, r)->cticks; /* a newcomer: its life so far */
	if (!r->is_kthread)
		read_cmdline(pt, r, dfd, "cmdline");
	keep_fd(pt, r, fd);
	close(dfd);
	return 0;
}

/* Re-read a known process. False when it is gone or its pid was reused. */
bool ptable_row_refresh_(struct ptable *pt, struct proc_row *r, const char *name, uint64_t now)
{
	struct proc_stat st;

	struct ptable_priv *p = ptable_priv_(pt, r);
	if (r->is_thread || read_stat(pt, r, name, &st) < 0 || st.starttime != r->starttime)
		return false;
	unsigned long long prev = r->ticks, cprev = p->cticks;
	r->fresh = false;
	ptable_row_from_stat_(pt, r, &st, now);
	pt->stats.reads++;
	/* Children reaped since count too: their time moved to cutime. */
	unsigned long long d = (r->ticks > prev ? r->ticks - prev : 0) + (p->cticks > cprev ? p->cticks - cprev : 0);
	pt->accounted += d;
	if (d)
		p->idle = 0;
	else if (p->idle < 255)
		p->idle++;
	/* exec renames: read the new command line; a changed owner (setuid
	 * exec, dropped privileges) shows too. */
	bool renamed = strcmp(r->comm, st.comm) != 0;
	if (renamed) {
		char path[64];
		strlcpy_ps(r->comm, st.comm, sizeof(r->comm));
		snprintf(path, sizeof(path), "%s/cmdline", name);
		read_cmdline(pt, r, dirfd(pt->proc), path);
	}
	/* The owner (a changed one: dropped privileges, setuid exec): at
	 * the first two re-reads, when a new process most often drops root,
	 * then at every 16th read of the row (counted per row: an idle row is
	 * read only every so many scans). */
	p->reads++;
	if (renamed || p->reads <= 2 || p->reads % 16 == 0) {
		struct stat sb;
		if (fstatat(dirfd(pt->proc), name, &sb, 0) == 0 && sb.st_uid != r->uid) {
			r->uid = sb.st_uid;
			r->user = ptable_user_name_(pt, sb.st_uid);
		}
	}
	return true;
}
