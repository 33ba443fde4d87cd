/* Where each field the reader needs lives, per CPython version. 3.9-3.12:
 * one table per version (layout.c), derived from that version's headers
 * and checked against them by tests/e2e/python-layout.sh (which compiles
 * offsetof() checks against include/python3.X/internal). 3.13+: filled
 * from _Py_DebugOffsets at run time (py_layout_from_debug). */
#ifndef PS_PYTHON_LAYOUT_H
#define PS_PYTHON_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "python/decode.h"

enum py_framefmt {
	PY_FRAME_OBJECT,     /* 3.9, 3.10: PyFrameObject, f_back; one per eval call */
	PY_IFRAME_ENTRY,     /* 3.11: _PyInterpreterFrame, is_entry ends an eval call */
	PY_IFRAME_SHIM,      /* 3.12+: owner FRAME_OWNED_BY_CSTACK shim frames end one */
};

enum py_gilfmt {
	PY_GIL_RUNTIME,      /* 3.9-3.11: _PyRuntime.ceval.gil.{locked,last_holder} */
	PY_GIL_INTERP_PTR,   /* 3.12: interp->ceval.gil points at the gil state */
	PY_GIL_INTERP,       /* 3.13+: interp + debug offsets of _gil.{locked,last_holder} */
};

struct py_layout {
	int minor;                       /* 3.minor */
	enum py_framefmt frame;
	enum py_linefmt lines;
	enum py_gilfmt gil;
	/* _PyRuntimeState */
	uint32_t rt_interp_head;         /* interpreters.head */
	uint32_t rt_gil_locked, rt_gil_holder;
	/* PyInterpreterState */
	uint32_t is_next, is_tstate_head, is_modules;
	uint32_t is_gil;                 /* 3.12: ceval.gil pointer; 3.13: unused */
	uint32_t gil_locked, gil_holder; /* in struct _gil_runtime_state (3.12), or in interp (3.13) */
	/* PyThreadState */
	uint32_t ts_next, ts_thread_id;
	uint32_t ts_native_id;           /* 0: none (3.9, 3.10) */
	uint32_t ts_cframe;              /* 3.11, 3.12: cframe pointer; 0: frame pointer is in tstate */
	uint32_t ts_frame;               /* tstate->frame, cframe->current_frame, or tstate->current_frame */
	/* Frames */
	uint32_t fr_back, fr_code, fr_instr; /* f_back/previous, f_code/f_executable, f_lasti/prev_instr/instr_ptr */
	uint32_t fr_entry;               /* 3.11 is_entry / 3.12+ owner */
	uint32_t fr_globals, fr_localsplus; /* 3.11+: f_globals, localsplus (locals, then the value stack); 0 before */
	/* PyCodeObject */
	uint32_t co_name, co_qualname, co_filename, co_firstlineno, co_linetable, co_code;
	uint32_t co_nlocalsplus, co_stacksize, co_lpnames; /* 3.11+ (co_localsplusnames); 0 before */
	/* Types, dicts, modules (thread names: threads.c) */
	uint32_t tp_name, tp_basicsize, tp_flags, tp_dictoffset, ht_cached_keys;
	uint32_t ma_keys, ma_values, md_dict;
	/* PyBytesObject, unicode */
	uint32_t bytes_size, bytes_sval;
	uint32_t u_length, u_state, u_ascii_size, u_compact_size;
};

#define PY_FRAME_OWNED_BY_CSTACK 3

/* PyDictKeysObject of 3.11+ (pycore_dict.h; checked by the layout test). */
#define PY_DK_LOG2_SIZE 8
#define PY_DK_LOG2_INDEX_BYTES 9
#define PY_DK_KIND 10
#define PY_DK_NENTRIES 24
#define PY_DK_INDICES 32
/* Before the object, 3.11+: managed dict pointer (3.12: dict-or-values,
 * tagged by bit 0); 3.11: the values pointer below it. */
#define PY_MANAGED_DICT_OFFSET (-24)
#define PY_MANAGED_VALUES_OFFSET_311 (-32)

/* PyCFunctionObject (a builtin method bound to its object, such as a
 * lock's __exit__): m_ml, m_self; the same in 3.9-3.13 (layout test). */
#define PY_CFUNC_ML 16
#define PY_CFUNC_SELF 24
/* _thread.lock (Modules/_threadmodule.c, not in the installed headers):
 * PyObject_HEAD, PyThread_type_lock lock_lock (a sem_t*: the futex its
 * waiters sleep on), in_weakreflist, char locked; the same in 3.11-3.13
 * (tests/e2e/python-deadlock.sh proves it on each interpreter). */
#define PY_LOCK_SEM 16
#define PY_LOCK_LOCKED 32

/* The table of 3.minor (9..12), or NULL. */
const struct py_layout *py_layout_table(int minor);

/* 3.13+: from the _Py_DebugOffsets bytes at the start of _PyRuntime
 * (len bytes of it). Returns 0, or -EPROTO when the offsets are absurd
 * (outside the structure sizes they give, or not naturally aligned). */
int py_layout_from_debug(const unsigned char *dbg, size_t len, int minor, struct py_layout *out);

#endif
