/* The stack dump: freeze, copy, release, then unwind, symbolize, find the
 * deadlocks and group identical stacks — all after the target runs again. */
#include "freeze.h"
#include "i18n.h"
#include "proc/stat.h"
#include "proc/syscalls.h"
#include "stack/internal.h"
#include "python/python.h"
#include "doors/doors.h"
#include "proc/status.h"
#include "util.h"
#include "i18n.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define FUTEX_CMD_MASK 0x7f

/* What is copied from one thread while it is stopped. */
struct snap_thread {
	struct frozen_thread *ft;
	uint64_t lo;
	size_t len, want;
	unsigned char *stack;
	int futex_op;
	uint64_t futex_addr;
	uint32_t futex_words[5];
	ssize_t futex_got;
};

struct read_req {
	uint64_t addr;
	void *buf;
	size_t len;
	size_t *got;         /* bytes read, may be short */
};

/* Many reads in few process_vm_readv calls; a failing range is retried on
 * its own so one unmapped page does not spoil the rest. */
static void read_batch(pid_t pid, struct read_req *rq, size_t n)
{
	enum { BATCH = 512 };
	struct iovec l[BATCH], r[BATCH];
	size_t i = 0;

	while (i < n) {
		size_t k = 0;
		for (; k < BATCH && i + k < n; k++) {
			l[k].iov_base = rq[i + k].buf;
			l[k].iov_len = rq[i + k].len;
			r[k].iov_base = (void *)(uintptr_t)rq[i + k].addr;
			r[k].iov_len = rq[i + k].len;
			*rq[i + k].got = 0;
		}
		ssize_t got = process_vm_readv(pid, l, k, r, k, 0);
		if (got < 0)
			got = 0;
		size_t left = (size_t)got, done = 0;
		while (done < k && left >= rq[i + done].len) {
			*rq[i + done].got = rq[i + done].len;
			left -= rq[i + done].len;
			done++;
		}
		if (done < k) {
			/* Partial: the one that failed gets what came, then go on
			 * with the next one. */
			if (left) {
				*rq[i + done].got = left;
			} else {
				struct iovec l1 = l[done], r1 = r[done];
				ssize_t g = process_vm_readv(pid, &l1, 1, &r1, 1, 0);
				*rq[i + done].got = g > 0 ? (size_t)g : 0;
			}
			done++;
		}
		i += done;
	}
}

/* Testing the safety paths needs the target held: PSCOPE_STACK_HOLD_MS
 * keeps it frozen that long (cancel still ends the wait). */
