/* Freeze: SEIZE + INTERRUPT every thread, wait with a deadline, read the
 * registers, let go. See freeze.h and DESIGN.md ("Stack dump"). */
#include "freeze.h"
#include "i18n.h"
#include "doors/doors.h"
#include "proc/stat.h"
#include "util.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif
#define XSTATE_MAX (16 * 1024)
#define MAX_ROUNDS 64

enum tracer_phase { PH_STOPPING, PH_FROZEN, PH_HELD, PH_RELEASE, PH_DONE };

struct freeze_tracer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	enum tracer_phase phase;
	int rc;
	struct ps_error err;
	struct freeze_opts opts;
	struct freeze *fz;
};

static bool cancelled(const struct freeze_opts *o)
{
	return o->cancel && atomic_load_explicit(o->cancel, memory_order_relaxed);
}

static struct frozen_thread *find(struct freeze *fz, pid_t tid)
{
	for (size_t i = 0; i < fz->n; i++)
		if (fz->threads[i].tid == tid)
			return &fz->threads[i];
	return NULL;
}

static struct frozen_thread *add(struct freeze *fz, pid_t tid)
{
	if (array_reserve((void **)&fz->threads, &fz->cap, fz->n, sizeof(*fz->threads), 64) < 0)
		return NULL;
	struct frozen_thread *th = &fz->threads[fz->n++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->syscall_nr = -1;
	return th;
}

/* State, name and wchan of a thread just before we stop it. */
static void read_task_info(struct freeze *fz, struct frozen_thread *th)
{
	char path[64], buf[1024];
	struct proc_stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "task/%d/stat", (int)th->tid);
	n = read_file_at(fz->target->dirfd, path, buf, sizeof(buf));
	if (n > 0 && proc_stat_parse(buf, (size_t)n, &st) == 0) {
		th->state = st.state;
		strlcpy_ps(th->name, st.comm, sizeof(th->name));
	} else {
		th->state = '?';
	}
	snprintf(path, sizeof(path), "task/%d/wchan", (int)th->tid);
	n = read_file_at(fz->target->dirfd, path, th->wchan, sizeof(th->wchan));
	if (n <= 0)
		strlcpy_ps(th->wchan, "?", sizeof(th->wchan));
}

/* Add the threads not seen yet; returns how many were new, or -errno. */
static int scan(struct freeze *fz)
{
	int fd = openat(fz->target->dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int added = 0;

	if (fd < 0)
		return -errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		int err = errno;
		close(fd);
		return -err;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		if (*end || tid <= 0 || find(fz, (pid_t)tid))
			continue;
		struct frozen_thread *th = add(fz, (pid_t)tid);
		if (!th) {
			closedir(d);
			return -ENOMEM;
		}
		read_task_info(fz, th);
		added++;
	}
	closedir(d);
	return added;
}

static void drop(struct freeze *fz, size_t i)
{
	free(fz->threads[i].xstate);
	memmove(&fz->threads[i], &fz->threads[i + 1], (fz->n - i - 1) * sizeof(fz->threads[0]));
	fz->n--;
}

/* Interpret one waitpid status for th. Returns true when th is settled
 * (stopped, or gone). */
static bool took_status(struct frozen_thread *th, int status)
{
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		th->seized = false;
		th->skipped = _("exited during the snapshot");
		return true;
	}
	if (!WIFSTOPPED(status))
		return false;
	th->stopped = true;
	/* A signal-delivery-stop came before our interrupt: hand the signal
	 * back on detach, or it would be lost. PTRACE_EVENT_STOP (interrupt
	 * or group stop) has status>>16 set and needs nothing re-injected. */
	if ((status >> 16) == 0)
		th->resume_sig = WSTOPSIG(status);
	return true;
}

static void fill_syscall(struct frozen_thread *th)
{
	const struct user_regs_struct *r = &th->regs;

	th->syscall_nr = (long)r->orig_rax;
	/* The same text the kernel shows in /proc/PID/task/TID/syscall. */
	if (th->syscall_nr < 0)
		snprintf(th->syscall, sizeof(th->syscall), "-1 0x%llx 0x%llx", r->rsp, r->rip);
	else
		snprintf(th->syscall, sizeof(th->syscall),
			 "%ld 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx", th->syscall_nr,
			 r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9, r->rsp, r->rip);
}

