/* Unit tests: the process table (parsers on fixtures, then the live table),
 * the system meters, formatting and signals. */
#include "tap.h"
#include "error.h"
#include "proc/ptable.h"
#include "proc/ptable-priv.h"
#include "source/snap.h"
#include "clock.h"
#include "target.h"
#include "proc/stat.h"
#include "proc/sysinfo.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_stat_fixtures(void)
{
	char buf[2048];
	struct proc_stat st;
	size_t n = tap_fixture("stat-korean.txt", buf, sizeof(buf));

	is_int(proc_stat_parse(buf, n, &st), 0, "stat with a Korean comm parses");
	is_str(st.comm, "\xed\x95\x9c\xea\xb5\xad\xec\x96\xb4\xec\x9d\xb4\xeb\xa6\x84", "Korean comm kept byte for byte");
	is_int(st.state, 'R', "state R");
	is_int(st.utime + st.stime, 375, "utime + stime");
	is_int(st.vsize, 2297856, "vsize");
	is_int(st.rss, 512, "rss");

	n = tap_fixture("stat-kthread-hostile.txt", buf, sizeof(buf));
	is_int(proc_stat_parse(buf, n, &st), 0, "stat with an escape sequence, ') (' and a newline in comm parses");
	is_str(st.comm, "\033]2;PWNED\a) (\n", "hostile comm kept raw up to the last ')'");
	is_int(st.state, 'Z', "state after the last ')'");
	is_int(st.ppid, 2, "ppid");
	ok(st.flags & PROC_PF_KTHREAD, "PF_KTHREAD flag read");
	is_int(st.priority, -51, "real-time priority");
	is_int(st.processor, 3, "processor");

	struct proc_statm sm;
	n = tap_fixture("statm.txt", buf, sizeof(buf));
	is_int(proc_statm_parse(buf, n, &sm), 0, "statm parses");
	is_int(sm.shared, 1482, "statm shared pages (SHR)");
	is_int(sm.resident, 3095, "statm resident pages");
}

static void test_cmdline(void)
{
	char buf[512], out[512];
	size_t n = tap_fixture("cmdline-hostile.bin", buf, sizeof(buf));

	is_int(proc_cmdline_parse(buf, n, out, sizeof(out)), 45, "hostile cmdline length without trailing NULs");
	is_str(out, "./hostile \033]2;PWNED-ARGV\a two\nlines\tand a tab", "NULs become spaces, the rest stays raw");
	n = tap_fixture("cmdline-korean.bin", buf, sizeof(buf));
	proc_cmdline_parse(buf, n, out, sizeof(out));
	is_str(out, "/usr/bin/\xed\x94\x84\xeb\xa1\x9c\xea\xb7\xb8\xeb\x9e\xa8 --\xed\x95\x9c\xea\xb8\x80", "Korean cmdline");
	is_int(proc_cmdline_parse("\0\0", 2, out, sizeof(out)), 0, "empty cmdline (kernel thread, zombie)");
	is_int(proc_cmdline_parse("abcdef", 6, out, 4), 3, "truncated to the buffer");
}

