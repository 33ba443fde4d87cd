/* A tiny JIT (x86-64): machine code copied into anonymous executable
 * memory and announced as a JIT compiler does, before it runs.
 *
 *   jit jdk|node|dump
 *
 * jdk:  /tmp/perf-PID.map in JDK 17's style ("0x%016lx 0x%016lx name"),
 *       rewritten whole at every new function as jcmd Compiler.perfmap does;
 * node: /tmp/perf-PID.map in Node's --perf-basic-prof style ("%lx %lx
 *       LazyCompile:*name"), appended to;
 * dump: a jitdump /tmp/jit-PID.dump (perf's format), mapped executable so
 *       it shows in the maps, appended to.
 *
 * It prints "ready" once jit_alpha runs; on SIGUSR1 it compiles jit_beta
 * (a second copy at another address), announces it, prints "beta" and from
 * then on runs only jit_beta. Each function is a frame of its own (push
 * rbp; mov rbp, rsp) called from main's loop. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* push rbp; mov rbp,rsp; mov rax,rdi; L: dec rax; jnz L; pop rbp; ret */
static const unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf8, 0x48,
				      0xff, 0xc8, 0x75, 0xfb, 0x5d, 0xc3 };

static volatile sig_atomic_t want_beta;
static const char *style;
static FILE *dump;

static void on_usr1(int sig)
{
	(void)sig;
	want_beta = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void put32(uint32_t v) { fwrite(&v, 4, 1, dump); }
static void put64(uint64_t v) { fwrite(&v, 8, 1, dump); }

static void announce(const char *const *names, void *const *addrs, int n)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (!strcmp(style, "jdk")) {
		FILE *f = fopen(path, "w"); /* the whole map again, in place */
		for (int i = 0; f && i < n; i++)
			fprintf(f, "0x%016lx 0x%016lx %s\n", (unsigned long)addrs[i], (unsigned long)sizeof(code),
				names[i]);
		if (f)
			fclose(f);
	} else if (!strcmp(style, "node")) {
		FILE *f = fopen(path, "a");
		if (f) {
			fprintf(f, "%lx %lx LazyCompile:*%s /srv/app.js:1\n", (unsigned long)addrs[n - 1],
				(unsigned long)sizeof(code), names[n - 1]);
			fclose(f);
		}
	} else {
		/* JIT_CODE_LOAD: header, pid, tid, vma, code_addr, code_size,
		 * code_index, name, the code. */
		size_t nl = strlen(names[n - 1]) + 1;
		put32(0);
		put32((uint32_t)(16 + 8 + 32 + nl + sizeof(code)));
		put64(now_ns());
		put32((uint32_t)getpid());
		put32((uint32_t)getpid());
		put64((uint64_t)(uintptr_t)addrs[n - 1]);
		put64((uint64_t)(uintptr_t)addrs[n - 1]);
		put64(sizeof(code));
		put64((uint64_t)n);
		fwrite(names[n - 1], nl, 1, dump);
		fwrite(code, sizeof(code), 1, dump);
		fflush(dump);
	}
}

int main(int argc, char **argv)
{
	style = argc > 1 ? argv[1] : "node";
	if (strcmp(style, "jdk") && strcmp(style, "node") && strcmp(style, "dump")) {
		fprintf(stderr, "usage: jit jdk|node|dump\n");
		return 2;
	}
	if (!strcmp(style, "dump")) {
		char path[64];
		snprintf(path, sizeof(path), "/tmp/jit-%d.dump", (int)getpid());
		dump = fopen(path, "w+");
		if (!dump)
			return 1;
		/* header: magic, version, size, elf_mach, pad, pid, timestamp, flags */
		put32(0x4A695444);
		put32(1);
		put32(40);
		put32(62);
		put32(0);
		put32((uint32_t)getpid());
		put64(now_ns());
		put64(0);
		fflush(dump);
		/* Mapped executable, as runtimes do so that perf sees it. */
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(dump), 0) == MAP_FAILED)
			return 1;
	}
	/* One page each, apart: two functions at two addresses. */
	unsigned char *mem = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem + 256, code, sizeof(code));
	memcpy(mem + 2 * 4096 + 512, code, sizeof(code));
	if (mprotect(mem, 3 * 4096, PROT_READ | PROT_EXEC) < 0)
		return 1;
	const char *names[2] = { "jit_alpha", "jit_beta" };
	void *addrs[2] = { mem + 256, mem + 2 * 4096 + 512 };
	uint64_t (*fn)(uint64_t) = (uint64_t(*)(uint64_t))(uintptr_t)addrs[0];

	signal(SIGUSR1, on_usr1);
	announce(names, addrs, 1);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if (want_beta == 1) {
			want_beta = 2;
			announce(names, addrs, 2);
			fn = (uint64_t(*)(uint64_t))(uintptr_t)addrs[1];
			printf("beta\n");
			fflush(stdout);
		}
		fn(1000000);
	}
}
