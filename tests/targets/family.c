/* A parent (named NAME, default "ps-parent", with two threads named
 * "ps-worker") and N sleeping children ("ps-child", default 1) for the tree
 * view, the thread view and the benchmark. Children die with the parent
 * (PR_SET_PDEATHSIG). Usage: family [N [NAME]]. Prints "ready PARENT
 * FIRST-CHILD". */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

static void *worker(void *arg)
{
	for (;;)
		pause();
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pid_t parent = getpid(), first = 0;
	pthread_t t;

	prctl(PR_SET_NAME, argc > 2 ? argv[2] : "ps-parent", 0, 0, 0);
	for (int i = 0; i < n; i++) {
		pid_t c = fork();
		if (c < 0) {
			perror("fork");
			return 1;
		}
		if (c == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
			if (getppid() != parent)
				_exit(0);
			prctl(PR_SET_NAME, "ps-child", 0, 0, 0);
			for (;;)
				pause();
		}
		if (!first)
			first = c;
	}
	for (int i = 0; i < 2; i++) {
		if (pthread_create(&t, NULL, worker, NULL) == 0)
			pthread_setname_np(t, "ps-worker");
	}
	printf("ready %d %d\n", (int)parent, (int)first);
	fflush(stdout);
	for (;;)
		pause();
}
