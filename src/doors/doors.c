/* Doors: the wording of every refusal, and what each kernel knob means. The
 * probes and the report live in probe.c, the tool table and the
 * rendering in text.c. */
#include "doors/doors.h"
#include "i18n.h"
#include "proc/stat.h"
#include "proc/status.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static const char *const op_names[PS_OP_COUNT] = {
	[PS_OP_READ_PROC] = N_("read /proc"),
	[PS_OP_READ_IO] = N_("read I/O counters"),
	[PS_OP_READ_MEM] = N_("read memory"),
	[PS_OP_ATTACH] = N_("attach (ptrace)"),
	[PS_OP_SAMPLE] = N_("sample (perf_event_open)"),
	[PS_OP_CORE] = N_("write a core"),
	[PS_OP_SIGNAL] = N_("send a signal"),
};

static const char *const cap_names[DOOR_CAP_LAST + 1] = {
	"cap_chown", "cap_dac_override", "cap_dac_read_search", "cap_fowner", "cap_fsetid",
	"cap_kill", "cap_setgid", "cap_setuid", "cap_setpcap", "cap_linux_immutable",
	"cap_net_bind_service", "cap_net_broadcast", "cap_net_admin", "cap_net_raw",
	"cap_ipc_lock", "cap_ipc_owner", "cap_sys_module", "cap_sys_rawio", "cap_sys_chroot",
	"cap_sys_ptrace", "cap_sys_pacct", "cap_sys_admin", "cap_sys_boot", "cap_sys_nice",
	"cap_sys_resource", "cap_sys_time", "cap_sys_tty_config", "cap_mknod", "cap_lease",
	"cap_audit_write", "cap_audit_control", "cap_setfcap", "cap_mac_override",
	"cap_mac_admin", "cap_syslog", "cap_wake_alarm", "cap_block_suspend", "cap_audit_read",
	"cap_perfmon", "cap_bpf", "cap_checkpoint_restore",
};

const char *ps_op_name(enum ps_op op)
{
	return (unsigned)op < PS_OP_COUNT ? _(op_names[op]) : "?";
}

const char *door_cap_name(int cap)
{
	static __thread char buf[16];

	if (cap >= 0 && cap <= DOOR_CAP_LAST)
		return cap_names[cap];
	snprintf(buf, sizeof(buf), "cap_%d", cap);
	return buf;
}

const char *door_ptrace_scope_meaning(long v)
{
	switch (v) {
	case -1: return _("Yama not present: ptrace is limited by uid, dumpable and capabilities only");
	case 0: return _("classic: any process of the same uid may be attached");
	case 1: return _("restricted: only an ancestor (or a process the target named with PR_SET_PTRACER) may attach, unless CAP_SYS_PTRACE");
	case 2: return _("admin-only: only CAP_SYS_PTRACE may attach");
	case 3: return _("no attach: nobody may attach, not even root, until reboot");
	default: return _("unknown value");
	}
}

const char *door_perf_paranoid_meaning(long v, bool debian_kernel)
{
	if (v < -1)
		return _("unknown value");
	switch (v) {
	case -1: return _("no restrictions: users may use CPU-wide events, kernel profiling and raw tracepoints");
	case 0: return _("users may profile their processes and CPUs, user and kernel, but not raw tracepoints");
	case 1: return _("users may profile their own processes, user and kernel space; no CPU-wide events without CAP_PERFMON");
	case 2: return _("users may profile their own processes in user space only (no kernel frames, no CPU-wide events) without CAP_PERFMON");
	default:
		return debian_kernel ? _("Debian/Ubuntu kernel: no perf_event_open at all for users without CAP_PERFMON")
				     : _("this kernel treats it as 2 (only Debian/Ubuntu kernels forbid users entirely at 3)");
	}
}

const char *door_kptr_restrict_meaning(long v)
{
	switch (v) {
	case -1: return _("absent");
	case 0: return _("kernel addresses (/proc/kallsyms) shown to everyone allowed to read them");
	case 1: return _("kernel addresses hidden (shown as 0) from users without CAP_SYSLOG");
	case 2: return _("kernel addresses hidden from everyone, root included");
	default: return _("unknown value");
	}
}

