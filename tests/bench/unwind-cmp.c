/* libdw against libunwind on the same copied-stack samples.
 *
 *   unwind-cmp PID [SECONDS] [STACK_BYTES]
 *
 * Samples PID's threads (perf_event_open per thread, cpu-clock at 999 Hz,
 * PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER) for SECONDS, keeps every
 * sample's registers and stack copy, then unwinds all of them
 *  - with pscope's unwinder (src/sym/unwind.c: libunwind over the copy,
 *    unwind tables from process memory, cached per module), and
 *  - with libdw: one Dwfl for the process (dwfl_linux_proc_report), a
 *    Dwfl_Thread_Callbacks set whose registers are the sample's and whose
 *    memory reads come from the copy (text from the live process), and
 *    dwfl_getthread_frames for each sample,
 * nine passes each (the first one cold: caches empty, set-up included).
 * Prints the cost per sample of each in this thread's CPU time (cold, and
 * the median of the warm passes), how often the two agree frame for frame, and how many chains
 * each takes to the program's start (_start or start_thread).
 * A measurement, not a test: see README (DWARF sampling). */
#include "perf/perf.h"
#include "sample/local.h"
#include "sym/sym.h"
#include "sym/unwind.h"

#include <dirent.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAXF 128
#define PASSES 9

struct smp {
	pid_t tid;
	uint64_t regs[SAMP_NREGS];
	unsigned char *stack;
	uint64_t len;
};

static struct smp *smps;
static size_t nsmps, capsmps;

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* The costs are this thread's CPU time: on a loaded machine the wall
 * clock would count other processes' turns too. */
static uint64_t cpu_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void on_sample(void *ctx, const struct perf_sample *rs)
{
	const struct perf_sample r = *rs;
	(void)ctx;
	if (!r.regs || !r.stack_size)
		return;
	if (nsmps == capsmps) {
		capsmps = capsmps ? capsmps * 2 : 1024;
		smps = realloc(smps, capsmps * sizeof(*smps));
		if (!smps)
			exit(1);
	}
	struct smp *s = &smps[nsmps++];
	s->tid = (pid_t)r.tid;
	memcpy(s->regs, r.regs, sizeof(s->regs));
	s->len = r.stack_size;
	s->stack = malloc(r.stack_size);
	memcpy(s->stack, r.stack, r.stack_size);
}

/* Sample every thread of pid for secs seconds (through src/perf/: one
 * ring, the first thread's event's; the others redirected into it). */
static int collect(pid_t pid, int secs, unsigned stack)
{
	struct perf_event_attr a = { 0 };
	static const struct perf_consumer c = { .on_sample = on_sample };
	struct perf_reader rd;
	struct perf_format fmt;
	struct perf_ring ring = { .fd = -1 };
	struct ps_error e;
	char path[64];
	int fds[1024], nfd = 0;

	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = 999;
	a.sample_type = SAMP_SAMPLE_TYPE | SAMP_SAMPLE_DWARF;
	a.sample_regs_user = SAMP_REGS_MASK;
	a.sample_stack_user = stack;
	a.exclude_kernel = 1;
	perf_format_of(&a, &fmt);
	if (perf_reader_init(&rd, &c, NULL, &fmt) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	struct dirent *de;
	if (!d)
		return -1;
	while ((de = readdir(d)) && nfd < 1024) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		int fd = nfd ? perf_open_into(&a, atoi(de->d_name), -1, &ring) : perf_open(&a, atoi(de->d_name), -1, -1);
		if (fd < 0)
			continue;
		if (!nfd && perf_ring_map(&ring, fd, -1, 512, &e) < 0)
			return -1;
		fds[nfd++] = fd;
	}
	closedir(d);
	if (!nfd)
		return -1;
	uint64_t end = now_us() + (uint64_t)secs * 1000000u;
	while (now_us() < end) {
		usleep(20000);
		perf_read(&rd, &ring);
	}
	for (int i = 1; i < nfd; i++)
		close(fds[i]);
	perf_ring_close(&ring);
	perf_reader_fini(&rd);
	return 0;
}

