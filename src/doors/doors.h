/* Doors: what the kernel lets pscope do, and why not. Every refusal a user
 * sees is worded here, once, so the UI and the batch commands agree. */
#ifndef PS_DOORS_H
#define PS_DOORS_H

#include <linux/capability.h>
#include <stdbool.h>
#include <sys/types.h>

#include "proc/cgroup.h"
#include "reads.h"
#include "error.h"

/* Older kernel headers lack the capabilities of Linux 5.8. */
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

/* The operations pscope offers on a target. */
enum ps_op {
	PS_OP_READ_PROC,  /* /proc/PID/{fd,maps,smaps,...}: ptrace read access */
	PS_OP_READ_IO,    /* /proc/PID/io (the I/O rate columns): ptrace read access */
	PS_OP_READ_MEM,   /* process_vm_readv: ptrace attach access */
	PS_OP_ATTACH,     /* PTRACE_SEIZE for stacks */
	PS_OP_SAMPLE,     /* perf_event_open */
	PS_OP_CORE,       /* attach + read memory + write a file */
	PS_OP_SIGNAL,     /* kill(2) */
	PS_OP_COUNT
};

const char *ps_op_name(enum ps_op op);

/* Kernel knobs; -1 when the file is absent (e.g. Yama not built in). */
struct door_sys {
	long ptrace_scope;
	long perf_paranoid;
	long kptr_restrict;
	long perf_max_sample_rate;
};
PS_READS void door_sys_read(struct door_sys *s);

/* Our own effective capability (CAP_* number from linux/capability.h). */
bool door_have_cap(int cap);

/* Explain why `op` on `pid` failed with `err` (errno, either sign); `what` is
 * a short phrase such as "read /proc/42/fd". Fills e with the sentence, the
 * door that was closed and the fix. Returns -|err|. */
PS_READS int door_refused(struct ps_error *e, enum ps_op op, pid_t pid, int err, const char *what);

/* Per-CPU events for every task (pid -1) refused: names
 * kernel.perf_event_paranoid (<= 0 needed) and CAP_PERFMON. */
int door_percpu_refused(struct ps_error *e, int err, const char *what);

/* A file refused (EACCES, EPERM, EROFS, ENOSPC, EDQUOT...): names the
 * filesystem door and the fix. Says "cannot <what> <path>: <strerror>", so
 * `what` is e.g. "write the core". */
int door_file_refused(struct ps_error *e, const char *path, int err, const char *what);

/* mmap of a perf ring buffer refused: with EPERM, the per-user perf
 * buffer budget (kernel.perf_event_mlock_kb per CPU, then RLIMIT_MEMLOCK)
 * is spent and we lack CAP_IPC_LOCK. bytes is the size asked for. */
int door_perf_mmap_refused(struct ps_error *e, int err, size_t bytes);

/* tracefs (path: the file of a tracepoint's format or id) refused, or
 * absent (ENOENT): names the tracefs door. */
int door_tracefs_refused(struct ps_error *e, const char *path, int err, const char *what);

/* Meanings of the knobs, one short phrase each (never NULL). */
const char *door_ptrace_scope_meaning(long v);
const char *door_perf_paranoid_meaning(long v, bool debian_kernel);
const char *door_kptr_restrict_meaning(long v);
const char *door_suid_dumpable_meaning(long v);
const char *door_seccomp_meaning(int mode);
/* "cap_sys_ptrace"; "cap_N" past the names we know. */
const char *door_cap_name(int cap);
#define DOOR_CAP_LAST 40 /* CAP_CHECKPOINT_RESTORE */
/* Whether we hold CAP_PERFMON or, on kernels before it, CAP_SYS_ADMIN. */
bool door_have_perfmon(void);

/* Whether a target is dumpable, seen from outside: the kernel makes the
 * files under /proc/PID (not the directory itself) owned by root when the
 * process is not dumpable. 1 dumpable, 0 not, -1 cannot tell (the process runs as root).
 * dirfd is /proc/PID; euid its effective uid. */
PS_READS int door_target_dumpable(int dirfd, uid_t euid);

/* ---- The report: facts and real probes (probe.c) ---- */

