/* Compressed cores (systemd-coredump's .zst, .xz, .lz4): the input is a
 * compressed file; its magic picks the decompressor (core_unpack, into a
 * private temporary file under $TMPDIR, at most 1 MiB), and what comes out
 * is read as the start of a core (core_elf_parse, core_notes_parse).
 * Damaged streams must give an error, never a crash, a hang or a leak.
 * Seeds: the head of a kernel core compressed by zstd, xz and lz4
 * (tests/fuzz/corpus/unpack/).
 * fuzz-seeds: */
#include "fuzz.h"
#include "core/read.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int in = memfd_create("fuzz-unpack", MFD_CLOEXEC), out;
	struct ps_error e;
	bool cut;
	struct stat st;

	if (in < 0)
		return 0;
	if (write(in, data, size) != (ssize_t)size) {
		close(in);
		return 0;
	}
	enum core_comp k = core_compression(data, size);
	if (k != CORE_COMP_NONE && core_unpack(in, "fuzz", k, 1u << 20, &out, &cut, &e) == 0) {
		if (fstat(out, &st) == 0 && st.st_size > 0) {
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, out, 0);
			if (m != MAP_FAILED) {
				struct core_info ci = { 0 };
				const unsigned char *p = m;
				size_t len = (size_t)st.st_size;
				if (core_elf_parse(p, len, len, &ci, &e) == 0)
					for (size_t i = 0; i < ci.n_notes; i++) {
						uint64_t off = ci.notes[i].offset, n = ci.notes[i].filesz;
						if (off < len)
							core_notes_parse(p + off, n < len - off ? (size_t)n : len - off, &ci);
					}
				core_info_free(&ci);
				munmap(m, len);
			}
		}
		close(out);
	}
	close(in);
	return 0;
}
