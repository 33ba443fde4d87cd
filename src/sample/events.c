/* The sampler's perf events, opened through src/perf/: the event
 * (perf_choose_sampling: cycles, else cpu-clock), one ring buffer per CPU
 * owned by a dummy event of our own, and the target events redirected into
 * it -- per (thread, CPU) with inherit, or one per CPU for every task. The
 * session using them is perf.c. */
#include "sample/local.h"
#include "sample/session.h"
#include "sample/sample.h"
#include "i18n.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RING_PAGES_DWARF 512 /* with stack copies: 2 MiB (they are ~100x larger) */

struct sthread *samp_thread_get(struct samp_session *s, pid_t tid, bool add)
{
	uint32_t i = samp_id_get(&s->tids, (uint64_t)tid);

	if (i != SAMP_NONE)
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
	t->th.tid = tid;
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
		int fd = perf_open_into(&s->ev.attr, t->th.tid, s->rings[c].r.cpu, &s->rings[c].r);
		if (fd < 0) {
			samp_thread_close(s, t);
			return fd;
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

	if (ncpu < 1)
		ncpu = 1;
	s->rings = calloc((size_t)ncpu, sizeof(*s->rings));
	if (!s->rings)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	for (long cpu = 0; cpu < ncpu; cpu++) {
		struct cpu_ring *r = &s->rings[s->nrings];
		int rc = perf_ring_open(&r->r, (int)cpu, s->ev.attr.exclude_kernel,
					s->regs_mask ? RING_PAGES_DWARF : PERF_RING_PAGES, s->t.id.pid, e);
		if (rc == -ENODEV)
			continue; /* offline CPU */
		if (rc < 0)
			return rc;
		r->ev = -1;
		s->nrings++;
	}
	if (!s->nrings)
		return ps_error_set(e, ENODEV, _("no CPU accepted a perf event"));
	return 0;
}

/* Pick the event: hardware cycles when there is a PMU, else cpu-clock.
 * The trial is on the target, or (machine-wide) on every task of CPU 0,
 * which is the door that view needs. */
int samp_choose_event(struct samp_session *s, struct ps_error *e)
{
	struct perf_sampling rq = {
		.pid = s->machine ? -1 : s->t.id.pid,
		.cpu = s->machine ? 0 : -1,
		.freq = s->freq,
		.sample_type = SAMP_SAMPLE_TYPE,
		.regs_user = s->stack_copy > 0 ? SAMP_REGS_MASK : 0,
		.stack_user = s->stack_copy > 0 ? (uint32_t)s->stack_copy : 0,
		.inherit = true,
		.side_records = true,
		.precise = true,
		.what = s->machine ? _("sample every process") : _("sample"),
	};
	int r = perf_choose_sampling(&rq, &s->ev, e);

	if (r < 0)
		return r;
	s->regs_mask = s->ev.attr.sample_regs_user;
	if (s->ev.stack_dropped)
		s->stack_copy = 0;
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
	struct perf_event_attr a = s->ev.attr;

	a.inherit = 0; /* every task is sampled anyway */
	for (unsigned c = 0; c < s->nrings; c++) {
		int fd = perf_open_into(&a, -1, s->rings[c].r.cpu, &s->rings[c].r);
		if (fd < 0) {
			samp_percpu_close(s);
			return fd;
		}
		s->rings[c].ev = fd;
	}
	return 0;
}
