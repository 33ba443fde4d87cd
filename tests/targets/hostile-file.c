/* A target that rewrites the files it runs from: it loads LIB (a copy it
 * owns), calls its functions in turn, and a second thread keeps changing
 * the part of LIB that is not mapped (symbol tables, section headers,
 * DWARF): cut off, refilled with junk, put back. A reader that maps the
 * file sees it shrink (SIGBUS on the lost pages) and change under it. The
 * mapped part stays intact, so the target itself runs on.
 *
 *   hostile-file LIB          rewrite LIB while running
 *   hostile-file LIB --exe    also try to rewrite the executable (the kernel
 *                             refuses: text file busy) and say so
 *   hostile-file LIB --still  leave LIB alone (the test changes it)
 * Prints "ready PID", then "exe: ..." with --exe. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int lib_fd;
static off_t load_end, full_size;
static unsigned char *orig;

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

static void *rewriter(void *arg)
{
	unsigned char *junk = malloc((size_t)full_size);
	unsigned seed = 1;

	for (;;) {
		for (off_t i = 0; i < full_size; i++)
			junk[i] = (unsigned char)(seed = seed * 1103515245u + 12345u) >> 16;
		if (ftruncate(lib_fd, load_end) < 0)
			break;
		pause_ms(3);
		pwrite(lib_fd, junk + load_end, (size_t)(full_size - load_end), load_end);
		pause_ms(3);
		pwrite(lib_fd, orig + load_end, (size_t)(full_size - load_end), load_end);
		pause_ms(3);
	}
	return arg;
}

int main(int argc, char **argv)
{
	void (*work[64])(void);
	struct stat st;
	pthread_t th;

	if (argc < 2) {
		fprintf(stderr, "usage: hostile-file LIB [--exe]\n");
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "hostile-file: %s\n", dlerror());
		return 1;
	}
	for (int i = 0; i < 64; i++) {
		char name[32];
		snprintf(name, sizeof(name), "hostile_work_%d%d", i / 8 + 1, i % 8);
		if (!(work[i] = (void (*)(void))dlsym(h, name))) {
			fprintf(stderr, "hostile-file: no %s\n", name);
			return 1;
		}
	}
	lib_fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (lib_fd < 0 || fstat(lib_fd, &st) < 0) {
		perror("hostile-file: open");
		return 1;
	}
	full_size = st.st_size;
	orig = malloc((size_t)full_size);
	if (!orig || pread(lib_fd, orig, (size_t)full_size, 0) != full_size) {
		fprintf(stderr, "hostile-file: cannot read %s\n", argv[1]);
		return 1;
	}
	const Elf64_Ehdr *eh = (const void *)orig;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(orig + eh->e_phoff + (size_t)i * eh->e_phentsize);
		if (ph->p_type == PT_LOAD && (off_t)(ph->p_offset + ph->p_filesz) > load_end)
			load_end = (off_t)(ph->p_offset + ph->p_filesz);
	}
	/* The mapped pages: up to the page holding the last loaded byte. */
	load_end = (load_end + 4095) & ~(off_t)4095;
	if (load_end >= full_size) {
		fprintf(stderr, "hostile-file: nothing after the loaded part of %s\n", argv[1]);
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	bool still = argc > 2 && !strcmp(argv[2], "--still");
	if (argc > 2 && !strcmp(argv[2], "--exe")) {
		int fd = open("/proc/self/exe", O_WRONLY | O_CLOEXEC);
		printf("exe: %s\n", fd < 0 ? strerror(errno) : "rewritable");
		if (fd >= 0)
			close(fd);
	}
	fflush(stdout);
	if (!still)
		pthread_create(&th, NULL, rewriter, NULL);
	for (unsigned i = 0;; i++)
		work[i % 64]();
}
