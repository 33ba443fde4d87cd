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

#endif