/* ---- libunwind: pscope's unwinder ---- */
static void to_user_regs(const uint64_t *v, struct user_regs_struct *u)
{
	memset(u, 0, sizeof(*u));
	u->rax = v[0], u->rbx = v[1], u->rcx = v[2], u->rdx = v[3], u->rsi = v[4], u->rdi = v[5];
	u->rbp = v[6], u->rsp = v[7], u->rip = v[8], u->r8 = v[9], u->r9 = v[10], u->r10 = v[11];
	u->r11 = v[12], u->r12 = v[13], u->r13 = v[14], u->r14 = v[15], u->r15 = v[16];
}

/* ---- libdw: dwfl_getthread_frames over the copy ---- */
struct dw_arg {
	pid_t pid;
	const struct smp *cur;
	uint64_t pcs[MAXF];
	int n;
};

static pid_t dw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct dw_arg *a = arg;
	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = a;
	return a->cur->tid;
}

static bool dw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool dw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct dw_arg *a = arg;
	uint64_t sp = a->cur->regs[7];
	(void)dwfl;
	if (addr >= sp && addr + 8 <= sp + a->cur->len) {
		memcpy(result, a->cur->stack + (addr - sp), 8);
		return true;
	}
	if (addr >= sp && addr < sp + 1024 * 1024)
		return false; /* stack beyond the copy: not read live (it moved on) */
	struct iovec l = { result, 8 }, r = { (void *)(uintptr_t)addr, 8 };
	return process_vm_readv(a->pid, &l, 1, &r, 1, 0) == 8;
}

static bool dw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct dw_arg *a = arg;
	const uint64_t *v = a->cur->regs;
	/* DWARF x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
	Dwarf_Word w[17] = { v[0], v[3], v[2], v[1], v[4], v[5], v[6], v[7], v[9], v[10], v[11], v[12], v[13], v[14], v[15],
			     v[16], v[8] };
	return dwfl_thread_state_registers(thread, 0, 17, w);
}

static const Dwfl_Thread_Callbacks dw_callbacks = {
	.next_thread = dw_next_thread,
	.get_thread = dw_get_thread,
	.memory_read = dw_memory_read,
	.set_initial_registers = dw_set_initial_registers,
};

static int dw_frame(Dwfl_Frame *state, void *arg)
{
	struct dw_arg *a = arg;
	Dwarf_Addr pc;
	bool act;
	if (!dwfl_frame_pc(state, &pc, &act) || a->n >= MAXF)
		return DWARF_CB_ABORT;
	a->pcs[a->n++] = pc;
	return DWARF_CB_OK;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of the warm passes (1..PASSES-1): a pass the scheduler
 * interrupted on a loaded machine does not move it. */
static double warm(double *us)
{
	double w[PASSES - 1];
	memcpy(w, us + 1, sizeof(w));
	qsort(w, PASSES - 1, sizeof(double), dcmp);
	return w[(PASSES - 1) / 2];
}

