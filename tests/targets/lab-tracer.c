/* Lab target: a tracer and its tracee. The parent PTRACE_SEIZEs its child
 * (which only sleeps) and keeps it traced, as gdb or strace would: no other
 * tool can attach to the child meanwhile. Prints "ready CHILD_PID". The
 * child dies with its parent. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	pid_t parent = getpid(), child = fork();

	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			pause();
	}
	if (ptrace(PTRACE_SEIZE, child, 0, 0) != 0) {
		perror("PTRACE_SEIZE");
		kill(child, SIGKILL);
		return 1;
	}
	printf("ready %d\n", (int)child);
	fflush(stdout);
	for (;;) {
		int st;
		pid_t w = waitpid(child, &st, __WALL);
		if (w < 0 || WIFEXITED(st) || WIFSIGNALED(st))
			return 0;
		/* A signal-delivery-stop: pass the signal on. */
		if (WIFSTOPPED(st))
			ptrace(PTRACE_CONT, child, 0, (void *)(long)WSTOPSIG(st));
	}
}
