/* The machine-wide session (`pscope top` without a PID): the per-CPU
 * events of every task (events.c), its samples kept by process. Processes
 * are slots: the ones running at the start come from /proc, the rest from
 * FORK records; COMM records rename them (exec), EXIT records end them and
 * MMAP2 records tell their symbolizer views of new code. A slot outlives
 * its process, so a short-lived one is still counted under its name, and a
 * reused PID gets a new slot. Each process has its own view over the
 * symbolizer's shared modules (libc parsed once), made at its first user
 * sample; names only (the tables show no source lines: no DWARF lookups).
 * A process gone before its first sample was read is named from the
 * mappings its MMAP2 records reported (the files, by path and inode). */
#include "sample/agg.h"
#include "sample/local.h"
#include "sample/sample.h"
#include "sample/session.h"
#include "doors/doors.h"
#include "i18n.h"
#include "proc/stat.h"
#include "proc/sysinfo.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* /proc/PID/stat of pid (one open: this runs for every process born
 * while sampling): 0 or -errno. */
static int read_stat(pid_t pid, struct proc_stat *st)
{
	char path[32], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int err = errno;
	close(fd);
	if (n <= 0)
		return n < 0 ? -err : -ESRCH;
	buf[n] = '\0';
	return proc_stat_parse(buf, (size_t)n, st);
}

static struct mproc *new_slot(struct samp_session *s, pid_t pid)
{
	if (s->nprocs == s->capprocs) {
		uint32_t nc = s->capprocs ? s->capprocs * 2 : 256;
		struct mproc *np = realloc(s->procs, nc * sizeof(*np));
		if (!np)
			return NULL;
		s->procs = np;
		s->capprocs = nc;
	}
	uint32_t old = samp_id_get(&s->pids, (uint64_t)pid);
	if (hmap_put(&s->pids, (uint64_t)pid, s->nprocs) < 0)
		return NULL;
	if (old != SAMP_NONE)
		s->procs[old].exited = true; /* its PID names another process now */
	struct mproc *p = &s->procs[s->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->parent = SAMP_NONE;
	return p;
}

/* Fill name, identity and CPU time from /proc; false when it is gone. */
static bool from_proc(struct mproc *p)
{
	struct proc_stat st;

	if (read_stat(p->pid, &st) < 0)
		return false;
	strlcpy_ps(p->comm, st.comm, sizeof(p->comm));
	p->start = st.starttime;
	p->kernel = (st.flags & PROC_PF_KTHREAD) != 0;
	p->ticks0 = p->ticks = st.utime + st.stime;
	return true;
}

int samp_machine_open(struct samp_session *s, struct ps_error *e)
{
	int r = samp_percpu_open(s);

	if (r < 0)
		return door_percpu_refused(e, r, _("sample every process"));
	/* The processes running now; later ones arrive as FORK records. */
	DIR *d = opendir("/proc");
	struct dirent *de;
	if (!d)
		return ps_error_set(e, errno, _("cannot read /proc: %s"), strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid_t pid = (pid_t)atoi(de->d_name);
		if (samp_id_get(&s->pids, (uint64_t)pid) != SAMP_NONE)
			continue;
		struct mproc *p = new_slot(s, pid);
		if (!p) {
			closedir(d);
			return ps_error_set(e, ENOMEM, _("out of memory"));
		}
		if (!from_proc(p))
			p->exited = true;
	}
	closedir(d);
	return 0;
}

struct mproc *samp_machine_proc(struct samp_session *s, pid_t pid)
{
	uint32_t i = samp_id_get(&s->pids, (uint64_t)pid);

