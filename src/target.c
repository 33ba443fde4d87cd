#include "target.h"
#include "doors/doors.h"
#include "i18n.h"
#include "proc/cmdline.h"
#include "proc/stat.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int stat_of(pid_t pid, int dirfd, struct proc_stat *st, struct ps_error *e)
{
	int r = proc_stat_read(dirfd, st);
	if (r < 0)
		return ps_error_set(e, ESRCH, _("process %d has exited"), (int)pid);
	return 0;
}

int target_id_of(pid_t pid, struct target_id *out, struct ps_error *e)
{
	struct proc_stat st;
	int fd = proc_open_pid(pid);
	int r;

	if (fd < 0)
		return ps_error_set(e, ESRCH, _("no process with PID %d"), (int)pid);
	r = stat_of(pid, fd, &st, e);
	close(fd);
	if (r < 0)
		return r;
	out->pid = pid;
	out->starttime = st.starttime;
	return 0;
}

bool target_is_kernel_thread(const struct target *t)
{
	struct proc_stat st;

	return proc_stat_read(t->dirfd, &st) == 0 && (st.flags & PROC_PF_KTHREAD);
}

bool target_id_equal(const struct target_id *a, const struct target_id *b)
{
	return a->pid == b->pid && a->starttime == b->starttime;
}

static void exec_of(int dirfd, const struct proc_stat *st, struct target_exec *x)
{
	struct stat sb;

	memset(x, 0, sizeof(*x));
	x->start_code = st->start_code;
	x->start_stack = st->start_stack;
	if (fstatat(dirfd, "exe", &sb, 0) == 0) {
		x->exe_dev = sb.st_dev;
		x->exe_ino = sb.st_ino;
	}
}

int target_open(struct target *t, pid_t pid, const struct target_id *want, struct ps_error *e)
{
	struct proc_stat st;
	struct stat sb;
	int r;

	memset(t, 0, sizeof(*t));
	t->pidfd = -1;
	t->dirfd = -1;
	if (pid <= 0)
		return ps_error_set(e, EINVAL, _("invalid PID %d"), (int)pid);
	/* pidfd first: it pins the process, so the /proc check below names it. */
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	t->dirfd = proc_open_pid(pid);
	if (t->dirfd < 0) {
		target_close(t);
		return ps_error_set(e, ESRCH, _("no process with PID %d"), (int)pid);
	}
	r = stat_of(pid, t->dirfd, &st, e);
	if (r < 0) {
		target_close(t);
		return r;
	}
	t->id.pid = pid;
	t->id.starttime = st.starttime;
	strlcpy_ps(t->comm, st.comm, sizeof(t->comm));
	exec_of(t->dirfd, &st, &t->exec);
	if (fstat(t->dirfd, &sb) == 0)
		t->uid = sb.st_uid;
	if (want && !target_id_equal(want, &t->id)) {
		target_close(t);
		return ps_error_set(e, ESRCH,
				    _("PID %d now names another process (the one selected has exited and its PID was reused)"),
				    (int)pid);
	}
	return 0;
}

int target_verify(const struct target *t, struct ps_error *e)
{
	struct proc_stat st;

	if (proc_stat_read(t->dirfd, &st) < 0 || st.starttime != t->id.starttime || st.state == 'X')
		return ps_error_set(e, ESRCH, _("process %d has exited"), (int)t->id.pid);
	if (st.state == 'Z')
		return ps_error_set(e, ESRCH, _("process %d is a zombie: it has exited and its parent (PID %d) has not reaped it"),
				    (int)t->id.pid, (int)st.ppid);
	return 0;
}

void target_close(struct target *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->dirfd >= 0)
		close(t->dirfd);
	t->pidfd = t->dirfd = -1;
}

int target_signal(const struct target_id *id, int sig, struct ps_error *e)
{
	struct target t;
	char what[96];
	int r;

	if (sigabbrev_np(sig))
		snprintf(what, sizeof(what), _("send SIG%s"), sigabbrev_np(sig));
	else
		snprintf(what, sizeof(what), _("send signal %d"), sig);
	/* target_open pins the process and proves it is the one chosen, not a
	 * newcomer with a reused pid. */
	if (target_open(&t, id->pid, id, NULL) < 0)
		return ps_error_set(e, ESRCH, _("process %d has exited (its PID may now name another process)"),
				    (int)id->pid);
	if (t.pidfd >= 0)
		r = (int)syscall(SYS_pidfd_send_signal, t.pidfd, sig, NULL, 0);
	else
		r = kill(id->pid, sig);
	r = r < 0 ? -errno : 0;
	target_close(&t);
	if (r < 0)
		return door_refused(e, PS_OP_SIGNAL, id->pid, -r, what);
	return 0;
}

int target_execd(const struct target *t, char *now_comm, size_t size)
{
	struct proc_stat st;
	struct target_exec x;

	if (proc_stat_read(t->dirfd, &st) < 0 || st.starttime != t->id.starttime)
		return -ESRCH;
	exec_of(t->dirfd, &st, &x);
	if (now_comm)
		strlcpy_ps(now_comm, st.comm, size);
	/* No memory image at all (stat shows start_code 0 only without an
	 * mm; 1 when we may not see it): the process is exiting, its memory
	 * already released and not yet a zombie. An exec swaps the image at
	 * once and never shows this. */
	if (!x.start_code && t->exec.start_code)
		return 0;
	/* exe gone since: the image was released between the stat read and
	 * this one (exiting), unless the stat figures changed too */
	if (!x.exe_ino && t->exec.exe_ino)
		return x.start_code != t->exec.start_code || x.start_stack != t->exec.start_stack;
	return memcmp(&x, &t->exec, sizeof(x)) != 0;
}

int target_exec_error(const struct target *t, const char *during, const char *now_comm, struct ps_error *e)
{
	return ps_error_set(e, ESTALE,
			    _("process %d exec'd during the %s (it now runs %s): nothing is shown, as it would mix two "
			      "programs; run it again"),
			    (int)t->id.pid, during, now_comm);
}

int target_read_list(const struct target_id *id, const char *file, char sep, char **out, size_t *len,
		     struct ps_error *e)
{
	pid_t pid = id->pid;
	char what[64];
	int dfd, r;

	*out = NULL;
	struct target_id now;
	if ((r = target_id_of(pid, &now, NULL)) < 0 || now.starttime != id->starttime)
		return ps_error_set(e, ESRCH, _("process %d has exited (its PID may now name another process)"), (int)pid);
	dfd = proc_open_pid(pid);
	if (dfd < 0)
		return ps_error_set(e, ESRCH, _("process %d has exited"), (int)pid);
	ssize_t n = proc_nul_list_read_at(dfd, file, sep, out);
	close(dfd);
	if (n < 0) {
		snprintf(what, sizeof(what), _("read /proc/%d/%s"), (int)pid, file);
		return door_refused(e, PS_OP_READ_PROC, pid, (int)-n, what);
	}
	if (len)
		*len = (size_t)n;
	return 0;
}
