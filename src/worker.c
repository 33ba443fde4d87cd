#include "worker.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A lane: its queue, the jobs running on it and the threads that run them.
 * A thread takes the oldest queued job while fewer than max run; the long
 * lane starts a thread whenever a job is queued and none is idle. */
struct lane {
	int max;                   /* jobs at once */
	struct job *head, *tail;   /* queued */
	struct job *running;       /* running, linked through next */
	int nqueued, nrunning, nidle;
	pthread_t *threads;
	int nthreads, capthreads;
	pthread_cond_t cond;       /* a job was queued, or one ended */
};

struct route {
	unsigned id;
	struct job_handler h;
};

struct workers {
	pthread_mutex_t lock;
	pthread_cond_t waits;      /* job_wait: woken or cancelled */
	struct ring *ring;
	struct lane lanes[LANE_COUNT];
	unsigned next_id;
	bool stopping;
	struct route *routes;      /* job id -> handler, for workers_dispatch */
	size_t nroutes, caproutes;
};

struct lane_arg {
	struct workers *w;
	struct lane *lane;
};

static void msg_init(struct ring_msg *m, struct job *j, enum ring_kind kind)
{
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->job_id = j->id;
	m->target = j->target;
	m->fraction = -1;
}

static void post(struct job *j, enum ring_kind kind, void *payload, void (*pf)(void *))
{
	struct ring_msg m;

	msg_init(&m, j, kind);
	m.payload = payload;
	m.payload_free = pf;
	ring_post(j->ring, &m);
}

void job_progress(struct job *j, double fraction, const char *fmt, ...)
{
	struct ring_msg m;
	va_list ap;

	msg_init(&m, j, RING_PROGRESS);
	m.fraction = fraction;
	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	ring_post(j->ring, &m);
}

void job_snapshot(struct job *j, void *payload, void (*payload_free)(void *))
{
	post(j, RING_SNAPSHOT, payload, payload_free);
}

void job_result(struct job *j, void *payload, void (*payload_free)(void *))
{
	post(j, RING_RESULT, payload, payload_free);
}

void job_error(struct job *j, const struct ps_error *e)
{
	struct ring_msg m;

	msg_init(&m, j, RING_ERROR);
	m.err = *e;
	ring_post(j->ring, &m);
}

bool job_wait(struct job *j, uint64_t timeout_ns)
{
	struct workers *w = j->w;
	struct timespec ts;
	bool woken;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t end = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + timeout_ns;
	ts.tv_sec = (time_t)(end / 1000000000ull);
	ts.tv_nsec = (long)(end % 1000000000ull);
	pthread_mutex_lock(&w->lock);
	while (!j->woken && !job_cancelled(j))
		if (pthread_cond_timedwait(&w->waits, &w->lock, &ts) == ETIMEDOUT)
			break;
	woken = j->woken && !job_cancelled(j);
	j->woken = false;
	pthread_mutex_unlock(&w->lock);
	return woken;
}

static void job_free(struct job *j)
{
	if (j->arg && j->arg_free)
		j->arg_free(j->arg);
	free(j);
}

static void unlink_running(struct lane *l, struct job *j)
{
	for (struct job **pp = &l->running; *pp; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			return;
		}
}

static void *lane_main(void *p)
{
	struct lane_arg *la = p;
	struct workers *w = la->w;
	struct lane *lane = la->lane;

	free(la);
	/* Asynchronous signals are the UI's (signalfd) or the default
	 * action's business, never a worker's. */
	sigset_t all;
	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGABRT);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->stopping && (!lane->head || lane->nrunning >= lane->max)) {
			lane->nidle++;
			pthread_cond_wait(&lane->cond, &w->lock);
			lane->nidle--;
		}
		if (w->stopping)
			break;
		struct job *j = lane->head;
		lane->head = j->next;
		if (!lane->head)
			lane->tail = NULL;
		lane->nqueued--;
		j->next = lane->running;
		lane->running = j;
		lane->nrunning++;
		pthread_mutex_unlock(&w->lock);

		j->run(j);
		post(j, RING_DONE, NULL, NULL);

		pthread_mutex_lock(&w->lock);
		unlink_running(lane, j);
		lane->nrunning--;
		pthread_cond_signal(&lane->cond); /* a queued job may run now */
		pthread_mutex_unlock(&w->lock);
		job_free(j);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Called with the lock held: one more thread for the lane. */
static int lane_grow(struct workers *w, struct lane *l)
{
	if (l->nthreads == l->capthreads) {
		int nc = l->capthreads ? 2 * l->capthreads : 2;
		pthread_t *t = realloc(l->threads, (size_t)nc * sizeof(*t));
		if (!t)
			return -ENOMEM;
		l->threads = t;
		l->capthreads = nc;
	}
	struct lane_arg *la = malloc(sizeof(*la));
	if (!la)
		return -ENOMEM;
	la->w = w;
	la->lane = l;
	int r = pthread_create(&l->threads[l->nthreads], NULL, lane_main, la);
	if (r) {
		free(la);
		return -r;
	}
	l->nthreads++;
	return 0;
}

struct workers *workers_new(struct ring *r)
{
	struct workers *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;

	if (!w)
		return NULL;
	w->ring = r;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->waits, &ca);
	pthread_condattr_destroy(&ca);
	w->lanes[LANE_ATTACH].max = 1;
	w->lanes[LANE_LONG].max = WORKERS_LONG_MAX;
	for (int i = 0; i < LANE_COUNT; i++)
		pthread_cond_init(&w->lanes[i].cond, NULL);
	/* The attach lane's one thread from the start: a stack dump never
	 * waits for a thread to be made. */
	pthread_mutex_lock(&w->lock);
	lane_grow(w, &w->lanes[LANE_ATTACH]);
	pthread_mutex_unlock(&w->lock);
	return w;
}

