/* Pure decoders of CPython data copied out of a process: line tables and
 * unicode object payloads. No I/O: unit-tested on bytes made by the
 * interpreters themselves (tests/unit/test-python.c). */
#ifndef PS_PYTHON_DECODE_H
#define PS_PYTHON_DECODE_H

#include <stddef.h>
#include <stdint.h>

enum py_linefmt {
	PY_LNOTAB,      /* 3.9 co_lnotab: (addr delta, signed line delta) byte pairs */
	PY_LINETABLE,   /* 3.10 co_linetable: (byte length, signed line delta or -128) pairs */
	PY_LOCATIONS,   /* 3.11+ location table (Objects/locations.md) */
};

/* The line of the instruction at byte offset addr (< 0: before the first
 * instruction, gives firstlineno); 0 when the table says "no line" or
 * ends before addr. Never reads past t[len). */
int py_line_for(enum py_linefmt fmt, const unsigned char *t, size_t len, int firstlineno, int32_t addr);

/* Decode a compact unicode payload of `length` code points of `kind`
 * bytes each (1 = latin-1, 2 = UCS-2, 4 = UCS-4; ascii: kind 1, < 0x80)
 * into UTF-8 in out (NUL-terminated, at most size-1 bytes, cut at a
 * character boundary). Returns bytes written, or -1 when a code point is
 * invalid (surrogate halves and > 0x10FFFF become U+FFFD, not -1). */
int py_unicode_to_utf8(const void *data, size_t length, unsigned kind, char *out, size_t size);

#endif
