/* The perf sampler, a source (source.h): events per (thread, CPU) with
 * inherit or per CPU (events.c), one ring buffer per CPU, records read
 * through src/perf/'s reader into record.c's or machine.c's consumer,
 * threads followed through FORK/EXIT records, POLLHUP and a periodic
 * rescan of /proc/PID/task. */
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define RESCAN_NS 250000000ULL

static const struct samp_source_ops perf_ops;

static struct samp_session *of(const struct samp_source *src)
{
	return (struct samp_session *)src; /* src is its first member */
}

static void read_comm(struct samp_session *s, struct sthread *t)
{
	char path[64], buf[32];
	snprintf(path, sizeof(path), "task/%d/comm", (int)t->th.tid);
	if (read_file_at(s->t.dirfd, path, buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		strlcpy_ps(t->th.comm, buf, sizeof(t->th.comm));
	}
}

static unsigned long long proc_ticks(struct samp_session *s)
{
	struct proc_stat st;
	if (s->machine)
		return s->cpu_ticks_last = samp_machine_ticks();
	if (proc_stat_read(s->t.dirfd, &st) < 0)
		return s->cpu_ticks_last;
	s->cpu_ticks_last = st.utime + st.stime;
	return s->cpu_ticks_last;
}

static unsigned count_tasks(struct samp_session *s)
{
	unsigned n = 0;
	int fd = openat(s->t.dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(d)))
		n += de->d_name[0] >= '0' && de->d_name[0] <= '9';
	closedir(d);
	return n;
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
		/* Out of fds or memory is not the process exiting. */
		int err = fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOMEM) ? -errno : -ESRCH;
		if (fd >= 0)
			close(fd);
		return err;
	}
	for (unsigned i = 0; i < s->nthreads; i++)
		s->threads[i].in_scan = false;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		struct sthread *t = samp_thread_get(s, (pid_t)atoi(de->d_name), true);
		if (!t)
			continue;
		t->in_scan = true;
		if (t->th.gone && !samp_thread_has_events(s, t)) {
			/* Its TID was reused: a new thread, not yet sampled. */
			t->th.gone = t->inherited = false;
			t->uncovered = 0;
			t->th.comm[0] = '\0';
		}
		if (!t->th.comm[0])
			read_comm(s, t);
		if (s->percpu || t->th.gone || t->inherited || samp_thread_has_events(s, t))
			continue;
		if (!initial && ++t->uncovered < 2)
			continue;
		int r = samp_thread_open(s, t);
		if (r < 0 && r != -ESRCH) {
			if (first_err && !*first_err)
				*first_err = r;
			s->unsampled++;
			t->inherited = true; /* do not retry every scan */
			if (r == -EMFILE || r == -ENFILE)
				snprintf(s->unsampled_why, sizeof(s->unsampled_why),
					 _("one event per thread and CPU, and the fd limit (%u) allows %u; per-CPU events need "
					   "perf_event_paranoid <= 0 or CAP_PERFMON"),
					 s->fd_limit, s->fd_budget);
			else if (!s->unsampled_why[0])
				snprintf(s->unsampled_why, sizeof(s->unsampled_why), "%s", strerror(-r));
		}
	}
	closedir(d);
	for (unsigned i = 0; i < s->nthreads; i++) {
		struct sthread *t = &s->threads[i];
		/* Keep its events open: closing them would also end the
		 * events its children inherited. POLLHUP closes them. */
		if (!t->in_scan)
			t->th.gone = true;
	}
	return 0;
}

/* A COMM record of the rings' unread ones: the target's exec? */
static void exec_seen(void *ctx, const struct perf_event_header *h)
{
	struct samp_session *s = ctx;
	struct perf_comm c;

	if (perf_decode_comm(h, &s->rd.fmt, &c) < 0 || !c.exec || (pid_t)c.pid != s->t.id.pid)
		return;
	if (!s->execd || c.id.time < s->exec_time) { /* the earliest */
		s->execd = true;
		s->exec_time = c.id.time;
		strlcpy_ps(s->exec_comm, c.comm, sizeof(s->exec_comm));
	}
}

