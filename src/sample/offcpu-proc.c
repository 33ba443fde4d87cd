/* The off-CPU profile on the /proc tier, a source (source.h) for when the
 * scheduler's tracepoints are refused (no CAP_PERFMON): statistical, not
 * traced. At a low rate (OC_PROC_HZ) the threads of the target are looked
 * at; when some are blocked (S or D), the process is frozen for a moment
 * and every thread's stack copied and unwound by pscope's own unwinder
 * (src/stack: the stack dump, Python frames included), and each thread
 * that was blocked counts the time since the last look under its stack:
 * its kernel part from /proc/TID/stack where readable (root), else the
 * function it sleeps in (wchan) and its system call. A block shorter
 * than the interval is seen in proportion to its length, or not at all. */
#include "sample/agg.h"
#include "sample/local.h"
#include "sample/offcpu.h"
#include "sample/sample.h"
#include "sample/source.h"
#include "stack/stack.h"
#include "python/python.h"
#include "i18n.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define OC_PROC_HZ 10
#define PROC_FRAMES 128

struct pthread_row {
	struct samp_thread th;
};

struct ocproc {
	struct samp_source src;  /* first: the source it is */
	struct target t;
	struct agg *agg, *wagg;  /* wagg: no wakers on this tier (empty) */
	struct pthread_row *threads;
	unsigned nthreads, capthreads;
	uint64_t interval_ns, start_ns, last_pub_ns, next_ns, last_look_ns;
	unsigned long long samples, looks, freezes, refused;
	unsigned long long *stack_samples;
	size_t nss, capss;
	bool exited, execd;
	char exec_comm[64];
};

static const struct samp_source_ops proc_ops;

static struct ocproc *of(const struct samp_source *src)
{
	return (struct ocproc *)src;
}

static void proc_close(struct samp_source *src);

int samp_offcpu_proc_open(struct samp_source **out, const struct samp_offcpu_opts *opt, struct ps_error *e)
{
	struct ocproc *o = calloc(1, sizeof(*o));
	int r;

	*out = NULL;
	if (!o)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	o->src.ops = &proc_ops;
	o->t.pidfd = o->t.dirfd = -1;
	if ((r = target_open(&o->t, opt->pid, opt->want, e)) < 0) {
		free(o);
		return r;
	}
	if (target_is_kernel_thread(&o->t)) {
		r = ps_error_set(e, EINVAL, _("process %d is a kernel thread: it has no user space to trace"), (int)opt->pid);
		proc_close(&o->src);
		return r;
	}
	o->agg = agg_new(SAMP_UNIT_NS_BLOCKED);
	o->wagg = agg_new(SAMP_UNIT_NS_BLOCKED);
	if (!o->agg || !o->wagg) {
		proc_close(&o->src);
		return ps_error_set(e, ENOMEM, _("out of memory"));
	}
	/* One freeze now: a refused door shows up here, not as an empty table. */
	struct stk_opts so = { .max_frames = PROC_FRAMES, .stack_max = 64 * 1024, .deadline_ms = 100 };
	struct stk_dump *d = NULL;
	if ((r = stk_dump_run(&o->t.id, &so, &d, e)) < 0) {
		proc_close(&o->src);
		return r;
	}
	stk_dump_free(d);
	o->interval_ns = 1000000000ULL / OC_PROC_HZ;
	o->start_ns = o->last_pub_ns = o->last_look_ns = now_ns();
	o->next_ns = o->start_ns + o->interval_ns;
	*out = &o->src;
	return 0;
}

static struct pthread_row *thread_of(struct ocproc *o, const struct stk_thread *th)
{
	for (unsigned i = 0; i < o->nthreads; i++)
		if (o->threads[i].th.tid == th->tid)
			return &o->threads[i];
	size_t cap = o->capthreads;
	if (array_reserve((void **)&o->threads, &cap, o->nthreads, sizeof(*o->threads), 16) < 0)
		return NULL;
	o->capthreads = (unsigned)cap;
	struct pthread_row *t = &o->threads[o->nthreads++];
	memset(t, 0, sizeof(*t));
	t->th.tid = th->tid;
	strlcpy_ps(t->th.comm, th->name, sizeof(t->th.comm));
	return t;
}

/* The location of a function without an address (this tier names
 * functions only; agg interns them). */
static uint32_t loc_of(struct ocproc *o, const char *name, const char *module, const char *file, int line,
		       unsigned flags)
{
	struct samp_fninfo fi = { .name = name, .module = module, .file = file, .line = line, .flags = flags };
	return agg_func_loc(o->agg, agg_func(o->agg, &fi));
}