static void read_regs(struct frozen_thread *th, bool core)
{
	struct iovec iov = { &th->regs, sizeof(th->regs) };

	if (ptrace(PTRACE_GETREGSET, th->tid, (void *)NT_PRSTATUS, &iov) < 0) {
		th->skipped = _("registers unreadable");
		return;
	}
	fill_syscall(th);
	if (!core)
		return;
	iov.iov_base = &th->fpregs;
	iov.iov_len = sizeof(th->fpregs);
	th->have_fpregs = ptrace(PTRACE_GETREGSET, th->tid, (void *)NT_PRFPREG, &iov) == 0;
	th->xstate = malloc(XSTATE_MAX);
	if (th->xstate) {
		iov.iov_base = th->xstate;
		iov.iov_len = XSTATE_MAX;
		if (ptrace(PTRACE_GETREGSET, th->tid, (void *)NT_X86_XSTATE, &iov) == 0) {
			th->xstate_len = iov.iov_len;
			void *shrunk = realloc(th->xstate, iov.iov_len);
			if (shrunk)
				th->xstate = shrunk;
		} else {
			free(th->xstate);
			th->xstate = NULL;
		}
	}
	th->have_siginfo = ptrace(PTRACE_GETSIGINFO, th->tid, NULL, &th->siginfo) == 0;
}

/* A thread's state letter from task/TID/stat: 0 when the thread is gone,
 * '?' when it cannot be read. */
static char task_state(struct freeze *fz, pid_t tid)
{
	char path[64], buf[1024];
	struct proc_stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "task/%d/stat", (int)tid);
	n = read_file_at(fz->target->dirfd, path, buf, sizeof(buf));
	if (n == -ENOENT || n == -ESRCH)
		return 0;
	return n > 0 && proc_stat_parse(buf, (size_t)n, &st) == 0 ? st.state : '?';
}

/* Whether a thread that has not stopped yet is on its way to the stop:
 * the interrupt woke it and it waits for a CPU (R), or the wakeup is still
 * queued for its CPU (it shows S until that CPU takes it). On a loaded
 * machine that can take longer than the deadline; it is no reason to
 * leave the thread out. A thread in D (uninterruptible sleep) is. */
static bool still_on_its_way(struct freeze *fz, pid_t tid)
{
	char s = task_state(fz, tid);
	return s == 'R' || s == 'S';
}

/* Wait for the threads [from, n) to stop until the deadline; read each
 * one's registers as soon as it stops, while the others are still on
 * their way. waitpid(tid) is a direct lookup (waitpid(-1) would walk every
 * tracee at each call): poll the pending threads round-robin, in bursts,
 * and sleep when a burst finds none stopped, leaving the CPU to the
 * threads on their way to the stop. Threads still running at the deadline
 * are marked skipped. */
static void wait_stops(struct freeze *fz, size_t from, const struct freeze_opts *o)
{
	enum { BURST = 64 };
	uint64_t wait_ns = (uint64_t)(o->deadline_ms > 0 ? o->deadline_ms : 500) * 1000000ull;
	uint64_t deadline = now_ns() + wait_ns;
	/* Threads on their way to the stop are waited for past the deadline, up
	 * to ten times it. */
	uint64_t hard = deadline + 9 * wait_ns;
	size_t *pend = malloc((fz->n - from + 1) * sizeof(*pend));
	size_t np = 0, cur = 0;

	if (!pend)
		return;
	for (size_t i = from; i < fz->n; i++)
		if (fz->threads[i].seized && !fz->threads[i].stopped)
			pend[np++] = i;
	while (np && !cancelled(o)) {
		size_t hits = 0;
		for (size_t k = 0; k < BURST && np; k++) {
			if (cur >= np)
				cur = 0;
			struct frozen_thread *th = &fz->threads[pend[cur]];
			int status;
			pid_t r = waitpid(th->tid, &status, __WALL | WNOHANG);
			bool done = false;
			if (r == th->tid)
				done = took_status(th, status);
			else if (r < 0 && errno == ECHILD) {
				th->seized = false;
				th->skipped = _("exited during the snapshot");
				done = true;
			}
			if (!done) {
				cur++;
				continue;
			}
			if (th->stopped)
				read_regs(th, o->core_regs);
			pend[cur] = pend[--np]; /* order does not matter much */
			hits++;
		}
		if (hits)
			continue;
		if (now_ns() >= deadline) {
			bool runnable = false;
			for (size_t k = 0; k < np && !runnable; k++)
				runnable = still_on_its_way(fz, fz->threads[pend[k]].tid);
			if (!runnable || now_ns() >= hard)
				break;
			deadline = now_ns() + 10 * 1000000ull; /* look again in 10 ms */
		}
		struct timespec ts = { 0, 200 * 1000 };
		nanosleep(&ts, NULL);
	}
	for (size_t k = 0; k < np; k++) {
		struct frozen_thread *th = &fz->threads[pend[k]];
		th->skipped = th->state == 'D' ? _("did not stop before the deadline (D state: uninterruptible sleep)")
					       : _("did not stop before the deadline");
	}
	free(pend);
}

