/* Per-version field offsets (see layout.h). The numbers of 3.9-3.12 were
 * printed by offsetof()/sizeof() against each version's own headers
 * (include/python3.X/internal, x86-64, default build) and are re-checked
 * against those headers by tests/e2e/python-layout.sh on every run. */
#include "python/layout.h"

#include <errno.h>
#include <string.h>

/* Same in 3.9-3.13 but for ht_cached_keys. */
#define OBJECTS(hck) .tp_name = 24, .tp_basicsize = 32, .tp_flags = 168, .tp_dictoffset = 288, .ht_cached_keys = (hck), \
	.ma_keys = 32, .ma_values = 40, .md_dict = 16

static const struct py_layout tables[] = {
	{
		.minor = 9, OBJECTS(864),
		.frame = PY_FRAME_OBJECT, .lines = PY_LNOTAB, .gil = PY_GIL_RUNTIME,
		.rt_interp_head = 32, .rt_gil_locked = 368, .rt_gil_holder = 360,
		.is_next = 0, .is_tstate_head = 8, .is_modules = 856,
		.ts_next = 8, .ts_thread_id = 176, .ts_native_id = 0, .ts_cframe = 0, .ts_frame = 24,
		.fr_back = 24, .fr_code = 32, .fr_instr = 104,
		.co_name = 112, .co_qualname = 0, .co_filename = 104, .co_firstlineno = 40,
		.co_linetable = 120 /* co_lnotab */, .co_code = 0,
		.bytes_size = 16, .bytes_sval = 32,
		.u_length = 16, .u_state = 32, .u_ascii_size = 48, .u_compact_size = 72,
	},
	{
		.minor = 10, OBJECTS(872),
		.frame = PY_FRAME_OBJECT, .lines = PY_LINETABLE, .gil = PY_GIL_RUNTIME,
		.rt_interp_head = 32, .rt_gil_locked = 368, .rt_gil_holder = 360,
		.is_next = 0, .is_tstate_head = 8, .is_modules = 856,
		.ts_next = 8, .ts_thread_id = 176, .ts_native_id = 0, .ts_cframe = 0, .ts_frame = 24,
		.fr_back = 24, .fr_code = 32, .fr_instr = 96,
		.co_name = 112, .co_qualname = 0, .co_filename = 104, .co_firstlineno = 40,
		.co_linetable = 120, .co_code = 0,
		.bytes_size = 16, .bytes_sval = 32,
		.u_length = 16, .u_state = 32, .u_ascii_size = 48, .u_compact_size = 72,
	},
	{
		.minor = 11, OBJECTS(872),
		.frame = PY_IFRAME_ENTRY, .lines = PY_LOCATIONS, .gil = PY_GIL_RUNTIME,
		.rt_interp_head = 40, .rt_gil_locked = 376, .rt_gil_holder = 368,
		.is_next = 0, .is_tstate_head = 16, .is_modules = 888,
		.ts_next = 8, .ts_thread_id = 152, .ts_native_id = 160, .ts_cframe = 56, .ts_frame = 8,
		.fr_back = 48, .fr_code = 32, .fr_instr = 56, .fr_entry = 68,
		.fr_globals = 8, .fr_localsplus = 72,
		.co_name = 120, .co_qualname = 128, .co_filename = 112, .co_firstlineno = 72,
		.co_linetable = 136, .co_code = 184,
		.co_nlocalsplus = 76, .co_stacksize = 68, .co_lpnames = 96,
		.bytes_size = 16, .bytes_sval = 32,
		.u_length = 16, .u_state = 32, .u_ascii_size = 48, .u_compact_size = 72,
	},
	{
		.minor = 12, OBJECTS(880),
		.frame = PY_IFRAME_SHIM, .lines = PY_LOCATIONS, .gil = PY_GIL_INTERP_PTR,
		.rt_interp_head = 40,
		.is_next = 0, .is_tstate_head = 72, .is_modules = 944, .is_gil = 384,
		.gil_locked = 16, .gil_holder = 8,
		.ts_next = 8, .ts_thread_id = 136, .ts_native_id = 144, .ts_cframe = 56, .ts_frame = 0,
		.fr_back = 8, .fr_code = 0, .fr_instr = 56, .fr_entry = 70,
		.fr_globals = 24, .fr_localsplus = 72,
		.co_name = 120, .co_qualname = 128, .co_filename = 112, .co_firstlineno = 68,
		.co_linetable = 136, .co_code = 192,
		.co_nlocalsplus = 72, .co_stacksize = 64, .co_lpnames = 96,
		.bytes_size = 16, .bytes_sval = 32,
		.u_length = 16, .u_state = 32, .u_ascii_size = 40, .u_compact_size = 56,
	},
};

