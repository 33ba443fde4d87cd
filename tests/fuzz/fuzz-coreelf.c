/* The start of a core file as the reader sees it: the ELF header and
 * program headers (core_elf_parse), then each PT_NOTE that lies in the
 * input (core_notes_parse), the file size being the input's size (so the
 * segments past it are "cut short"); and the input's first line read as a
 * core_pattern (core_where_parse).
 * Seeds: the head of a kernel core (tests/fuzz/corpus/coreelf/).
 * fuzz-seeds: */
#include "fuzz.h"
#include "core/read.h"
#include "core/where.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct core_info ci = { 0 };
	struct ps_error e;

	if (core_elf_parse(p, size, size, &ci, &e) == 0)
		for (size_t i = 0; i < ci.n_notes; i++) {
			uint64_t off = ci.notes[i].offset, len = ci.notes[i].filesz;
			if (off < size)
				core_notes_parse(p + off, len < size - off ? (size_t)len : size - off, &ci);
		}
	core_info_free(&ci);

	char pat[256];
	size_t n = size < sizeof(pat) - 1 ? size : sizeof(pat) - 1;
	memcpy(pat, data, n);
	pat[n] = '\0';
	struct core_where w;
	core_where_parse(pat, size && (data[0] & 1), size > 1 && (data[1] & 1) ? "/some/dir" : NULL, &w);
	free(p);
	return 0;
}
