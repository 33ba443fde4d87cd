/* Functions GCC splits and clones (-O2): with "cold", main waits in
 * report, called from the cold part of work (work.cold in the symbol
 * table); with "clone", in calc specialised for its constant argument
 * (calc.constprop.0). Prints "ready", then waits in pause(). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;

__attribute__((cold, noinline, noreturn)) void report(int x)
{
	sink = x;
	for (;;)
		pause();
}

__attribute__((noinline)) static int work(int x, int mode)
{
	if (mode == 7) {
		sink += x;
		report(x + sink);
	}
	return x * mode + sink;
}

__attribute__((noinline)) static int calc(int x, int mode)
{
	if (mode == 5) {
		sink += x;
		for (;;)
			pause();
	}
	return x + mode;
}

int main(int argc, char **argv)
{
	printf("ready\n");
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "cold"))
		return work(argc, 7) + work(argc, 3);
	return calc(argc, 5);
}