static void drain(struct samp_session *s)
{
	/* An exec in any ring first: the rings are read one after the other,
	 * and the new program's samples may sit in a ring read before the
	 * one that tells of the exec. Samples from its time on are dropped. */
	if (!s->execd && !s->machine)
		for (unsigned c = 0; c < s->nrings; c++)
			perf_ring_peek(&s->rings[c].r, PERF_RECORD_COMM, s->rd.scratch, exec_seen, s);
	for (unsigned c = 0; c < s->nrings; c++)
		perf_read(&s->rd, &s->rings[c].r);
}

static int open_all(struct samp_session *s, struct ps_error *e)
{
	int err = 0;

	int r = rescan(s, true, &err);
	if (r < 0)
		return r == -ESRCH ? door_refused(e, PS_OP_SAMPLE, s->t.id.pid, ESRCH, _("sample"))
				   : ps_error_set(e, -r, _("cannot list the threads of %d: %s"), (int)s->t.id.pid, strerror(-r));
	if (s->percpu)
		return 0;
	unsigned open = 0;
	for (unsigned i = 0; i < s->nthreads; i++)
		open += samp_thread_has_events(s, &s->threads[i]);
	if (!open)
		return door_refused(e, PS_OP_SAMPLE, s->t.id.pid, err ? err : ESRCH, _("sample"));
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
				    _("frequency %d Hz is above kernel.perf_event_max_sample_rate (%ld); lower it or raise the sysctl"),
				    hz, sys.perf_max_sample_rate);
	return 0;
}

static void perf_close(struct samp_source *src);

int samp_perf_open(struct samp_source **out, const struct samp_opts *o, struct ps_error *e)
{
	struct samp_session *s = calloc(1, sizeof(*s));
	int r;

	*out = NULL;
	if (!s)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	s->src.ops = &perf_ops;
	s->kernel_func = SAMP_NONE;
	s->freq = o->freq ? o->freq : SAMP_FREQ_DEFAULT;
	s->stack_copy = o->stack_copy == 0 ? SAMP_STACK_COPY_DEFAULT : o->stack_copy < 0 ? 0 : o->stack_copy;
	if (s->stack_copy > SAMP_STACK_COPY_MAX || (s->stack_copy & 7)) {
		free(s);
		return ps_error_set(e, EINVAL, _("stack copy of %d bytes: a multiple of 8, at most %d"), o->stack_copy,
				    SAMP_STACK_COPY_MAX);
	}
	if (s->freq < SAMP_FREQ_MIN || s->freq > SAMP_FREQ_MAX) {
		free(s);
		return ps_error_set(e, EINVAL, _("frequency %d Hz is outside %d..%d"), o->freq, SAMP_FREQ_MIN,
				    SAMP_FREQ_MAX);
	}
	s->t.pidfd = s->t.dirfd = -1;
	s->machine = o->pid == 0;
	r = check_rate(s->freq, e);
	if (r == 0 && !s->machine)
		r = target_open(&s->t, o->pid, o->want, e);
	if (r == 0 && !s->machine && target_is_kernel_thread(&s->t)) {
		r = ps_error_set(e, EINVAL, _("process %d is a kernel thread: it has no user space to sample"),
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
	/* The events may use the limit but a reserve: pscope's own files, the
	 * modules the symbolizer opens, the rest of the inspector. */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 20))
		rl.rlim_cur = 1u << 20;
	s->fd_limit = (unsigned)rl.rlim_cur;
	s->fd_budget = rl.rlim_cur > 512 ? (unsigned)(rl.rlim_cur - rl.rlim_cur / 8 - 64) : (unsigned)rl.rlim_cur / 2;
	s->agg = agg_new(SAMP_UNIT_SAMPLES);
	if (!s->agg) {
		perf_close(&s->src);
		return ps_error_set(e, ENOMEM, _("out of memory"));
	}
	if ((r = samp_choose_event(s, e)) < 0 || (r = samp_open_rings(s, e)) < 0) {
		perf_close(&s->src);
		return r;
	}
	struct perf_format fmt;
	perf_format_of(&s->ev.attr, &fmt);
	if (perf_reader_init(&s->rd, s->machine ? &samp_machine_consumer : &samp_process_consumer, s, &fmt) < 0) {
		perf_close(&s->src);
		return ps_error_set(e, ENOMEM, _("out of memory"));
	}
	s->rd.pid = s->machine ? 0 : s->t.id.pid; /* per-CPU events keep the target's records */
	s->ksyms_named = s->ev.kernel_excluded ? false : sym_kernel_named();
	if (s->machine) {
		if ((r = samp_machine_open(s, e)) < 0) {
			perf_close(&s->src);
			return r;
		}
		s->percpu = true;
		s->start_ns = s->last_pub_ns = s->last_scan_ns = now_ns();
		s->cpu_ticks_start = s->cpu_ticks_pub = proc_ticks(s);
		*out = &s->src;
		return 0;
	}
	if (samp_space_init(&s->one, s->t.id.pid, s->t.uid, SYM_SOURCE, s->regs_mask != 0) < 0) {
		perf_close(&s->src);
		return ps_error_set(e, ENOMEM, _("out of memory"));
	}
	unsigned ntasks = count_tasks(s);
	if (o->events == SAMP_EVENTS_CPU || (o->events == SAMP_EVENTS_AUTO && ntasks > SAMP_PERCPU_THREADS)) {
		r = samp_percpu_open(s);
		if (r == 0) {
			s->percpu = true;
		} else if (o->events == SAMP_EVENTS_CPU) {
			r = door_percpu_refused(e, r, _("sample per CPU"));
			perf_close(&s->src);
			return r;
		}
	}
	s->start_ns = s->last_pub_ns = s->last_scan_ns = now_ns();
	s->cpu_ticks_start = s->cpu_ticks_pub = proc_ticks(s);
	if ((r = open_all(s, e)) < 0) {
		perf_close(&s->src);
		return r;
	}
	/* A library mapped between the first report and the events opening
	 * has no MMAP2 record: report again at the first lookup. */
	sym_proc_stale(s->one.sym, false);
	*out = &s->src;
	return 0;
}

