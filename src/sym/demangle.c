/* C++ demangling through the C++ runtime (as eu-stack and gdb do). */
#include "sym/sym.h"

#include <stdlib.h>
#include <string.h>

/* libstdc++'s C ABI entry point (cxxabi.h is C++ only). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *sym_demangle(const char *name)
{
	int status = 0;

	if (!name || strncmp(name, "_Z", 2))
		return NULL;
	char *d = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(d);
		return NULL;
	}
	return d;
}
