/* Python frames merged into the stack dump (pyframes.c). */
#ifndef PS_STACK_PYFRAMES_H
#define PS_STACK_PYFRAMES_H

#include "python/python.h"
#include "stack/internal.h"

/* d->threads[i] belongs to st[i] (before the dump sorts them): matched to
 * thread states by pthread_t (fs_base) or native tid. Code objects and
 * thread names are read through m (after the thaw). -EPROTO (e says "not
 * a readable CPython: ...") leaves d's frames as they were: native only. */
int stk_py_merge(struct stk_dump *d, const struct stk_snap *st, size_t n, struct py_proc *py,
		 const struct py_snapshot *s, const struct py_mem *m, struct ps_error *e);

/* The thread state of th (frozen as st), or NULL. */
const struct py_raw_thread *stk_py_raw(const struct stk_thread *th, const struct stk_snap *st, const struct py_snapshot *s);

/* CPython threads blocked acquiring a threading.Lock (stack/pylocks.c):
 * the Lock each waits on (py_lock_refs: the one whose futex it sleeps
 * on), named from its frames, and its holder: the one other such thread
 * inside a `with` block of that lock. wf[i] and addr[i] (d->threads[i] is
 * st[i]'s) get the holder and the lock object where wf[i] is 0, so the
 * wait-for graph sees the Python locks beside the mutexes. */
void stk_py_locks(struct stk_dump *d, const struct stk_snap *st, size_t n, const struct stk_py_in *py, pid_t *wf,
		  uint64_t *addr);

#endif
