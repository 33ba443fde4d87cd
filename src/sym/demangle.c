/* C++ demangling through the C++ runtime (as eu-stack and gdb do). The
 * runtime is opened at the first mangled name rather than linked: linking
 * it maps and relocates all of libstdc++ (and libgcc_s) at every start,
 * about 1 MiB resident that the process list and most commands never use. */
#include "sym/sym.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* libstdc++'s C ABI entry point (cxxabi.h is C++ only). */
static char *(*cxa_demangle)(const char *mangled, char *buf, size_t *len, int *status);
static const struct lazy_sym stdcxx_syms[] = { { "__cxa_demangle", (void **)&cxa_demangle }, { NULL, NULL } };
/* The soname since GCC 3.4. Not there: names stay mangled. */
static struct lazy_lib stdcxx = { .soname = "libstdc++.so.6", .package = "libstdc++6", .syms = stdcxx_syms,
				  .lock = PTHREAD_MUTEX_INITIALIZER };

char *sym_demangle(const char *name)
{
	int status = 0;

	if (!name || strncmp(name, "_Z", 2) || !lazy_lib_open(&stdcxx))
		return NULL;
	char *d = cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(d);
		return NULL;
	}
	return d;
}
