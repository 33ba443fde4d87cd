/* /proc/PID/cgroup: the process's cgroup v2 path and the systemd unit it
 * belongs to, read from the path (pure). */
#ifndef PS_PROC_CGROUP_H
#define PS_PROC_CGROUP_H

#include <stddef.h>

struct proc_cgroup {
	char path[1024];  /* the v2 ("0::") line's path, systemd's v1 one when only it names a unit, else
			   * the first line's; hostile; "" when none */
	char unit[256];   /* the deepest ".service" or ".scope" component of path; "" when none */
	char slice[256];  /* the ".slice" just above the unit (or deepest one); "" when none */
	char v2[1024];    /* the unified hierarchy's ("0::") path, "/" at its root; "" when there is none */
};

/* text: the file's contents (need not be NUL-terminated). */
void proc_cgroup_parse(const char *text, size_t len, struct proc_cgroup *out);

#endif
