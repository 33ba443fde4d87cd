/* The recording file's layout (doc/record-format.md): pure encoders and
 * parsers of its fixed parts, no I/O. Every number is little-endian.
 *
 *   0     header (64 bytes): magic, version, schema, clock ticks, ...
 *   64    two checkpoint slots (32 bytes each): where the newest index
 *         block is; the only bytes ever written twice
 *   128   blocks, appended: a 48-byte block head, then its payload:
 *         a frame (one interval, zstd-compressed, a key frame or a delta
 *         against the frame before it) or an index block (the time and
 *         offset of the frames since the index block before it, and that
 *         block's offset: a chain back to the first)
 *
 * A parser takes the bytes and their length and fills a struct; a bad
 * field is a negative errno with the offset of the field (within what
 * was given) in *bad_off and the reason in e. */
#ifndef PS_RECORD_FORMAT_H
#define PS_RECORD_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define REC_MAGIC "PSCOPREC"
#define REC_VERSION 1              /* the container this pscope reads and writes */
#define REC_SCHEMA 2               /* the frames' payload this pscope writes (it reads 1 too) */
#define REC_HEADER_SIZE 64
#define REC_SLOT_OFF 64
#define REC_SLOT_SIZE 32
#define REC_DATA_OFF 128
#define REC_BLOCK_HEAD 48
#define REC_INDEX_ENTRY 24
#define REC_INDEX_HEAD 16
#define REC_NO_REF 0xffffffffu
/* A frame's payload is never larger (a bomb is refused before it is
 * decompressed). */
#define REC_FRAME_MAX (256u << 20)

struct rec_header {
	unsigned version, schema;
	unsigned hz;               /* clock ticks per second where it was recorded */
	unsigned interval_ms;      /* the interval asked for */
	unsigned key_every;        /* a key frame every key_every frames */
	unsigned flags;            /* REC_F_* */
	uint64_t btime;            /* boot time, seconds since 1970 */
	double start;              /* when recording began, seconds since 1970 */
};
enum { REC_F_PIDS = 1u << 0 };     /* only some processes (--pid) */

struct rec_slot {
	uint64_t gen;              /* the newer slot is the one to use */
	uint64_t last_index;       /* offset of the newest index block, 0 none */
	unsigned nframes;          /* frames the index chain holds */
	bool closed;               /* the recorder ended cleanly */
};

enum rec_block_type { REC_B_FRAME = 1, REC_B_INDEX = 2 };
enum rec_codec { REC_C_RAW = 0, REC_C_ZSTD = 1 };

struct rec_block {
	unsigned type, codec;
	uint32_t seq;              /* frame number from 0 (index: its first frame's) */
	uint32_t ref;              /* a delta frame: the frame it is against; REC_NO_REF */
	uint64_t wall_ns;          /* the frame's time, ns since 1970 */
	uint32_t stored_len;       /* the payload's bytes that follow the head */
	uint32_t raw_len;          /* its bytes once decompressed */
	uint32_t stored_crc, raw_crc; /* crc32 of each */
};

struct rec_entry {
	uint64_t wall_ns;
	uint64_t off;              /* the frame's block head */
	uint32_t seq;
	uint32_t len;              /* head + payload */
};

uint32_t rec_crc(const void *p, size_t n);

void rec_header_encode(const struct rec_header *h, unsigned char out[REC_HEADER_SIZE]);
int rec_header_parse(const unsigned char *p, size_t len, struct rec_header *h, size_t *bad_off, struct ps_error *e);
void rec_slot_encode(const struct rec_slot *s, unsigned char out[REC_SLOT_SIZE]);
/* -ENOENT: an empty slot (never written); -EBADMSG: a torn or bad one. */
int rec_slot_parse(const unsigned char *p, size_t len, struct rec_slot *s);
void rec_block_encode(const struct rec_block *b, unsigned char out[REC_BLOCK_HEAD]);
int rec_block_parse(const unsigned char *p, size_t len, struct rec_block *b, size_t *bad_off, struct ps_error *e);
/* An index block's payload: the previous index block's offset and n
 * entries (malloc'ed into *out). */
size_t rec_index_size(size_t n);
void rec_index_encode(uint64_t prev, const struct rec_entry *v, size_t n, unsigned char *out);
int rec_index_parse(const unsigned char *p, size_t len, uint64_t *prev, struct rec_entry **out, size_t *n,
		    size_t *bad_off, struct ps_error *e);

/* zstd, a delta frame against ref (its raw payload; NULL: a key frame).
 * pack: *out malloc'ed; unpack: into out of exactly raw_len bytes.
 * Return 0 or -errno with e filled. */
int rec_pack(const void *raw, size_t len, const void *ref, size_t ref_len, void **out, size_t *out_len,
	     struct ps_error *e);
int rec_unpack(const void *in, size_t len, const void *ref, size_t ref_len, void *out, size_t raw_len,
	       struct ps_error *e);

/* Little-endian fields. */
static inline void rec_put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}
static inline void rec_put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
static inline void rec_put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
static inline uint16_t rec_get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t rec_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t rec_get64(const unsigned char *p)
{
	return (uint64_t)rec_get32(p) | ((uint64_t)rec_get32(p + 4) << 32);
}

#endif
