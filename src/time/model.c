/* The time model: reasons, histograms, sums and windows (pure). */
#include "time/model.h"
#include "time/timeline.h"
#include "i18n.h"
#include "proc/syscalls.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* System calls by what a thread blocked in them waits for. */
static const struct {
	const char *name;
	enum tm_reason r;
	bool io_if_iowait; /* in io_schedule it is I/O, else this reason */
} sys_reasons[] = {
	{ "futex", TM_R_LOCK, false }, { "futex_waitv", TM_R_LOCK, false }, { "flock", TM_R_LOCK, false },
	{ "fcntl", TM_R_LOCK, true }, { "semop", TM_R_LOCK, false }, { "semtimedop", TM_R_LOCK, false },
	{ "nanosleep", TM_R_SLEEP, false }, { "clock_nanosleep", TM_R_SLEEP, false }, { "pause", TM_R_SLEEP, false },
	{ "rt_sigsuspend", TM_R_SLEEP, false }, { "rt_sigtimedwait", TM_R_SLEEP, false },
	{ "poll", TM_R_POLL, false }, { "ppoll", TM_R_POLL, false }, { "select", TM_R_POLL, false },
	{ "pselect6", TM_R_POLL, false }, { "epoll_wait", TM_R_POLL, false }, { "epoll_pwait", TM_R_POLL, false },
	{ "epoll_pwait2", TM_R_POLL, false },
	{ "fsync", TM_R_IO, false }, { "fdatasync", TM_R_IO, false }, { "sync", TM_R_IO, false },
	{ "syncfs", TM_R_IO, false }, { "sync_file_range", TM_R_IO, false }, { "msync", TM_R_IO, false },
	{ "io_getevents", TM_R_IO, false }, { "io_pgetevents", TM_R_IO, false }, { "io_uring_enter", TM_R_IO, false },
	{ "read", TM_R_IPC, true }, { "readv", TM_R_IPC, true }, { "write", TM_R_IPC, true },
	{ "writev", TM_R_IPC, true }, { "pread64", TM_R_IPC, true }, { "pwrite64", TM_R_IPC, true },
	{ "preadv", TM_R_IPC, true }, { "pwritev", TM_R_IPC, true }, { "preadv2", TM_R_IPC, true },
	{ "pwritev2", TM_R_IPC, true }, { "splice", TM_R_IPC, true }, { "tee", TM_R_IPC, true },
	{ "sendfile", TM_R_IPC, true }, { "recvfrom", TM_R_IPC, false }, { "recvmsg", TM_R_IPC, false },
	{ "recvmmsg", TM_R_IPC, false }, { "sendto", TM_R_IPC, false }, { "sendmsg", TM_R_IPC, false },
	{ "sendmmsg", TM_R_IPC, false }, { "accept", TM_R_IPC, false }, { "accept4", TM_R_IPC, false },
	{ "connect", TM_R_IPC, false }, { "msgrcv", TM_R_IPC, false }, { "msgsnd", TM_R_IPC, false },
	{ "mq_timedreceive", TM_R_IPC, false }, { "mq_timedsend", TM_R_IPC, false },
};

enum tm_reason tm_reason_of(long nr, unsigned hints)
{
	const char *name = nr >= 0 ? proc_syscall_name(nr) : NULL;

	if (hints & TM_H_FAULT)
		return TM_R_FAULT;
	if (nr < 0) /* blocked outside a system call: a user thread is in a fault */
		return hints & (TM_H_IOWAIT | TM_H_DSTATE) ? TM_R_FAULT : TM_R_OTHER;
	for (size_t i = 0; name && i < ARRAY_SIZE(sys_reasons); i++)
		if (!strcmp(name, sys_reasons[i].name)) {
			if (sys_reasons[i].io_if_iowait && (hints & (TM_H_IOWAIT | TM_H_DSTATE)))
				return TM_R_IO;
			return sys_reasons[i].r;
		}
	return hints & TM_H_IOWAIT ? TM_R_IO : TM_R_OTHER;
}

