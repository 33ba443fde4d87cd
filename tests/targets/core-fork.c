/* Target for the fork snapshot tests.
 *   core-fork STATUSFILE [seccomp|vfork]
 * Threads that must run on correctly through a snapshot: one looping in
 * nanosleep, one waiting on a condition variable (futex) the main thread
 * signals, one reading numbered bytes from a pipe the main thread writes,
 * one spinning (in bursts) with a register invariant; a SIGCHLD handler and a thread
 * in a waitpid(-1, WNOHANG) loop count what they see; SIGTRAP is ignored;
 * SIGUSR1 deliveries are counted. A shared, a MADV_DONTFORK and a
 * MADV_WIPEONFORK page hold known bytes. With "seccomp", a filter kills
 * the process on clone (threads are made first); with "vfork", a thread
 * sits in vfork (its child sleeps). Every 10 ms the main thread rewrites
 * STATUSFILE: "sleep N futex N pipe N spin N sigchld N reaped N usr1 N
 * errors N". Prints the page addresses, then "ready". */

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile long n_sleep, n_futex, n_pipe, n_spin, n_sigchld, n_reaped, n_usr1, errors;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long seq;
static int pfd[2];

static void on_chld(int s) { (void)s; n_sigchld++; }
static void on_usr1(int s) { (void)s; n_usr1++; }

static void *sleeper(void *a)
{
	(void)a;
	for (;;) {
		struct timespec ts = { 0, 1000000 };
		if (nanosleep(&ts, NULL) < 0 && errno != EINTR)
			errors++;
		n_sleep++;
	}
	return NULL;
}

static void *waiter(void *a)
{
	long seen = 0;
	(void)a;
	pthread_mutex_lock(&mu);
	for (;;) {
		while (seq == seen)
			pthread_cond_wait(&cv, &mu);
		if (seq < seen)
			errors++;
		seen = seq;
		n_futex++;
	}
	return NULL;
}

static void *reader(void *a)
{
	unsigned char want = 1, b;
	(void)a;
	for (;;) {
		ssize_t n = read(pfd[0], &b, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1 || b != want)
			errors++;
		want = (unsigned char)(b + 1);
		n_pipe++;
	}
	return NULL;
}

static void *spinner(void *a)
{
	unsigned long x = 0, y = 0;
	(void)a;
	for (;;) {
		x++;
		y += 3;
		if (y != 3 * x)
			errors++;
		if (!(x & 0xfffff)) {
			/* Spin in bursts: leave the CPU to the others half the time. */
			struct timespec ts = { 0, 2000000 };
			n_spin++;
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static void *reaper(void *a)
{
	(void)a;
	for (;;) {
		int st;
		if (waitpid(-1, &st, WNOHANG) > 0)
			n_reaped++;
		usleep(1000);
	}
	return NULL;
}

static void *vforker(void *a)
{
	(void)a;
	for (;;) {
		pid_t p = vfork();
		if (p == 0) {
			struct timespec ts = { 20, 0 };
			syscall(SYS_nanosleep, &ts, NULL);
			_exit(0);
		}
	}
	return NULL;
}

static void kill_on_clone(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
		perror("seccomp");
		exit(1);
	}
}

static unsigned char *page_with(unsigned char byte, int flags, int advice)
{
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || (advice >= 0 && madvise(p, 4096, advice) < 0)) {
		perror("mmap");
		exit(1);
	}
	memset(p, byte, 4096);
	return p;
}

int main(int argc, char **argv)
{
	void *(*fns[])(void *) = { sleeper, waiter, reader, spinner, reaper };
	const char *mode = argc > 2 ? argv[2] : "";
	pthread_t th;
	char line[256];
	double d = 0;
	long iter = 0;

	if (argc < 2)
		return 2;
	int sfd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (sfd < 0 || pipe(pfd) < 0)
		return 1;
	signal(SIGTRAP, SIG_IGN);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_chld;
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	unsigned char *sh = page_with(0xa1, MAP_SHARED, -1);
	unsigned char *dc = page_with(0xb2, MAP_PRIVATE, MADV_DONTFORK);
	unsigned char *wf = page_with(0xc3, MAP_PRIVATE, MADV_WIPEONFORK);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		pthread_create(&th, NULL, fns[i], NULL);
	if (!strcmp(mode, "vfork"))
		pthread_create(&th, NULL, vforker, NULL);
	if (!strcmp(mode, "seccomp"))
		kill_on_clone();
	printf("shared=%p\ndontfork=%p\nwipeonfork=%p\nready\n", (void *)sh, (void *)dc, (void *)wf);
	fflush(stdout);
	for (;;) {
		struct timespec ts = { 0, 2000000 };
		if (nanosleep(&ts, NULL) < 0 && errno != EINTR)
			errors++;
		d += 1.0;
		iter++;
		if (d != (double)iter)
			errors++;
		pthread_mutex_lock(&mu);
		seq++;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
		unsigned char b = (unsigned char)iter;
		if (write(pfd[1], &b, 1) != 1)
			errors++;
		if (iter % 5 == 0) {
			int n = snprintf(line, sizeof(line),
					 "sleep %ld futex %ld pipe %ld spin %ld sigchld %ld reaped %ld usr1 %ld errors %ld\n",
					 n_sleep, n_futex, n_pipe, n_spin, n_sigchld, n_reaped, n_usr1, errors);
			if (pwrite(sfd, line, (size_t)n, 0) != n || ftruncate(sfd, n) < 0)
				errors++;
		}
	}
}
