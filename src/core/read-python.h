/* CPython frames from a core (read-python.c), for core_stack_dump. */
#ifndef PS_CORE_READ_PYTHON_H
#define PS_CORE_READ_PYTHON_H

#include "core/read.h"
#include "python/python.h"
#include "stack/internal.h"

/* What stk_analyze merges, kept alive until it is done. */
struct core_py {
	struct py_mem mem;
	struct py_proc *py;
	struct py_snapshot snap;
	struct stk_py_in in;
};

/* The core's memory as the Python reader's py_mem. */
void core_py_mem(struct core *c, struct py_mem *m);
/* Find CPython in the core (maps_text: core_maps_text(c, true)) and read
 * every thread's frame chain. Returns what stk_analyze merges, or NULL:
 * not CPython, or the reason in d->py_error ("not a readable CPython:
 * ...", "CPython 3.8 is not supported: ..."). On success d owns the
 * interpreter; call core_python_done after the analysis either way. */
const struct stk_py_in *core_python(struct core *c, const char *maps_text, struct stk_dump *d, struct core_py *cp);
void core_python_done(struct core_py *cp);

#endif
