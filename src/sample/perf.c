/* The sampling session: perf_event_open per (thread, CPU) with inherit, one
 * ring buffer per CPU (a dummy event of our own owns it; every target event
 * is redirected there with PERF_EVENT_IOC_SET_OUTPUT), records read by the
 * perf ring protocol, threads followed through FORK/EXIT records, POLLHUP
 * and a periodic rescan of /proc/PID/task. */
#include "sample/agg.h"
#include "sample/local.h"
#include "sample/sample.h"
#include "doors.h"
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
#define RESCAN_NS 250000000ULL
#define MAX_FRAMES 512

struct cpu_ring {
	int cpu;
	int fd; /* the dummy event that owns the buffer */
	void *base;
	size_t map_len;
	uint64_t data_size;
};

struct sthread {
	pid_t tid;
	int *fds;          /* per ring: the event on that CPU, -1 closed */
	bool inherited;    /* a FORK record says an inherited event samples it */
	bool gone;
	bool in_scan;
	unsigned uncovered;/* rescans seen without events */
	char comm[16];
	unsigned long samples;
};

struct samp_session {
	struct target t;
	int freq;
	struct perf_event_attr attr;
	char event[32], event_why[160];
	bool kernel_excluded;
	char kernel_why[128];

	struct cpu_ring *rings;
	unsigned nrings;
	unsigned char *scratch;

	struct sthread *threads;
	unsigned nthreads, capthreads;
	struct hmap tids;
	unsigned unsampled;
	struct pollfd *pfds;
	unsigned npfds, cappfds;
	bool pfds_stale;

	struct sym_proc *sym;
	struct agg *agg;
	struct hmap pcs;      /* pc -> function id */
	uint32_t kernel_func; /* the [kernel] bucket, when kallsyms is closed */
	bool ksyms_named;

	unsigned long long samples, lost, throttled, truncated, period_sum;
	uint64_t start_ns, last_pub_ns, last_scan_ns;
	unsigned long long cpu_ticks_start, cpu_ticks_last, cpu_ticks_pub;
	double bucket_cpu[SAMP_HISTORY]; /* /proc CPU seconds of each closed interval, newest last */
	unsigned nbucket_cpu;
	unsigned since_freq;  /* intervals closed since the last frequency change */
	bool exited;
};

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group, unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

static struct sthread *thread_get(struct samp_session *s, pid_t tid, bool add)
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

static bool thread_has_events(const struct samp_session *s, const struct sthread *t)
{
	for (unsigned c = 0; c < s->nrings; c++)
		if (t->fds[c] >= 0)
			return true;
	return false;
}

static void thread_close(struct samp_session *s, struct sthread *t)
{
	for (unsigned c = 0; c < s->nrings; c++) {
		if (t->fds[c] >= 0)
			close(t->fds[c]);
		t->fds[c] = -1;
	}
	s->pfds_stale = true;
}

static void read_comm(struct samp_session *s, struct sthread *t)
{
	char path[64], buf[32];
	snprintf(path, sizeof(path), "task/%d/comm", (int)t->tid);
	if (read_file_at(s->t.dirfd, path, buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		strlcpy_ps(t->comm, buf, sizeof(t->comm));
	}
}

/* Open the sampling event of thread t on every CPU. Returns 0 or -errno. */
static int thread_open(struct samp_session *s, struct sthread *t)
{
	for (unsigned c = 0; c < s->nrings; c++) {
		int fd = (int)perf_open(&s->attr, t->tid, s->rings[c].cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			int err = errno;
			thread_close(s, t);
			return -err;
		}
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[c].fd) < 0) {
			int err = errno;
			close(fd);
			thread_close(s, t);
			return -err;
		}
		t->fds[c] = fd;
	}
	s->pfds_stale = true;
	return 0;
}

static int open_rings(struct samp_session *s, struct ps_error *e)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct perf_event_attr d;

	if (ncpu < 1)
		ncpu = 1;
	s->rings = calloc((size_t)ncpu, sizeof(*s->rings));
	if (!s->rings)
		return ps_error_set(e, ENOMEM, "out of memory");
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
			return door_refused(e, PS_OP_SAMPLE, s->t.id.pid, errno, "open a perf ring buffer");
		}
		long page = sysconf(_SC_PAGESIZE);
		void *base = MAP_FAILED;
		size_t pages = RING_PAGES_MAX;
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
		r->base = base;
		r->map_len = (pages + 1) * (size_t)page;
		r->data_size = pages * (uint64_t)page;
		struct perf_event_mmap_page *pg = base;
		if (pg->data_size)
			r->data_size = pg->data_size;
	}
	if (!s->nrings)
		return ps_error_set(e, ENODEV, "no CPU accepted a perf event");
	return 0;
}

