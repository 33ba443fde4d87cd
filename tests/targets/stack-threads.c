/* A target with known stacks in many threads: each worker blocks in
 *   leaf_wait (with wait_forever inlined) <- level3 <- level2 <- level1 <- worker <- start_thread
 * and the main thread in main_wait <- main.
 *
 * Usage: stack-threads [N] [--probe] [--churn] [--dstate]
 *   N        worker threads (default 8)
 *   --probe  a thread spins reading the clock and records the longest gap
 *            between two reads (the pause it saw); SIGUSR1 prints
 *            "maxgap_us N" on stdout and resets it
 * SIGRTMIN is counted (any thread may take it); SIGUSR2 prints
 * "signals N": a signal that arrives during a freeze must not be lost.
 *   --churn  a thread keeps creating short-lived threads (churn_child)
 *   --dstate a thread sits in vfork (D state) until its child (a process
 *            sleeping in pause()) is killed, then vforks again; "ready"
 *            waits for the first vfork to be under way
 *   --hostile the first worker's name holds terminal escape sequences
 * Prints "ready" once every worker is blocked. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static atomic_int blocked;
static atomic_llong maxgap_ns;
static volatile int sink;
static atomic_int rt_signals;
static atomic_int vforks;

static void on_rt(int sig)
{
	atomic_fetch_add(&rt_signals, 1);
}

/* Always inlined into leaf_wait: an inline frame for --inlines. */
static inline __attribute__((always_inline)) void wait_forever(void)
{
	for (;;)
		pthread_cond_wait(&never, &mu);
}

NOINLINE static void leaf_wait(void)
{
	pthread_mutex_lock(&mu);
	atomic_fetch_add(&blocked, 1);
	wait_forever();
}

NOINLINE static void level3(int x)
{
	leaf_wait();
	sink = x;
}

NOINLINE static void level2(int x)
{
	level3(x + 1);
	sink = x;
}

NOINLINE static void level1(int x)
{
	level2(x + 1);
	sink = x;
}

NOINLINE static void *worker(void *arg)
{
	level1((int)(long)arg);
	return NULL;
}

static long long mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

NOINLINE static void *probe_spin(void *arg)
{
	long long last = mono_ns();
	for (;;) {
		long long now = mono_ns();
		long long gap = now - last;
		if (gap > atomic_load(&maxgap_ns))
			atomic_store(&maxgap_ns, gap);
		last = now;
	}
	return arg;
}

NOINLINE static void *churn_child(void *arg)
{
	struct timespec ts = { 0, 2000000 };
	nanosleep(&ts, NULL);
	return arg;
}

NOINLINE static void *churn_loop(void *arg)
{
	for (;;) {
		pthread_t t;
		if (pthread_create(&t, NULL, churn_child, NULL) == 0)
			pthread_detach(t);
		struct timespec ts = { 0, 200000 };
		nanosleep(&ts, NULL);
	}
	return arg;
}

NOINLINE static void dstate_wait(void)
{
	/* The parent of a vfork sleeps uninterruptibly (D) until the child
	 * exits; the child only waits to be killed (a test decides when the
	 * thread leaves D state, not a timer). */
	atomic_fetch_add(&vforks, 1);
	pid_t parent = getpid();
	pid_t p = vfork();
	if (p == 0) {
		/* Never outlive the target (it would hold what the target
		 * inherited, such as the test suite's lock). */
		syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
		if (syscall(SYS_getppid) != parent)
			syscall(SYS_exit, 0);
		for (;;)
			syscall(SYS_pause);
	}
}

NOINLINE static void *dstate_loop(void *arg)
{
	for (;;)
		dstate_wait();
	return arg;
}

NOINLINE static void main_wait(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	for (;;) {
		if (sigwait(&set, &sig) != 0)
			continue;
		if (sig == SIGUSR1)
			printf("maxgap_us %lld\n", atomic_exchange(&maxgap_ns, 0) / 1000);
		else
			printf("signals %d\n", atomic_load(&rt_signals));
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	int n = 8, probe = 0, churn = 0, dstate = 0, hostile = 0;
	pthread_attr_t attr;
	sigset_t set;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--probe"))
			probe = 1;
		else if (!strcmp(argv[i], "--churn"))
			churn = 1;
		else if (!strcmp(argv[i], "--dstate"))
			dstate = 1;
		else if (!strcmp(argv[i], "--hostile"))
			hostile = 1;
		else
			n = atoi(argv[i]);
	}
	signal(SIGRTMIN, on_rt);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, &attr, worker, (void *)(long)i)) {
			perror("pthread_create");
			return 1;
		}
		if (hostile && i == 0)
			pthread_setname_np(t, "\033]0;pwn\007\033[2J");
	}
	while (atomic_load(&blocked) < n)
		usleep(1000);
	pthread_t t;
	if (probe)
		pthread_create(&t, NULL, probe_spin, NULL);
	if (churn)
		pthread_create(&t, NULL, churn_loop, NULL);
	if (dstate) {
		pthread_create(&t, NULL, dstate_loop, NULL);
		while (atomic_load(&vforks) < 1)
			usleep(1000);
	}
	/* Let the blocked workers settle into futex_wait. */
	usleep(100000);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	main_wait();
	return 0;
}
