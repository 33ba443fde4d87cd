/* Threads whose time goes to known places, for pscope time:
 *   burn1, burn2  spin, both pinned to one CPU: each about half on it and
 *                 half waiting for it (when nothing else runs there)
 *   lock1, lock2  take one mutex in turn and hold it ~200 us: blocked in futex
 *   io            write 4 KiB + fdatasync to a file in DIR, in a loop
 *   sleeper       on SIGUSR1: SLEEPS clock_nanosleep of 1 ms, then waits
 *   faulter       on SIGUSR1: touches PAGES fresh anonymous pages, then waits
 *   main          sigwaitinfo for SIGUSR1 (and SIGTERM to exit)
 * After each SIGUSR1 burst it prints "burst N sleeps=S pages=P" (N counts
 * bursts). Prints "ready" once every thread runs.
 * Usage: time-target DIR [CPU [SLEEPS [PAGES]]]  (CPU: where the burners run,
 * default the last one it may use). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int burn_cpu = -1, sleeps = 200, pages = 2000;
static const char *dir;
static sem_t go_sleep, go_fault, done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int started;
static volatile unsigned long sink;

static void *burn(void *arg)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(burn_cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_setname_np(pthread_self(), arg);
	atomic_fetch_add(&started, 1);
	for (;;)
		sink++;
	return NULL;
}

static void spin_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a); /* vDSO: no system call */
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void *locker(void *arg)
{
	pthread_setname_np(pthread_self(), arg);
	atomic_fetch_add(&started, 1);
	for (;;) {
		pthread_mutex_lock(&lock);
		spin_us(200);
		pthread_mutex_unlock(&lock);
		spin_us(20);
	}
	return NULL;
}

static void *io(void *arg)
{
	char path[4096], buf[4096];
	int fd;

	pthread_setname_np(pthread_self(), "io");
	snprintf(path, sizeof(path), "%s/time-target.%d", dir, (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	unlink(path);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	memset(buf, 'x', sizeof(buf));
	atomic_fetch_add(&started, 1);
	for (unsigned long n = 0;; n++) {
		if (pwrite(fd, buf, sizeof(buf), (off_t)(n % 256) * 4096) < 0 || fdatasync(fd) < 0) {
			perror("io");
			exit(1);
		}
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	pthread_setname_np(pthread_self(), "sleeper");
	atomic_fetch_add(&started, 1);
	for (;;) {
		while (sem_wait(&go_sleep) < 0 && errno == EINTR)
			;
		for (int i = 0; i < sleeps; i++)
			clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL);
		sem_post(&done);
	}
	return NULL;
}

static void *faulter(void *arg)
{
	long pg = sysconf(_SC_PAGESIZE);

	pthread_setname_np(pthread_self(), "faulter");
	atomic_fetch_add(&started, 1);
	for (;;) {
		while (sem_wait(&go_fault) < 0 && errno == EINTR)
			;
		char *m = mmap(NULL, (size_t)pages * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			perror("mmap");
			exit(1);
		}
		madvise(m, (size_t)pages * (size_t)pg, MADV_NOHUGEPAGE); /* one fault per page */
		for (long i = 0; i < pages; i++)
			m[i * pg] = 1;
		munmap(m, (size_t)pages * (size_t)pg);
		sem_post(&done);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	sigset_t set;
	cpu_set_t mine;

	if (argc < 2) {
		fprintf(stderr, "usage: time-target DIR [CPU [SLEEPS [PAGES]]]\n");
		return 2;
	}
	dir = argv[1];
	if (argc > 2)
		burn_cpu = atoi(argv[2]);
	if (argc > 3)
		sleeps = atoi(argv[3]);
	if (argc > 4)
		pages = atoi(argv[4]);
	if (burn_cpu < 0 && sched_getaffinity(0, sizeof(mine), &mine) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &mine))
				burn_cpu = c;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* every thread inherits it: main takes them */
	sem_init(&go_sleep, 0, 0);
	sem_init(&go_fault, 0, 0);
	sem_init(&done, 0, 0);
	pthread_create(&t, NULL, burn, "burn1");
	pthread_create(&t, NULL, burn, "burn2");
	pthread_create(&t, NULL, locker, "lock1");
	pthread_create(&t, NULL, locker, "lock2");
	pthread_create(&t, NULL, io, NULL);
	pthread_create(&t, NULL, sleeper, NULL);
	pthread_create(&t, NULL, faulter, NULL);
	while (atomic_load(&started) < 7)
		usleep(1000);
	printf("ready\n");
	fflush(stdout);
	for (int burst = 1;; burst++) {
		int sig = 0;
		while (sigwait(&set, &sig) != 0)
			;
		if (sig == SIGTERM)
			return 0;
		sem_post(&go_sleep);
		sem_post(&go_fault);
		for (int i = 0; i < 2; i++)
			while (sem_wait(&done) < 0 && errno == EINTR)
				;
		printf("burst %d sleeps=%d pages=%d\n", burst, sleeps, pages);
		fflush(stdout);
	}
}
