/* .eh_frame sections indexed as .eh_frame_hdr would hold them (static
 * programs): records of any length, CIE pointers anywhere.
 * fuzz-seeds: */
#include "fuzz.h"
#include "sym/sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *b = fuzz_copy(data, size);
	struct sym_fde *f;

	if (!b)
		return 0;
	ssize_t n = sym_ehframe_index(b, size, 0x400000, &f);
	for (ssize_t i = 1; i < n; i++)
		if (f[i - 1].pc > f[i].pc || f[i].fde < 0x400000 || f[i].fde >= 0x400000 + size)
			__builtin_trap();
	free(f);
	free(b);
	return 0;
}