/* Kernel functions a thread waits in, by the start of their name. */
static const struct {
	const char *prefix;
	enum tm_reason r;
} wchan_reasons[] = {
	{ "futex", TM_R_LOCK }, { "locks_", TM_R_LOCK }, { "flock", TM_R_LOCK },
	{ "hrtimer_nanosleep", TM_R_SLEEP }, { "do_nanosleep", TM_R_SLEEP }, { "sigsuspend", TM_R_SLEEP },
	{ "do_sigtimedwait", TM_R_SLEEP },
	{ "do_sys_poll", TM_R_POLL }, { "do_select", TM_R_POLL }, { "core_sys_select", TM_R_POLL }, { "ep_poll", TM_R_POLL },
	{ "do_epoll_wait", TM_R_POLL },
	{ "io_schedule", TM_R_IO }, { "folio_wait", TM_R_IO }, { "wait_on_page", TM_R_IO }, { "jbd2", TM_R_IO },
	{ "blk_", TM_R_IO }, { "bit_wait_io", TM_R_IO }, { "file_write_and_wait", TM_R_IO },
	{ "pipe_", TM_R_IPC }, { "unix_", TM_R_IPC }, { "sk_wait", TM_R_IPC }, { "tcp_", TM_R_IPC },
	{ "inet_csk_accept", TM_R_IPC }, { "wait_woken", TM_R_IPC }, { "n_tty_read", TM_R_IPC }, { "do_msg", TM_R_IPC },
	{ "filemap_fault", TM_R_FAULT }, { "do_page_fault", TM_R_FAULT }, { "handle_mm_fault", TM_R_FAULT },
};

enum tm_reason tm_reason_of_wchan(const char *wchan, unsigned hints)
{
	for (size_t i = 0; wchan && i < ARRAY_SIZE(wchan_reasons); i++)
		if (!strncmp(wchan, wchan_reasons[i].prefix, strlen(wchan_reasons[i].prefix)))
			return wchan_reasons[i].r;
	return hints & TM_H_IOWAIT ? TM_R_IO : TM_R_OTHER;
}

const char *tm_reason_key(enum tm_reason r)
{
	static const char *const k[TM_R_COUNT] = { "lock", "sleep", "poll", "io", "pipe_socket", "fault", "other" };
	return r < TM_R_COUNT ? k[r] : "other";
}

const char *tm_reason_label(enum tm_reason r)
{
	static const char *const k[TM_R_COUNT] = { N_("futex/lock"), N_("sleep"), N_("poll/epoll/select"), N_("I/O"),
						   N_("pipe/socket"), N_("page fault"), N_("other") };
	return _(r < TM_R_COUNT ? k[r] : k[TM_R_OTHER]);
}

static const char *const tier_names[TM_TIER_COUNT] = { "bpf", "trace", "proc" };

const char *tm_tier_name(enum tm_tier t)
{
	return t < TM_TIER_COUNT ? tier_names[t] : "?";
}

int tm_tier_parse(const char *s)
{
	for (int i = 0; i < TM_TIER_COUNT; i++)
		if (!strcmp(s, tier_names[i]))
			return i;
	return -1;
}

unsigned tm_bucket(uint64_t v)
{
	unsigned b = v < 2 ? 0 : 63 - (unsigned)__builtin_clzll(v);
	return b < TM_HIST ? b : TM_HIST - 1;
}

void tm_hist_add(struct tm_hist *h, uint64_t v)
{
	h->b[tm_bucket(v)]++;
}

uint64_t tm_hist_count(const struct tm_hist *h)
{
	uint64_t n = 0;
	for (int i = 0; i < TM_HIST; i++)
		n += h->b[i];
	return n;
}