int samp_space_init(struct samp_space *sp, pid_t pid, uid_t uid, unsigned sym_opts, bool unwind)
{
	memset(sp, 0, sizeof(*sp));
	sp->sym = sym_proc_live(pid, uid, sym_opts);
	if (!sp->sym)
		return -ENOMEM;
	if (unwind) {
		sp->maps_gen = sym_proc_sync(sp->sym);
		sp->uw = sym_unwinder_new(pid, sym_proc_maps(sp->sym));
		if (!sp->uw) {
			samp_space_fini(sp);
			return -ENOMEM;
		}
		sym_unwinder_set_view(sp->uw, sp->sym);
	}
	return 0;
}

void samp_space_fini(struct samp_space *sp)
{
	hmap_free(&sp->pcs);
	sym_unwinder_free(sp->uw);
	sym_proc_free(sp->sym);
	memset(sp, 0, sizeof(*sp));
}

static unsigned long long perf_count(const struct samp_source *src)
{
	return of(src)->samples;
}

static int perf_freq(const struct samp_source *src)
{
	return of(src)->freq;
}

static int perf_set(struct samp_source *src, int hz, bool idle, struct ps_error *e)
{
	struct samp_session *s = of(src);

	(void)idle; /* perf samples what runs: an idle thread has no samples */
	if (hz == s->freq)
		return 0;
	if (hz < SAMP_FREQ_MIN || hz > SAMP_FREQ_MAX)
		return ps_error_set(e, EINVAL, _("frequency %d Hz is outside %d..%d"), hz, SAMP_FREQ_MIN, SAMP_FREQ_MAX);
	if (check_rate(hz, e) < 0)
		return -EINVAL;
	if (s->percpu) {
		drain(s);
		samp_percpu_close(s);
		s->freq = hz;
		s->ev.attr.sample_freq = (uint64_t)hz;
		s->since_freq = 0;
		int r = samp_percpu_open(s);
		return r < 0 ? door_percpu_refused(e, r, _("sample per CPU")) : 0;
	}
	/* Inherited events keep the frequency they were born with, so reopen
	 * everything: close, forget inheritance, open every live thread. */
	drain(s);
	for (unsigned i = 0; i < s->nthreads; i++) {
		samp_thread_close(s, &s->threads[i]);
		s->threads[i].inherited = false;
		s->threads[i].uncovered = 0;
	}
	s->freq = hz;
	s->ev.attr.sample_freq = (uint64_t)hz;
	s->since_freq = 0;
	s->unsampled = 0;
	s->unsampled_why[0] = '\0';
	return open_all(s, e);
}