static void test_hold(const struct stk_opts *o)
{
	const char *h = getenv("PSCOPE_STACK_HOLD_MS");
	long ms = h ? atol(h) : 0;

	if (ms > 30000) /* a test aid, never a way to hold a process for long */
		ms = 30000;

	for (; ms > 0 && !stk_cancelled(o); ms -= 10) {
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/* Copy the stacks and lock words while frozen, into one arena. */
static int copy_frozen(struct freeze *fz, struct snap_thread *st, const struct proc_maps *maps,
		       const struct stk_opts *o, unsigned char **arena)
{
	size_t nreq = 0, total = 0;
	struct read_req *rq = calloc(fz->n * 2 + 1, sizeof(*rq));
	size_t *fgot = calloc(fz->n + 1, sizeof(*fgot));

	if (!rq || !fgot)
		goto nomem;
	for (size_t i = 0; i < fz->n; i++) {
		struct frozen_thread *ft = &fz->threads[i];
		struct snap_thread *s = &st[i];
		s->ft = ft;
		if (!ft->stopped || ft->skipped)
			continue;
		uint64_t sp = ft->regs.rsp & ~7ull;
		const struct proc_map *m = proc_maps_find(maps, sp);
		uint64_t end = m ? m->end : sp + 4096;
		s->lo = sp;
		s->want = (size_t)(end - sp) < o->stack_max ? (size_t)(end - sp) : o->stack_max;
		total += s->want;
	}
	*arena = malloc(total + 1);
	if (!*arena)
		goto nomem;
	total = 0;
	for (size_t i = 0; i < fz->n; i++) {
		struct snap_thread *s = &st[i];
		struct frozen_thread *ft = s->ft;
		if (!ft->stopped || ft->skipped)
			continue;
		s->stack = *arena + total;
		total += s->want;
		rq[nreq++] = (struct read_req){ s->lo, s->stack, s->want, &s->len };
		if (ft->syscall_nr == 202) {
			s->futex_op = (int)(ft->regs.rsi & FUTEX_CMD_MASK);
			s->futex_addr = ft->regs.rdi;
			rq[nreq++] = (struct read_req){ s->futex_addr, s->futex_words, sizeof(s->futex_words), &fgot[i] };
		}
	}
	read_batch(fz->target->id.pid, rq, nreq);
	for (size_t i = 0; i < fz->n; i++)
		st[i].futex_got = (ssize_t)fgot[i];
	free(rq);
	free(fgot);
	return 0;
nomem:
	free(rq);
	free(fgot);
	return -ENOMEM;
}

/* Everything done while the target is stopped, on the tracer thread (see
 * freeze_opts.on_frozen): the memory map, the stacks, the lock words. */
struct frozen_ctx {
	const struct stk_opts *o;
	char *maps_text;
	size_t maps_cap;
	struct proc_maps maps;
	struct snap_thread *st;
	unsigned char *arena;
	ssize_t ml;
	int rc;
	/* CPython: frame chains read while stopped, through a page cache. */
	struct py_proc *py;
	struct py_cache *py_cache;
	struct py_snapshot py_snap;
	struct ps_error py_err;
	int py_rc;
	double py_ms;
	char exec_comm[64];  /* the new name, when it exec'd before the freeze */
};

static void on_frozen(struct freeze *fz, void *arg)
{
	struct frozen_ctx *c = arg;

	/* An exec between the open and the stop: the stacks would be of
	 * another program than the one named (and Python found). */
	if (target_execd(fz->target, c->exec_comm, sizeof(c->exec_comm)) == 1) {
		c->rc = -ESTALE;
		return;
	}
	c->ml = read_file_alloc_at(fz->target->dirfd, "maps", &c->maps_text, &c->maps_cap);
	c->st = calloc(fz->n + 1, sizeof(*c->st));
	if (c->ml <= 0)
		c->rc = c->ml < 0 ? (int)c->ml : -EIO;
	else if (!c->st || proc_maps_parse(c->maps_text, (size_t)c->ml, false, &c->maps) < 0 ||
		 copy_frozen(fz, c->st, &c->maps, c->o, &c->arena) < 0)
		c->rc = -ENOMEM;
	if (c->py && c->py_cache) {
		struct py_mem m;
		uint64_t t0 = now_ns();
		py_cache_mem(c->py_cache, &m);
		c->py_rc = py_snapshot_take(c->py, &m, NULL, &c->py_snap, &c->py_err);
		c->py_ms = (double)(now_ns() - t0) / 1e6;
	}
	test_hold(c->o);
}

/* CPython: found before the freeze (it reads ELF files and a few words,
 * not the threads). */
static void detect_python(struct target *t, const struct py_mem *live, struct frozen_ctx *c)
{
	char *maps = NULL;
	size_t cap = 0;
	ssize_t n = read_file_alloc_at(t->dirfd, "maps", &maps, &cap);

	ps_error_clear(&c->py_err);
	c->py_rc = -ENOENT;
	if (n > 0)
		c->py_rc = py_detect(t->id.pid, maps, (size_t)n, live, &c->py, &c->py_err);
	free(maps);
	if (c->py) {
		c->py_cache = py_cache_new(live, 256);
		if (!c->py_cache) {
			py_proc_free(c->py);
			c->py = NULL;
		}
	}
}

static void py_done(struct frozen_ctx *c)
{
	py_proc_free(c->py);
	py_cache_free(c->py_cache);
	py_snapshot_free(&c->py_snap);
	c->py = NULL;
	c->py_cache = NULL;
}

/* What stk_analyze merges: the chains read while stopped (the dump takes
 * the interpreter over), or NULL with the reason in d->py_error. */
static const struct stk_py_in *python_in(struct stk_dump *d, struct frozen_ctx *c, const struct py_mem *live,
					 struct stk_py_in *in)
{
	if (!c->py && (c->py_rc == -ENOENT || c->py_rc == 0)) /* not CPython, or not looked for */
		return NULL;
	if (c->py)
		strlcpy_ps(d->py_version, py_version(c->py), sizeof(d->py_version));
	if (c->py_rc < 0) {
		strlcpy_ps(d->py_error, c->py_err.msg, sizeof(d->py_error));
		return NULL;
	}
	d->py_read_ms = c->py_ms;
	*in = (struct stk_py_in){ c->py, &c->py_snap, live };
	d->py = c->py; /* freed with the dump */
	c->py = NULL;
	return in;
}

static void fill_thread(struct stk_thread *t, const struct frozen_thread *ft)
{
	t->tid = ft->tid;
	strlcpy_ps(t->name, ft->name, sizeof(t->name));
	t->state = ft->state;
	t->skipped = ft->skipped;
	if (!ft->stopped)
		t->skipped = ft->skipped ? ft->skipped : _("not stopped");
	t->syscall_nr = ft->syscall_nr;
	strlcpy_ps(t->syscall_raw, ft->syscall, sizeof(t->syscall_raw));
	strlcpy_ps(t->wchan, ft->wchan, sizeof(t->wchan));
	const char *sn = proc_syscall_name(ft->syscall_nr);
	if (t->skipped && !ft->stopped)
		snprintf(t->syscall, sizeof(t->syscall), "?");
	else if (ft->syscall_nr < 0)
		snprintf(t->syscall, sizeof(t->syscall), "running");
	else if (sn)
		snprintf(t->syscall, sizeof(t->syscall), "%s", sn);
	else
		snprintf(t->syscall, sizeof(t->syscall), "syscall %ld", ft->syscall_nr);
}

/* A process in a pid namespace below ours (a container): each thread's
 * TID there too, read after the threads run again. */
static void ns_tids(const struct target *t, struct stk_snap *snaps, size_t n)
{
	struct proc_status ps;
	char path[48], buf[4096];

	if (proc_status_read(t->dirfd, &ps) < 0 || ps.nspid_n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "task/%d/status", (int)snaps[i].t.tid);
		ssize_t len = read_file_at(t->dirfd, path, buf, sizeof(buf));
		if (len > 0 && proc_status_parse(buf, (size_t)len, &ps) == 0 && ps.nspid_n > 1)
			snaps[i].t.nstid = ps.nspid[ps.nspid_n - 1];
	}
}

/* What no permission would change: a kernel thread has no user stack, and
 * pscope cannot stop its own threads. */
static int dumpable(const struct target *t, struct ps_error *e)
{
	if (t->id.pid == getpid())
		return ps_error_set(e, EINVAL, _("process %d is pscope itself: it cannot stop its own threads"),
				    (int)t->id.pid);
	if (target_is_kernel_thread(t))
		return ps_error_set(e, EINVAL, _("process %d is a kernel thread: it has no user-space stack to dump"),
				    (int)t->id.pid);
	return 0;
}

int stk_dump_run(const struct target_id *id, const struct stk_opts *oin, struct stk_dump **out, struct ps_error *e)
{
	pid_t pid = id->pid;
	struct stk_opts o = *oin;
	struct target t;
	struct freeze fz;
	struct frozen_ctx fc = { 0 };
	struct snap_thread *st = NULL;
	struct stk_snap *snaps = NULL;
	char *maps_text = NULL;
	struct stk_dump *d = NULL;
	struct sym_unwinder *uw = NULL;
	uint64_t t0 = now_ns();
	int r;

	*out = NULL;
	if (o.max_frames <= 0)
		o.max_frames = 64;
	if (!o.stack_max)
		o.stack_max = 256 * 1024;
	r = target_open(&t, pid, id, e);
	if (r < 0)
		return r;
	r = dumpable(&t, e);
	if (r < 0) {
		target_close(&t);
		return r;
	}
	pid_t live_pid = pid;
	struct py_mem live;
	struct stk_py_in pyin;
	py_mem_live(&live, &live_pid);
	/* PSCOPE_NO_PYTHON=1: the native-only dump (the benchmark's anchor). */
	if (!o.no_python && !getenv("PSCOPE_NO_PYTHON"))
		detect_python(&t, &live, &fc);
	ps_test_pause("before-freeze");
	stk_progress(&o, 0, _("stopping the threads of %d"), (int)pid);
	/* The copy runs on the tracer thread and the threads are let go
	 * right after it: no hand-over between threads inside the pause. */
	struct freeze_opts fo = {
		.deadline_ms = o.deadline_ms,
		.cancel = o.cancel,
		.on_frozen = on_frozen,
		.on_frozen_arg = &fc,
		.release_early = true,
	};
	fc.o = &o;
	r = freeze_stop(&fz, &t, &fo, e);
	freeze_release(&fz);
	if (r < 0) {
		target_close(&t);
		free(fc.maps_text);
		free(fc.st);
		free(fc.arena);
		proc_maps_free(&fc.maps);
		py_done(&fc);
		return r;
	}
	if (fc.rc == -ESTALE) {
		r = target_exec_error(&t, _("stack dump"), fc.exec_comm, e);
		goto fail;
	}
	if (fc.rc < 0) {
		r = fc.rc == -ENOMEM ? ps_error_set(e, ENOMEM, _("out of memory"))
				     : door_refused(e, PS_OP_ATTACH, pid, fc.rc, _("read the memory map"));
		goto fail;
	}
	st = fc.st;
	maps_text = fc.maps_text;
	if (stk_cancelled(&o)) {
		r = ps_error_set(e, ECANCELED, _("cancelled"));
		goto fail;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		r = ps_error_set(e, ENOMEM, _("out of memory"));
		goto fail;
	}
	d->target = t.id;
	strlcpy_ps(d->comm, t.comm, sizeof(d->comm));
	d->pause_ms = freeze_pause_ms(&fz);
	d->rounds = fz.rounds;
	snaps = calloc(fz.n + 1, sizeof(*snaps));
	if (!snaps) {
		r = ps_error_set(e, ENOMEM, _("out of memory"));
		goto fail;
	}
	for (size_t i = 0; i < fz.n; i++) {
		const struct frozen_thread *ft = &fz.threads[i];
		struct stk_snap *sn = &snaps[i];
		fill_thread(&sn->t, ft);
		if (ft->stopped && !ft->skipped)
			d->n_stopped++;
		sn->regs = ft->regs;
		sn->stack = st[i].stack;
		sn->lo = st[i].lo;
		sn->len = st[i].len;
		sn->futex_op = st[i].futex_op;
		sn->futex_addr = st[i].futex_addr;
		memcpy(sn->futex_words, st[i].futex_words, sizeof(sn->futex_words));
		sn->futex_ok = st[i].futex_got == (ssize_t)sizeof(st[i].futex_words);
	}
	ns_tids(&t, snaps, fz.n);
	uw = sym_unwinder_new(pid, &fc.maps);
	d->syms = sym_proc_image(&(struct sym_image){ .pid = pid, .uid = t.uid, .maps = &fc.maps },
				 o.source ? SYM_SOURCE : 0);
	if (!uw || !d->syms) {
		r = ps_error_set(e, ENOMEM, _("cannot set up the unwinder"));
		goto fail;
	}
	sym_unwinder_set_view(uw, d->syms);
	r = stk_analyze(d, snaps, fz.n, uw, python_in(d, &fc, &live, &pyin), &o, e);
	if (r < 0)
		goto fail;
	if (o.goroutines)
		stk_go_read(d, t.dirfd, &live);
	d->wall_ms = (double)(now_ns() - t0) / 1e6;
	*out = d;
	d = NULL;
	r = 0;
fail:
	stk_dump_free(d);
	sym_unwinder_free(uw);
	free(st);
	free(snaps);
	free(fc.arena);
	proc_maps_free(&fc.maps);
	free(maps_text);
	freeze_free(&fz);
	target_close(&t);
	py_done(&fc);
	return r;
}
