/* Stack dump pieces: lock owners from mutex words, wait-for cycles, the
 * maps lookup, chains, and the refusal of a reused PID. */
#include "tap.h"
#include "stack/internal.h"
#include "stack/stack.h"
#include "target.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_owner(void)
{
	/* glibc normal mutex held by 4242, contended (lock word 2). */
	uint32_t normal[5] = { 2, 0, 4242, 1, 0 };
	is_int(stk_lock_owner(0, normal), 4242, "normal mutex: owner from __owner (+8)");
	is_int(stk_lock_owner(128 | 0, normal) == 0, 1, "the op must be masked by the caller");
	is_int(stk_lock_owner(9, normal), 4242, "FUTEX_WAIT_BITSET too");
	uint32_t robust[5] = { 0x80000000u | 777, 1, 777, 1, 16 | 128 };
	is_int(stk_lock_owner(0, robust), 777, "robust mutex: owner from the lock word");
	uint32_t pi[5] = { 0x80000000u | 555, 0, 0, 0, 32 };
	is_int(stk_lock_owner(6, pi), 555, "FUTEX_LOCK_PI: owner from the lock word");
	is_int(stk_lock_owner(13, pi), 555, "FUTEX_LOCK_PI2 too");
	uint32_t cond[5] = { 0, 3, 4242, 9, 0x12345 };
	is_int(stk_lock_owner(0, cond), 0, "not a mutex (kind bits unknown): no owner");
	uint32_t unlocked[5] = { 0, 0, 4242, 0, 0 };
	is_int(stk_lock_owner(0, unlocked), 0, "unlocked word: no owner");
	is_int(stk_lock_owner(1, normal), 0, "FUTEX_WAKE is no wait");
}

static void test_cycles(void)
{
	pid_t tid[6] = { 10, 11, 12, 13, 14, 15 };
	pid_t wf[6] = { 11, 12, 10, 10, 15, 0 }; /* 10->11->12->10, 13 waits into it, 14->15 */
	size_t cyc[6];

	is_int(stk_lock_cycles(tid, wf, 6, cyc), 1, "one cycle");
	ok(cyc[0] == 1 && cyc[1] == 1 && cyc[2] == 1, "its three threads marked");
	ok(cyc[3] == 0 && cyc[4] == 0 && cyc[5] == 0, "a waiter into the cycle and a chain are not in it");
	size_t behind[6];
	is_int(stk_lock_cycles(tid, wf, 6, cyc), 1, "one cycle, again");
	stk_lock_behind(tid, wf, 6, cyc, behind);
	ok(behind[3] == 1, "13 waits for 10, in the cycle: blocked behind cycle 1");
	ok(behind[0] == 0 && behind[1] == 0 && behind[2] == 0, "the cycle's own threads are not 'behind' it");
	ok(behind[4] == 0 && behind[5] == 0, "a chain that ends at a running thread is not behind a cycle");
	pid_t wf4[6] = { 11, 10, 10, 12, 13, 0 }; /* 10<->11; 12->10; 13->12; 14->13 */
	stk_lock_cycles(tid, wf4, 6, cyc);
	stk_lock_behind(tid, wf4, 6, cyc, behind);
	ok(behind[2] == 1 && behind[3] == 1 && behind[4] == 1, "a chain of waiters into the cycle: all behind it");
	pid_t wf2[6] = { 11, 10, 13, 12, 99, 14 };
	is_int(stk_lock_cycles(tid, wf2, 6, cyc), 2, "two 2-cycles; an owner outside the process ends a chain");
	pid_t wf3[1] = { 10 };
	is_int(stk_lock_cycles(tid, wf3, 1, cyc), 1, "a thread waiting for itself (relocking a normal mutex)");
}

static void test_maps(void)
{
	const char text[] = "5600-5700 r--p 00000000 08:01 123 /usr/bin/x y\n"
			    "5700-5800 r-xp 00001000 08:01 123 /usr/bin/x y\n"
			    "7f00-7f10 rw-p 00000000 00:00 0 \n"
			    "7ffc-7ffd r-xp 00000000 00:00 0                          [vdso]\n";
	struct proc_maps m = { 0 };

	is_int(proc_maps_parse(text, sizeof(text) - 1, false, &m), 0, "maps parse");
	ok(proc_maps_find(&m, 0x5750) == &m.v[1], "find inside a mapping");
	ok(proc_maps_find(&m, 0x5800) == NULL, "end is exclusive");
	ok(proc_maps_find(&m, 0x55ff) == NULL, "below the first: none");
	ok(proc_maps_find(&m, 0x7ffc) && !strcmp(proc_maps_find(&m, 0x7ffc)->path, "[vdso]"), "vdso found");
	proc_maps_free(&m);
}

static void test_names(void)
{
	struct sym_info libc = { .function = "__futex_wait", .module = "libc.so.6" };
	struct sym_info leaf = { .function = "leaf_wait", .module = "app" };
	struct sym_info start = { .function = "start_thread", .module = "libc.so.6" };
	struct stk_frame f[3] = { { .pc = 1, .sym = &libc }, { .pc = 2, .sym = &leaf }, { .pc = 3, .sym = &start } };
	struct stk_thread t = { .frames = f, .n_frames = 3 };
	char buf[128];
	stk_chain(&t, buf, sizeof(buf));
	is_str(buf, "leaf_wait <- start_thread", "chain starts at the program's own code");
	stk_chain(&t, buf, 8);
	is_int(strlen(buf), 7, "chain truncated to the buffer");
	struct sym_info spin = { .function = "spin", .module = "app" };
	struct stk_frame g[3] = { { .pc = 1, .sym = &spin }, { .pc = 2, .sym = &leaf }, { .pc = 3, .sym = &start } };
	struct stk_thread u = { .frames = g, .n_frames = 3 };
	stk_chain(&u, buf, sizeof(buf));
	is_str(buf, "spin <- leaf_wait <- start_thread", "a thread in the program's own code: chain from frame 0");
}

static void test_reused(void)
{
	struct target_id me, other;
	struct stk_opts o = { 0 };
	struct stk_dump *d = NULL;
	struct ps_error e;

	target_id_of(getpid(), &me, &e);
	other = me;
	other.starttime++;
	is_int(stk_dump_run(&other, &o, &d, &e), -ESRCH, "a PID now naming another process is refused");
	ok(d == NULL && strstr(e.msg, "reused"), "with a sentence saying so: %s", e.msg);
}

int main(void)
{
	test_owner();
	test_cycles();
	test_maps();
	test_names();
	test_reused();
	return tap_done();
}
