/* Doors, found by trying: the system's knobs, our own credentials, and for
 * one process a real, harmless probe of each operation pscope offers. A
 * refused probe is explained by door_refused(), like a refused operation. */
#include "doors/doors.h"
#include "i18n.h"
#include "perf/perf.h"
#include "proc/stat.h"
#include "proc/status.h"
#include "target.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static void read_str_file(const char *path, char *buf, size_t size)
{
	if (read_file_at(AT_FDCWD, path, buf, size) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static long read_knob(const char *path)
{
	long v;
	return read_long_file(path, &v) < 0 ? -1 : v;
}

/* A disabled event: opening it checks the doors, and counts nothing. */
static void perf_attr(struct perf_event_attr *a, unsigned type, unsigned long long config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->disabled = 1;
	a->exclude_hv = 1;
}

/* Is there a hardware PMU? Open a cycles counter on ourselves, user space
 * only, disabled, and close it: ENOENT/EOPNOTSUPP/ENODEV mean none. */
static void probe_pmu(struct door_facts_sys *s)
{
	struct perf_event_attr a;
	int fd;

	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	a.exclude_kernel = 1;
	fd = perf_open(&a, 0, -1, -1);
	if (fd >= 0) {
		close(fd);
		s->pmu = 1;
		s->pmu_err = 0;
		return;
	}
	s->pmu_err = -fd;
	s->pmu = (fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV) ? 0 : -1;
}

void door_facts_sys_read(struct door_facts_sys *s)
{
	struct utsname u;

	memset(s, 0, sizeof(*s));
	door_sys_read(&s->k);
	if (uname(&u) == 0) {
		snprintf(s->kernel, sizeof(s->kernel), "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
		s->debian_kernel = strstr(u.version, "Debian") || strstr(u.version, "Ubuntu");
	}
	read_str_file("/proc/sys/kernel/core_pattern", s->core_pattern, sizeof(s->core_pattern));
	s->perf_mlock_kb = read_knob("/proc/sys/kernel/perf_event_mlock_kb");
	s->suid_dumpable = read_knob("/proc/sys/fs/suid_dumpable");
	s->unpriv_bpf_disabled = read_knob("/proc/sys/kernel/unprivileged_bpf_disabled");
	s->task_delayacct = read_knob("/proc/sys/kernel/task_delayacct");
	s->btf_err = access("/sys/kernel/btf/vmlinux", R_OK) == 0 ? 0 : errno;
	struct statfs fs;
	s->tracefs_err = statfs("/sys/kernel/tracing", &fs) < 0 ? errno : fs.f_type == TRACEFS_MAGIC ? 0 : ENOENT;
	probe_pmu(s);
}

void door_facts_self_read(struct door_facts_self *s)
{
	struct proc_status st;
	int fd = proc_open_pid(getpid());

	memset(s, 0, sizeof(*s));
	s->pid = getpid();
	s->uid = getuid();
	s->euid = geteuid();
	s->gid = getgid();
	s->egid = getegid();
	s->seccomp = -1;
	s->no_new_privs = -1;
	if (fd < 0)
		return;
	if (proc_status_read(fd, &st) == 0) {
		s->cap_eff = st.cap_eff;
		s->cap_prm = st.cap_prm;
		s->seccomp = st.seccomp;
		s->no_new_privs = st.no_new_privs;
	}
	close(fd);
}

static void target_facts(struct door_facts_target *f, const struct target *t, const struct proc_status *st)
{
	char buf[64];
	int fd;

	memset(f, 0, sizeof(*f));
	f->pid = t->id.pid;
	strlcpy_ps(f->comm, st->name, sizeof(f->comm));
	if (read_file_at(t->dirfd, "comm", buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		strlcpy_ps(f->comm, buf, sizeof(f->comm));
	}
	f->state = st->state;
	f->threads = st->threads;
	f->uid = st->uid_real;
	f->euid = st->uid_eff;
	f->suid = st->uid_saved;
	f->gid = st->gid_real;
	f->egid = st->gid_eff;
	f->sgid = st->gid_saved;
	f->no_mm = st->vm_size < 0 || st->state == 'Z';
	f->dumpable = door_target_dumpable(t->dirfd, st->uid_eff);
	f->tracer_pid = st->tracer_pid;
	if (st->tracer_pid > 0) {
		strlcpy_ps(f->tracer_comm, "?", sizeof(f->tracer_comm));
		fd = proc_open_pid(st->tracer_pid);
		if (fd >= 0) {
			if (read_file_at(fd, "comm", buf, sizeof(buf)) > 0) {
				buf[strcspn(buf, "\n")] = '\0';
				strlcpy_ps(f->tracer_comm, buf, sizeof(f->tracer_comm));
			}
			close(fd);
		}
	}
	f->coredump_filter = -1;
	ssize_t n = read_file_at(t->dirfd, "coredump_filter", buf, sizeof(buf));
	if (n > 0) {
		char *end;
		errno = 0;
		f->coredump_filter = strtol(buf, &end, 16);
		if (errno || end == buf)
			f->coredump_filter = -1;
	} else {
		f->coredump_filter_err = n < 0 ? (int)-n : EINVAL;
	}
	char cg[4096];
	n = read_file_at(t->dirfd, "cgroup", cg, sizeof(cg));
	proc_cgroup_parse(cg, n > 0 ? (size_t)n : 0, &f->cgroup);
}

static void mark_open(struct door_probe *p, const char *note)
{
	p->state = DOOR_OPEN;
	strlcpy_ps(p->note, note ? note : "", sizeof(p->note));
	ps_error_clear(&p->err);
}

static void mark_closed(struct door_probe *p, enum ps_op op, pid_t pid, int err, const char *what)
{
	p->state = DOOR_CLOSED;
	door_refused(&p->err, op, pid, err, what);
}

static void mark_na(struct door_probe *p, const char *why)
{
	p->state = DOOR_NA;
	ps_error_set(&p->err, 0, "%s", why);
}

/* /proc/PID/fd (a directory only its owner may open) and /proc/PID/maps
 * (ptrace read access, checked at open). */
static void probe_read_proc(struct door_probe *p, const struct target *t)
{
	pid_t pid = t->id.pid;
	char what[64], c;
	int fd;

	snprintf(p->how, sizeof(p->how), _("open /proc/%d/fd and read /proc/%d/maps"), (int)pid, (int)pid);
	fd = openat(t->dirfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(what, sizeof(what), _("read /proc/%d/fd"), (int)pid);
		mark_closed(p, PS_OP_READ_PROC, pid, errno, what);
		return;
	}
	close(fd);
	fd = openat(t->dirfd, "maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, &c, 1) < 0) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		snprintf(what, sizeof(what), _("read /proc/%d/maps"), (int)pid);
		mark_closed(p, PS_OP_READ_PROC, pid, err, what);
		return;
	}
	close(fd);
	mark_open(p, NULL);
}

/* /proc/PID/io: the kernel checks ptrace read access when it is read (the
 * open passes), so read it. What the list's I/O rate columns need. */
static void probe_read_io(struct door_probe *p, const struct target *t)
{
	pid_t pid = t->id.pid;
	char what[64], buf[512];
	ssize_t n;

	snprintf(p->how, sizeof(p->how), _("read /proc/%d/io (the list's IO_READ_RATE and IO_WRITE_RATE columns)"),
		 (int)pid);
	n = read_file_at(t->dirfd, "io", buf, sizeof(buf));
	if (n < 0) {
		snprintf(what, sizeof(what), _("read /proc/%d/io"), (int)pid);
		mark_closed(p, PS_OP_READ_IO, pid, (int)-n, what);
		return;
	}
	mark_open(p, NULL);
}

/* The first readable mapping that is ordinary memory ([vvar] and
 * [vsyscall] cannot be read through process_vm_readv). 0 when maps is
 * unreadable or empty. */
static unsigned long first_readable(const struct target *t)
{
	char *buf = NULL;
	size_t cap = 0;
	unsigned long addr = 0;

	if (read_file_alloc_at(t->dirfd, "maps", &buf, &cap) < 0) {
		free(buf);
		return 0;
	}
	for (char *l = buf; l && *l;) {
		char *nl = strchr(l, '\n');
		unsigned long lo, hi;
		char perms[8];

		if (nl)
			*nl = '\0';
		if (sscanf(l, "%lx-%lx %7s", &lo, &hi, perms) == 3 && perms[0] == 'r' && !strstr(l, "[vvar") &&
		    !strstr(l, "[vsyscall]")) {
			addr = lo;
			break;
		}
		l = nl ? nl + 1 : NULL;
	}
	free(buf);
	return addr;
}

/* One byte with process_vm_readv: the kernel checks ptrace attach access
 * (and Yama) before it touches any memory. */
static void probe_read_mem(struct door_probe *p, const struct target *t, bool no_mm)
{
	pid_t pid = t->id.pid;
	unsigned long addr;
	char byte, what[64];
	struct iovec lv = { &byte, 1 }, rv;
	ssize_t n;

	if (no_mm) {
		snprintf(p->how, sizeof(p->how), _("none: the process has no user memory"));
		mark_na(p, _("no user memory (a kernel thread or a zombie)"));
		return;
	}
	addr = first_readable(t);
	if (addr)
		snprintf(p->how, sizeof(p->how), _("process_vm_readv of 1 byte at 0x%lx (its first readable mapping)"), addr);
	else
		snprintf(p->how, sizeof(p->how), _("process_vm_readv of 1 byte (maps unreadable: at 0x10000)"));
	rv.iov_base = (void *)(addr ? addr : 0x10000);
	rv.iov_len = 1;
	n = process_vm_readv(pid, &lv, 1, &rv, 1, 0);
	if (n == 1) {
		mark_open(p, NULL);
		return;
	}
	if (n < 0 && (errno == EFAULT || errno == EIO)) {
		mark_open(p, _("access granted; that address was not readable"));
		return;
	}
	snprintf(what, sizeof(what), _("read the memory of process %d"), (int)pid);
	mark_closed(p, PS_OP_READ_MEM, pid, n < 0 ? errno : EIO, what);
}

struct seize_arg {
	pid_t pid;
	int err;
	pid_t tid;
};

static void *seize_thread(void *p)
{
	struct seize_arg *a = p;

	a->tid = (pid_t)syscall(SYS_gettid);
	a->err = ptrace(PTRACE_SEIZE, a->pid, 0, 0) == 0 ? 0 : errno;
	/* Returning ends this thread: the kernel detaches its tracees then,
	 * without stopping them. PTRACE_DETACH would fail here (ESRCH): it
	 * only works on a tracee in a ptrace-stop. */
	return NULL;
}

static pid_t tracer_of(const struct target *t)
{
	struct proc_status st;
	return proc_status_read(t->dirfd, &st) == 0 ? st.tracer_pid : 0;
}

/* PTRACE_SEIZE, without PTRACE_INTERRUPT, from a thread that exits at once:
 * the target is never stopped, and it is detached when the thread exits.
 * We then wait (bounded) until /proc shows it untraced again. */
static void probe_attach(struct door_probe *p, const struct target *t, bool no_mm)
{
	struct seize_arg a = { .pid = t->id.pid };
	pthread_t th;
	char what[64];

	if (no_mm) {
		snprintf(p->how, sizeof(p->how), _("none: the process has no user space"));
		mark_na(p, _("no user space to attach to (a kernel thread or a zombie)"));
		return;
	}
	snprintf(p->how, sizeof(p->how), _("PTRACE_SEIZE from a thread that exits at once (the exit detaches; the target never stops)"));
	snprintf(what, sizeof(what), _("attach to process %d"), (int)a.pid);
	if (a.pid == getpid()) {
		mark_closed(p, PS_OP_ATTACH, a.pid, EPERM, what);
		return;
	}
	int r = pthread_create(&th, NULL, seize_thread, &a);
	if (r) {
		p->state = DOOR_CLOSED;
		ps_error_set(&p->err, r, _("cannot probe the attach: no thread (%s)"), strerror(r));
		return;
	}
	pthread_join(th, NULL);
	if (a.err) {
		mark_closed(p, PS_OP_ATTACH, a.pid, a.err, what);
		return;
	}
	/* The thread's exit detaches; join can return a moment before. */
	for (int i = 0; i < 2000 && tracer_of(t) == a.tid; i++) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	mark_open(p, NULL);
}

/* perf_event_open of the cpu-clock software event on the process, disabled,
 * closed at once: user and kernel first, then user space only. */
static void probe_sample(struct door_probe *p, const struct target *t, bool no_mm)
{
	struct perf_event_attr a;
	pid_t pid = t->id.pid;
	char what[64];
	int fd;

	if (no_mm) {
		snprintf(p->how, sizeof(p->how), _("none: the process has no user space"));
		mark_na(p, _("nothing to sample in user space (a kernel thread or a zombie)"));
		return;
	}
	snprintf(p->how, sizeof(p->how), _("perf_event_open(cpu-clock, 99 Hz) on PID %d, disabled, closed at once"), (int)pid);
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	a.freq = 1;
	a.sample_freq = 99;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	fd = perf_open(&a, pid, -1, -1);
	if (fd >= 0) {
		close(fd);
		mark_open(p, _("user and kernel space"));
		return;
	}
	if (fd == -EACCES || fd == -EPERM) {
		a.exclude_kernel = 1;
		fd = perf_open(&a, pid, -1, -1);
		if (fd >= 0) {
			close(fd);
			mark_open(p, _("user space only: kernel frames are refused (kernel.perf_event_paranoid)"));
			return;
		}
	}
	snprintf(what, sizeof(what), _("sample process %d"), (int)pid);
	mark_closed(p, PS_OP_SAMPLE, pid, -fd, what);
}

/* A core needs the attach and the memory read, and a file: create an
 * unnamed one (O_TMPFILE) where the core would go, and let it vanish. */
static void probe_core(struct door_report *r, const struct target *t, const char *dir)
{
	struct door_probe *p = &r->ops[PS_OP_CORE];
	const struct door_probe *att = &r->ops[PS_OP_ATTACH], *mem = &r->ops[PS_OP_READ_MEM];
	pid_t pid = t->id.pid;
	struct statvfs vfs;
	char what[64];
	int fd, err = 0;

	strlcpy_ps(r->core_dir, dir, sizeof(r->core_dir));
	r->core_dir_free = statvfs(dir, &vfs) == 0 ? (long long)vfs.f_bavail * (long long)vfs.f_frsize : -1;
	snprintf(p->how, sizeof(p->how), _("the attach and memory probes, and a file created (O_TMPFILE) in %s"), dir);
	snprintf(what, sizeof(what), _("write a core of process %d"), (int)pid);
	if (att->state == DOOR_NA || mem->state == DOOR_NA) {
		mark_na(p, _("no user memory to dump (a kernel thread or a zombie)"));
		return;
	}
	if (att->state == DOOR_CLOSED) {
		mark_closed(p, PS_OP_CORE, pid, att->err.code, what);
		return;
	}
	if (mem->state == DOOR_CLOSED) {
		mark_closed(p, PS_OP_CORE, pid, mem->err.code, what);
		return;
	}
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
	} else if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) {
		if (access(dir, W_OK | X_OK) < 0)
			err = errno;
	} else {
		err = errno;
	}
	if (err) {
		p->state = DOOR_CLOSED;
		door_file_refused(&p->err, dir, err, _("create a file in")); /* as pscope core says */
		return;
	}
	mark_open(p, NULL);
}

/* Signal 0: the permission check of kill(2) without a signal. */
static void probe_signal(struct door_probe *p, const struct target *t)
{
	pid_t pid = t->id.pid;
	char what[64];
	int r;

	if (t->pidfd >= 0) {
		snprintf(p->how, sizeof(p->how), "pidfd_send_signal(signal 0)");
		r = (int)syscall(SYS_pidfd_send_signal, t->pidfd, 0, NULL, 0);
	} else {
		snprintf(p->how, sizeof(p->how), "kill(%d, 0)", (int)pid);
		r = kill(pid, 0);
	}
	if (r == 0) {
		mark_open(p, NULL);
		return;
	}
	snprintf(what, sizeof(what), _("signal process %d"), (int)pid);
	mark_closed(p, PS_OP_SIGNAL, pid, errno, what);
}

int door_report_build(struct door_report *r, pid_t pid, const char *core_dir, struct ps_error *e)
{
	struct target t;
	struct proc_status st;
	char cwd[256];
	int rc;

	memset(r, 0, sizeof(*r));
	door_facts_sys_read(&r->sys);
	door_facts_self_read(&r->self);
	r->probed_at = (long long)time(NULL);
	r->core_dir_free = -1;
	if (pid <= 0)
		return 0;
	rc = target_open(&t, pid, NULL, e);
	if (rc < 0)
		return rc;
	if (proc_status_read(t.dirfd, &st) < 0) {
		target_close(&t);
		return ps_error_set(e, ESRCH, _("no process with PID %d"), (int)pid);
	}
	r->have_target = true;
	target_facts(&r->target, &t, &st);
	if (!core_dir)
		core_dir = getcwd(cwd, sizeof(cwd)) ? cwd : ".";
	probe_read_proc(&r->ops[PS_OP_READ_PROC], &t);
	probe_read_io(&r->ops[PS_OP_READ_IO], &t);
	probe_read_mem(&r->ops[PS_OP_READ_MEM], &t, r->target.no_mm);
	probe_attach(&r->ops[PS_OP_ATTACH], &t, r->target.no_mm);
	probe_sample(&r->ops[PS_OP_SAMPLE], &t, r->target.no_mm);
	probe_core(r, &t, core_dir);
	probe_signal(&r->ops[PS_OP_SIGNAL], &t);
	/* The same process all along? A PID reused meanwhile is refused. */
	rc = target_verify(&t, e);
	target_close(&t);
	if (rc < 0) {
		r->have_target = false;
		return rc;
	}
	return 0;
}
