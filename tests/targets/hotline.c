/* A function with a known hot line: line_work() runs a few cold lines
 * around one line holding a whole loop (the line marked HOT below, which
 * tests find by that mark) and a loop an eighth as long on another (WARM),
 * so about 8/9 of its samples fall on the hot line and 1/9 on the warm one.
 *   hotline
 * Prints "ready" once it runs, then calls line_work() forever. */
#include <stdio.h>

static volatile unsigned long sink;
unsigned long line_work(unsigned long n);

__attribute__((noinline, noclone)) unsigned long line_work(unsigned long n)
{
	unsigned long a = n * 3 + sink;
	sink = a;
	for (unsigned long i = 0; i < n; i++) a = a * 6364136223846793005UL + (i ^ sink); /* HOT */
	for (unsigned long i = 0; i < n / 8; i++) a = a * 2862933555777941757UL + (i ^ sink); /* WARM */
	sink = a >> 7;
	return a;
}

int main(void)
{
	printf("ready\n");
	fflush(stdout);
	for (;;)
		line_work(200000);
}
