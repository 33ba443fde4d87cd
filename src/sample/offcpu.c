/* The off-CPU tracer, a source (source.h) on the tracepoint tier: where the
 * target's threads block, weighed by how long, and who woke them.
 *
 *   per target thread and CPU   sched_switch and sched_wakeup with the
 *                               call chain, the user registers and a copy
 *                               of the user stack: the stack a thread
 *                               blocks with (it switches out), and the
 *                               stack of a target thread waking another;
 *   per CPU, every task         sched_switch (when a thread runs again)
 *                               and sched_wakeup with the kernel chain
 *                               (who woke it when the waker is not the
 *                               target's: an interrupt, another process).
 *
 * The two kinds go to two sets of rings (their records are laid out
 * apart), read through src/perf/ and applied in time order (a record
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
#define LAG_NS 20000000ULL        /* records this much older than the newest are in order */
#define RING_PAGES_STACKS 512     /* the rings of stack copies: 2 MiB per CPU */

enum { SET_CPU, SET_TASK, SETS };      /* per CPU for every task; per target thread */
enum { EV_SWITCH, EV_WAKEUP, EVS };
enum oc_kind { OC_OUT, OC_IN, OC_WAKE };

static const struct samp_source_ops offcpu_ops;

static struct ocpu *of(const struct samp_source *src)
{
	return (struct ocpu *)src; /* src is its session's first member */
}

/* A sample kept past its callback: its chain, registers and stack copy. */
static struct oc_copy *copy_of(const struct perf_sample *s)
{
	size_t regs = s->regs ? SAMP_NREGS : 0;
	struct oc_copy *c = malloc(sizeof(*c) + (s->nr + regs) * sizeof(uint64_t) + s->stack_size);

	if (!c)
		return NULL;
	c->s = *s;
	uint64_t *p = c->data;
	if (s->nr)
		memcpy(p, s->ips, s->nr * sizeof(uint64_t));
	c->s.ips = p;
	p += s->nr;
	if (regs) {
		memcpy(p, s->regs, regs * sizeof(uint64_t));
		c->s.regs = p;
		p += regs;
	}
	if (s->stack_size)
		memcpy(p, s->stack, s->stack_size);
	c->s.stack = (const unsigned char *)p;
	c->s.raw = NULL;
	c->s.raw_size = 0;
	return c;
}

static struct othread *thread_of(struct ocpu *o, pid_t tid)
{
	uint32_t i = samp_id_get(&o->tids, (uint64_t)tid);
	return i == SAMP_NONE ? NULL : &o->threads[i];
}

/* A task's name as the scheduler's records last gave it ("?" unknown). */
static const char *comm_of(struct ocpu *o, pid_t tid)
{
	struct othread *t = thread_of(o, tid);
	uint32_t i = samp_id_get(&o->comm_idx, (uint64_t)tid);

	if (t && t->th.comm[0])
		return t->th.comm;
	return i == SAMP_NONE ? "?" : o->comms[i].comm;
}

static void learn_comm(struct ocpu *o, pid_t tid, const char *comm)
{
	uint32_t i = samp_id_get(&o->comm_idx, (uint64_t)tid);

	if (i != SAMP_NONE) {
		if (strncmp(o->comms[i].comm, comm, 16))
			strlcpy_ps(o->comms[i].comm, comm, sizeof(o->comms[i].comm));
		return;
	}
	if (o->ncomms >= OC_COMMS_MAX)
		return; /* named "?" past the cap */
	if (array_reserve((void **)&o->comms, &o->capcomms, o->ncomms, sizeof(*o->comms), 256) < 0 ||
	    hmap_put(&o->comm_idx, (uint64_t)tid, o->ncomms) < 0)
		return;
	strlcpy_ps(o->comms[o->ncomms].comm, comm, sizeof(o->comms[o->ncomms].comm));
	o->ncomms++;
}

static void push(struct ocpu *o, const struct oc_ev *x)
{
	if (array_reserve((void **)&o->q, &o->qcap, o->nq, sizeof(*o->q), 1024) < 0) {
		free(x->copy);
		o->dropped++;
		return;
	}
	o->q[o->nq++] = *x;
	if (x->time > o->newest)
		o->newest = x->time;
}

/* Records of every task on a CPU: a target thread running again, or
 * woken (by a task of any process, or an interrupt). */
