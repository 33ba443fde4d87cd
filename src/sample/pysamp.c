/* The CPython sampler (sample.h, "the CPython sampler"): reads every
 * thread's frame chain from process memory, without stopping the
 * process, and counts the Python stacks in the same aggregation as the
 * perf sampler, so every view (windows, sort, threads, callers/callees,
 * folded export) works on them unchanged. */
#include "doors/doors.h"
#include "i18n.h"
#include "sample/agg.h"
#include "sample/sample.h"
#include "sample/source.h"
#include "python/python.h"
#include "proc/stat.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct py_thr {
	struct samp_thread th;   /* what a snapshot shows: tid, comm, samples, gone */
	uint64_t ident;          /* pthread_t */
	int stat_fd;             /* /proc/PID/task/TID/stat, -1 if not open */
};

struct samp_py_session {
	struct samp_source src;  /* first: the source it is (source.h) */
	struct target t;
	char exec_comm[64];      /* its name after an exec (hostile) */
	pid_t pid;
	struct py_mem live;
	struct py_cache *cache;
	struct py_mem cached;
	struct py_proc *py;
	struct py_snapshot snap;
	struct agg *agg;
	struct hmap funcs;       /* (code, line) -> location id */
	uint32_t *frames;
	size_t frames_cap;
	struct py_thr *threads;
	unsigned nthreads, capthreads;
	int freq;
	bool idle;
	uint64_t start_ns, next_ns, last_pub_ns, last_names_ns;
	unsigned long long samples, passes, torn, idle_samples;
	unsigned long long cpu_ticks_start;
	unsigned long recent[SAMP_HISTORY]; /* passes per published second */
	unsigned nrecent;
	unsigned long passes_pub;
};

static const struct samp_source_ops py_ops;

static struct samp_py_session *of(const struct samp_source *src)
{
	return (struct samp_py_session *)src; /* src is its first member */
}

static unsigned long long proc_ticks(struct samp_py_session *s)
{
	char buf[1024];
	struct proc_stat st;
	ssize_t n = read_file_at(s->t.dirfd, "stat", buf, sizeof(buf));

	if (n <= 0 || proc_stat_parse(buf, (size_t)n, &st) < 0)
		return 0;
	return st.utime + st.stime;
}

static void py_close(struct samp_source *src);

int samp_py_open(struct samp_source **out, const struct samp_py_opts *o, struct ps_error *e)
{
	struct samp_py_session *s = calloc(1, sizeof(*s));
	char *maps = NULL;
	size_t cap = 0;
	int r;

	*out = NULL;
	if (!s)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	s->src.ops = &py_ops;
	s->t.dirfd = s->t.pidfd = -1;
	r = target_open(&s->t, o->pid, o->want, e);
	if (r < 0) {
		free(s);
		return r;
	}
	if (target_is_kernel_thread(&s->t)) {
		r = ps_error_set(e, EINVAL, _("process %d is a kernel thread: it runs no Python"), (int)o->pid);
		goto fail;
	}
	s->pid = o->pid;
	py_mem_live(&s->live, &s->pid);
	ssize_t n = read_file_alloc_at(s->t.dirfd, "maps", &maps, &cap);
	if (n <= 0) {
		r = door_refused(e, PS_OP_READ_PROC, o->pid, n < 0 ? (int)n : -EIO, _("read the memory map"));
		goto fail;
	}
	r = py_detect(o->pid, maps, (size_t)n, &s->live, &s->py, e);
	free(maps);
	if (r == -EPERM || r == -EACCES)
		r = door_refused(e, PS_OP_READ_MEM, o->pid, r, _("read the interpreter's memory"));
	if (r < 0)
		goto fail;
	s->cache = py_cache_new(&s->live, 256);
	s->agg = agg_new(SAMP_UNIT_SAMPLES);
	if (!s->cache || !s->agg) {
		r = ps_error_set(e, ENOMEM, _("out of memory"));
		goto fail;
	}
	py_cache_mem(s->cache, &s->cached);
	/* One read now: a refused door or an unreadable interpreter shows up
	 * here, not as an empty table. */
	/* The process runs: a read can meet a list being changed (a thread
	 * starting or ending). Only a few failures in a row are an answer. */
	for (int i = 0; i < 5; i++) {
		py_cache_reset(s->cache);
		r = py_snapshot_take(s->py, &s->cached, &(struct py_walk_opts){ .check_torn = true }, &s->snap, e);
		if (r == 0)
			break;
		nanosleep(&(struct timespec){ 0, 10 * 1000000L }, NULL);
	}
	if (r < 0)
		goto fail;
	s->freq = o->freq < 1 ? SAMP_PY_FREQ_DEFAULT : o->freq > SAMP_PY_FREQ_MAX ? SAMP_PY_FREQ_MAX : o->freq;
	s->idle = o->idle;
	s->start_ns = s->last_pub_ns = s->next_ns = now_ns();
	s->cpu_ticks_start = proc_ticks(s);
	*out = &s->src;
	return 0;
fail:
	py_close(&s->src);
	return r;
}

