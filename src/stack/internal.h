/* Pieces of the stack dump shared by the files of src/stack and the unit
 * tests: maps parser, unwinder, symbol cache, lock graph. */
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

#endif
