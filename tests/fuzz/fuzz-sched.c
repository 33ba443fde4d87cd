/* /proc/PID/task/TID/sched.
 * fuzz-seeds: time/sched.txt */
#include "fuzz.h"
#include "proc/sched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct proc_sched s;

	proc_sched_parse(p, size, &s);
	free(p);
	return 0;
}
