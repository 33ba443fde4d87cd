/* What the process list does to a process besides signals: nice, CPU
 * affinity, I/O priority. Each call names the process by its identity
 * (pid + start time) and is refused with ESRCH when the pid now names
 * another process. Pure parsers for what the user types. */
#ifndef PS_PROC_ACTIONS_H
#define PS_PROC_ACTIONS_H

#define _GNU_SOURCE 1
#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

#include "reads.h"
#include "error.h"

int proc_get_nice(pid_t pid, int *nice, struct ps_error *e);
int proc_set_nice(pid_t pid, unsigned long long starttime, int nice, struct ps_error *e);
int proc_get_affinity(pid_t pid, cpu_set_t *set, struct ps_error *e);
/* Every thread of the process gets the set (as taskset -a). */
int proc_set_affinity(pid_t pid, unsigned long long starttime, const cpu_set_t *set, struct ps_error *e);

enum { PROC_IOPRIO_NONE, PROC_IOPRIO_RT, PROC_IOPRIO_BE, PROC_IOPRIO_IDLE };
int proc_get_ioprio(pid_t pid, int *cls, int *level, struct ps_error *e);
int proc_set_ioprio(pid_t pid, unsigned long long starttime, int cls, int level, struct ps_error *e);

/* "0-3,6" into set (CPUs < ncpu); -EINVAL on anything else or an empty set. */
int proc_cpulist_parse(const char *s, int ncpu, cpu_set_t *set);
const char *proc_cpulist_fmt(const cpu_set_t *set, char *buf, size_t size);
/* "be4", "rt0", "idle", "none" (also "best-effort 4"...); -EINVAL else. */
int proc_ioprio_parse(const char *s, int *cls, int *level);
const char *proc_ioprio_fmt(int cls, int level, char *buf, size_t size);



/* The whole of /proc/PID/<file> ("cmdline", "environ"), NULs turned into
 * sep (sep '\0': kept, so the items stay apart even when one holds a
 * newline); *out is malloc'd and NUL-terminated (hostile text), *len (if
 * not NULL) gets its length without the trailing NULs. Refusals name the
 * door. */
PS_READS int proc_read_nul_list(pid_t pid, unsigned long long starttime, const char *file, char sep, char **out,
		       size_t *len, struct ps_error *e);
#endif
