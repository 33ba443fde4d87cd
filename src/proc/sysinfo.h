/* System-wide meters: /proc/stat (CPU times), /proc/meminfo, /proc/loadavg,
 * /proc/uptime. Pure parsers plus readers. */
#ifndef PS_PROC_SYSINFO_H
#define PS_PROC_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "reads.h"

#define SYS_MAX_CPUS 1024

/* One "cpu" line of /proc/stat, in clock ticks. */
struct sys_cpu_times {
	unsigned long long user, nice, system, idle, iowait, irq, softirq, steal, guest, guest_nice;
};

/* Large (86 KiB) for the sake of SYS_MAX_CPUS, but only the first ncpu
 * entries of cpu_id and cpu are ever written or read: a machine with few
 * CPUs keeps the rest of it untouched (not resident). */
struct sys_stat {
	struct sys_cpu_times total;
	int ncpu;                      /* number of cpuN lines */
	unsigned long long ctxt, btime, processes;
	int procs_running, procs_blocked;
	int cpu_id[SYS_MAX_CPUS];      /* N of each line (offline CPUs are absent) */
	struct sys_cpu_times cpu[SYS_MAX_CPUS];
};

/* Busy fractions (0..1) of one CPU between two samples. */
struct sys_cpu_usage {
	double user, nice, system, irq, steal, busy;
};

/* kB, from /proc/meminfo; 0 when a line is absent. */
struct sys_meminfo {
	unsigned long long total, free, available, buffers, cached, sreclaimable, shmem;
	unsigned long long swap_total, swap_free, swap_cached;
	unsigned long long used;       /* total - free - buffers - cached - sreclaimable */
};

struct sys_loadavg {
	double load[3];
	int running, total;            /* scheduling entities */
	int last_pid;
};

/* Fills the fields and the first ncpu CPU entries; the entries past those
 * are left as they were. */
int sys_stat_parse(const char *buf, size_t len, struct sys_stat *out);
int sys_meminfo_parse(const char *buf, size_t len, struct sys_meminfo *out);
int sys_loadavg_parse(const char *buf, size_t len, struct sys_loadavg *out);
int sys_uptime_parse(const char *buf, size_t len, double *uptime, double *idle);

/* Usage of one CPU (or the total) between prev and cur. */
void sys_cpu_usage(const struct sys_cpu_times *prev, const struct sys_cpu_times *cur,
		   struct sys_cpu_usage *out);

/* Readers of the real files. Return 0 or -errno. */
PS_READS int sys_stat_read(struct sys_stat *out);
PS_READS int sys_meminfo_read(struct sys_meminfo *out);
PS_READS int sys_loadavg_read(struct sys_loadavg *out);
PS_READS int sys_uptime_read(double *uptime);

/* "3 days, 01:02:03" / "01:02:03" */
const char *sys_fmt_uptime(double seconds, char *buf, size_t size);

/* The system meters at one instant, as plain data (a list snapshot holds
 * one): the counters, and the CPU usage since the previous one. */
struct sys_snapshot {
	int ncpu;
	int *cpu_id;                   /* ncpu entries: N of each cpuN line */
	struct sys_cpu_times total_t;  /* the counters */
	struct sys_cpu_times *cpu_t;   /* ncpu */
	struct sys_cpu_usage total;    /* since prev (sys_snapshot_usage) */
	struct sys_cpu_usage *cpu;     /* ncpu */
	struct sys_meminfo mem;
	struct sys_loadavg load;
	double uptime;
};

/* cur's CPU usage since prev (NULL: no usage yet: zeros), CPUs matched by
 * id (they can go offline between two). Pure. */
void sys_snapshot_usage(const struct sys_snapshot *prev, struct sys_snapshot *cur);

#endif
