/* C++ demangling within the cap: the input as a mangled name ("_Z" put in
 * front when missing), demangled by sym_demangle() (libiberty's streaming
 * demangler, stopped at SYM_NAME_MAX bytes), and the input cut by
 * sym_name_cut(). Neither may return more than the cap and its mark, nor
 * take memory or time that grows with the demangled length.
 * Seeds: mangled names, symbol bombs among them (tests/fuzz/corpus/demangle/).
 * fuzz-seeds: */
#include "fuzz.h"
#include "sym/sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(size + 3);

	if (!name)
		return 0;
	size_t k = 0;
	if (size < 2 || data[0] != '_' || data[1] != 'Z') {
		name[k++] = '_';
		name[k++] = 'Z';
	}
	memcpy(name + k, data, size);
	name[k + size] = '\0';
	char *d = sym_demangle(name);
	if (d && strlen(d) > SYM_NAME_MAX + 64)
		abort();
	free(d);
	char *c = sym_name_cut((const char *)data, size);
	if (c && strlen(c) > SYM_NAME_MAX + 64 && strlen(c) > size)
		abort();
	free(c);
	free(name);
	return 0;
}
