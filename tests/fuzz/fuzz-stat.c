/* /proc/PID/stat, statm and the exit code field.
 * fuzz-seeds: stat-*.txt statm.txt */
#include "fuzz.h"
#include "proc/info.h"
#include "proc/stat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct proc_stat st;
	struct proc_statm sm;

	proc_stat_parse(p, size, &st);
	proc_statm_parse(p, size, &sm);
	proc_stat_exit_code_parse(p, size);
	free(p);
	return 0;
}