/* Pick the event: hardware cycles when there is a PMU, else cpu-clock. */
static int choose_event(struct samp_session *s, struct ps_error *e)
{
	struct perf_event_attr *a = &s->attr;
	struct door_sys sys;
	bool priv = door_have_cap(38 /* CAP_PERFMON */) || door_have_cap(CAP_SYS_ADMIN);

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
			 "kernel excluded: perf_event_paranoid %ld and no CAP_PERFMON", sys.perf_paranoid);
	} else {
		snprintf(s->kernel_why, sizeof(s->kernel_why), "kernel included (%s)",
			 priv ? "CAP_PERFMON/CAP_SYS_ADMIN" : "perf_event_paranoid < 2");
	}

	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_CPU_CYCLES;
	int fd = (int)perf_open(a, s->t.id.pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		snprintf(s->event, sizeof(s->event), "cycles");
		snprintf(s->event_why, sizeof(s->event_why), "hardware PMU present");
		return 0;
	}
	int err = errno;
	if (err == EACCES || err == EPERM || err == ESRCH)
		return door_refused(e, PS_OP_SAMPLE, s->t.id.pid, err, "sample");
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	fd = (int)perf_open(a, s->t.id.pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return door_refused(e, PS_OP_SAMPLE, s->t.id.pid, errno, "sample");
	close(fd);
	snprintf(s->event, sizeof(s->event), "cpu-clock");
	snprintf(s->event_why, sizeof(s->event_why), "no hardware PMU: cycles %s",
		 err == ENOENT || err == EOPNOTSUPP || err == ENODEV ? "not supported" : strerror(err));
	return 0;
}

static unsigned long long proc_ticks(struct samp_session *s)
{
	struct proc_stat st;
	if (proc_stat_read(s->t.dirfd, &st) < 0)
		return s->cpu_ticks_last;
	s->cpu_ticks_last = st.utime + st.stime;
	return s->cpu_ticks_last;
}

/* Rescan /proc/PID/task: open events for threads nothing samples yet. A
 * thread must be seen uncovered twice (rings drained in between) so a FORK
 * record from an inherited event has time to claim it first. */
static int rescan(struct samp_session *s, bool initial, int *first_err)
{
	DIR *d;
	int fd = openat(s->t.dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -ESRCH;
	}
	for (unsigned i = 0; i < s->nthreads; i++)
		s->threads[i].in_scan = false;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		struct sthread *t = thread_get(s, (pid_t)atoi(de->d_name), true);
		if (!t)
			continue;
		t->in_scan = true;
		if (t->gone && !thread_has_events(s, t)) {
			/* Its TID was reused: a new thread, not yet sampled. */
			t->gone = t->inherited = false;
			t->uncovered = 0;
			t->comm[0] = '\0';
		}
		if (!t->comm[0])
			read_comm(s, t);
		if (t->gone || t->inherited || thread_has_events(s, t))
			continue;
		if (!initial && ++t->uncovered < 2)
			continue;
		int r = thread_open(s, t);
		if (r < 0 && r != -ESRCH) {
			if (first_err && !*first_err)
				*first_err = r;
			s->unsampled++;
			t->inherited = true; /* do not retry every scan */
		}
	}
	closedir(d);
	for (unsigned i = 0; i < s->nthreads; i++) {
		struct sthread *t = &s->threads[i];
		/* Keep its events open: closing them would also end the
		 * events its children inherited. POLLHUP closes them. */
		if (!t->in_scan)
			t->gone = true;
	}
	return 0;
}

/* The function id of pc (activation: where the thread was; else a return
 * address). Cached by pc. */
