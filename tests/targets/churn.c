/* Short-lived processes, hundreds per second: each child names itself
 * "c<its pid>" (so a row showing another process's name is caught), lives
 * 20-200 ms and exits; the parent reaps them. Usage: churn [SECONDS]
 * (default 60). Prints "ready" once started, "done N" at the end. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 60;
	struct timespec t0, now;
	unsigned long n = 0;

	signal(SIGCHLD, SIG_DFL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	do {
		pid_t c = fork();
		if (c == 0) {
			char name[16];
			struct timespec ts = { 0, (long)(20 + (getpid() % 180)) * 1000000L };
			snprintf(name, sizeof(name), "c%d", (int)getpid());
			prctl(PR_SET_NAME, name, 0, 0, 0);
			nanosleep(&ts, NULL);
			_exit(0);
		}
		if (c > 0)
			n++;
		/* keep a few dozen alive at once */
		while (waitpid(-1, NULL, n % 32 ? WNOHANG : 0) > 0)
			;
		struct timespec gap = { 0, 2000000L };
		nanosleep(&gap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	while (wait(NULL) > 0)
		;
	printf("done %lu\n", n);
	fflush(stdout);
	return 0;
}
