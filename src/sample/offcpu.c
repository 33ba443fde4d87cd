/* The off-CPU tracer, a source (source.h) on the tracepoint tier: where the
 * target's threads block, weighed by how long, and who woke them.
 *
 *   per target thread and CPU   sched_switch and sched_wakeup with the
 *                               call chain, the user registers and a copy
 *                               of the user stack: the stack a thread
 *                               blocks with (it switches out), and the
 *                               stack of a target thread waking another;
 *   per CPU, every task         sched_switch without a chain (when a
 *                               thread runs again), and sched_wakeup with
 *                               the kernel chain (who woke it when the
 *                               waker is not the target's: an interrupt,
 *                               another process).
 *
 * The three layouts go to three sets of rings (SET_*), read through src/perf/ and applied in time order (a record
 * older than the newest less a lag is in order), so a wakeup is matched
 * to its block by thread and time whatever ring it came in. A block is
 * the stretch from a switch-out in a sleeping state (a preemption is a
 * wait for a CPU, not a block) to the thread's next switch-in; one of at
 * least min_block ns is weighed by its length, its stack unwound then
 * (samp_frames: the frames the hot view shows) from the copy kept since
 * the switch-out. The waker profile (snapshot wakers) weighs the waker's
 * stack, under a category naming the waker, by the same time. */
#include "sample/agg.h"
#include "sample/local.h"
#include "sample/offcpu.h"
#include "sample/session.h"
#include "sample/sample.h"
#include "doors/doors.h"
#include "i18n.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define RESCAN_NS 250000000ULL
#define RING_PAGES_STACKS 512     /* the rings of stack copies: 2 MiB per CPU */


static const struct samp_source_ops offcpu_ops;

static struct ocpu *of(const struct samp_source *src)
{
	return (struct ocpu *)src; /* src is its session's first member */
}

static void close_fds(struct ocpu *o, struct othread *t)
{
	if (!t->fds)
		return;
	for (unsigned i = 0; i < 2 * o->nrings; i++)
		if (t->fds[i] >= 0) {
			close(t->fds[i]);
			t->fds[i] = -1;
		}
}

/* The thread's own events on every CPU. 0 or -errno. */
static int open_thread(struct ocpu *o, struct othread *t)
{
	for (unsigned r = 0; r < o->nrings; r++)
		for (int k = 0; k < EVS; k++) {
			uint64_t id;
			int fd = perf_open_into(&o->attr[SET_TASK][k], t->th.tid, o->cpu_of[r], &o->rings[SET_TASK][r]);
			if (fd < 0) {
				close_fds(o, t);
				return fd;
			}
			t->fds[2 * r + k] = fd;
			if (perf_event_id(fd, &id) < 0 || perf_reader_add_tp(&o->rd[SET_TASK], id, &o->tps[k]) < 0) {
				close_fds(o, t);
				return -ENOMEM;
			}
		}
	return 0;
}

static void read_comm(struct ocpu *o, struct othread *t)
{
	char path[64], buf[32];
	snprintf(path, sizeof(path), "task/%d/comm", (int)t->th.tid);
	if (read_file_at(o->s.t.dirfd, path, buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		strlcpy_ps(t->th.comm, buf, sizeof(t->th.comm));
	}
}

/* Follow the threads of /proc/PID/task: events for new ones, the gone
 * ones' closed. -ESRCH when the process is gone. */
static int rescan(struct ocpu *o, int *first_err)
{
	int fd = openat(o->s.t.dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		int err = fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOMEM) ? -errno : -ESRCH;
		if (fd >= 0)
			close(fd);
		return err;
	}
	for (unsigned i = 0; i < o->nthreads; i++)
		o->threads[i].in_scan = false;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		pid_t tid = (pid_t)atoi(de->d_name);
		struct othread *t = oc_thread_of(o, tid);
		if (!t) {
			if (array_reserve((void **)&o->threads, &o->capthreads, o->nthreads, sizeof(*o->threads), 16) < 0)
				continue;
			t = &o->threads[o->nthreads];
			memset(t, 0, sizeof(*t));
			t->th.tid = tid;
			if (!(t->fds = malloc(2 * o->nrings * sizeof(int))) ||
			    hmap_put(&o->tids, (uint64_t)tid, o->nthreads) < 0) {
				free(t->fds);
				continue;
			}
			for (unsigned i = 0; i < 2 * o->nrings; i++)
				t->fds[i] = -1;
			o->nthreads++;
			read_comm(o, t);
			int r = open_thread(o, t);
			if (r < 0 && r != -ESRCH) {
				o->untraced++;
				if (first_err && !*first_err)
					*first_err = r;
			}
		}
		t->in_scan = true;
		t->th.gone = false;
	}
	closedir(d);
	for (unsigned i = 0; i < o->nthreads; i++)
		if (!o->threads[i].in_scan && !o->threads[i].th.gone) {
			o->threads[i].th.gone = true;
			close_fds(o, &o->threads[i]);
		}
	return 0;
}

