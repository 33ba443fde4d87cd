/* A target with known blocking, for the off-CPU tracer's tests:
 *
 *   "sleeper"  sleeper_main -> outer -> inner_sleep: nanosleep of SLEEP_MS,
 *              again and again (a block two calls deep);
 *   "reader"   reader_main -> wait_for_token: a blocking read of a pipe;
 *   "waker"    waker_main -> waker_pause (nanosleep of WAKE_MS), then
 *              wake_reader: one byte into that pipe, which wakes "reader".
 *
 * The system calls are made here (inline syscall instructions), so the
 * user part of each stack is exactly these functions whatever the C
 * library's build. Prints "ready" once the threads run; runs until
 * killed. Built with and without frame pointers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SLEEP_MS 20
#define WAKE_MS 50

static int pipefd[2];

static inline long sys3(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (sys3(SYS_nanosleep, (long)&ts, (long)&ts, 0) == -4) /* EINTR: the rest */
		;
}

__attribute__((noinline)) void inner_sleep(void)
{
	sleep_ms(SLEEP_MS);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void outer(void)
{
	inner_sleep();
	__asm__ volatile("" ::: "memory");
}

static void *sleeper_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "sleeper");
	for (;;)
		outer();
	return NULL;
}

__attribute__((noinline)) long wait_for_token(void)
{
	char c;
	long r = sys3(SYS_read, pipefd[0], (long)&c, 1);
	__asm__ volatile("" ::: "memory");
	return r;
}

static void *reader_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "reader");
	for (;;)
		if (wait_for_token() <= 0 && 0)
			break;
	return NULL;
}

__attribute__((noinline)) void waker_pause(void)
{
	sleep_ms(WAKE_MS);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void wake_reader(void)
{
	char c = 'x';
	sys3(SYS_write, pipefd[1], (long)&c, 1);
	__asm__ volatile("" ::: "memory");
}

static void *waker_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "waker");
	for (;;) {
		waker_pause();
		wake_reader();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	if (pipe(pipefd) < 0)
		return 1;
	pthread_create(&t[0], NULL, sleeper_main, NULL);
	pthread_create(&t[1], NULL, reader_main, NULL);
	pthread_create(&t[2], NULL, waker_main, NULL);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
