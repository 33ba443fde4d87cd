/* freeze: every thread of a real target stops, registers come back, and
 * afterwards every thread runs on with TracerPid 0. */
#include "tap.h"
#include "freeze.h"
#include "target.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t spawn(const char *name, char *const argv1[], int *outfd)
{
	char path[4096];
	const char *dir = getenv("TARGETS");
	int p[2];

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/targets", name);
	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[8] = { path };
		for (int i = 0; argv1[i] && i < 6; i++)
			argv[i + 1] = argv1[i];
		dup2(p[1], 1);
		close(p[0]);
		execv(path, argv);
		_exit(127);
	}
	close(p[1]);
	/* Wait for "ready". */
	char buf[256];
	size_t off = 0;
	while (off < sizeof(buf) - 1) {
		ssize_t n = read(p[0], buf + off, sizeof(buf) - 1 - off);
		if (n <= 0)
			break;
		off += (size_t)n;
		buf[off] = 0;
		if (strstr(buf, "ready"))
			break;
	}
	*outfd = p[0];
	return pid;
}

/* Every thread of pid out of t/T and TracerPid 0. */
static int runs_on_now(pid_t pid)
{
	char cmd[128], buf[4096];
	int bad = 0;

	snprintf(cmd, sizeof(cmd), "grep TracerPid /proc/%d/status; cat /proc/%d/task/*/stat 2>/dev/null", (int)pid, (int)pid);
	FILE *f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		char *rp = strrchr(buf, ')');
		if (!strncmp(buf, "TracerPid:", 10))
			bad += atoi(buf + 10) != 0;
		else if (rp && (rp[2] == 't' || rp[2] == 'T'))
			bad++;
	}
	pclose(f);
	return bad == 0;
}

/* Every thread out of tracing stop, TracerPid 0 -- polled (cap 20 s): the
 * detach is done when freeze_release returns, but a thread woken on
 * another CPU shows 't' until that CPU takes the wakeup, which on a busy
 * machine (or a VM whose other CPU is not running) can take a while. */
static int runs_on(pid_t pid)
{
	for (int i = 0; i < 400; i++) {
		if (runs_on_now(pid))
			return 1;
		usleep(50000);
	}
	return 0;
}

static long count_tasks(pid_t pid)
{
	char cmd[128], buf[64];
	snprintf(cmd, sizeof(cmd), "ls /proc/%d/task | wc -l", (int)pid);
	FILE *f = popen(cmd, "r");
	long n = -1;
	if (f && fgets(buf, sizeof(buf), f))
		n = atol(buf);
	if (f)
		pclose(f);
	return n;
}

static int state_of(pid_t pid, pid_t tid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	int st = '?';
	if (f && fgets(buf, sizeof(buf), f)) {
		char *rp = strrchr(buf, ')');
		if (rp)
			st = rp[2];
	}
	if (f)
		fclose(f);
	return st;
}

/* Wait (polled, 20 s cap) until no thread of pid is runnable: "ready" is
 * printed just before the last threads reach their blocking call, and on a
 * loaded machine a freeze right after it may catch one on its way. */
static int settle(pid_t pid)
{
	char cmd[160], buf[64];

	snprintf(cmd, sizeof(cmd), "cat /proc/%d/task/*/stat 2>/dev/null | sed 's/.*) //' | cut -c1 | grep -c R",
		 (int)pid);
	for (int i = 0; i < 400; i++) {
		FILE *f = popen(cmd, "r");
		long running = -1;
		if (f && fgets(buf, sizeof(buf), f))
			running = atol(buf);
		if (f)
			pclose(f);
		if (running == 0)
			return 1;
		usleep(50000);
	}
	return 0;
}

/* The children of pid's threads (its vfork child), "" if none. */
static void children_of(pid_t pid, char *buf, size_t size)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "cat /proc/%d/task/*/children 2>/dev/null | tr -s ' ' '\\n' | grep .", (int)pid);
	buf[0] = '\0';
	FILE *f = popen(cmd, "r");
	if (f) {
		size_t n = fread(buf, 1, size - 1, f);
		buf[n] = '\0';
		pclose(f);
	}
}

