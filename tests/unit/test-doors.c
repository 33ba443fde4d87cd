/* Unit tests: the doors' wording, meanings, the tool table's judgement and
 * the report's rendering. */
#include "tap.h"
#include "out/escape.h"
#include <locale.h>
#include "doors/doors.h"
#include "error.h"

#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/ptrace.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_names(void)
{
	is_str(door_cap_name(CAP_SYS_PTRACE), "cap_sys_ptrace", "CAP_SYS_PTRACE by name");
	is_str(door_cap_name(38), "cap_perfmon", "CAP_PERFMON by name");
	is_str(door_cap_name(40), "cap_checkpoint_restore", "CAP_CHECKPOINT_RESTORE by name");
	is_str(door_cap_name(45), "cap_45", "an unknown capability by number");
	is_str(ps_op_name(PS_OP_SAMPLE), "sample (perf_event_open)", "operation name");
	is_str(door_name(DOOR_PTRACE_SCOPE), "kernel.yama.ptrace_scope", "door name");
	is_str(door_state_word(DOOR_CLOSED), "CLOSED", "closed door word");
}

static void test_meanings(void)
{
	ok(strstr(door_ptrace_scope_meaning(-1), "Yama not present") != NULL, "ptrace_scope absent: Yama not present");
	ok(strstr(door_ptrace_scope_meaning(1), "ancestor") != NULL, "ptrace_scope 1: ancestors");
	ok(strstr(door_perf_paranoid_meaning(3, true), "Debian") != NULL, "paranoid 3 on a Debian kernel");
	ok(strstr(door_perf_paranoid_meaning(3, false), "treats it as 2") != NULL, "paranoid 3 elsewhere is 2");
	ok(strstr(door_perf_paranoid_meaning(2, false), "user space only") != NULL, "paranoid 2: user space only");
	ok(strstr(door_kptr_restrict_meaning(1), "CAP_SYSLOG") != NULL, "kptr_restrict 1: CAP_SYSLOG");
	is_str(door_seccomp_meaning(0), "none", "seccomp 0");
}

static void test_refusals(void)
{
	struct ps_error e;
	char want[512];
	pid_t child;
	int st;

	/* A process that is gone. */
	child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, &st, 0);
	is_int(door_refused(&e, PS_OP_ATTACH, child, EPERM, "attach"), -ESRCH, "a reaped child: -ESRCH");
	snprintf(want, sizeof(want), "cannot attach: process %d has exited", (int)child);
	is_str(e.msg, want, "a gone process is named as exited");
	is_int(e.door, DOOR_NONE, "no door for a gone process");

	/* A zombie: exists, but has no memory to read. */
	child = fork();
	if (child == 0)
		_exit(0);
	for (int i = 0; i < 6000; i++) { /* a cap, 60 s */
		char path[64], buf[256] = "";
		FILE *f;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			fclose(f);
		}
		if (strstr(buf, ") Z "))
			break;
		usleep(10000);
	}
	door_refused(&e, PS_OP_READ_MEM, child, ESRCH, "read memory");
	snprintf(want, sizeof(want), "cannot read memory: process %d has no user memory (a zombie: it exited, its parent has not reaped it)",
		 (int)child);
	is_str(e.msg, want, "a zombie has no user memory");
	/* ptrace refuses a process that exits during the attach with EPERM:
	 * that is its exit, not a security module. */
	is_int(door_refused(&e, PS_OP_ATTACH, child, EPERM, "attach"), -ESRCH, "attach refused by an exit: -ESRCH");
	snprintf(want, sizeof(want), "cannot attach: process %d exited during the attach", (int)child);
	is_str(e.msg, want, "a process that exited during the attach is named as exited");
	is_int(e.door, DOOR_NONE, "and no door is blamed");
	waitpid(child, &st, 0);

	/* Ourselves. */
	is_int(door_refused(&e, PS_OP_ATTACH, getpid(), EPERM, "attach to it"), -EPERM, "self attach: -EPERM");
	snprintf(want, sizeof(want), "cannot attach to it: process %d is pscope itself, and ptrace never attaches to its own process",
		 (int)getpid());
	is_str(e.msg, want, "attaching to ourselves is explained");

	/* Not a door at all. */
	door_refused(&e, PS_OP_CORE, getpid(), ENOMEM, "write a core");
	is_str(e.msg, "cannot write a core: Cannot allocate memory", "other errors keep strerror");
	is_int(e.door, DOOR_NONE, "and name no door");

	door_file_refused(&e, "/ro/core.1", EROFS, "write the core");
	is_str(e.msg, "cannot write the core /ro/core.1: Read-only file system", "file refusal sentence");
	is_int(e.door, DOOR_FILESYSTEM, "file refusal: filesystem door");
	ok(strstr(e.fix, "-o /tmp/FILE") != NULL, "read-only: write elsewhere");
	door_perf_mmap_refused(&e, EPERM, 528384);
	ok(!strncmp(e.msg, "cannot map a perf ring buffer of 516 kB: the perf buffers of this user would pass kernel.perf_event_mlock_kb (", 108),
	   "perf buffer refusal names perf_event_mlock_kb: %s", e.msg);
	is_int(e.door, DOOR_PERF_MLOCK, "perf buffer: its own door");
	ok(strstr(e.fix, "CAP_IPC_LOCK") != NULL, "perf buffer fix names CAP_IPC_LOCK");
	door_file_refused(&e, "/x", -ENOSPC, "write the core");
	ok(strstr(e.fix, "free some space") != NULL, "no space: free some");
}