uint64_t tm_hist_quantile(const struct tm_hist *h, double q, uint64_t min, uint64_t max)
{
	uint64_t n = tm_hist_count(h), seen = 0;

	if (!n)
		return 0;
	double want = q * (double)n;
	for (int i = 0; i < TM_HIST; i++) {
		if (!h->b[i] || (double)(seen + h->b[i]) < want) {
			seen += h->b[i];
			continue;
		}
		double lo = i ? (double)(1ULL << i) : 0, hi = (double)(1ULL << (i + 1));
		double v = lo + (hi - lo) * ((want - (double)seen) / (double)h->b[i]);
		if (max && v > (double)max)
			v = (double)max;
		if (min && v < (double)min)
			v = (double)min;
		return (uint64_t)v;
	}
	return max;
}

uint64_t tm_blocked_sum(const struct tm_thread *t)
{
	uint64_t n = 0;
	for (int r = 0; r < TM_R_COUNT; r++)
		n += t->blocked_ns[r];
	return n;
}

double tm_window_s(const struct tm_snapshot *s)
{
	return s->end_ns > s->start_ns ? (double)(s->end_ns - s->start_ns) / 1e9 : 0;
}

double tm_pct(const struct tm_snapshot *s, uint64_t ns)
{
	double w = (double)(s->end_ns - s->start_ns);
	return s->end_ns > s->start_ns ? 100.0 * (double)ns / w : 0;
}

struct tm_syscall *tm_thread_syscall(struct tm_thread *t, int nr)
{
	for (size_t i = 0; i < t->nsys; i++)
		if (t->sys[i].nr == nr)
			return &t->sys[i];
	struct tm_syscall *v = realloc(t->sys, (t->nsys + 1) * sizeof(*v));
	if (!v)
		return NULL;
	t->sys = v;
	memset(&v[t->nsys], 0, sizeof(*v));
	v[t->nsys].nr = nr;
	return &v[t->nsys++];
}

void tm_worst_add(struct tm_wait *w, unsigned *n, const struct tm_wait *add)
{
	unsigned i = *n < TM_WORST ? (*n)++ : TM_WORST - 1;

	if (i == TM_WORST - 1 && *n == TM_WORST && add->ns <= w[i].ns)
		return;
	for (; i > 0 && add->ns > w[i - 1].ns; i--)
		w[i] = w[i - 1];
	w[i] = *add;
}

static int cmp_tid(const void *a, const void *b)
{
	const struct tm_thread *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_sys(const void *a, const void *b)
{
	const struct tm_syscall *x = a, *y = b;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->nr > y->nr) - (x->nr < y->nr);
}

static void hist_sum(struct tm_hist *to, const struct tm_hist *h)
{
	for (int i = 0; i < TM_HIST; i++)
		to->b[i] += h->b[i];
}

static int syscall_sum(struct tm_thread *to, const struct tm_syscall *s)
{
	struct tm_syscall *d = tm_thread_syscall(to, s->nr);
	if (!d)
		return -ENOMEM;
	d->count += s->count;
	d->errors += s->errors;
	d->total_ns += s->total_ns;
	d->blocked_ns += s->blocked_ns;
	d->iowait_ns += s->iowait_ns;
	d->samples += s->samples;
	if (s->max_ns > d->max_ns)
		d->max_ns = s->max_ns;
	if (s->min_ns && (!d->min_ns || s->min_ns < d->min_ns))
		d->min_ns = s->min_ns;
	hist_sum(&d->hist, &s->hist);
	return 0;
}

static int thread_sum(struct tm_thread *to, const struct tm_thread *t)
{
	if (t->span_ns > to->span_ns)
		to->span_ns = t->span_ns;
	to->threads += t->threads ? t->threads : 1;
	to->oncpu_ns += t->oncpu_ns;
	to->runq_ns += t->runq_ns;
	to->stopped_ns += t->stopped_ns;
	for (int r = 0; r < TM_R_COUNT; r++)
		to->blocked_ns[r] += t->blocked_ns[r];
	to->vol += t->vol;
	to->invol += t->invol;
	to->migrations += t->migrations;
	to->minflt += t->minflt;
	to->majflt += t->majflt;
	to->fault_ns += t->fault_ns;
	to->runq_count += t->runq_count;
	hist_sum(&to->runq_hist, &t->runq_hist);
	for (unsigned i = 0; i < t->nworst; i++)
		tm_worst_add(to->worst, &to->nworst, &t->worst[i]);
	to->delay.cpu += t->delay.cpu;
	to->delay.blkio += t->delay.blkio;
	to->delay.swapin += t->delay.swapin;
	to->delay.freepages += t->delay.freepages;
	to->delay.thrashing += t->delay.thrashing;
	to->delay.compact += t->delay.compact;
	to->delay.wpcopy += t->delay.wpcopy;
	to->delay.irq += t->delay.irq;
	for (size_t i = 0; i < t->nsys; i++)
		if (syscall_sum(to, &t->sys[i]) < 0)
			return -ENOMEM;
	return 0;
}

