/* Lab target: an fd leak. Opens one more descriptor (a pipe end, a file, a
 * socket in turn) every INTERVAL ms (default 200) and never closes it, up
 * to MAX (default 2000) so it cannot exhaust the machine. Watch the fd pane
 * grow. Usage: lab-fdleak [INTERVAL_MS [MAX]] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int leak_one(int i)
{
	int p[2];

	switch (i % 3) {
	case 0:
		if (pipe(p) < 0)
			return -1;
		close(p[1]);
		return p[0];
	case 1:
		return open("/etc/hostname", O_RDONLY);
	default:
		return socket(AF_UNIX, SOCK_STREAM, 0);
	}
}

int main(int argc, char **argv)
{
	long interval = argc > 1 ? atol(argv[1]) : 200;
	long max = argc > 2 ? atol(argv[2]) : 2000;
	struct timespec ts = { interval / 1000, (interval % 1000) * 1000000L };

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (long i = 0;; i++) {
		if (i < max && leak_one((int)i) < 0)
			perror("leak");
		nanosleep(&ts, NULL);
	}
}