static void test_sys_parsers(void)
{
	char buf[4096];
	size_t n;
	struct sys_stat *st = calloc(1, sizeof(*st));
	struct sys_meminfo mi;
	struct sys_loadavg la;
	double up = 0, idle = 0;

	n = tap_fixture("sys-stat.txt", buf, sizeof(buf));
	is_int(sys_stat_parse(buf, n, st), 0, "/proc/stat parses");
	is_int(st->ncpu, 3, "three cpuN lines (cpu2 offline)");
	is_int(st->cpu_id[2], 3, "CPU ids kept: cpu3");
	is_int(st->total.user, 8844, "total user");
	is_int(st->total.steal, 402, "total steal");
	is_int(st->cpu[1].guest, 30, "cpu1 guest");
	is_int(st->procs_running, 3, "procs_running");
	is_int(st->btime, 1764508000, "btime");
	is_int(sys_stat_parse("intr 1 2\n", 9, st), -EINVAL, "no cpu line is refused");
	/* Parsed into a used struct: every field read afresh, the CPU
	 * entries past ncpu left alone (never touched: not resident). */
	memset(st, 0xff, sizeof(*st));
	is_int(sys_stat_parse(buf, n, st), 0, "/proc/stat parses into a used struct");
	is_int(st->ncpu, 3, "three cpuN lines again");
	is_int(st->cpu[1].guest, 30, "cpu1 guest again");
	is_int(st->ctxt, 352132, "ctxt again");
	is_int(st->cpu_id[3], -1, "the entry past the CPUs is left as it was");
	memset(st, 0xff, sizeof(*st));
	is_int(sys_stat_parse("cpu  1 2 3 4\n", 13, st), 0, "a /proc/stat of one line parses");
	ok(st->ncpu == 0 && st->ctxt == 0 && st->btime == 0 && st->procs_running == 0 && st->total.steal == 0,
	   "what the file lacks is 0, not what was there");
	free(st);

	n = tap_fixture("sys-meminfo.txt", buf, sizeof(buf));
	is_int(sys_meminfo_parse(buf, n, &mi), 0, "/proc/meminfo parses");
	is_int(mi.total, 24683656, "MemTotal");
	is_int(mi.available, 22111240, "MemAvailable");
	is_int(mi.used, 24683656 - 20450856 - 3988 - 1839296 - 60000, "used = total - free - buffers - cached - SReclaimable");
	is_int(mi.swap_total - mi.swap_free, 48572, "swap used");
	is_int(sys_meminfo_parse("Foo: 1 kB\n", 10, &mi), -EINVAL, "meminfo without MemTotal is refused");

	n = tap_fixture("sys-loadavg.txt", buf, sizeof(buf));
	is_int(sys_loadavg_parse(buf, n, &la), 0, "/proc/loadavg parses");
	ok(la.load[0] > 0.75 && la.load[0] < 0.77, "load 1 min");
	is_int(la.running, 2, "running entities");
	is_int(la.total, 100, "total entities");
	is_int(sys_loadavg_parse("x", 1, &la), -EINVAL, "garbage loadavg refused");

	n = tap_fixture("sys-uptime.txt", buf, sizeof(buf));
	is_int(sys_uptime_parse(buf, n, &up, &idle), 0, "/proc/uptime parses");
	ok(up > 93784 && up < 93785, "uptime seconds");
	is_int(sys_uptime_parse("5e86 1.00\n", 10, &up, &idle), -EINVAL, "uptime with an exponent refused");
	is_int(sys_uptime_parse("1e3\n", 4, &up, &idle), -EINVAL, "uptime 1e3 refused");
	is_int(sys_uptime_parse("inf 0\n", 6, &up, &idle), -EINVAL, "uptime inf refused");
	is_int(sys_uptime_parse("nan\n", 4, &up, &idle), -EINVAL, "uptime nan refused");
	is_int(sys_uptime_parse("-5.00 1\n", 8, &up, &idle), -EINVAL, "negative uptime refused");
	is_int(sys_uptime_parse("99999999999999999999.00 0\n", 26, &up, &idle), -EINVAL,
	       "uptime too large for any integer refused");
	is_int(sys_uptime_parse("12.50 3.25x", 11, &up, &idle), -EINVAL, "trailing garbage in idle refused");
	is_int(sys_uptime_parse("12.50", 5, &up, NULL), 0, "uptime without newline or idle");
	ok(up == 12.5, "uptime 12.50");
	is_int(sys_uptime_parse("3725.07 100.99\n", 15, &up, &idle), 0, "uptime and idle");
	ok(up > 3725.06 && up < 3725.08 && idle > 100.98 && idle < 101, "both fields");
	char ub[64];
	is_str(sys_fmt_uptime(up, ub, sizeof(ub)), "01:02:05", "uptime from the parser");
	n = tap_fixture("sys-uptime.txt", buf, sizeof(buf));
	is_int(sys_uptime_parse(buf, n, &up, &idle), 0, "/proc/uptime parses again");
	is_str(sys_fmt_uptime(up, ub, sizeof(ub)), "1 day, 02:03:04", "uptime with a day");
	is_str(sys_fmt_uptime(3725, ub, sizeof(ub)), "01:02:05", "uptime under a day");
	is_str(sys_fmt_uptime(3 * 86400, ub, sizeof(ub)), "3 days, 00:00:00", "days plural");

	struct sys_cpu_times a = { .user = 100, .system = 50, .idle = 850 };
	struct sys_cpu_times b = { .user = 200, .system = 100, .idle = 1700, .guest = 0 };
	struct sys_cpu_usage u;
	sys_cpu_usage(&a, &b, &u);
	ok(u.user > 0.099 && u.user < 0.101, "user fraction 10%%");
	ok(u.busy > 0.149 && u.busy < 0.151, "busy fraction 15%%");
	sys_cpu_usage(&b, &a, &u);
	ok(u.busy == 0, "counters going backwards give 0, not garbage");
}

