/* Target for the core tests: N threads parked in known functions, a known
 * global, a region excluded with MADV_DONTDUMP and a large mapping never
 * touched.
 *   core-threads [NTHREADS] [RESIDENT_MB]
 * Prints "dontdump=ADDR", "past_eof=ADDR" (3 unreadable pages of a file
 * mapping past its end) and "ready" once set up; runs until killed. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

long the_global;                  /* set at run time: lives in written memory */
char the_string[64];
static volatile int sink, forever = 1;

__attribute__((noinline)) void core_park_leaf(void)
{
	while (forever)
		pause();
	sink++;
}

__attribute__((noinline)) void core_park_middle(int depth)
{
	if (depth > 0)
		core_park_middle(depth - 1);
	else
		core_park_leaf();
	sink++;
}

static void *worker(void *arg)
{
	core_park_middle((int)(intptr_t)arg % 3);
	return NULL;
}

__attribute__((noinline)) void core_main_waits(void)
{
	while (forever)
		pause();
	sink++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	long mb = argc > 2 ? atol(argv[2]) : 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	the_global = 271828;
	snprintf(the_string, sizeof(the_string), "pscope core target");
	/* Excluded from cores by the process itself. */
	char *dd = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (dd == MAP_FAILED)
		return 1;
	memset(dd, 0x5a, 4 * page);
	madvise(dd, 4 * page, MADV_DONTDUMP);
	/* A private file mapping reaching past the end of its one-page file,
	 * written to (so it is dumped): the pages past EOF cannot be read. */
	char tmpl[] = "/tmp/pscope-core-target.XXXXXX";
	int fd = mkstemp(tmpl);
	char *eof = MAP_FAILED;
	if (fd >= 0 && ftruncate(fd, (off_t)page) == 0)
		eof = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (fd >= 0) {
		unlink(tmpl);
		close(fd);
	}
	if (eof == MAP_FAILED)
		return 1;
	eof[0] = 1;
	/* Large and never touched: costs nothing in a core. */
	void *untouched = mmap(NULL, (size_t)1 << 30, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	(void)untouched;
	/* Resident memory with data on every page. */
	if (mb > 0) {
		size_t sz = (size_t)mb << 20;
		unsigned char *big = malloc(sz);
		if (!big)
			return 1;
		for (size_t i = 0; i < sz; i += 64)
			big[i] = (unsigned char)(i / 64 + 1);
	}
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, worker, (void *)(intptr_t)i) != 0)
			return 1;
	}
	printf("dontdump=%p\npast_eof=%p\nready\n", (void *)dd, (void *)(eof + page));
	fflush(stdout);
	core_main_waits();
	return 0;
}