/* Detach every stopped thread; seized ones still running are left to the
 * exit of the tracer thread. */
static void detach_all(struct freeze *fz)
{
	for (size_t i = 0; i < fz->n; i++) {
		struct frozen_thread *th = &fz->threads[i];
		if (th->seized && !th->stopped) {
			int status;
			if (waitpid(th->tid, &status, __WALL | WNOHANG) == th->tid)
				took_status(th, status);
		}
		if (th->seized && th->stopped) {
			ptrace(PTRACE_DETACH, th->tid, NULL, (void *)(long)th->resume_sig);
			th->seized = false;
		}
	}
	fz->t_released_ns = now_ns();
}

/* Each interrupt and detach wakes a thread of the target, which would
 * preempt us on a busy machine and stretch the pause: from the first
 * interrupt to the last detach, run above normal threads when allowed
 * (root; otherwise this does nothing). In between, this thread only
 * sleeps or makes short syscalls. */
static void realtime(bool on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };
	pthread_setschedparam(pthread_self(), on ? SCHED_FIFO : SCHED_OTHER, &sp);
}

/* Whether a thread that refused PTRACE_SEIZE with EPERM has exited: the
 * kernel refuses a thread that is dying (exit_state set) while it is still
 * listed in task/ -- a thread that exits as it is found, not a permission. */
static bool exiting(struct freeze *fz, pid_t tid)
{
	char s = task_state(fz, tid);
	return !s || s == 'Z' || s == 'X';
}

static int stop_all(struct freeze *fz, const struct freeze_opts *o, struct ps_error *e)
{
	pid_t pid = fz->target->id.pid;
	int r;

	for (fz->rounds = 1;; fz->rounds++) {
		size_t from = fz->n;
		r = scan(fz);
		if (r < 0) {
			if (r == -ENOENT || r == -ESRCH)
				return door_refused(e, PS_OP_ATTACH, pid, ESRCH, _("stop the threads"));
			return ps_error_set(e, -r, _("cannot list the threads of process %d: %s"), (int)pid, strerror(-r));
		}
		if (r == 0)
			break;
		if (fz->rounds > MAX_ROUNDS)
			return ps_error_set(e, EAGAIN, _("process %d keeps creating threads faster than they can be stopped (%zu so far)"),
					    (int)pid, fz->n);
		/* Seize all first (it does not stop anything), then interrupt
		 * all: the pause starts at the first interrupt. */
		for (size_t i = from; i < fz->n; i++) {
			struct frozen_thread *th = &fz->threads[i];
			if (ptrace(PTRACE_SEIZE, th->tid, NULL, NULL) == 0) {
				th->seized = true;
				continue;
			}
			int err = errno;
			if ((err == ESRCH || (err == EPERM && exiting(fz, th->tid))) && th->tid != pid)
				continue; /* exited meanwhile: dropped below */
			char what[64];
			snprintf(what, sizeof(what), _("attach to thread %d"), (int)th->tid);
			return door_refused(e, PS_OP_ATTACH, pid, err, th->tid == pid ? _("attach") : what);
		}
		realtime(true);
		for (size_t i = from; i < fz->n; i++) {
			struct frozen_thread *th = &fz->threads[i];
			if (!th->seized)
				continue;
			if (!fz->t_first_interrupt_ns)
				fz->t_first_interrupt_ns = now_ns();
			if (ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL) < 0)
				th->skipped = _("exited during the snapshot");
		}
		wait_stops(fz, from, o);
		if (cancelled(o))
			return ps_error_set(e, ECANCELED, _("cancelled"));
		for (size_t i = from; i < fz->n;) {
			if (!fz->threads[i].seized && !fz->threads[i].stopped)
				drop(fz, i);
			else
				i++;
		}
	}
	if (!find(fz, pid) && fz->n == 0)
		return door_refused(e, PS_OP_ATTACH, pid, ESRCH, _("stop the threads"));
	return 0;
}

