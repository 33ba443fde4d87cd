/* Shared by the perf layer's unit tests (test-perf.c, test-perf-tp.c):
 * records built by hand, and a consumer that counts what it is given. */
#ifndef PS_TEST_PERF_REC_H
#define PS_TEST_PERF_REC_H

#include "perf/perf.h"

#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ST_CHAIN (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* ---- building records ---- */

struct rec {
	unsigned char b[512];
	size_t n;
};

static inline void put(struct rec *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static inline void put64(struct rec *r, uint64_t v)
{
	put(r, &v, 8);
}

static inline void put32x2(struct rec *r, uint32_t a, uint32_t b)
{
	uint32_t w[2] = { a, b };
	put(r, w, 8);
}

static inline void begin(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };
	r->n = 0;
	put(r, &h, sizeof(h));
}

static inline const struct perf_event_header *end(struct rec *r)
{
	struct perf_event_header *h = (struct perf_event_header *)r->b;
	h->size = (uint16_t)r->n;
	return h;
}

/* The sample_id trailer of TID|TIME: pid, tid, time. */
static inline void put_id(struct rec *r, uint32_t pid, uint32_t tid, uint64_t time)
{
	put32x2(r, pid, tid);
	put64(r, time);
}

/* ---- a consumer that counts ---- */

struct seen {
	int samples, comms, forks, exits, mmaps, tps, lost;
	uint32_t last_pid;
	struct perf_tp_event ev;
};

static inline void s_sample(void *ctx, const struct perf_sample *s)
{
	struct seen *v = ctx;
	v->samples++;
	v->last_pid = s->pid;
}

static inline void s_tp(void *ctx, const struct perf_sample *s, const struct perf_tp_event *ev)
{
	struct seen *v = ctx;
	(void)s;
	v->tps++;
	v->ev = *ev;
}

static inline void s_comm(void *ctx, const struct perf_comm *c)
{
	(void)c;
	((struct seen *)ctx)->comms++;
}

static inline void s_fork(void *ctx, const struct perf_task *t)
{
	(void)t;
	((struct seen *)ctx)->forks++;
}

static inline void s_exit(void *ctx, const struct perf_task *t)
{
	(void)t;
	((struct seen *)ctx)->exits++;
}

static inline void s_lost(void *ctx, const struct perf_lost *l)
{
	(void)l;
	((struct seen *)ctx)->lost++;
}

static const struct perf_consumer consumer = {
	.on_sample = s_sample, .on_tracepoint = s_tp, .on_comm = s_comm, .on_fork = s_fork,
	.on_exit = s_exit,     .on_lost = s_lost,
};

/* A child named name that waits for a byte on *go (the write end, ours),
 * then calls getppid() and sleeps 1 ms `rounds` times, and exits. -1 when
 * it cannot start. */
static inline pid_t kid_start(int *go, const char *name, int rounds)
{
	int p[2];

	if (pipe(p) < 0)
		return -1;
	pid_t kid = fork();
	if (kid == 0) {
		char c;
		close(p[1]);
		prctl(PR_SET_NAME, name);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		for (int i = 0; i < rounds; i++) {
			syscall(SYS_getppid);
			usleep(1000);
		}
		_exit(0);
	}
	close(p[0]);
	if (kid < 0)
		close(p[1]);
	*go = p[1];
	return kid;
}

#endif