int tm_snapshot_finish(struct tm_snapshot *s)
{
	sort_array(s->threads, s->nthreads, sizeof(*s->threads), cmp_tid);
	tm_thread_free(&s->total);
	memset(&s->total, 0, sizeof(s->total));
	s->total.tid = s->target.pid;
	strlcpy_ps(s->total.comm, s->comm, sizeof(s->total.comm));
	for (size_t i = 0; i < s->nthreads; i++) {
		struct tm_thread *t = &s->threads[i];
		sort_array(t->sys, t->nsys, sizeof(*t->sys), cmp_sys);
		if (thread_sum(&s->total, t) < 0)
			return -ENOMEM;
	}
	sort_array(s->total.sys, s->total.nsys, sizeof(*s->total.sys), cmp_sys);
	return 0;
}

#define SUB(f) d->f = n->f > o->f ? n->f - o->f : 0

static void hist_diff(struct tm_hist *d, const struct tm_hist *n, const struct tm_hist *o)
{
	for (int i = 0; i < TM_HIST; i++)
		SUB(b[i]);
}

static void syscall_diff(struct tm_syscall *d, const struct tm_syscall *n, const struct tm_syscall *o)
{
	SUB(count);
	SUB(errors);
	SUB(total_ns);
	SUB(blocked_ns);
	SUB(iowait_ns);
	SUB(samples);
	hist_diff(&d->hist, &n->hist, &o->hist);
	/* The largest of the window is not kept: at most the later maximum,
	 * and below the top of its highest bucket. */
	d->max_ns = 0;
	d->min_ns = 0;
	for (int b = TM_HIST - 1; b >= 0 && !d->max_ns; b--)
		if (d->hist.b[b])
			d->max_ns = (2ULL << b) - 1;
	for (int b = 0; b < TM_HIST && !d->min_ns; b++)
		if (d->hist.b[b])
			d->min_ns = b ? 1ULL << b : 1;
	if (d->max_ns > n->max_ns)
		d->max_ns = n->max_ns;
	if (d->min_ns < n->min_ns)
		d->min_ns = n->min_ns;
}

static int thread_diff(struct tm_thread *d, const struct tm_thread *n, const struct tm_thread *o)
{
	*d = *n;
	d->sys = NULL;
	d->nsys = 0;
	SUB(span_ns);
	SUB(oncpu_ns);
	SUB(runq_ns);
	SUB(stopped_ns);
	for (int r = 0; r < TM_R_COUNT; r++)
		SUB(blocked_ns[r]);
	SUB(vol);
	SUB(invol);
	SUB(migrations);
	SUB(minflt);
	SUB(majflt);
	SUB(fault_ns);
	SUB(runq_count);
	hist_diff(&d->runq_hist, &n->runq_hist, &o->runq_hist);
	SUB(delay.cpu);
	SUB(delay.blkio);
	SUB(delay.swapin);
	SUB(delay.freepages);
	SUB(delay.thrashing);
	SUB(delay.compact);
	SUB(delay.wpcopy);
	SUB(delay.irq);
	/* The worst waits of the later window: those not already in the older one. */
	d->nworst = 0;
	for (unsigned i = 0; i < n->nworst; i++) {
		bool old = false;
		for (unsigned j = 0; j < o->nworst && !old; j++)
			old = !memcmp(&n->worst[i], &o->worst[j], sizeof(n->worst[i]));
		if (!old)
			tm_worst_add(d->worst, &d->nworst, &n->worst[i]);
	}
	for (size_t i = 0; i < n->nsys; i++) {
		const struct tm_syscall *ns = &n->sys[i], *os = NULL;
		for (size_t j = 0; j < o->nsys && !os; j++)
			if (o->sys[j].nr == ns->nr)
				os = &o->sys[j];
		struct tm_syscall *ds = tm_thread_syscall(d, ns->nr);
		if (!ds)
			return -ENOMEM;
		*ds = *ns;
		if (os)
			syscall_diff(ds, ns, os);
	}
	return 0;
}

