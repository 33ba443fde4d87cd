/* Python frames merged into the stack dump (pyframes.c). */
#ifndef PS_STACK_PYFRAMES_H
#define PS_STACK_PYFRAMES_H

#include "python/python.h"
#include "freeze.h"
#include "stack/stack.h"

/* d->threads[i] belongs to fz->threads[i] (before the dump sorts them).
 * Code objects are read through m after the thaw. -EPROTO (e says "not
 * a readable CPython: ...") leaves d as it was: native frames only. */
int stk_py_merge(struct stk_dump *d, const struct freeze *fz, struct py_proc *py, const struct py_snapshot *s,
		 const struct py_mem *m, struct ps_error *e);

#endif