static void on_cpu_tp(void *ctx, const struct perf_sample *s, const struct perf_tp_event *ev)
{
	struct ocpu *o = ctx;
	struct oc_ev x = { .time = s->time };

	if (ev->tp->kind == PERF_TP_SCHED_SWITCH) {
		learn_comm(o, ev->sw.prev_pid, ev->sw.prev_comm);
		if (!thread_of(o, ev->sw.next_pid))
			return;
		x.kind = OC_IN;
		x.tid = ev->sw.next_pid;
	} else if (ev->tp->kind == PERF_TP_SCHED_WAKEUP) {
		struct othread *w = thread_of(o, (pid_t)s->tid);
		if (!thread_of(o, ev->wk.pid))
			return;
		/* A target thread's own events bring its user stack. */
		if (w && w->fds && w->fds[0] >= 0)
			return;
		x.kind = OC_WAKE;
		x.tid = ev->wk.pid;
		x.waker = (pid_t)s->tid;
		if (!(x.copy = copy_of(s))) {
			o->dropped++;
			return;
		}
	} else {
		return;
	}
	push(o, &x);
}

/* Records of a target thread's own events: it switches out (its stack),
 * or it wakes a thread of the target (its stack too). */
static void on_task_tp(void *ctx, const struct perf_sample *s, const struct perf_tp_event *ev)
{
	struct ocpu *o = ctx;
	struct oc_ev x = { .time = s->time };

	if (ev->tp->kind == PERF_TP_SCHED_SWITCH) {
		if (ev->sw.prev_pid != (pid_t)s->tid || !thread_of(o, ev->sw.prev_pid))
			return;
		x.kind = OC_OUT;
		x.tid = ev->sw.prev_pid;
		x.state = ev->sw.prev_state;
		/* Preempted, or still runnable: waiting for a CPU, not a block. */
		if (x.state == 0 || (x.state & OC_PREEMPTED)) {
			push(o, &x);
			return;
		}
	} else if (ev->tp->kind == PERF_TP_SCHED_WAKEUP) {
		if (!thread_of(o, ev->wk.pid) || !thread_of(o, (pid_t)s->tid))
			return;
		x.kind = OC_WAKE;
		x.tid = ev->wk.pid;
		x.waker = (pid_t)s->tid;
	} else {
		return;
	}
	if (!(x.copy = copy_of(s))) {
		o->dropped++;
		return;
	}
	push(o, &x);
}

static const struct perf_consumer cpu_consumer = { .on_tracepoint = on_cpu_tp };
static const struct perf_consumer task_consumer = { .on_tracepoint = on_task_tp };

/* Room for index i in an array of cap elements. 0 or -ENOMEM. */
static int reserve_to(void **v, size_t *cap, size_t i, size_t elem)
{
	while (i >= *cap)
		if (array_reserve(v, cap, *cap, elem, 256) < 0)
			return -ENOMEM;
	return 0;
}

/* Did the wakeup come from an interrupt (a timer's, a device's) that
 * happened to stop the task it names? Its kernel chain says so: the
 * length of the chain up to the interrupt's entry (what it interrupted
 * left out), or 0. */
static uint64_t from_interrupt(const struct perf_sample *w)
{
	static const char *const entries[] = { "asm_sysvec_", "asm_common_interrupt", "handle_softirqs", "__do_softirq",
					       "asm_exc_", "irq_exit" };
	bool kernel = false;

	if (!sym_kernel_named())
		return false;
	for (uint64_t i = 0; i < w->nr; i++) {
		uint64_t v = w->ips[i];
		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = v == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (!kernel)
			continue;
		const char *fn, *mod;
		sym_kernel(v, &fn, &mod);
		for (size_t k = 0; fn && k < sizeof(entries) / sizeof(entries[0]); k++)
			if (!strncmp(fn, entries[k], strlen(entries[k])))
				return i + 1;
	}
	return 0;
}

