/* A process with Korean thread names next to an ASCII one, all blocked in
 * pause(): the TUI's thread tables and stack rows must keep their columns
 * aligned whatever the display width of the names. */
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

static pthread_barrier_t named;

static void *worker(void *name)
{
	prctl(PR_SET_NAME, (const char *)name, 0, 0, 0);
	pthread_barrier_wait(&named);
	for (;;)
		pause();
	return NULL;
}

int main(void)
{
	/* 15 bytes at most (the kernel's comm): whole syllables only */
	static const char *const names[] = { "작업자-일", "작업자-이", "ascii-worker" };
	enum { N = sizeof(names) / sizeof(names[0]) };
	pthread_t t;

	prctl(PR_SET_NAME, "한글스레드", 0, 0, 0);
	pthread_barrier_init(&named, NULL, N + 1);
	for (int i = 0; i < N; i++)
		if (pthread_create(&t, NULL, worker, (void *)names[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	pthread_barrier_wait(&named);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}