	if (i != SAMP_NONE)
		return &s->procs[i];
	/* Born between the /proc scan and its FORK record being read. */
	struct mproc *p = new_slot(s, pid);
	if (p && !from_proc(p))
		snprintf(p->comm, sizeof(p->comm), "?");
	return p;
}

static void maps_clear(struct mproc *p)
{
	for (unsigned i = 0; i < p->nmaps; i++)
		free(p->maps[i].path);
	free(p->maps);
	p->maps = NULL;
	p->nmaps = 0;
}

/* Keep an executable file mapping of p (sorted by start; one that covers
 * the same addresses replaces the older). */
static void maps_add(struct mproc *p, const struct mmap_rec *m)
{
	unsigned k = 0;
	for (unsigned i = 0; i < p->nmaps; i++) {
		struct mmap_rec *o = &p->maps[i];
		if (o->start < m->start + m->len && m->start < o->start + o->len)
			free(o->path);
		else
			p->maps[k++] = *o;
	}
	p->nmaps = k;
	if (p->nmaps >= 512)
		return;
	struct mmap_rec *nm = realloc(p->maps, (p->nmaps + 1) * sizeof(*nm));
	if (!nm)
		return;
	p->maps = nm;
	unsigned at = p->nmaps;
	while (at && p->maps[at - 1].start > m->start) {
		p->maps[at] = p->maps[at - 1];
		at--;
	}
	p->maps[at] = *m;
	if (!(p->maps[at].path = strdup(m->path))) {
		memmove(p->maps + at, p->maps + at + 1, (p->nmaps - at) * sizeof(*p->maps));
		return;
	}
	p->nmaps++;
}

/* A view of a process that is gone, from its recorded mappings: names
 * only, no unwinder (its memory is gone; frame pointers still serve). */
static struct samp_space *recorded_space(const struct mproc *p)
{
	struct proc_maps maps = { 0 };
	size_t cap = 1, len = 0;
	char *text;

