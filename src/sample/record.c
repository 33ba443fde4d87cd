/* What the sampler does with each record of its rings, as a consumer of
 * src/perf/ (the decoding is there; this is policy): samples become
 * interned call stacks (kernel part from the callchain, user part from the
 * frame-pointer chain or unwound from the copied stack with the modules'
 * CFI); one process's MMAP2/COMM/FORK/EXIT keep its threads and symbols
 * current (machine.c has every process's). */
#include "sample/agg.h"
#include "sample/local.h"
#include "sample/sample.h"
#include "sample/session.h"
#include "util.h"

#include <string.h>
#include <sys/mman.h>

#define MAX_FRAMES SAMP_MAX_FRAMES

/* The location id of pc (activation: where the thread was; else a return
 * address): its function, and for user code its mapping. Cached by pc. */
static uint32_t loc_of(struct samp_session *s, struct samp_space *sp, uint64_t pc, bool kernel, bool activation)
{
	uint64_t key = pc << 1 | activation;
	struct hmap *cache = kernel ? &s->kpcs : sp ? &sp->pcs : NULL;
	uint32_t id = cache ? samp_id_get(cache, key) : SAMP_NONE, map = SAMP_NONE;
	struct samp_fninfo fi = { 0 };
	uint64_t addr = pc;
	int line = 0;

	if (id != SAMP_NONE)
		return id;
	if (kernel) {
		if (!s->ksyms_named && s->kernel_func != SAMP_NONE)
			return s->kernel_func;
		sym_kernel(pc, &fi.name, &fi.module);
		fi.flags = SAMP_F_KERNEL;
		if (!s->ksyms_named)
			addr = 0; /* one [kernel] frame for every kernel address */
	} else if (!sp) {
		/* A process gone before its first sample was read. */
		fi.name = fi.module = "[unknown]";
		fi.flags = SAMP_F_UNKNOWN;
	} else {
		const struct sym_info *si = sym_lookup(sp->sym, pc, activation);
		fi.name = si->function;
		fi.module = si->path ? si->path : si->module ? si->module : si->function;
		fi.flags = si->flags & (SAMP_F_STRIPPED | SAMP_F_DELETED | SAMP_F_ANON | SAMP_F_UNKNOWN);
		line = si->line;
		/* A function row shows where the function starts. */
		const struct sym_info *entry = si;
		if (!(si->flags & (SAMP_F_STRIPPED | SAMP_F_ANON | SAMP_F_UNKNOWN)) && si->offset && si->offset <= pc)
			entry = sym_lookup(sp->sym, pc - si->offset, true);
		fi.file = entry->file;
		fi.line = entry->line;
		const struct proc_map *pm = si->path ? sym_proc_map(sp->sym, pc) : NULL;
		if (pm) {
			struct samp_mapinfo mi = { .path = si->path, .build_id = si->build_id, .start = pm->start,
						   .limit = pm->end, .offset = pm->offset };
			map = agg_map(s->agg, &mi);
		}
	}
	id = agg_loc(s->agg, agg_func(s->agg, &fi), map, addr, line);
	if (id != SAMP_NONE) {
		if (kernel && !s->ksyms_named)
			s->kernel_func = id;
		else if (cache && !(fi.flags & SAMP_F_ANON)) /* JIT names come as it runs */
			hmap_put(cache, key, id);
	}
	return id;
}

/* Is location id the outermost function of a complete stack? */
static bool is_root(struct samp_session *s, uint32_t id)
{
	return id != SAMP_NONE && (agg_func_flags(s->agg, agg_loc_func(s->agg, id)) & SAMP_F_ROOT);
}

/* Append the user frames pcs[0..n) (pcs[0]: where the thread was) to fr.
 * Returns true when a root function (_start, start_thread...) ends them:
 * past it there is only garbage. */
static bool add_user(struct samp_session *s, struct samp_space *sp, const uint64_t *pcs, unsigned n, uint32_t *fr,
		     unsigned *nfr)
{
	for (unsigned i = 0; i < n && *nfr < MAX_FRAMES; i++) {
		uint32_t id = loc_of(s, sp, pcs[i], false, i == 0);
		if (id == SAMP_NONE)
			continue;
		fr[(*nfr)++] = id;
		if (is_root(s, id))
			return true;
	}
	return false;
}

