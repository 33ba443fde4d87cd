/* /proc/PID/task/TID/{syscall,schedstat}.
 * fuzz-seeds: detail/syscall.txt detail/schedstat.txt */
#include "fuzz.h"
#include "proc/task.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	unsigned long long a[6], x, y, z;
	long nr;

	proc_syscall_parse(p, size, &nr, a);
	proc_schedstat_parse(p, size, &x, &y, &z);
	free(p);
	return 0;
}
