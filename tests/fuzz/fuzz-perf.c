/* perf ring records: PERF_RECORD_SAMPLE as the sampler decodes it, and the
 * ring copy that unwraps a record split at the ring's end.
 * fuzz-seeds: */
#include "fuzz.h"
#include "sample/local.h"

#include <linux/perf_event.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_header h;
	struct samp_rec_sample r;
	unsigned char ring[256], out[256];

	if (size < sizeof(h) || size > 65536)
		return 0;
	/* A record is as long as its header says, and at most what came. */
	memcpy(&h, data, sizeof(h));
	if (h.size < sizeof(h) || h.size > size)
		return 0;
	unsigned char *rec = (unsigned char *)fuzz_copy(data, h.size);
	/* Both shapes the sampler asks for: call chains only, and call chains
	 * with the user registers and a stack copy (DWARF unwinding). */
	uint64_t masks[2] = { 0, SAMP_REGS_MASK };
	for (int m = 0; m < 2; m++)
		if (samp_parse_sample((const struct perf_event_header *)rec, masks[m], &r) == 0)
			for (uint64_t i = 0; i < r.nr; i++)
				(void)*(volatile const uint64_t *)&r.ips[i];
	free(rec);
	memset(ring, 0, sizeof(ring));
	memcpy(ring, data, size < sizeof(ring) ? size : sizeof(ring));
	samp_ring_copy(ring, sizeof(ring), data[0] * 7u, out, size < sizeof(out) ? size : sizeof(out));
	return 0;
}
