// SPDX-License-Identifier: GPL-2.0
/* Where a thread's time goes, aggregated in the kernel: per thread on CPU,
 * run-queue wait (log2 histogram, worst waits and who ran instead),
 * blocked (outside syscalls, in a page fault, or per syscall), stopped,
 * switches, migrations and page faults; per (thread, syscall) count,
 * errors, total, max, a log2 latency histogram and the time blocked in it.
 * Only the target's threads (tgid in the kernel; 0: every task). No
 * per-event records reach user space: it reads the maps.
 *
 * The scheduler programs come twice, as tp_btf and as raw_tp: the loader
 * keeps one set (tp_btf where the kernel has it). */
#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "bpf-types.h"
#include "tbpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tgid = 0;
__u64 t0 = 0; /* window start (bpf_ktime_get_ns), set before attaching */

struct {
	__uint(type, BPF_MAP_TYPE_HASH); /* preallocated: an insert under the run-queue lock never fails for memory */
	__uint(max_entries, TB_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct tb_thread);
} ps_threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TB_MAX_SYS);
	__type(key, struct tb_sys_key);
	__type(value, struct tb_sys);
} ps_sys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TB_C_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} ps_counters SEC(".maps");

/* Per task: the system call in progress and the page fault in progress. */
struct tb_task {
	__u64 sys_t0;
	__s32 sys_nr;      /* -1: not in a syscall we saw enter */
	__u32 in_fault;
	__u64 fault_t0;
	__u64 flt_at;      /* min_flt + maj_flt at the fault's entry */
	__u64 maj_at;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tb_task);
} ps_tasks SEC(".maps");

static const struct tb_thread zero_thread;
static const struct tb_sys zero_sys;

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&ps_counters, &which);
	if (c)
		__sync_fetch_and_add(c, 1);
}

static __always_inline int wanted(__u32 tgid, __u32 tid)
{
	if (!tid)
		return 0; /* the idle task */
	return !target_tgid || tgid == target_tgid;
}

/* The same from the tgid alone (the idle tasks' is 0): the test every
 * scheduler event of every task makes, so before anything else is read. */
static __always_inline int wanted_tgid(__u32 tgid)
{
	return target_tgid ? tgid == target_tgid : tgid != 0;
}

/* A task's field: on tp_btf a plain load through the typed pointer (the
 * verifier's BTF access, relocated by CO-RE), on raw_tp a
 * bpf_probe_read_kernel call. The scheduler programs run for every task
 * on the machine: the loads are most of their cost. */
#define RD(btf, p, f) ((btf) ? (p)->f : BPF_CORE_READ(p, f))
#define RD_BITS(btf, p, f) ({ struct task_struct *rd_t = (p); \
	(btf) ? BPF_CORE_READ_BITFIELD(rd_t, f) : BPF_CORE_READ_BITFIELD_PROBED(rd_t, f); })

/* log2 of v, bucketed: 0 for v < 2. */
static __always_inline __u32 bucket(__u64 v)
{
	__u32 r = 0, s;

	s = (v > 0xFFFFFFFFULL) << 5; v >>= s; r |= s;
	s = (v > 0xFFFF) << 4; v >>= s; r |= s;
	s = (v > 0xFF) << 3; v >>= s; r |= s;
	s = (v > 0xF) << 2; v >>= s; r |= s;
	s = (v > 0x3) << 1; v >>= s; r |= s;
	r |= (v >> 1);
	return r < TB_HIST ? r : TB_HIST - 1;
}

/* The thread's entry, made at its first event of the window. */
static __always_inline struct tb_thread *thread_get(__u32 tid, struct task_struct *t)
{
	struct tb_thread *th = bpf_map_lookup_elem(&ps_threads, &tid);

	if (th)
		return th;
	bpf_map_update_elem(&ps_threads, &tid, &zero_thread, BPF_NOEXIST);
	th = bpf_map_lookup_elem(&ps_threads, &tid);
	if (!th) {
		count(TB_C_DROP_THREADS);
		return 0;
	}
	th->since_ns = t0;
	th->sys_nr = -1;
	th->early_nr = -1;
	th->last_cpu = (__u32)-1;
	BPF_CORE_READ_STR_INTO(&th->comm, t, comm);
	return th;
}