/* A job's tracer thread of this process holds the child: the refusal says
 * it is ours, not some other tool's. */
static pid_t traced_child;
static sem_t seized, done;
static void *tracer(void *arg)
{
	(void)arg;
	if (ptrace(PTRACE_SEIZE, traced_child, 0, 0) != 0)
		traced_child = -1;
	sem_post(&seized);
	sem_wait(&done);
	return NULL; /* the exit detaches */
}

static void test_traced_by_us(void)
{
	struct ps_error e;
	pthread_t th;
	char want[256];
	int st;

	traced_child = fork();
	if (traced_child == 0) {
		pause();
		_exit(0);
	}
	sem_init(&seized, 0, 0);
	sem_init(&done, 0, 0);
	pthread_create(&th, NULL, tracer, NULL);
	sem_wait(&seized);
	ok(traced_child > 0, "a thread of ours traces the child");
	if (traced_child > 0) {
		door_refused(&e, PS_OP_ATTACH, traced_child, EPERM, "attach");
		snprintf(want, sizeof(want), "cannot attach: process %d is already traced by this pscope (a stack dump or core of it is running)",
			 (int)traced_child);
		is_str(e.msg, want, "traced by one of our own threads");
		is_int(e.door, DOOR_PTRACE_TRACED, "door: already traced");
	}
	sem_post(&done);
	pthread_join(th, NULL);
	if (traced_child > 0) {
		kill(traced_child, SIGKILL);
		waitpid(traced_child, &st, 0);
	}
}

static struct door_report fake(long scope, long paranoid, bool debian, unsigned long long caps)
{
	struct door_report r;

	memset(&r, 0, sizeof(r));
	r.sys.k.ptrace_scope = scope;
	r.sys.k.perf_paranoid = paranoid;
	r.sys.debian_kernel = debian;
	r.self.cap_eff = caps;
	return r;
}

static const struct door_tool *tool(const char *name)
{
	for (size_t i = 0; i < door_tools_count; i++)
		if (!strcmp(door_tools[i].tool, name))
			return &door_tools[i];
	printf("Bail out! no tool %s\n", name);
	exit(1);
}

static void test_tools(void)
{
	const struct door_tool *stack = tool("pscope stack dump"), *hot = tool("pscope hot functions");
	const struct door_tool *perf_a = tool("perf record -a / perf top"), *bpf = tool("bpftrace");
	const struct door_tool *kill_ = tool("pscope kill");
	unsigned long long root = (1ull << 41) - 1, ptrace = 1ull << CAP_SYS_PTRACE;
	struct door_report r;

	r = fake(-1, 2, false, 0);
	is_str(door_tool_expect(stack, &r, false), "open", "no Yama: stacks of your processes");
	is_str(door_tool_expect(stack, &r, true), "closed", "others' stacks need CAP_SYS_PTRACE");
	is_str(door_tool_expect(hot, &r, false), "user space only", "paranoid 2: user space only");
	is_str(door_tool_expect(perf_a, &r, false), "closed", "paranoid 2: no CPU-wide perf");
	is_str(door_tool_expect(bpf, &r, false), "closed", "bpftrace needs privileges");
	is_str(door_tool_expect(kill_, &r, true), "closed", "others' signals need CAP_KILL");
	r = fake(1, 2, false, 0);
	is_str(door_tool_expect(stack, &r, false), "descendants only", "ptrace_scope 1: descendants");
	r = fake(1, 2, false, ptrace);
	is_str(door_tool_expect(stack, &r, true), "open", "ptrace_scope 1 with CAP_SYS_PTRACE");
	r = fake(3, 2, false, root);
	is_str(door_tool_expect(stack, &r, false), "closed", "ptrace_scope 3 closes it even for root");
	r = fake(-1, 3, true, 0);
	is_str(door_tool_expect(hot, &r, false), "closed", "Debian paranoid 3 closes perf");
	r = fake(-1, 3, false, 0);
	is_str(door_tool_expect(hot, &r, false), "user space only", "paranoid 3 elsewhere acts as 2");
	r = fake(-1, 3, true, root);
	is_str(door_tool_expect(hot, &r, true), "open", "root opens every door");
	is_str(door_tool_expect(bpf, &r, true), "open", "root may run bpftrace");
}

