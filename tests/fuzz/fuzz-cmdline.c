/* /proc/PID/cmdline into buffers of several sizes.
 * fuzz-seeds: cmdline-*.bin */
#include "fuzz.h"
#include "proc/cmdline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	char out[64];

	for (size_t sz = 0; sz <= sizeof(out); sz += 16)
		proc_cmdline_parse(p, size, out, sz);
	free(p);
	return 0;
}
