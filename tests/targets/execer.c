/* A target that execs when told: for the tests of an exec in the middle of
 * a stack dump, a core, sampling or an open detail screen.
 *
 *   execer [--spin] --exec-to PATH   two workers block in before_wait (or
 *                                    spin in before_spin); prints "ready";
 *                                    on SIGUSR1 execs PATH (a link to this
 *                                    program: its name is the new comm)
 *   execer [--spin] --after          what runs after the exec: two workers
 *                                    in after_wait (or after_spin); prints
 *                                    "after"
 * Runs until killed. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static atomic_int started;
static volatile unsigned long sink;

/* Each function has a body of its own (identical ones could be folded
 * into one symbol). */
NOINLINE static void before_wait(void)
{
	sink = 1;
	pthread_mutex_lock(&mu);
	atomic_fetch_add(&started, 1);
	for (;;)
		pthread_cond_wait(&never, &mu);
}

NOINLINE static void before_spin(void)
{
	atomic_fetch_add(&started, 1);
	for (;;)
		sink++;
}

NOINLINE static void after_wait(void)
{
	sink = 2;
	pthread_mutex_lock(&mu);
	atomic_fetch_add(&started, 1);
	for (;;)
		pthread_cond_wait(&never, &mu);
}

NOINLINE static void after_spin(void)
{
	atomic_fetch_add(&started, 1);
	for (;;)
		sink += 2;
}

static int spin, after;

static void *worker(void *arg)
{
	if (after)
		spin ? after_spin() : after_wait();
	else
		spin ? before_spin() : before_wait();
	return arg;
}

int main(int argc, char **argv)
{
	const char *to = NULL;
	sigset_t set;
	int sig;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--spin"))
			spin = 1;
		else if (!strcmp(argv[i], "--after"))
			after = 1;
		else if (!strcmp(argv[i], "--exec-to") && i + 1 < argc)
			to = argv[++i];
	}
	if (!after && !to) {
		fprintf(stderr, "usage: execer [--spin] --exec-to PATH | --after\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* kept across the exec */
	for (int i = 0; i < 2; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, worker, NULL)) {
			perror("pthread_create");
			return 1;
		}
	}
	while (atomic_load(&started) < 2)
		usleep(1000);
	printf(after ? "after\n" : "ready\n");
	fflush(stdout);
	for (;;) {
		if (sigwait(&set, &sig) == 0 && sig == SIGUSR1 && !after) {
			char *av[] = { (char *)to, "--after", spin ? "--spin" : NULL, NULL };
			execv(to, av);
			perror("execv");
			return 1;
		}
	}
}
