/* The core reader's notes: a PT_NOTE segment (NT_PRSTATUS, NT_PRPSINFO,
 * NT_SIGINFO, NT_AUXV, NT_FILE...) and an NT_FILE descriptor on its own.
 * Seeds: the notes of a kernel core (tests/fuzz/corpus/corenotes/).
 * fuzz-seeds: */
#include "fuzz.h"
#include "core/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct core_info ci = { 0 }, cf = { 0 };

	core_notes_parse(p, size, &ci);
	core_info_free(&ci);
	core_nt_file_parse(p, size, &cf);
	core_info_free(&cf);
	free(p);
	return 0;
}
