/* Every process on the machine: on CPU, run-queue wait and blocked time
 * per process over a window, from Δ/proc/PID/task/TID/schedstat (readable
 * by any user for every process, and exact). A snapshot whose "threads"
 * are the processes. */
#include "time/time.h"
#include "i18n.h"
#include "proc/stat.h"
#include "proc/task.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mthread {
	pid_t tid, pid;
	uint64_t run_ns, wait_ns;
};

struct mread {
	struct mthread *v;
	size_t n, cap;
	uint64_t when;
};

struct tm_machine {
	struct mread start;
};

static int cmp_tid(const void *a, const void *b)
{
	const struct mthread *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int read_process(struct mread *m, int procfd, pid_t pid)
{
	char path[48], buf[128];
	unsigned long long run, wait, slices;

	snprintf(path, sizeof(path), "%d/task", (int)pid);
	int tfd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0)
		return 0; /* gone */
	DIR *d = fdopendir(tfd);
	if (!d) {
		close(tfd);
		return 0;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/schedstat", de->d_name);
		ssize_t n = read_file_at(tfd, path, buf, sizeof(buf));
		if (n <= 0 || proc_schedstat_parse(buf, (size_t)n, &run, &wait, &slices) < 0)
			continue;
		if (array_reserve((void **)&m->v, &m->cap, m->n, sizeof(*m->v), 256) < 0) {
			closedir(d);
			return -ENOMEM;
		}
		m->v[m->n++] = (struct mthread){ .tid = (pid_t)atoi(de->d_name), .pid = pid, .run_ns = run, .wait_ns = wait };
	}
	closedir(d);
	return 0;
}

static int read_all(struct mread *m)
{
	int procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	m->n = 0;
	m->when = now_ns();
	if (procfd < 0)
		return -errno;
	DIR *d = fdopendir(dup(procfd));
	if (!d) {
		close(procfd);
		return -errno;
	}
	struct dirent *de;
	while (r == 0 && (de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			r = read_process(m, procfd, (pid_t)atoi(de->d_name));
	closedir(d);
	close(procfd);
	sort_array(m->v, m->n, sizeof(*m->v), cmp_tid);
	return r;
}

int tm_machine_open(struct tm_machine **out, struct ps_error *e)
{
	struct tm_machine *m = calloc(1, sizeof(*m));
	int r;

	*out = NULL;
	if (!m)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	if ((r = read_all(&m->start)) < 0) {
		free(m->start.v);
		free(m);
		return ps_error_set(e, -r, _("cannot read /proc: %s"), strerror(-r));
	}
	*out = m;
	return 0;
}

static const struct mthread *find(const struct mread *m, pid_t tid)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->v[mid].tid == tid)
			return &m->v[mid];
		if (m->v[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static struct tm_thread *process_of(struct tm_snapshot *s, pid_t pid)
{
	for (size_t i = s->nthreads; i-- > 0;)
		if (s->threads[i].tid == pid)
			return &s->threads[i];
	struct tm_thread *v = realloc(s->threads, (s->nthreads + 1) * sizeof(*v));
	if (!v)
		return NULL;
	s->threads = v;
	struct tm_thread *t = &v[s->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = pid;
	int fd = proc_open_pid(pid);
	struct proc_stat st;
	if (fd >= 0 && proc_stat_read(fd, &st) == 0)
		strlcpy_ps(t->comm, st.comm, sizeof(t->comm));
	if (fd >= 0)
		close(fd);
	return t;
}

struct tm_snapshot *tm_machine_publish(struct tm_machine *m)
{
	struct tm_snapshot *s = calloc(1, sizeof(*s));
	struct mread end = { 0 };

	if (!s || read_all(&end) < 0)
		goto fail;
	s->tier = TM_TIER_PROC;
	s->start_ns = m->start.when;
	s->end_ns = end.when;
	snprintf(s->source, sizeof(s->source), "%s",
		 _("/proc/PID/task/TID/schedstat of every thread (on CPU, run queue: exact; blocked: the rest of the "
		   "window, reasons need a PID)"));
	uint64_t span = end.when - m->start.when;
	/* By pid, in the order the threads come (by tid): the same process's
	 * threads are mostly together. */
	for (size_t i = 0; i < end.n; i++) {
		const struct mthread *t = &end.v[i], *b = find(&m->start, t->tid);
		struct tm_thread *p = process_of(s, t->pid);
		if (!p)
			goto fail;
		uint64_t run = b ? t->run_ns - (b->run_ns < t->run_ns ? b->run_ns : t->run_ns) : t->run_ns;
		uint64_t wait = b ? t->wait_ns - (b->wait_ns < t->wait_ns ? b->wait_ns : t->wait_ns) : t->wait_ns;
		p->oncpu_ns += run;
		p->runq_ns += wait;
		p->threads++;
		if (b && span > run + wait) /* there the whole window: the rest was off CPU */
			p->blocked_ns[TM_R_OTHER] += span - run - wait;
	}
	free(end.v);
	if (tm_snapshot_finish(s) < 0) {
		tm_snapshot_free(s);
		return NULL;
	}
	return s;
fail:
	free(end.v);
	tm_snapshot_free(s);
	return NULL;
}

void tm_machine_close(struct tm_machine *m)
{
	if (!m)
		return;
	free(m->start.v);
	free(m);
}