static size_t widest(const struct door_lines *l)
{
	size_t w = 0;
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->v[i].text) > w)
			w = strlen(l->v[i].text);
	return w;
}

static void test_render(void)
{
	struct door_report r = fake(-1, 2, false, 0);
	struct door_lines l = { 0 };
	bool found = false;

	strcpy(r.sys.kernel, "Linux 6.1.0 test x86_64");
	strcpy(r.sys.core_pattern, "core");
	is_int(door_render(&r, 0, &l), 0, "render");
	for (size_t i = 0; i < l.n; i++)
		if (!strcmp(l.v[i].text, "  kernel.yama.ptrace_scope           Yama not present: ptrace is limited by uid, dumpable and capabilities only"))
			found = true;
	ok(found, "Yama line rendered");
	ok(l.n > 40 && l.v[0].kind == DL_HEAD, "lines with a heading first");
	door_lines_free(&l);
	is_int(door_render(&r, 90, &l), 0, "render at 90 columns");
	ok(widest(&l) <= 90, "wrapped to 90 columns (widest %zu)", widest(&l));
	found = false;
	for (size_t i = 0; i + 1 < l.n; i++)
		if (!strncmp(l.v[i].text, "  kernel.yama.ptrace_scope", 26) &&
		    !strncmp(l.v[i + 1].text, "                                     ", 37))
			found = true;
	ok(found, "a wrapped value continues under the value column");
	door_lines_free(&l);

	is_int(door_render(&r, 50, &l), 0, "render at 50 columns");
	ok(widest(&l) <= 50, "wrapped to 50 columns (widest %zu)", widest(&l));
	found = false;
	for (size_t i = 0; i + 1 < l.n; i++)
		if (!strcmp(l.v[i].text, "  kernel.yama.ptrace_scope") &&
		    !strncmp(l.v[i + 1].text, "      Yama not present:", 23))
			found = true;
	ok(found, "narrow: the value goes under its key");
	door_lines_free(&l);
}

/* Hangul in the facts (a kernel string, a core_pattern): lines are wrapped
 * by display width, never inside a character, and not earlier than needed. */
static void test_render_hangul(void)
{
	struct door_report r = fake(-1, 2, false, 0);
	struct door_lines l = { 0 };
	/* 20 syllables, 40 columns, 60 bytes */
	const char *k20 = "\xeb\xa6\xac\xeb\x88\x85\xec\x8a\xa4\xec\xbb\xa4\xeb\x84\x90"
			  "\xec\x8b\x9c\xed\x97\x98\xec\x9a\xa9\xeb\xb9\x8c\xeb\x93\x9c"
			  "\xeb\xa6\xac\xeb\x88\x85\xec\x8a\xa4\xec\xbb\xa4\xeb\x84\x90"
			  "\xec\x8b\x9c\xed\x97\x98\xec\x9a\xa9\xeb\xb9\x8c\xeb\x93\x9c";
	int bad = 0, whole = 0;

	if (!setlocale(LC_CTYPE, "C.UTF-8") && !setlocale(LC_CTYPE, "en_US.UTF-8")) {
		printf("ok %d - # SKIP no UTF-8 locale\n", ++tap_n);
		return;
	}
	snprintf(r.sys.kernel, sizeof(r.sys.kernel), "%s", k20);
	/* one word of 40 syllables: 80 columns, wider than the screen */
	snprintf(r.sys.core_pattern, sizeof(r.sys.core_pattern), "/%s%s", k20, k20);
	for (int width = 50; width <= 90; width += 40) {
		is_int(door_render(&r, width, &l), 0, "render Hangul at %d columns", width);
		bad = 0;
		for (size_t i = 0; i < l.n; i++) {
			if (text_width(l.v[i].text) > width || !utf8_valid(l.v[i].text, strlen(l.v[i].text)))
				bad++;
			if (strstr(l.v[i].text, k20) && !strncmp(l.v[i].text, "  kernel ", 9))
				whole++;
		}
		is_int(bad, 0, "%d columns: every line fits by display width, no character split", width);
		door_lines_free(&l);
	}
	is_int(whole, 1, "at 90 columns a 40-column Hangul value stays on its key's line (60 bytes)");
	setlocale(LC_CTYPE, "C");
}

int main(void)
{
	test_names();
	test_meanings();
	test_refusals();
	test_traced_by_us();
	test_tools();
	test_render();
	test_render_hangul();
	return tap_done();
}
