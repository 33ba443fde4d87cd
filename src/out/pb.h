/* A protocol buffers encoder for the messages pscope writes (pprof.c):
 * varints, length-delimited fields, packed repeated varints, nested
 * messages built in their own buffer. Errors (ENOMEM) stick: check
 * pb.err once at the end. */
#ifndef PS_OUT_PB_H
#define PS_OUT_PB_H

#include <stddef.h>
#include <stdint.h>

struct pb {
	uint8_t *p;
	size_t n, cap;
	int err; /* 0 or -ENOMEM */
};

void pb_free(struct pb *b);
void pb_reset(struct pb *b);
void pb_varint(struct pb *b, uint64_t v);
/* Field `field` as a varint (int64 and uint64 alike; 0 is left out, as
 * proto3 writes it). */
void pb_uint(struct pb *b, unsigned field, uint64_t v);
void pb_bytes(struct pb *b, unsigned field, const void *data, size_t len);
/* A nested message: sub's bytes as field `field`. */
void pb_msg(struct pb *b, unsigned field, const struct pb *sub);
/* A packed repeated varint field. */
void pb_packed(struct pb *b, unsigned field, const uint64_t *v, size_t n);

#endif