static uint32_t func_of(struct samp_session *s, uint64_t pc, bool kernel, bool activation)
{
	uint64_t key = pc << 1 | activation;
	uint32_t id = hmap_get(&s->pcs, key);
	struct samp_fninfo fi = { 0 };

	if (id != HMAP_EMPTY)
		return id;
	if (kernel) {
		if (!s->ksyms_named && s->kernel_func != HMAP_EMPTY)
			return s->kernel_func;
		sym_kernel(pc, &fi.name, &fi.module);
		fi.flags = SAMP_F_KERNEL;
	} else {
		const struct sym_info *si = sym_lookup(s->sym, pc, activation);
		fi.name = si->function;
		fi.module = si->path ? si->path : si->module ? si->module : si->function;
		fi.flags = si->flags & (SAMP_F_STRIPPED | SAMP_F_DELETED | SAMP_F_ANON | SAMP_F_UNKNOWN);
		/* A function row shows where the function starts. */
		const struct sym_info *entry = si;
		if (!(si->flags & (SAMP_F_STRIPPED | SAMP_F_ANON | SAMP_F_UNKNOWN)) && si->offset && si->offset <= pc)
			entry = sym_lookup(s->sym, pc - si->offset, true);
		fi.file = entry->file;
		fi.line = entry->line;
	}
	id = agg_func(s->agg, &fi);
	if (id != HMAP_EMPTY) {
		if (kernel && !s->ksyms_named)
			s->kernel_func = id;
		else
			hmap_put(&s->pcs, key, id);
	}
	return id;
}

static void on_sample(struct samp_session *s, const struct samp_rec_sample *r)
{
	uint32_t fr[MAX_FRAMES];
	unsigned n = 0;
	enum { CTX_USER, CTX_KERNEL, CTX_OTHER } ctx = CTX_USER;
	bool first = true, complete = false, user = false;

	if ((pid_t)r->pid != s->t.id.pid)
		return;
	if (r->nr == 0) {
		uint32_t id = func_of(s, r->ip, r->ip >= 0xffff800000000000ULL, true);
		if (id != HMAP_EMPTY)
			fr[n++] = id;
	}
	for (uint64_t i = 0; i < r->nr && n < MAX_FRAMES; i++) {
		uint64_t v = r->ips[i];
		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = v == (uint64_t)PERF_CONTEXT_KERNEL ? CTX_KERNEL
			      : v == (uint64_t)PERF_CONTEXT_USER ? CTX_USER
								 : CTX_OTHER;
			first = true;
			continue;
		}
		if (ctx == CTX_OTHER)
			continue;
		/* Return addresses point after the call: the symbolizer looks
		 * up the call itself. */
		uint32_t id = func_of(s, v, ctx == CTX_KERNEL, first);
		first = false;
		if (id == HMAP_EMPTY)
			continue;
		if (ctx == CTX_USER)
			user = true;
		if (ctx == CTX_KERNEL && !s->ksyms_named && n && fr[n - 1] == id)
			continue; /* one [kernel] frame for the whole kernel part */
		fr[n++] = id;
		if (agg_func_flags(s->agg, id) & SAMP_F_ROOT) {
			complete = true; /* past the root only frame-pointer garbage */
			break;
		}
	}
	if (!n)
		return;
	if (user && !complete)
		s->truncated++;
	agg_add(s->agg, (pid_t)r->tid, fr, n);
	s->samples++;
	s->period_sum += r->period;
	struct sthread *t = thread_get(s, (pid_t)r->tid, false);
	if (t)
		t->samples++;
}

