/* Freeze: stop every thread of a process for one consistent snapshot, read
 * what is needed, and let it go. Shared by the stack dump and the core
 * writer.
 *
 * Method (DESIGN.md): PTRACE_SEIZE + PTRACE_INTERRUPT every thread (never
 * SIGSTOP), waitpid(tid, __WALL) with a deadline, re-scan the task list to
 * catch threads born meanwhile, PTRACE_GETREGSET per thread. Memory is read
 * with process_vm_readv while stopped. freeze_release() detaches everything
 * and is safe to call on every path, more than once. If pscope dies (even
 * SIGKILL), the kernel detaches SEIZEd threads and they run on.
 *
 * The ptrace work runs on a short-lived tracer thread of its own: a thread
 * that did not stop before the deadline (e.g. D state) stays seized until
 * its tracer exits, and the kernel detaches it then, so freeze_release()
 * ends that thread. freeze_read() may be called from any thread. */
#ifndef PS_STACK_FREEZE_H
#define PS_STACK_FREEZE_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "error.h"
#include "target.h"

struct frozen_thread {
	pid_t tid;
	bool stopped;                    /* was in ptrace-stop: regs valid unless skipped */
	bool seized;                     /* PTRACE_SEIZE succeeded (internal) */
	int resume_sig;                  /* signal to re-inject on detach (internal) */
	const char *skipped;             /* why not stopped (e.g. "D state past the deadline"), or NULL */
	char state;                      /* task stat state before we stopped it */
	char name[64];                   /* task comm (hostile) */
	char syscall[160];               /* task/TID/syscall text, e.g. "202 0x7f.. 0x80 ..." or "-1 sp pc" */
	long syscall_nr;                 /* orig_rax while stopped: -1 when not in a syscall */
	char wchan[64];                  /* read just before stopping ("0" when running) */
	struct user_regs_struct regs;    /* NT_PRSTATUS registers */
	/* Filled when freeze_opts.core_regs: */
	struct user_fpregs_struct fpregs;
	bool have_fpregs;
	void *xstate;                    /* NT_X86_XSTATE bytes (malloc'd) */
	size_t xstate_len;
	siginfo_t siginfo;
	bool have_siginfo;
};

struct freeze;

struct freeze_opts {
	int deadline_ms;                 /* per-attach wait deadline; 0 = 500. Threads
					  * still runnable (R: waiting for a CPU) at the
					  * deadline are waited for up to 10 times it */
	bool core_regs;                  /* also FP/xstate/siginfo (for cores) */
	atomic_bool *cancel;             /* may be NULL */
	/* Called on the tracer thread as soon as every thread is stopped and
	 * its registers read, before freeze_stop returns (read memory with
	 * freeze_read or process_vm_readv there). With release_early, the
	 * threads are let go right after it: the copy then runs at the
	 * tracer's priority with no hand-over between threads in the pause. */
	void (*on_frozen)(struct freeze *fz, void *arg);
	void *on_frozen_arg;
	bool release_early;
	/* With release_early: keep the tracer thread alive (and with it
	 * whatever on_frozen made it trace, e.g. a child the target forked
	 * under ptrace) until freeze_release(). */
	bool hold_tracer;
};

struct freeze {
	struct target *target;
	struct frozen_thread *threads;
	size_t n, cap;
	uint64_t t_first_interrupt_ns;   /* pause = t_released_ns - t_first_interrupt_ns */
	uint64_t t_released_ns;
	bool released;
	unsigned rounds;                 /* task-list scans until no new thread appeared */
	struct freeze_tracer *tracer;    /* internal */
};

/* Stop all threads of t. On error nothing stays stopped or traced.
 * Returns -ECANCELED when o->cancel was set meanwhile. */
int freeze_stop(struct freeze *fz, struct target *t, const struct freeze_opts *o, struct ps_error *e);
/* Read target memory while frozen (process_vm_readv). Returns bytes read
 * (may be short at an unmapped page) or -errno. */
ssize_t freeze_read(struct freeze *fz, uint64_t addr, void *buf, size_t len);
/* Detach every thread; idempotent. */
void freeze_release(struct freeze *fz);
double freeze_pause_ms(const struct freeze *fz);
/* Release (if needed) and free the thread table. */
void freeze_free(struct freeze *fz);

#endif
