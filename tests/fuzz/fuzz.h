/* Shared by the libFuzzer harnesses (tests/fuzz/fuzz-*.c). Each harness
 * defines LLVMFuzzerTestOneInput and names its seeds in a comment line
 *     fuzz-seeds: FILE-OR-GLOB ...   (relative to tests/fixtures)
 * which tests/fuzz/run.sh reads, next to tests/fuzz/corpus/NAME/. */
#ifndef PS_FUZZ_H
#define PS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An exact-size heap copy (no terminator), so AddressSanitizer sees a read
 * one byte past the input. */
static inline char *fuzz_copy(const uint8_t *data, size_t size)
{
	char *p = malloc(size ? size : 1);
	if (p && size)
		memcpy(p, data, size);
	return p;
}

#endif
