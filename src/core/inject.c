/* Syscall injection that survives the tracer's death (see inject.h). */
#include "core/inject.h"
#include "i18n.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif
#define XSTATE_MAX (32 * 1024)
#define RED_ZONE 128
#ifndef FP_XSTATE_MAGIC1
#define FP_XSTATE_MAGIC1 0x46505853u
#endif
#ifndef FP_XSTATE_MAGIC2
#define FP_XSTATE_MAGIC2 0x46505845u
#endif
#define UC_FP_XSTATE 0x1
#define UC_SIGCONTEXT_SS 0x2
#define UC_STRICT_RESTORE_SS 0x4
/* SS_ONSTACK|SS_DISABLE is no valid mode: rt_sigreturn's restore of the
 * alternate stack fails with EINVAL, which it ignores, so the thread's
 * sigaltstack stays as it is. */
#define SS_KEEP 3

/* The kernel's x86-64 signal frame (uapi asm/sigcontext.h, asm/ucontext.h,
 * arch/x86/include/asm/sigframe.h), spelled out to avoid glibc's variants. */
struct k_sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2, fpstate;
	uint64_t reserved1[8];
};

struct k_stack {
	uint64_t ss_sp;
	int32_t ss_flags, pad;
	uint64_t ss_size;
};

struct k_ucontext {
	uint64_t uc_flags, uc_link;
	struct k_stack uc_stack;
	struct k_sigcontext uc_mcontext;
	uint64_t uc_sigmask;
};

struct k_rt_sigframe {
	uint64_t pretcode;
	struct k_ucontext uc;
	unsigned char info[128];
};

_Static_assert(sizeof(struct k_sigcontext) == 256, "sigcontext layout");
_Static_assert(sizeof(struct k_ucontext) == 304, "ucontext layout");

/* ---- finding the call site ---- */

/* `syscall`, then only `xor r32,r32` (with or without REX), then `ret`. */
static bool is_gadget(const unsigned char *p, size_t n)
{
	size_t i = 2;

	if (n < 3 || p[0] != 0x0f || p[1] != 0x05)
		return false;
	while (i < n && i < 32) {
		if (p[i] == 0xc3)
			return true;
		size_t k = i + ((p[i] & 0xf0) == 0x40 ? 1 : 0);
		if (k + 1 >= n || p[k] != 0x31 || p[k + 1] < 0xc0)
			return false;
		i = k + 2;
	}
	return false;
}

static ssize_t read_remote(pid_t pid, uint64_t a, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)a, len };

	return process_vm_readv(pid, &l, 1, &r, 1, 0);
}

static ssize_t write_remote(pid_t pid, uint64_t a, const void *buf, size_t len)
{
	struct iovec l = { (void *)buf, len }, r = { (void *)(uintptr_t)a, len };

	return process_vm_writev(pid, &l, 1, &r, 1, 0);
}

/* The [vdso] image is the kernel's, the same in every 64-bit process:
 * look for the gadget in our own and use its offset in the target's. */
static int find_gadget(const struct core_maps *maps, uint64_t *out)
{
	const unsigned char *self = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	const struct core_map *v = NULL;

	for (size_t i = 0; i < maps->n; i++)
		if (!strcmp(maps->v[i].path, "[vdso]"))
			v = &maps->v[i];
	if (!self || !v)
		return -ENOENT;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)self;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -ENOENT;
	/* Only the executable part: the PT_LOAD covering the text. */
	size_t len = (size_t)(v->end - v->start);
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(self + eh->e_phoff);
	size_t text = 0;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > text)
			text = ph[i].p_offset + ph[i].p_filesz;
	if (text && text < len)
		len = text;
	for (size_t i = 0; i + 3 <= len; i++)
		if (is_gadget(self + i, len - i)) {
			*out = v->start + i;
			return 0;
		}
	return -ENOENT;
}

static bool libc_like(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) || strstr(b, "musl");
}

/* libc's rt_sigreturn trampoline: mov $15,%rax; syscall. Looked for in
 * libc first, then in the other executable file mappings. */
static int find_restorer(pid_t pid, const struct core_maps *maps, uint64_t *out)
{
	static const unsigned char pat[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	enum { CH = 1 << 20 };
	unsigned char *buf = malloc(CH + sizeof(pat));
	uint64_t budget = 256u << 20;

	if (!buf)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < maps->n; i++) {
			const struct core_map *m = &maps->v[i];
			if (!m->x || !core_map_is_file(m) || libc_like(m->path) != (pass == 0))
				continue;
			for (uint64_t a = m->start; a < m->end && budget; a += CH) {
				size_t n = m->end - a < CH + sizeof(pat) ? (size_t)(m->end - a) : CH + sizeof(pat);
				ssize_t got = read_remote(pid, a, buf, n);
				if (got < (ssize_t)sizeof(pat))
					break;
				budget = budget > (uint64_t)got ? budget - (uint64_t)got : 0;
				for (size_t k = 0; k + sizeof(pat) <= (size_t)got; k++)
					if (buf[k] == 0x48 && !memcmp(buf + k, pat, sizeof(pat))) {
						*out = a + k;
						free(buf);
						return 0;
					}
			}
		}
	free(buf);
	return -ENOENT;
}