static bool reaches_root(struct sym_proc *sp, const uint64_t *pcs, int n)
{
	for (int i = 0; i < n; i++) {
		const char *f = sym_lookup(sp, pcs[i], i == 0)->function;
		if (!strcmp(f, "_start") || !strcmp(f, "start_thread") || !strcmp(f, "__libc_start_call_main") ||
		    !strcmp(f, "clone3") || !strcmp(f, "__clone3"))
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: unwind-cmp PID [SECONDS] [STACK_BYTES]\n");
		return 2;
	}
	pid_t pid = atoi(argv[1]);
	int secs = argc > 2 ? atoi(argv[2]) : 2;
	unsigned stack = argc > 3 ? (unsigned)atoi(argv[3]) : 16384;
	if (collect(pid, secs, stack) < 0 || !nsmps) {
		fprintf(stderr, "unwind-cmp: no samples of %d: %s\n", (int)pid, strerror(errno));
		return 1;
	}

	struct sym_proc *sp = sym_proc_live(pid, 0, 0);
	uint64_t (*lu)[MAXF] = calloc(nsmps, sizeof(*lu));
	uint64_t (*ld)[MAXF] = calloc(nsmps, sizeof(*ld));
	int *nlu = calloc(nsmps, sizeof(int)), *nld = calloc(nsmps, sizeof(int));
	double lu_us[PASSES], ld_us[PASSES], lu_first = 0, ld_first = 0;

	/* libunwind, as the sampler uses it: one unwinder kept for the process. */
	uint64_t t0 = cpu_us();
	struct sym_unwinder *uw = sym_unwinder_new(pid, sym_proc_maps(sp));
	(void)sym_proc_sync(sp);
	sym_unwinder_set_maps(uw, sym_proc_maps(sp));
	for (int p = 0; p < PASSES; p++) {
		uint64_t t = p ? cpu_us() : t0;
		for (size_t i = 0; i < nsmps; i++) {
			struct user_regs_struct r;
			bool byfp[MAXF], trunc = false;
			to_user_regs(smps[i].regs, &r);
			nlu[i] = sym_unwind(uw, &r, smps[i].stack, r.rsp, smps[i].len, true, lu[i], byfp, MAXF, &trunc);
			if (!p && !i)
				lu_first = (double)(cpu_us() - t0);
		}
		lu_us[p] = (double)(cpu_us() - t) / (double)nsmps;
	}
	sym_unwinder_free(uw);

	/* libdw: one Dwfl for the process, kept across samples. */
	static char *debuginfo_path;
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = &debuginfo_path,
	};
	struct dw_arg da = { .pid = pid };
	t0 = cpu_us();
	Dwfl *dwfl = dwfl_begin(&cb);
	if (!dwfl || dwfl_linux_proc_report(dwfl, pid) != 0 || dwfl_report_end(dwfl, NULL, NULL) != 0 ||
	    !dwfl_attach_state(dwfl, NULL, pid, &dw_callbacks, &da)) {
		fprintf(stderr, "unwind-cmp: libdw: %s\n", dwfl_errmsg(-1));
		return 1;
	}
	for (int p = 0; p < PASSES; p++) {
		uint64_t t = p ? cpu_us() : t0;
		for (size_t i = 0; i < nsmps; i++) {
			da.cur = &smps[i];
			da.n = 0;
			dwfl_getthread_frames(dwfl, smps[i].tid, dw_frame, &da);
			nld[i] = da.n;
			if (!p && !i)
				ld_first = (double)(cpu_us() - t0);
			memcpy(ld[i], da.pcs, (size_t)da.n * sizeof(uint64_t));
		}
		ld_us[p] = (double)(cpu_us() - t) / (double)nsmps;
	}
	dwfl_end(dwfl);

	size_t same = 0, root_lu = 0, root_ld = 0, deeper_lu = 0, deeper_ld = 0;
	double flu = 0, fld = 0;
	for (size_t i = 0; i < nsmps; i++) {
		same += nlu[i] == nld[i] && !memcmp(lu[i], ld[i], (size_t)nlu[i] * sizeof(uint64_t));
		root_lu += reaches_root(sp, lu[i], nlu[i]);
		root_ld += reaches_root(sp, ld[i], nld[i]);
		deeper_lu += nlu[i] > nld[i];
		deeper_ld += nld[i] > nlu[i];
		flu += nlu[i];
		fld += nld[i];
	}
	printf("%zu samples of PID %d (%u-byte stack copies), %d passes\n", nsmps, (int)pid, stack, PASSES);
	printf("libunwind (pscope's unwinder): set-up and first sample %.0f us, cold %.1f us/sample, warm %.2f us/sample; "
	       "%.1f frames/sample, %zu reach the start (%.1f%%)\n",
	       lu_first, lu_us[0], warm(lu_us), flu / nsmps, root_lu, 100.0 * root_lu / nsmps);
	printf("libdw (dwfl_getthread_frames): set-up and first sample %.0f us, cold %.1f us/sample, warm %.2f us/sample; "
	       "%.1f frames/sample, %zu reach the start (%.1f%%)\n",
	       ld_first, ld_us[0], warm(ld_us), fld / nsmps, root_ld, 100.0 * root_ld / nsmps);
	printf("same frames in both: %zu of %zu (%.1f%%); libunwind deeper in %zu, libdw deeper in %zu\n", same, nsmps,
	       100.0 * same / nsmps, deeper_lu, deeper_ld);
	printf("libdw / libunwind per sample: cold %.2f, warm %.2f\n", ld_us[0] / lu_us[0], warm(ld_us) / warm(lu_us));
	sym_proc_free(sp);
	return 0;
}
