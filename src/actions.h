/* What the process list does to a process besides signals: nice, CPU
 * affinity, I/O priority. Each call names the process by its identity and
 * a change is refused with ESRCH when the pid now names another process.
 * Pure parsers for what the user types. */
#ifndef PS_ACTIONS_H
#define PS_ACTIONS_H

#define _GNU_SOURCE 1
#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"
#include "target.h"

int act_get_nice(const struct target_id *id, int *nice, struct ps_error *e);
int act_set_nice(const struct target_id *id, int nice, struct ps_error *e);
int act_get_affinity(const struct target_id *id, cpu_set_t *set, struct ps_error *e);
/* Every thread of the process gets the set (as taskset -a). */
int act_set_affinity(const struct target_id *id, const cpu_set_t *set, struct ps_error *e);

enum { ACT_IOPRIO_NONE, ACT_IOPRIO_RT, ACT_IOPRIO_BE, ACT_IOPRIO_IDLE };
int act_get_ioprio(const struct target_id *id, int *cls, int *level, struct ps_error *e);
int act_set_ioprio(const struct target_id *id, int cls, int level, struct ps_error *e);

/* "0-3,6" into set (CPUs < ncpu); -EINVAL on anything else or an empty set. */
int act_cpulist_parse(const char *s, int ncpu, cpu_set_t *set);
const char *act_cpulist_fmt(const cpu_set_t *set, char *buf, size_t size);
/* "be4", "rt0", "idle", "none" (also "best-effort 4"...); -EINVAL else. */
int act_ioprio_parse(const char *s, int *cls, int *level);
const char *act_ioprio_fmt(int cls, int level, char *buf, size_t size);



#endif
