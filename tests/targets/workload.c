/* The known workload of a recording: prints "ready", waits until the file
 * argv[2] exists (the recorder has started), then burns CPU for 5 s while leaking
 * 2 MiB every 100 ms and forking a child every 500 ms that exits after
 * 100 ms, then sleeps 2 s and exits. Every 20 ms of the burn it notes the
 * wall clock and its own CPU time (utime + stime, as /proc counts it) in
 * the file argv[1]: "wall cpu_s rss_kb", the truth a replay is checked
 * against on a machine where it does not get a whole CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double clk(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	FILE *log;
	volatile unsigned long sink = 0;
	size_t leaked = 0;

	if (argc < 3 || !(log = fopen(argv[1], "w")))
		return 2;
	printf("ready\n");
	fflush(stdout);
	while (access(argv[2], F_OK) != 0)
		usleep(10000);
	double t0 = clk(CLOCK_MONOTONIC), next_log = 0, next_leak = 0, next_fork = 0;
	for (;;) {
		double t = clk(CLOCK_MONOTONIC) - t0;
		if (t >= 5.0)
			break;
		if (t >= next_log) {
			FILE *st = fopen("/proc/self/statm", "r");
			unsigned long sz = 0, rss = 0;
			if (st) {
				if (fscanf(st, "%lu %lu", &sz, &rss) != 2)
					rss = 0;
				fclose(st);
			}
			fprintf(log, "%.6f %.6f %lu\n", clk(CLOCK_REALTIME), clk(CLOCK_PROCESS_CPUTIME_ID),
				rss * (unsigned long)(sysconf(_SC_PAGESIZE) / 1024));
			next_log += 0.02;
		}
		if (t >= next_leak) {
			char *p = malloc(2 << 20);
			if (p) {
				memset(p, 1, 2 << 20);
				leaked += 2 << 20;
			}
			next_leak += 0.1;
		}
		if (t >= next_fork) {
			pid_t c = fork();
			if (c == 0) {
				usleep(100000);
				_exit(7);
			}
			next_fork += 0.5;
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * 7;
	}
	fprintf(log, "end %.6f %zu\n", clk(CLOCK_REALTIME), leaked);
	fclose(log);
	while (wait(NULL) > 0)
		;
	sleep(2);
	return 0;
}
