/* Opening perf events: the one perf_event_open call, events redirected
 * into a shared ring, and the sampling event chosen with perf's fallbacks
 * (perf.h), each refusal worded by its door. */
#include "perf/perf.h"
#include "doors/doors.h"
#include "i18n.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int perf_open(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

int perf_open_into(const struct perf_event_attr *a, pid_t pid, int cpu, const struct perf_ring *r)
{
	int fd = perf_open(a, pid, cpu, -1);

	if (fd < 0)
		return fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0) {
		int err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

int perf_event_id(int fd, uint64_t *id)
{
	return ioctl(fd, PERF_EVENT_IOC_ID, id) < 0 ? -errno : 0;
}

int perf_refused(struct ps_error *e, pid_t pid, int err, const char *what)
{
	if (pid == -1)
		return door_percpu_refused(e, err, what);
	return door_refused(e, PS_OP_SAMPLE, pid, err, what);
}

#define DWARF_BITS (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

/* Open a, close it: 0 or -errno, after the adjustments perf makes: a
 * lower precise_ip, no user stack copies, no kernel samples. */
static int try_open(struct perf_event_attr *a, const struct perf_sampling *rq, struct perf_choice *c)
{
	for (;;) {
		int fd = perf_open(a, rq->pid, rq->cpu, -1);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if ((fd == -EINVAL || fd == -EOPNOTSUPP) && a->precise_ip) {
			a->precise_ip--;
		} else if (fd == -EINVAL && (a->sample_type & DWARF_BITS)) {
			/* A kernel without user stack sampling: frame pointers only. */
			a->sample_type &= ~(uint64_t)DWARF_BITS;
			a->sample_regs_user = 0;
			a->sample_stack_user = 0;
			c->stack_dropped = true;
		} else if ((fd == -EACCES || fd == -EPERM) && !a->exclude_kernel) {
			/* Kernel samples refused past what the sysctl told (an LSM,
			 * a container's policy): user space only, as perf does. */
			a->exclude_kernel = 1;
			c->kernel_excluded = true;
			snprintf(c->kernel_why, sizeof(c->kernel_why), _("kernel excluded: the kernel refused kernel samples (%s)"),
				 strerror(-fd));
		} else {
			return fd;
		}
	}
}

int perf_choose_sampling(const struct perf_sampling *rq, struct perf_choice *c, struct ps_error *e)
{
	struct perf_event_attr *a = &c->attr;
	struct door_sys sys;
	bool priv = door_have_cap(CAP_PERFMON) || door_have_cap(CAP_SYS_ADMIN);

	memset(c, 0, sizeof(*c));
	door_sys_read(&sys);
	a->size = sizeof(*a);
	a->freq = 1;
	a->sample_freq = (uint64_t)rq->freq;
	a->sample_type = rq->sample_type;
	a->inherit = rq->inherit;
	if (rq->side_records) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->sample_id_all = 1;
	}
	a->exclude_hv = 1;
	a->exclude_guest = 1;
	if (sys.perf_paranoid >= 2 && !priv) {
		a->exclude_kernel = 1;
		c->kernel_excluded = true;
		snprintf(c->kernel_why, sizeof(c->kernel_why),
			 _("kernel excluded: perf_event_paranoid %ld and no CAP_PERFMON"), sys.perf_paranoid);
	} else {
		snprintf(c->kernel_why, sizeof(c->kernel_why), _("kernel included (%s)"),
			 priv ? "CAP_PERFMON/CAP_SYS_ADMIN" : "perf_event_paranoid < 2");
	}
	if (rq->regs_user && rq->stack_user) {
		a->sample_type |= DWARF_BITS;
		a->sample_regs_user = rq->regs_user;
		a->sample_stack_user = rq->stack_user;
	}

	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_CPU_CYCLES;
	a->precise_ip = rq->precise ? 2 : 0;
	int err = try_open(a, rq, c);
	if (err == 0) {
		snprintf(c->event, sizeof(c->event), "cycles");
		snprintf(c->event_why, sizeof(c->event_why), _("hardware PMU present"));
		return 0;
	}
	if (err == -EACCES || err == -EPERM || err == -ESRCH)
		return perf_refused(e, rq->pid, err, rq->what);
	char cycles[64];
	snprintf(cycles, sizeof(cycles), "%s",
		 err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV ? _("not supported") : strerror(-err));

	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->precise_ip = 0;
	int r = try_open(a, rq, c);
	if (r == 0) {
		snprintf(c->event, sizeof(c->event), "cpu-clock");
		snprintf(c->event_why, sizeof(c->event_why), _("no hardware PMU: cycles %s"), cycles);
		return 0;
	}
	/* task-clock counts a task's own time: no use for every task of a CPU. */
	if (rq->pid != -1 && (r == -ENOENT || r == -EOPNOTSUPP || r == -ENODEV)) {
		a->config = PERF_COUNT_SW_TASK_CLOCK;
		int t = try_open(a, rq, c);
		if (t == 0) {
			snprintf(c->event, sizeof(c->event), "task-clock");
			snprintf(c->event_why, sizeof(c->event_why), _("no hardware PMU: cycles %s, cpu-clock %s"), cycles,
				 strerror(-r));
			return 0;
		}
		r = t;
	}
	return perf_refused(e, rq->pid, r, rq->what);
}