/* Weigh the block of t that ended at `end`. */
static void account(struct ocpu *o, struct othread *t, uint64_t end)
{
	struct samp_session *s = &o->s;
	uint32_t fr[SAMP_MAX_FRAMES];
	uint64_t leaf, w = end - t->t0;

	if (w < o->min_block_ns) {
		o->short_blocks++;
		return;
	}
	unsigned n = samp_frames(s, &s->one, &t->out->s, fr, &leaf);
	uint32_t id = agg_add_stack(s->agg, t->th.tid, fr, n, SAMP_NONE, w);
	if (id == SAMP_NONE)
		return;
	o->blocks++;
	if (reserve_to((void **)&o->stack_blocks, &o->capsb, id, sizeof(*o->stack_blocks)) == 0 &&
	    reserve_to((void **)&o->stack_runq, &o->caprq, id, sizeof(*o->stack_runq)) == 0) {
		for (size_t i = o->nsb; i <= id; i++)
			o->stack_blocks[i] = o->stack_runq[i] = 0;
		if (id >= o->nsb)
			o->nsb = id + 1;
		o->stack_blocks[id]++;
		/* Woken, then waiting for a CPU until it ran. */
		if (t->wake && t->woken >= t->t0 && t->woken <= end)
			o->stack_runq[id] += end - t->woken;
	}
	t->th.samples++;
	if (!t->wake) {
		o->unmatched++;
		return;
	}
	/* The waker's stack, in the waker profile's ids. */
	struct agg *main_agg = s->agg;
	struct hmap kp = s->kpcs, up = s->one.pcs;
	uint32_t kf = s->kernel_func;
	s->agg = o->wagg;
	s->kpcs = o->wkpcs;
	s->one.pcs = o->wpcs;
	s->kernel_func = o->wkernel_func;
	bool ours = thread_of(o, t->waker) != NULL;
	struct perf_sample ws = t->wake->s;
	uint64_t cut = from_interrupt(&ws);
	bool irq = cut != 0;
	if (irq) {
		ws.nr = cut;
		ws.regs = NULL; /* the interrupted task's user state is not the waker's */
		ws.stack_size = 0;
	}
	n = samp_frames(s, ours && !irq ? &s->one : NULL, &ws, fr, &leaf);
	char name[64];
	if (irq) /* whichever task it stopped: one waker */
		snprintf(name, sizeof(name), "interrupt"); /* a category: English in files, as the others */
	else
		snprintf(name, sizeof(name), "%s-%d", comm_of(o, t->waker), (int)t->waker);
	uint32_t wid = agg_add_stack(o->wagg, t->th.tid, fr, n, agg_category(o->wagg, name), w);
	o->wkpcs = s->kpcs;
	o->wpcs = s->one.pcs;
	o->wkernel_func = s->kernel_func;
	s->agg = main_agg;
	s->kpcs = kp;
	s->one.pcs = up;
	s->kernel_func = kf;
	if (wid == SAMP_NONE)
		return;
	/* One pair per block stack, waker and waker functions (the same
	 * functions at other call sites are one line of the report). */
	uint64_t key = hmap_mix((uint64_t)id << 32 | (uint32_t)(irq ? 0 : t->waker));
	for (unsigned i = 0; i < n; i++)
		key = hmap_mix(key ^ agg_loc_func(o->wagg, fr[i])) + i;
	uint32_t li = samp_id_get(&o->link_idx, key);
	if (li == SAMP_NONE) {
		if (array_reserve((void **)&o->links, &o->caplinks, o->nlinks, sizeof(*o->links), 64) < 0 ||
		    hmap_put(&o->link_idx, key, o->nlinks) < 0)
			return;
		li = o->nlinks++;
		o->links[li] = (struct samp_wake){ .stack = id, .wstack = wid, .waker = irq ? 0 : t->waker, .interrupt = irq };
		strlcpy_ps(o->links[li].comm, irq ? "" : comm_of(o, t->waker), sizeof(o->links[li].comm));
	}
	o->links[li].weight += w;
	o->links[li].blocks++;
}

static void forget_block(struct othread *t)
{
	free(t->out);
	free(t->wake);
	t->out = t->wake = NULL;
	t->blocked = false;
}

static void apply(struct ocpu *o, struct oc_ev *x)
{
	struct othread *t = thread_of(o, x->tid);

	if (!t) {
		free(x->copy);
		return;
	}
	switch (x->kind) {
	case OC_OUT:
		forget_block(t);
		if (x->copy) { /* asleep: a block begins */
			t->out = x->copy;
			t->t0 = x->time;
			t->blocked = true;
		}
		return;
	case OC_WAKE:
		if (t->blocked && !t->wake) { /* the first wakeup ends the block */
			t->wake = x->copy;
			t->waker = x->waker;
			t->woken = x->time;
		} else {
			free(x->copy);
		}
		return;
	case OC_IN:
		if (t->blocked && x->time >= t->t0)
			account(o, t, x->time);
		forget_block(t);
		return;
	}
}

static int cmp_ev(const void *a, const void *b)
{
	const struct oc_ev *x = a, *y = b;
	return (x->time > y->time) - (x->time < y->time);
}