int inject_find_site(pid_t pid, const struct core_maps *maps, struct inject_site *s, const char **why)
{
	memset(s, 0, sizeof(*s));
	if (find_gadget(maps, &s->gadget) < 0) {
		*why = "no usable syscall instruction in the process's [vdso]";
		return -ENOENT;
	}
	if (find_restorer(pid, maps, &s->restorer) < 0) {
		*why = "no rt_sigreturn trampoline found in the process's libc";
		return -ENOENT;
	}
	return 0;
}

/* ---- the frames ---- */

static void regs_to_sc(struct k_sigcontext *sc, const struct user_regs_struct *r)
{
	sc->r8 = r->r8, sc->r9 = r->r9, sc->r10 = r->r10, sc->r11 = r->r11;
	sc->r12 = r->r12, sc->r13 = r->r13, sc->r14 = r->r14, sc->r15 = r->r15;
	sc->rdi = r->rdi, sc->rsi = r->rsi, sc->rbp = r->rbp, sc->rbx = r->rbx;
	sc->rdx = r->rdx, sc->rax = r->rax, sc->rcx = r->rcx, sc->rsp = r->rsp;
	sc->rip = r->rip, sc->eflags = r->eflags;
	sc->cs = (uint16_t)r->cs;
	sc->ss = (uint16_t)r->ss;
}

/* What the kernel does to a thread interrupted in a syscall when it runs
 * a signal handler: rt_sigreturn turns syscall restarting off, so the
 * frame restarts it itself (or reports EINTR where only the kernel could
 * restart it), as after a handler installed with SA_RESTART. */
static void restart_fixup(struct user_regs_struct *r)
{
	long rax = (long)r->rax;

	if ((long)r->orig_rax < 0)
		return;
	if (rax == -512 || rax == -513 || rax == -514) { /* ERESTARTSYS, NOINTR, NOHAND */
		r->rax = r->orig_rax;
		r->rip -= 2;
	} else if (rax == -516) {                         /* ERESTART_RESTARTBLOCK */
		r->rax = (unsigned long long)-EINTR;
	}
}

static int fail(struct ps_error *e, int err, const char *what, pid_t tid)
{
	return ps_error_set(e, err, _("cannot inject into thread %d (%s): %s"), (int)tid, what, strerror(err));
}