static __always_inline struct tb_sys *sys_get(__u32 tid, __s32 nr)
{
	struct tb_sys_key k = { .tid = tid, .nr = nr };
	struct tb_sys *s = bpf_map_lookup_elem(&ps_sys, &k);

	if (s)
		return s;
	bpf_map_update_elem(&ps_sys, &k, &zero_sys, BPF_NOEXIST);
	s = bpf_map_lookup_elem(&ps_sys, &k);
	if (!s)
		count(TB_C_DROP_SYS);
	return s;
}

static __always_inline unsigned int task_state(struct task_struct *t, bool btf)
{
	if (bpf_core_field_exists(t->__state))
		return RD(btf, t, __state);
	return (unsigned int)BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/* The blocked (or stopped) stretch that ends now. */
static __always_inline void end_blocked(__u32 tid, struct tb_thread *th, __u64 d)
{
	if (th->state == TB_ST_STOPPED) {
		th->stopped_ns += d;
	} else if (th->state == TB_ST_UNKNOWN) {
		th->blocked_early_ns += d;
	} else if (th->flags & TB_F_FAULT) {
		th->blocked_fault_ns += d;
	} else if (th->sys_nr >= 0) {
		struct tb_sys *s = sys_get(tid, th->sys_nr);
		if (s) {
			__sync_fetch_and_add(&s->blocked_ns, d);
			if (th->flags & TB_F_IOWAIT)
				__sync_fetch_and_add(&s->iowait_ns, d);
		}
	} else {
		th->blocked_nosys_ns += d;
	}
}

/* regs: the program may read prev's saved registers (tp_btf: the system
 * call it blocks in, even one entered before the window, and without the
 * syscall programs); else the syscall programs' record of it. */
static __always_inline void on_switch(bool preempt, struct task_struct *prev, struct task_struct *next,
				      unsigned int prev_state, bool regs)
{
	int pw = wanted_tgid(RD(regs, prev, tgid)), nw = wanted_tgid(RD(regs, next, tgid));

	if (!pw && !nw)
		return; /* another process's switch: two loads, no clock */
	__u64 now = bpf_ktime_get_ns();
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 ptid = RD(regs, prev, pid), ntid = RD(regs, next, pid);
	struct tb_thread *th;

	if (pw && ptid && (th = thread_get(ptid, prev))) {
		__u64 d = now - th->since_ns;
		if (th->state == TB_ST_ONCPU || th->state == TB_ST_UNKNOWN)
			th->oncpu_ns += d;
		else if (th->state == TB_ST_RUNQ)
			th->runq_ns += d; /* switched out before we saw it switch in */
		if (!preempt && prev_state)
			th->vol++;
		else
			th->invol++;
		th->flags = 0;
		th->sys_nr = -1;
		if (prev_state & 0x80) { /* TASK_DEAD */
			th->state = TB_ST_EXITED;
		} else if (preempt || !prev_state || !task_state(prev, regs)) {
			th->state = TB_ST_RUNQ; /* preempted, yielded, or a signal kept it runnable */
		} else if (prev_state & (4 | 8)) { /* __TASK_STOPPED, __TASK_TRACED */
			th->state = TB_ST_STOPPED;
		} else {
			struct tb_task *tk = bpf_task_storage_get(&ps_tasks, bpf_get_current_task_btf(), 0, 0);
			th->state = TB_ST_BLOCKED;
			if (RD_BITS(regs, prev, in_iowait))
				th->flags |= TB_F_IOWAIT;
			if (regs)
				th->sys_nr = (__s32)TB_REGS_SYSCALL_BTF((struct pt_regs *)bpf_task_pt_regs(prev));
			else if (tk)
				th->sys_nr = tk->sys_nr;
			/* A fault's mark counts outside a system call only (the
			 * tracepoint has no exit event to clear it). */
			if (tk && tk->in_fault && th->sys_nr < 0)
				th->flags |= TB_F_FAULT;
		}
		th->since_ns = now;
	}
	if (nw && ntid && (th = thread_get(ntid, next))) {
		__u64 d = now - th->since_ns;
		if (th->state == TB_ST_RUNQ || th->state == TB_ST_UNKNOWN) {
			th->runq_ns += d;
			th->runq_count++;
			th->runq_hist[bucket(d)]++;
			if (d > th->worst[TB_WORST - 1].ns) {
				int i = TB_WORST - 1;
				/* keep worst[] sorted, largest first */
				for (; i > 0 && d > th->worst[i - 1].ns; i--)
					th->worst[i] = th->worst[i - 1];
				if (i >= 0 && i < TB_WORST) {
					th->worst[i].ns = d;
					th->worst[i].ran_tid = ptid;
					th->worst[i].cpu = cpu;
					BPF_CORE_READ_STR_INTO(&th->worst[i].ran_comm, prev, comm);
				}
			}
		} else if (th->state == TB_ST_BLOCKED || th->state == TB_ST_STOPPED) {
			end_blocked(ntid, th, d); /* woken while we did not see it */
		}
		if (th->last_cpu != (__u32)-1 && th->last_cpu != cpu)
			th->migrations++;
		th->last_cpu = cpu;
		th->state = TB_ST_ONCPU;
		th->flags = 0;
		th->since_ns = now;
	}
}

/* regs: as on_switch; a thread blocked since before the window then says
 * which system call it waited in. */
static __always_inline void on_wakeup(struct task_struct *p, bool regs)
{
	struct tb_thread *th;
	__u32 tid;

	if (!wanted_tgid(RD(regs, p, tgid)) || !(tid = RD(regs, p, pid)) || !(th = thread_get(tid, p)))
		return;
	if (th->state != TB_ST_BLOCKED && th->state != TB_ST_STOPPED && th->state != TB_ST_UNKNOWN)
		return; /* already runnable */
	if (th->state == TB_ST_UNKNOWN && regs) {
		th->early_nr = (__s32)TB_REGS_SYSCALL_BTF((struct pt_regs *)bpf_task_pt_regs(p));
		if (RD_BITS(regs, p, in_iowait))
			th->early_flags |= TB_F_IOWAIT;
	}
	__u64 now = bpf_ktime_get_ns();
	end_blocked(tid, th, now - th->since_ns);
	th->state = TB_ST_RUNQ;
	th->flags = 0;
	th->sys_nr = -1;
	th->since_ns = now;
}

static __always_inline void on_new(struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	struct tb_thread *th;

	if (!wanted(BPF_CORE_READ(p, tgid), tid) || !(th = thread_get(tid, p)))
		return;
	th->state = TB_ST_RUNQ; /* born runnable */
	th->since_ns = bpf_ktime_get_ns();
}

static __always_inline void on_exit(struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	struct tb_thread *th;

	if (!wanted(BPF_CORE_READ(p, tgid), tid) || !(th = bpf_map_lookup_elem(&ps_threads, &tid)))
		return;
	BPF_CORE_READ_STR_INTO(&th->comm, p, comm); /* its last name */
}

SEC("tp_btf/sched_switch")
int BPF_PROG(ps_t_switch, bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state)
{
	on_switch(preempt, prev, next, prev_state, true);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(ps_t_wakeup, struct task_struct *p)
{
	on_wakeup(p, true);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(ps_t_wakeup_new, struct task_struct *p)
{
	on_new(p);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(ps_t_exit, struct task_struct *p)
{
	on_exit(p);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(ps_r_switch, bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state)
{
	on_switch(preempt, prev, next, prev_state, false);
	return 0;
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(ps_r_wakeup, struct task_struct *p)
{
	on_wakeup(p, false);
	return 0;
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(ps_r_wakeup_new, struct task_struct *p)
{
	on_new(p);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(ps_r_exit, struct task_struct *p)
{
	on_exit(p);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(ps_sys_enter, struct pt_regs *regs, long id)
{
	__u64 pt = bpf_get_current_pid_tgid();
	struct tb_task *tk;

	if (!wanted(pt >> 32, (__u32)pt))
		return 0;
	tk = bpf_task_storage_get(&ps_tasks, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!tk)
		return 0;
	tk->sys_nr = (__s32)id;
	tk->sys_t0 = bpf_ktime_get_ns();
	tk->in_fault = 0; /* the fault the tracepoint saw (no exit event) is over */
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(ps_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 pt = bpf_get_current_pid_tgid();
	struct tb_task *tk;
	struct tb_sys *s;

	if (!wanted(pt >> 32, (__u32)pt))
		return 0;
	tk = bpf_task_storage_get(&ps_tasks, bpf_get_current_task_btf(), 0, 0);
	if (!tk || !tk->sys_t0)
		return 0; /* entered before the window */
	__u64 d = bpf_ktime_get_ns() - tk->sys_t0;
	__s32 nr = tk->sys_nr;
	tk->sys_t0 = 0;
	tk->sys_nr = -1;
	if (nr < 0 || !(s = sys_get((__u32)pt, nr)))
		return 0;
	s->count++;
	if (ret < 0 && ret >= -4095)
		s->errors++;
	s->total_ns += d;
	if (d < s->min_ns || !s->min_ns)
		s->min_ns = d;
	if (d > s->max_ns)
		s->max_ns = d;
	s->hist[bucket(d)]++;
	return 0;
}

SEC("fentry/handle_mm_fault")
int BPF_PROG(ps_fault_enter, struct vm_area_struct *vma, unsigned long address, unsigned int flags,
	     struct pt_regs *regs)
{
	__u64 pt = bpf_get_current_pid_tgid();
	struct task_struct *t;
	struct tb_task *tk;

	if (!wanted(pt >> 32, (__u32)pt))
		return 0;
	t = bpf_get_current_task_btf();
	tk = bpf_task_storage_get(&ps_tasks, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!tk)
		return 0;
	tk->in_fault = 1;
	tk->fault_t0 = bpf_ktime_get_ns();
	tk->maj_at = BPF_CORE_READ(t, maj_flt);
	tk->flt_at = BPF_CORE_READ(t, min_flt) + tk->maj_at;
	return 0;
}

SEC("fexit/handle_mm_fault")
int BPF_PROG(ps_fault_exit, struct vm_area_struct *vma, unsigned long address, unsigned int flags,
	     struct pt_regs *regs, unsigned int ret)
{
	__u64 pt = bpf_get_current_pid_tgid();
	struct task_struct *t;
	struct tb_thread *th;
	struct tb_task *tk;
	__u32 tid = (__u32)pt;

	if (!wanted(pt >> 32, tid))
		return 0;
	t = bpf_get_current_task_btf();
	tk = bpf_task_storage_get(&ps_tasks, t, 0, 0);
	if (!tk || !tk->in_fault)
		return 0;
	tk->in_fault = 0;
	if (!(th = thread_get(tid, t)))
		return 0;
	__u64 maj = BPF_CORE_READ(t, maj_flt), all = BPF_CORE_READ(t, min_flt) + maj;
	/* The kernel's own accounting (mm_account_fault): a retried fault
	 * counts once, at the end, as major. */
	th->majflt += maj - tk->maj_at;
	th->minflt += (all - tk->flt_at) - (maj - tk->maj_at);
	th->fault_ns += bpf_ktime_get_ns() - tk->fault_t0;
	return 0;
}

/* Without fentry (a kernel that refuses function tracing): the fault's
 * tracepoint marks that the thread's last way into the kernel was a page
 * fault, so a block before its next system call is a block in the fault.
 * Counts come from /proc then, and the time in faults is not known. */
static __always_inline void on_fault_user(void)
{
	__u64 pt = bpf_get_current_pid_tgid();
	struct tb_task *tk;

	if (!wanted(pt >> 32, (__u32)pt))
		return;
	tk = bpf_task_storage_get(&ps_tasks, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (tk)
		tk->in_fault = 1;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(ps_t_fault, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
	on_fault_user();
	return 0;
}

SEC("raw_tp/page_fault_user")
int BPF_PROG(ps_r_fault, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
	on_fault_user();
	return 0;
}