/* Does the chain reach a root function? */
static bool reaches_root(struct samp_session *s, struct samp_space *sp, const uint64_t *pcs, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (is_root(s, loc_of(s, sp, pcs[i], false, i == 0)))
			return true;
	return false;
}

/* perf's x86-64 user registers (SAMP_REGS_MASK order) as ptrace's. */
static void perf_regs(const uint64_t *v, struct user_regs_struct *u)
{
	memset(u, 0, sizeof(*u));
	u->rax = v[0];
	u->rbx = v[1];
	u->rcx = v[2];
	u->rdx = v[3];
	u->rsi = v[4];
	u->rdi = v[5];
	u->rbp = v[6];
	u->rsp = v[7];
	u->rip = v[8];
	u->r8 = v[9];
	u->r9 = v[10];
	u->r10 = v[11];
	u->r11 = v[12];
	u->r12 = v[13];
	u->r13 = v[14];
	u->r14 = v[15];
	u->r15 = v[16];
}

/* The user part of a sample: the frame-pointer chain when it is complete
 * and its first step agrees with the CFI (a leaf without a frame hides
 * its caller from the chain), else the stack copy unwound with the CFI.
 * Returns the frames in *out (pcs or dw), the method in *how. */
enum how { HOW_FP, HOW_DWARF };

static unsigned user_chain(struct samp_session *s, struct samp_space *sp, const struct perf_sample *r,
			   const uint64_t *fp, unsigned nfp, uint64_t *dw, const uint64_t **out, enum how *how)
{
	struct user_regs_struct regs;
	bool byfp[MAX_FRAMES], trunc = false;
	bool fp_root = nfp && reaches_root(s, sp, fp, nfp);

	*out = fp;
	*how = HOW_FP;
	if (!sp || !sp->uw || !r->regs || !r->stack_size)
		return nfp;
	unsigned gen = sym_proc_sync(sp->sym);
	if (gen != sp->maps_gen) {
		sym_unwinder_set_maps(sp->uw, sym_proc_maps(sp->sym));
		sp->maps_gen = gen;
	}
	perf_regs(r->regs, &regs);
	if (fp_root && nfp >= 2) {
		int n = sym_unwind(sp->uw, &regs, r->stack, regs.rsp, r->stack_size, true, dw, byfp, 2, &trunc);
		if (n == 2 && dw[1] == fp[1])
			return nfp; /* the fast path */
	}
	trunc = false;
	int n = sym_unwind(sp->uw, &regs, r->stack, regs.rsp, r->stack_size, true, dw, byfp, MAX_FRAMES / 2, &trunc);
	if (n <= 0)
		return nfp;
	if (fp_root && !reaches_root(s, sp, dw, (unsigned)n))
		return nfp; /* the CFI ran out where the frame pointers did not */
	*out = dw;
	*how = HOW_DWARF;
	return (unsigned)n;
}

unsigned samp_frames(struct samp_session *s, struct samp_space *sp, const struct perf_sample *r, uint32_t *fr,
		     uint64_t *leaf_user)
{
	uint64_t up[MAX_FRAMES / 2], dw[MAX_FRAMES / 2];
	unsigned n = 0, nup = 0;
	enum { CTX_USER, CTX_KERNEL, CTX_OTHER } ctx = CTX_USER;
	bool first = true;

	*leaf_user = 0;
	if (r->nr == 0) {
		if (r->ip >= 0xffff800000000000ULL) {
			uint32_t id = loc_of(s, sp, r->ip, true, true);
			if (id != SAMP_NONE)
				fr[n++] = id;
		} else {
			up[nup++] = r->ip;
		}
	}
	/* Kernel frames straight into fr; user return addresses into up. */
	for (uint64_t i = 0; i < r->nr; i++) {
		uint64_t v = r->ips[i];
		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = v == (uint64_t)PERF_CONTEXT_KERNEL ? CTX_KERNEL
			      : v == (uint64_t)PERF_CONTEXT_USER ? CTX_USER
								 : CTX_OTHER;
			first = true;
			continue;
		}
		if (ctx == CTX_USER) {
			if (nup < MAX_FRAMES / 2)
				up[nup++] = v;
			continue;
		}
		if (ctx != CTX_KERNEL || n >= MAX_FRAMES / 2)
			continue;
		/* Return addresses point after the call: the symbolizer looks
		 * up the call itself. */
		uint32_t id = loc_of(s, sp, v, true, first);
		first = false;
		if (id == SAMP_NONE || (!s->ksyms_named && n && fr[n - 1] == id))
			continue; /* one [kernel] frame for the whole kernel part */
		fr[n++] = id;
	}
	const uint64_t *user = up;
	enum how how = HOW_FP;
	unsigned nu = user_chain(s, sp, r, up, nup, dw, &user, &how);
	if (nu) {
		if (!n)
			*leaf_user = user[0];
		if (!add_user(s, sp, user, nu, fr, &n))
			s->truncated++;
		if (how == HOW_DWARF)
			s->unwind_dwarf++;
		else
			s->unwind_fp++;
	}
	return n;
}

