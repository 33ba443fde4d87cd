/* A process with a known profile: loop() calls hot_work() and cold_work(),
 * which spin for 3 and 1 time units (75% / 25% of the time; the unit is
 * measured with the TSC, so code alignment cannot skew the ratio; with -w
 * the two functions are aligned alike).
 *   hotloop [-t N] [-l SEC] [-r] [-w]
 *   -t N    run the loop in N threads (named "worker"); main only waits
 *   -l SEC  after SEC seconds start a thread "late" running late_work()
 *   -r      print "ips N total M" every second (loop iterations in the last
 *           second and since the start, all threads)
 *   -w      fixed work per iteration instead of fixed time (for -r: a slowed
 *           down process then does fewer iterations)
 *   -d SO   on SIGUSR1, dlopen SO and call its plugin_work() in a loop in
 *           a thread "plugin"
 *   -j      also spin in a thread "jit" inside anonymous executable memory
 *           (x86 only); -J does the same and names the code "jit_spin" in
 *           /tmp/perf-PID.map, as JIT compilers do
 * Prints "ready" once its threads run. Built with and without frame pointers. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#define UNIT 20000

static atomic_ulong iterations;
static int fixed_work;

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline unsigned long long ticks(void)
{
	return __rdtsc();
}
#define TICKS_PER_UNIT 100000ULL /* ~30-50 us */
#else
static inline unsigned long long ticks(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}
#define TICKS_PER_UNIT 40000ULL
#endif

__attribute__((noinline)) static void burn(unsigned n)
{
	volatile unsigned x = 0;
	for (unsigned i = 0; i < n; i++)
		x += i;
}

/* Both start on a 64-byte boundary: their loops (the same code) then sit
 * alike across cache lines, so -w's fixed work costs 3:1 in every build.
 * Without it the -fomit-frame-pointer build put hot_work's loop across a
 * cache-line boundary and cold_work's inside one (perf read ~83/17). */
__attribute__((noinline, aligned(64))) void hot_work(void)
{
	volatile unsigned x = 0;
	if (fixed_work) {
		for (unsigned i = 0; i < 3 * UNIT; i++)
			x += i;
		return;
	}
	unsigned long long end = ticks() + 3 * TICKS_PER_UNIT;
	while (ticks() < end)
		x++;
}

__attribute__((noinline, aligned(64))) void cold_work(void)
{
	volatile unsigned x = 0;
	if (fixed_work) {
		for (unsigned i = 0; i < UNIT; i++)
			x += i;
		return;
	}
	unsigned long long end = ticks() + TICKS_PER_UNIT;
	while (ticks() < end)
		x++;
}

__attribute__((noinline)) void loop(void)
{
	for (;;) {
		hot_work();
		cold_work();
		atomic_fetch_add_explicit(&iterations, 1, memory_order_relaxed);
	}
}

__attribute__((noinline)) void late_work(void)
{
	for (;;)
		burn(UNIT);
}

static void *worker(void *arg)
{
	(void)arg;
	loop();
	return NULL;
}

static void *jit_thread(void *code)
{
	((void (*)(void))code)();
	return NULL;
}

/* Two bytes of x86 machine code, "jmp ." (an endless loop), in anonymous
 * executable memory: code no file names. */
static int start_jit(int named)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_t t;

	if (code == MAP_FAILED)
		return -1;
	code[0] = 0xeb;
	code[1] = 0xfe;
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC) < 0)
		return -1;
	if (named) {
		char path[64];
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		FILE *f = fopen(path, "w");
		if (!f)
			return -1;
		fprintf(f, "%lx 2 jit_spin\n", (unsigned long)code);
		fclose(f);
	}
	pthread_create(&t, NULL, jit_thread, code);
	pthread_setname_np(t, "jit");
	return 0;
#else
	(void)named;
	return -1;
#endif
}

static void *plugin(void *path)
{
	sigset_t usr1;
	int sig;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigwait(&usr1, &sig);
	void *h = dlopen(path, RTLD_NOW);
	void (*fn)(void) = h ? (void (*)(void))dlsym(h, "plugin_work") : NULL;
	if (!fn) {
		fprintf(stderr, "hotloop: %s\n", dlerror());
		exit(3);
	}
	for (;;)
		fn();
	return NULL;
}

static void *late(void *arg)
{
	unsigned sec = (unsigned)(unsigned long)arg;
	pthread_t t;
	sleep(sec);
	pthread_create(&t, NULL, (void *(*)(void *))late_work, NULL);
	pthread_setname_np(t, "late");
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 0, c, report = 0, jit = 0;
	char *plugin_path = NULL;
	unsigned late_after = 0;
	pthread_t t;

	sigset_t usr1; /* only the plugin thread takes SIGUSR1, with sigwait */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	while ((c = getopt(argc, argv, "t:l:rwjJd:")) != -1) {
		switch (c) {
		case 't': threads = atoi(optarg); break;
		case 'l': late_after = (unsigned)atoi(optarg); break;
		case 'r': report = 1; break;
		case 'w': fixed_work = 1; break;
		case 'j': jit = 1; break;
		case 'J': jit = 2; break;
		case 'd': plugin_path = optarg; break;
		default:
			fprintf(stderr, "usage: hotloop [-t THREADS] [-l SEC] [-r] [-w] [-j|-J] [-d SO]\n");
			return 2;
		}
	}
	for (int i = 0; i < threads; i++) {
		pthread_create(&t, NULL, worker, NULL);
		pthread_setname_np(t, "worker");
	}
	if (late_after) {
		/* The late thread is cloned by a helper that starts now, so it is
		 * born from a thread that already existed when sampling began. */
		pthread_create(&t, NULL, late, (void *)(unsigned long)late_after);
	}
	if (jit && start_jit(jit == 2) < 0) {
		fprintf(stderr, "hotloop: no JIT code on this machine\n");
		return 3;
	}
	if (plugin_path) {
		pthread_create(&t, NULL, plugin, plugin_path);
		pthread_setname_np(t, "plugin");
	}
	printf("ready\n");
	fflush(stdout);
	if (!threads)
		loop();
	for (;;) {
		unsigned long before = atomic_load(&iterations);
		sleep(1);
		if (report) {
			unsigned long now = atomic_load(&iterations);
			printf("ips %lu total %lu\n", now - before, now);
			fflush(stdout);
		}
	}
}
