/* The protocol buffers encoder (pb.h): the wire format of
 * https://protobuf.dev/programming-guides/encoding/. */
#include "out/pb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { PB_VARINT = 0, PB_LEN = 2 };

static void put(struct pb *b, const void *data, size_t len)
{
	if (b->err)
		return;
	if (b->n + len > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + len)
			cap *= 2;
		void *p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, len);
	b->n += len;
}

void pb_free(struct pb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void pb_reset(struct pb *b)
{
	b->n = 0;
}

void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;

	do {
		buf[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put(b, buf, n);
}

static void key(struct pb *b, unsigned field, unsigned type)
{
	pb_varint(b, (uint64_t)field << 3 | type);
}

void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	key(b, field, PB_VARINT);
	pb_varint(b, v);
}

void pb_bytes(struct pb *b, unsigned field, const void *data, size_t len)
{
	key(b, field, PB_LEN);
	pb_varint(b, len);
	put(b, data, len);
}

void pb_msg(struct pb *b, unsigned field, const struct pb *sub)
{
	if (sub->err && !b->err)
		b->err = sub->err;
	pb_bytes(b, field, sub->p ? sub->p : (const uint8_t *)"", sub->n);
}

void pb_packed(struct pb *b, unsigned field, const uint64_t *v, size_t n)
{
	struct pb t = { 0 };

	for (size_t i = 0; i < n; i++)
		pb_varint(&t, v[i]);
	pb_msg(b, field, &t);
	pb_free(&t);
}
