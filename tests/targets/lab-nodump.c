/* Lab target: a process that made itself not dumpable, as setuid programs
 * and some daemons (ssh-agent, gpg-agent) do: prctl(PR_SET_DUMPABLE, 0).
 * Its /proc/PID turns root's, and only CAP_SYS_PTRACE may inspect it. */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(void)
{
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		perror("prctl(PR_SET_DUMPABLE)");
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}
