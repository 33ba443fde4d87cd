/* Work whose rate shows what a tracer costs it, for the pscope time
 * benchmarks:
 *   pingpong pipe      two threads pass a byte back and forth through two
 *                      pipes: a context switch per hop
 *   pingpong syscall   one thread calls getppid in a loop
 * Prints "ready", then every second "rate N TOTAL CPU" (round trips or
 * system calls in the last second and since the start, and the CPU time in
 * ns the process used in the last second: what a tracer costs it shows in
 * CPU per round trip even when other work slows the machine). Runs until
 * killed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static atomic_ulong done;

static void *echo(void *arg)
{
	char c;

	for (;;)
		if (read(ab[0], &c, 1) == 1 && write(ba[1], &c, 1) != 1)
			break;
	return NULL;
}

static void *pinger(void *arg)
{
	char c = 'x';

	for (;;) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			break;
		atomic_fetch_add_explicit(&done, 1, memory_order_relaxed);
	}
	return NULL;
}

static unsigned long long cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static void *caller(void *arg)
{
	for (;;) {
		syscall(SYS_getppid);
		atomic_fetch_add_explicit(&done, 1, memory_order_relaxed);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	struct timespec s = { 1, 0 };

	if (argc != 2 || (strcmp(argv[1], "pipe") && strcmp(argv[1], "syscall"))) {
		fprintf(stderr, "usage: pingpong pipe|syscall\n");
		return 2;
	}
	if (!strcmp(argv[1], "pipe")) {
		if (pipe(ab) < 0 || pipe(ba) < 0)
			return 1;
		pthread_create(&t, NULL, echo, NULL);
		pthread_create(&t, NULL, pinger, NULL);
	} else {
		pthread_create(&t, NULL, caller, NULL);
	}
	printf("ready\n");
	fflush(stdout);
	unsigned long last = 0;
	unsigned long long last_cpu = cpu_ns();
	for (;;) {
		nanosleep(&s, NULL);
		unsigned long now = atomic_load(&done);
		unsigned long long cpu = cpu_ns();
		printf("rate %lu %lu %llu\n", now - last, now, cpu - last_cpu);
		fflush(stdout);
		last = now;
		last_cpu = cpu;
	}
}