static void on_record(void *ctx, const struct perf_event_header *h)
{
	struct samp_session *s = ctx;
	const unsigned char *p = (const unsigned char *)(h + 1);
	uint32_t pt[2];

	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		struct samp_rec_sample r;
		if (samp_parse_sample(h, &r) == 0)
			on_sample(s, &r);
		break;
	}
	case PERF_RECORD_MMAP2: {
		/* pid, tid, addr, len, pgoff, maj, min, ino, ino_gen, prot, flags, filename */
		if (h->size < 8 + 72)
			break;
		memcpy(pt, p, 8);
		uint32_t prot;
		memcpy(&prot, p + 8 + 8 * 3 + 4 * 2 + 8 * 2, 4);
		const char *fn = (const char *)p + 8 + 8 * 3 + 4 * 2 + 8 * 2 + 8;
		if ((pid_t)pt[0] != s->t.id.pid || !(prot & PROT_EXEC))
			break;
		sym_proc_stale(s->sym, fn[0] != '/');
		hmap_clear(&s->pcs);
		break;
	}
	case PERF_RECORD_COMM: {
		if (h->size < 8 + 8 + 1)
			break;
		memcpy(pt, p, 8);
		if ((pid_t)pt[0] != s->t.id.pid)
			break;
		struct sthread *t = thread_get(s, (pid_t)pt[1], true);
		if (t) {
			char c[16];
			size_t avail = (size_t)h->size - 16, max = avail < sizeof(c) ? avail : sizeof(c);
			memcpy(c, p + 8, max);
			c[max - 1] = '\0';
			strlcpy_ps(t->comm, c, sizeof(t->comm));
		}
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
			sym_proc_exec(s->sym);
			hmap_clear(&s->pcs);
		}
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		/* pid, ppid, tid, ptid, time */
		uint32_t f[4];
		if (h->size < 8 + 16)
			break;
		memcpy(f, p, 16);
		if ((pid_t)f[0] != s->t.id.pid)
			break;
		struct sthread *t = thread_get(s, (pid_t)f[2], h->type == PERF_RECORD_FORK);
		if (!t)
			break;
		if (h->type == PERF_RECORD_FORK) {
			/* An inherited event samples it: drop any direct ones a
			 * rescan opened meanwhile, or it would count twice. */
			t->inherited = true;
			t->gone = false;
			if (thread_has_events(s, t))
				thread_close(s, t);
		} else if (!thread_has_events(s, t)) {
			t->gone = true;
		}
		break;
	}
	case PERF_RECORD_LOST: {
		uint64_t lost;
		if (h->size >= 8 + 16) {
			memcpy(&lost, p + 8, 8);
			s->lost += lost;
		}
		break;
	}
	case PERF_RECORD_THROTTLE:
		s->throttled++;
		break;
	default:
		break;
	}
}

static void drain(struct samp_session *s)
{
	for (unsigned c = 0; c < s->nrings; c++) {
		struct cpu_ring *r = &s->rings[c];
		long page = sysconf(_SC_PAGESIZE);
		samp_ring_drain(r->base, (const unsigned char *)r->base + page, r->data_size, s->scratch, on_record, s);
	}
}

static int open_all(struct samp_session *s, struct ps_error *e)
{
	int err = 0;

	if (rescan(s, true, &err) < 0)
		return door_refused(e, PS_OP_SAMPLE, s->t.id.pid, ESRCH, "sample");
	unsigned open = 0;
	for (unsigned i = 0; i < s->nthreads; i++)
		open += thread_has_events(s, &s->threads[i]);
	if (!open)
		return door_refused(e, PS_OP_SAMPLE, s->t.id.pid, err ? err : ESRCH, "sample");
	return 0;
}

/* The kernel refuses a frequency above kernel.perf_event_max_sample_rate
 * (which it also lowers by itself when sampling takes too long). */
static int check_rate(int hz, struct ps_error *e)
{
	struct door_sys sys;

	door_sys_read(&sys);
	if (sys.perf_max_sample_rate > 0 && hz > sys.perf_max_sample_rate)
		return ps_error_set(e, EINVAL,
				    "frequency %d Hz is above kernel.perf_event_max_sample_rate (%ld); lower it or raise the sysctl",
				    hz, sys.perf_max_sample_rate);
	return 0;
}

