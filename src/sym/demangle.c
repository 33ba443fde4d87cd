/* C++ demangling through the C++ runtime (as eu-stack and gdb do). The
 * runtime is opened at the first mangled name rather than linked: linking
 * it maps and relocates all of libstdc++ (and libgcc_s) at every start,
 * about 1 MiB resident that the process list and most commands never use. */
#include "sym/sym.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s soname since GCC 3.4. */
#define STDCXX_SONAME "libstdc++.so.6"

/* libstdc++'s C ABI entry point (cxxabi.h is C++ only). */
typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static pthread_once_t demangle_once = PTHREAD_ONCE_INIT;
static cxa_demangle_fn cxa_demangle;

static void demangle_load(void)
{
	/* Kept open for the rest of the run; NULL (names left mangled) when
	 * the runtime is gone. */
	void *h = dlopen(STDCXX_SONAME, RTLD_LAZY | RTLD_LOCAL);

	if (h)
		*(void **)&cxa_demangle = dlsym(h, "__cxa_demangle");
}

char *sym_demangle(const char *name)
{
	int status = 0;

	if (!name || strncmp(name, "_Z", 2))
		return NULL;
	pthread_once(&demangle_once, demangle_load);
	if (!cxa_demangle)
		return NULL;
	char *d = cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(d);
		return NULL;
	}
	return d;
}
