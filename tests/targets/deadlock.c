/* A deadlock over global mutexes: thread i takes lock i, then lock i+1
 * (mod N). Locks are named ledger, journal, vault.
 *
 * Usage: deadlock [2|3] [--pi|--robust]
 *   --pi      priority-inheritance mutexes (owner in the lock word)
 *   --robust  robust mutexes (owner in the lock word)
 * A bystander thread also waits for ledger without being in the cycle.
 * Prints "ready" once every thread is blocked. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

pthread_mutex_t ledger, journal, vault;
static pthread_mutex_t *locks[3] = { &ledger, &journal, &vault };
static pthread_barrier_t all_hold;
static int n = 2;
static atomic_int waiting;
static volatile int sink;

NOINLINE static void transfer(int i)
{
	pthread_mutex_lock(locks[i]);
	pthread_barrier_wait(&all_hold);
	atomic_fetch_add(&waiting, 1);
	pthread_mutex_lock(locks[(i + 1) % n]); /* never returns */
	sink = i;
}

NOINLINE static void *teller(void *arg)
{
	transfer((int)(long)arg);
	return NULL;
}

NOINLINE static void *bystander(void *arg)
{
	pthread_barrier_wait(&all_hold);
	atomic_fetch_add(&waiting, 1);
	pthread_mutex_lock(&ledger);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pi"))
			pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
		else if (!strcmp(argv[i], "--robust"))
			pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
		else
			n = atoi(argv[i]) == 3 ? 3 : 2;
	}
	for (int i = 0; i < 3; i++)
		pthread_mutex_init(locks[i], &a);
	pthread_barrier_init(&all_hold, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		pthread_create(&t, NULL, teller, (void *)(long)i);
	}
	pthread_t b;
	pthread_create(&b, NULL, bystander, NULL);
	while (atomic_load(&waiting) < n + 1)
		usleep(1000);
	usleep(200000); /* let them reach futex() */
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}