/* Called with the lock held. */
static int route_add(struct workers *w, unsigned id, const struct job_handler *h)
{
	if (w->nroutes == w->caproutes) {
		size_t nc = w->caproutes ? 2 * w->caproutes : 8;
		struct route *r = realloc(w->routes, nc * sizeof(*r));
		if (!r)
			return -1;
		w->routes = r;
		w->caproutes = nc;
	}
	w->routes[w->nroutes].id = id;
	w->routes[w->nroutes].h = *h;
	w->nroutes++;
	return 0;
}

static struct route *route_find(struct workers *w, unsigned id)
{
	for (size_t i = 0; i < w->nroutes; i++)
		if (w->routes[i].id == id)
			return &w->routes[i];
	return NULL;
}

static void route_del(struct workers *w, struct route *r)
{
	*r = w->routes[--w->nroutes];
}

bool workers_dispatch(struct workers *w, struct ring_msg *m)
{
	struct job_handler h = { 0 };
	struct route *r;

	pthread_mutex_lock(&w->lock);
	r = route_find(w, m->job_id);
	if (r) {
		h = r->h;
		if (m->kind == RING_DONE)
			route_del(w, r);
	}
	pthread_mutex_unlock(&w->lock);
	/* Outside the lock: a handler may submit or cancel jobs. */
	return h.on_message && h.on_message(h.ctx, m);
}

void workers_forget(struct workers *w, unsigned id)
{
	struct route *r;

	pthread_mutex_lock(&w->lock);
	r = route_find(w, id);
	if (r)
		route_del(w, r);
	pthread_mutex_unlock(&w->lock);
}

unsigned workers_submit(struct workers *w, enum worker_lane lane, const struct target_id *target,
			void (*run)(struct job *), void *arg, void (*arg_free)(void *), const struct job_handler *h)
{
	struct job *j = (unsigned)lane < LANE_COUNT ? calloc(1, sizeof(*j)) : NULL;

	if (!j) {
		if (arg && arg_free)
			arg_free(arg);
		return 0;
	}
	if (target)
		j->target = *target;
	j->ring = w->ring;
	j->w = w;
	j->run = run;
	j->arg = arg;
	j->arg_free = arg_free;
	atomic_init(&j->cancel, false);
	pthread_mutex_lock(&w->lock);
	struct lane *l = &w->lanes[lane];
	/* Every queued job has a thread to take it (up to the lane's max). */
	if (l->nqueued + 1 > l->nidle && l->nthreads < l->max && lane_grow(w, l) < 0 && !l->nthreads) {
		pthread_mutex_unlock(&w->lock);
		job_free(j);
		return 0;
	}
	j->id = ++w->next_id;
	if (h && h->on_message && route_add(w, j->id, h) < 0) {
		pthread_mutex_unlock(&w->lock);
		job_free(j);
		return 0;
	}
	if (l->tail)
		l->tail->next = j;
	else
		l->head = j;
	l->tail = j;
	l->nqueued++;
	unsigned id = j->id;
	pthread_cond_signal(&l->cond);
	pthread_mutex_unlock(&w->lock);
	return id;
}

/* Called with the lock held: the running job with that id, or NULL. */
static struct job *running_job(struct workers *w, unsigned id)
{
	for (int i = 0; i < LANE_COUNT; i++)
		for (struct job *j = w->lanes[i].running; j; j = j->next)
			if (j->id == id)
				return j;
	return NULL;
}

void workers_cancel(struct workers *w, unsigned id)
{
	pthread_mutex_lock(&w->lock);
	struct job *r = running_job(w, id);
	if (r) {
		atomic_store(&r->cancel, true);
		pthread_cond_broadcast(&w->waits);
	}
	for (int i = 0; i < LANE_COUNT && !r; i++) {
		struct lane *l = &w->lanes[i];
		struct job **pp = &l->head, *prev = NULL;
		while (*pp) {
			struct job *j = *pp;
			if (j->id == id) {
				*pp = j->next;
				if (l->tail == j)
					l->tail = prev;
				l->nqueued--;
				post(j, RING_DONE, NULL, NULL);
				job_free(j);
				break;
			}
			prev = j;
			pp = &j->next;
		}
	}
	pthread_mutex_unlock(&w->lock);
}

void workers_wake(struct workers *w, unsigned id)
{
	pthread_mutex_lock(&w->lock);
	struct job *j = running_job(w, id);
	if (j) {
		j->woken = true;
		pthread_cond_broadcast(&w->waits);
	}
	pthread_mutex_unlock(&w->lock);
}

void workers_free(struct workers *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	for (int i = 0; i < LANE_COUNT; i++) {
		for (struct job *j = w->lanes[i].running; j; j = j->next)
			atomic_store(&j->cancel, true);
		pthread_cond_broadcast(&w->lanes[i].cond);
	}
	pthread_cond_broadcast(&w->waits);
	pthread_mutex_unlock(&w->lock);
	for (int i = 0; i < LANE_COUNT; i++)
		for (int t = 0; t < w->lanes[i].nthreads; t++)
			pthread_join(w->lanes[i].threads[t], NULL);
	for (int i = 0; i < LANE_COUNT; i++) {
		while (w->lanes[i].head) {
			struct job *j = w->lanes[i].head;
			w->lanes[i].head = j->next;
			job_free(j);
		}
		free(w->lanes[i].threads);
		pthread_cond_destroy(&w->lanes[i].cond);
	}
	pthread_cond_destroy(&w->waits);
	pthread_mutex_destroy(&w->lock);
	free(w->routes);
	free(w);
}
