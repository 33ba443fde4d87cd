/* The target's threads as /proc shows them: what every tier starts from
 * (names, exits, the exact counters of schedstat, stat, status and sched)
 * and what the /proc tier samples (state, syscall, wchan). */
#include "time/tpriv.h"
#include "i18n.h"
#include "proc/sched.h"
#include "proc/stat.h"
#include "proc/status.h"
#include "proc/task.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int tm_pread_at(int dirfd, pid_t tid, unsigned what, struct proc_taskstats_sock *ts, struct tm_pread *out)
{
	char buf[1024];
	unsigned long long args[6], run, wait, slices;
	struct proc_stat st;
	ssize_t n;
	int r;

	memset(out, 0, sizeof(*out));
	out->sys_nr = PROC_SYSCALL_UNKNOWN;
	if ((r = proc_stat_read(dirfd, &st)) < 0)
		return r == -ENOENT || r == -EINVAL ? -ESRCH : r;
	out->state = st.state;
	strlcpy_ps(out->comm, st.comm, sizeof(out->comm));
	out->minflt = st.minflt;
	out->majflt = st.majflt;
	n = read_file_at(dirfd, "syscall", buf, sizeof(buf));
	if (n > 0 && proc_syscall_parse(buf, (size_t)n, &out->sys_nr, args) < 0)
		out->sys_nr = PROC_SYSCALL_UNKNOWN;
	n = read_file_at(dirfd, "wchan", buf, sizeof(buf));
	if (n > 0 && strcmp(buf, "0"))
		strlcpy_ps(out->wchan, buf, sizeof(out->wchan));
	if (what == TM_READ_SAMPLE)
		return 0;
	n = read_file_at(dirfd, "schedstat", buf, sizeof(buf));
	out->at_ns = now_ns();
	if (n > 0 && proc_schedstat_parse(buf, (size_t)n, &run, &wait, &slices) == 0) {
		out->run_ns = run;
		out->wait_ns = wait;
		out->schedstat = true;
	}
	struct proc_status ss;
	if (proc_status_read(dirfd, &ss) == 0) {
		out->vol = ss.voluntary_ctxt;
		out->invol = ss.nonvoluntary_ctxt;
	}
	struct proc_sched sc;
	if (proc_sched_read(dirfd, &sc) == 0 && (sc.have & PROC_SCHED_HAVE_MIGR)) {
		out->migrations = sc.nr_migrations;
		out->migr = true;
	}
	if (ts && ts->fd >= 0)
		proc_taskstats_read(ts, tid, &out->ts);
	return 0;
}

enum tm_reason tm_pread_reason(const struct tm_pread *r)
{
	unsigned hints = r->state == 'D' ? TM_H_DSTATE : 0;

	if (r->sys_nr >= 0 || r->sys_nr == PROC_SYSCALL_NONE)
		return tm_reason_of(r->sys_nr >= 0 ? r->sys_nr : -1, hints);
	return tm_reason_of_wchan(r->wchan, hints);
}

int tm_procset_open(struct tm_procset *ps, int piddirfd)
{
	long on = 0;

	memset(ps, 0, sizeof(*ps));
	ps->ts.fd = -1;
	ps->taskfd = openat(piddirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ps->taskfd < 0)
		return -errno;
	ps->delayacct = read_long_file("/proc/sys/kernel/task_delayacct", &on) == 0 && on == 1;
	if (ps->delayacct)
		ps->ts_err = proc_taskstats_open(&ps->ts);
	return 0;
}

