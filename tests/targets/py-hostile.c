/* A process that pretends to be CPython: it exports _PyRuntime (and
 * Py_Version, claiming 3.11) over garbage or over structures that loop.
 * pscope must say "not a readable CPython: ..." and show native frames,
 * never crash or hang.
 *   py-hostile garbage   _PyRuntime full of 0x41
 *   py-hostile tloop     the thread state list loops
 *   py-hostile floop     a thread's frame chain loops
 *   py-hostile deep      a frame chain 100000 frames long, code objects of garbage
 *   py-hostile debug     a 3.13 _Py_DebugOffsets cookie over absurd offsets */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((visibility("default"), aligned(64))) unsigned char _PyRuntime[4096];
__attribute__((visibility("default"))) const unsigned int Py_Version = 0x030b02f0;

/* The 3.11 offsets pscope reads (src/python/layout.c). */
static unsigned char interp[1024], ts1[512], ts2[512], cframe[64], junk[4096];

static void put(void *base, size_t off, const void *v)
{
	memcpy((unsigned char *)base + off, &v, sizeof(v));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "garbage";

	memset(junk, 0x5a, sizeof(junk));
	if (!strcmp(mode, "garbage")) {
		memset(_PyRuntime, 0x41, sizeof(_PyRuntime));
	} else if (!strcmp(mode, "debug")) {
		memset(_PyRuntime, 0xff, sizeof(_PyRuntime));
		memcpy(_PyRuntime, "xdebugpy", 8);
		uint64_t v = 0x030d00f0, ft = 0;
		memcpy(_PyRuntime + 8, &v, 8);
		memcpy(_PyRuntime + 16, &ft, 8);
	} else {
		put(_PyRuntime, 40, interp);        /* interpreters.head */
		put(interp, 16, ts1);               /* threads.head */
		put(ts1, 56, cframe);               /* cframe */
		int tid = gettid();
		memcpy(ts1 + 160, &tid, 4);         /* native_thread_id */
		if (!strcmp(mode, "tloop")) {
			put(ts1, 8, ts2);
			put(ts2, 8, ts1);
		} else if (!strcmp(mode, "floop")) {
			static unsigned char fa[128], fb[128];
			put(cframe, 8, fa);
			put(fa, 48, fb);
			put(fb, 48, fa);
			put(fa, 32, junk);
			put(fb, 32, junk);
		} else {
			enum { N = 100000 };
			unsigned char *f = calloc(N, 128);
			if (!f)
				return 1;
			put(cframe, 8, f);
			for (size_t i = 0; i < N; i++) {
				put(f + i * 128, 48, i + 1 < N ? f + (i + 1) * 128 : NULL);
				put(f + i * 128, 32, junk);
			}
		}
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
