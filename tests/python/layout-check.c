/* Proves pscope's CPython field offsets against one interpreter's own
 * headers: compiled by tests/e2e/python-layout.sh with
 * -I include/python3.X -I include/python3.X/internal, linked with
 * src/python/layout.c (and, for 3.13+, with libpython to read the real
 * _Py_DebugOffsets). Prints TAP lines, one per field. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#if PY_MINOR_VERSION <= 10
#include <frameobject.h>
#endif
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#if PY_MINOR_VERSION >= 11
#include "internal/pycore_frame.h"
#include "internal/pycore_code.h"
#include "internal/pycore_dict.h"
#include "internal/pycore_moduleobject.h"
#include "internal/pycore_object.h"
#endif
#include "python/layout.h"

static int n, failed;
#define CHECK(field, expr)                                                                     \
	do {                                                                                   \
		size_t want_ = (size_t)(expr);                                                 \
		int ok_ = L->field == want_;                                                   \
		printf("%s %d - 3.%d %s = %zu\n", ok_ ? "ok" : "not ok", ++n, PY_MINOR_VERSION, #field, want_); \
		if (!ok_) {                                                                    \
			printf("#   pscope has %u\n", (unsigned)L->field);                      \
			failed++;                                                              \
		}                                                                              \
	} while (0)

/* The bit of a state flag in the 32-bit word, found by setting it. */
static unsigned state_shift(int which)
{
	PyASCIIObject o;
	uint32_t w;
	memset(&o, 0, sizeof(o));
	if (which == 0)
		o.state.kind = 1;
	else if (which == 1)
		o.state.compact = 1;
	else
		o.state.ascii = 1;
	memcpy(&w, &o.state, 4);
	return (unsigned)__builtin_ctz(w);
}