static void *tracer_main(void *p)
{
	struct freeze_tracer *tr = p;
	struct freeze *fz = tr->fz;
	struct ps_error err;
	int rc;

	ps_error_clear(&err);
	rc = stop_all(fz, &tr->opts, &err);
	if (rc == 0 && tr->opts.on_frozen)
		tr->opts.on_frozen(fz, tr->opts.on_frozen_arg);
	if (rc < 0 || tr->opts.release_early) {
		detach_all(fz);
		realtime(false);
	}
	pthread_mutex_lock(&tr->lock);
	tr->rc = rc;
	tr->err = err;
	if (rc < 0 || (tr->opts.release_early && !tr->opts.hold_tracer))
		tr->phase = PH_DONE;
	else
		tr->phase = tr->opts.release_early ? PH_HELD : PH_FROZEN;
	pthread_cond_broadcast(&tr->cond);
	while (tr->phase == PH_FROZEN || tr->phase == PH_HELD)
		pthread_cond_wait(&tr->cond, &tr->lock);
	pthread_mutex_unlock(&tr->lock);
	if (rc == 0 && !tr->opts.release_early)
		detach_all(fz);
	/* Returning ends this thread: the kernel detaches whatever is still
	 * seized (threads that never stopped). */
	return NULL;
}

static void tracer_end(struct freeze *fz)
{
	struct freeze_tracer *tr = fz->tracer;

	if (!tr)
		return;
	pthread_mutex_lock(&tr->lock);
	if (tr->phase == PH_FROZEN || tr->phase == PH_HELD)
		tr->phase = PH_RELEASE;
	pthread_cond_broadcast(&tr->cond);
	pthread_mutex_unlock(&tr->lock);
	pthread_join(tr->thread, NULL);
	pthread_cond_destroy(&tr->cond);
	pthread_mutex_destroy(&tr->lock);
	free(tr);
	fz->tracer = NULL;
	for (size_t i = 0; i < fz->n; i++)
		fz->threads[i].seized = false;
	fz->released = true;
}

int freeze_stop(struct freeze *fz, struct target *t, const struct freeze_opts *o, struct ps_error *e)
{
	struct freeze_opts none = { 0 };
	struct freeze_tracer *tr;
	int r;

	memset(fz, 0, sizeof(*fz));
	fz->target = t;
	r = target_verify(t, e);
	if (r < 0)
		return r;
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	tr->opts = o ? *o : none;
	tr->fz = fz;
	tr->phase = PH_STOPPING;
	pthread_mutex_init(&tr->lock, NULL);
	pthread_cond_init(&tr->cond, NULL);
	r = pthread_create(&tr->thread, NULL, tracer_main, tr);
	if (r) {
		pthread_cond_destroy(&tr->cond);
		pthread_mutex_destroy(&tr->lock);
		free(tr);
		return ps_error_set(e, r, _("cannot start the tracer thread: %s"), strerror(r));
	}
	fz->tracer = tr;
	pthread_mutex_lock(&tr->lock);
	while (tr->phase == PH_STOPPING)
		pthread_cond_wait(&tr->cond, &tr->lock);
	r = tr->rc;
	if (r < 0 && e)
		*e = tr->err;
	pthread_mutex_unlock(&tr->lock);
	if (r < 0) {
		tracer_end(fz);
		return r;
	}
	/* The pid may have been reused between target_open and the seize:
	 * refuse the snapshot of a stranger. */
	r = target_verify(t, e);
	if (r < 0) {
		tracer_end(fz);
		return r;
	}
	return 0;
}

ssize_t freeze_read(struct freeze *fz, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(fz->target->id.pid, &local, 1, &remote, 1, 0);

	return n < 0 ? -errno : n;
}

void freeze_release(struct freeze *fz)
{
	if (!fz || fz->released)
		return;
	tracer_end(fz);
	fz->released = true;
	if (!fz->t_released_ns)
		fz->t_released_ns = now_ns();
}

double freeze_pause_ms(const struct freeze *fz)
{
	if (!fz->t_first_interrupt_ns || fz->t_released_ns < fz->t_first_interrupt_ns)
		return 0;
	return (double)(fz->t_released_ns - fz->t_first_interrupt_ns) / 1e6;
}

void freeze_free(struct freeze *fz)
{
	if (!fz)
		return;
	freeze_release(fz);
	for (size_t i = 0; i < fz->n; i++)
		free(fz->threads[i].xstate);
	free(fz->threads);
	fz->threads = NULL;
	fz->n = fz->cap = 0;
}
