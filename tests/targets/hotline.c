/* A function with a known hot line: line_work() runs a few cold lines
 * around one line holding a whole loop (the line marked HOT below, which
 * tests find by that mark), so nearly all of its samples fall on that line.
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
