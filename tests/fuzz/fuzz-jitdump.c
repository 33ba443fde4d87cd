/* jitdump records (the file a JIT runtime writes), from the start and from
 * the middle, then lookups.
 * fuzz-seeds: */
#include "fuzz.h"
#include "sym/sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int start = 0; start < 2; start++) {
		struct sym_range *r;
		char *pool;
		size_t used;
		ssize_t n = sym_jitdump_parse(data, size, start, &used, &r, &pool);
		if (n >= 0) {
			if (used > size)
				__builtin_trap();
			sym_range_find(r, (size_t)n, size ? data[0] * 0x1000ull : 0, true);
			free(r);
			free(pool);
		}
	}
	return 0;
}
