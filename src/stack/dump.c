/* The stack dump: freeze, copy, release, then unwind, symbolize, find the
 * deadlocks and group identical stacks — all after the target runs again. */
#include "freeze.h"
#include "proc/stat.h"
#include "proc/syscalls.h"
#include "stack/internal.h"
#include "doors.h"
#include "util.h"

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

static void progress(const struct stk_opts *o, double f, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void progress(const struct stk_opts *o, double f, const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	if (!o->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	o->progress(o->progress_arg, f, buf);
}

static bool cancelled(const struct stk_opts *o)
{
	return o->cancel && atomic_load_explicit(o->cancel, memory_order_relaxed);
}

/* Testing the safety paths needs the target held: PSCOPE_STACK_HOLD_MS
 * keeps it frozen that long (cancel still ends the wait). */
static void test_hold(const struct stk_opts *o)
{
	const char *h = getenv("PSCOPE_STACK_HOLD_MS");
	long ms = h ? atol(h) : 0;

	if (ms > 30000) /* a test aid, never a way to hold a process for long */
		ms = 30000;

	for (; ms > 0 && !cancelled(o); ms -= 10) {
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
		const struct proc_map *m = stk_map_find(maps, sp);
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
};

static void on_frozen(struct freeze *fz, void *arg)
{
	struct frozen_ctx *c = arg;

	c->ml = read_file_alloc_at(fz->target->dirfd, "maps", &c->maps_text, &c->maps_cap);
	c->st = calloc(fz->n + 1, sizeof(*c->st));
	if (c->ml <= 0)
		c->rc = c->ml < 0 ? (int)c->ml : -EIO;
	else if (!c->st || proc_maps_parse(c->maps_text, (size_t)c->ml, false, &c->maps) < 0 ||
		 copy_frozen(fz, c->st, &c->maps, c->o, &c->arena) < 0)
		c->rc = -ENOMEM;
	test_hold(c->o);
}

static int cmp_tid(const void *a, const void *b)
{
	const struct stk_thread *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int frames_cmp(const struct stk_thread *x, const struct stk_thread *y)
{
	if (x->n_frames != y->n_frames)
		return x->n_frames < y->n_frames ? -1 : 1;
	for (size_t i = 0; i < x->n_frames; i++)
		if (x->frames[i].pc != y->frames[i].pc)
			return x->frames[i].pc < y->frames[i].pc ? -1 : 1;
	if (!!x->skipped != !!y->skipped)
		return x->skipped ? 1 : -1;
	return 0;
}

static const struct stk_thread *sort_base;
static int cmp_idx_frames(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = frames_cmp(&sort_base[i], &sort_base[j]);
	return c ? c : (i > j) - (i < j);
}

static int cmp_group(const void *a, const void *b)
{
	const struct stk_group *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return (x->members[0] > y->members[0]) - (x->members[0] < y->members[0]);
}

static int make_groups(struct stk_dump *d)
{
	size_t *idx = malloc((d->n_threads + 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < d->n_threads; i++)
		idx[i] = i;
	sort_base = d->threads;
	qsort(idx, d->n_threads, sizeof(*idx), cmp_idx_frames);
	d->groups = calloc(d->n_threads + 1, sizeof(*d->groups));
	if (!d->groups) {
		free(idx);
		return -ENOMEM;
	}
	for (size_t i = 0; i < d->n_threads;) {
		size_t j = i + 1;
		while (j < d->n_threads && !frames_cmp(&d->threads[idx[i]], &d->threads[idx[j]]) &&
		       !d->threads[idx[i]].skipped)
			j++;
		struct stk_group *g = &d->groups[d->n_groups++];
		g->n = j - i;
		g->members = malloc(g->n * sizeof(size_t));
		if (!g->members)
			g->n = 0;
		else
			memcpy(g->members, idx + i, g->n * sizeof(size_t));
		i = j;
	}
	free(idx);
	qsort(d->groups, d->n_groups, sizeof(*d->groups), cmp_group);
	for (size_t g = 0; g < d->n_groups; g++)
		for (size_t k = 0; k < d->groups[g].n; k++)
			d->threads[d->groups[g].members[k]].group = (int)g;
	return 0;
}

static bool shared_lib(const char *module)
{
	return module && (module[0] == '[' || strstr(module, ".so"));
}

/* The frame where a thread waits: past the frames of the library it is
 * in at frame 0 (the libc lock or futex internals, [vdso]); frame 0 when
 * it is in the program itself. */
static const struct stk_frame *wait_frame(const struct stk_thread *t)
{
	if (!t->n_frames)
		return NULL;
	const char *m0 = t->frames[0].sym ? t->frames[0].sym->module : NULL;
	if (!shared_lib(m0))
		return &t->frames[0];
	for (size_t i = 1; i < t->n_frames; i++) {
		const char *m = t->frames[i].sym ? t->frames[i].sym->module : NULL;
		if (m && (!m0 || strcmp(m, m0)))
			return &t->frames[i];
	}
	return &t->frames[0];
}

static int find_deadlocks(struct stk_dump *d, const struct snap_thread *st, size_t nst)
{
	size_t n = d->n_threads;
	pid_t *tid = calloc(n + 1, sizeof(*tid)), *wf = calloc(n + 1, sizeof(*wf));
	uint64_t *addr = calloc(n + 1, sizeof(*addr));
	size_t *cyc = calloc(n + 1, sizeof(*cyc));
	int rc = -ENOMEM;

	if (!tid || !wf || !addr || !cyc)
		goto out;
	/* Before the sort by tid, threads[i] is the thread of st[i]. */
	for (size_t i = 0; i < n && i < nst; i++) {
		tid[i] = d->threads[i].tid;
		if (st[i].futex_got != (ssize_t)sizeof(st[i].futex_words))
			continue;
		wf[i] = stk_lock_owner(st[i].futex_op, st[i].futex_words);
		addr[i] = st[i].futex_addr;
	}
	d->n_cycles = stk_lock_cycles(tid, wf, n, cyc);
	if (d->n_cycles) {
		d->cycles = calloc(d->n_cycles, sizeof(*d->cycles));
		if (!d->cycles) {
			d->n_cycles = 0;
			goto out;
		}
	}
	for (size_t c = 0; c < d->n_cycles; c++) {
		struct stk_cycle *cy = &d->cycles[c];
		size_t len = 0, start = n;
		for (size_t i = 0; i < n; i++)
			if (cyc[i] == c + 1) {
				len++;
				if (start == n)
					start = i;
			}
		cy->edges = calloc(len, sizeof(*cy->edges));
		if (!cy->edges)
			continue;
		/* In the order of the arrows, from the lowest tid. */
		size_t i = start;
		for (size_t k = 0; k < len; k++) {
			struct stk_edge *e = &cy->edges[cy->n++];
			e->tid = tid[i];
			e->waits_for_tid = wf[i];
			e->lock_addr = addr[i];
			e->lock_name = sym_data_name(d->syms, addr[i]);
			e->frame = wait_frame(&d->threads[i]);
			size_t nx = n;
			for (size_t j = 0; j < n; j++)
				if (tid[j] == wf[i])
					nx = j;
			if (nx == n)
				break;
			i = nx;
		}
	}
	rc = 0;
out:
	free(tid);
	free(wf);
	free(addr);
	free(cyc);
	return rc;
}

static void fill_thread(struct stk_thread *t, const struct frozen_thread *ft)
{
	t->tid = ft->tid;
	strlcpy_ps(t->name, ft->name, sizeof(t->name));
	t->state = ft->state;
	t->skipped = ft->skipped;
	if (!ft->stopped)
		t->skipped = ft->skipped ? ft->skipped : "not stopped";
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

/* What no permission would change: a kernel thread has no user stack, and
 * pscope cannot stop its own threads. */
static int dumpable(const struct target *t, struct ps_error *e)
{
	if (t->id.pid == getpid())
		return ps_error_set(e, EINVAL, "process %d is pscope itself: it cannot stop its own threads",
				    (int)t->id.pid);
	if (target_is_kernel_thread(t))
		return ps_error_set(e, EINVAL, "process %d is a kernel thread: it has no user-space stack to dump",
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
	char *maps_text = NULL;
	struct stk_dump *d = NULL;
	struct stk_unwinder *uw = NULL;
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
	progress(&o, 0, "stopping the threads of %d", (int)pid);
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
		return r;
	}
	if (fc.rc < 0) {
		r = fc.rc == -ENOMEM ? ps_error_set(e, ENOMEM, "out of memory")
				     : door_refused(e, PS_OP_ATTACH, pid, fc.rc, "read the memory map");
		goto fail;
	}
	st = fc.st;
	maps_text = fc.maps_text;
	if (cancelled(&o)) {
		r = ps_error_set(e, ECANCELED, "cancelled");
		goto fail;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		r = ps_error_set(e, ENOMEM, "out of memory");
		goto fail;
	}
	d->target = t.id;
	strlcpy_ps(d->comm, t.comm, sizeof(d->comm));
	d->pause_ms = freeze_pause_ms(&fz);
	d->rounds = fz.rounds;
	d->threads = calloc(fz.n + 1, sizeof(*d->threads));
	if (!d->threads) {
		r = ps_error_set(e, ENOMEM, "out of memory");
		goto fail;
	}
	d->n_threads = fz.n;
	for (size_t i = 0; i < fz.n; i++) {
		fill_thread(&d->threads[i], &fz.threads[i]);
		if (fz.threads[i].stopped && !fz.threads[i].skipped)
			d->n_stopped++;
	}

	/* Unwind from the copies. */
	uint64_t t1 = now_ns();
	uw = stk_unwinder_new(pid, &fc.maps);
	uint64_t *pcs = malloc((size_t)o.max_frames * sizeof(*pcs));
	bool *byfp = malloc((size_t)o.max_frames * sizeof(*byfp));
	d->syms = sym_proc_image(&(struct sym_image){ .pid = pid, .uid = t.uid, .maps = &fc.maps },
				 o.source ? SYM_SOURCE : 0);
	if (!uw || !pcs || !byfp || !d->syms) {
		free(pcs);
		free(byfp);
		r = ps_error_set(e, ENOMEM, "cannot set up the unwinder");
		goto fail;
	}
	double t_sym = 0;
	for (size_t i = 0; i < fz.n; i++) {
		struct stk_thread *th = &d->threads[i];
		struct snap_thread *s = &st[i];
		if (th->skipped)
			continue;
		if (i % 64 == 0) {
			if (cancelled(&o))
				break;
			progress(&o, 0.1 + 0.9 * (double)i / (double)fz.n, "unwinding thread %zu of %zu", i + 1, fz.n);
		}
		bool trunc = false;
		int n = stk_unwind(uw, &s->ft->regs, s->stack, s->lo, s->len, pcs, byfp, o.max_frames, &trunc);
		th->truncated = trunc;
		th->frames = calloc((size_t)n + 1, sizeof(*th->frames));
		if (!th->frames)
			continue;
		uint64_t ts = now_ns();
		for (int k = 0; k < n; k++) {
			th->frames[k].pc = pcs[k];
			th->frames[k].by_fp = byfp[k];
			th->frames[k].sym = sym_lookup(d->syms, pcs[k], k == 0);
		}
		t_sym += (double)(now_ns() - ts) / 1e6;
		th->n_frames = (size_t)n;
		d->n_frames += (size_t)n;
	}
	free(pcs);
	free(byfp);
	if (cancelled(&o)) {
		r = ps_error_set(e, ECANCELED, "cancelled");
		goto fail;
	}
	d->symbolize_ms = t_sym;
	d->unwind_ms = (double)(now_ns() - t1) / 1e6 - t_sym;
	d->n_syms = sym_proc_count(d->syms);
	r = find_deadlocks(d, st, fz.n);
	if (r == 0) {
		qsort(d->threads, d->n_threads, sizeof(*d->threads), cmp_tid);
		/* Cycle edges point at frames of threads, which just moved:
		 * recompute them after the sort. */
		for (size_t c = 0; c < d->n_cycles; c++)
			for (size_t k = 0; k < d->cycles[c].n; k++)
				for (size_t i = 0; i < d->n_threads; i++)
					if (d->threads[i].tid == d->cycles[c].edges[k].tid)
						d->cycles[c].edges[k].frame = wait_frame(&d->threads[i]);
		r = make_groups(d);
	}
	if (r < 0) {
		ps_error_set(e, -r, "out of memory");
		goto fail;
	}
	d->wall_ms = (double)(now_ns() - t0) / 1e6;
	*out = d;
	d = NULL;
	r = 0;
fail:
	stk_dump_free(d);
	stk_unwinder_free(uw);
	free(st);
	free(fc.arena);
	proc_maps_free(&fc.maps);
	free(maps_text);
	freeze_free(&fz);
	target_close(&t);
	return r;
}

void stk_dump_free(struct stk_dump *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_threads; i++)
		free(d->threads[i].frames);
	free(d->threads);
	for (size_t g = 0; g < d->n_groups; g++)
		free(d->groups[g].members);
	free(d->groups);
	for (size_t c = 0; c < d->n_cycles; c++) {
		for (size_t k = 0; k < d->cycles[c].n; k++)
			free(d->cycles[c].edges[k].lock_name);
		free(d->cycles[c].edges);
	}
	free(d->cycles);
	sym_proc_free(d->syms);
	free(d);
}

size_t stk_chain(const struct stk_thread *t, char *buf, size_t size)
{
	size_t off = 0;

	const struct stk_frame *from = wait_frame(t);
	size_t first = from ? (size_t)(from - t->frames) : 0;

	/* From the program's own code on: the leading frames in the module of
	 * frame 0 (futex and lock internals of libc) are the same everywhere. */
	if (size)
		buf[0] = '\0';
	for (size_t i = first; i < t->n_frames && off + 1 < size; i++) {
		const struct sym_info *s = t->frames[i].sym;
		const char *name = s && s->function ? s->function : "??";
		int n = snprintf(buf + off, size - off, "%s%s", i > first ? " <- " : "", name);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	if (off >= size)
		off = size ? size - 1 : 0;
	return off;
}
