/* The core notes built from /proc text: NT_PRPSINFO from stat, status and
 * cmdline, NT_PRSTATUS's times and signal masks from a thread's stat and
 * status. The input is split in three at its first two NUL-NUL pairs.
 * fuzz-seeds: stat-*.txt */
#include "fuzz.h"
#include "core/notes.h"
#include "freeze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part[3] = { data, data, data };
	size_t len[3] = { size, 0, 0 };
	struct elf_prpsinfo ps;
	struct elf_prstatus pr;
	struct frozen_thread t = { .tid = 1 };
	struct core_proc_info pi = { .ppid = 1 };

	for (int k = 1; k < 3; k++) {
		const uint8_t *start = part[k - 1], *end = start + len[k - 1];
		const uint8_t *sep = NULL;
		for (const uint8_t *q = start; q + 1 < end; q++)
			if (!q[0] && !q[1]) {
				sep = q;
				break;
			}
		if (!sep)
			break;
		len[k - 1] = (size_t)(sep - start);
		part[k] = sep + 2;
		len[k] = (size_t)(end - part[k]);
	}
	char *s[3];
	for (int k = 0; k < 3; k++)
		s[k] = fuzz_copy(part[k], len[k]);
	core_prpsinfo_fill(&ps, s[0], len[0], s[1], len[1], s[2], len[2]);
	core_prstatus_fill(&pr, &t, &pi, s[0], len[0], s[1], len[1]);
	for (int k = 0; k < 3; k++)
		free(s[k]);
	return 0;
}
