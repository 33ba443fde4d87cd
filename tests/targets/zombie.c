/* A parent that never reaps its child: the child is a zombie as long as this
 * runs. Prints "ready CHILD_PID" once the child has exited. */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	/* An ignored SIGCHLD (inherited from a test harness) reaps children
	 * automatically: take it back. */
	signal(SIGCHLD, SIG_DFL);
	pid_t c = fork();
	if (c < 0)
		return 1;
	if (c == 0)
		_exit(0);
	siginfo_t si;
	/* Wait for the exit without reaping (WNOWAIT leaves the zombie). */
	if (waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT) < 0)
		return 1;
	printf("ready %d\n", (int)c);
	fflush(stdout);
	for (;;)
		pause();
}
