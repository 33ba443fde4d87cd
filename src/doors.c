#include "doors.h"
#include "proc/status.h"
#include "util.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const door_names[DOOR_COUNT] = {
	[DOOR_NONE] = "none",
	[DOOR_PROC_READ] = "ptrace read access to /proc/PID",
	[DOOR_PTRACE_UID] = "CAP_SYS_PTRACE (process of another user)",
	[DOOR_PTRACE_SCOPE] = "kernel.yama.ptrace_scope",
	[DOOR_PTRACE_TRACED] = "already traced",
	[DOOR_DUMPABLE] = "target not dumpable",
	[DOOR_PERF_PARANOID] = "kernel.perf_event_paranoid",
	[DOOR_PERF_CAP] = "CAP_PERFMON",
	[DOOR_SECCOMP] = "seccomp",
	[DOOR_SIGNAL] = "CAP_KILL (signal to another user's process)",
	[DOOR_FILESYSTEM] = "filesystem",
};

static const char *const op_names[PS_OP_COUNT] = {
	[PS_OP_READ_PROC] = "read /proc",
	[PS_OP_READ_MEM] = "read memory",
	[PS_OP_ATTACH] = "attach (ptrace)",
	[PS_OP_SAMPLE] = "sample (perf_event_open)",
	[PS_OP_CORE] = "write a core",
	[PS_OP_SIGNAL] = "send a signal",
};

const char *door_name(enum ps_door d)
{
	return (unsigned)d < DOOR_COUNT && door_names[d] ? door_names[d] : "?";
}

const char *ps_op_name(enum ps_op op)
{
	return (unsigned)op < PS_OP_COUNT ? op_names[op] : "?";
}

void door_sys_read(struct door_sys *s)
{
	if (read_long_file("/proc/sys/kernel/yama/ptrace_scope", &s->ptrace_scope) < 0)
		s->ptrace_scope = -1;
	if (read_long_file("/proc/sys/kernel/perf_event_paranoid", &s->perf_paranoid) < 0)
		s->perf_paranoid = -1;
	if (read_long_file("/proc/sys/kernel/kptr_restrict", &s->kptr_restrict) < 0)
		s->kptr_restrict = -1;
	if (read_long_file("/proc/sys/kernel/perf_event_max_sample_rate", &s->perf_max_sample_rate) < 0)
		s->perf_max_sample_rate = -1;
}

bool door_have_cap(int cap)
{
	struct proc_status st;
	int fd = proc_open_pid(getpid());
	bool ok = false;

	if (fd < 0)
		return false;
	if (proc_status_read(fd, &st) == 0)
		ok = (st.cap_eff >> cap) & 1;
	close(fd);
	return ok;
}

/* Fill e with door + fix; keeps e->msg as already formatted. */
static void set_door(struct ps_error *e, enum ps_door d, const char *fmt_fix, ...)
	__attribute__((format(printf, 3, 4)));
static void set_door(struct ps_error *e, enum ps_door d, const char *fmt_fix, ...)
{
	va_list ap;
	e->door = d;
	va_start(ap, fmt_fix);
	vsnprintf(e->fix, sizeof(e->fix), fmt_fix, ap);
	va_end(ap);
}

