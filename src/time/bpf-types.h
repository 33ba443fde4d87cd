/* The few kernel types the time tier's BPF object reads, declared for
 * CO-RE: libbpf relocates every field access against the running kernel's
 * BTF (/sys/kernel/btf/vmlinux), so the layout here is only a name list,
 * not the kernel's. No generated vmlinux.h: the build does not depend on
 * the build machine's kernel. */
#ifndef PS_TIME_BPF_TYPES_H
#define PS_TIME_BPF_TYPES_H

struct task_struct {
	unsigned int __state;
	int pid;
	int tgid;
	unsigned int in_iowait : 1;
	unsigned long min_flt, maj_flt;
	char comm[16];
} __attribute__((preserve_access_index));

/* Before Linux 5.14 the state field was "long state". */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/* A task's user registers as its kernel entry saved them: which system
 * call it is in (-ENOSYS in ax while one runs on x86; syscallno -1 on
 * arm64 outside one). */
#if defined(__TARGET_ARCH_arm64)
struct pt_regs {
	int syscallno;
} __attribute__((preserve_access_index));
#define TB_REGS_SYSCALL(r) BPF_CORE_READ(r, syscallno)
#define TB_REGS_SYSCALL_BTF(r) ((r)->syscallno)
#else
struct pt_regs {
	unsigned long ax, orig_ax;
} __attribute__((preserve_access_index));
#define TB_REGS_SYSCALL(r) ((long)BPF_CORE_READ(r, ax) == -38 /* -ENOSYS */ ? (long)BPF_CORE_READ(r, orig_ax) : -1L)
/* The same through a typed pointer (tp_btf: bpf_task_pt_regs's): plain loads. */
#define TB_REGS_SYSCALL_BTF(r) ((long)(r)->ax == -38 ? (long)(r)->orig_ax : -1L)
#endif
struct vm_area_struct;

#endif
