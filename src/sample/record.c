/* What the sampler does with each record of its rings: samples become
 * interned call stacks (kernel part from the callchain, user part from the
 * frame-pointer chain or unwound from the copied stack with the modules'
 * CFI), MMAP2/COMM/FORK/EXIT keep the threads and symbols current. */
#include "sample/agg.h"
#include "sample/local.h"
#include "sample/sample.h"
#include "sample/session.h"
#include "util.h"

#include <string.h>
#include <sys/mman.h>

#define MAX_FRAMES 512

/* The function id of pc (activation: where the thread was; else a return
 * address). Cached by pc. */
static uint32_t func_of(struct samp_session *s, struct samp_space *sp, uint64_t pc, bool kernel, bool activation)
{
	uint64_t key = pc << 1 | activation;
	struct hmap *cache = kernel ? &s->kpcs : sp ? &sp->pcs : NULL;
	uint32_t id = cache ? hmap_get(cache, key) : HMAP_EMPTY;
	struct samp_fninfo fi = { 0 };

	if (id != HMAP_EMPTY)
		return id;
	if (kernel) {
		if (!s->ksyms_named && s->kernel_func != HMAP_EMPTY)
			return s->kernel_func;
		sym_kernel(pc, &fi.name, &fi.module);
		fi.flags = SAMP_F_KERNEL;
	} else if (!sp) {
		/* A process gone before its first sample was read. */
		fi.name = fi.module = "[unknown]";
		fi.flags = SAMP_F_UNKNOWN;
	} else {
		const struct sym_info *si = sym_lookup(sp->sym, pc, activation);
		fi.name = si->function;
		fi.module = si->path ? si->path : si->module ? si->module : si->function;
		fi.flags = si->flags & (SAMP_F_STRIPPED | SAMP_F_DELETED | SAMP_F_ANON | SAMP_F_UNKNOWN);
		/* A function row shows where the function starts. */
		const struct sym_info *entry = si;
		if (!(si->flags & (SAMP_F_STRIPPED | SAMP_F_ANON | SAMP_F_UNKNOWN)) && si->offset && si->offset <= pc)
			entry = sym_lookup(sp->sym, pc - si->offset, true);
		fi.file = entry->file;
		fi.line = entry->line;
	}
	id = agg_func(s->agg, &fi);
	if (id != HMAP_EMPTY) {
		if (kernel && !s->ksyms_named)
			s->kernel_func = id;
		else if (cache && !(fi.flags & SAMP_F_ANON)) /* JIT names come as it runs */
			hmap_put(cache, key, id);
	}
	return id;
}

/* Append the user frames pcs[0..n) (pcs[0]: where the thread was) to fr.
 * Returns true when a root function (_start, start_thread...) ends them:
 * past it there is only garbage. */
static bool add_user(struct samp_session *s, struct samp_space *sp, const uint64_t *pcs, unsigned n, uint32_t *fr,
		     unsigned *nfr)
{
	for (unsigned i = 0; i < n && *nfr < MAX_FRAMES; i++) {
		uint32_t id = func_of(s, sp, pcs[i], false, i == 0);
		if (id == HMAP_EMPTY)
			continue;
		fr[(*nfr)++] = id;
		if (agg_func_flags(s->agg, id) & SAMP_F_ROOT)
			return true;
	}
	return false;
}

/* Does the chain reach a root function? */
static bool reaches_root(struct samp_session *s, struct samp_space *sp, const uint64_t *pcs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t id = func_of(s, sp, pcs[i], false, i == 0);
		if (id != HMAP_EMPTY && (agg_func_flags(s->agg, id) & SAMP_F_ROOT))
			return true;
	}
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

