/* /proc/PID/cgroup.
 * fuzz-seeds: */
#include "fuzz.h"
#include "proc/cgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct proc_cgroup cg;

	proc_cgroup_parse(p, size, &cg);
	free(p);
	return 0;
}
