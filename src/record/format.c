/* The recording file's fixed parts: header, checkpoint slots, block heads,
 * index blocks (pure: bytes in, structs out), and the zstd packing of a
 * frame, a delta against the frame before it (libzstd opened when first
 * needed, as for compressed cores). */
#include "record/format.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

uint32_t rec_crc(const void *p, size_t n)
{
	uLong c = crc32(0L, Z_NULL, 0);
	const unsigned char *b = p;

	while (n) {
		uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
		c = crc32(c, b, k);
		b += k;
		n -= k;
	}
	return (uint32_t)c;
}

static int bad(size_t *bad_off, size_t off, struct ps_error *e, int code, const char *what)
{
	if (bad_off)
		*bad_off = off;
	return ps_error_set(e, code, "%s", what);
}

/* ---- header ---- */

void rec_header_encode(const struct rec_header *h, unsigned char out[REC_HEADER_SIZE])
{
	uint64_t start;

	memset(out, 0, REC_HEADER_SIZE);
	memcpy(out, REC_MAGIC, 8);
	rec_put16(out + 8, (uint16_t)h->version);
	rec_put16(out + 10, (uint16_t)h->schema);
	rec_put32(out + 12, REC_HEADER_SIZE);
	rec_put32(out + 16, h->hz);
	rec_put32(out + 20, h->interval_ms);
	rec_put64(out + 24, h->btime);
	memcpy(&start, &h->start, 8);
	rec_put64(out + 32, start);
	rec_put32(out + 40, h->flags);
	rec_put32(out + 44, h->key_every);
	rec_put32(out + 60, rec_crc(out, 60));
}

int rec_header_parse(const unsigned char *p, size_t len, struct rec_header *h, size_t *bad_off, struct ps_error *e)
{
	char msg[256];
	uint64_t start;

	memset(h, 0, sizeof(*h));
	if (len < 8 || memcmp(p, REC_MAGIC, 8))
		return bad(bad_off, 0, e, EINVAL, len < 8 && !memcmp(p, REC_MAGIC, len) && len
			   ? _("truncated header: the file ends inside it")
			   : _("not a pscope recording (no PSCOPREC magic)"));
	if (len < 12)
		return bad(bad_off, len, e, EINVAL, _("truncated header: the file ends inside it"));
	h->version = rec_get16(p + 8);
	h->schema = rec_get16(p + 10);
	/* The version first: a newer file may have a longer header. */
	if (h->version > REC_VERSION || h->version == 0) {
		snprintf(msg, sizeof(msg), _("format version %u: this pscope reads version %d (a newer pscope wrote it)"),
			 h->version, REC_VERSION);
		return bad(bad_off, 8, e, EPROTONOSUPPORT, msg);
	}
	if (h->schema > REC_SCHEMA || h->schema == 0) {
		snprintf(msg, sizeof(msg), _("frame schema %u: this pscope reads schema %d (a newer pscope wrote it)"),
			 h->schema, REC_SCHEMA);
		return bad(bad_off, 10, e, EPROTONOSUPPORT, msg);
	}
	if (len < REC_HEADER_SIZE)
		return bad(bad_off, len, e, EINVAL, _("truncated header: the file ends inside it"));
	if (rec_get32(p + 12) != REC_HEADER_SIZE)
		return bad(bad_off, 12, e, EINVAL, _("bad header size"));
	if (rec_get32(p + 60) != rec_crc(p, 60))
		return bad(bad_off, 60, e, EBADMSG, _("header checksum mismatch: the header is corrupted"));
	h->hz = rec_get32(p + 16);
	h->interval_ms = rec_get32(p + 20);
	h->btime = rec_get64(p + 24);
	start = rec_get64(p + 32);
	memcpy(&h->start, &start, 8);
	h->flags = rec_get32(p + 40);
	h->key_every = rec_get32(p + 44);
	if (h->hz == 0 || h->hz > 100000)
		return bad(bad_off, 16, e, EINVAL, _("bad clock tick rate in the header"));
	if (!(h->start > 0 && h->start < 1e11))
		return bad(bad_off, 32, e, EINVAL, _("bad start time in the header"));
	if (h->key_every == 0 || h->key_every > 4096)
		return bad(bad_off, 44, e, EINVAL, _("bad key frame spacing in the header"));
	return 0;
}