static void build_pfds(struct samp_session *s)
{
	perf_pollset_clear(&s->ps);
	for (unsigned c = 0; c < s->nrings; c++)
		if (perf_pollset_add(&s->ps, s->rings[c].r.fd, true, 0) < 0)
			return; /* stale still: again at the next poll */
	for (unsigned i = 0; i < s->nthreads; i++)
		for (unsigned c = 0; c < s->nrings; c++)
			if (s->threads[i].fds[c] >= 0 &&
			    perf_pollset_add(&s->ps, s->threads[i].fds[c], false, (uint64_t)i * s->nrings + c) < 0)
				return;
	s->pfds_stale = false;
}

/* A thread's event hung up: that thread (and what it cloned) is gone. */
static void reap_hups(struct samp_session *s)
{
	unsigned at = 0;
	uint64_t tag;
	int fd;

	while (perf_pollset_gone(&s->ps, &at, &fd, &tag)) {
		struct sthread *t = &s->threads[tag / s->nrings];
		unsigned c = (unsigned)(tag % s->nrings);
		if (t->fds[c] != fd)
			continue;
		close(t->fds[c]);
		t->fds[c] = -1;
		s->nfds--;
		if (!samp_thread_has_events(s, t))
			t->th.gone = true;
		s->pfds_stale = true;
	}
}

static int perf_poll(struct samp_source *src, int timeout_ms)
{
	struct samp_session *s = of(src);

	if (s->exited)
		return -ESRCH;
	if (s->execd)
		return -ESTALE;
	if (s->pfds_stale)
		build_pfds(s);
	int n = perf_pollset_wait(&s->ps, timeout_ms);
	drain(s);
	if (s->execd)
		return -ESTALE;
	if (n > 0)
		reap_hups(s);
	uint64_t now = now_ns();
	if (!s->machine && now - s->last_scan_ns >= RESCAN_NS) {
		s->last_scan_ns = now;
		proc_ticks(s); /* the last CPU time known if it exits now */
		/* Only the process being gone ends sampling: a full fd table
		 * or no memory for the task list is not an exit. */
		if (target_verify(&s->t, NULL) < 0 || rescan(s, false, NULL) == -ESRCH) {
			drain(s);
			s->exited = true;
			return -ESRCH;
		}
		/* An exec no COMM record told (none came yet): stop here too. */
		if (!s->execd && target_execd(&s->t, s->exec_comm, sizeof(s->exec_comm)) == 1) {
			s->execd = true;
			return -ESTALE;
		}
	}
	return 0;
}

static struct samp_snapshot *perf_publish(struct samp_source *src, const char *end_reason)
{
	struct samp_session *s = of(src);
	struct samp_snapshot *o = calloc(1, sizeof(*o));
	uint64_t now = now_ns();
	double tick = (double)sysconf(_SC_CLK_TCK);
	unsigned long long ticks = proc_ticks(s), before = s->cpu_ticks_pub;

	if (!o)
		return NULL;
	drain(s); /* what the rings hold now belongs to this interval */
	agg_close_interval(s->agg, (double)(now - s->last_pub_ns) / 1e9);
	if (!s->machine)
		samp_pchist_close(&s->pchist);
	s->last_pub_ns = now;
	if (s->nbucket_cpu == SAMP_HISTORY) {
		memmove(s->bucket_cpu, s->bucket_cpu + 1, (SAMP_HISTORY - 1) * sizeof(double));
		s->nbucket_cpu--;
	}
	s->bucket_cpu[s->nbucket_cpu++] = (double)(ticks - before) / tick;
	s->cpu_ticks_pub = ticks;

