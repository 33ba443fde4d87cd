/* An ELF file that changes under pscope: the input is written to a file
 * of its own (a memfd: writable by others, so not trusted), loaded as a
 * module through sym_file_stable() and sym_module_get() (libelf, libdwfl:
 * program headers, build-id, symbols, DWARF lines and inlines), and then
 * cut to nothing and refilled with junk before and between lookups at
 * addresses taken from the input. A reader that mapped the file itself
 * would take SIGBUS or read the junk; the module's copy stays whole.
 * Seeds: small ELF files (tests/fuzz/corpus/elffile/).
 * fuzz-seeds: */
#include "fuzz.h"
#include "sym/local.h"

#include <sys/mman.h>
#include <unistd.h>

static void rewrite(int fd, const uint8_t *data, size_t size, int how)
{
	if (ftruncate(fd, 0) < 0 || how == 0)
		return;
	for (size_t off = 0; off < size; off += 4096) {
		unsigned char junk[4096];
		size_t n = size - off < sizeof(junk) ? size - off : sizeof(junk);
		for (size_t i = 0; i < n; i++)
			junk[i] = (unsigned char)(data[off + i] ^ 0xa5);
		if (pwrite(fd, junk, n, (off_t)off) < 0)
			return;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	int keep = dup(fd); /* the original, changed below */
	int sfd = sym_file_stable(fd);
	struct sym_module *m = sfd >= 0 ? sym_module_get(sfd, "/fuzz/elf", "/fuzz/elf", 1, 1) : NULL;
	if (m) {
		rewrite(keep, data, size, 0); /* cut to nothing */
		for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
			uint64_t pc;
			memcpy(&pc, data + i, 8);
			pc %= size + 0x10000;
			sym_module_lookup(m, pc, i & 8, true);
			rewrite(keep, data, size, 1); /* junk */
		}
		free(sym_module_data_name(m, size / 2));
		uint64_t v, sz;
		sym_module_symbol(m, "main", &v, &sz);
		sym_module_put(m);
	}
	if (keep >= 0)
		close(keep);
	return 0;
}