static unsigned user_chain(struct samp_session *s, struct samp_space *sp, const struct samp_rec_sample *r,
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

static void on_sample(struct samp_session *s, const struct samp_rec_sample *r)
{
	uint32_t fr[MAX_FRAMES];
	uint64_t up[MAX_FRAMES / 2], dw[MAX_FRAMES / 2];
	unsigned n = 0, nup = 0;
	enum { CTX_USER, CTX_KERNEL, CTX_OTHER } ctx = CTX_USER;
	bool first = true;
	struct samp_space *sp = &s->one;
	pid_t key = (pid_t)r->tid; /* the stack's owner: a thread, or a process slot */
	uint32_t slot = HMAP_EMPTY;

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
	} else if ((pid_t)r->pid != s->t.id.pid) {
		return;
	}
	if (r->nr == 0) {
		if (r->ip >= 0xffff800000000000ULL) {
			uint32_t id = func_of(s, sp, r->ip, true, true);
			if (id != HMAP_EMPTY)
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
		uint32_t id = func_of(s, sp, v, true, first);
		first = false;
		if (id == HMAP_EMPTY || (!s->ksyms_named && n && fr[n - 1] == id))
			continue; /* one [kernel] frame for the whole kernel part */
		fr[n++] = id;
	}
	const uint64_t *user = up;
	enum how how = HOW_FP;
	unsigned nu = user_chain(s, sp, r, up, nup, dw, &user, &how);
	if (nu) {
		if (!add_user(s, sp, user, nu, fr, &n))
			s->truncated++;
		if (how == HOW_DWARF)
			s->unwind_dwarf++;
		else
			s->unwind_fp++;
	}
	if (!n)
		return;
	agg_add(s->agg, key, fr, n);
	s->samples++;
	s->period_sum += r->period;
	if (slot != HMAP_EMPTY) {
		s->procs[slot].samples++;
		s->procs[slot].period += r->period;
		return;
	}
	struct sthread *t = samp_thread_get(s, (pid_t)r->tid, false);
	if (t)
		t->samples++;
}

void samp_on_record(void *ctx, const struct perf_event_header *h)
{
	struct samp_session *s = ctx;
	const unsigned char *p = (const unsigned char *)(h + 1);
	uint32_t pt[2];

	if (s->machine && (h->type == PERF_RECORD_MMAP2 || h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_FORK ||
			   h->type == PERF_RECORD_EXIT)) {
		samp_machine_record(s, h);
		return;
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		struct samp_rec_sample r;
		if (samp_parse_sample(h, s->regs_mask, &r) == 0 &&
		    !(s->exec_time ? r.time >= s->exec_time : s->execd)) /* not the new program's */
			on_sample(s, &r);
		break;
	}
	case PERF_RECORD_MMAP2: {
		struct samp_rec_mmap2 mm;
		if (samp_parse_mmap2(h, &mm) < 0 || (pid_t)mm.pid != s->t.id.pid || !(mm.prot & PROT_EXEC))
			break;
		sym_proc_stale(s->one.sym, mm.name[0] != '/');
		hmap_clear(&s->one.pcs);
		break;
	}
	case PERF_RECORD_COMM: {
		if (h->size < 8 + 8 + 1)
			break;
		memcpy(pt, p, 8);
		if ((pid_t)pt[0] != s->t.id.pid)
			break;
		struct sthread *t = samp_thread_get(s, (pid_t)pt[1], true);
		if (t) {
			char c[16];
			size_t avail = (size_t)h->size - 16, max = avail < sizeof(c) ? avail : sizeof(c);
			memcpy(c, p + 8, max);
			c[max - 1] = '\0';
			strlcpy_ps(t->comm, c, sizeof(t->comm));
		}
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC && !s->execd) {
			/* Another program from here on: sampling ends with the
			 * old one's table (samp_poll says so). */
			char c[16];
			size_t avail = (size_t)h->size - 16, max = avail < sizeof(c) ? avail : sizeof(c);
			memcpy(c, p + 8, max);
			c[max - 1] = '\0';
			strlcpy_ps(s->exec_comm, c, sizeof(s->exec_comm));
			s->execd = true;
		}
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		/* pid, ppid, tid, ptid, time */
		uint32_t f[4];
		if (h->size < 8 + 16)
			break;
		memcpy(f, p, 16);
		if ((pid_t)f[0] != s->t.id.pid)
			break;
		struct sthread *t = samp_thread_get(s, (pid_t)f[2], h->type == PERF_RECORD_FORK);
		if (!t)
			break;
		if (h->type == PERF_RECORD_FORK) {
			/* An inherited event samples it: drop any direct ones a
			 * rescan opened meanwhile, or it would count twice. */
			t->inherited = true;
			t->gone = false;
			if (samp_thread_has_events(s, t))
				samp_thread_close(s, t);
		} else if (!samp_thread_has_events(s, t)) {
			t->gone = true;
		}
		break;
	}
	case PERF_RECORD_LOST: {
		uint64_t lost;
		if (h->size >= 8 + 16) {
			memcpy(&lost, p + 8, 8);
			s->lost += lost;
		}
		break;
	}
	case PERF_RECORD_THROTTLE:
		s->throttled++;
		break;
	default:
		break;
	}
}

