/* A source as a job on the long lane: tick, read, post; sleep until the
 * next tick or until the screen wants something else. */
#include "source/source.h"
#include "i18n.h"
#include "util.h"
#include "worker.h"

#include <errno.h>

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct source_ctl {
	atomic_int refs;
	pthread_mutex_t lock;
	struct source_want want;
	unsigned posted;           /* seq of the newest snapshot made */
	bool starved;              /* the job waits for it to be drawn */
};

struct source_ctl *source_ctl_new(void)
{
	struct source_ctl *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	atomic_init(&c->refs, 1);
	pthread_mutex_init(&c->lock, NULL);
	c->want.interval_ms = 1500;
	return c;
}

struct source_ctl *source_ctl_get(struct source_ctl *c)
{
	atomic_fetch_add(&c->refs, 1);
	return c;
}

void source_ctl_put(struct source_ctl *c)
{
	if (c && atomic_fetch_sub(&c->refs, 1) == 1) {
		pthread_mutex_destroy(&c->lock);
		free(c);
	}
}

void source_ctl_peek(struct source_ctl *c, struct source_want *out)
{
	pthread_mutex_lock(&c->lock);
	*out = c->want;
	pthread_mutex_unlock(&c->lock);
}

/* The wish without its bookkeeping, for comparing two. */
static bool same_wish(const struct source_want *a, const struct source_want *b)
{
	size_t head = offsetof(struct source_want, rows);
	struct source_want x = *a, y = *b;

	x.gen = y.gen = 0;
	x.drawn = y.drawn = 0;
	return !memcmp(&x, &y, head) && !memcmp(a->rows, b->rows, (size_t)a->nrows * sizeof(a->rows[0])) &&
	       a->pane == b->pane && a->fd_all == b->fd_all && a->smaps == b->smaps && a->nfds == b->nfds &&
	       !memcmp(a->fds, b->fds, (size_t)a->nfds * sizeof(a->fds[0]));
}

bool source_ctl_set(struct source_ctl *c, const struct source_want *w)
{
	bool changed;

	pthread_mutex_lock(&c->lock);
	changed = !same_wish(&c->want, w);
	if (changed) {
		unsigned gen = c->want.gen, drawn = c->want.drawn;
		c->want = *w;
		c->want.gen = gen + 1;
		c->want.drawn = drawn;
	}
	pthread_mutex_unlock(&c->lock);
	return changed;
}

bool source_ctl_drawn(struct source_ctl *c, unsigned seq)
{
	bool wake;

	pthread_mutex_lock(&c->lock);
	if (seq > c->want.drawn)
		c->want.drawn = seq;
	wake = c->starved && c->want.drawn == c->posted;
	if (wake)
		c->starved = false;
	pthread_mutex_unlock(&c->lock);
	return wake;
}

struct source_arg {
	struct source src;
	struct source_ctl *ctl;
};

static void arg_free(void *p)
{
	struct source_arg *a = p;

	source_close(&a->src);
	source_ctl_put(a->ctl);
	free(a);
}

static void progress_cb(void *arg, double fraction, const char *text)
{
	job_progress(arg, fraction, "%s", text);
}

static void source_job(struct job *j)
{
	struct source_arg *a = j->arg;
	struct source_io io = { &j->cancel, progress_cb, j };
	struct snap_head *last = NULL;
	unsigned seq = 0, tick_now = 0, seen_gen = 0;
	uint64_t next = 0;
	struct ps_error e;

	while (!job_cancelled(j)) {
		struct source_want w;
		uint64_t now = now_ns();

		source_ctl_peek(a->ctl, &w);
		/* Nobody drew the last snapshot (the screen is covered or
		 * paused): no more reading until it is. */
		bool waiting = w.paused || (seq && w.drawn < seq);
		bool tick = !waiting && (now >= next || w.tick_now != tick_now);
		bool refill = !waiting && !tick && w.gen != seen_gen;
		if (tick || refill) {
			struct snap_head *s = NULL;
			ps_error_clear(&e);
			int r = a->src.ops->read(a->src.st, &io, &w, last, tick, &s, &e);
			seen_gen = w.gen;
			if (tick) {
				tick_now = w.tick_now;
				next = now + (uint64_t)(w.interval_ms > 0 ? w.interval_ms : 1500) * 1000000ull;
			}
			if (r < 0) {
				if (!job_cancelled(j) && e.code != ECANCELED)
					job_error(j, &e);
				break;
			}
			if (s) {
				s->seq = ++seq;
				pthread_mutex_lock(&a->ctl->lock);
				a->ctl->posted = seq;
				pthread_mutex_unlock(&a->ctl->lock);
				snap_put(last);
				last = snap_get(s);
				if (r == 1) {
					job_result(j, s, snap_put_void);
					break;
				}
				job_snapshot(j, s, snap_put_void);
			} else if (r == 1) {
				break;
			}
			continue; /* what the screen wants may have changed meanwhile */
		}
		if (waiting) {
			/* Checked again under the lock: a draw since the peek
			 * would not have woken a job that was not starved. */
			pthread_mutex_lock(&a->ctl->lock);
			bool still = a->ctl->want.paused || a->ctl->want.drawn < a->ctl->posted;
			if (still)
				a->ctl->starved = !a->ctl->want.paused;
			pthread_mutex_unlock(&a->ctl->lock);
			if (still)
				job_wait(j, 3600ull * 1000000000ull);
		} else {
			job_wait(j, next - now);
		}
	}
	snap_put(last);
}

unsigned source_submit(struct workers *w, const struct target_id *id, struct source *src, struct source_ctl *ctl,
		       const struct job_handler *h)
{
	struct source_arg *a = calloc(1, sizeof(*a));

	if (!a) {
		source_close(src);
		return 0;
	}
	a->src = *src;
	a->ctl = source_ctl_get(ctl);
	memset(src, 0, sizeof(*src));
	return workers_submit(w, LANE_LONG, id, source_job, a, arg_free, h);
}

void source_close(struct source *s)
{
	if (s->ops && s->ops->close)
		s->ops->close(s->st);
	memset(s, 0, sizeof(*s));
}
