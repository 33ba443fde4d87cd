/* Crashes in a known function two calls deep, with three threads:
 * main waits in pthread_join, a sleeper waits in nap(), and the crasher
 * runs crash_outer() -> crash_middle() -> crash_here(), which writes to
 * address 0x10 (SIGSEGV, SEGV_MAPERR, fault address 0x10).
 *
 * Usage: crash [--lib PATH] [--abort]
 *   --lib PATH  dlopen PATH first (and call its plugin_work if any)
 *   --abort     abort() in crash_here instead (SIGABRT)
 * Prints "ready PID" just before crashing. */
#include <dlfcn.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

static pthread_barrier_t both;
static int do_abort;
static volatile int sink;
static volatile uintptr_t bad_addr = 0x10;

NOINLINE static void nap(void)
{
	for (;;)
		sleep(100);
}

NOINLINE static void *sleeper(void *arg)
{
	pthread_barrier_wait(&both);
	nap();
	return arg;
}

NOINLINE void crash_here(int v)
{
	if (do_abort)
		abort();
	*(volatile int *)bad_addr = v;
	sink = v;
}

NOINLINE void crash_middle(int v)
{
	crash_here(v + 1);
	sink = v;
}

NOINLINE void crash_outer(int v)
{
	crash_middle(v + 1);
	sink = v;
}

NOINLINE static void *crasher(void *arg)
{
	pthread_barrier_wait(&both);
	usleep(100000); /* the sleeper is in nap() by then */
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	crash_outer(40);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--abort")) {
			do_abort = 1;
		} else if (!strcmp(argv[i], "--lib") && i + 1 < argc) {
			void *h = dlopen(argv[++i], RTLD_NOW);
			if (!h) {
				fprintf(stderr, "crash: %s\n", dlerror());
				return 1;
			}
			void (*f)(void) = (void (*)(void))dlsym(h, "plugin_work");
			if (f)
				f();
		}
	}
	pthread_barrier_init(&both, NULL, 3);
	pthread_create(&a, NULL, sleeper, NULL);
	pthread_create(&b, NULL, crasher, NULL);
	pthread_barrier_wait(&both);
	pthread_join(b, NULL);
	return 0;
}
