/* A recording's pure parts: the file header, a frame header, the footer,
 * an index entry, and an interval decoded alone (a key) and, when that
 * worked, a second one on top of it (a delta).
 * fuzz-seeds: record-*.bin */
#include "fuzz.h"
#include "record/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rec_header h;
	struct rec_frame_head f;
	struct rec_footer ft;
	struct rec_entry en;
	struct rec_interval a, b;
	struct ps_error e;
	size_t need;

	rec_header_parse(data, size, &h, &need, &e);
	if (size >= REC_FRAME_HEAD)
		rec_frame_head_parse(data, &f, &e);
	if (size >= REC_FOOTER)
		rec_footer_parse(data, &ft);
	if (size >= REC_INDEX_ENTRY)
		rec_entry_parse(data, &en);
	if (rec_interval_decode(NULL, data, size, true, &a, &e) == 0) {
		struct rec_buf d = { 0 };
		if (rec_interval_decode(&a, data, size, false, &b, &e) == 0)
			rec_interval_free(&b);
		/* what it decoded to encodes and decodes back */
		if (rec_interval_encode(NULL, &a, &d) == 0 && rec_interval_decode(NULL, d.p, d.len, true, &b, &e) == 0)
			rec_interval_free(&b);
		rec_buf_free(&d);
		rec_interval_free(&a);
	}
	return 0;
}