struct tm_snapshot *tm_snapshot_diff(const struct tm_snapshot *old_s, const struct tm_snapshot *new_s)
{
	struct tm_snapshot *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	*d = *new_s;
	d->tl = NULL;
	d->ntl = 0;
	d->threads = NULL;
	d->nthreads = 0;
	memset(&d->total, 0, sizeof(d->total));
	d->start_ns = old_s->end_ns;
	d->drops = new_s->drops > old_s->drops ? new_s->drops - old_s->drops : 0;
	d->samples = new_s->samples > old_s->samples ? new_s->samples - old_s->samples : 0;
	d->events = new_s->events > old_s->events ? new_s->events - old_s->events : 0;
	for (unsigned i = 0; i < d->ncost; i++)
		for (unsigned j = 0; j < old_s->ncost; j++)
			if (!strcmp(d->cost[i].name, old_s->cost[j].name)) {
				d->cost[i].run_ns -= old_s->cost[j].run_ns < d->cost[i].run_ns ? old_s->cost[j].run_ns : d->cost[i].run_ns;
				d->cost[i].run_cnt -= old_s->cost[j].run_cnt < d->cost[i].run_cnt ? old_s->cost[j].run_cnt : d->cost[i].run_cnt;
			}
	d->threads = calloc(new_s->nthreads ? new_s->nthreads : 1, sizeof(*d->threads));
	if (!d->threads)
		goto fail;
	static const struct tm_thread none;
	for (size_t i = 0, j = 0; i < new_s->nthreads; i++) {
		const struct tm_thread *n = &new_s->threads[i], *o = &none;
		while (j < old_s->nthreads && old_s->threads[j].tid < n->tid)
			j++;
		if (j < old_s->nthreads && old_s->threads[j].tid == n->tid)
			o = &old_s->threads[j];
		if (thread_diff(&d->threads[d->nthreads++], n, o) < 0)
			goto fail;
	}
	if (tm_snapshot_finish(d) < 0)
		goto fail;
	return d;
fail:
	tm_snapshot_free(d);
	return NULL;
}

void tm_thread_free(struct tm_thread *t)
{
	free(t->sys);
	t->sys = NULL;
	t->nsys = 0;
}

void tm_snapshot_free(struct tm_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nthreads; i++)
		tm_thread_free(&s->threads[i]);
	free(s->threads);
	tm_thread_free(&s->total);
	for (size_t i = 0; i < s->ntl; i++)
		tm_tlchunk_put(s->tl[i]);
	free(s->tl);
	free(s);
}

const char *tm_blocked_str(const struct tm_thread *t, char *buf, size_t size)
{
	uint64_t all = tm_blocked_sum(t);
	int first = -1, second = -1;

	buf[0] = '\0';
	if (!all)
		return "-";
	for (int r = 0; r < TM_R_COUNT; r++) {
		if (!t->blocked_ns[r])
			continue;
		if (first < 0 || t->blocked_ns[r] > t->blocked_ns[first]) {
			second = first;
			first = r;
		} else if (second < 0 || t->blocked_ns[r] > t->blocked_ns[second]) {
			second = r;
		}
	}
	int n = snprintf(buf, size, "%s %.0f%%", tm_reason_label(first), 100.0 * (double)t->blocked_ns[first] / (double)all);
	if (second >= 0 && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ", %s %.0f%%", tm_reason_label(second),
			 100.0 * (double)t->blocked_ns[second] / (double)all);
	return buf;
}
