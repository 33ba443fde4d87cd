/* A known workload for the recorder: idle GAP seconds, then burns CPU
 * for BURN seconds of its own CPU time while its RSS grows by 8 MiB
 * steps to 48 MiB and it forks three children ("wl-child") that sleep
 * 1.5 s and exit, then idles GAP seconds and exits. Named "wl-main".
 * Each phase is logged to LOG as "WALL CPU PHASE" (seconds since 1970,
 * its CPU seconds), every 50 ms while it burns, so a test knows its true
 * CPU% over any stretch. Usage: workload LOG [BURN [GAP]]. Prints
 * "ready PID". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void note(FILE *f, const char *what)
{
	fprintf(f, "%.3f %.4f %s\n", now(CLOCK_REALTIME), now(CLOCK_PROCESS_CPUTIME_ID), what);
	fflush(f);
}

int main(int argc, char **argv)
{
	FILE *log = argc > 1 ? fopen(argv[1], "w") : NULL;
	double burn = argc > 2 ? atof(argv[2]) : 2, gap = argc > 3 ? atof(argv[3]) : 1.5;
	char *mem[6] = { 0 };
	int grown = 0, forked = 0;
	volatile unsigned long spin = 0;

	if (!log) {
		perror("workload: LOG");
		return 2;
	}
	prctl(PR_SET_NAME, "wl-main", 0, 0, 0);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	note(log, "idle");
	usleep((useconds_t)(gap * 1e6));
	note(log, "burn");
	double start = now(CLOCK_PROCESS_CPUTIME_ID), last = now(CLOCK_REALTIME);
	while (now(CLOCK_PROCESS_CPUTIME_ID) - start < burn) {
		for (int i = 0; i < 100000; i++)
			spin++;
		double used = now(CLOCK_PROCESS_CPUTIME_ID) - start;
		if (grown < 6 && used >= burn * grown / 6) {
			mem[grown] = malloc(8 << 20);
			if (mem[grown])
				memset(mem[grown], 1 + grown, 8 << 20);
			grown++;
		}
		if (forked < 3 && used >= burn * forked / 3) {
			if (fork() == 0) {
				prctl(PR_SET_NAME, "wl-child", 0, 0, 0);
				usleep(1500000);
				_exit(0);
			}
			forked++;
		}
		if (now(CLOCK_REALTIME) - last >= 0.05) {
			note(log, "burn");
			last = now(CLOCK_REALTIME);
		}
	}
	note(log, "rest");
	while (wait(NULL) > 0)
		;
	usleep((useconds_t)(gap * 1e6));
	note(log, "exit");
	return mem[0] ? 0 : 1;
}