void samp_on_sample(void *arg, const struct perf_sample *r)
{
	struct samp_session *s = arg;
	uint32_t fr[MAX_FRAMES];
	struct samp_space *sp = &s->one;
	pid_t key = (pid_t)r->tid; /* the stack's owner: a thread, or a process slot */
	uint32_t slot = SAMP_NONE;
	uint64_t leaf;

	if (s->machine) {
		if (r->pid == 0) { /* the idle task */
			s->idle++;
			return;
		}
		struct mproc *p = samp_machine_proc(s, (pid_t)r->pid);
		if (!p)
			return;
		slot = (uint32_t)(p - s->procs);
		key = (pid_t)slot;
		sp = samp_machine_space(s, p);
	}
	unsigned n = samp_frames(s, sp, r, fr, &leaf);
	/* Stopped in user code of the target: its address histogram. */
	if (leaf && !s->machine && sp && sp->sym) {
		uint32_t lf = agg_loc_func(s->agg, loc_of(s, sp, leaf, false, true));
		if (lf != SAMP_NONE)
			samp_pchist_add(&s->pchist, sp->sym, leaf, lf);
	}
	if (!n)
		return;
	agg_add(s->agg, key, fr, n, SAMP_NONE, 1);
	s->samples++;
	s->period_sum += r->period;
	if (slot != SAMP_NONE) {
		s->procs[slot].samples++;
		s->procs[slot].period += r->period;
		return;
	}
	struct sthread *t = samp_thread_get(s, (pid_t)r->tid, false);
	if (t)
		t->th.samples++;
}

static void on_sample(void *ctx, const struct perf_sample *r)
{
	struct samp_session *s = ctx;

	if (!(s->exec_time ? r->time >= s->exec_time : s->execd)) /* not the new program's */
		samp_on_sample(s, r);
}

static void on_mmap2(void *ctx, const struct perf_mmap2 *mm)
{
	struct samp_session *s = ctx;

	if (!(mm->prot & PROT_EXEC))
		return;
	sym_proc_stale(s->one.sym, mm->name[0] != '/');
	hmap_clear(&s->one.pcs);
}

static void on_comm(void *ctx, const struct perf_comm *c)
{
	struct samp_session *s = ctx;
	struct sthread *t = samp_thread_get(s, (pid_t)c->tid, true);

	if (t)
		strlcpy_ps(t->th.comm, c->comm, sizeof(t->th.comm));
	if (c->exec && !s->execd) {
		/* Another program from here on: sampling ends with the old
		 * one's table (its poll says so). */
		strlcpy_ps(s->exec_comm, c->comm, sizeof(s->exec_comm));
		s->execd = true;
	}
}

static void on_fork(void *ctx, const struct perf_task *f)
{
	struct samp_session *s = ctx;
	struct sthread *t = samp_thread_get(s, (pid_t)f->tid, true);

	if (!t)
		return;
	/* An inherited event samples it: drop any direct ones a rescan
	 * opened meanwhile, or it would count twice. */
	t->inherited = true;
	t->th.gone = false;
	if (samp_thread_has_events(s, t))
		samp_thread_close(s, t);
}

static void on_task_exit(void *ctx, const struct perf_task *f)
{
	struct samp_session *s = ctx;
	struct sthread *t = samp_thread_get(s, (pid_t)f->tid, false);

	if (t && !samp_thread_has_events(s, t))
		t->th.gone = true;
}

/* The reader drops other processes' records (rd.pid); LOST and THROTTLE
 * it counts itself. */
const struct perf_consumer samp_process_consumer = {
	.on_sample = on_sample,
	.on_mmap2 = on_mmap2,
	.on_comm = on_comm,
	.on_fork = on_fork,
	.on_exit = on_task_exit,
};