static struct py_thr *thread_of(struct samp_py_session *s, const struct py_raw_thread *rt)
{
	for (unsigned i = 0; i < s->nthreads; i++)
		if (s->threads[i].ident == rt->thread_id && !s->threads[i].th.gone)
			return &s->threads[i];
	pid_t tid = rt->tid ? rt->tid : py_pthread_tid(s->py, &s->live, rt->thread_id);
	if (!tid)
		return NULL;
	if (s->nthreads == s->capthreads) {
		unsigned nc = s->capthreads ? 2 * s->capthreads : 16;
		void *v = realloc(s->threads, nc * sizeof(*s->threads));
		if (!v)
			return NULL;
		s->threads = v;
		s->capthreads = nc;
	}
	struct py_thr *t = &s->threads[s->nthreads++];
	char path[64];
	memset(t, 0, sizeof(*t));
	t->th.tid = tid;
	t->ident = rt->thread_id;
	snprintf(path, sizeof(path), "task/%d/stat", (int)tid);
	t->stat_fd = openat(s->t.dirfd, path, O_RDONLY | O_CLOEXEC);
	snprintf(t->th.comm, sizeof(t->th.comm), "%d", (int)tid);
	s->last_names_ns = 0; /* a new thread: read the names again */
	return t;
}

/* Running (R) now; a thread whose state cannot be read counts as running. */
static bool running(struct py_thr *t)
{
	char buf[512];
	struct proc_stat st;

	if (t->stat_fd < 0)
		return true;
	ssize_t n = pread(t->stat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {
		t->th.gone = true;
		return false;
	}
	buf[n] = '\0';
	return proc_stat_parse(buf, (size_t)n, &st) < 0 || st.state == 'R';
}

/* The location (the function at its line) of a frame. */
static uint32_t func_of(struct samp_py_session *s, const struct py_raw_frame *f)
{
	const struct py_code *c = py_code_get(s->py, &s->live, f->code);
	if (!c)
		return SAMP_NONE;
	int line = py_code_line(s->py, c, f->lasti);
	uint64_t key = f->code ^ ((uint64_t)(unsigned)line << 48);
	uint32_t id = samp_id_get(&s->funcs, key);
	if (id != SAMP_NONE)
		return id;
	struct samp_fninfo fi = { .name = c->qualname, .module = c->file, .file = c->file, .line = line,
				  .flags = SAMP_F_PYTHON };
	id = agg_func_loc(s->agg, agg_func(s->agg, &fi)); /* no address: the function at its line */
	if (id != SAMP_NONE && hmap_put(&s->funcs, key, id) < 0)
		return SAMP_NONE;
	return id;
}

/* Thread names (threading._active) for the snapshot's comm, once a second
 * at most and when a thread appeared. */
static void names(struct samp_py_session *s)
{
	uint64_t now = now_ns();

	if (s->last_names_ns && now - s->last_names_ns < 1000000000ULL)
		return;
	s->last_names_ns = now;
	if (py_thread_names_load(s->py, &s->live) < 0)
		return;
	for (unsigned i = 0; i < s->nthreads; i++) {
		const char *n = py_thread_name(s->py, s->threads[i].ident);
		if (n)
			strlcpy_ps(s->threads[i].th.comm, n, sizeof(s->threads[i].th.comm));
	}
}

/* Before a thread's chain is read: idle threads are not read at all. */
static bool want(void *arg, const struct py_raw_thread *rt, bool gil)
{
	struct samp_py_session *s = arg;
	struct py_thr *t = thread_of(s, rt);

	if (!t || gil || running(t))
		return true;
	s->idle_samples++; /* left out, or with --idle counted in */
	return s->idle;
}

static int sample_once(struct samp_py_session *s)
{
	struct py_walk_opts wo = { .check_torn = true, .fresh = &s->live, .want = want, .want_arg = s };
	struct ps_error e;

	py_cache_reset(s->cache);
	size_t torn0 = s->snap.torn = 0;
	if (py_snapshot_take(s->py, &s->cached, &wo, &s->snap, &e) < 0) {
		/* A moment when the interpreter's lists are being changed (a
		 * thread starting or ending): counted as torn. */
		s->torn++;
		return target_verify(&s->t, NULL) < 0 ? -ESRCH : 0;
	}
	s->passes++;
	s->torn += s->snap.torn - torn0;
	for (size_t i = 0; i < s->snap.n; i++) {
		const struct py_raw_thread *rt = &s->snap.threads[i];
		if (rt->skipped || rt->error || !rt->n)
			continue;
		struct py_thr *t = thread_of(s, rt);
		if (!t)
			continue;
		if (s->frames_cap < rt->n) {
			void *v = realloc(s->frames, rt->n * sizeof(*s->frames));
			if (!v)
				return -ENOMEM;
			s->frames = v;
			s->frames_cap = rt->n;
		}
		unsigned n = 0;
		for (size_t k = 0; k < rt->n; k++) {
			uint32_t id = func_of(s, &rt->frames[k]);
			if (id != SAMP_NONE)
				s->frames[n++] = id;
		}
		if (agg_add(s->agg, t->th.tid, s->frames, n, SAMP_NONE, 1) < 0)
			return -ENOMEM;
		t->th.samples++;
		s->samples++;
	}
	names(s);
	return 0;
}

static const char *py_exec_comm(const struct samp_source *src)
{
	return of(src)->exec_comm;
}

static int py_poll(struct samp_source *src, int timeout_ms)
{
	struct samp_py_session *s = of(src);
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000ULL;

	for (;;) {
		uint64_t now = now_ns();
		if (now >= s->next_ns) {
			/* Each pass reads the program of the first: after an
			 * exec it ends instead of reading another one's. */
			if (target_execd(&s->t, s->exec_comm, sizeof(s->exec_comm)) == 1)
				return -ESTALE;
			int r = sample_once(s);
			if (r < 0)
				return r;
			uint64_t period = 1000000000ULL / (uint64_t)s->freq;
			s->next_ns += period;
			if (s->next_ns < now) /* fell behind: do not catch up in a burst */
				s->next_ns = now + period;
			continue;
		}
		uint64_t until = s->next_ns < end ? s->next_ns : end;
		if (until <= now)
			break;
		struct timespec ts = { (time_t)((until - now) / 1000000000ULL), (long)((until - now) % 1000000000ULL) };
		nanosleep(&ts, NULL);
		if (until == end)
			break;
	}
	return target_verify(&s->t, NULL) < 0 ? -ESRCH : 0;
}

static int py_set(struct samp_source *src, int freq, bool idle, struct ps_error *e)
{
	struct samp_py_session *s = of(src);

	(void)e; /* a rate past the reader's is its maximum, never refused */
	if (freq > SAMP_PY_FREQ_MAX)
		freq = SAMP_PY_FREQ_MAX;
	if (freq >= 1 && freq != s->freq) {
		s->freq = freq;
		s->next_ns = now_ns();
	}
	s->idle = idle;
	return 0;
}

static int py_freq(const struct samp_source *src)
{
	return of(src)->freq;
}

static unsigned long long py_count(const struct samp_source *src)
{
	return of(src)->samples;
}

static struct samp_snapshot *py_publish(struct samp_source *src, const char *end_reason)
{
	struct samp_py_session *s = of(src);
	struct samp_snapshot *o = calloc(1, sizeof(*o));
	uint64_t now = now_ns();
	double tick = (double)sysconf(_SC_CLK_TCK);

	if (!o)
		return NULL;
	agg_close_interval(s->agg, (double)(now - s->last_pub_ns) / 1e9);
	double secs = (double)(now - s->last_pub_ns) / 1e9;
	s->last_pub_ns = now;
	if (s->nrecent == SAMP_HISTORY) {
		memmove(s->recent, s->recent + 1, (SAMP_HISTORY - 1) * sizeof(s->recent[0]));
		s->nrecent--;
	}
	s->recent[s->nrecent++] = s->passes - s->passes_pub;
	s->passes_pub = s->passes;

	o->target = s->t.id;
	strlcpy_ps(o->comm, s->t.comm, sizeof(o->comm));
	strlcpy_ps(o->python, py_version(s->py), sizeof(o->python));
	snprintf(o->event, sizeof(o->event), "python");
	snprintf(o->event_why, sizeof(o->event_why),
		 _("CPython %s frames read with process_vm_readv, no perf_event_open"), py_version(s->py));
	snprintf(o->kernel_why, sizeof(o->kernel_why), _("Python frames only"));
	o->kernel_excluded = true;
	o->freq = s->freq;
	o->elapsed = (double)(now - s->start_ns) / 1e9;
	o->samples = s->samples;
	o->torn = s->torn;
	o->idle_samples = s->idle_samples;
	o->idle_included = s->idle;
	o->cpu_proc = (double)(proc_ticks(s) - s->cpu_ticks_start) / tick;
	o->cpu_sampled = (double)s->samples / s->freq;
	/* Achieved: sampling passes per second over the last 10 s. */
	double span = 0;
	unsigned long passes = 0;
	for (unsigned i = 0; i < s->nrecent && i < 10; i++)
		passes += s->recent[s->nrecent - 1 - i];
	span = o->elapsed < 10 ? o->elapsed : 10;
	(void)secs;
	o->rate = span > 0.05 ? (double)passes / span : 0;
	if (agg_finish(s->agg, o, s->threads ? &s->threads->th : NULL, sizeof(*s->threads), s->nthreads, end_reason) < 0)
		return NULL;
	return o;
}

static void py_close(struct samp_source *src)
{
	struct samp_py_session *s = of(src);

	for (unsigned i = 0; i < s->nthreads; i++)
		if (s->threads[i].stat_fd >= 0)
			close(s->threads[i].stat_fd);
	free(s->threads);
	free(s->frames);
	hmap_free(&s->funcs);
	agg_free(s->agg);
	py_snapshot_free(&s->snap);
	py_cache_free(s->cache);
	py_proc_free(s->py);
	if (s->t.dirfd >= 0)
		target_close(&s->t);
	free(s);
}

static const struct samp_source_ops py_ops = {
	.name = "python",
	.poll = py_poll,
	.set = py_set,
	.freq = py_freq,
	.count = py_count,
	.exec_comm = py_exec_comm,
	.publish = py_publish,
	.close = py_close,
	.needs_ticks = true,
};
