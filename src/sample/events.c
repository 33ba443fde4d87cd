/* The sampler's perf events: choosing the event (cycles, else cpu-clock),
 * one ring buffer per CPU owned by a dummy event of our own, and the target
 * events redirected into it with PERF_EVENT_IOC_SET_OUTPUT -- per (thread,
 * CPU) with inherit, or one per CPU for every task. The session using them
 * is perf.c. */
#include "sample/agg.h"
#include "sample/local.h"
#include "sample/session.h"
#include "sample/sample.h"
#include "doors/doors.h"
#include "i18n.h"
#include "proc/stat.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RING_PAGES_MAX 128 /* data pages per CPU: 512 KiB, perf's default mlock budget */
#define RING_PAGES_DWARF 512 /* with stack copies: 2 MiB (they are ~100x larger) */
#define RESCAN_NS 250000000ULL

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group, unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

struct sthread *samp_thread_get(struct samp_session *s, pid_t tid, bool add)
{
	uint32_t i = hmap_get(&s->tids, (uint64_t)tid);

	if (i != HMAP_EMPTY)
		return &s->threads[i];
	if (!add)
		return NULL;
	if (s->nthreads == s->capthreads) {
		unsigned nc = s->capthreads ? s->capthreads * 2 : 16;
		struct sthread *nt = realloc(s->threads, nc * sizeof(*nt));
		if (!nt)
			return NULL;
		s->threads = nt;
		s->capthreads = nc;
	}
	struct sthread *t = &s->threads[s->nthreads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->fds = malloc(s->nrings * sizeof(int));
	if (!t->fds || hmap_put(&s->tids, (uint64_t)tid, s->nthreads) < 0) {
		free(t->fds);
		return NULL;
	}
	for (unsigned c = 0; c < s->nrings; c++)
		t->fds[c] = -1;
	s->nthreads++;
	return t;
}

bool samp_thread_has_events(const struct samp_session *s, const struct sthread *t)
{
	for (unsigned c = 0; c < s->nrings; c++)
		if (t->fds[c] >= 0)
			return true;
	return false;
}

void samp_thread_close(struct samp_session *s, struct sthread *t)
{
	for (unsigned c = 0; c < s->nrings; c++) {
		if (t->fds[c] >= 0) {
			close(t->fds[c]);
			s->nfds--;
		}
		t->fds[c] = -1;
	}
	s->pfds_stale = true;
}

/* Open the sampling event of thread t on every CPU. Returns 0 or -errno. */
int samp_thread_open(struct samp_session *s, struct sthread *t)
{
	if (s->nfds + s->nrings > s->fd_budget)
		return -EMFILE; /* not even tried: the budget is spent */
	for (unsigned c = 0; c < s->nrings; c++) {
		int fd = (int)perf_open(&s->attr, t->tid, s->rings[c].cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			int err = errno;
			samp_thread_close(s, t);
			return -err;
		}
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[c].fd) < 0) {
			int err = errno;
			close(fd);
			samp_thread_close(s, t);
			return -err;
		}
		t->fds[c] = fd;
		s->nfds++;
	}
	s->pfds_stale = true;
	return 0;
}

