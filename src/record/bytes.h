/* The bytes of a frame's payload: a growing buffer to write into and a
 * bounded cursor to read from (every read past the end sets short_ and
 * yields zeros, so a parser checks once per section), fixed-width
 * little-endian fields, and the varints of schema 2 (LEB128; signed ones
 * zigzagged). Pure; shared by the schema readers and the writer. */
#ifndef PS_RECORD_BYTES_H
#define PS_RECORD_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/format.h"

struct wbuf {
	unsigned char *p;
	size_t n, cap;
	bool oom;
};

static inline unsigned char *wb_room(struct wbuf *b, size_t k)
{
	if (b->oom)
		return NULL;
	if (b->n + k > b->cap) {
		size_t c = b->cap ? b->cap : 65536;
		while (c < b->n + k)
			c *= 2;
		unsigned char *q = realloc(b->p, c);
		if (!q) {
			b->oom = true;
			return NULL;
		}
		b->p = q;
		b->cap = c;
	}
	unsigned char *r = b->p + b->n;
	b->n += k;
	return r;
}
static inline void w8(struct wbuf *b, unsigned v)
{
	unsigned char *q = wb_room(b, 1);
	if (q)
		*q = (unsigned char)v;
}
static inline void w64(struct wbuf *b, uint64_t v)
{
	unsigned char *q = wb_room(b, 8);
	if (q)
		rec_put64(q, v);
}
static inline void wd(struct wbuf *b, double d)
{
	uint64_t v;
	memcpy(&v, &d, 8);
	w64(b, v);
}
static inline void wbytes(struct wbuf *b, const void *s, size_t n)
{
	unsigned char *q = wb_room(b, n);
	if (q && n)
		memcpy(q, s, n);
}
/* An unsigned varint: 7 bits a byte, low first, the top bit "more". */
static inline void wvar(struct wbuf *b, uint64_t v)
{
	unsigned char t[10];
	size_t k = 0;
	do {
		t[k] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			t[k] |= 0x80;
		k++;
	} while (v);
	wbytes(b, t, k);
}
/* A signed one: 0, -1, 1, -2, ... as 0, 1, 2, 3, ... */
static inline void wzz(struct wbuf *b, int64_t v)
{
	wvar(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

struct rbuf {
	const unsigned char *p;
	size_t n, o;
	bool short_;
};

static inline const unsigned char *take(struct rbuf *b, size_t k)
{
	if (b->short_ || k > b->n - b->o) {
		b->short_ = true;
		return NULL;
	}
	const unsigned char *q = b->p + b->o;
	b->o += k;
	return q;
}
static inline unsigned r8(struct rbuf *b)
{
	const unsigned char *q = take(b, 1);
	return q ? *q : 0;
}
static inline uint32_t r32(struct rbuf *b)
{
	const unsigned char *q = take(b, 4);
	return q ? rec_get32(q) : 0;
}
static inline uint64_t r64(struct rbuf *b)
{
	const unsigned char *q = take(b, 8);
	return q ? rec_get64(q) : 0;
}
static inline double rd(struct rbuf *b)
{
	uint64_t v = r64(b);
	double d;
	memcpy(&d, &v, 8);
	return d;
}
/* A varint of at most 10 bytes; a longer one, or one past the end, sets
 * short_ (a bad frame either way). */
static inline uint64_t rvar(struct rbuf *b)
{
	uint64_t v = 0;
	for (unsigned sh = 0; sh < 70; sh += 7) {
		const unsigned char *q = take(b, 1);
		if (!q)
			return 0;
		v |= (uint64_t)(*q & 0x7f) << sh;
		if (!(*q & 0x80))
			return v;
	}
	b->short_ = true;
	return 0;
}
static inline int64_t rzz(struct rbuf *b)
{
	uint64_t v = rvar(b);
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

#endif
