/* Taskstats replies, exit messages and genetlink family replies.
 * fuzz-seeds: time/taskstats.bin */
#include "fuzz.h"
#include "proc/taskstats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct proc_taskstats t;
	struct proc_task_exit x;
	uint16_t id;

	proc_taskstats_parse(p, size, &t);
	proc_taskstats_exit_parse(p, size, &x);
	proc_genl_family_parse(p, size, &id);
	free(p);
	return 0;
}
