/* A process with a Korean name (comm, 15 bytes of UTF-8) and Korean
 * arguments: wide characters that must keep the columns aligned. */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--korean")) {
		char *args[] = { argv[0], "--korean", "프로세스-목록", "한글", NULL };
		execv("/proc/self/exe", args);
		perror("execv");
		return 1;
	}
	prctl(PR_SET_NAME, "한국어이름", 0, 0, 0);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}