/* ---- checkpoint slots ---- */

#define SLOT_MAGIC 0x4b435350u     /* "PSCK" */

void rec_slot_encode(const struct rec_slot *s, unsigned char out[REC_SLOT_SIZE])
{
	memset(out, 0, REC_SLOT_SIZE);
	rec_put32(out, SLOT_MAGIC);
	rec_put32(out + 4, s->closed ? 1 : 0);
	rec_put64(out + 8, s->gen);
	rec_put64(out + 16, s->last_index);
	rec_put32(out + 24, s->nframes);
	rec_put32(out + 28, rec_crc(out, 28));
}

int rec_slot_parse(const unsigned char *p, size_t len, struct rec_slot *s)
{
	static const unsigned char zero[REC_SLOT_SIZE];

	memset(s, 0, sizeof(*s));
	if (len < REC_SLOT_SIZE)
		return -EBADMSG;
	if (!memcmp(p, zero, REC_SLOT_SIZE))
		return -ENOENT;
	if (rec_get32(p) != SLOT_MAGIC || rec_get32(p + 28) != rec_crc(p, 28))
		return -EBADMSG;
	s->closed = rec_get32(p + 4) & 1;
	s->gen = rec_get64(p + 8);
	s->last_index = rec_get64(p + 16);
	s->nframes = rec_get32(p + 24);
	return 0;
}

/* ---- block heads ---- */

#define BLOCK_MAGIC 0x4b425350u    /* "PSBK" */

void rec_block_encode(const struct rec_block *b, unsigned char out[REC_BLOCK_HEAD])
{
	memset(out, 0, REC_BLOCK_HEAD);
	rec_put32(out, BLOCK_MAGIC);
	out[4] = (unsigned char)b->type;
	out[5] = (unsigned char)b->codec;
	rec_put32(out + 8, b->seq);
	rec_put32(out + 12, b->ref);
	rec_put64(out + 16, b->wall_ns);
	rec_put32(out + 24, b->stored_len);
	rec_put32(out + 28, b->raw_len);
	rec_put32(out + 32, b->stored_crc);
	rec_put32(out + 36, b->raw_crc);
	rec_put32(out + 44, rec_crc(out, 44));
}

int rec_block_parse(const unsigned char *p, size_t len, struct rec_block *b, size_t *bad_off, struct ps_error *e)
{
	memset(b, 0, sizeof(*b));
	if (len < REC_BLOCK_HEAD)
		return bad(bad_off, len, e, EBADMSG, _("the file ends inside a block head"));
	if (rec_get32(p) != BLOCK_MAGIC)
		return bad(bad_off, 0, e, EBADMSG, _("no block here (bad block magic)"));
	if (rec_get32(p + 44) != rec_crc(p, 44))
		return bad(bad_off, 44, e, EBADMSG, _("block head checksum mismatch"));
	b->type = p[4];
	b->codec = p[5];
	b->seq = rec_get32(p + 8);
	b->ref = rec_get32(p + 12);
	b->wall_ns = rec_get64(p + 16);
	b->stored_len = rec_get32(p + 24);
	b->raw_len = rec_get32(p + 28);
	b->stored_crc = rec_get32(p + 32);
	b->raw_crc = rec_get32(p + 36);
	if (b->type != REC_B_FRAME && b->type != REC_B_INDEX)
		return bad(bad_off, 4, e, EBADMSG, _("unknown block type"));
	if (b->codec != REC_C_RAW && b->codec != REC_C_ZSTD)
		return bad(bad_off, 5, e, EBADMSG, _("unknown block compression"));
	if (b->raw_len > REC_FRAME_MAX || b->stored_len > REC_FRAME_MAX)
		return bad(bad_off, 24, e, EBADMSG, _("block larger than a frame can be"));
	if (b->codec == REC_C_RAW && b->raw_len != b->stored_len)
		return bad(bad_off, 28, e, EBADMSG, _("uncompressed block of two lengths"));
	if (b->type == REC_B_FRAME && b->ref != REC_NO_REF && b->ref >= b->seq)
		return bad(bad_off, 12, e, EBADMSG, _("a delta frame against a later frame"));
	return 0;
}