int main(void)
{
	const struct py_layout *L;
#if PY_MINOR_VERSION >= 13
	struct py_layout dyn;
	if (py_layout_from_debug((const unsigned char *)&_PyRuntime.debug_offsets, sizeof(_PyRuntime.debug_offsets),
				 PY_MINOR_VERSION, &dyn) < 0) {
		printf("not ok 1 - 3.%d: the interpreter's own _Py_DebugOffsets were refused\n1..1\n", PY_MINOR_VERSION);
		return 1;
	}
	L = &dyn;
#else
	L = py_layout_table(PY_MINOR_VERSION);
#endif
	CHECK(rt_interp_head, offsetof(_PyRuntimeState, interpreters.head));
	CHECK(is_next, offsetof(PyInterpreterState, next));
#if PY_MINOR_VERSION <= 11
	CHECK(rt_gil_locked, offsetof(_PyRuntimeState, ceval.gil.locked));
	CHECK(rt_gil_holder, offsetof(_PyRuntimeState, ceval.gil.last_holder));
#elif PY_MINOR_VERSION == 12
	CHECK(is_gil, offsetof(PyInterpreterState, ceval.gil));
	CHECK(gil_locked, offsetof(struct _gil_runtime_state, locked));
	CHECK(gil_holder, offsetof(struct _gil_runtime_state, last_holder));
#else
	CHECK(gil_locked, offsetof(PyInterpreterState, _gil.locked));
	CHECK(gil_holder, offsetof(PyInterpreterState, _gil.last_holder));
#endif
#if PY_MINOR_VERSION <= 10
	CHECK(is_tstate_head, offsetof(PyInterpreterState, tstate_head));
	CHECK(is_modules, offsetof(PyInterpreterState, modules));
	CHECK(ts_frame, offsetof(PyThreadState, frame));
	CHECK(fr_back, offsetof(PyFrameObject, f_back));
	CHECK(fr_code, offsetof(PyFrameObject, f_code));
	CHECK(fr_instr, offsetof(PyFrameObject, f_lasti));
#else
	CHECK(is_tstate_head, offsetof(PyInterpreterState, threads.head));
#if PY_MINOR_VERSION == 11
	CHECK(is_modules, offsetof(PyInterpreterState, modules));
#else
	CHECK(is_modules, offsetof(PyInterpreterState, imports.modules));
#endif
	CHECK(ts_native_id, offsetof(PyThreadState, native_thread_id));
#if PY_MINOR_VERSION <= 12
	CHECK(ts_cframe, offsetof(PyThreadState, cframe));
	CHECK(ts_frame, offsetof(_PyCFrame, current_frame));
	CHECK(fr_code, offsetof(_PyInterpreterFrame, f_code));
	CHECK(fr_instr, offsetof(_PyInterpreterFrame, prev_instr));
#else
	CHECK(ts_frame, offsetof(PyThreadState, current_frame));
	CHECK(fr_code, offsetof(_PyInterpreterFrame, f_executable));
	CHECK(fr_instr, offsetof(_PyInterpreterFrame, instr_ptr));
#endif
	CHECK(fr_back, offsetof(_PyInterpreterFrame, previous));
#if PY_MINOR_VERSION == 11
	CHECK(fr_entry, offsetof(_PyInterpreterFrame, is_entry));
#else
	CHECK(fr_entry, offsetof(_PyInterpreterFrame, owner));
#endif
	CHECK(co_qualname, offsetof(PyCodeObject, co_qualname));
	CHECK(fr_globals, offsetof(_PyInterpreterFrame, f_globals));
	CHECK(fr_localsplus, offsetof(_PyInterpreterFrame, localsplus));
	CHECK(co_nlocalsplus, offsetof(PyCodeObject, co_nlocalsplus));
	CHECK(co_stacksize, offsetof(PyCodeObject, co_stacksize));
	CHECK(co_lpnames, offsetof(PyCodeObject, co_localsplusnames));
	CHECK(co_code, offsetof(PyCodeObject, co_code_adaptive));
#endif
	CHECK(ts_next, offsetof(PyThreadState, next));
	CHECK(ts_thread_id, offsetof(PyThreadState, thread_id));
#if PY_MINOR_VERSION == 9
	CHECK(co_linetable, offsetof(PyCodeObject, co_lnotab));
#else
	CHECK(co_linetable, offsetof(PyCodeObject, co_linetable));
#endif
	CHECK(co_name, offsetof(PyCodeObject, co_name));
	CHECK(co_filename, offsetof(PyCodeObject, co_filename));
	CHECK(co_firstlineno, offsetof(PyCodeObject, co_firstlineno));
	CHECK(bytes_size, offsetof(PyVarObject, ob_size));
	CHECK(bytes_sval, offsetof(PyBytesObject, ob_sval));
	CHECK(u_length, offsetof(PyASCIIObject, length));
	CHECK(u_state, offsetof(PyASCIIObject, state));
	CHECK(u_ascii_size, sizeof(PyASCIIObject));
	CHECK(u_compact_size, sizeof(PyCompactUnicodeObject));
	CHECK(tp_name, offsetof(PyTypeObject, tp_name));
	CHECK(tp_basicsize, offsetof(PyTypeObject, tp_basicsize));
	CHECK(tp_flags, offsetof(PyTypeObject, tp_flags));
	CHECK(tp_dictoffset, offsetof(PyTypeObject, tp_dictoffset));
	CHECK(ht_cached_keys, offsetof(PyHeapTypeObject, ht_cached_keys));
	CHECK(ma_keys, offsetof(PyDictObject, ma_keys));
	CHECK(ma_values, offsetof(PyDictObject, ma_values));
#if PY_MINOR_VERSION >= 11
	CHECK(md_dict, offsetof(PyModuleObject, md_dict));
#define CONST(name, want)                                                                             \
	do {                                                                                          \
		int ok_ = (long)(name) == (long)(want);                                               \
		printf("%s %d - 3.%d %s = %ld\n", ok_ ? "ok" : "not ok", ++n, PY_MINOR_VERSION, #name, (long)(want)); \
		failed += !ok_;                                                                       \
	} while (0)
	CONST(PY_CFUNC_ML, offsetof(PyCFunctionObject, m_ml));
	CONST(PY_CFUNC_SELF, offsetof(PyCFunctionObject, m_self));
	CONST(PY_DK_LOG2_SIZE, offsetof(struct _dictkeysobject, dk_log2_size));
	CONST(PY_DK_LOG2_INDEX_BYTES, offsetof(struct _dictkeysobject, dk_log2_index_bytes));
	CONST(PY_DK_KIND, offsetof(struct _dictkeysobject, dk_kind));
	CONST(PY_DK_NENTRIES, offsetof(struct _dictkeysobject, dk_nentries));
	CONST(PY_DK_INDICES, offsetof(struct _dictkeysobject, dk_indices));
#if PY_MINOR_VERSION == 12
	/* _PyObject_DictOrValuesPointer(obj) is ((PyDictOrValues *)obj)-3 */
	CONST(PY_MANAGED_DICT_OFFSET, -3 * (long)sizeof(PyDictOrValues));
#else
	CONST(PY_MANAGED_DICT_OFFSET, MANAGED_DICT_OFFSET);
#endif
#if PY_MINOR_VERSION == 11
	CONST(PY_MANAGED_VALUES_OFFSET_311, -4 * (long)sizeof(PyObject *));
#endif
#endif
	/* The state bits code.c decodes: kind at 2, compact at 5, ascii at 6. */
	unsigned k = state_shift(0), c = state_shift(1), a = state_shift(2);
	printf("%s %d - 3.%d unicode state bits kind/compact/ascii at %u/%u/%u\n",
	       k == 2 && c == 5 && a == 6 ? "ok" : "not ok", ++n, PY_MINOR_VERSION, k, c, a);
	failed += !(k == 2 && c == 5 && a == 6);
#if PY_MINOR_VERSION >= 12
	printf("%s %d - 3.%d FRAME_OWNED_BY_CSTACK is %d\n", FRAME_OWNED_BY_CSTACK == PY_FRAME_OWNED_BY_CSTACK ? "ok" : "not ok",
	       ++n, PY_MINOR_VERSION, (int)FRAME_OWNED_BY_CSTACK);
	failed += FRAME_OWNED_BY_CSTACK != PY_FRAME_OWNED_BY_CSTACK;
#endif
	return failed != 0;
}
