/* Reaping the snapshot child from inside the target; the watchdog (see
 * reaper.h). */
#include "core/reaper.h"
#include "i18n.h"
#include "core/maps.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_KIDS 64

enum { MSG_CHILD = 1, MSG_DONE = 2 };

struct msg {
	int type;
	pid_t child, child_ns;
};

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* ---- stopping one thread ---- */

/* The lowest address injection frames may use for a thread whose stack
 * pointer is sp: the start of its (writable) mapping, past a guard page. */
static uint64_t stack_floor(pid_t pid, uint64_t sp)
{
	char path[64], *buf = NULL;
	size_t cap = 0;
	struct core_maps m;
	uint64_t lo = UINT64_MAX;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	ssize_t n = read_file_alloc_at(AT_FDCWD, path, &buf, &cap);
	if (n > 0 && core_maps_parse(buf, (size_t)n, &m) == 0) {
		for (size_t i = 0; i < m.n; i++)
			if (sp > m.v[i].start && sp <= m.v[i].end && m.v[i].w)
				lo = m.v[i].start + 4096;
		core_maps_free(&m);
	}
	free(buf);
	return lo;
}

/* Seize and interrupt tid, into a PTRACE_EVENT_STOP (a signal arriving
 * first is delivered, not lost). 0, or -errno with nothing left traced. */
static int stop_one(pid_t tid)
{
	int st;
	uint64_t deadline = now_ns() + 2000000000ull;

	for (;;) {
		if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) == 0)
			break;
		/* EPERM: a dying pscope may not have let go yet. */
		if (errno != EPERM || now_ns() > deadline)
			return -errno;
		sleep_ms(5);
	}
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0)
		goto fail;
	for (;;) {
		pid_t w = waitpid(tid, &st, __WALL | WNOHANG);
		if (w < 0 && errno != EINTR)
			return -ESRCH;
		if (w == tid) {
			if (!WIFSTOPPED(st))
				return -ESRCH;
			if ((st >> 16) == PTRACE_EVENT_STOP)
				return 0;
			/* A signal-delivery stop: deliver it, stop right after. */
			int sig = (st >> 16) ? 0 : WSTOPSIG(st);
			ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
			if (ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig) < 0)
				goto fail;
			continue;
		}
		if (now_ns() > deadline)
			goto fail;
		sleep_ms(1);
	}
fail:
	ptrace(PTRACE_DETACH, tid, NULL, NULL);
	return -EAGAIN;
}

static long reap_in(pid_t pid, pid_t tid, const struct inject_site *site, pid_t child_ns, struct ps_error *e)
{
	struct inject ij;
	struct user_regs_struct regs;
	struct iovec iov = { &regs, sizeof(regs) };
	uint64_t args[6] = { (uint64_t)child_ns, 0, __WALL | WNOHANG, 0, 0, 0 };
	long ret = -ESRCH;
	int r = stop_one(tid);

	if (r < 0)
		return r;
	r = -EFAULT;
	if (ptrace(PTRACE_GETREGSET, tid, (void *)1 /* NT_PRSTATUS */, &iov) == 0) {
		uint64_t lo = stack_floor(pid, regs.rsp);
		r = inject_begin(&ij, tid, site, lo == UINT64_MAX ? regs.rsp : lo, true, e);
		if (r == -EPERM || r == -EINVAL) /* no CAP_SYS_ADMIN: no seccomp suspension */
			r = inject_begin(&ij, tid, site, lo == UINT64_MAX ? regs.rsp : lo, false, e);
		if (r == 0) {
			ps_test_pause("reap-ready");
			r = inject_syscall(&ij, SYS_wait4, args, &ret, NULL, e);
			inject_end(&ij);
			inject_free(&ij);
		}
	}
	ptrace(PTRACE_DETACH, tid, NULL, NULL);
	return r < 0 ? r : ret;
}