/* The kernel part of a blocked thread's stack, leaf first: /proc/TID/stack
 * ("[<0>] do_nanosleep+0x6f/0x120"), or the function it sleeps in. */
static unsigned kernel_frames(struct ocproc *o, const struct stk_thread *th, uint32_t *fr, unsigned max)
{
	char path[64], buf[4096];
	unsigned n = 0;

	snprintf(path, sizeof(path), "task/%d/stack", (int)th->tid);
	ssize_t len = read_file_at(o->t.dirfd, path, buf, sizeof(buf));
	for (char *p = len > 0 ? buf : NULL, *nl; p && *p && n < max; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		char *f = strchr(p, ']');
		if (!f || f[1] != ' ')
			continue;
		f += 2;
		f[strcspn(f, "+ ")] = '\0';
		if (!*f || !strncmp(f, "entry_SYSCALL", 13) || !strcmp(f, "do_syscall_64"))
			continue; /* the system call's entry: named by the syscall frame below */
		uint32_t id = loc_of(o, f, "[kernel]", NULL, 0, SAMP_F_KERNEL);
		if (id != SAMP_NONE)
			fr[n++] = id;
	}
	if (!n && th->wchan[0] && strcmp(th->wchan, "0") && n < max) {
		uint32_t id = loc_of(o, th->wchan, "[kernel]", NULL, 0, SAMP_F_KERNEL);
		if (id != SAMP_NONE)
			fr[n++] = id;
	}
	if (th->syscall_nr >= 0 && th->syscall[0] && n < max) {
		char name[48];
		snprintf(name, sizeof(name), "sys_%s", th->syscall);
		uint32_t id = loc_of(o, name, "[kernel]", NULL, 0, SAMP_F_KERNEL);
		if (id != SAMP_NONE)
			fr[n++] = id;
	}
	return n;
}

static void count_stack(struct ocproc *o, uint32_t id)
{
	while (id >= o->capss)
		if (array_reserve((void **)&o->stack_samples, &o->capss, o->capss, sizeof(*o->stack_samples), 64) < 0)
			return;
	for (size_t i = o->nss; i <= id; i++)
		o->stack_samples[i] = 0;
	if (id >= o->nss)
		o->nss = id + 1;
	o->stack_samples[id]++;
}

/* Are any of the target's threads blocked now? -ESRCH: it is gone. */
static int any_blocked(struct ocproc *o)
{
	if (target_verify(&o->t, NULL) < 0)
		return -ESRCH;
	char path[64], buf[512];
	int fd = openat(o->t.dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	bool blocked = false;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -ESRCH;
	}
	while (!blocked && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "task/%s/stat", de->d_name);
		ssize_t n = read_file_at(o->t.dirfd, path, buf, sizeof(buf));
		const char *p = n > 0 ? strrchr(buf, ')') : NULL;
		blocked = p && p[1] == ' ' && (p[2] == 'S' || p[2] == 'D');
	}
	closedir(d);
	return blocked;
}

static int look(struct ocproc *o)
{
	uint64_t now = now_ns();
	uint64_t w = now - o->last_look_ns;
	int r = any_blocked(o);

	if (w > 2 * o->interval_ns)
		w = 2 * o->interval_ns; /* a late look: not more than its share */
	o->last_look_ns = now;
	o->looks++;
	if (r <= 0)
		return r;
	struct stk_opts so = { .max_frames = PROC_FRAMES, .stack_max = 64 * 1024, .deadline_ms = 100 };
	struct stk_dump *d = NULL;
	struct ps_error e;
	if ((r = stk_dump_run(&o->t.id, &so, &d, &e)) < 0) {
		o->refused++;
		return r == -ESRCH ? -ESRCH : 0;
	}
	o->freezes++;
	for (size_t i = 0; i < d->n_threads; i++) {
		const struct stk_thread *th = &d->threads[i];
		if (th->skipped || (th->state != 'S' && th->state != 'D'))
			continue;
		uint32_t fr[PROC_FRAMES + 40];
		unsigned n = kernel_frames(o, th, fr, 40);
		for (size_t k = 0; k < th->n_frames && n < sizeof(fr) / sizeof(fr[0]); k++) {
			const struct stk_frame *f = &th->frames[k];
			uint32_t id;
			if (!stk_frame_shown(th, f, STK_VIEW_MIXED))
				continue;
			if (f->py)
				id = loc_of(o, f->py->qualname, f->py->file, f->py->file, f->line, SAMP_F_PYTHON);
			else if (f->sym)
				id = loc_of(o, f->sym->function, f->sym->module, f->sym->file, f->sym->line, 0);
			else
				continue;
			if (id != SAMP_NONE)
				fr[n++] = id;
		}
		struct pthread_row *t = thread_of(o, th);
		uint32_t sid = agg_add_stack(o->agg, th->tid, fr, n, SAMP_NONE, w);
		if (!t || sid == SAMP_NONE)
			continue;
		count_stack(o, sid);
		t->th.samples++;
		o->samples++;
	}
	stk_dump_free(d);
	return 0;
}

