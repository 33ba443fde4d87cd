/* A program as a static build has it: linked -static (non-PIE), with and
 * without .eh_frame_hdr (tests/binaries.mk builds both). Known stacks:
 *   main:   parse_payload <- handle_request <- serve <- main <- libc start
 *   worker: parse_payload <- handle_request <- worker <- start_thread <- clone3
 *   signal: in on_signal (its own thread), called by the kernel's signal
 *           frame over sig_wait <- sig_thread <- start_thread <- clone3
 *   spin:   with -s, a thread spinning in spin_leaf <- spin_mid <- spin_top
 *           (for the sampler), named "spinner"
 * It prints "ready" once every thread is in place (the signal thread
 * marks itself in its handler). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;
static volatile sig_atomic_t in_handler;

__attribute__((noinline)) int parse_payload(int x)
{
	for (;;)
		pause();
	return x;
}

__attribute__((noinline)) int handle_request(int x)
{
	int r = parse_payload(x + 1);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}

__attribute__((noinline)) int serve(int x)
{
	int r = handle_request(x * 2);
	__asm__ volatile("" ::: "memory");
	return r + 2;
}

static void *worker(void *arg)
{
	(void)arg;
	handle_request(7);
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	in_handler = 1;
	for (;;)
		pause();
}

__attribute__((noinline)) void sig_wait(void)
{
	for (;;)
		pause();
}

static void *sig_thread(void *arg)
{
	(void)arg;
	sig_wait();
	return NULL;
}

__attribute__((noinline)) void spin_leaf(void)
{
	for (int i = 0; i < 1000; i++)
		sink += i;
}

__attribute__((noinline)) void spin_mid(void)
{
	for (int i = 0; i < 100; i++)
		spin_leaf();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void spin_top(void)
{
	for (;;)
		spin_mid();
}

static void *spin_thread(void *arg)
{
	(void)arg;
	spin_top();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t, s, sp;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_create(&t, NULL, worker, NULL);
	pthread_create(&s, NULL, sig_thread, NULL);
	if (argc > 1 && !strcmp(argv[1], "-s"))
	{
		pthread_create(&sp, NULL, spin_thread, NULL);
		pthread_setname_np(sp, "spinner");
	}
	pthread_kill(s, SIGUSR1);
	while (!in_handler)
		usleep(1000);
	printf("ready\n");
	fflush(stdout);
	return serve(argc);
}