static void drain(struct ocpu *o, bool all)
{
	for (int k = 0; k < SETS; k++)
		for (unsigned r = 0; r < o->nrings; r++)
			perf_read(&o->rd[k], &o->rings[k][r]);
	sort_array(o->q, o->nq, sizeof(*o->q), cmp_ev);
	uint64_t mark = all ? UINT64_MAX : o->newest > LAG_NS ? o->newest - LAG_NS : 0;
	size_t i = 0;
	for (; i < o->nq && o->q[i].time <= mark; i++)
		apply(o, &o->q[i]);
	if (i > 0 && i < o->nq)
		memmove(o->q, o->q + i, (o->nq - i) * sizeof(*o->q));
	o->nq -= i;
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
		struct othread *t = thread_of(o, tid);
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

	perf_format_of(&o->attr[k][0], &fmt);
	if (perf_reader_init(&o->rd[k], k == SET_CPU ? &cpu_consumer : &task_consumer, o, &fmt) < 0)
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
		ps_error_set(e, EPERM, _("off-CPU stacks trace the scheduler's events of every CPU: they need CAP_PERFMON"));
		e->door = DOOR_PERF_CAP;
		snprintf(e->fix, sizeof(e->fix), "%s", _("run pscope as root, or `setcap cap_perfmon+ep pscope`"));
		offcpu_close(&s->src);
		return -EPERM;
	}
	struct rlimit rl; /* each (thread, CPU) is two fds */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	s->agg = agg_new(SAMP_UNIT_NS_BLOCKED);
	o->wagg = agg_new(SAMP_UNIT_NS_BLOCKED);
	o->rings[0] = calloc((size_t)ncpu, sizeof(struct perf_ring));
	o->rings[1] = calloc((size_t)ncpu, sizeof(struct perf_ring));
	o->cpu_of = calloc((size_t)ncpu, sizeof(int));
	o->cpu_fds = calloc((size_t)ncpu * EVS, sizeof(int));
	if (!s->agg || !o->wagg || !o->rings[0] || !o->rings[1] || !o->cpu_of || !o->cpu_fds) {
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
			int fd = perf_open_into(&o->attr[SET_CPU][k], -1, o->cpu_of[r2], &o->rings[SET_CPU][r2]);
			if (fd < 0) {
				offcpu_close(&s->src);
				return perf_refused(e, -1, -fd, _("trace the scheduler of every CPU"));
			}
			o->cpu_fds[o->ncpu_fds++] = fd;
			if (perf_event_id(fd, &id) < 0 || perf_reader_add_tp(&o->rd[SET_CPU], id, &o->tps[k]) < 0) {
				offcpu_close(&s->src);
				return ps_error_set(e, ENOMEM, _("out of memory"));
			}
		}
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
		drain(o, false);
		uint64_t now = now_ns();
		if (now - s->last_scan_ns >= RESCAN_NS) {
			s->last_scan_ns = now;
			if (target_verify(&s->t, NULL) < 0 || rescan(o, NULL) == -ESRCH) {
				drain(o, true);
				s->exited = true;
				return -ESRCH;
			}
			if (target_execd(&s->t, s->exec_comm, sizeof(s->exec_comm)) == 1) {
				drain(o, true);
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
	drain(o, end_reason != NULL);
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
	sn->lost = w->lost = o->rd[SET_CPU].lost + o->rd[SET_TASK].lost + o->dropped;
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
	if (!(sn->stack_blocks = calloc(sn->nstacks + 1, sizeof(*sn->stack_blocks))) ||
	    !(sn->stack_runq = calloc(sn->nstacks + 1, sizeof(*sn->stack_runq)))) {
		samp_snapshot_free(sn);
		return NULL;
	}
	for (size_t i = 0; i < o->nsb && i < sn->nstacks; i++) {
		sn->stack_blocks[i] = o->stack_blocks[i];
		sn->stack_runq[i] = o->stack_runq[i];
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
		forget_block(&o->threads[i]);
		free(o->threads[i].fds);
	}
	free(o->threads);
	hmap_free(&o->tids);
	for (size_t i = 0; i < o->nq; i++)
		free(o->q[i].copy);
	free(o->q);
	for (int k = 0; k < SETS; k++) {
		for (unsigned r = 0; r < o->nopen[k]; r++)
			perf_ring_close(&o->rings[k][r]);
		free(o->rings[k]);
		if (o->rd_init[k])
			perf_reader_fini(&o->rd[k]);
	}
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