int inject_begin(struct inject *ij, pid_t tid, const struct inject_site *site, uint64_t stack_lo,
		 bool suspend_seccomp, struct ps_error *e)
{
	struct iovec iov;
	unsigned char *xs = NULL, *img = NULL;
	size_t xlen = 0;
	int r;

	memset(ij, 0, sizeof(*ij));
	ij->tid = tid;
	ij->site = *site;
	iov = (struct iovec){ &ij->regs, sizeof(ij->regs) };
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov) < 0)
		return fail(e, errno, _("registers"), tid);
	if (ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(ij->mask), &ij->mask) < 0)
		return fail(e, errno, _("signal mask"), tid);
	if (!(xs = calloc(1, XSTATE_MAX + 64)))
		return fail(e, ENOMEM, _("memory"), tid);
	iov = (struct iovec){ xs, XSTATE_MAX };
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) == 0 && iov.iov_len >= 576) {
		xlen = iov.iov_len;
	} else {
		iov = (struct iovec){ xs, 512 };
		if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRFPREG, &iov) < 0) {
			free(xs);
			return fail(e, errno, _("FPU state"), tid);
		}
		xlen = 512;
		memset(xs + 464, 0, 48); /* no xstate magic: the kernel restores FP/SSE only */
	}
	uint32_t xsize = (uint32_t)xlen;
	bool xsave = xlen > 512;
	if (xsave) {
		uint32_t m1;
		memcpy(&m1, xs + 464, 4);
		if (m1 != FP_XSTATE_MAGIC1) {
			uint32_t ext = (uint32_t)xlen + 4;
			uint64_t bv;
			memcpy(&bv, xs + 512, 8);
			bv |= 3;
			memset(xs + 464, 0, 48);
			m1 = FP_XSTATE_MAGIC1;
			memcpy(xs + 464, &m1, 4);
			memcpy(xs + 468, &ext, 4);
			memcpy(xs + 472, &bv, 8);
			memcpy(xs + 480, &xsize, 4);
		}
		memcpy(&xsize, xs + 480, 4);
		if (xsize < 576 || xsize > XSTATE_MAX)
			xsize = (uint32_t)xlen;
		uint32_t m2 = FP_XSTATE_MAGIC2;
		memcpy(xs + xsize, &m2, 4);
	}
	size_t fpsz = (xsave ? xsize : 512) + 4;

	/* Layout, downwards from the red zone: FPU state (64-aligned), the
	 * thread's frame, the child's frame. */
	uint64_t top = ij->regs.rsp - RED_ZONE;
	uint64_t fp = (top - fpsz) & ~63ull;
	uint64_t f = (fp - sizeof(struct k_rt_sigframe)) & ~15ull;
	uint64_t fc = (f - sizeof(struct k_rt_sigframe) - 64) & ~15ull;
	if (ij->regs.rsp < 65536 || fc < stack_lo) {
		free(xs);
		return fail(e, ENOSPC, _("no room below its stack pointer"), tid);
	}
	ij->lo = fc;
	ij->len = top - fc;
	ij->frame = f;
	ij->child_frame = fc;
	ij->saved = malloc(ij->len);
	img = malloc(ij->len);
	if (!ij->saved || !img) {
		r = fail(e, ENOMEM, _("memory"), tid);
		goto out;
	}
	if (read_remote(tid, ij->lo, ij->saved, ij->len) != (ssize_t)ij->len) {
		r = fail(e, errno ? errno : EFAULT, _("its stack is unreadable"), tid);
		free(ij->saved);
		ij->saved = NULL;
		goto out;
	}
	memcpy(img, ij->saved, ij->len);

	/* The thread's frame: its registers (restart applied), mask, FPU. */
	struct k_rt_sigframe fr;
	struct user_regs_struct back = ij->regs;
	restart_fixup(&back);
	memset(&fr, 0, sizeof(fr));
	fr.pretcode = site->restorer;
	fr.uc.uc_flags = (xsave ? UC_FP_XSTATE : 0) | UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	fr.uc.uc_stack.ss_flags = SS_KEEP;
	regs_to_sc(&fr.uc.uc_mcontext, &back);
	fr.uc.uc_mcontext.fpstate = fp;
	fr.uc.uc_sigmask = ij->mask;
	memcpy(img + (f - ij->lo), &fr, sizeof(fr));
	memcpy(img + (fp - ij->lo), xs, fpsz);

	/* The child's frame: exit(0) with every signal blocked. */
	struct user_regs_struct cr = ij->regs;
	cr.rip = site->gadget;
	cr.rax = SYS_exit;
	cr.rdi = 0;
	cr.rsp = fc + 8;
	memset(&fr, 0, sizeof(fr));
	fr.pretcode = site->restorer;
	fr.uc.uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	fr.uc.uc_stack.ss_flags = SS_KEEP;
	regs_to_sc(&fr.uc.uc_mcontext, &cr);
	fr.uc.uc_sigmask = ~0ull;
	memcpy(img + (fc - ij->lo), &fr, sizeof(fr));

	if (write_remote(tid, ij->lo, img, ij->len) != (ssize_t)ij->len) {
		r = fail(e, errno ? errno : EFAULT, _("its stack is not writable"), tid);
		goto out;
	}
	ij->prepared = true;
	ij->options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	if (suspend_seccomp)
		ij->options |= PTRACE_O_SUSPEND_SECCOMP;
	if (ptrace(PTRACE_SETOPTIONS, tid, NULL, (void *)ij->options) < 0) {
		r = fail(e, errno, suspend_seccomp ? _("suspending its seccomp filter") : _("options"), tid);
		goto out;
	}
	r = 0;
out:
	free(img);
	free(xs);
	if (r < 0)
		inject_end(ij);
	return r;
}

/* Wait for the next stop of tid: 0 and *status, or -ESRCH when it died. */
static int wait_stop(pid_t tid, int *status)
{
	for (;;) {
		pid_t w = waitpid(tid, status, __WALL);
		if (w == tid)
			return WIFSTOPPED(*status) ? 0 : -ESRCH;
		if (w < 0 && errno != EINTR)
			return -ESRCH;
	}
}

static bool is_syscall_stop(int st)
{
	return WSTOPSIG(st) == (SIGTRAP | 0x80);
}

/* Resume tid with req until a syscall stop; collect fork events on the way.
 * Signal stops other than our own are suppressed (all but SIGKILL and
 * SIGSTOP are blocked meanwhile). */