int samp_open(struct samp_session **out, const struct samp_opts *o, struct ps_error *e)
{
	struct samp_session *s = calloc(1, sizeof(*s));
	int r;

	*out = NULL;
	if (!s)
		return ps_error_set(e, ENOMEM, "out of memory");
	s->kernel_func = HMAP_EMPTY;
	s->freq = o->freq ? o->freq : SAMP_FREQ_DEFAULT;
	if (s->freq < SAMP_FREQ_MIN || s->freq > SAMP_FREQ_MAX) {
		free(s);
		return ps_error_set(e, EINVAL, "frequency %d Hz is outside %d..%d", o->freq, SAMP_FREQ_MIN,
				    SAMP_FREQ_MAX);
	}
	r = check_rate(s->freq, e);
	if (r == 0)
		r = target_open(&s->t, o->pid, o->want, e);
	if (r == 0 && target_is_kernel_thread(&s->t)) {
		r = ps_error_set(e, EINVAL, "process %d is a kernel thread: it has no user space to sample",
				 (int)o->pid);
		target_close(&s->t);
	}
	if (r < 0) {
		free(s);
		return r;
	}
	/* Each (thread, CPU) is one fd: lift the soft limit to the hard one. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	s->scratch = aligned_alloc(8, 65536);
	s->agg = agg_new();
	if (!s->scratch || !s->agg) {
		samp_close(s);
		return ps_error_set(e, ENOMEM, "out of memory");
	}
	if ((r = choose_event(s, e)) < 0 || (r = open_rings(s, e)) < 0) {
		samp_close(s);
		return r;
	}
	s->attr.watermark = 0;
	s->sym = sym_proc_live(s->t.id.pid, s->t.uid, SYM_SOURCE);
	if (!s->sym) {
		samp_close(s);
		return ps_error_set(e, ENOMEM, "out of memory");
	}
	s->ksyms_named = s->kernel_excluded ? false : sym_kernel_named();
	s->start_ns = s->last_pub_ns = s->last_scan_ns = now_ns();
	s->cpu_ticks_start = s->cpu_ticks_pub = proc_ticks(s);
	if ((r = open_all(s, e)) < 0) {
		samp_close(s);
		return r;
	}
	/* A library mapped between the first report and the events opening
	 * has no MMAP2 record: report again at the first lookup. */
	sym_proc_stale(s->sym, false);
	*out = s;
	return 0;
}

int samp_get_freq(const struct samp_session *s)
{
	return s->freq;
}

int samp_set_freq(struct samp_session *s, int hz, struct ps_error *e)
{
	if (hz < SAMP_FREQ_MIN || hz > SAMP_FREQ_MAX)
		return ps_error_set(e, EINVAL, "frequency %d Hz is outside %d..%d", hz, SAMP_FREQ_MIN, SAMP_FREQ_MAX);
	if (hz == s->freq)
		return 0;
	if (check_rate(hz, e) < 0)
		return -EINVAL;
	/* Inherited events keep the frequency they were born with, so reopen
	 * everything: close, forget inheritance, open every live thread. */
	drain(s);
	for (unsigned i = 0; i < s->nthreads; i++) {
		thread_close(s, &s->threads[i]);
		s->threads[i].inherited = false;
		s->threads[i].uncovered = 0;
	}
	s->freq = hz;
	s->attr.sample_freq = (uint64_t)hz;
	s->since_freq = 0;
	s->unsampled = 0;
	return open_all(s, e);
}

static void build_pfds(struct samp_session *s)
{
	unsigned need = s->nrings;
	for (unsigned i = 0; i < s->nthreads; i++)
		for (unsigned c = 0; c < s->nrings; c++)
			need += s->threads[i].fds[c] >= 0;
	if (need > s->cappfds) {
		struct pollfd *np = realloc(s->pfds, need * sizeof(*np));
		if (!np)
			return;
		s->pfds = np;
		s->cappfds = need;
	}
	s->npfds = 0;
	for (unsigned c = 0; c < s->nrings; c++)
		s->pfds[s->npfds++] = (struct pollfd){ .fd = s->rings[c].fd, .events = POLLIN };
	for (unsigned i = 0; i < s->nthreads; i++)
		for (unsigned c = 0; c < s->nrings; c++)
			if (s->threads[i].fds[c] >= 0)
				s->pfds[s->npfds++] = (struct pollfd){ .fd = s->threads[i].fds[c], .events = 0 };
	s->pfds_stale = false;
}

/* POLLHUP on a thread's event: that thread (and what it cloned) is gone. */
static void reap_hups(struct samp_session *s)
{
	for (unsigned k = s->nrings; k < s->npfds; k++) {
		if (!(s->pfds[k].revents & (POLLHUP | POLLERR)))
			continue;
		for (unsigned i = 0; i < s->nthreads; i++) {
			struct sthread *t = &s->threads[i];
			for (unsigned c = 0; c < s->nrings; c++) {
				if (t->fds[c] != s->pfds[k].fd)
					continue;
				close(t->fds[c]);
				t->fds[c] = -1;
				if (!thread_has_events(s, t))
					t->gone = true;
				s->pfds_stale = true;
			}
		}
	}
}