static void offcpu_close(struct samp_source *src);

static int open_set(struct ocpu *o, int k, struct ps_error *e)
{
	size_t pages = k == SET_TASK ? RING_PAGES_STACKS : PERF_RING_PAGES;
	struct perf_format fmt;

	perf_format_of(&o->attr[k][k == SET_CPUSW ? EV_SWITCH : EV_WAKEUP], &fmt);
	if (perf_reader_init(&o->rd[k], k == SET_TASK ? &oc_task_consumer : &oc_cpu_consumer, o, &fmt) < 0)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	o->rd_init[k] = true;
	for (unsigned r = 0; r < o->nrings; r++) {
		int rc = perf_ring_open(&o->rings[k][r], o->cpu_of[r], false, pages, o->s.t.id.pid, e);
		if (rc < 0)
			return rc;
		o->nopen[k]++;
	}
	return 0;
}

int samp_offcpu_open(struct samp_source **out, const struct samp_offcpu_opts *opt, struct ps_error *e)
{
	struct ocpu *o = calloc(1, sizeof(*o));
	struct samp_session *s = &o->s;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int r;

	*out = NULL;
	if (!o)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	s->src.ops = &offcpu_ops;
	s->kernel_func = o->wkernel_func = SAMP_NONE;
	s->t.pidfd = s->t.dirfd = -1;
	o->min_block_ns = opt->min_block_ns;
	int copy = opt->stack_copy == 0 ? SAMP_STACK_COPY_DEFAULT : opt->stack_copy < 0 ? 0 : opt->stack_copy;
	if (copy > SAMP_STACK_COPY_MAX || (copy & 7)) {
		free(o);
		return ps_error_set(e, EINVAL, _("stack copy of %d bytes: a multiple of 8, at most %d"), opt->stack_copy,
				    SAMP_STACK_COPY_MAX);
	}
	if ((r = target_open(&s->t, opt->pid, opt->want, e)) < 0) {
		free(o);
		return r;
	}
	if (target_is_kernel_thread(&s->t)) {
		r = ps_error_set(e, EINVAL, _("process %d is a kernel thread: it has no user space to trace"), (int)opt->pid);
		offcpu_close(&s->src);
		return r;
	}
	if (!door_have_perfmon()) {
		/* The /proc tier then: statistical, and said so. Refused too:
		 * both doors named. */
		offcpu_close(&s->src);
		if ((r = samp_offcpu_proc_open(out, opt, e)) == 0)
			return 0;
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e->msg);
		ps_error_set(e, -r, _("off-CPU stacks trace the scheduler's events of every CPU: they need CAP_PERFMON; "
				      "sampling the blocked threads instead was refused too: %s"),
			     why);
		e->door = DOOR_PERF_CAP;
		snprintf(e->fix, sizeof(e->fix), "%s", _("run pscope as root, or `setcap cap_perfmon+ep pscope`"));
		return r;
	}
	struct rlimit rl; /* each (thread, CPU) is two fds */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	s->agg = agg_new(SAMP_UNIT_NS_BLOCKED);
	o->wagg = agg_new(SAMP_UNIT_NS_BLOCKED);
	bool rings_ok = true;
	for (int k = 0; k < SETS; k++)
		rings_ok = (o->rings[k] = calloc((size_t)ncpu, sizeof(struct perf_ring))) != NULL && rings_ok;
	o->cpu_of = calloc((size_t)ncpu, sizeof(int));
	o->cpu_fds = calloc((size_t)ncpu * EVS, sizeof(int));
	if (!s->agg || !o->wagg || !rings_ok || !o->cpu_of || !o->cpu_fds) {
		offcpu_close(&s->src);
		return ps_error_set(e, ENOMEM, _("out of memory"));
	}
	static const char *const names[EVS] = { "sched_switch", "sched_wakeup" };
	for (int k = 0; k < EVS; k++)
		if ((r = perf_tp_load(&o->tps[k], "sched", names[k], e)) < 0) {
			offcpu_close(&s->src);
			return r;
		}
	s->stack_copy = (unsigned)copy;
	s->regs_mask = copy ? SAMP_REGS_MASK : 0;
	for (int k = 0; k < EVS; k++) {
		struct perf_event_attr *a = &o->attr[SET_CPU][k];
		perf_tp_attr(&o->tps[k], PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN, a);
		a->exclude_callchain_user = 1; /* another process's user stack means nothing here */
		perf_tp_attr(&o->tps[k], PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU, &o->attr[SET_CPUSW][k]);
		a = &o->attr[SET_TASK][k];
		perf_tp_attr(&o->tps[k],
			     PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN |
				     (copy ? SAMP_SAMPLE_DWARF : 0),
			     a);
		a->sample_regs_user = s->regs_mask;
		a->sample_stack_user = (uint32_t)copy;
	}
	for (long c = 0; c < ncpu; c++) {
		char path[64];
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/online", c);
		char buf[8];
		if (c > 0 && read_file_at(AT_FDCWD, path, buf, sizeof(buf)) > 0 && buf[0] == '0')
			continue;
		o->cpu_of[o->nrings++] = (int)c;
	}
	for (int k = 0; k < SETS; k++)
		if ((r = open_set(o, k, e)) < 0) {
			offcpu_close(&s->src);
			return r;
		}
	s->ksyms_named = sym_kernel_named();
	if (samp_space_init(&s->one, s->t.id.pid, s->t.uid, SYM_SOURCE, copy != 0) < 0) {
		offcpu_close(&s->src);
		return ps_error_set(e, ENOMEM, _("out of memory"));
	}
	/* The target's threads (their own events) first, then every CPU's. */
	int err = 0;
	if ((r = rescan(o, &err)) < 0) {
		offcpu_close(&s->src);
		return door_refused(e, PS_OP_SAMPLE, opt->pid, r == -ESRCH ? ESRCH : -r, _("trace"));
	}
	if (o->untraced == o->nthreads) {
		offcpu_close(&s->src);
		return perf_refused(e, opt->pid, err ? -err : ESRCH, _("trace"));
	}
	for (unsigned r2 = 0; r2 < o->nrings; r2++)
		for (int k = 0; k < EVS; k++) {
			uint64_t id;
			int set = k == EV_SWITCH ? SET_CPUSW : SET_CPU;
			int fd = perf_open_into(&o->attr[set][k], -1, o->cpu_of[r2], &o->rings[set][r2]);
			if (fd < 0) {
				offcpu_close(&s->src);
				return perf_refused(e, -1, -fd, _("trace the scheduler of every CPU"));
			}
			o->cpu_fds[o->ncpu_fds++] = fd;
			if (perf_event_id(fd, &id) < 0 || perf_reader_add_tp(&o->rd[set], id, &o->tps[k]) < 0) {
				offcpu_close(&s->src);
				return ps_error_set(e, ENOMEM, _("out of memory"));
			}
		}
	oc_py_open(o);
	sym_proc_stale(s->one.sym, false);
	s->start_ns = s->last_pub_ns = s->last_scan_ns = now_ns();
	*out = &s->src;
	return 0;
}

