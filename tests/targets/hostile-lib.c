/* A shared object with many small hot functions, for hostile-file: a
 * sampler sees new pcs in it all the time, so it keeps reading its symbol
 * table while the file changes. */
#define WORK(n)                                                                                                  \
	__attribute__((noinline)) void hostile_work_##n(void)                                                     \
	{                                                                                                         \
		volatile unsigned x = 0;                                                                          \
		for (unsigned i = 0; i < 20000; i++)                                                              \
			x += i * (n + 1);                                                                         \
	}
#define WORK8(n) WORK(n##0) WORK(n##1) WORK(n##2) WORK(n##3) WORK(n##4) WORK(n##5) WORK(n##6) WORK(n##7)
WORK8(1) WORK8(2) WORK8(3) WORK8(4) WORK8(5) WORK8(6) WORK8(7) WORK8(8)
