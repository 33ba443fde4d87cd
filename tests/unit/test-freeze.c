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
static int runs_on(pid_t pid)
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

static void test_basic(void)
{
	char *args[] = { "16", NULL };
	int fd;
	pid_t pid = spawn("stack-threads", args, &fd);
	struct target t;
	struct ps_error e;
	struct freeze fz;

	ok(pid > 0, "target started");
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

	target_open(&t, pid, NULL, &e);
	is_int(freeze_stop(&fz, &t, &o, &e), 0, "freeze with a thread in D state");
	int skipped = 0;
	for (size_t i = 0; i < fz.n; i++)
		if (fz.threads[i].skipped) {
			skipped++;
			printf("# skipped %d: %s\n", fz.threads[i].tid, fz.threads[i].skipped);
		}
	is_int(skipped, 1, "the D-state thread is reported and skipped");
	freeze_free(&fz);
	ok(runs_on(pid), "target runs on after release");
	/* After the vfork child exits, the thread that was stuck must not
	 * fall into a stop for a tracer that is gone. */
	sleep(4);
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
