/* Target for the core benchmark.
 *   core-big RESIDENT_MB [UNTOUCHED_MB] [ZERO_EVERY] [DIRTY_MB] [THP]
 * RESIDENT_MB of memory written on every page (a data byte per 64 bytes:
 * byte i of page pg is (pg * 131 + i) | 1 when i % 64 == 0, else 0; with
 * ZERO_EVERY=N, every Nth page is left all zeros), plus UNTOUCHED_MB of
 * mappings with a single page touched every 64 MiB. THP=1 asks for
 * transparent huge pages for the resident memory (MADV_HUGEPAGE), else
 * it is kept in 4 KiB pages (MADV_NOHUGEPAGE). Prints "mem=ADDRESS",
 * "huge_kb=N" (its AnonHugePages) and "ready".
 * With DIRTY_MB, a thread keeps rewriting the first DIRTY_MB of the
 * resident memory (a byte per page, pass after pass) and a ticker thread
 * sleeps 1 ms at a time, noting the longest gap: on SIGUSR1 the target
 * prints "maxgap_ms=G passes=N pass_ms=T best_pass_ms=B" for the time
 * since the previous SIGUSR1 (G: the longest the process was kept from
 * running; T: time spent in passes; B: the fastest pass).
 * On SIGUSR2 the main thread writes one byte to each page of the first
 * COW_MB (environment, default 256) of the resident memory, once, and
 * prints "cow_pass_ms=T cow_cpu_ms=C pages=N" (wall and thread CPU time:
 * the CPU time does not count waiting for a CPU on a busy machine): while
 * a fork snapshot lives, each of those writes is a copy-on-write fault.
 * On SIGURG the main thread forks once (the child exits at once) and prints
 * "fork_ms=T", the time fork() took in the process: the kernel's own cost
 * of copying its page tables, the floor under a fork snapshot's pause (the
 * benchmark asks a twin of its target, whose first fork it is). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned char *mem;
static size_t dirty_bytes, page;
static volatile sig_atomic_t report, cow_pass, fork_cost;
static volatile double max_gap, pass_total, best_pass = 1e9;
static volatile long passes;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void on_usr1(int s)
{
	(void)s;
	report = 1;
}

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void on_usr2(int s)
{
	(void)s;
	cow_pass = 1;
}

static void on_urg(int s)
{
	(void)s;
	fork_cost = 1;
}

static void *dirtier(void *a)
{
	unsigned char v = 0;
	(void)a;
	for (;;) {
		double t = now_ms();
		v++;
		for (size_t o = 0; o < dirty_bytes; o += page)
			mem[o] = v | 1;
		double d = now_ms() - t;
		pass_total += d;
		passes++;
		if (d < best_pass)
			best_pass = d;
	}
	return NULL;
}

static void *ticker(void *a)
{
	(void)a;
	double last = now_ms();
	for (;;) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
		double t = now_ms();
		if (t - last > max_gap)
			max_gap = t - last;
		last = t;
	}
	return NULL;
}

/* AnonHugePages of the process, in KiB. */
static unsigned long huge_kb(void)
{
	char line[256];
	unsigned long kb = 0, v;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %lu", &v) == 1)
			kb += v;
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	size_t untouched = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	size_t zero_every = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
	size_t dirty = argc > 4 ? strtoul(argv[4], NULL, 10) : 0;
	int thp = argc > 5 ? atoi(argv[5]) : 0;
	size_t sz = mb << 20;
	pthread_t th;

	page = (size_t)sysconf(_SC_PAGESIZE);
	mem = mmap(NULL, sz ? sz : page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	madvise(mem, sz ? sz : page, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	for (size_t pg = 0; pg < sz / page; pg++) {
		unsigned char *q = mem + pg * page;
		if (zero_every && pg % zero_every == 0) {
			q[0] = 0; /* resident, all zeros */
			continue;
		}
		for (size_t i = 0; i < page; i += 64)
			q[i] = (unsigned char)((pg * 131 + i) | 1);
	}
	if (untouched) {
		size_t usz = untouched << 20;
		unsigned char *u = mmap(NULL, usz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
					-1, 0);
		if (u == MAP_FAILED)
			return 1;
		for (size_t off = 0; off < usz; off += (size_t)64 << 20)
			u[off] = 1;
	}
	const char *cm = getenv("COW_MB");
	size_t cow_bytes = (cm ? strtoul(cm, NULL, 10) : 256) << 20;
	if (cow_bytes > sz)
		cow_bytes = sz;
	signal(SIGUSR2, on_usr2);
	signal(SIGURG, on_urg);
	if (dirty) {
		dirty_bytes = (dirty << 20) < sz ? dirty << 20 : sz;
		signal(SIGUSR1, on_usr1);
		pthread_create(&th, NULL, dirtier, NULL);
		pthread_create(&th, NULL, ticker, NULL);
	}
	printf("mem=%p\nhuge_kb=%lu\nready\n", (void *)mem, huge_kb());
	fflush(stdout);
	for (;;) {
		pause();
		if (cow_pass) {
			static unsigned char v;
			cow_pass = 0;
			v += 2;
			double t = now_ms(), c = cpu_ms();
			for (size_t o = 0; o < cow_bytes; o += page)
				mem[o + 8] = v | 1; /* not the pattern's byte 0 */
			double cd = cpu_ms() - c;
			printf("cow_pass_ms=%.2f cow_cpu_ms=%.2f pages=%zu\n", now_ms() - t, cd, cow_bytes / page);
			fflush(stdout);
		}
		if (fork_cost) {
			fork_cost = 0;
			double t = now_ms();
			pid_t c = fork();
			if (c == 0)
				_exit(0);
			double d = now_ms() - t;
			if (c > 0)
				waitpid(c, NULL, 0);
			printf("fork_ms=%.1f\n", c > 0 ? d : -1.0);
			fflush(stdout);
		}
		if (report) {
			report = 0;
			printf("maxgap_ms=%.1f passes=%ld pass_ms=%.1f best_pass_ms=%.2f\n", max_gap, passes, pass_total,
			       best_pass);
			fflush(stdout);
			max_gap = 0;
			passes = 0;
			pass_total = 0;
			best_pass = 1e9;
		}
	}
}
