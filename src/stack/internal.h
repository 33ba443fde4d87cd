/* Pieces of the stack dump shared by the files of src/stack and the unit
 * tests: lock graph, the analysis shared with the core reader. */
#ifndef PS_STACK_INTERNAL_H
#define PS_STACK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "proc/maps.h"
#include "stack/stack.h"
#include "sym/unwind.h"

/* Lock graph. The owner of a lock a thread waits on in futex(): op is the
 * futex op (cmd), w the 5 ints at the futex address (glibc
 * pthread_mutex_t: lock, count, owner, nusers, kind). 0 if not a mutex. */
pid_t stk_lock_owner(int op, const uint32_t w[5]);
/* Cycles of the wait-for graph: waits_for[i] is the tid thread i waits
 * for (0: none). cycle_of[i] gets the cycle number (1-based) or 0.
 * Returns the number of cycles. */
size_t stk_lock_cycles(const pid_t *tid, const pid_t *waits_for, size_t n, size_t *cycle_of);
/* For each thread not in a cycle whose chain of waits reaches one: the
 * number of that cycle (as cycle_of), else 0. */
void stk_lock_behind(const pid_t *tid, const pid_t *waits_for, size_t n, const size_t *cycle_of, size_t *behind);

/* One thread of a snapshot, as the freeze or a core recorded it. */
struct stk_snap {
	struct stk_thread t;      /* tid, name, state, syscall, wchan, skipped */
	struct user_regs_struct regs;
	const unsigned char *stack; /* the stack from lo, len bytes */
	uint64_t lo;
	size_t len;
	int futex_op;             /* in futex(): the op (cmd) and the 5 words at */
	uint64_t futex_addr;      /* the address, when futex_ok */
	uint32_t futex_words[5];
	bool futex_ok;
};

/* Unwind, symbolize (through d->syms, set by the caller), find the
 * deadlocks and group the stacks of n snapshot threads into d. */
/* CPython frames to merge after the unwind (stack/pyframes.c): the
 * interpreter (whose code objects the frames point at: keep it as d->py),
 * the chains read with the snapshot, and a reader for the code objects
 * and thread names. */
struct py_proc;
struct py_snapshot;
struct py_mem;
struct stk_py_in {
	struct py_proc *py;
	const struct py_snapshot *snap;
	const struct py_mem *mem;
};
/* py may be NULL (no CPython). */
int stk_analyze(struct stk_dump *d, const struct stk_snap *st, size_t n, struct sym_unwinder *uw,
		const struct stk_py_in *py, const struct stk_opts *o, struct ps_error *e);
/* HotSpot threads: jvm_wait of each thread, d->jvm, d->n_jvm_monitor (jvm.c). */
void stk_jvm_classify(struct stk_dump *d);
/* Go: d->go from the process of dirfd (/proc/PID) through m, frames
 * named through d->syms; or d->go_error (goroutines.c). */
struct py_mem;
void stk_go_read(struct stk_dump *d, int dirfd, const struct py_mem *m);
void stk_progress(const struct stk_opts *o, double f, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool stk_cancelled(const struct stk_opts *o);

#endif
