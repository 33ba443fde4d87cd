/* A process whose name and arguments are hostile: its comm is an OSC
 * "set window title" sequence and its argv holds another one plus a newline
 * and a tab. pscope must show them escaped and never send them raw. */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--hostile")) {
		char *args[] = { argv[0], "--hostile", "\033]2;PWNED-ARGV\007", "two\nlines\tand a tab", NULL };
		execv("/proc/self/exe", args);
		perror("execv");
		return 1;
	}
	prctl(PR_SET_NAME, "\033]2;PWNED\007", 0, 0, 0);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}
