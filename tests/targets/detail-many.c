/* Benchmark target: many fds or many mappings.
 *   detail-many fds N DIR    N descriptors: /dev/null, a regular file in
 *                            DIR, pipe ends and unix socketpair ends
 *   detail-many maps N       N separate mappings (alternating protections
 *                            so the kernel cannot merge them)
 * Prints "ready" and sleeps until killed. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static int fail(const char *what)
{
	perror(what);
	return 1;
}

static int many_fds(long n, const char *dir)
{
	struct rlimit rl;
	char path[4096];
	long made = 0;

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < (rlim_t)n + 64) {
		rl.rlim_cur = (rlim_t)n + 64 < rl.rlim_max ? (rlim_t)n + 64 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	snprintf(path, sizeof(path), "%s/many-fds-file", dir);
	while (made < n) {
		int fds[2];
		switch (made % 8) {
		case 0: case 1:
			if (open("/dev/null", O_RDONLY) < 0)
				return fail("open /dev/null");
			made++;
			break;
		case 2: case 3:
			if (open(path, O_RDWR | O_CREAT | O_APPEND, 0600) < 0)
				return fail("open file");
			made++;
			break;
		case 4:
			if (pipe(fds) < 0)
				return fail("pipe");
			made += 2;
			break;
		case 6:
			if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0)
				return fail("socketpair");
			made += 2;
			break;
		}
	}
	return 0;
}

static int many_maps(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *base = mmap(NULL, (size_t)(n * page), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		return fail("mmap");
	/* Every other page writable: n VMAs that cannot merge. */
	for (long i = 1; i < n; i += 2)
		if (mprotect(base + i * page, (size_t)page, PROT_READ | PROT_WRITE) < 0)
			return fail("mprotect");
	for (long i = 1; i < n; i += 2)
		base[i * page] = 1; /* make the writable ones resident */
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	int r;

	if (argc >= 4 && !strcmp(argv[1], "fds"))
		r = many_fds(n, argv[3]);
	else if (argc >= 3 && !strcmp(argv[1], "maps"))
		r = many_maps(n);
	else {
		fprintf(stderr, "usage: detail-many fds N DIR | detail-many maps N\n");
		return 2;
	}
	if (r)
		return r;
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