static int proc_poll(struct samp_source *src, int timeout_ms)
{
	struct ocproc *o = of(src);
	uint64_t until = now_ns() + (uint64_t)timeout_ms * 1000000ULL;

	if (o->exited)
		return -ESRCH;
	if (o->execd)
		return -ESTALE;
	for (;;) {
		uint64_t now = now_ns();
		if (now >= o->next_ns) {
			o->next_ns = now + o->interval_ns;
			if (look(o) == -ESRCH) {
				o->exited = true;
				return -ESRCH;
			}
			if (target_execd(&o->t, o->exec_comm, sizeof(o->exec_comm)) == 1) {
				o->execd = true;
				return -ESTALE;
			}
			now = now_ns();
		}
		if (now >= until)
			return 0;
		uint64_t to = until < o->next_ns ? until : o->next_ns;
		uint64_t left = to > now ? to - now : 0;
		struct timespec ts = { (time_t)(left / 1000000000ULL), (long)(left % 1000000000ULL) };
		nanosleep(&ts, NULL);
	}
}

static int proc_set(struct samp_source *src, int freq, bool idle, struct ps_error *e)
{
	(void)src, (void)freq, (void)idle, (void)e;
	return 0;
}

static int proc_freq(const struct samp_source *src)
{
	(void)src;
	return OC_PROC_HZ;
}

static unsigned long long proc_count(const struct samp_source *src)
{
	return of(src)->samples;
}

static const char *proc_exec_comm(const struct samp_source *src)
{
	return of(src)->exec_comm;
}

static struct samp_snapshot *proc_publish(struct samp_source *src, const char *end_reason)
{
	struct ocproc *o = of(src);
	struct samp_snapshot *sn = calloc(1, sizeof(*sn)), *w = calloc(1, sizeof(*w));
	uint64_t now = now_ns();

	if (!sn || !w) {
		free(sn);
		free(w);
		return NULL;
	}
	double secs = (double)(now - o->last_pub_ns) / 1e9;
	agg_close_interval(o->agg, secs);
	agg_close_interval(o->wagg, secs);
	o->last_pub_ns = now;
	sn->target = w->target = o->t.id;
	strlcpy_ps(sn->comm, o->t.comm, sizeof(sn->comm));
	memcpy(w->comm, sn->comm, sizeof(w->comm));
	snprintf(sn->event, sizeof(sn->event), "proc:blocked-threads");
	memcpy(w->event, sn->event, sizeof(w->event));
	snprintf(sn->event_why, sizeof(sn->event_why), _("the /proc tier: blocked threads sampled %d times a second"),
		 OC_PROC_HZ);
	snprintf(sn->kernel_why, sizeof(sn->kernel_why), "%s",
		 _("kernel stacks from /proc/TID/stack where readable, else the function slept in (wchan)"));
	sn->elapsed = w->elapsed = (double)(now - o->start_ns) / 1e9;
	sn->samples = o->samples;
	sn->offcpu = w->offcpu = true;
	sn->offcpu_sampled = w->offcpu_sampled = true;
	sn->offcpu_interval_ns = w->offcpu_interval_ns = o->interval_ns;
	sn->unwind_dwarf = o->samples;
	if (agg_finish(o->wagg, w, NULL, sizeof(*o->threads), 0, end_reason) < 0) {
		free(sn);
		return NULL;
	}
	sn->wakers = w;
	if (agg_finish(o->agg, sn, o->threads ? &o->threads->th : NULL, sizeof(*o->threads), o->nthreads,
		       end_reason) < 0)
		return NULL;
	return oc_snapshot_stacks(sn, o->stack_samples, NULL, o->nss);
}

static void proc_close(struct samp_source *src)
{
	struct ocproc *o = of(src);

	free(o->threads);
	free(o->stack_samples);
	agg_free(o->agg);
	agg_free(o->wagg);
	target_close(&o->t);
	free(o);
}

static const struct samp_source_ops proc_ops = {
	.name = "offcpu-proc",
	.poll = proc_poll,
	.set = proc_set,
	.freq = proc_freq,
	.count = proc_count,
	.exec_comm = proc_exec_comm,
	.publish = proc_publish,
	.close = proc_close,
};
