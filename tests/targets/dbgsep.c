/* Loads the library named by argv[1] (tests/targets/dbgsep-lib.c, or a
 * copy of it) and waits in its lib_entry; prints "ready" first. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	void (*entry)(int) = h ? (void (*)(int))dlsym(h, "lib_entry") : NULL;

	if (!entry) {
		fprintf(stderr, "dbgsep: %s\n", dlerror());
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	entry(argc);
	return 0;
}