static void test_format(void)
{
	char b[32];

	is_str(proc_fmt_kb(99999, b, sizeof(b)), "99999", "kB below 100000 shown as is");
	is_str(proc_fmt_kb(100000, b, sizeof(b)), "97M", "then MiB");
	is_str(proc_fmt_kb(3456000, b, sizeof(b)), "3375M", "MiB up to 9999M");
	is_str(proc_fmt_kb(13107200, b, sizeof(b)), "12.5G", "then GiB with a decimal");
	is_str(proc_fmt_kb(200ull * 1024 * 1024, b, sizeof(b)), "200G", "big GiB");
	is_str(proc_fmt_time(12345, 100, b, sizeof(b)), "2:03.45", "TIME+ minutes");
	is_str(proc_fmt_time(100 * 3725, 100, b, sizeof(b)), "1h02:05", "TIME+ hours");
	is_str(proc_fmt_time(100ull * 3600 * 150, 100, b, sizeof(b)), "150h", "TIME+ many hours");
	is_str(proc_fmt_pri(-100, b, sizeof(b)), "RT", "real-time PRI");
	is_str(proc_fmt_pri(20, b, sizeof(b)), "20", "normal PRI");
	is_int(proc_sort_parse("CPU%"), PSORT_CPU, "sort key by column title");
	is_int(proc_sort_parse("command"), PSORT_COMMAND, "sort key by name");
	is_int(proc_sort_parse("bogus"), -1, "unknown sort key");
	ok(proc_sort_desc_default(PSORT_MEM) && !proc_sort_desc_default(PSORT_PID), "numbers sort biggest first");
}

static void test_command(void)
{
	struct proc_row r;
	char b[256];

	memset(&r, 0, sizeof(r));
	strcpy(r.comm, "bash");
	r.cmdline = "/bin/bash -l";
	is_str(proc_row_command(&r, b, sizeof(b)), "/bin/bash -l", "cmdline when comm matches argv[0]");
	strcpy(r.comm, "\033]2;PWNED\a");
	r.cmdline = "./hostile x";
	is_str(proc_row_command(&r, b, sizeof(b)), "\033]2;PWNED\a\u2502./hostile x", "renamed: comm│cmdline");
	ok(proc_row_matches(&r, "pwned"), "search matches the comm, case-insensitively");
	ok(proc_row_matches(&r, "HOSTILE"), "search matches the cmdline");
	ok(!proc_row_matches(&r, "nothere"), "search misses");
	strcpy(r.comm, "kworker/0:1");
	r.cmdline = NULL;
	is_str(proc_row_command(&r, b, sizeof(b)), "kworker/0:1", "no cmdline: comm");
	strcpy(r.comm, "averyverylongna");
	r.cmdline = "/opt/averyverylongname --x";
	is_str(proc_row_command(&r, b, sizeof(b)), "/opt/averyverylongname --x", "15-byte comm matches a longer argv[0]");

	/* A command line the list cut: its whole length, digits grouped. */
	strcpy(r.comm, "sleep");
	r.cmdline = "sleep 1000 w1 w2";
	r.cmdline_cut = true;
	r.cmdline_len = 59583;
	is_str(proc_row_command_shown(&r, b, sizeof(b)), "sleep 1000 w1 w2 \u2026[59,583 bytes]", "cut: the mark with the length");
	r.cmdline_len = 1234567;
	is_str(proc_row_command_shown(&r, b, sizeof(b)), "sleep 1000 w1 w2 \u2026[1,234,567 bytes]", "cut: millions grouped");
	r.cmdline_len = 0;
	is_str(proc_row_command_shown(&r, b, sizeof(b)), "sleep 1000 w1 w2 \u2026[cut]", "cut, length unknown");
	r.cmdline_len = 5000;
	is_str(proc_row_command_shown(&r, b, 24), "sleep  \u2026[5,000 bytes]", "a small buffer keeps the whole mark");
	r.cmdline_cut = false;
	is_str(proc_row_command_shown(&r, b, sizeof(b)), "sleep 1000 w1 w2", "not cut: no mark");
}

