/* A library whose debug info the test moves to a .build-id directory:
 * lib_entry calls lib_wait, which has lib_step inlined and waits in
 * pause(). */
#include <unistd.h>

static volatile int lib_sink;

static inline __attribute__((always_inline)) void lib_step(int x)
{
	lib_sink += x;
	pause();
}

__attribute__((noinline)) void lib_wait(int x)
{
	for (;;)
		lib_step(x);
}

void lib_entry(int x)
{
	lib_wait(x + 1);
	lib_sink++;
}