const struct py_layout *py_layout_table(int minor)
{
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (tables[i].minor == minor)
			return &tables[i];
	return NULL;
}

/* _Py_DebugOffsets of 3.13: cookie[8], version, free_threaded, then
 * groups of uint64 fields, each group starting with the structure's size.
 * Indexes below count uint64 words from the start. */
enum {
	D_VERSION = 1, D_FREE_THREADED,
	D_RT_SIZE, D_RT_FINALIZING, D_RT_INTERP_HEAD,
	D_IS_SIZE, D_IS_ID, D_IS_NEXT, D_IS_THREADS_HEAD, D_IS_GC, D_IS_MODULES, D_IS_SYSDICT,
	D_IS_BUILTINS, D_IS_CEVAL_GIL, D_IS_GIL_STATE, D_IS_GIL_ENABLED, D_IS_GIL_LOCKED, D_IS_GIL_HOLDER,
	D_TS_SIZE, D_TS_PREV, D_TS_NEXT, D_TS_INTERP, D_TS_CURRENT_FRAME, D_TS_THREAD_ID,
	D_TS_NATIVE_ID, D_TS_DATASTACK, D_TS_STATUS,
	D_IF_SIZE, D_IF_PREVIOUS, D_IF_EXECUTABLE, D_IF_INSTR_PTR, D_IF_LOCALSPLUS, D_IF_OWNER,
	D_CO_SIZE, D_CO_FILENAME, D_CO_NAME, D_CO_QUALNAME, D_CO_LINETABLE, D_CO_FIRSTLINENO,
	D_CO_ARGCOUNT, D_CO_LPNAMES, D_CO_LPKINDS, D_CO_CODE_ADAPTIVE,
	D_OB_SIZE, D_OB_TYPE,
	D_TY_SIZE, D_TY_NAME, D_TY_REPR, D_TY_FLAGS,
	D_TU_SIZE, D_TU_ITEM, D_TU_OBSIZE,
	D_LI_SIZE, D_LI_ITEM, D_LI_OBSIZE,
	D_DI_SIZE, D_DI_KEYS, D_DI_VALUES,
	D_FL_SIZE, D_FL_FVAL,
	D_LO_SIZE, D_LO_TAG, D_LO_DIGIT,
	D_BY_SIZE, D_BY_OBSIZE, D_BY_SVAL,
	D_UN_SIZE, D_UN_STATE, D_UN_LENGTH, D_UN_ASCII_SIZE,
	D_WORDS
};

static uint64_t word(const unsigned char *d, unsigned i)
{
	uint64_t v;
	memcpy(&v, d + 8 * i, 8);
	return v;
}

/* A field offset inside a structure of the size at word `size`. */
static int field(const unsigned char *d, unsigned size, unsigned i, unsigned width, uint32_t *out)
{
	uint64_t s = word(d, size), v = word(d, i);

	if (s == 0 || s > (1u << 20) || v + width > s || v % width)
		return -EPROTO;
	*out = (uint32_t)v;
	return 0;
}

