/* A process with many threads, a few of them busy:
 *   manythreads N BUSY
 * starts BUSY threads spinning in busy_work() first, then N - BUSY threads
 * blocked in pause(), all with 64 KiB stacks, and prints "ready" once they
 * all run. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile unsigned long spins;

__attribute__((noinline)) void busy_work(void)
{
	for (unsigned i = 0; i < 100000; i++)
		spins += i;
}

static void *busy(void *arg)
{
	(void)arg;
	for (;;)
		busy_work();
	return NULL;
}

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, nbusy = argc > 2 ? atoi(argv[2]) : 10;
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (int i = 0; i < n; i++) {
		if (pthread_create(&t, &a, i < nbusy ? busy : idle, NULL) != 0) {
			fprintf(stderr, "manythreads: thread %d: cannot create\n", i);
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
