/* Errors: every fallible function returns 0 or a negative errno and fills a
 * struct ps_error with a human sentence and, when the kernel refused, the
 * "door" that was closed and how to open it (see doors.h). */
#ifndef PS_ERROR_H
#define PS_ERROR_H

#include <stddef.h>

enum ps_door {
	DOOR_NONE = 0,
	DOOR_PROC_READ,      /* /proc/PID files behind ptrace "read" access mode */
	DOOR_PTRACE_UID,     /* target owned by another user: CAP_SYS_PTRACE */
	DOOR_PTRACE_SCOPE,   /* kernel.yama.ptrace_scope */
	DOOR_PTRACE_TRACED,  /* somebody already traces the target */
	DOOR_DUMPABLE,       /* target set PR_SET_DUMPABLE 0 / setuid */
	DOOR_PERF_PARANOID,  /* kernel.perf_event_paranoid */
	DOOR_PERF_CAP,       /* CAP_PERFMON / CAP_SYS_ADMIN */
	DOOR_SECCOMP,        /* our own seccomp filter forbids the syscall */
	DOOR_SIGNAL,         /* kill(2) permission */
	DOOR_FILESYSTEM,     /* file permission, space */
	DOOR_PERF_MLOCK,     /* kernel.perf_event_mlock_kb / RLIMIT_MEMLOCK */
	DOOR_LSM,            /* a security module or sandbox refuses even root */
	DOOR_TRACEFS,        /* tracefs (tracepoint formats and ids) is root's */
	DOOR_BPF,            /* CAP_BPF + CAP_PERFMON (root) for bpf(2) */
	DOOR_BTF,            /* kernel BTF, /sys/kernel/btf/vmlinux */
	DOOR_COUNT
};

/* The door's name ("kernel.yama.ptrace_scope"), English: JSON and other
 * output that programs read. */
const char *door_name(enum ps_door d);
/* The same name translated, for people (text output, screens). */
const char *door_label(enum ps_door d);

struct ps_error {
	int code;              /* positive errno, 0 when no error */
	enum ps_door door;     /* DOOR_NONE unless the kernel refused */
	char msg[512];         /* one sentence: what failed */
	char fix[256];         /* how to open the door; empty when not a door */
};

/* Fill e (if not NULL) and return -code. */
int ps_error_set(struct ps_error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ps_error_clear(struct ps_error *e);
/* "msg (door: NAME; fix: FIX)" in buf. */
const char *ps_error_str(const struct ps_error *e, char *buf, size_t size);

#endif
