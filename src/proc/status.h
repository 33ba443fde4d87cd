/* /proc/PID/status: pure parser and dirfd reader. */
#ifndef PS_PROC_STATUS_H
#define PS_PROC_STATUS_H

#include "reads.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_status {
	char name[64];                /* hostile; status escapes it but still */
	char state;
	pid_t tgid, pid, ppid, tracer_pid;
	uid_t uid_real, uid_eff, uid_saved, uid_fs;
	gid_t gid_real, gid_eff, gid_saved, gid_fs;
	long threads;
	/* kB; -1 when absent (kernel threads have no Vm* lines) */
	long vm_peak, vm_size, vm_hwm, vm_rss, rss_anon, rss_file, rss_shmem, vm_swap, vm_data,
		vm_stk, vm_exe, vm_lib, vm_pte, vm_lck;
	uint64_t cap_inh, cap_prm, cap_eff, cap_bnd, cap_amb;
	int no_new_privs;             /* -1 absent */
	int seccomp;                  /* 0 none, 1 strict, 2 filter, -1 absent */
	int seccomp_filters;
	char cpus_allowed_list[128];
	unsigned long voluntary_ctxt, nonvoluntary_ctxt;
	/* NSpid: the pid in each pid namespace from the reader's down to the
	 * process's own (nspid[nspid_n - 1]); nspid_n > 1 when it runs in a
	 * pid namespace below ours (a container). 0 when absent. */
	pid_t nspid[8];
	int nspid_n;
};

int proc_status_parse(const char *buf, size_t len, struct proc_status *out);
PS_READS int proc_status_read(int dirfd, struct proc_status *out);

#endif