int py_layout_from_debug(const unsigned char *d, size_t len, int minor, struct py_layout *o)
{
	static const struct {
		unsigned size, idx, width;
		size_t off;
	} map[] = {
#define F(s, i, w, f) { s, i, w, offsetof(struct py_layout, f) }
		F(D_RT_SIZE, D_RT_INTERP_HEAD, 8, rt_interp_head),
		F(D_IS_SIZE, D_IS_NEXT, 8, is_next),
		F(D_IS_SIZE, D_IS_THREADS_HEAD, 8, is_tstate_head),
		F(D_IS_SIZE, D_IS_MODULES, 8, is_modules),
		F(D_IS_SIZE, D_IS_GIL_LOCKED, 4, gil_locked),
		F(D_IS_SIZE, D_IS_GIL_HOLDER, 8, gil_holder),
		F(D_TS_SIZE, D_TS_NEXT, 8, ts_next),
		F(D_TS_SIZE, D_TS_THREAD_ID, 8, ts_thread_id),
		F(D_TS_SIZE, D_TS_NATIVE_ID, 4, ts_native_id),
		F(D_TS_SIZE, D_TS_CURRENT_FRAME, 8, ts_frame),
		F(D_IF_SIZE, D_IF_PREVIOUS, 8, fr_back),
		F(D_IF_SIZE, D_IF_EXECUTABLE, 8, fr_code),
		F(D_IF_SIZE, D_IF_INSTR_PTR, 8, fr_instr),
		F(D_IF_SIZE, D_IF_OWNER, 1, fr_entry),
		F(D_IF_SIZE, D_IF_LOCALSPLUS, 8, fr_localsplus),
		F(D_CO_SIZE, D_CO_LPNAMES, 8, co_lpnames),
		F(D_TY_SIZE, D_TY_NAME, 8, tp_name),
		F(D_CO_SIZE, D_CO_NAME, 8, co_name),
		F(D_CO_SIZE, D_CO_QUALNAME, 8, co_qualname),
		F(D_CO_SIZE, D_CO_FILENAME, 8, co_filename),
		F(D_CO_SIZE, D_CO_FIRSTLINENO, 4, co_firstlineno),
		F(D_CO_SIZE, D_CO_LINETABLE, 8, co_linetable),
		F(D_CO_SIZE, D_CO_CODE_ADAPTIVE, 2, co_code),
		F(D_BY_SIZE, D_BY_OBSIZE, 8, bytes_size),
		F(D_BY_SIZE, D_BY_SVAL, 1, bytes_sval),
		F(D_UN_SIZE, D_UN_STATE, 4, u_state),
		F(D_UN_SIZE, D_UN_LENGTH, 8, u_length),
#undef F
	};

	if (len < D_WORDS * 8 || memcmp(d, "xdebugpy", 8))
		return -EPROTO;
	memset(o, 0, sizeof(*o));
	o->minor = minor;
	o->frame = PY_IFRAME_SHIM;
	o->lines = PY_LOCATIONS;
	o->gil = PY_GIL_INTERP;
	/* Not in the debug offsets: from the 3.13 headers (layout test). */
	o->tp_basicsize = 32;
	o->fr_globals = 24;
	o->co_nlocalsplus = 72;
	o->co_stacksize = 64;
	o->tp_flags = 168;
	o->tp_dictoffset = 288;
	o->ht_cached_keys = 880;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (field(d, map[i].size, map[i].idx, map[i].width,
			  (uint32_t *)((char *)o + map[i].off)) < 0)
			return -EPROTO;
	if (field(d, D_DI_SIZE, D_DI_KEYS, 8, &o->ma_keys) < 0 || field(d, D_DI_SIZE, D_DI_VALUES, 8, &o->ma_values) < 0)
		return -EPROTO;
	o->md_dict = 16;
	uint64_t asz = word(d, D_UN_ASCII_SIZE);
	if (asz < 24 || asz > 256 || asz % 8)
		return -EPROTO;
	o->u_ascii_size = (uint32_t)asz;
	/* PyCompactUnicodeObject: the ascii header, utf8_length, utf8. */
	o->u_compact_size = (uint32_t)asz + 16;
	return 0;
}
