/* One process at a glance: stat + status + the extras the status pane and
 * the detail header show (cmdline, cgroup, namespaces, oom_score, cwd, exe,
 * user names, tracer name, start time). */
#ifndef PS_PROC_INFO_H
#define PS_PROC_INFO_H

#include "reads.h"
#include "proc/cmdline.h"
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "proc/stat.h"
#include "proc/status.h"

#define PROC_NS_COUNT 8

struct proc_ns {
	const char *name;            /* "pid", "net", ... */
	unsigned long long ino;      /* 0 when unreadable */
	int other;                   /* 1 not pscope's own, 0 pscope's, -1 unknown */
};

struct proc_info {
	struct proc_stat stat;
	struct proc_status status;
	char cmdline[4096];          /* NULs turned to spaces; hostile */
	char cgroup[4096];           /* "0::/user.slice/..."; hostile; "..." at the end when cut */
	struct proc_ns ns[PROC_NS_COUNT];
	int oom_score, oom_score_adj; /* -1000..; INT_MIN when unreadable */
	char cwd[512], exe[512];     /* hostile; "" with *_err set when refused */
	int cwd_err, exe_err;        /* 0 or -errno (EACCES: no ptrace access) */
	char user[33], group[33];    /* names of the real uid/gid, or the number */
	char tracer_comm[64];        /* comm of TracerPid, "" when not traced */
	double start_epoch;          /* wall clock start time (seconds since 1970) */
	double uptime_s;             /* how long it has been running */
	double when;                 /* now_s() of the read */
	int exit_code;               /* stat field 52 (zombies), -1 unknown */
	int kthread;                 /* a kernel thread: no address space, no exe */
};

struct proc_info_rates {
	double cpu_pct;              /* of one CPU */
	double vol_ctxt_s, nonvol_ctxt_s, minflt_s, majflt_s;
};

/* Exit code field (52) of /proc/PID/stat, -1 when absent. */
int proc_stat_exit_code_parse(const char *buf, size_t len);
/* Read everything relative to a /proc/PID dirfd. Returns 0, or -errno when
 * even stat/status could not be read (the extras may fail alone: see *_err). */
PS_READS int proc_info_read(int dirfd, struct proc_info *out);
void proc_info_rates(const struct proc_info *prev, const struct proc_info *cur, struct proc_info_rates *r);

/* The process has exited: a zombie (or dead) with no thread left. A zombie
 * main thread whose other threads still run is not an exit. */
int proc_info_exited(const struct proc_info *i);

/* Whether the process runs in a container, as far as we can tell: its
 * own pid namespace (status's NSpid, readable by anyone) or mount
 * namespace (ns/mnt, needs ptrace-read access). */
bool proc_info_in_container(const struct proc_info *i);
/* The sentence saying so ("" when not): "PID 1 in its own pid namespace;
 * its own mount namespace: its files are read through /proc/42/root".
 * Translated; holds no hostile text. */
const char *proc_info_container_text(const struct proc_info *i, pid_t pid, char *buf, size_t size);
/* 1 when pid's files are not where pscope would find them by their paths:
 * another mount namespace or another root directory (chroot); 0 when they
 * are; -errno when it cannot tell (no ptrace-read access). dirfd is
 * /proc/PID. */
PS_READS int proc_root_other(int dirfd);

/* State letter to word: 'S' -> "sleeping". */
/* The state letter's name in English ("sleeping"): JSON; text shows _() of it. */
const char *proc_state_name(char state);

#endif
