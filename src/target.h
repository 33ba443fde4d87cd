/* Identity of one inspected process: pid + start time (+ a pidfd). Every
 * attach, sample and core goes through it, so a reused PID is refused
 * instead of inspected. */
#ifndef PS_TARGET_H
#define PS_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "reads.h"
#include "error.h"

/* Copyable identity, carried by jobs and ring messages. */
struct target_id {
	pid_t pid;
	unsigned long long starttime; /* /proc/PID/stat field 22 */
};

/* Which program image a process runs: a new one after each execve (the
 * PID and start time stay). */
struct target_exec {
	unsigned long start_code, start_stack;
	unsigned long long exe_dev, exe_ino;
};

struct target {
	struct target_id id;
	struct target_exec exec; /* the image at target_open */
	int pidfd;        /* -1 if pidfd_open is unavailable */
	int dirfd;        /* /proc/PID */
	uid_t uid;        /* real uid of the target */
	char comm[64];    /* raw, hostile */
};

/* Read the identity of a live pid now. */
PS_READS int target_id_of(pid_t pid, struct target_id *out, struct ps_error *e);
/* Open pid; if want is not NULL, refuse (ESRCH) unless it is that same process. */
PS_READS int target_open(struct target *t, pid_t pid, const struct target_id *want, struct ps_error *e);
/* 0 while the target is the same live process; -ESRCH once it exited or
 * its pid now names another process. */
PS_READS int target_verify(const struct target *t, struct ps_error *e);
/* 1 when the process has exec'd since target_open (now_comm, if not
 * NULL, gets its new name: hostile), 0 when it runs the same image (or
 * is exiting, its image already released), -ESRCH when it is gone. */
PS_READS int target_execd(const struct target *t, char *now_comm, size_t size);
/* The refusal for an operation the exec cut short: "process 42 exec'd
 * during the stack dump (it now runs NAME): ...". Returns -ESTALE. */
int target_exec_error(const struct target *t, const char *during, const char *now_comm, struct ps_error *e);

/* A kernel thread: no user space to attach to, sample or dump. */
bool target_is_kernel_thread(const struct target *t);
bool target_id_equal(const struct target_id *a, const struct target_id *b);
void target_close(struct target *t);
/* Send sig to the process id names, never to a newcomer that reused its
 * pid: -ESRCH once it is gone, a door sentence when refused. */
int target_signal(const struct target_id *id, int sig, struct ps_error *e);

/* The whole of /proc/PID/<file> ("cmdline", "environ"), NULs turned into
 * sep (sep '\0': kept, so the items stay apart even when one holds a
 * newline); *out is malloc'd and NUL-terminated (hostile text), *len (if
 * not NULL) gets its length without the trailing NULs. Refusals name the
 * door. */
PS_READS int target_read_list(const struct target_id *id, const char *file, char sep, char **out, size_t *len,
			      struct ps_error *e);
#endif
