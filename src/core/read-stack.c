/* A core's threads as the snapshot a live freeze produces: registers from
 * NT_PRSTATUS, each stack and lock word from the core's memory, the
 * CPython frame chains (read-python.c). Unwinding, symbols, the lock
 * graph, grouping and the Python merge are the live dump's (stack/). */
#include "core/read.h"
#include "core/read-python.h"
#include "i18n.h"
#include "proc/syscalls.h"
#include "stack/internal.h"
#include "sym/sym.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUTEX_CMD_MASK 0x7f
#define SYS_FUTEX 202

static void fill_snap(struct core *c, const struct core_thread *ct, struct stk_snap *sn, const struct stk_opts *o)
{
	struct stk_thread *t = &sn->t;

	t->tid = ct->tid;
	strlcpy_ps(t->name, c->info.fname[0] ? c->info.fname : "?", sizeof(t->name));
	t->state = 0; /* a core does not say each thread's state */
	t->signal = ct == core_crashed_thread(c) ? core_signal(c) : 0;
	if (!ct->regs_ok) {
		t->skipped = N_("its registers are not in the core");
		t->syscall_nr = -1;
		snprintf(t->syscall, sizeof(t->syscall), "?");
		return;
	}
	sn->regs = ct->regs;
	/* orig_rax: the syscall the thread was in (-1: none) */
	long nr = (long)ct->regs.orig_rax;
	t->syscall_nr = nr;
	const char *sn_name = proc_syscall_name(nr);
	if (nr < 0)
		snprintf(t->syscall, sizeof(t->syscall), "running");
	else if (sn_name)
		snprintf(t->syscall, sizeof(t->syscall), "%s", sn_name);
	else
		snprintf(t->syscall, sizeof(t->syscall), "syscall %ld", nr);
	if (nr >= 0)
		snprintf(t->syscall_raw, sizeof(t->syscall_raw), "%ld 0x%llx 0x%llx 0x%llx", nr,
			 (unsigned long long)ct->regs.rdi, (unsigned long long)ct->regs.rsi,
			 (unsigned long long)ct->regs.rdx);
	/* The stack: straight from the core's mapping, no copy. */
	uint64_t sp = ct->regs.rsp & ~7ull;
	const struct core_segment *s = core_segment_at(c, sp);
	if (s && sp - s->vaddr < s->avail) {
		uint64_t off = sp - s->vaddr;
		size_t len = (size_t)(s->avail - off);
		sn->stack = c->map + s->offset + off;
		sn->lo = sp;
		sn->len = len < o->stack_max ? len : o->stack_max;
	}
	if (nr == SYS_FUTEX) {
		sn->futex_op = (int)(ct->regs.rsi & FUTEX_CMD_MASK);
		sn->futex_addr = ct->regs.rdi;
		sn->futex_ok = core_read_mem(c, sn->futex_addr, sn->futex_words, sizeof(sn->futex_words), false) ==
			       sizeof(sn->futex_words);
	}
}

static ssize_t sym_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	return (ssize_t)core_read_mem(arg, addr, buf, len, true);
}

/* The group of the thread that got the signal comes first, as gdb starts
 * with the crashing thread. */
static void crashed_first(struct stk_dump *d)
{
	for (size_t g = 1; g < d->n_groups; g++) {
		bool has = false;
		for (size_t k = 0; k < d->groups[g].n; k++)
			has |= d->threads[d->groups[g].members[k]].signal != 0;
		if (!has)
			continue;
		struct stk_group crashed = d->groups[g];
		memmove(&d->groups[1], &d->groups[0], g * sizeof(*d->groups));
		d->groups[0] = crashed;
		for (size_t i = 0; i < d->n_groups; i++)
			for (size_t k = 0; k < d->groups[i].n; k++)
				d->threads[d->groups[i].members[k]].group = (int)i;
		return;
	}
}

int core_stack_dump(struct core *c, const struct stk_opts *oin, struct stk_dump **out, struct ps_error *e)
{
	struct stk_opts o = *oin;
	struct proc_maps maps = { 0 };
	struct sym_unwinder *uw = NULL;
	struct stk_snap *snaps = NULL;
	struct stk_dump *d = NULL;
	char *maps_text = NULL;
	uint64_t t0 = now_ns();
	size_t n = c->info.n_threads;
	int r;

	*out = NULL;
	if (o.max_frames <= 0)
		o.max_frames = 64;
	if (!o.stack_max)
		o.stack_max = 256 * 1024;
	d = calloc(1, sizeof(*d));
	snaps = calloc(n + 1, sizeof(*snaps));
	/* The maps name the files to open: --exe's, under --sysroot. */
	maps_text = core_maps_text(c, true);
	if (!d || !snaps || !maps_text || proc_maps_parse(maps_text, strlen(maps_text), false, &maps) < 0) {
		r = ps_error_set(e, ENOMEM, _("out of memory"));
		goto out;
	}
	d->target.pid = c->info.pid ? c->info.pid : (n ? c->info.threads[0].tid : 0);
	strlcpy_ps(d->comm, c->info.fname, sizeof(d->comm));
	for (size_t i = 0; i < n; i++) {
		fill_snap(c, &c->info.threads[i], &snaps[i], &o);
		if (!snaps[i].t.skipped)
			d->n_stopped++;
	}
	uw = sym_unwinder_new_reader(&maps, sym_read, c);
	d->syms = sym_proc_image(&(struct sym_image){ .maps = &maps, .read = sym_read, .read_arg = c },
				 o.source ? SYM_SOURCE : 0);
	if (!uw || !d->syms) {
		r = ps_error_set(e, ENOMEM, _("cannot set up the unwinder"));
		goto out;
	}
	sym_unwinder_set_view(uw, d->syms);
	/* PSCOPE_NO_PYTHON=1: the native-only dump, as live. */
	struct core_py cp = { 0 };
	const struct stk_py_in *pyin = NULL;
	if (!o.no_python && !getenv("PSCOPE_NO_PYTHON")) {
		stk_progress(&o, 0.05, _("reading the Python frames"));
		pyin = core_python(c, maps_text, d, &cp);
	}
	r = stk_analyze(d, snaps, n, uw, pyin, &o, e);
	core_python_done(&cp);
	if (r < 0)
		goto out;
	crashed_first(d);
	d->wall_ms = (double)(now_ns() - t0) / 1e6;
	*out = d;
	d = NULL;
out:
	stk_dump_free(d);
	sym_unwinder_free(uw);
	proc_maps_free(&maps);
	free(maps_text);
	free(snaps);
	return r;
}