static void *sleeper(void *arg)
{
	pause();
	return arg;
}

static unsigned long long my_ticks(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (unsigned long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 100 +
	       (unsigned long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 10000;
}

/* The table now as a snapshot, its rates against prev (dropped). */
static struct snap_list *snap_now(struct ptable *pt, bool threads, struct snap_list *prev)
{
	struct snap_list *s = snap_list_of(pt, threads, ptable_scan_ns(pt), 0, NULL);
	snap_list_rates(prev, s);
	snap_put(prev ? &prev->h : NULL);
	return s;
}

static void test_live(void)
{
	struct ptable *pt = ptable_new(&ps_clock_live);
	struct snap_list *snap;
	struct ps_error e;
	struct proc_view v = { 0 };
	pthread_t th;
	const struct proc_row *me;

	ok(pt != NULL, "ptable_new");
	is_int(ptable_scan(pt, false, &e), 0, "first scan");
	snap = snap_now(pt, false, NULL);
	me = ptable_find(pt, getpid());
	ok(me != NULL, "our own process is in the table");
	if (!me)
		return;
	is_str(me->comm, "test-list", "our comm");
	ok(me->cmdline && strstr(me->cmdline, "test-list"), "our cmdline read");
	is_int(me->uid, getuid(), "owner uid from /proc/PID");
	ok(me->user && me->user[0], "user name from the uid cache");
	ok(me->res_kb > 0 && me->virt_kb >= me->res_kb, "RES and VIRT");
	ok(ptable_find(pt, getppid()) != NULL, "our parent too");

	/* CPU% from deltas: burn at least 10 ticks of CPU between two scans. */
	unsigned long long t0 = my_ticks(), before = me->ticks;
	volatile unsigned long x = 0;
	while (my_ticks() < t0 + 10)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
	is_int(ptable_scan(pt, false, &e), 0, "second scan");
	snap = snap_now(pt, false, snap);
	me = ptable_find(pt, getpid());
	ok(me && me->ticks >= before + 5, "TIME+ ticks grew");
	const struct proc_row *ms = snap_list_find(snap, getpid());
	ok(ms && ms->cpu > 0, "CPU%% measured from the delta of two snapshots (%.1f)", ms ? ms->cpu : -1.0);
	ok(snap->interval > 0, "interval between the scans");

	/* A process that vanishes: it is simply gone after the next scan. */
	pid_t c = fork();
	if (c == 0) {
		pause();
		_exit(0);
	}
	ptable_scan(pt, false, &e);
	ok(ptable_find(pt, c) != NULL, "a new child is listed");
	const struct proc_row *cr = ptable_find(pt, c);
	ok(cr && cr->ppid == getpid(), "its ppid is us");
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	is_int(ptable_scan(pt, false, &e), 0, "a scan after the child vanished is not an error");
	ok(ptable_find(pt, c) == NULL, "the dead child is dropped");

	/* Tree order: our parent comes before us, one level shallower; of
	 * our two children only the one shown last is the last. */
	pid_t k[2];
	for (int i = 0; i < 2; i++)
		if ((k[i] = fork()) == 0) {
			pause();
			_exit(0);
		}
	ptable_scan(pt, false, &e);
	snap = snap_now(pt, false, snap);
	is_int(snap_list_order(snap, PSORT_PID, false, true, NULL, NULL, &v), 0, "tree order");
	int ip = proc_view_index(&v, getppid()), im = proc_view_index(&v, getpid());
	int k0 = proc_view_index(&v, k[0]), k1 = proc_view_index(&v, k[1]);
	ok(ip >= 0 && im > ip, "parent before child in the tree");
	ok(ip >= 0 && im >= 0 && v.v[im].depth == v.v[ip].depth + 1, "child one level deeper");
	ok(k0 > im && k1 > im && v.v[k0].depth == v.v[im].depth + 1 && v.v[k1].depth == v.v[k0].depth,
	   "our children right below us");
	if (k0 >= 0 && k1 >= 0) {
		int first = k0 < k1 ? k0 : k1, last = k0 < k1 ? k1 : k0;
		ok(!v.v[first].tree_last && v.v[last].tree_last, "only the last sibling is marked last");
	} else {
		ok(0, "only the last sibling is marked last");
	}
	is_int(v.n, ptable_size(pt), "every row appears once in the tree");
	for (int i = 0; i < 2; i++) {
		kill(k[i], SIGKILL);
		waitpid(k[i], NULL, 0);
	}

	/* Sorted order, descending. */
	is_int(snap_list_order(snap, PSORT_PID, true, false, NULL, NULL, &v), 0, "sorted order");
	bool sorted = true;
	for (size_t i = 1; i < v.n; i++)
		if (v.v[i - 1].r->pid < v.v[i].r->pid)
			sorted = false;
	ok(sorted, "PIDs descending");

	/* Threads on demand. */
	pthread_create(&th, NULL, sleeper, NULL);
	pthread_setname_np(th, "test-thread");
	ptable_scan(pt, true, &e);
	bool found = false;
	for (size_t i = 0; i < ptable_size(pt); i++) {
		const struct proc_row *r = ptable_row(pt, i);
		if (r->is_thread && r->tgid == getpid() && !strcmp(r->comm, "test-thread"))
			found = true;
	}
	ok(found, "thread row with its name when threads are on");
	ptable_scan(pt, false, &e);
	found = false;
	for (size_t i = 0; i < ptable_size(pt); i++)
		if (ptable_row(pt, i)->is_thread)
			found = true;
	ok(!found, "no thread rows when threads are off");

	/* Lazy scans: an idle child is skipped most of the time, but as soon
	 * as it burns CPU the next scan reads it (the CPU time is not
	 * accounted for by the processes read). */
	int go[2];
	if (pipe(go) == 0) {
		pid_t busy = fork();
		if (busy == 0) {
			char ch;
			close(go[1]);
			if (read(go[0], &ch, 1) == 1)
				for (volatile unsigned long z = 0;; z++)
					;
			_exit(0);
		}
		close(go[0]);
		struct ptable_stats s0, s1;
		for (int i = 0; i < 6; i++) {
			ptable_scan(pt, false, &e);
			snap = snap_now(pt, false, snap);
		}
		ptable_stats(pt, &s0);
		ok(s0.skipped > 0, "idle processes are skipped (%lu skipped reads)", s0.skipped);
		const struct proc_row *br = snap_list_find(snap, busy);
		ok(br && br->cpu == 0, "the idle child shows no CPU");
		if (write(go[1], "x", 1) != 1)
			ok(0, "start the child");
		/* let it burn 30 ticks, measured by the kernel */
		char bpath[64], bbuf[1024];
		struct proc_stat bst;
		snprintf(bpath, sizeof(bpath), "/proc/%d/stat", (int)busy);
		for (int i = 0; i < 3000; i++) {
			ssize_t bn = read_file_at(AT_FDCWD, bpath, bbuf, sizeof(bbuf));
			if (bn > 0 && proc_stat_parse(bbuf, (size_t)bn, &bst) == 0 && bst.utime + bst.stime >= 30)
				break;
			usleep(10000);
		}
		ptable_scan(pt, false, &e);
		snap = snap_now(pt, false, snap);
		br = snap_list_find(snap, busy);
		ok(br && br->cpu > 0, "a skipped process that starts burning CPU shows at the next scan (%.1f%%)",
		   br ? br->cpu : -1.0);
		ok(br && br->ticks >= 30, "with its TIME+ up to date");
		ptable_stats(pt, &s1);
		kill(busy, SIGKILL);
		waitpid(busy, NULL, 0);
		close(go[1]);
		ptable_scan(pt, false, &e);
		ok(ptable_find(pt, busy) == NULL, "and it is gone once it exits");
	}

	/* A new process that drops to nobody (setresuid, no exec, no rename)
	 * shows as nobody's at once: the owner is checked at a row's first
	 * two re-reads (then at every 16th). */
	int dropped[2], hold[2];
	if (getuid() == 0 && pipe(dropped) == 0 && pipe(hold) == 0) {
		pid_t u = fork();
		if (u == 0) {
			char hold_go;
			close(dropped[0]);
			close(hold[1]);
			/* root until the first scan has seen it */
			if (read(hold[0], &hold_go, 1) != 1)
				_exit(2);
			if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
				_exit(3);
			if (write(dropped[1], "x", 1) != 1)
				_exit(4);
			pause();
			_exit(0);
		}
		close(dropped[1]);
		char ch;
		ptable_scan(pt, false, &e);
		const struct proc_row *ur = ptable_find(pt, u);
		bool was_root = ur && ur->uid == 0;
		/* the first scan saw it as root's: now let it drop */
		close(hold[0]);
		if (write(hold[1], "x", 1) != 1)
			ok(0, "let the child drop");
		close(hold[1]);
		ok(read(dropped[0], &ch, 1) == 1, "the child dropped to nobody");
		close(dropped[0]);
		int scans = 0;
		for (; scans < 2; scans++) {
			ptable_scan(pt, false, &e);
			ur = ptable_find(pt, u);
			if (ur && ur->uid == 65534)
				break;
		}
		printf("# seen as root first: %d; nobody after %d scans\n", was_root, scans + 1);
		ok(was_root, "first seen as root's");
		ok(ur && ur->uid == 65534, "an owner changed without exec shows within two scans (%d)", scans + 1);
		kill(u, SIGKILL);
		waitpid(u, NULL, 0);
	} else {
		ok(1, "# SKIP needs root to drop to nobody");
		ok(1, "# SKIP needs root to drop to nobody");
		ok(1, "# SKIP needs root to drop to nobody");
	}

	/* SHR on demand */
	ptable_fill_shr(pt, getpid());
	me = ptable_find(pt, getpid());
	ok(me->shr_kb > 0, "SHR from statm");

	proc_view_free(&v);
	snap_put(&snap->h);
	ptable_free(pt);
}

static void test_signal(void)
{
	struct ps_error e;
	struct proc_stat st;
	int status = 0, fds[2];
	pid_t c = fork();

	if (c == 0) {
		pause();
		_exit(0);
	}
	usleep(10000);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d", (int)c);
	int dfd = open(path, O_RDONLY | O_DIRECTORY);
	proc_stat_read(dfd, &st);
	close(dfd);
	is_int(target_signal(&(struct target_id){ c, st.starttime + 1 }, SIGTERM, &e), -ESRCH, "a different start time is refused");
	ok(kill(c, 0) == 0, "and the process was not signalled");
	is_int(target_signal(&(struct target_id){ c, st.starttime }, SIGTERM, &e), 0, "signal sent to the right identity");
	waitpid(c, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "the process got SIGTERM");
	is_int(target_signal(&(struct target_id){ c, st.starttime }, SIGTERM, &e), -ESRCH, "a reaped process: ESRCH");

	/* Refused: an unprivileged child signals pid 1. */
	if (getuid() != 0 || pipe(fds) < 0) {
		ok(1, "# SKIP needs root to drop to nobody");
		return;
	}
	dfd = open("/proc/1", O_RDONLY | O_DIRECTORY);
	proc_stat_read(dfd, &st);
	close(dfd);
	c = fork();
	if (c == 0) {
		close(fds[0]);
		if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(3);
		int r = target_signal(&(struct target_id){ 1, st.starttime }, 0, &e);
		char msg[1024];
		snprintf(msg, sizeof(msg), "%d %d %s", r, (int)e.door, e.msg);
		if (write(fds[1], msg, strlen(msg)) < 0)
			_exit(4);
		_exit(0);
	}
	close(fds[1]);
	char msg[1024] = "";
	ssize_t n = read(fds[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(c, NULL, 0);
	int r = 0, door = 0;
	sscanf(msg, "%d %d", &r, &door);
	is_int(r, -EPERM, "signal to another user's process refused with EPERM");
	is_int(door, DOOR_SIGNAL, "through the signal door (%s)", msg);
}

/* An idle process is re-read about every 12 s, whatever the refresh. */
static void test_lazy_period(void)
{
	is_int((int)ptable_lazy_period_(0), 8, "before the interval is known: every 8th scan");
	is_int((int)ptable_lazy_period_(1.5), 8, "1.5 s refresh (default): every 8th scan");
	is_int((int)ptable_lazy_period_(1.0), 12, "1 s: every 12th");
	is_int((int)ptable_lazy_period_(0.1), 120, "0.1 s: every 120th");
	is_int((int)ptable_lazy_period_(10.0), 1, "10 s: every scan");
	is_int((int)ptable_lazy_period_(60.0), 1, "60 s: every scan");
	is_int((int)ptable_lazy_period_(0.0001), 250, "a burst of scans: at most every 250th");
}

/* An exiting process releases its memory before it turns zombie: for a
 * while (long with a big heap) stat shows no image and /proc/PID/exe is
 * gone. That is an exit, never an exec. */
static void test_exiting_not_execd(void)
{
	struct ps_error e;
	struct target t;
	int fds[2];
	const size_t big = 256u << 20;

	if (pipe(fds) < 0)
		return;
	pid_t c = fork();
	if (c == 0) {
		char *m = malloc(big);
		if (m)
			memset(m, 1, big);
		if (write(fds[1], "x", 1) != 1)
			_exit(2);
		pause();
		_exit(0);
	}
	char ch;
	close(fds[1]);
	ok(read(fds[0], &ch, 1) == 1, "a child with 256 MiB resident");
	close(fds[0]);
	ps_error_clear(&e);
	is_int(target_open(&t, c, NULL, &e), 0, "target opened");
	is_int(target_execd(&t, NULL, 0), 0, "running: not exec'd");
	kill(c, SIGKILL);
	int execd = 0, polls = 0, zombie = 0;
	for (; polls < 100000 && !zombie; polls++) {
		struct proc_stat st;
		execd += target_execd(&t, NULL, 0) == 1;
		zombie = proc_stat_read(t.dirfd, &st) == 0 && (st.state == 'Z' || st.state == 'X');
	}
	printf("# %d polls until the zombie\n", polls);
	ok(zombie, "the child became a zombie");
	is_int(execd, 0, "exiting and zombie: never reported as exec'd");
	is_int(target_execd(&t, NULL, 0), 0, "the zombie: not exec'd");
	waitpid(c, NULL, 0);
	ok(target_execd(&t, NULL, 0) < 0, "reaped: gone (-ESRCH)");
	target_close(&t);
}

int main(void)
{
	test_lazy_period();
	test_exiting_not_execd();
	test_stat_fixtures();
	test_cmdline();
	test_sys_parsers();
	test_format();
	test_command();
	test_live();
	test_signal();
	return tap_done();
}