/* ---- index blocks ---- */

size_t rec_index_size(size_t n)
{
	return REC_INDEX_HEAD + n * REC_INDEX_ENTRY;
}

void rec_index_encode(uint64_t prev, const struct rec_entry *v, size_t n, unsigned char *out)
{
	memset(out, 0, REC_INDEX_HEAD);
	rec_put64(out, prev);
	rec_put32(out + 8, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		unsigned char *q = out + REC_INDEX_HEAD + i * REC_INDEX_ENTRY;
		rec_put64(q, v[i].wall_ns);
		rec_put64(q + 8, v[i].off);
		rec_put32(q + 16, v[i].seq);
		rec_put32(q + 20, v[i].len);
	}
}

int rec_index_parse(const unsigned char *p, size_t len, uint64_t *prev, struct rec_entry **out, size_t *n,
		    size_t *bad_off, struct ps_error *e)
{
	*out = NULL;
	*n = 0;
	if (len < REC_INDEX_HEAD)
		return bad(bad_off, len, e, EBADMSG, _("index block too short"));
	size_t k = rec_get32(p + 8);
	if (k == 0 || k > (len - REC_INDEX_HEAD) / REC_INDEX_ENTRY || rec_index_size(k) != len)
		return bad(bad_off, 8, e, EBADMSG, _("index block count does not match its length"));
	*prev = rec_get64(p);
	struct rec_entry *v = calloc(k, sizeof(*v));
	if (!v)
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	for (size_t i = 0; i < k; i++) {
		const unsigned char *q = p + REC_INDEX_HEAD + i * REC_INDEX_ENTRY;
		v[i].wall_ns = rec_get64(q);
		v[i].off = rec_get64(q + 8);
		v[i].seq = rec_get32(q + 16);
		v[i].len = rec_get32(q + 20);
		if ((i && (v[i].seq != v[i - 1].seq + 1 || v[i].off <= v[i - 1].off)) || v[i].off < REC_DATA_OFF ||
		    v[i].len < REC_BLOCK_HEAD) {
			free(v);
			return bad(bad_off, REC_INDEX_HEAD + i * REC_INDEX_ENTRY, e, EBADMSG,
				   _("index entry out of order"));
		}
	}
	*out = v;
	*n = k;
	return 0;
}

/* ---- packing ---- */