static void test_basic(void)
{
	char *args[] = { "16", NULL };
	int fd;
	pid_t pid = spawn("stack-threads", args, &fd);
	struct target t;
	struct ps_error e;
	struct freeze fz;

	ok(pid > 0, "target started");
	ok(settle(pid), "every thread of the target blocks");
	is_int(target_open(&t, pid, NULL, &e), 0, "target opens");
	long ntasks = count_tasks(pid);
	is_int(freeze_stop(&fz, &t, NULL, &e), 0, "freeze_stop succeeds");
	is_int(fz.n, ntasks, "every thread is in the table (%ld)", ntasks);
	int all_stopped = 1, all_t = 1, regs = 1, futex = 0;
	for (size_t i = 0; i < fz.n; i++) {
		all_stopped &= fz.threads[i].stopped && !fz.threads[i].skipped;
		all_t &= state_of(pid, fz.threads[i].tid) == 't';
		regs &= fz.threads[i].regs.rip != 0 && fz.threads[i].regs.rsp != 0;
		futex += fz.threads[i].syscall_nr == 202;
	}
	ok(all_stopped, "every thread stopped");
	ok(all_t, "every thread is in tracing stop while frozen");
	ok(regs, "every thread has pc and sp");
	is_int(futex, 16, "16 workers wait in futex");
	uint64_t word = 0;
	is_int(freeze_read(&fz, fz.threads[0].regs.rsp, &word, sizeof(word)), 8, "stack memory readable");
	freeze_release(&fz);
	freeze_release(&fz);
	ok(freeze_pause_ms(&fz) > 0, "pause measured (%.2f ms)", freeze_pause_ms(&fz));
	ok(runs_on(pid), "target runs on after release, TracerPid 0");
	freeze_free(&fz);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	target_close(&t);
	close(fd);
}

static void test_churn(void)
{
	char *args[] = { "4", "--churn", NULL };
	int fd;
	pid_t pid = spawn("stack-threads", args, &fd);
	struct target t;
	struct ps_error e;
	struct freeze fz;
	int good = 1, checked = 0;

	target_open(&t, pid, NULL, &e);
	for (int round = 0; round < 20; round++) {
		int rc = freeze_stop(&fz, &t, NULL, &e);
		if (rc == -EAGAIN) { /* outpaced by the thread births: said, not wrong */
			printf("# round %d: %s\n", round, e.msg);
			continue;
		}
		checked++;
		if (rc < 0) {
			printf("# round %d: %s\n", round, e.msg);
			good = 0;
			break;
		}
		/* Threads found are all stopped; none was left out. */
		long frozen = 0;
		for (size_t i = 0; i < fz.n; i++)
			frozen += fz.threads[i].stopped;
		long now = count_tasks(pid);
		if (now != frozen) {
			printf("# round %d: %ld tasks, %ld frozen\n", round, now, frozen);
			good = 0;
		}
		freeze_free(&fz);
	}
	ok(good && checked > 0, "a target creating threads: every thread found while frozen (%d of 20 rounds)", checked);
	ok(runs_on(pid), "churning target runs on");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	target_close(&t);
	close(fd);
}

static void test_dstate(void)
{
	char *args[] = { "2", "--dstate", NULL };
	int fd;
	pid_t pid = spawn("stack-threads", args, &fd);
	struct target t;
	struct ps_error e;
	struct freeze fz;
	struct freeze_opts o = { .deadline_ms = 100 };

	ok(settle(pid), "every thread blocks, one in vfork");
	target_open(&t, pid, NULL, &e);
	is_int(freeze_stop(&fz, &t, &o, &e), 0, "freeze with a thread in D state");
	int skipped = 0, skipped_d = 0;
	for (size_t i = 0; i < fz.n; i++)
		if (fz.threads[i].skipped) {
			skipped++;
			skipped_d += state_of(pid, fz.threads[i].tid) == 'D';
			printf("# skipped %d: %s\n", fz.threads[i].tid, fz.threads[i].skipped);
		}
	is_int(skipped, 1, "one thread is reported and skipped");
	is_int(skipped_d, 1, "it is the D-state thread");
	freeze_free(&fz);
	ok(runs_on(pid), "target runs on after release");
	/* Its vfork child is killed: the thread that was stuck leaves D state
	 * and must not fall into a stop for a tracer that is gone; it goes
	 * round its loop (a new child appears). */
	char first[256], now[256];
	children_of(pid, first, sizeof(first));
	pid_t child = (pid_t)atol(first);
	ok(child > 0, "the vfork child is there (%d)", (int)child);
	if (child > 0)
		kill(child, SIGKILL);
	int again = 0;
	for (int i = 0; i < 1200 && !again; i++) {
		children_of(pid, now, sizeof(now));
		int lines = 0;
		for (const char *c = now; *c; c++)
			lines += *c == '\n';
		again = lines >= 2; /* the killed one (a zombie: never reaped) and a new one */
		if (!again)
			usleep(50000);
	}
	ok(again, "the once-stuck thread woke and vforked again");
	ok(runs_on(pid), "the once-stuck thread runs on after leaving D state");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	target_close(&t);
	close(fd);
}

static void test_gone(void)
{
	struct target t;
	struct ps_error e;
	struct freeze fz;
	char *args[] = { "1", NULL };
	int fd;
	pid_t pid = spawn("stack-threads", args, &fd);

	target_open(&t, pid, NULL, &e);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	is_int(freeze_stop(&fz, &t, NULL, &e), -ESRCH, "a process gone is refused with ESRCH");
	freeze_free(&fz);
	target_close(&t);
	close(fd);
}

int main(void)
{
	test_basic();
	test_churn();
	test_dstate();
	test_gone();
	return tap_done();
}
