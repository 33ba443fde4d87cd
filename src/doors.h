/* Doors: what the kernel lets pscope do, and why not. Every refusal a user
 * sees is worded here, once, so the UI and the batch commands agree. */
#ifndef PS_DOORS_H
#define PS_DOORS_H

#include <stdbool.h>
#include <sys/types.h>

#include "error.h"

/* The operations pscope offers on a target. */
enum ps_op {
	PS_OP_READ_PROC,  /* /proc/PID/{fd,maps,smaps,...}: ptrace read access */
	PS_OP_READ_MEM,   /* process_vm_readv: ptrace attach access */
	PS_OP_ATTACH,     /* PTRACE_SEIZE for stacks */
	PS_OP_SAMPLE,     /* perf_event_open */
	PS_OP_CORE,       /* attach + read memory + write a file */
	PS_OP_SIGNAL,     /* kill(2) */
	PS_OP_COUNT
};

const char *door_name(enum ps_door d);
const char *ps_op_name(enum ps_op op);

/* Kernel knobs; -1 when the file is absent (e.g. Yama not built in). */
struct door_sys {
	long ptrace_scope;
	long perf_paranoid;
	long kptr_restrict;
	long perf_max_sample_rate;
};
void door_sys_read(struct door_sys *s);

/* Our own effective capability (CAP_* number from linux/capability.h). */
bool door_have_cap(int cap);

/* Explain why `op` on `pid` failed with `err` (errno, either sign); `what` is
 * a short phrase such as "read /proc/42/fd". Fills e with the sentence, the
 * door that was closed and the fix. Returns -|err|. */
int door_refused(struct ps_error *e, enum ps_op op, pid_t pid, int err, const char *what);

#endif
