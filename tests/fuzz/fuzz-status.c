/* /proc/PID/status.
 * fuzz-seeds: */
#include "fuzz.h"
#include "proc/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct proc_status st;

	proc_status_parse(p, size, &st);
	free(p);
	return 0;
}
