/* Three nested inlined calls: deep inlined into middle into outer into
 * entry, each call on a line of its own, so every frame has its own line:
 *   deep inlines.c:LINE_DEEP <- middle :LINE_MIDDLE <- outer :LINE_OUTER
 *   <- entry :LINE_ENTRY <- main
 * Built -O2 -g; prints "ready" and waits in pause(). */
#include <stdio.h>
#include <unistd.h>

static volatile int sink;

static inline __attribute__((always_inline)) void deep(int x)
{
	for (;;) {
		sink += x;
		pause();
	}
}

static inline __attribute__((always_inline)) void middle(int x)
{
	deep(x + 1);
	sink++;
}

static inline __attribute__((always_inline)) void outer(int x)
{
	middle(x * 2);
	sink--;
}

__attribute__((noinline)) void entry(int x)
{
	outer(x);
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("ready\n");
	fflush(stdout);
	entry(argc);
	return 0;
}