static int offcpu_poll(struct samp_source *src, int timeout_ms)
{
	struct ocpu *o = of(src);
	struct samp_session *s = &o->s;
	uint64_t until = now_ns() + (uint64_t)timeout_ms * 1000000ULL;

	if (s->exited)
		return -ESRCH;
	if (s->execd)
		return -ESTALE;
	for (;;) {
		oc_drain(o, false);
		uint64_t now = now_ns();
		if (now - s->last_scan_ns >= RESCAN_NS) {
			s->last_scan_ns = now;
			if (target_verify(&s->t, NULL) < 0 || rescan(o, NULL) == -ESRCH) {
				oc_drain(o, true);
				s->exited = true;
				return -ESRCH;
			}
			if (target_execd(&s->t, s->exec_comm, sizeof(s->exec_comm)) == 1) {
				oc_drain(o, true);
				s->execd = true;
				return -ESTALE;
			}
		}
		if (now >= until)
			return 0;
		uint64_t left = (until - now) / 1000000ULL;
		struct timespec ts = { 0, (long)((left < 20 ? left + 1 : 20) * 1000000ULL) };
		nanosleep(&ts, NULL);
	}
}

static int offcpu_set(struct samp_source *src, int freq, bool idle, struct ps_error *e)
{
	(void)src, (void)freq, (void)idle, (void)e;
	return 0; /* every block is traced: no rate */
}

