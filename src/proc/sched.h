/* /proc/PID/task/TID/sched (CONFIG_SCHED_DEBUG): the scheduler's own
 * counters of a thread. A pure parser and a dirfd reader. */
#ifndef PS_PROC_SCHED_H
#define PS_PROC_SCHED_H

#include "reads.h"
#include <stddef.h>
#include <stdint.h>

struct proc_sched {
	uint64_t nr_migrations;     /* se.nr_migrations */
	uint64_t nr_switches, nr_voluntary, nr_involuntary;
	uint64_t sum_exec_ns;       /* se.sum_exec_runtime (printed in ms with 6 decimals) */
	unsigned have;              /* PROC_SCHED_HAVE_* of the lines found */
};

#define PROC_SCHED_HAVE_MIGR 1u
#define PROC_SCHED_HAVE_SWITCHES 2u
#define PROC_SCHED_HAVE_EXEC 4u

/* "key : value" lines; unknown ones skipped. 0, or -EINVAL when none of
 * the known lines is there. */
int proc_sched_parse(const char *buf, size_t len, struct proc_sched *out);
PS_READS int proc_sched_read(int dirfd, struct proc_sched *out);

#endif