#ifdef HAVE_ZSTD
static struct {
	ZSTD_CCtx *(*createCCtx)(void);
	size_t (*freeCCtx)(ZSTD_CCtx *c);
	ZSTD_DCtx *(*createDCtx)(void);
	size_t (*freeDCtx)(ZSTD_DCtx *d);
	size_t (*CCtx_setParameter)(ZSTD_CCtx *c, ZSTD_cParameter p, int v);
	size_t (*CCtx_refPrefix)(ZSTD_CCtx *c, const void *p, size_t n);
	size_t (*DCtx_refPrefix)(ZSTD_DCtx *d, const void *p, size_t n);
	size_t (*compress2)(ZSTD_CCtx *c, void *dst, size_t cap, const void *src, size_t n);
	size_t (*decompressDCtx)(ZSTD_DCtx *d, void *dst, size_t cap, const void *src, size_t n);
	size_t (*compressBound)(size_t n);
	unsigned (*isError)(size_t code);
	const char *(*getErrorName)(size_t code);
} zs;
static const struct lazy_sym zs_syms[] = {
	{ "ZSTD_createCCtx", (void **)&zs.createCCtx }, { "ZSTD_freeCCtx", (void **)&zs.freeCCtx },
	{ "ZSTD_createDCtx", (void **)&zs.createDCtx }, { "ZSTD_freeDCtx", (void **)&zs.freeDCtx },
	{ "ZSTD_CCtx_setParameter", (void **)&zs.CCtx_setParameter },
	{ "ZSTD_CCtx_refPrefix", (void **)&zs.CCtx_refPrefix }, { "ZSTD_DCtx_refPrefix", (void **)&zs.DCtx_refPrefix },
	{ "ZSTD_compress2", (void **)&zs.compress2 }, { "ZSTD_decompressDCtx", (void **)&zs.decompressDCtx },
	{ "ZSTD_compressBound", (void **)&zs.compressBound }, { "ZSTD_isError", (void **)&zs.isError },
	{ "ZSTD_getErrorName", (void **)&zs.getErrorName }, { NULL, NULL }
};
static struct lazy_lib zs_lib = { .soname = "libzstd.so.1", .package = "libzstd1", .syms = zs_syms,
				  .lock = PTHREAD_MUTEX_INITIALIZER };

static int need_zstd(struct ps_error *e)
{
	if (lazy_lib_open(&zs_lib))
		return 0;
	return ps_error_set(e, ENOSYS, _("recordings are zstd-compressed and %s cannot be opened (%s): install %s"),
			    zs_lib.soname, zs_lib.why, zs_lib.package);
}

int rec_pack(const void *raw, size_t len, const void *ref, size_t ref_len, void **out, size_t *out_len,
	     struct ps_error *e)
{
	int r = need_zstd(e);
	if (r < 0)
		return r;
	ZSTD_CCtx *c = zs.createCCtx();
	size_t cap = zs.compressBound(len);
	void *b = malloc(cap ? cap : 1);
	if (!c || !b) {
		zs.freeCCtx(c);
		free(b);
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	}
	zs.CCtx_setParameter(c, ZSTD_c_compressionLevel, 6);
	zs.CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	if (ref && ref_len)
		zs.CCtx_refPrefix(c, ref, ref_len);
	size_t n = zs.compress2(c, b, cap, raw, len);
	zs.freeCCtx(c);
	if (zs.isError(n)) {
		free(b);
		return ps_error_set(e, EIO, _("zstd: %s"), zs.getErrorName(n));
	}
	*out = b;
	*out_len = n;
	return 0;
}

int rec_unpack(const void *in, size_t len, const void *ref, size_t ref_len, void *out, size_t raw_len,
	       struct ps_error *e)
{
	int r = need_zstd(e);
	if (r < 0)
		return r;
	ZSTD_DCtx *d = zs.createDCtx();
	if (!d)
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	if (ref && ref_len)
		zs.DCtx_refPrefix(d, ref, ref_len);
	size_t n = zs.decompressDCtx(d, out, raw_len, in, len);
	zs.freeDCtx(d);
	if (zs.isError(n))
		return ps_error_set(e, EBADMSG, _("the compressed frame does not decompress (zstd: %s)"),
				    zs.getErrorName(n));
	if (n != raw_len)
		return ps_error_set(e, EBADMSG, "%s", _("the frame decompresses to another length than its head says"));
	return 0;
}
#else
int rec_pack(const void *raw, size_t len, const void *ref, size_t ref_len, void **out, size_t *out_len,
	     struct ps_error *e)
{
	return ps_error_set(e, ENOSYS, "%s", _("this pscope was built without libzstd: it cannot write recordings"));
}

int rec_unpack(const void *in, size_t len, const void *ref, size_t ref_len, void *out, size_t raw_len,
	       struct ps_error *e)
{
	return ps_error_set(e, ENOSYS, "%s", _("this pscope was built without libzstd: it cannot read recordings"));
}
#endif
