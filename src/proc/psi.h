/* Pressure stall information: /proc/pressure/{cpu,memory,io} for the
 * machine and RESOURCE.pressure in a cgroup v2 directory for a process's
 * cgroup. A pure parser and readers. */
#ifndef PS_PROC_PSI_H
#define PS_PROC_PSI_H

#include "reads.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_psi {
	double some_avg10, full_avg10;  /* % */
	uint64_t some_total, full_total; /* us stalled since boot */
	bool have_full;                 /* cpu had no "full" line before Linux 5.13 */
};

/* "some avg10=.. avg60=.. avg300=.. total=N" and the same for "full".
 * 0, or -EINVAL without a "some" line. */
int proc_psi_parse(const char *buf, size_t len, struct proc_psi *out);
/* dir/RES.pressure, or /proc/pressure/RES when dir is NULL ("cpu",
 * "memory", "io"). 0 or -errno. */
PS_READS int proc_psi_read(const char *dir, const char *res, struct proc_psi *out);
/* The cgroup v2 directory of pid (the cgroup2 mount, then its "0::" path
 * from /proc/PID/cgroup) into out. 0 or -errno (-ENOENT: no cgroup v2). */
PS_READS int proc_cgroup2_dir(pid_t pid, char *out, size_t size);

#endif
