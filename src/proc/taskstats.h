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

#endif