struct door_facts_sys {
	struct door_sys k;
	char kernel[280];          /* uname: release, version, machine */
	bool debian_kernel;        /* its perf_event_paranoid 3 forbids users */
	char core_pattern[256];    /* hostile-ish: printed escaped */
	long perf_mlock_kb;        /* kernel.perf_event_mlock_kb, -1 absent */
	long suid_dumpable;        /* fs.suid_dumpable, -1 absent */
	long unpriv_bpf_disabled;  /* kernel.unprivileged_bpf_disabled, -1 absent */
	int pmu;                   /* hardware PMU: 1 yes, 0 no, -1 cannot tell */
	int pmu_err;               /* errno of the cycles probe (0 when it opened) */
	int btf_err;               /* /sys/kernel/btf/vmlinux: 0 readable, else errno (BPF of pscope time) */
	int tracefs_err;           /* /sys/kernel/tracing: 0 mounted, else errno */
	long task_delayacct;       /* kernel.task_delayacct, -1 absent */
};

struct door_facts_self {
	pid_t pid;
	uid_t uid, euid;
	gid_t gid, egid;
	unsigned long long cap_eff, cap_prm;
	int seccomp;               /* 0 none, 1 strict, 2 filter, -1 unknown */
	int no_new_privs;          /* -1 unknown */
};

struct door_facts_target {
	pid_t pid;
	char comm[64];             /* hostile */
	char state;
	long threads;
	uid_t uid, euid, suid;
	gid_t gid, egid, sgid;
	bool no_mm;                /* kernel thread or zombie: no user memory */
	int dumpable;              /* see door_target_dumpable */
	pid_t tracer_pid;
	char tracer_comm[64];      /* hostile */
	long coredump_filter;      /* -1 when unreadable */
	int coredump_filter_err;
	struct proc_cgroup cgroup; /* path "" when unreadable (kernel without cgroups) */
};

enum door_state { DOOR_OPEN, DOOR_CLOSED, DOOR_NA };

struct door_probe {
	enum door_state state;
	char how[352];             /* the probe that ran, or why none did */
	char note[160];            /* what else the probe learned, may be "" */
	struct ps_error err;       /* when closed (or n/a) */
};

struct door_report {
	struct door_facts_sys sys;
	struct door_facts_self self;
	bool have_target;
	struct door_facts_target target;
	struct door_probe ops[PS_OP_COUNT];
	char core_dir[256];        /* where the core probe tried to create a file */
	long long core_dir_free;   /* bytes, -1 unknown */
	long long probed_at;       /* time(2) of the probes */
};

PS_READS void door_facts_sys_read(struct door_facts_sys *s);
PS_READS void door_facts_self_read(struct door_facts_self *s);
/* Facts and, with pid > 0, every probe on that process. core_dir is where a
 * core would be written (NULL: the current directory). Returns 0, or -ESRCH
 * with e filled when pid does not exist. */
PS_READS int door_report_build(struct door_report *r, pid_t pid, const char *core_dir, struct ps_error *e);

/* ---- The tool -> door table (text.c) ---- */

struct door_tool {
	const char *tool;          /* "pscope stack dump", "gdb -p PID" */
	const char *syscalls;      /* what it calls */
	const char *permission;    /* what the kernel checks */
	unsigned need;             /* DOOR_NEED_* bits, to judge it here */
};
extern const struct door_tool door_tools[];
extern const size_t door_tools_count;
/* Expected here from the facts (not probed): "open", "closed",
 * "user space only", "children only"... for the user's own processes
 * (other_user false) or another user's. */
const char *door_tool_expect(const struct door_tool *t, const struct door_report *r, bool other_user);

/* ---- Rendering: the same lines for `pscope doors` and the Doors screen ---- */

enum door_line_kind { DL_HEAD, DL_TEXT, DL_OPEN, DL_CLOSED, DL_NA, DL_DETAIL, DL_DIM };
struct door_line {
	enum door_line_kind kind;
	char *text;                /* raw: may hold hostile bytes; escape or draw safely */
};
struct door_lines {
	struct door_line *v;
	size_t n, cap;
};
/* Render r; lines longer than width columns wrap at spaces, continuing
 * under the value column (width 0: no wrapping). */
int door_render(const struct door_report *r, int width, struct door_lines *out);
void door_lines_free(struct door_lines *l);
/* Status word of a probe: "open", "CLOSED", "n/a". */
const char *door_state_word(enum door_state s);

#endif