static int explain_ptrace(struct ps_error *e, enum ps_op op, pid_t pid, int err, const char *what,
			  const struct proc_status *st, bool have_st)
{
	struct door_sys sys;
	bool cap_ptrace = door_have_cap(CAP_SYS_PTRACE);

	door_sys_read(&sys);
	if (have_st && st->tracer_pid > 0 && st->tracer_pid != getpid()) {
		char comm[64] = "?";
		int fd = proc_open_pid(st->tracer_pid);
		if (fd >= 0) {
			if (read_file_at(fd, "comm", comm, sizeof(comm)) > 0)
				comm[strcspn(comm, "\n")] = '\0';
			close(fd);
		}
		ps_error_set(e, err, "cannot %s: process %d is already traced by PID %d (%s)", what,
			     (int)pid, (int)st->tracer_pid, comm);
		set_door(e, DOOR_PTRACE_TRACED,
			 "detach the other tracer (quit gdb/strace on PID %d) and try again",
			 (int)st->tracer_pid);
		return -err;
	}
	if (have_st && st->uid_real != getuid() && !cap_ptrace) {
		ps_error_set(e, err, "cannot %s: process %d belongs to uid %u and we are uid %u without CAP_SYS_PTRACE",
			     what, (int)pid, (unsigned)st->uid_real, (unsigned)getuid());
		set_door(e, DOOR_PTRACE_UID,
			 "run pscope as root or as uid %u, or grant it CAP_SYS_PTRACE (setcap cap_sys_ptrace+ep pscope)",
			 (unsigned)st->uid_real);
		return -err;
	}
	if (op != PS_OP_READ_PROC && sys.ptrace_scope >= 1 && !cap_ptrace) {
		ps_error_set(e, err, "cannot %s: kernel.yama.ptrace_scope is %ld (%s)", what, sys.ptrace_scope,
			     sys.ptrace_scope == 1   ? "only a parent may attach to its descendants"
			     : sys.ptrace_scope == 2 ? "only CAP_SYS_PTRACE may attach"
						     : "no attaching at all");
		if (sys.ptrace_scope >= 3)
			set_door(e, DOOR_PTRACE_SCOPE, "ptrace_scope 3 cannot be lowered until reboot: set kernel.yama.ptrace_scope=1 at boot (sysctl.d) and reboot");
		else
			set_door(e, DOOR_PTRACE_SCOPE, "sysctl -w kernel.yama.ptrace_scope=0, or run pscope with CAP_SYS_PTRACE (root)");
		return -err;
	}
	if (have_st && !cap_ptrace) {
		ps_error_set(e, err, "cannot %s: process %d is not dumpable (setuid, or PR_SET_DUMPABLE 0)", what, (int)pid);
		set_door(e, DOOR_DUMPABLE, "run pscope as root (CAP_SYS_PTRACE)");
		return -err;
	}
	ps_error_set(e, err, "cannot %s: %s", what, strerror(err));
	if (err == EPERM || err == EACCES)
		set_door(e, op == PS_OP_READ_PROC ? DOOR_PROC_READ : DOOR_PTRACE_UID, "run pscope as root");
	return -err;
}

static int explain_perf(struct ps_error *e, pid_t pid, int err, const char *what)
{
	struct door_sys sys;
	bool cap = door_have_cap(38 /* CAP_PERFMON */) || door_have_cap(CAP_SYS_ADMIN);

	door_sys_read(&sys);
	if (sys.perf_paranoid >= 3 && !cap) {
		ps_error_set(e, err, "cannot %s: kernel.perf_event_paranoid is %ld (Debian: no perf_event_open for unprivileged users)",
			     what, sys.perf_paranoid);
		set_door(e, DOOR_PERF_PARANOID, "sysctl -w kernel.perf_event_paranoid=2 (user-space sampling of your own processes), or grant CAP_PERFMON, or run as root");
		return -err;
	}
	struct proc_status st;
	int fd = proc_open_pid(pid);
	bool foreign = false;
	if (fd >= 0) {
		if (proc_status_read(fd, &st) == 0)
			foreign = st.uid_real != getuid();
		close(fd);
	}
	if (foreign && !cap && !door_have_cap(CAP_SYS_PTRACE)) {
		ps_error_set(e, err, "cannot %s: process %d belongs to another user; perf_event_open needs ptrace access to it", what, (int)pid);
		set_door(e, DOOR_PERF_CAP, "run pscope as root or grant CAP_PERFMON and CAP_SYS_PTRACE");
		return -err;
	}
	ps_error_set(e, err, "cannot %s: perf_event_open refused (%s), kernel.perf_event_paranoid is %ld", what,
		     strerror(err), sys.perf_paranoid);
	set_door(e, DOOR_PERF_PARANOID, "sysctl -w kernel.perf_event_paranoid=1, or grant CAP_PERFMON, or run as root");
	return -err;
}

int door_refused(struct ps_error *e, enum ps_op op, pid_t pid, int err, const char *what)
{
	struct proc_status st;
	bool have_st = false;
	int fd;

	if (err < 0)
		err = -err;
	if (err == ESRCH || err == ENOENT)
		return ps_error_set(e, ESRCH, "cannot %s: process %d has exited", what, (int)pid);
	if (err != EPERM && err != EACCES)
		return ps_error_set(e, err, "cannot %s: %s", what, strerror(err));

	fd = proc_open_pid(pid);
	if (fd >= 0) {
		have_st = proc_status_read(fd, &st) == 0;
		close(fd);
	}
	switch (op) {
	case PS_OP_SAMPLE:
		return explain_perf(e, pid, err, what);
	case PS_OP_SIGNAL:
		ps_error_set(e, err, "cannot %s: process %d belongs to another user", what, (int)pid);
		set_door(e, DOOR_SIGNAL, "run pscope as root or as the process owner (CAP_KILL)");
		return -err;
	default:
		return explain_ptrace(e, op, pid, err, what, &st, have_st);
	}
}
