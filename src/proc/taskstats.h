/* Taskstats delay accounting (genetlink TASKSTATS, CAP_NET_ADMIN): how
 * long a thread waited for a CPU, block I/O, swap-in, memory reclaim,
 * thrashing, compaction, write-protect copies and IRQs. The kernel keeps
 * these only with kernel.task_delayacct=1, and only for tasks started
 * after it was set. Pure parsers of the replies, and a reader. */
#ifndef PS_PROC_TASKSTATS_H
#define PS_PROC_TASKSTATS_H

#include "reads.h"
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_taskstats {
	unsigned version;
	uint32_t pid;
	uint64_t cpu_count, cpu_delay;     /* ns */
	uint64_t blkio_count, blkio_delay;
	uint64_t swapin_count, swapin_delay;
	uint64_t freepages_count, freepages_delay;
	uint64_t thrashing_count, thrashing_delay;
	uint64_t compact_count, compact_delay;
	uint64_t wpcopy_count, wpcopy_delay;
	uint64_t irq_count, irq_delay;
};

/* The reply to TASKSTATS_CMD_GET for one pid (nlmsghdr, genlmsghdr,
 * TASKSTATS_TYPE_AGGR_PID holding PID and STATS). Fields past what the
 * kernel's version sends stay 0. 0; the kernel's -errno for an error
 * reply; -EINVAL when it does not parse. */
int proc_taskstats_parse(const void *buf, size_t len, struct proc_taskstats *out);
/* The reply to CTRL_CMD_GETFAMILY: the family's id. 0, -errno, -EINVAL. */
int proc_genl_family_parse(const void *buf, size_t len, uint16_t *id);

/* One task's exit, as taskstats sends it to a listener (the accounting
 * part of struct taskstats): who, its parent, its command, the wait
 * status, how long it lived and the CPU it used. */
struct proc_task_exit {
	uint32_t pid, tgid;        /* tgid 0: the kernel did not say (before v13) */
	uint32_t ppid, uid;
	uint32_t exitcode;         /* the wait status: code << 8 | signal */
	uint64_t etime_us, utime_us, stime_us;
	uint64_t btime;            /* start, seconds since 1970 */
	char comm[33];             /* hostile */
};
/* An exit message (TASKSTATS_TYPE_AGGR_PID with its STATS). 0, -EINVAL
 * when it is none, or the kernel's -errno. */
int proc_taskstats_exit_parse(const void *buf, size_t len, struct proc_task_exit *out);

struct proc_taskstats_sock {
	int fd;
	uint16_t family;
	uint32_t seq;
};
/* A netlink socket and the TASKSTATS family. 0 or -errno. */
PS_READS int proc_taskstats_open(struct proc_taskstats_sock *s);
/* One thread's figures. 0 or -errno (-EPERM without CAP_NET_ADMIN,
 * -ESRCH when it is gone). */
PS_READS int proc_taskstats_read(struct proc_taskstats_sock *s, pid_t tid, struct proc_taskstats *out);
void proc_taskstats_close(struct proc_taskstats_sock *s);
/* Listen for the exits of every task on the CPUs of cpumask ("0-3"): 0 or
 * -errno (-EPERM without CAP_NET_ADMIN). Then each recv on s->fd is one
 * message for proc_taskstats_exit_parse (ENOBUFS: some were lost). */
PS_READS int proc_taskstats_listen(struct proc_taskstats_sock *s, const char *cpumask);

#endif
