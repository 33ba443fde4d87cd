/* /proc/PID/smaps_rollup.
 * fuzz-seeds: detail/smaps_rollup.txt */
#include "fuzz.h"
#include "proc/rollup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct proc_rollup r;

	proc_rollup_parse(p, size, &r);
	free(p);
	return 0;
}