	for (unsigned i = 0; i < p->nmaps; i++)
		cap += strlen(p->maps[i].path) + 96;
	if (!p->nmaps || !(text = malloc(cap)))
		return NULL;
	for (unsigned i = 0; i < p->nmaps; i++) {
		const struct mmap_rec *m = &p->maps[i];
		len += (size_t)snprintf(text + len, cap - len, "%llx-%llx r-xp %08llx %02x:%02x %llu %s\n",
					(unsigned long long)m->start, (unsigned long long)(m->start + m->len),
					(unsigned long long)m->pgoff, m->maj, m->min, (unsigned long long)m->ino, m->path);
	}
	struct samp_space *sp = calloc(1, sizeof(*sp));
	if (sp && proc_maps_parse(text, len, false, &maps) == 0) {
		struct sym_image img = { .maps = &maps };
		sp->sym = sym_proc_image(&img, 0);
	}
	proc_maps_free(&maps);
	free(text);
	if (sp && !sp->sym) {
		free(sp);
		sp = NULL;
	}
	return sp;
}

struct samp_space *samp_machine_space(struct samp_session *s, struct mproc *p)
{
	if (p->sp || p->space_tried)
		return p->sp;
	/* A child that has not exec'd runs its parent's code. */
	if (!p->exec_seen && p->parent != SAMP_NONE && p->exited)
		return samp_machine_space(s, &s->procs[p->parent]);
	p->space_tried = true;
	if (p->kernel)
		return NULL;
	struct stat sb;
	char path[32];
	snprintf(path, sizeof(path), "/proc/%d", (int)p->pid);
	if (p->exited || stat(path, &sb) < 0) {
		p->recorded = true;
		return p->sp = recorded_space(p);
	}
	p->sp = malloc(sizeof(*p->sp));
	if (p->sp && samp_space_init(p->sp, p->pid, sb.st_uid, 0, s->regs_mask != 0) < 0) {
		free(p->sp);
		p->sp = NULL;
	}
	return p->sp;
}

/* Every process's records (the reader keeps them all): FORK a new
 * process, EXIT its end, COMM its exec, MMAP2 its new code. */
static void on_fork(void *ctx, const struct perf_task *f)
{
	struct samp_session *s = ctx;

	if (f->pid != f->tid || f->pid == f->ppid)
		return; /* a new thread, not a new process */
	uint32_t parent = samp_id_get(&s->pids, (uint64_t)f->ppid);
	struct mproc *c = new_slot(s, (pid_t)f->pid);
	if (!c)
		return;
	c->parent = parent;
	if (parent != SAMP_NONE) {
		memcpy(c->comm, s->procs[parent].comm, sizeof(c->comm));
		c->kernel = s->procs[parent].kernel;
	}
	struct proc_stat st;
	if (read_stat(c->pid, &st) == 0) {
		c->start = st.starttime;
		c->ticks0 = 0; /* born during sampling: all its CPU time counts */
		c->ticks = st.utime + st.stime;
	}
}

static void on_task_exit(void *ctx, const struct perf_task *f)
{
	struct samp_session *s = ctx;

	if (f->pid != f->tid)
		return;
	uint32_t i = samp_id_get(&s->pids, (uint64_t)f->pid);
	if (i != SAMP_NONE)
		s->procs[i].exited = true;
}

static void on_comm(void *ctx, const struct perf_comm *c)
{
	struct samp_session *s = ctx;

	if (c->pid != c->tid && !c->exec)
		return; /* a thread renamed itself */
	struct mproc *m = samp_machine_proc(s, (pid_t)c->pid);
	if (!m)
		return;
	strlcpy_ps(m->comm, c->comm, sizeof(m->comm));
	if (c->exec) {
		maps_clear(m);
		m->exec_seen = true;
		m->kernel = false;
		if (m->sp) {
			sym_proc_exec(m->sp->sym);
			hmap_clear(&m->sp->pcs);
		}
		m->space_tried = false;
	}
}

static void on_mmap2(void *ctx, const struct perf_mmap2 *mm)
{
	struct samp_session *s = ctx;

	if (!(mm->prot & PROT_EXEC))
		return;
	uint32_t i = samp_id_get(&s->pids, (uint64_t)mm->pid);
	if (i == SAMP_NONE)
		return;
	struct mproc *m = &s->procs[i];
	m->exec_seen = true; /* its own code now, not only its parent's */
	/* Records of one CPU's ring are read before the next ring's: a
	 * sample may have come before this mapping was known. A view made
	 * from the recorded mappings is made again with it. */
	if (m->sp && m->recorded) {
		samp_space_fini(m->sp);
		free(m->sp);
		m->sp = NULL;
		m->recorded = false;
	}
	if (mm->name[0] == '/' && mm->name_ok && !mm->build_id) {
		struct mmap_rec r = { .path = (char *)mm->name, .start = mm->start, .len = mm->len,
				      .pgoff = mm->pgoff, .ino = mm->ino, .maj = mm->maj, .min = mm->min };
		maps_add(m, &r);
	}
	if (m->sp) {
		sym_proc_stale(m->sp->sym, mm->name[0] != '/');
		hmap_clear(&m->sp->pcs);
	}
	m->space_tried = false;
}

const struct perf_consumer samp_machine_consumer = {
	.on_sample = samp_on_sample,
	.on_mmap2 = on_mmap2,
	.on_comm = on_comm,
	.on_fork = on_fork,
	.on_exit = on_task_exit,
};

unsigned long long samp_machine_ticks(void)
{
	struct sys_stat *st = malloc(sizeof(*st));
	unsigned long long busy = 0;

	if (st && sys_stat_read(st) == 0) {
		const struct sys_cpu_times *t = &st->total;
		busy = t->user + t->nice + t->system + t->irq + t->softirq + t->steal;
	}
	free(st);
	return busy;
}

int samp_machine_publish(struct samp_session *s, struct samp_snapshot *o)
{
	double tick = (double)sysconf(_SC_CLK_TCK);

	o->machine = true;
	o->idle = s->idle;
	o->procs = calloc(s->nprocs + 1, sizeof(*o->procs));
	if (!o->procs)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nprocs; i++) {
		struct mproc *m = &s->procs[i];
		struct samp_proc *q = &o->procs[i];
		/* /proc's CPU time of the processes that were sampled. */
		if (m->samples && !m->exited) {
			struct proc_stat st;
			if (read_stat(m->pid, &st) == 0 && st.starttime == m->start)
				m->ticks = st.utime + st.stime;
		}
		/* Gone: its view's files and memory are no longer needed. */
		if (m->exited && m->sp) {
			samp_space_fini(m->sp);
			free(m->sp);
			m->sp = NULL;
		}
		if (m->exited)
			maps_clear(m);
		q->pid = m->pid;
		q->start = m->start;
		memcpy(q->comm, m->comm, sizeof(q->comm));
		q->samples = m->samples;
		q->cpu_sampled = s->ev.attr.type == PERF_TYPE_SOFTWARE ? (double)m->period / 1e9
								     : (double)m->samples / s->freq;
		q->cpu_proc = m->ticks >= m->ticks0 ? (double)(m->ticks - m->ticks0) / tick : 0;
		q->exited = m->exited;
		q->kernel = m->kernel;
	}
	o->nprocs = s->nprocs;
	return 0;
}

void samp_machine_close(struct samp_session *s)
{
	for (uint32_t i = 0; i < s->nprocs; i++) {
		if (s->procs[i].sp) {
			samp_space_fini(s->procs[i].sp);
			free(s->procs[i].sp);
		}
		maps_clear(&s->procs[i]);
	}
	free(s->procs);
	s->procs = NULL;
	s->nprocs = s->capprocs = 0;
	hmap_free(&s->pids);
}
