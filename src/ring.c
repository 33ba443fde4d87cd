#include "ring.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct overflow {
	struct ring_msg msg;
	struct overflow *next;
};

struct ring {
	pthread_mutex_t lock;
	struct ring_msg *slots;
	unsigned cap, head, count;     /* circular: head = oldest */
	struct overflow *of_head, *of_tail;
	int efd;
	struct ring_stats st;
};

struct ring *ring_new(unsigned capacity)
{
	struct ring *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->cap = capacity ? capacity : 1;
	r->slots = calloc(r->cap, sizeof(*r->slots));
	r->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!r->slots || r->efd < 0) {
		free(r->slots);
		if (r->efd >= 0)
			close(r->efd);
		free(r);
		return NULL;
	}
	pthread_mutex_init(&r->lock, NULL);
	return r;
}

void ring_msg_release(struct ring_msg *m)
{
	if (m->payload) {
		if (m->payload_free)
			m->payload_free(m->payload);
		else
			free(m->payload);
	}
	m->payload = NULL;
}

void ring_free(struct ring *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->count; i++)
		ring_msg_release(&r->slots[(r->head + i) % r->cap]);
	while (r->of_head) {
		struct overflow *o = r->of_head;
		r->of_head = o->next;
		ring_msg_release(&o->msg);
		free(o);
	}
	close(r->efd);
	pthread_mutex_destroy(&r->lock);
	free(r->slots);
	free(r);
}

int ring_fd(const struct ring *r)
{
	return r->efd;
}

static bool droppable(enum ring_kind k)
{
	return k == RING_PROGRESS || k == RING_SNAPSHOT;
}

static void wake(struct ring *r)
{
	uint64_t one = 1;
	ssize_t n = write(r->efd, &one, sizeof(one));
	(void)n; /* EAGAIN: counter saturated, already readable */
}

void ring_post(struct ring *r, const struct ring_msg *m)
{
	struct ring_msg copy = *m;

	pthread_mutex_lock(&r->lock);
	r->st.posted++;
	if (droppable(m->kind)) {
		for (unsigned i = 0; i < r->count; i++) {
			struct ring_msg *s = &r->slots[(r->head + i) % r->cap];
			if (s->kind == m->kind && s->job_id == m->job_id) {
				ring_msg_release(s);
				*s = copy;
				r->st.coalesced++;
				pthread_mutex_unlock(&r->lock);
				wake(r);
				return;
			}
		}
		if (r->count == r->cap) {
			r->st.dropped++;
			pthread_mutex_unlock(&r->lock);
			ring_msg_release(&copy);
			return;
		}
	}
	if (r->count < r->cap && !r->of_head) {
		r->slots[(r->head + r->count) % r->cap] = copy;
		r->count++;
	} else {
		/* Never drop results/errors: keep them, in order, past the ring. */
		struct overflow *o = malloc(sizeof(*o));
		if (!o) {
			/* Out of memory: the only loss we cannot avoid; counted. */
			r->st.dropped++;
			pthread_mutex_unlock(&r->lock);
			ring_msg_release(&copy);
			return;
		}
		o->msg = copy;
		o->next = NULL;
		if (r->of_tail)
			r->of_tail->next = o;
		else
			r->of_head = o;
		r->of_tail = o;
		r->st.overflowed++;
	}
	pthread_mutex_unlock(&r->lock);
	wake(r);
}

size_t ring_drain(struct ring *r, struct ring_msg *out, size_t max)
{
	uint64_t v;
	size_t n = 0;

	ssize_t rd = read(r->efd, &v, sizeof(v));
	(void)rd;
	pthread_mutex_lock(&r->lock);
	while (n < max && r->count) {
		out[n++] = r->slots[r->head];
		memset(&r->slots[r->head], 0, sizeof(r->slots[r->head]));
		r->head = (r->head + 1) % r->cap;
		r->count--;
	}
	/* Refill from the overflow list so order is kept. */
	while (r->of_head && r->count < r->cap) {
		struct overflow *o = r->of_head;
		r->of_head = o->next;
		if (!r->of_head)
			r->of_tail = NULL;
		r->slots[(r->head + r->count) % r->cap] = o->msg;
		r->count++;
		free(o);
	}
	r->st.delivered += n;
	bool more = r->count > 0;
	pthread_mutex_unlock(&r->lock);
	if (more)
		wake(r);
	return n;
}

void ring_get_stats(struct ring *r, struct ring_stats *s)
{
	pthread_mutex_lock(&r->lock);
	*s = r->st;
	pthread_mutex_unlock(&r->lock);
}
