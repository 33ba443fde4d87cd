/* Lab target: a textbook deadlock. Thread "lab-alice" takes lock_a then
 * wants lock_b; thread "lab-bob" takes lock_b then wants lock_a. Both wait
 * forever in futex(); a stack dump shows the cycle. Prints "ready" once
 * both hold their first lock and have asked for the second. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER, lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold;

__attribute__((noinline)) static void transfer(pthread_mutex_t *first, pthread_mutex_t *second)
{
	pthread_mutex_lock(first);
	pthread_barrier_wait(&both_hold);
	pthread_mutex_lock(second); /* never returns */
	pthread_mutex_unlock(second);
	pthread_mutex_unlock(first);
}

static void *alice(void *arg)
{
	prctl(PR_SET_NAME, "lab-alice", 0, 0, 0);
	transfer(&lock_a, &lock_b);
	return arg;
}

static void *bob(void *arg)
{
	prctl(PR_SET_NAME, "lab-bob", 0, 0, 0);
	transfer(&lock_b, &lock_a);
	return arg;
}

int main(void)
{
	pthread_t a, b;
	struct timespec ts = { 0, 100 * 1000000L };

	pthread_barrier_init(&both_hold, NULL, 2);
	pthread_create(&a, NULL, alice, NULL);
	pthread_create(&b, NULL, bob, NULL);
	/* Both locks held (trylock fails), then give them time to block. */
	for (;;) {
		int ra = pthread_mutex_trylock(&lock_a), rb;
		if (ra == 0)
			pthread_mutex_unlock(&lock_a);
		rb = pthread_mutex_trylock(&lock_b);
		if (rb == 0)
			pthread_mutex_unlock(&lock_b);
		if (ra == EBUSY && rb == EBUSY)
			break;
		nanosleep(&ts, NULL);
	}
	nanosleep(&ts, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	pthread_join(a, NULL);
	return 0;
}