long reaper_reap(pid_t pid, pid_t tid, const struct inject_site *site, pid_t child_ns, struct ps_error *e)
{
	long r = reap_in(pid, tid, site, child_ns, e);
	char path[64];

	if (r != -ESRCH && r != -EAGAIN)
		return r;
	/* That thread is gone or would not stop: any other. */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		pid_t t = (pid_t)atoi(de->d_name);
		if (t <= 0 || t == tid)
			continue;
		r = reap_in(pid, t, site, child_ns, e);
		if (r != -ESRCH && r != -EAGAIN)
			break;
	}
	if (d)
		closedir(d);
	return r;
}

/* ---- the watchdog ---- */

/* The children of thread tid (as /proc/PID/task/TID/children lists them). */
static int children_of(pid_t pid, pid_t tid, pid_t *out, int max)
{
	char path[96], buf[4096];
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)tid);
	ssize_t len = read_file_at(AT_FDCWD, path, buf, sizeof(buf));
	for (char *p = buf; len > 0 && *p && n < max;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		out[n++] = (pid_t)v;
		p = end;
	}
	return n;
}

/* State letter and exit signal (stat field 38) of process p; 0 if gone. */
static char proc_state(pid_t p, int *exit_signal)
{
	char path[64], buf[1024];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
	if (read_file_at(AT_FDCWD, path, buf, sizeof(buf)) <= 0)
		return 0;
	char *q = strrchr(buf, ')');
	if (!q || q[1] != ' ')
		return 0;
	if (exit_signal) {
		/* Fields from 3 (state) on; exit_signal is field 38. */
		char *f = q + 2;
		*exit_signal = -1;
		for (int k = 3; f && k < 38; k++) {
			f = strchr(f, ' ');
			if (f)
				f++;
		}
		if (f)
			*exit_signal = atoi(f);
	}
	return q[2];
}

/* Wait for p to be a zombie (or gone); with kill_it, SIGKILL it if it
 * does not die by itself. Returns its state ('Z', or 0 when gone). */
static char await_zombie(pid_t p, bool kill_it)
{
	struct target_id id;
	char s = 0;

	if (target_id_of(p, &id, NULL) < 0)
		return proc_state(p, NULL);
	for (int tries = 0; tries < 400 && (s = proc_state(p, NULL)) && s != 'Z'; tries++) {
		if (tries == 200 && kill_it)
			target_signal(&id, SIGKILL, NULL);
		sleep_ms(5);
	}
	return s;
}

/* The tracer of p (0: none), -1 when p is gone. */
static int tracer_of(pid_t p)
{
	char path[64], buf[2048];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)p);
	if (read_file_at(AT_FDCWD, path, buf, sizeof(buf)) <= 0)
		return -1;
	char *q = strstr(buf, "\nTracerPid:");
	return q ? atoi(q + 11) : 0;
}

/* Reap the zombie p (child_ns in the process's namespace) from inside the
 * process. The watchdog learns of pscope's death when its descriptors
 * close, before the kernel has let go of its tracees: until then a zombie
 * it traced is kept for it, and the process's wait4 finds nothing to reap
 * (measured: one random SIGKILL in a hundred left a zombie that way).
 * Wait for the zombie to be untraced, and try again while it is there. */
static void reap_zombie(const struct target_id *id, pid_t tid, const struct inject_site *site, pid_t p, pid_t child_ns)
{
	for (int tries = 0; tries < 400 && tracer_of(p) > 0; tries++)
		sleep_ms(5);
	for (int tries = 0; tries < 20; tries++) {
		long r = reaper_reap(id->pid, tid, site, child_ns, NULL);
		if (r != 0 || proc_state(p, NULL) != 'Z')
			return;
		sleep_ms(50);
	}
}

static pid_t ns_pid(pid_t p)
{
	char path[64], buf[2048];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)p);
	if (read_file_at(AT_FDCWD, path, buf, sizeof(buf)) <= 0)
		return 0;
	char *q = strstr(buf, "\nNSpid:");
	if (!q)
		return p;
	pid_t last = p;
	for (q += 7; *q && *q != '\n';) {
		char *end;
		long v = strtol(q, &end, 10);
		if (end == q)
			break;
		last = (pid_t)v;
		q = end;
	}
	return last;
}

