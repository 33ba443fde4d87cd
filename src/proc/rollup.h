/* /proc/PID/smaps_rollup: the smaps fields summed over every mapping. The
 * kernel walks the page tables under the target's mmap lock: read slowly. */
#ifndef PS_PROC_ROLLUP_H
#define PS_PROC_ROLLUP_H

#include "reads.h"

#include <stddef.h>

enum proc_rollup_field {
	RU_RSS, RU_PSS, RU_PSS_DIRTY, RU_PSS_ANON, RU_PSS_FILE, RU_PSS_SHMEM, RU_SHARED_CLEAN,
	RU_SHARED_DIRTY, RU_PRIVATE_CLEAN, RU_PRIVATE_DIRTY, RU_REFERENCED, RU_ANONYMOUS, RU_KSM,
	RU_LAZYFREE, RU_ANON_HUGE, RU_SHMEM_PMD, RU_FILE_PMD, RU_SHARED_HUGETLB,
	RU_PRIVATE_HUGETLB, RU_SWAP, RU_SWAP_PSS, RU_LOCKED, RU_COUNT
};

struct proc_rollup {
	long kb[RU_COUNT];   /* -1 when the kernel does not have the line */
};

/* The kernel's key ("Pss_Anon") and a stable JSON name ("pss_anon_kb"). */
const char *proc_rollup_key(enum proc_rollup_field f);
const char *proc_rollup_json(enum proc_rollup_field f);
int proc_rollup_parse(const char *buf, size_t len, struct proc_rollup *out);
PS_READS int proc_rollup_read(int dirfd, struct proc_rollup *out);

#endif
