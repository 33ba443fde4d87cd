/* A known profile with Hangul names: the main thread, named "한글스레드",
 * loops calling 계산함수() for one unit of work and 다른일() for nine
 * (fixed work, so the 10/90 split holds under any CPU contention). In a
 * flame graph at 80 columns 계산함수 is about 8 columns wide: its name
 * must be cut between characters, never through one.
 * Prints "ready" once named and running. */
#include <stdio.h>
#include <sys/prctl.h>

static volatile unsigned long sink;

/* Each spins itself (a leaf: no tail call to hide it from the stacks). */
__attribute__((noinline)) void 계산함수(void)
{
	for (unsigned long i = 0; i < 200000; i++)
		sink += i;
}

__attribute__((noinline)) void 다른일(void)
{
	for (unsigned long i = 0; i < 1800000; i++)
		sink += i;
}

__attribute__((noinline)) static void 반복(void)
{
	for (;;) {
		계산함수();
		다른일();
	}
}

int main(void)
{
	prctl(PR_SET_NAME, "한글스레드", 0, 0, 0);
	printf("ready\n");
	fflush(stdout);
	반복();
	return 0;
}
