/* Shared by the files of src/python. */
#ifndef PS_PYTHON_INTERNAL_H
#define PS_PYTHON_INTERNAL_H

#include "hmap.h"
#include "i18n.h"
#include "python/layout.h"
#include "python/python.h"

struct py_name {
	uint64_t ident;
	char *name;
};

struct py_proc {
	pid_t pid;
	int minor;
	char version[24];
	char module[256];         /* the file defining _PyRuntime */
	struct py_layout L;
	uint64_t runtime;         /* &_PyRuntime */
	uint64_t code_type;       /* &PyCode_Type, 0 if unknown */
	uint64_t unicode_type;    /* &PyUnicode_Type, 0 if unknown */
	struct hmap codes;        /* code object address -> struct py_code * */
	struct py_name *names;    /* threading._active */
	size_t n_names;
	uint64_t lock_type;       /* &_thread.lock's type, once seen (locks.c), 0 unknown */
	uint64_t cfunc_type;      /* &PyCFunction_Type, once seen */
	int tid_off;              /* offset of the tid in glibc's struct pthread; -1 unknown, -2 none */
};

/* A pointer the target may hold: non-NULL, aligned, in the user half. */
static inline bool py_ptr_ok(uint64_t p)
{
	return p >= 4096 && p < 0x800000000000ull && !(p & 7);
}

/* Read a unicode object into a malloc'd UTF-8 string (at most max code
 * points). NULL when it is not a readable compact string. */
char *py_read_unicode(const struct py_proc *p, const struct py_mem *m, uint64_t addr, size_t max);

/* The first str key of a dict whose value is the object at value
 * (malloc'd UTF-8), or NULL: the global name of an object. */
char *py_dict_key_of(const struct py_proc *p, const struct py_mem *m, uint64_t dict, uint64_t value);

#endif