struct tm_pthread *tm_procset_find(struct tm_procset *ps, pid_t tid)
{
	size_t lo = 0, hi = ps->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ps->v[mid].tid == tid)
			return &ps->v[mid];
		if (ps->v[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_tid(const void *a, const void *b)
{
	const struct tm_pthread *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static void thread_gone(struct tm_pthread *p)
{
	p->gone = true;
	if (p->dirfd >= 0)
		close(p->dirfd);
	p->dirfd = -1;
}

/* New threads in the task directory join (read in full); 1 when any did. */
static int join_new(struct tm_procset *ps, uint64_t now)
{
	int fd = dup(ps->taskfd), added = 0;
	DIR *d;
	struct dirent *de;

	if (fd < 0)
		return -errno;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return -errno;
	}
	rewinddir(d);
	size_t known = ps->n;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid_t tid = (pid_t)atoi(de->d_name);
		bool have = false;
		for (size_t lo = 0, hi = known; lo < hi && !have;) {
			size_t mid = (lo + hi) / 2;
			if (ps->v[mid].tid == tid)
				have = true;
			else if (ps->v[mid].tid < tid)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (have)
			continue;
		if (array_reserve((void **)&ps->v, &ps->cap, ps->n, sizeof(*ps->v), 16) < 0) {
			closedir(d);
			return -ENOMEM;
		}
		struct tm_pthread *p = &ps->v[ps->n];
		memset(p, 0, sizeof(*p));
		p->tid = tid;
		p->dirfd = openat(ps->taskfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (p->dirfd < 0 || tm_pread_at(p->dirfd, tid, TM_READ_FULL, &ps->ts, &p->cur) < 0) {
			if (p->dirfd >= 0)
				close(p->dirfd);
			continue; /* gone already */
		}
		p->first_ns = p->last_ns = now;
		p->born = ps->scanned;
		if (!p->born)
			p->base = p->cur;
		else /* everything it did, it did in the window */
			strlcpy_ps(p->base.comm, p->cur.comm, sizeof(p->base.comm));
		ps->n++;
		added = 1;
	}
	closedir(d);
	if (added)
		sort_array(ps->v, ps->n, sizeof(*ps->v), cmp_tid);
	ps->scanned = true;
	return added;
}

int tm_procset_scan(struct tm_procset *ps, uint64_t now)
{
	size_t known = ps->n;

	for (size_t i = 0; i < known; i++) {
		struct tm_pthread *p = &ps->v[i];
		struct tm_pread r;
		if (p->gone)
			continue;
		if (tm_pread_at(p->dirfd, p->tid, TM_READ_FULL, &ps->ts, &r) < 0) {
			thread_gone(p);
			continue;
		}
		p->cur = r;
		p->last_ns = now;
	}
	int r = join_new(ps, now);
	return r < 0 ? r : 0;
}

static void sample_one(struct tm_pthread *p, const struct tm_pread *r)
{
	p->nsamp++;
	if (r->sys_nr >= 0) {
		size_t i;
		for (i = 0; i < p->npsys && p->psys[i].nr != r->sys_nr; i++)
			;
		if (i == p->npsys) {
			struct tm_psys *v = realloc(p->psys, (p->npsys + 1) * sizeof(*v));
			if (v) {
				p->psys = v;
				v[p->npsys++] = (struct tm_psys){ .nr = (int)r->sys_nr };
			}
		}
		if (i < p->npsys)
			p->psys[i].samples++;
	}
	switch (r->state) {
	case 'S':
	case 'D':
	case 'I':
		p->samp_blocked++;
		p->samp_reason[tm_pread_reason(r)]++;
		break;
	case 'T':
	case 't':
		p->samp_stopped++;
		break;
	default: /* R: on a CPU or waiting for one (schedstat tells which) */
		break;
	}
}

int tm_procset_sample(struct tm_procset *ps, uint64_t now)
{
	size_t known = ps->n;

	ps->rounds++;
	for (size_t i = 0; i < known; i++) {
		struct tm_pthread *p = &ps->v[i];
		struct tm_pread r;
		if (p->gone)
			continue;
		if (tm_pread_at(p->dirfd, p->tid, TM_READ_SAMPLE, NULL, &r) < 0) {
			thread_gone(p);
			continue;
		}
		p->last_ns = now;
		sample_one(p, &r);
	}
	int r = join_new(ps, now);
	return r < 0 ? r : 0;
}

void tm_procset_close(struct tm_procset *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		if (ps->v[i].dirfd >= 0)
			close(ps->v[i].dirfd);
		free(ps->v[i].psys);
	}
	free(ps->v);
	if (ps->taskfd >= 0)
		close(ps->taskfd);
	proc_taskstats_close(&ps->ts);
	memset(ps, 0, sizeof(*ps));
	ps->taskfd = -1;
	ps->ts.fd = -1;
}

static uint64_t delta(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

void tm_thread_from_proc(struct tm_thread *t, const struct tm_pthread *p, uint64_t start_ns, uint64_t now)
{
	uint64_t from = p->born ? p->first_ns : start_ns, until = p->gone ? p->last_ns : now;

	/* The span schedstat's deltas cover: from read to read (a scan of
	 * many threads on a busy machine takes a while). */
	if (p->base.at_ns && p->cur.at_ns > p->base.at_ns) {
		from = p->base.at_ns;
		until = p->cur.at_ns;
	}

	t->tid = p->tid;
	strlcpy_ps(t->comm, p->cur.comm, sizeof(t->comm));
	t->exited = p->gone;
	t->span_ns = delta(until, from);
	t->minflt = delta(p->cur.minflt, p->base.minflt);
	t->majflt = delta(p->cur.majflt, p->base.majflt);
	t->vol = delta(p->cur.vol, p->base.vol);
	t->invol = delta(p->cur.invol, p->base.invol);
	t->migrations = delta(p->cur.migrations, p->base.migrations);
	/* schedstat: the run time is current when read, but a wait counts
	 * only as it ends, all of it: a wait begun before the window (long on
	 * a busy machine) would push the sum past the span. */
	t->oncpu_ns = delta(p->cur.run_ns, p->base.run_ns);
	t->runq_ns = delta(p->cur.wait_ns, p->base.wait_ns);
	if (t->oncpu_ns > t->span_ns)
		t->oncpu_ns = t->span_ns;
	if (t->runq_ns > t->span_ns - t->oncpu_ns)
		t->runq_ns = t->span_ns - t->oncpu_ns;
	const struct proc_taskstats *a = &p->cur.ts, *b = &p->base.ts;
	t->delay.cpu = delta(a->cpu_delay, b->cpu_delay);
	t->delay.blkio = delta(a->blkio_delay, b->blkio_delay);
	t->delay.swapin = delta(a->swapin_delay, b->swapin_delay);
	t->delay.freepages = delta(a->freepages_delay, b->freepages_delay);
	t->delay.thrashing = delta(a->thrashing_delay, b->thrashing_delay);
	t->delay.compact = delta(a->compact_delay, b->compact_delay);
	t->delay.wpcopy = delta(a->wpcopy_delay, b->wpcopy_delay);
	t->delay.irq = delta(a->irq_delay, b->irq_delay);
}

static const char *const psi_res[TM_PSI_COUNT] = { "cpu", "memory", "io" };

void tm_psi_read(const char *dir, struct tm_psi_raw *out)
{
	memset(out, 0, sizeof(*out));
	for (int r = 0; r < TM_PSI_COUNT; r++) {
		out->m_ok[r] = proc_psi_read(NULL, psi_res[r], &out->m[r]) == 0;
		out->c_ok[r] = dir[0] && proc_psi_read(dir, psi_res[r], &out->c[r]) == 0;
	}
}

void tm_psi_delta(const struct tm_psi_raw *a, const struct tm_psi_raw *b, struct tm_snapshot *snap)
{
	for (int r = 0; r < TM_PSI_COUNT; r++) {
		struct tm_psi *m = &snap->psi_machine, *c = &snap->psi_cgroup;
		if ((m->have[r] = a->m_ok[r] && b->m_ok[r])) {
			m->some_us[r] = delta(b->m[r].some_total, a->m[r].some_total);
			m->full_us[r] = delta(b->m[r].full_total, a->m[r].full_total);
			m->have_full[r] = b->m[r].have_full;
		}
		if ((c->have[r] = a->c_ok[r] && b->c_ok[r])) {
			c->some_us[r] = delta(b->c[r].some_total, a->c[r].some_total);
			c->full_us[r] = delta(b->c[r].full_total, a->c[r].full_total);
			c->have_full[r] = b->c[r].have_full;
		}
	}
}

void tm_delay_note(const struct tm_procset *ps, struct tm_snapshot *snap)
{
	if (!ps->delayacct)
		snprintf(snap->delay_note, sizeof(snap->delay_note), "%s",
			 _("delay accounting is off: `sysctl -w kernel.task_delayacct=1` turns it on for the tasks "
			   "started after it"));
	else if (ps->ts_err < 0)
		snprintf(snap->delay_note, sizeof(snap->delay_note),
			 _("delay accounting is on, but taskstats refused pscope (%s): it needs CAP_NET_ADMIN"),
			 strerror(-ps->ts_err));
	else {
		snap->have |= TM_HAVE_DELAY;
		snprintf(snap->delay_note, sizeof(snap->delay_note), "%s",
			 _("delay accounting (taskstats): kept only for the tasks started after "
			   "kernel.task_delayacct=1 was set"));
	}
}

struct tm_thread *tm_snapshot_add(struct tm_snapshot *snap)
{
	struct tm_thread *v = realloc(snap->threads, (snap->nthreads + 1) * sizeof(*v));

	if (!v)
		return NULL;
	snap->threads = v;
	memset(&v[snap->nthreads], 0, sizeof(*v));
	return &v[snap->nthreads++];
}
