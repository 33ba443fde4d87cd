/* /proc/PID/fdinfo/N.
 * fuzz-seeds: detail/fdinfo-*.txt */
#include "fuzz.h"
#include "proc/fd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct proc_fdinfo fi;

	proc_fdinfo_parse(p, size, &fi);
	free(p);
	return 0;
}