static int offcpu_freq(const struct samp_source *src)
{
	(void)src;
	return 0;
}

static unsigned long long offcpu_count(const struct samp_source *src)
{
	return of(src)->blocks;
}

static const char *offcpu_exec_comm(const struct samp_source *src)
{
	return of(src)->s.exec_comm;
}

static struct samp_snapshot *offcpu_publish(struct samp_source *src, const char *end_reason)
{
	struct ocpu *o = of(src);
	struct samp_session *s = &o->s;
	struct samp_snapshot *sn = calloc(1, sizeof(*sn)), *w = calloc(1, sizeof(*w));
	uint64_t now = now_ns();

	if (!sn || !w) {
		free(sn);
		free(w);
		return NULL;
	}
	oc_drain(o, end_reason != NULL);
	double secs = (double)(now - s->last_pub_ns) / 1e9;
	agg_close_interval(s->agg, secs);
	agg_close_interval(o->wagg, secs);
	s->last_pub_ns = now;
	sn->target = w->target = s->t.id;
	strlcpy_ps(sn->comm, s->t.comm, sizeof(sn->comm));
	snprintf(sn->event, sizeof(sn->event), "sched:sched_switch");
	snprintf(sn->event_why, sizeof(sn->event_why), "%s",
		 _("tracepoints through perf_event_open: every switch-out of the target's threads with its stacks, "
		   "every CPU's switches and wakeups"));
	snprintf(sn->kernel_why, sizeof(sn->kernel_why), "%s", _("kernel stacks from the call chain"));
	memcpy(w->comm, sn->comm, sizeof(w->comm));
	memcpy(w->event, sn->event, sizeof(w->event));
	sn->elapsed = w->elapsed = (double)(now - s->start_ns) / 1e9;
	sn->samples = o->blocks;
	w->samples = o->blocks - o->unmatched;
	sn->lost = w->lost = o->rd[SET_CPU].lost + o->rd[SET_TASK].lost + o->rd[SET_CPUSW].lost + o->dropped;
	sn->truncated = s->truncated;
	sn->unwind_fp = s->unwind_fp;
	sn->unwind_dwarf = s->unwind_dwarf;
	sn->stack_copy = w->stack_copy = (int)s->stack_copy;
	sn->threads_unsampled = o->untraced;
	if (o->untraced)
		snprintf(sn->unsampled_why, sizeof(sn->unsampled_why), "%s",
			 _("their events could not be opened (the fd limit, or they exited)"));
	sn->offcpu = w->offcpu = true;
	sn->min_block_ns = w->min_block_ns = o->min_block_ns;
	sn->short_blocks = w->short_blocks = o->short_blocks;
	sn->unmatched = w->unmatched = o->unmatched;
	if (o->py)
		strlcpy_ps(sn->py_version, py_version(o->py), sizeof(sn->py_version));
	sn->py_blocks = o->py_blocks;
	sn->py_unread = o->py_unread;
	w->truncated = s->truncated;
	w->unwind_fp = s->unwind_fp;
	w->unwind_dwarf = s->unwind_dwarf;
	if (agg_finish(o->wagg, w, o->threads ? &o->threads->th : NULL, sizeof(*o->threads), o->nthreads, end_reason) <
	    0) {
		free(sn);
		return NULL;
	}
	sn->wakers = w;
	if (o->nlinks && !(sn->wakes = malloc(o->nlinks * sizeof(*sn->wakes)))) {
		samp_snapshot_free(sn);
		return NULL;
	}
	if (o->nlinks)
		memcpy(sn->wakes, o->links, o->nlinks * sizeof(*sn->wakes));
	sn->nwakes = o->nlinks;
	if (agg_finish(s->agg, sn, o->threads ? &o->threads->th : NULL, sizeof(*o->threads), o->nthreads, end_reason) < 0)
		return NULL;
	return oc_snapshot_stacks(sn, o->stack_blocks, o->stack_runq, o->nsb);
}

