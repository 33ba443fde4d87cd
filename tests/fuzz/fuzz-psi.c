/* /proc/pressure/* and cgroup RESOURCE.pressure.
 * fuzz-seeds: time/pressure-*.txt */
#include "fuzz.h"
#include "proc/psi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct proc_psi s;

	proc_psi_parse(p, size, &s);
	free(p);
	return 0;
}