static int run_to_syscall_stop(struct inject *ij, int req, pid_t *child, const char *label)
{
	int st;

	if (ptrace(req, ij->tid, NULL, NULL) < 0)
		return -errno;
	if (label)
		ps_test_pause(label);
	for (;;) {
		if (wait_stop(ij->tid, &st) < 0)
			return -ESRCH;
		if (is_syscall_stop(st))
			return 0;
		int ev = st >> 16;
		if (ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK) {
			unsigned long msg = 0;
			if (ptrace(PTRACE_GETEVENTMSG, ij->tid, NULL, &msg) == 0 && child)
				*child = (pid_t)msg;
		}
		if (ptrace(PTRACE_SYSCALL, ij->tid, NULL, NULL) < 0)
			return -errno;
	}
}

int inject_syscall(struct inject *ij, long nr, const uint64_t args[6], long *ret, pid_t *child, struct ps_error *e)
{
	struct user_regs_struct r = ij->regs;
	struct iovec iov = { &r, sizeof(r) };
	const char *name = nr == SYS_clone ? "clone" : "call";
	char step[32];
	int st, rc;

	if (child)
		*child = 0;
	if (!ij->prepared)
		return ps_error_set(e, EINVAL, _("injection not prepared"));
	r.rip = ij->site.gadget;
	r.rsp = ij->frame;
	r.rax = (unsigned long long)nr;
	r.orig_rax = (unsigned long long)-1;
	r.rdi = args[0], r.rsi = args[1], r.rdx = args[2];
	r.r10 = args[3], r.r8 = args[4], r.r9 = args[5];
	r.eflags &= ~0x100ull; /* no trap flag */
	if (ptrace(PTRACE_SETREGSET, ij->tid, (void *)NT_PRSTATUS, &iov) < 0)
		return fail(e, errno, _("setting registers"), ij->tid);
	if (!ij->blocked) {
		uint64_t all = ~0ull;
		if (ptrace(PTRACE_SETSIGMASK, ij->tid, (void *)sizeof(all), &all) < 0)
			return fail(e, errno, _("blocking signals"), ij->tid);
		ij->blocked = true;
	}
	snprintf(step, sizeof(step), "%s-ready", name);
	ps_test_pause(step);
	/* Entry, then (for clone) the fork event, then exit. */
	if ((rc = run_to_syscall_stop(ij, PTRACE_SYSCALL, child, NULL)) < 0)
		return fail(e, -rc, _("syscall entry"), ij->tid);
	snprintf(step, sizeof(step), "%s-running", name);
	if ((rc = run_to_syscall_stop(ij, PTRACE_SYSCALL, child, step)) < 0)
		return fail(e, -rc, _("syscall exit"), ij->tid);
	iov = (struct iovec){ &r, sizeof(r) };
	if (ptrace(PTRACE_GETREGSET, ij->tid, (void *)NT_PRSTATUS, &iov) < 0)
		return fail(e, errno, _("reading the result"), ij->tid);
	*ret = (long)r.rax;
	snprintf(step, sizeof(step), "%s-exit", name);
	ps_test_pause(step);
	/* Into a PTRACE_INTERRUPT stop, where registers can be put back and a
	 * restarted syscall is restarted by the kernel on the way out. */
	if (ptrace(PTRACE_INTERRUPT, ij->tid, NULL, NULL) < 0 || ptrace(PTRACE_CONT, ij->tid, NULL, NULL) < 0)
		return fail(e, errno, _("interrupt"), ij->tid);
	for (;;) {
		if (wait_stop(ij->tid, &st) < 0)
			return fail(e, ESRCH, _("interrupt"), ij->tid);
		if ((st >> 16) == PTRACE_EVENT_STOP)
			return 0;
		if (ptrace(PTRACE_CONT, ij->tid, NULL, NULL) < 0)
			return fail(e, errno, _("interrupt"), ij->tid);
	}
}

int inject_end(struct inject *ij)
{
	struct iovec iov = { &ij->regs, sizeof(ij->regs) };
	int r = 0;

	if (ij->blocked) {
		/* The mask first: with the registers still on the way to
		 * rt_sigreturn, the tracer dying between the two is harmless. */
		if (ptrace(PTRACE_SETSIGMASK, ij->tid, (void *)sizeof(ij->mask), &ij->mask) < 0)
			r = -errno;
		ij->blocked = false;
	}
	if (ij->prepared) {
		if (ptrace(PTRACE_SETREGSET, ij->tid, (void *)NT_PRSTATUS, &iov) < 0)
			r = -errno;
		ptrace(PTRACE_SETOPTIONS, ij->tid, NULL, NULL);
		ij->prepared = false;
		ps_test_pause("restored");
	}
	if (ij->saved && r == 0 && !ij->restored_stack) {
		write_remote(ij->tid, ij->lo, ij->saved, ij->len);
		ij->restored_stack = true;
	}
	return r;
}

void inject_free(struct inject *ij)
{
	free(ij->saved);
	ij->saved = NULL;
}
