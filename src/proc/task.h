/* Threads: /proc/PID/task/TID/{stat,status,syscall,wchan,schedstat}. */
#ifndef PS_PROC_TASK_H
#define PS_PROC_TASK_H

#include "reads.h"

#include <stddef.h>
#include <sys/types.h>

/* syscall_nr values besides a real number. */
#define PROC_SYSCALL_NONE (-1)       /* blocked, but not in a system call (kernel: "-1 sp pc") */
#define PROC_SYSCALL_RUNNING (-100)  /* "running": in user space */
#define PROC_SYSCALL_UNKNOWN (-101)  /* unreadable (no ptrace access) or gone */

struct proc_thread {
	pid_t tid;
	pid_t nstid;                   /* its TID in its own pid namespace (a container), 0: ours */
	char comm[64];                 /* hostile */
	char state;
	unsigned long utime, stime;    /* ticks */
	int processor;                 /* last CPU */
	long syscall_nr;
	unsigned long long syscall_args[6];
	char wchan[64];                /* "" when 0 or unreadable */
	unsigned long long run_ns, wait_ns, slices; /* schedstat */
	int have_schedstat;
	unsigned long vol_ctxt, nonvol_ctxt;
	/* Rates, filled by proc_threads_rates (0 for the first sample). */
	double cpu_pct;                /* of one CPU */
	double wait_ms_per_s;          /* run-queue delay: runnable but not running */
};

struct proc_threads {
	struct proc_thread *v;
	size_t n, cap;
	double when;                   /* now_s() of the read */
};

/* "202 0x7f.. 0x80 ..." / "running" / "-1 sp pc" (blocked, not in a syscall). */
int proc_syscall_parse(const char *buf, size_t len, long *nr, unsigned long long args[6]);
/* "run_ns wait_ns timeslices" */
int proc_schedstat_parse(const char *buf, size_t len, unsigned long long *run_ns,
			 unsigned long long *wait_ns, unsigned long long *slices);
/* Read one thread relative to a task/TID dirfd. */
PS_READS int proc_thread_read(int taskfd, pid_t tid, struct proc_thread *out);
/* Every thread of the process behind dirfd (a /proc/PID dirfd), by tid. */
PS_READS int proc_threads_read(int dirfd, struct proc_threads *out);
/* CPU% and run-queue delay per second from the previous read (matched by tid). */
void proc_threads_rates(const struct proc_threads *prev, struct proc_threads *cur);
/* "nanosleep(0x7ffd...)", "running", "?" into buf. */
const char *proc_thread_syscall_str(const struct proc_thread *t, char *buf, size_t size);
void proc_threads_free(struct proc_threads *t);

#endif
