/* What the time tier's BPF object (time.bpf.c) and its loader (bpf.c)
 * share: the map keys and values, aggregated in the kernel. Only fixed-
 * width types: the same header compiles for -target bpf and for the host. */
#ifndef PS_TIME_TBPF_H
#define PS_TIME_TBPF_H

#include <linux/types.h>

#define TB_HIST 36      /* log2 buckets of nanoseconds; the last holds the rest */
#define TB_WORST 4      /* worst run-queue waits kept per thread */
/* Map sizes: the loader sizes both to the target before loading. */
#define TB_MAX_THREADS 256
#define TB_MAX_SYS 1024

/* A thread's state since since_ns. */
enum tb_state {
	TB_ST_UNKNOWN,  /* before its first event of the window */
	TB_ST_ONCPU,
	TB_ST_RUNQ,     /* runnable, waiting for a CPU */
	TB_ST_BLOCKED,
	TB_ST_STOPPED,  /* stopped by a signal or a tracer */
	TB_ST_EXITED,
};

/* How a blocked thread blocked (tb_thread.flags). */
#define TB_F_IOWAIT 1u  /* in io_schedule (task_struct.in_iowait) */
#define TB_F_FAULT 2u   /* inside a page fault (handle_mm_fault) */

struct tb_wait {
	__u64 ns;
	__u32 ran_tid;          /* the task the CPU ran until this one got it */
	__u32 cpu;
	char ran_comm[16];
};

struct tb_thread {
	__u64 oncpu_ns, runq_ns, stopped_ns;
	__u64 blocked_nosys_ns;     /* blocked outside system calls and faults */
	__u64 blocked_fault_ns;     /* blocked inside a page fault */
	__u64 blocked_early_ns;     /* blocked since before the window */
	__u64 vol, invol, migrations;
	__u64 minflt, majflt, fault_ns;
	__u64 runq_count;
	__u64 since_ns;             /* when the current state began */
	__u32 state, flags;
	__s32 sys_nr;               /* system call it is blocked in, -1 none */
	__u32 last_cpu;
	__s32 early_nr;             /* the system call of the early stretch (read at its wakeup), -1 unknown: /proc's */
	__u32 early_flags;          /* TB_F_IOWAIT of it */
	__u64 runq_hist[TB_HIST];
	struct tb_wait worst[TB_WORST];
	char comm[16];
};

struct tb_sys_key {
	__u32 tid;
	__s32 nr;
};

struct tb_sys {
	__u64 count, errors, total_ns, min_ns, max_ns;
	__u64 blocked_ns, iowait_ns; /* off CPU inside it, and of that in io_schedule */
	__u64 hist[TB_HIST];
};

/* Global counters (the "counters" array map). */
enum tb_counter {
	TB_C_DROP_THREADS,  /* a thread's entry did not fit */
	TB_C_DROP_SYS,      /* a (thread, syscall) entry did not fit */
	TB_C_COUNT
};

#endif