	o->target = s->t.id;
	strlcpy_ps(o->comm, s->t.comm, sizeof(o->comm));
	strlcpy_ps(o->event, s->ev.event, sizeof(o->event));
	strlcpy_ps(o->event_why, s->ev.event_why, sizeof(o->event_why));
	strlcpy_ps(o->kernel_why, s->ev.kernel_why, sizeof(o->kernel_why));
	o->kernel_excluded = s->ev.kernel_excluded;
	o->freq = s->freq;
	o->elapsed = (double)(now - s->start_ns) / 1e9;
	o->samples = s->samples;
	o->lost = s->rd.lost;
	o->throttled = s->rd.throttled;
	o->truncated = s->truncated;
	o->unwind_fp = s->unwind_fp;
	o->unwind_dwarf = s->unwind_dwarf;
	o->stack_copy = s->regs_mask ? s->stack_copy : 0;
	o->threads_unsampled = s->unsampled;
	strlcpy_ps(o->unsampled_why, s->unsampled_why, sizeof(o->unsampled_why));
	o->percpu = s->percpu;
	o->cpu_proc = (double)(ticks - s->cpu_ticks_start) / tick;
	/* Clock events count nanoseconds; cycles do not, so estimate by rate. */
	o->cpu_sampled = s->ev.attr.type == PERF_TYPE_SOFTWARE ? (double)s->period_sum / 1e9
								: (double)s->samples / s->freq;
	/* Achieved rate over the last 10 s, at the current frequency only. */
	double secs, cpu = 0;
	unsigned span = ++s->since_freq < 10 ? s->since_freq : 10;
	unsigned long recent = agg_samples_last(s->agg, span, &secs);
	for (unsigned i = 0; i < span && i < s->nbucket_cpu; i++)
		cpu += s->bucket_cpu[s->nbucket_cpu - 1 - i];
	o->rate = cpu > 0.05 ? recent / cpu : 0;
	if (agg_finish(s->agg, o, s->threads ? &s->threads->th : NULL, sizeof(*s->threads), s->nthreads, end_reason) < 0)
		return NULL;
	if (!s->machine && samp_pchist_fill(&s->pchist, o) < 0) {
		samp_snapshot_free(o);
		return NULL;
	}
	if (s->machine && samp_machine_publish(s, o) < 0) {
		samp_snapshot_free(o);
		return NULL;
	}
	return o;
}

static const char *perf_exec_comm(const struct samp_source *src)
{
	return of(src)->exec_comm;
}

const char *samp_end_exec(const char *now_comm, char *buf, size_t size)
{
	snprintf(buf, size, _("the process exec'd (it now runs %s): the table covers the program before"), now_comm);
	return buf;
}

static void perf_close(struct samp_source *src)
{
	struct samp_session *s = of(src);

	for (unsigned i = 0; i < s->nthreads; i++) {
		samp_thread_close(s, &s->threads[i]);
		free(s->threads[i].fds);
	}
	free(s->threads);
	if (s->rings)
		samp_percpu_close(s);
	for (unsigned c = 0; c < s->nrings; c++)
		perf_ring_close(&s->rings[c].r);
	free(s->rings);
	perf_pollset_free(&s->ps);
	perf_reader_fini(&s->rd);
	hmap_free(&s->tids);
	hmap_free(&s->kpcs);
	samp_space_fini(&s->one);
	samp_pchist_free(&s->pchist);
	samp_machine_close(s);
	agg_free(s->agg);
	target_close(&s->t);
	free(s);
}

static const struct samp_source_ops perf_ops = {
	.name = "perf",
	.poll = perf_poll,
	.set = perf_set,
	.freq = perf_freq,
	.count = perf_count,
	.exec_comm = perf_exec_comm,
	.publish = perf_publish,
	.close = perf_close,
};
