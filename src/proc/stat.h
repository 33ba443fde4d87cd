/* /proc/PID/stat and /proc/PID/statm: pure parsers and a dirfd reader. */
#ifndef PS_PROC_STAT_H
#define PS_PROC_STAT_H

#include "reads.h"

#include <stddef.h>
#include <sys/types.h>

/* The kernel-thread bit of the flags field (PF_KTHREAD). */
#define PROC_PF_KTHREAD 0x00200000ul

struct proc_stat {
	pid_t pid;
	char comm[64];          /* raw bytes from the kernel: hostile */
	char state;
	pid_t ppid, pgrp, session;
	int tty_nr;
	pid_t tpgid;
	unsigned long flags;
	unsigned long minflt, cminflt, majflt, cmajflt;
	unsigned long utime, stime;      /* clock ticks */
	long cutime, cstime;
	long priority, nice, num_threads;
	unsigned long long starttime;    /* ticks after boot: identity with pid */
	unsigned long vsize;             /* bytes */
	long rss;                        /* pages */
	/* Where the program's text and stack start: new at every exec (with
	 * address space randomization); 0 without ptrace-read access. */
	unsigned long start_code, start_stack;
	int processor;
	unsigned long long delayacct_blkio_ticks;
};

struct proc_statm {
	unsigned long size, resident, shared, text, data; /* pages */
};

/* Parse the text of /proc/PID/stat. comm may hold spaces and ')'; the last
 * ')' ends it. Returns 0 or -EINVAL. */
int proc_stat_parse(const char *buf, size_t len, struct proc_stat *out);
int proc_statm_parse(const char *buf, size_t len, struct proc_statm *out);
/* Read "stat"/"statm" relative to a /proc/PID (or task/TID) dirfd. */
PS_READS int proc_stat_read(int dirfd, struct proc_stat *out);
PS_READS int proc_statm_read(int dirfd, struct proc_statm *out);

#endif