struct samp_snapshot *oc_snapshot_stacks(struct samp_snapshot *sn, const unsigned long long *blocks,
					 const unsigned long long *runq, size_t n)
{
	if (!(sn->stack_blocks = calloc(sn->nstacks + 1, sizeof(*sn->stack_blocks))) ||
	    !(sn->stack_runq = calloc(sn->nstacks + 1, sizeof(*sn->stack_runq)))) {
		samp_snapshot_free(sn);
		return NULL;
	}
	for (size_t i = 0; i < n && i < sn->nstacks; i++) {
		sn->stack_blocks[i] = blocks[i];
		sn->stack_runq[i] = runq ? runq[i] : 0;
	}
	return sn;
}

static void offcpu_close(struct samp_source *src)
{
	struct ocpu *o = of(src);
	struct samp_session *s = &o->s;

	for (int i = 0; i < o->ncpu_fds; i++)
		close(o->cpu_fds[i]);
	for (unsigned i = 0; i < o->nthreads; i++) {
		close_fds(o, &o->threads[i]);
		oc_forget_block(&o->threads[i]);
		free(o->threads[i].fds);
	}
	free(o->threads);
	hmap_free(&o->tids);
	for (size_t i = 0; i < o->nq; i++) {
		free(o->q[i].copy);
		free(o->q[i].py);
	}
	free(o->q);
	for (int k = 0; k < SETS; k++) {
		for (unsigned r = 0; r < o->nopen[k]; r++)
			perf_ring_close(&o->rings[k][r]);
		free(o->rings[k]);
		if (o->rd_init[k])
			perf_reader_fini(&o->rd[k]);
	}
	oc_py_close(o);
	free(o->cpu_of);
	free(o->cpu_fds);
	free(o->comms);
	hmap_free(&o->comm_idx);
	free(o->links);
	hmap_free(&o->link_idx);
	free(o->stack_blocks);
	free(o->stack_runq);
	hmap_free(&o->wkpcs);
	hmap_free(&o->wpcs);
	hmap_free(&s->kpcs);
	samp_space_fini(&s->one);
	agg_free(s->agg);
	agg_free(o->wagg);
	target_close(&s->t);
	free(o);
}

static const struct samp_source_ops offcpu_ops = {
	.name = "offcpu",
	.poll = offcpu_poll,
	.set = offcpu_set,
	.freq = offcpu_freq,
	.count = offcpu_count,
	.exec_comm = offcpu_exec_comm,
	.publish = offcpu_publish,
	.close = offcpu_close,
};