const char *door_suid_dumpable_meaning(long v)
{
	switch (v) {
	case -1: return _("absent");
	case 0: return _("processes that changed credentials (setuid/setgid) are not dumpable");
	case 1: return _("every process is dumpable (debug: insecure)");
	case 2: return _("setuid processes dump cores readable by root only; /proc/PID stays root's");
	default: return _("unknown value");
	}
}

const char *door_seccomp_meaning(int mode)
{
	switch (mode) {
	case 0: return _("none");
	case 1: return _("strict (read, write, exit only)");
	case 2: return _("filter (a BPF filter decides each syscall)");
	default: return _("unknown");
	}
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

static bool self_status(struct proc_status *st)
{
	int fd = proc_open_pid(getpid());
	bool ok;

	if (fd < 0)
		return false;
	ok = proc_status_read(fd, st) == 0;
	close(fd);
	return ok;
}

bool door_have_cap(int cap)
{
	struct proc_status st;

	if (cap < 0 || cap > 63 || !self_status(&st))
		return false;
	return (st.cap_eff >> cap) & 1;
}

bool door_have_perfmon(void)
{
	return door_have_cap(CAP_PERFMON) || door_have_cap(CAP_SYS_ADMIN);
}

static bool debian_kernel(void)
{
	struct utsname u;
	return uname(&u) == 0 && (strstr(u.version, "Debian") || strstr(u.version, "Ubuntu"));
}

int door_target_dumpable(int dirfd, uid_t euid)
{
	struct stat sb;

	if (euid == 0)
		return -1;
	/* Not /proc/PID itself: world-readable directories keep the owner. */
	if (fstatat(dirfd, "stat", &sb, 0) < 0)
		return -1;
	return sb.st_uid == 0 ? 0 : 1;
}

/* Fill e with door + fix; keeps e->msg as already formatted. */
static void set_door(struct ps_error *e, enum ps_door d, const char *fmt_fix, ...)
	__attribute__((format(printf, 3, 4)));
static void set_door(struct ps_error *e, enum ps_door d, const char *fmt_fix, ...)
{
	va_list ap;

	if (!e)
		return;
	e->door = d;
	va_start(ap, fmt_fix);
	vsnprintf(e->fix, sizeof(e->fix), fmt_fix, ap);
	va_end(ap);
}

/* What we know of the target when a refusal comes back. */
struct victim {
	pid_t pid;
	int dirfd;                 /* /proc/PID or -1 */
	bool have_st;
	struct proc_status st;
};

static void tracer_comm(pid_t tracer, char *comm, size_t size)
{
	int fd = proc_open_pid(tracer);

	strlcpy_ps(comm, "?", size);
	if (fd < 0)
		return;
	if (read_file_at(fd, "comm", comm, size) > 0)
		comm[strcspn(comm, "\n")] = '\0';
	close(fd);
}

/* Is tid one of pscope's own threads (a tracer thread of a running job)? */
static bool our_thread(pid_t tid)
{
	char path[48];
	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	return access(path, F_OK) == 0;
}

/* The uid/gid rule of ptrace access: our uid must equal the target's real,
 * effective and saved uid, and likewise for gids, or we need
 * CAP_SYS_PTRACE. Fills e and returns true when it is what refused us. */
static bool explain_ids(struct ps_error *e, const struct victim *v, int err, const char *what,
			const char *cap_fix)
{
	const struct proc_status *st = &v->st;
	uid_t me = getuid();
	gid_t my_gid = getgid();

	if (st->uid_real != me) {
		ps_error_set(e, err, _("cannot %s: process %d belongs to uid %u and we are uid %u without CAP_SYS_PTRACE"),
			     what, (int)v->pid, (unsigned)st->uid_real, (unsigned)me);
		set_door(e, DOOR_PTRACE_UID, _("run pscope as root or as uid %u, or grant it %s"), (unsigned)st->uid_real,
			 cap_fix);
		return true;
	}
	if (st->uid_eff != me || st->uid_saved != me) {
		ps_error_set(e, err, _("cannot %s: process %d switched uids (real %u, effective %u, saved %u: a setuid program) and we are uid %u without CAP_SYS_PTRACE"),
			     what, (int)v->pid, (unsigned)st->uid_real, (unsigned)st->uid_eff,
			     (unsigned)st->uid_saved, (unsigned)me);
		set_door(e, DOOR_PTRACE_UID, _("run pscope as root, or grant it %s"), cap_fix);
		return true;
	}
	if (st->gid_real != my_gid || st->gid_eff != my_gid || st->gid_saved != my_gid) {
		ps_error_set(e, err, _("cannot %s: process %d runs with gids (real %u, effective %u, saved %u) other than ours (%u) and we lack CAP_SYS_PTRACE"),
			     what, (int)v->pid, (unsigned)st->gid_real, (unsigned)st->gid_eff,
			     (unsigned)st->gid_saved, (unsigned)my_gid);
		set_door(e, DOOR_PTRACE_UID, _("run pscope as root or with the same gid, or grant it %s"), cap_fix);
		return true;
	}
	return false;
}

static bool explain_dumpable(struct ps_error *e, const struct victim *v, int err, const char *what)
{
	if (v->dirfd < 0 || door_target_dumpable(v->dirfd, v->st.uid_eff) != 0)
		return false;
	ps_error_set(e, err, _("cannot %s: process %d is not dumpable (its /proc/%d files are owned by root: a setuid/setgid program, or prctl(PR_SET_DUMPABLE, 0))"),
		     what, (int)v->pid, (int)v->pid);
	set_door(e, DOOR_DUMPABLE, _("run pscope as root (CAP_SYS_PTRACE), or let the program call prctl(PR_SET_DUMPABLE, 1)"));
	return true;
}

static bool explain_seccomp(struct ps_error *e, int err, const char *what, const char *syscall)
{
	struct proc_status me;

	if (!self_status(&me) || me.seccomp != 2)
		return false;
	ps_error_set(e, err,
		     P_("cannot %s: %s refused (%s) and pscope runs under a seccomp filter (%d filter, e.g. a container's) that may forbid it",
			"cannot %s: %s refused (%s) and pscope runs under a seccomp filter (%d filters, e.g. a container's) that may forbid it",
			me.seccomp_filters),
		     what, syscall, strerror(err), me.seccomp_filters);
	set_door(e, DOOR_SECCOMP, _("run pscope outside the sandbox, or allow %s in its seccomp profile (docker: --security-opt seccomp=unconfined)"),
		 syscall);
	return true;
}

static int explain_ptrace(struct ps_error *e, enum ps_op op, const struct victim *v, int err, const char *what)
{
	const struct proc_status *st = &v->st;
	bool cap_ptrace = door_have_cap(CAP_SYS_PTRACE);
	bool attach = op == PS_OP_ATTACH || op == PS_OP_CORE;
	bool proc_read = op == PS_OP_READ_PROC || op == PS_OP_READ_IO; /* no Yama there */
	struct door_sys sys;

	door_sys_read(&sys);
	if (attach && v->pid == getpid()) {
		ps_error_set(e, err, _("cannot %s: process %d is pscope itself, and ptrace never attaches to its own process"),
			     what, (int)v->pid);
		return -err;
	}
	if (v->have_st && !cap_ptrace && explain_ids(e, v, err, what, "CAP_SYS_PTRACE (setcap cap_sys_ptrace+ep pscope)"))
		return -err;
	if (v->have_st && !cap_ptrace && explain_dumpable(e, v, err, what))
		return -err;
	if (!proc_read && sys.ptrace_scope >= 1 && (!cap_ptrace || sys.ptrace_scope >= 3)) {
		ps_error_set(e, err, _("cannot %s: kernel.yama.ptrace_scope is %ld (%s)"), what, sys.ptrace_scope,
			     sys.ptrace_scope == 1   ? _("only a parent may attach to its descendants")
			     : sys.ptrace_scope == 2 ? _("only CAP_SYS_PTRACE may attach")
						     : _("no attaching at all"));
		if (sys.ptrace_scope >= 3)
			set_door(e, DOOR_PTRACE_SCOPE, _("ptrace_scope 3 cannot be lowered until reboot: set kernel.yama.ptrace_scope=1 at boot (sysctl.d) and reboot"));
		else
			set_door(e, DOOR_PTRACE_SCOPE, _("sysctl -w kernel.yama.ptrace_scope=0, or run pscope with CAP_SYS_PTRACE (root)"));
		return -err;
	}
	if (attach && v->have_st && st->tracer_pid > 0) {
		char comm[64];

		if (our_thread(st->tracer_pid)) {
			ps_error_set(e, err, _("cannot %s: process %d is already traced by this pscope (a stack dump or core of it is running)"),
				     what, (int)v->pid);
			set_door(e, DOOR_PTRACE_TRACED, _("wait for the running job to finish, or cancel it"));
			return -err;
		}
		tracer_comm(st->tracer_pid, comm, sizeof(comm));
		ps_error_set(e, err, _("cannot %s: process %d is already traced by PID %d (%s)"), what, (int)v->pid,
			     (int)st->tracer_pid, comm);
		set_door(e, DOOR_PTRACE_TRACED, _("detach the other tracer (quit gdb/strace on PID %d) and try again"),
			 (int)st->tracer_pid);
		return -err;
	}
	if (v->have_st && st->vm_size < 0 && st->state != 'Z') {
		ps_error_set(e, err, _("cannot %s: process %d is a kernel thread: it has no user space to inspect"), what,
			     (int)v->pid);
		return -err;
	}
	if (explain_seccomp(e, err, what, proc_read ? "open" : op == PS_OP_READ_MEM ? "process_vm_readv" : "ptrace"))
		return -err;
	if (geteuid() == 0 && door_have_cap(CAP_SYS_PTRACE)) {
		/* Root with CAP_SYS_PTRACE and still refused: no setting of
		 * ours opens this; say so rather than "run as root". */
		ps_error_set(e, err, _("cannot %s: %s even for root with CAP_SYS_PTRACE: a security module (LSM) or the sandbox pscope runs in protects process %d"),
			     what, strerror(err), (int)v->pid);
		set_door(e, DOOR_LSM, _("nothing pscope can change: check the security policy (AppArmor, SELinux, Landlock, the container or VM sandbox) and its denials in the kernel log (dmesg)"));
		return -err;
	}
	ps_error_set(e, err, _("cannot %s: %s (not explained by uid, dumpable, Yama or a tracer: an LSM such as AppArmor or SELinux may refuse it)"),
		     what, strerror(err));
	set_door(e, proc_read ? DOOR_PROC_READ : DOOR_PTRACE_UID,
		 _("run pscope as root, and look for the LSM's denial in the kernel log (dmesg)"));
	return -err;
}

static int explain_perf(struct ps_error *e, const struct victim *v, int err, const char *what)
{
	struct door_sys sys;
	bool cap = door_have_perfmon();
	bool cap_ptrace = door_have_cap(CAP_SYS_PTRACE);

	door_sys_read(&sys);
	if (sys.perf_paranoid >= 3 && !cap && debian_kernel()) {
		ps_error_set(e, err, _("cannot %s: kernel.perf_event_paranoid is %ld (Debian: no perf_event_open for unprivileged users)"),
			     what, sys.perf_paranoid);
		set_door(e, DOOR_PERF_PARANOID, _("sysctl -w kernel.perf_event_paranoid=2 (user-space sampling of your own processes), or grant CAP_PERFMON, or run as root"));
		return -err;
	}
	if (v->have_st && !cap_ptrace &&
	    explain_ids(e, v, err, what, _("CAP_SYS_PTRACE (perf_event_open on another user's process needs ptrace read access; CAP_PERFMON alone is not enough)")))
		return -err;
	if (v->have_st && !cap_ptrace && explain_dumpable(e, v, err, what))
		return -err;
	if (explain_seccomp(e, err, what, "perf_event_open"))
		return -err;
	ps_error_set(e, err, _("cannot %s: perf_event_open refused (%s), kernel.perf_event_paranoid is %ld"), what,
		     strerror(err), sys.perf_paranoid);
	if (sys.perf_paranoid >= 2)
		set_door(e, DOOR_PERF_PARANOID, _("sample user space only, or sysctl -w kernel.perf_event_paranoid=1 (kernel frames too), or grant CAP_PERFMON, or run as root"));
	else
		set_door(e, DOOR_PERF_PARANOID, _("sysctl -w kernel.perf_event_paranoid=0 (CPU-wide events), or grant CAP_PERFMON, or run as root"));
	return -err;
}

int door_percpu_refused(struct ps_error *e, int err, const char *what)
{
	struct door_sys sys;

	if (err < 0)
		err = -err;
	door_sys_read(&sys);
	if (err != EPERM && err != EACCES)
		return ps_error_set(e, err, _("cannot %s: %s"), what, strerror(err));
	if (explain_seccomp(e, err, what, "perf_event_open"))
		return -err;
	ps_error_set(e, err,
		     _("cannot %s: perf events for every task on a CPU need kernel.perf_event_paranoid <= 0 or CAP_PERFMON; it is %ld and pscope lacks CAP_PERFMON"),
		     what, sys.perf_paranoid);
	set_door(e, DOOR_PERF_PARANOID,
		 _("sysctl -w kernel.perf_event_paranoid=0, or grant CAP_PERFMON (setcap cap_perfmon+ep on pscope), or run as root"));
	return -err;
}

static int explain_signal(struct ps_error *e, const struct victim *v, int err, const char *what)
{
	if (v->have_st && v->st.uid_real != getuid() && v->st.uid_saved != getuid()) {
		ps_error_set(e, err, _("cannot %s: process %d belongs to uid %u and we are uid %u without CAP_KILL"), what,
			     (int)v->pid, (unsigned)v->st.uid_real, (unsigned)getuid());
		set_door(e, DOOR_SIGNAL, _("run pscope as root or as uid %u (CAP_KILL)"), (unsigned)v->st.uid_real);
		return -err;
	}
	if (explain_seccomp(e, err, what, "kill"))
		return -err;
	ps_error_set(e, err, _("cannot %s: process %d belongs to another user"), what, (int)v->pid);
	set_door(e, DOOR_SIGNAL, _("run pscope as root or as the process owner (CAP_KILL)"));
	return -err;
}

/* A zombie, or a process past exit() whose threads are being torn down
 * (PF_EXITING in its stat flags). */
static bool exiting(const struct victim *v)
{
	struct proc_stat ps;

	if (v->have_st && (v->st.state == 'Z' || v->st.state == 'X'))
		return true;
	return v->dirfd >= 0 && proc_stat_read(v->dirfd, &ps) == 0 && (ps.state == 'Z' || ps.state == 'X' || (ps.flags & 0x4 /* PF_EXITING */));
}

int door_refused(struct ps_error *e, enum ps_op op, pid_t pid, int err, const char *what)
{
	struct victim v = { .pid = pid, .dirfd = -1 };
	int r;

	if (err < 0)
		err = -err;
	v.dirfd = proc_open_pid(pid);
	if (v.dirfd >= 0)
		v.have_st = proc_status_read(v.dirfd, &v.st) == 0;
	if (!v.have_st && (err == ESRCH || err == ENOENT || err == EPERM || err == EACCES)) {
		/* Refused because it is gone (or it went meanwhile). */
		r = ps_error_set(e, ESRCH, _("cannot %s: process %d has exited"), what, (int)pid);
	} else if ((err == EPERM || err == EACCES) && op != PS_OP_READ_PROC && op != PS_OP_READ_IO && op != PS_OP_SIGNAL &&
		   exiting(&v)) {
		/* ptrace refuses a process that is exiting (or a zombie) with
		 * EPERM: that is its exit, not a closed door. */
		r = ps_error_set(e, ESRCH, _("cannot %s: process %d exited during the attach"), what, (int)pid);
	} else if (err == ESRCH || err == ENOENT) {
		if (v.have_st && (v.st.state == 'Z' || v.st.vm_size < 0) && op != PS_OP_SIGNAL &&
		    op != PS_OP_READ_PROC && op != PS_OP_READ_IO)
			r = ps_error_set(e, ESRCH, _("cannot %s: process %d has no user memory (%s)"), what, (int)pid,
					 v.st.state == 'Z' ? _("a zombie: it exited, its parent has not reaped it")
							   : _("a kernel thread"));
		else
			r = ps_error_set(e, err, _("cannot %s: %s"), what, strerror(err));
	} else if (err != EPERM && err != EACCES) {
		r = ps_error_set(e, err, _("cannot %s: %s"), what, strerror(err));
	} else {
		switch (op) {
		case PS_OP_SAMPLE:
			r = explain_perf(e, &v, err, what);
			break;
		case PS_OP_SIGNAL:
			r = explain_signal(e, &v, err, what);
			break;
		default:
			r = explain_ptrace(e, op, &v, err, what);
			break;
		}
	}
	if (v.dirfd >= 0)
		close(v.dirfd);
	return r;
}

int door_file_refused(struct ps_error *e, const char *path, int err, const char *what)
{
	if (err < 0)
		err = -err;
	ps_error_set(e, err, _("cannot %s %s: %s"), what, path, strerror(err));
	switch (err) {
	case EACCES:
	case EPERM:
		set_door(e, DOOR_FILESYSTEM, _("choose a directory you can write to (-o FILE)"));
		break;
	case EROFS:
		set_door(e, DOOR_FILESYSTEM, _("the filesystem is read-only: write elsewhere (-o /tmp/FILE)"));
		break;
	case ENOSPC:
	case EDQUOT:
	case EFBIG:
		set_door(e, DOOR_FILESYSTEM, _("free some space or write to a larger filesystem (-o FILE); df -h shows what is free"));
		break;
	case EEXIST:
	case ELOOP:
		set_door(e, DOOR_FILESYSTEM, _("the name exists (or is a symlink, never followed): remove it or choose another -o FILE"));
		break;
	default:
		break;
	}
	return -err;
}

int door_perf_mmap_refused(struct ps_error *e, int err, size_t bytes)
{
	long mlock_kb = -1, cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct rlimit rl;
	char lim[48];

	if (err < 0)
		err = -err;
	snprintf(lim, sizeof(lim), "%s", _("unlimited"));
	if (err != EPERM)
		return ps_error_set(e, err, _("cannot map a perf ring buffer of %zu kB: %s"), bytes >> 10, strerror(err));
	if (read_long_file("/proc/sys/kernel/perf_event_mlock_kb", &mlock_kb) < 0)
		mlock_kb = -1;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(lim, sizeof(lim), _("%llu kB"), (unsigned long long)rl.rlim_cur >> 10);
	ps_error_set(e, err, _("cannot map a perf ring buffer of %zu kB: the perf buffers of this user would pass kernel.perf_event_mlock_kb (%ld kB x %ld CPUs) and the locked-memory limit (ulimit -l: %s), without CAP_IPC_LOCK"),
		     bytes >> 10, mlock_kb, cpus, lim);
	set_door(e, DOOR_PERF_MLOCK, _("sample fewer threads or with smaller buffers, or sysctl -w kernel.perf_event_mlock_kb=%ld, or raise ulimit -l, or grant CAP_IPC_LOCK (root)"),
		 mlock_kb > 0 ? mlock_kb * 4 : 2048);
	return -err;
}

int door_tracefs_refused(struct ps_error *e, const char *path, int err, const char *what)
{
	if (err < 0)
		err = -err;
	if (err == ENOENT) {
		ps_error_set(e, err, _("cannot %s: %s is not there (tracefs is not mounted, or the kernel lacks the event)"),
			     what, path);
		set_door(e, DOOR_TRACEFS, _("mount -t tracefs nodev /sys/kernel/tracing (as root)"));
		return -err;
	}
	if (err != EACCES && err != EPERM)
		return ps_error_set(e, err, _("cannot %s: %s: %s"), what, path, strerror(err));
	ps_error_set(e, err, _("cannot %s: %s is readable by root only"), what, path);
	set_door(e, DOOR_TRACEFS, _("run pscope as root: tracefs and its event ids are root's"));
	return -err;
}
