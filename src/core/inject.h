/* Injecting a system call into a stopped thread of another process, in a
 * way that survives the death of the tracer at any instant.
 *
 * The thread is in a ptrace stop of the calling thread (PTRACE_SEIZE +
 * PTRACE_INTERRUPT). Below its stack's red zone go a signal frame holding
 * its saved registers, signal mask and FPU state, and a second frame for a
 * child. The call runs from a `syscall` instruction in [vdso] that is
 * followed only by register clears and `ret`, with the stack pointer on a
 * return address that leads to the rt_sigreturn trampoline (libc's
 * `mov $15,%rax; syscall`). So:
 *   - if the tracer vanishes before, during or after the call, the thread
 *     runs on into rt_sigreturn and gets back exactly its saved state
 *     (an interrupted syscall restarts, as after a signal handler);
 *   - a child made by an injected clone whose tracer vanished starts on
 *     the child frame, which calls exit(0) with every signal blocked.
 * With the tracer present the call is driven with PTRACE_SYSCALL (never
 * single-stepping), and the thread ends in a PTRACE_INTERRUPT stop with its
 * signal mask, then its registers, put back, ready to be detached. */
#ifndef PS_CORE_INJECT_H
#define PS_CORE_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "core/maps.h"
#include "error.h"
#include "target.h"

struct inject_site {
	uint64_t gadget;       /* syscall; [xor r,r]*; ret — in the target's [vdso] */
	uint64_t restorer;     /* mov $15,%rax; syscall — rt_sigreturn */
};

/* Find both in the target (reads its memory; it need not be stopped).
 * Returns 0, or -ENOENT with *why set to a static sentence. */
int inject_find_site(pid_t pid, const struct core_maps *maps, struct inject_site *s, const char **why);

struct inject {
	pid_t tid;
	struct inject_site site;
	struct user_regs_struct regs;    /* as found */
	uint64_t mask;                   /* signal mask as found */
	uint64_t lo, len;                /* the stack bytes used for the frames */
	unsigned char *saved;            /* their original contents */
	uint64_t frame, child_frame;
	unsigned long options;           /* ptrace options while injecting */
	bool prepared, blocked, restored_stack;
};

/* Prepare tid (in a ptrace stop of the calling thread): read its state,
 * write the frames. stack_lo is the lowest address the frames may use.
 * suspend_seccomp asks for PTRACE_O_SUSPEND_SECCOMP during the calls. */
int inject_begin(struct inject *ij, pid_t tid, const struct inject_site *site, uint64_t stack_lo,
		 bool suspend_seccomp, struct ps_error *e);

/* Run one syscall in the prepared thread. *ret gets its result (-errno on
 * failure). For clone, *child (may be NULL) gets the new process's pid as
 * the tracer sees it (PTRACE_EVENT_CLONE/FORK), 0 when none. Returns 0, or
 * -errno when the injection itself failed (the thread is then put back as
 * far as possible by inject_end). */
int inject_syscall(struct inject *ij, long nr, const uint64_t args[6], long *ret, pid_t *child, struct ps_error *e);

/* Put back the signal mask, then the registers, then the stack bytes.
 * Safe after a failed begin or call; idempotent. */
int inject_end(struct inject *ij);

/* Free the saved stack bytes (after inject_end). */
void inject_free(struct inject *ij);

/* The stack range the frames overwrite (the core holds the original
 * bytes there). */
static inline bool inject_overlaps(const struct inject *ij, uint64_t a, uint64_t len)
{
	return ij->saved && a < ij->lo + ij->len && ij->lo < a + len;
}



#endif