int samp_poll(struct samp_session *s, int timeout_ms)
{
	if (s->exited)
		return -ESRCH;
	if (s->pfds_stale)
		build_pfds(s);
	int n = poll(s->pfds, s->npfds, timeout_ms);
	drain(s);
	if (n > 0)
		reap_hups(s);
	uint64_t now = now_ns();
	if (now - s->last_scan_ns >= RESCAN_NS) {
		s->last_scan_ns = now;
		proc_ticks(s); /* the last CPU time known if it exits now */
		if (target_verify(&s->t, NULL) < 0 || rescan(s, false, NULL) < 0) {
			drain(s);
			s->exited = true;
			return -ESRCH;
		}
	}
	return 0;
}

struct samp_snapshot *samp_publish(struct samp_session *s, const char *end_reason)
{
	struct samp_snapshot *o = calloc(1, sizeof(*o));
	uint64_t now = now_ns();
	double tick = (double)sysconf(_SC_CLK_TCK);
	unsigned long long ticks = proc_ticks(s), before = s->cpu_ticks_pub;

	if (!o)
		return NULL;
	agg_close_interval(s->agg, (double)(now - s->last_pub_ns) / 1e9);
	s->last_pub_ns = now;
	if (s->nbucket_cpu == SAMP_HISTORY) {
		memmove(s->bucket_cpu, s->bucket_cpu + 1, (SAMP_HISTORY - 1) * sizeof(double));
		s->nbucket_cpu--;
	}
	s->bucket_cpu[s->nbucket_cpu++] = (double)(ticks - before) / tick;
	s->cpu_ticks_pub = ticks;

	o->target = s->t.id;
	strlcpy_ps(o->comm, s->t.comm, sizeof(o->comm));
	strlcpy_ps(o->event, s->event, sizeof(o->event));
	strlcpy_ps(o->event_why, s->event_why, sizeof(o->event_why));
	strlcpy_ps(o->kernel_why, s->kernel_why, sizeof(o->kernel_why));
	o->kernel_excluded = s->kernel_excluded;
	o->freq = s->freq;
	o->elapsed = (double)(now - s->start_ns) / 1e9;
	o->samples = s->samples;
	o->lost = s->lost;
	o->throttled = s->throttled;
	o->truncated = s->truncated;
	o->threads_unsampled = s->unsampled;
	o->cpu_proc = (double)(ticks - s->cpu_ticks_start) / tick;
	/* Clock events count nanoseconds; cycles do not, so estimate by rate. */
	o->cpu_sampled = s->attr.type == PERF_TYPE_SOFTWARE ? (double)s->period_sum / 1e9
							     : (double)s->samples / s->freq;
	/* Achieved rate over the last 10 s, at the current frequency only. */
	double secs, cpu = 0;
	unsigned span = ++s->since_freq < 10 ? s->since_freq : 10;
	unsigned long recent = agg_samples_last(s->agg, span, &secs);
	for (unsigned i = 0; i < span && i < s->nbucket_cpu; i++)
		cpu += s->bucket_cpu[s->nbucket_cpu - 1 - i];
	o->rate = cpu > 0.05 ? recent / cpu : 0;
	if (end_reason) {
		o->ended = true;
		strlcpy_ps(o->end_reason, end_reason, sizeof(o->end_reason));
	}
	o->threads = calloc(s->nthreads + 1, sizeof(*o->threads));
	if (!o->threads || agg_fill(s->agg, o, o->elapsed) < 0) {
		samp_snapshot_free(o);
		return NULL;
	}
	for (unsigned i = 0; i < s->nthreads; i++) {
		struct samp_thread *t = &o->threads[o->nthreads++];
		t->tid = s->threads[i].tid;
		memcpy(t->comm, s->threads[i].comm, sizeof(t->comm));
		t->samples = s->threads[i].samples;
		t->gone = s->threads[i].gone;
	}
	return o;
}

void samp_close(struct samp_session *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->nthreads; i++) {
		thread_close(s, &s->threads[i]);
		free(s->threads[i].fds);
	}
	free(s->threads);
	for (unsigned c = 0; c < s->nrings; c++) {
		munmap(s->rings[c].base, s->rings[c].map_len);
		close(s->rings[c].fd);
	}
	free(s->rings);
	free(s->pfds);
	hmap_free(&s->tids);
	hmap_free(&s->pcs);
	sym_proc_free(s->sym);
	agg_free(s->agg);
	free(s->scratch);
	target_close(&s->t);
	free(s);
}
