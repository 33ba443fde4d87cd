/* Waiting on perf events: the rings (POLLIN: records to read) and the
 * per-task events watched for POLLHUP, which the kernel raises once the
 * event's task has exited: that task is gone. */
#include "perf/perf.h"

#include <errno.h>
#include <stdlib.h>

void perf_pollset_clear(struct perf_pollset *p)
{
	p->n = 0;
}

int perf_pollset_add(struct perf_pollset *p, int fd, bool ring, uint64_t tag)
{
	if (p->n == p->cap) {
		unsigned nc = p->cap ? p->cap * 2 : 64;
		struct pollfd *nf = realloc(p->fds, nc * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		p->fds = nf;
		uint64_t *nt = realloc(p->tags, nc * sizeof(*nt));
		if (!nt)
			return -ENOMEM;
		p->tags = nt;
		p->cap = nc;
	}
	/* A task's event is watched for its hang-up only: its records go
	 * to a ring (POLLHUP and POLLERR are reported whatever is asked). */
	p->fds[p->n] = (struct pollfd){ .fd = fd, .events = ring ? POLLIN : 0 };
	p->tags[p->n++] = tag;
	return 0;
}

int perf_pollset_wait(struct perf_pollset *p, int timeout_ms)
{
	int n = poll(p->fds, p->n, timeout_ms);
	return n < 0 ? -errno : n;
}

bool perf_pollset_gone(const struct perf_pollset *p, unsigned *at, int *fd, uint64_t *tag)
{
	for (; *at < p->n; (*at)++) {
		const struct pollfd *f = &p->fds[*at];
		if (f->events != POLLIN && (f->revents & (POLLHUP | POLLERR))) {
			*fd = f->fd;
			*tag = p->tags[(*at)++];
			return true;
		}
	}
	return false;
}

void perf_pollset_free(struct perf_pollset *p)
{
	free(p->fds);
	free(p->tags);
	p->fds = NULL;
	p->tags = NULL;
	p->n = p->cap = 0;
}