static void watchdog(int fd, struct target_id id, pid_t tid, struct inject_site site, const pid_t *before, int nbefore)
{
	struct msg m;
	pid_t child = 0, child_ns = 0;

	for (;;) {
		ssize_t n = read(fd, &m, sizeof(m));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(m))
			break;
		if (m.type == MSG_DONE)
			_exit(0);
		if (m.type == MSG_CHILD) {
			child = m.child;
			child_ns = m.child_ns;
		}
	}
	/* pscope is gone mid-snapshot. The target's identity first. */
	struct target t;
	if (target_open(&t, id.pid, &id, NULL) < 0)
		_exit(0);
	target_close(&t);
	if (child) {
		/* Ours for sure: it dies by itself (EXITKILL), or is killed. */
		if (await_zombie(child, true) == 'Z')
			reap_zombie(&id, tid, &site, child, child_ns ? child_ns : ns_pid(child));
		_exit(0);
	}
	/* pscope died around the clone: the thread may still be on its way
	 * through it (it runs on by itself when the tracer is gone, and an
	 * untraced child exits at once). Watch for a new child of that
	 * thread with exit signal 0 for a while; only reap, never kill. */
	pid_t done[MAX_KIDS];
	int ndone = 0;
	for (int round = 0; round < 150; round++) {
		pid_t now[MAX_KIDS];
		int nn = children_of(id.pid, tid, now, MAX_KIDS);
		for (int i = 0; i < nn; i++) {
			bool old = false;
			int es = -1;
			for (int j = 0; j < nbefore; j++)
				old |= before[j] == now[i];
			for (int j = 0; j < ndone; j++)
				old |= done[j] == now[i];
			if (old || !proc_state(now[i], &es) || es != 0 || ndone == MAX_KIDS)
				continue;
			done[ndone++] = now[i];
			if (await_zombie(now[i], false) == 'Z')
				reap_zombie(&id, tid, &site, now[i], ns_pid(now[i]));
		}
		if (ndone)
			break;
		sleep_ms(20);
	}
	_exit(0);
}

int reaper_start(struct reaper *r, const struct target *t, pid_t tid, const struct inject_site *site,
		 struct ps_error *e)
{
	int p[2];
	pid_t before[MAX_KIDS];
	int nbefore = children_of(t->id.pid, tid, before, MAX_KIDS);

	r->pid = 0;
	r->fd = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0)
		return ps_error_set(e, errno, "socketpair: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		close(p[0]);
		close(p[1]);
		return ps_error_set(e, err, _("cannot start the snapshot watchdog: %s"), strerror(err));
	}
	if (pid == 0) {
		struct target_id id = t->id;
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		if (dup2(p[0], 3) < 0)
			_exit(1);
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
		}
		unsetenv("PSCOPE_TEST_PAUSE");
		syscall(SYS_close_range, 4u, ~0u, 0u);
		watchdog(3, id, tid, *site, before, nbefore);
		_exit(0);
	}
	close(p[0]);
	r->pid = pid;
	r->fd = p[1];
	return 0;
}

static void send_msg(struct reaper *r, int type, pid_t child, pid_t child_ns)
{
	struct msg m = { .type = type, .child = child, .child_ns = child_ns };

	if (r->fd >= 0 && send(r->fd, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m)) {
		/* The watchdog is gone: nothing to tell. */
	}
}

void reaper_child(struct reaper *r, pid_t child, pid_t child_ns)
{
	send_msg(r, MSG_CHILD, child, child_ns);
}

void reaper_done(struct reaper *r)
{
	if (!r->pid)
		return;
	send_msg(r, MSG_DONE, 0, 0);
	close(r->fd);
	r->fd = -1;
	while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
		;
	r->pid = 0;
}
