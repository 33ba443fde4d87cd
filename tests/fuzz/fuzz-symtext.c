/* /tmp/perf-PID.map and /proc/kallsyms text, then lookups.
 * fuzz-seeds: */
#include "fuzz.h"
#include "sym/sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct sym_range *r;
	char *pool;
	ssize_t n;

	for (int kall = 0; kall < 2; kall++) {
		r = NULL;
		pool = NULL;
		n = kall ? sym_kallsyms_parse(p, size, &r, &pool) : sym_perfmap_parse(p, size, &r, &pool);
		if (n >= 0) {
			sym_range_find(r, (size_t)n, size ? data[0] * 0x1000ull : 0, !kall);
			free(r);
			free(pool);
		}
	}
	free(p);
	return 0;
}
