/* A recording's bytes: the header, the checkpoint slots, every block head
 * in turn, index blocks, key frames decompressed (their length capped) and
 * decoded, the payload decoder of each schema on the raw input, and the times a user
 * names, and the input as a day file's name.
 * fuzz-seeds: record/sleep.rec record/sleep2.rec */
#include "fuzz.h"
#include "record/record.h"
#include "record/spool.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *p = (unsigned char *)fuzz_copy(data, size);
	struct rec_header h;
	struct rec_slot sl;
	struct ps_error e;
	size_t bad_off;
	struct snap_list *s = NULL;

	if (rec_header_parse(p, size, &h, &bad_off, &e) < 0) {
		h = (struct rec_header){ .hz = 100, .key_every = 32, .schema = REC_SCHEMA };
	}
	for (size_t k = 0; k < 2 && REC_SLOT_OFF + (k + 1) * REC_SLOT_SIZE <= size; k++)
		rec_slot_parse(p + REC_SLOT_OFF + k * REC_SLOT_SIZE, REC_SLOT_SIZE, &sl);
	size_t off = size > REC_DATA_OFF ? REC_DATA_OFF : size;
	for (int guard = 0; off < size && guard < 64; guard++) {
		struct rec_block b;
		if (rec_block_parse(p + off, size - off, &b, &bad_off, &e) < 0)
			break;
		off += REC_BLOCK_HEAD;
		if (b.stored_len > size - off)
			break;
		if (b.type == REC_B_INDEX) {
			uint64_t prev;
			struct rec_entry *v;
			size_t n;
			if (rec_index_parse(p + off, b.stored_len, &prev, &v, &n, &bad_off, &e) == 0)
				free(v);
		} else if (b.ref == REC_NO_REF && b.raw_len <= (1u << 20)) {
			void *raw = malloc(b.raw_len ? b.raw_len : 1);
			int r = b.codec == REC_C_ZSTD ? rec_unpack(p + off, b.stored_len, NULL, 0, raw, b.raw_len, &e) : -1;
			if (r == 0 && rec_frame_decode(raw, b.raw_len, &h, &s, &bad_off, &e) == 0) {
				snap_list_rates(NULL, s);
				snap_put(&s->h);
			}
			free(raw);
		}
		off += b.stored_len;
	}
	/* The raw input as a payload of each schema. */
	for (unsigned k = 1; k <= REC_SCHEMA; k++) {
		h.schema = k;
		s = NULL;
		if (rec_frame_decode(p, size, &h, &s, &bad_off, &e) == 0)
			snap_put(&s->h);
	}
	char t[72];
	size_t n = size < sizeof(t) - 1 ? size : sizeof(t) - 1;
	memcpy(t, p, n);
	t[n] = '\0';
	double w;
	rec_time_parse(t, 1796000000.0, 1796003600.0, &w, &e);
	int day;
	unsigned seq;
	if (rec_day_parse(t, &day, &seq) == 0) {
		char back[64];
		rec_day_name(day, seq, back, sizeof(back));
		if (strcmp(back, t))
			__builtin_trap(); /* a name parsed must be the name made */
	}
	free(p);
	return 0;
}
