/* Target for the core benchmark.
 *   core-big RESIDENT_MB [UNTOUCHED_MB] [ZERO_EVERY]
 * RESIDENT_MB of memory written on every page (a data byte per 64 bytes;
 * with ZERO_EVERY=N, every Nth page is left all zeros), plus UNTOUCHED_MB
 * of mappings with a single page touched every 64 MiB. Prints "ready". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	size_t untouched = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	size_t zero_every = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t sz = mb << 20;
	unsigned char *p = mmap(NULL, sz ? sz : page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	for (size_t pg = 0; pg < sz / page; pg++) {
		unsigned char *q = p + pg * page;
		if (zero_every && pg % zero_every == 0) {
			q[0] = 0; /* resident, all zeros */
			continue;
		}
		for (size_t i = 0; i < page; i += 64)
			q[i] = (unsigned char)((pg * 131 + i) | 1);
	}
	if (untouched) {
		size_t usz = untouched << 20;
		unsigned char *u = mmap(NULL, usz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
					-1, 0);
		if (u == MAP_FAILED)
			return 1;
		for (size_t off = 0; off < usz; off += (size_t)64 << 20)
			u[off] = 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
