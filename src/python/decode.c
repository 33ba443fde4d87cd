/* Line tables and unicode payloads: pure decoders (see decode.h). */
#include "python/decode.h"

#include <stdbool.h>
#include <string.h>

/* 3.9: co_lnotab. Pairs (unsigned addr increment, signed line increment);
 * the line is the one in effect at the last pair whose address is <= addr. */
static int line_lnotab(const unsigned char *t, size_t len, int line, int32_t addr)
{
	int32_t a = 0;

	for (size_t i = 0; i + 1 < len; i += 2) {
		a += t[i];
		if (a > addr)
			break;
		line += (signed char)t[i + 1];
	}
	return line;
}

/* 3.10: co_linetable. Pairs (unsigned byte length of a range, signed line
 * delta; -128 = the range has no line). Ranges start at 0. */
static int line_linetable(const unsigned char *t, size_t len, int line, int32_t addr)
{
	int32_t start = 0;

	for (size_t i = 0; i + 1 < len; i += 2) {
		int32_t end = start + t[i];
		int delta = (signed char)t[i + 1];
		if (delta != -128)
			line += delta;
		if (addr >= start && addr < end)
			return delta == -128 ? 0 : line;
		start = end;
	}
	return 0;
}

/* 3.11+ location table: entries of a first byte 1cccclll (code, length-1
 * in code units) and code-dependent varints. */
static int varint(const unsigned char *t, size_t len, size_t *i, unsigned *out)
{
	unsigned v = 0, shift = 0;

	for (;;) {
		if (*i >= len || shift > 28)
			return -1;
		unsigned char b = t[(*i)++];
		v |= (unsigned)(b & 63) << shift;
		shift += 6;
		if (!(b & 64))
			break;
	}
	*out = v;
	return 0;
}

static int svarint(const unsigned char *t, size_t len, size_t *i, int *out)
{
	unsigned u;

	if (varint(t, len, i, &u) < 0)
		return -1;
	*out = (u & 1) ? -(int)(u >> 1) : (int)(u >> 1);
	return 0;
}

static int line_locations(const unsigned char *t, size_t len, int line, int32_t addr)
{
	int32_t start = 0;
	size_t i = 0;

	while (i < len) {
		unsigned char first = t[i++];
		if (!(first & 0x80))
			return 0; /* not at an entry start: corrupt */
		unsigned code = (first >> 3) & 15;
		int32_t end = start + (int32_t)((first & 7) + 1) * 2;
		int delta = 0;
		bool has_line = true;
		unsigned skip;
		switch (code) {
		case 15: /* no location */
			has_line = false;
			break;
		case 14: /* long form: line delta, end line delta, column, end column */
			if (svarint(t, len, &i, &delta) < 0 || varint(t, len, &i, &skip) < 0 ||
			    varint(t, len, &i, &skip) < 0 || varint(t, len, &i, &skip) < 0)
				return 0;
			break;
		case 13: /* no column: line delta */
			if (svarint(t, len, &i, &delta) < 0)
				return 0;
			break;
		case 12: case 11: case 10: /* one line form: delta code-10, two column bytes */
			delta = (int)code - 10;
			i += 2;
			break;
		default: /* short form: same line, one column byte */
			i += 1;
			break;
		}
		if (has_line)
			line += delta;
		if (addr >= start && addr < end)
			return has_line ? line : 0;
		start = end;
	}
	return 0;
}

int py_line_for(enum py_linefmt fmt, const unsigned char *t, size_t len, int firstlineno, int32_t addr)
{
	if (addr < 0)
		return firstlineno;
	if (!t)
		return 0;
	switch (fmt) {
	case PY_LNOTAB: return line_lnotab(t, len, firstlineno, addr);
	case PY_LINETABLE: return line_linetable(t, len, firstlineno, addr);
	case PY_LOCATIONS: return line_locations(t, len, firstlineno, addr);
	}
	return 0;
}

static size_t utf8_put(uint32_t c, char *o)
{
	if ((c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		c = 0xfffd;
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | (c >> 6));
		o[1] = (char)(0x80 | (c & 63));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | (c >> 12));
		o[1] = (char)(0x80 | ((c >> 6) & 63));
		o[2] = (char)(0x80 | (c & 63));
		return 3;
	}
	o[0] = (char)(0xf0 | (c >> 18));
	o[1] = (char)(0x80 | ((c >> 12) & 63));
	o[2] = (char)(0x80 | ((c >> 6) & 63));
	o[3] = (char)(0x80 | (c & 63));
	return 4;
}

int py_unicode_to_utf8(const void *data, size_t length, unsigned kind, char *out, size_t size)
{
	const unsigned char *p = data;
	size_t o = 0;

	if (!size)
		return -1;
	if (kind != 1 && kind != 2 && kind != 4) {
		out[0] = '\0';
		return -1;
	}
	for (size_t i = 0; i < length; i++) {
		uint32_t c;
		char tmp[4];
		if (kind == 1)
			c = p[i];
		else if (kind == 2) {
			uint16_t v;
			memcpy(&v, p + 2 * i, 2);
			c = v;
		} else
			memcpy(&c, p + 4 * i, 4);
		size_t n = utf8_put(c, tmp);
		if (o + n + 1 > size)
			break;
		memcpy(out + o, tmp, n);
		o += n;
	}
	out[o] = '\0';
	return (int)o;
}