int samp_open_rings(struct samp_session *s, struct ps_error *e)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct perf_event_attr d;

	if (ncpu < 1)
		ncpu = 1;
	s->rings = calloc((size_t)ncpu, sizeof(*s->rings));
	if (!s->rings)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.type = PERF_TYPE_SOFTWARE;
	d.config = PERF_COUNT_SW_DUMMY;
	d.exclude_kernel = s->attr.exclude_kernel;
	d.exclude_hv = 1;
	d.watermark = 1;
	for (long cpu = 0; cpu < ncpu; cpu++) {
		/* A dummy event on this thread: it never exits while we read, so
		 * the buffer outlives any target thread. */
		int fd = (int)perf_open(&d, 0, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (errno == ENODEV || errno == EINVAL || errno == ENXIO)
				continue; /* offline CPU */
			return door_refused(e, PS_OP_SAMPLE, s->t.id.pid, errno, _("open a perf ring buffer"));
		}
		long page = sysconf(_SC_PAGESIZE);
		void *base = MAP_FAILED;
		size_t pages = s->regs_mask ? RING_PAGES_DWARF : RING_PAGES_MAX;
		for (; pages >= 2; pages /= 2) {
			base = mmap(NULL, (pages + 1) * (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (base != MAP_FAILED)
				break;
			if (errno != EPERM && errno != ENOMEM)
				break;
		}
		if (base == MAP_FAILED) {
			int err = errno;
			close(fd);
			return door_perf_mmap_refused(e, err, (pages < 2 ? 2 : pages) * (size_t)page);
		}
		struct cpu_ring *r = &s->rings[s->nrings++];
		r->cpu = (int)cpu;
		r->fd = fd;
		r->ev = -1;
		r->base = base;
		r->map_len = (pages + 1) * (size_t)page;
		r->data_size = pages * (uint64_t)page;
		struct perf_event_mmap_page *pg = base;
		if (pg->data_size)
			r->data_size = pg->data_size;
	}
	if (!s->nrings)
		return ps_error_set(e, ENODEV, _("no CPU accepted a perf event"));
	return 0;
}

/* Pick the event: hardware cycles when there is a PMU, else cpu-clock. */
int samp_choose_event(struct samp_session *s, struct ps_error *e)
{
	struct perf_event_attr *a = &s->attr;
	struct door_sys sys;
	bool priv = door_have_cap(38 /* CAP_PERFMON */) || door_have_cap(CAP_SYS_ADMIN);

	/* The trial event: on the target, or (machine-wide) on every task of
	 * CPU 0, which is the door that view needs. */
	pid_t tpid = s->machine ? -1 : s->t.id.pid;
	int tcpu = s->machine ? 0 : -1;

	door_sys_read(&sys);
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->freq = 1;
	a->sample_freq = (uint64_t)s->freq;
	a->sample_type = SAMP_SAMPLE_TYPE;
	a->inherit = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->exclude_hv = 1;
	a->exclude_guest = 1;
	if (sys.perf_paranoid >= 2 && !priv) {
		a->exclude_kernel = 1;
		s->kernel_excluded = true;
		snprintf(s->kernel_why, sizeof(s->kernel_why),
			 _("kernel excluded: perf_event_paranoid %ld and no CAP_PERFMON"), sys.perf_paranoid);
	} else {
		snprintf(s->kernel_why, sizeof(s->kernel_why), _("kernel included (%s)"),
			 priv ? "CAP_PERFMON/CAP_SYS_ADMIN" : "perf_event_paranoid < 2");
	}

	if (s->stack_copy > 0) {
		a->sample_type |= SAMP_SAMPLE_DWARF;
		a->sample_regs_user = SAMP_REGS_MASK;
		a->sample_stack_user = (uint32_t)s->stack_copy;
		s->regs_mask = SAMP_REGS_MASK;
	}

	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_CPU_CYCLES;
	int fd = (int)perf_open(a, tpid, tcpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL && s->regs_mask) {
		/* A kernel without user stack sampling: frame pointers only. */
		a->sample_type &= ~(uint64_t)SAMP_SAMPLE_DWARF;
		a->sample_regs_user = 0;
		a->sample_stack_user = 0;
		s->regs_mask = 0;
		s->stack_copy = 0;
		fd = (int)perf_open(a, tpid, tcpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd >= 0) {
		close(fd);
		snprintf(s->event, sizeof(s->event), "cycles");
		snprintf(s->event_why, sizeof(s->event_why), _("hardware PMU present"));
		return 0;
	}
	int err = errno;
	if (s->machine && (err == EACCES || err == EPERM))
		return door_percpu_refused(e, err, _("sample every process"));
	if (err == EACCES || err == EPERM || err == ESRCH)
		return door_refused(e, PS_OP_SAMPLE, s->t.id.pid, err, _("sample"));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	fd = (int)perf_open(a, tpid, tcpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL && s->regs_mask) {
		a->sample_type &= ~(uint64_t)SAMP_SAMPLE_DWARF;
		a->sample_regs_user = 0;
		a->sample_stack_user = 0;
		s->regs_mask = 0;
		s->stack_copy = 0;
		fd = (int)perf_open(a, tpid, tcpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0 && s->machine && (errno == EACCES || errno == EPERM))
		return door_percpu_refused(e, errno, _("sample every process"));
	if (fd < 0)
		return door_refused(e, PS_OP_SAMPLE, s->t.id.pid, errno, _("sample"));
	close(fd);
	snprintf(s->event, sizeof(s->event), "cpu-clock");
	snprintf(s->event_why, sizeof(s->event_why), _("no hardware PMU: cycles %s"),
		 err == ENOENT || err == EOPNOTSUPP || err == ENODEV ? _("not supported") : strerror(err));
	return 0;
}

void samp_percpu_close(struct samp_session *s)
{
	for (unsigned c = 0; c < s->nrings; c++) {
		if (s->rings[c].ev >= 0)
			close(s->rings[c].ev);
		s->rings[c].ev = -1;
	}
}

/* One event per CPU for every task, into that CPU's ring; on_sample keeps
 * the target's samples. Returns 0 or -errno (EACCES/EPERM: the door). */
int samp_percpu_open(struct samp_session *s)
{
	struct perf_event_attr a = s->attr;

	a.inherit = 0; /* every task is sampled anyway */
	for (unsigned c = 0; c < s->nrings; c++) {
		int fd = (int)perf_open(&a, -1, s->rings[c].cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[c].fd) < 0) {
			int err = errno;
			if (fd >= 0)
				close(fd);
			samp_percpu_close(s);
			return -err;
		}
		s->rings[c].ev = fd;
	}
	return 0;
}
