#include "worker.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lane {
	pthread_t thread;
	struct job *head, *tail;   /* queued */
	struct job *running;
	bool started;
};

struct route {
	unsigned id;
	struct job_handler h;
};

struct workers {
	pthread_mutex_t lock;
	pthread_cond_t cond;
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
	m->job_type = (int)j->type;
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

static void job_free(struct job *j)
{
	if (j->arg && j->arg_free)
		j->arg_free(j->arg);
	free(j);
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
		while (!lane->head && !w->stopping)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->stopping)
			break;
		struct job *j = lane->head;
		lane->head = j->next;
		if (!lane->head)
			lane->tail = NULL;
		lane->running = j;
		pthread_mutex_unlock(&w->lock);

		j->run(j);
		post(j, RING_DONE, NULL, NULL);

		pthread_mutex_lock(&w->lock);
		lane->running = NULL;
		pthread_mutex_unlock(&w->lock);
		job_free(j);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct workers *workers_new(struct ring *r)
{
	struct workers *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->ring = r;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	for (int i = 0; i < LANE_COUNT; i++) {
		struct lane_arg *la = malloc(sizeof(*la));
		if (!la)
			continue;
		la->w = w;
		la->lane = &w->lanes[i];
		if (pthread_create(&w->lanes[i].thread, NULL, lane_main, la) == 0)
			w->lanes[i].started = true;
		else
			free(la);
	}
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

unsigned workers_submit(struct workers *w, enum worker_lane lane, enum job_type type,
			const struct target_id *target, void (*run)(struct job *), void *arg,
			void (*arg_free)(void *), const struct job_handler *h)
{
	struct job *j = (unsigned)lane < LANE_COUNT && w->lanes[lane].started ? calloc(1, sizeof(*j)) : NULL;

	if (!j) {
		if (arg && arg_free)
			arg_free(arg);
		return 0;
	}
	j->type = type;
	if (target)
		j->target = *target;
	j->ring = w->ring;
	j->run = run;
	j->arg = arg;
	j->arg_free = arg_free;
	atomic_init(&j->cancel, false);
	pthread_mutex_lock(&w->lock);
	j->id = ++w->next_id;
	if (h && h->on_message && route_add(w, j->id, h) < 0) {
		pthread_mutex_unlock(&w->lock);
		job_free(j);
		return 0;
	}
	struct lane *l = &w->lanes[lane];
	if (l->tail)
		l->tail->next = j;
	else
		l->head = j;
	l->tail = j;
	unsigned id = j->id;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return id;
}

void workers_cancel(struct workers *w, unsigned id)
{
	pthread_mutex_lock(&w->lock);
	for (int i = 0; i < LANE_COUNT; i++) {
		struct lane *l = &w->lanes[i];
		if (l->running && l->running->id == id)
			atomic_store(&l->running->cancel, true);
		struct job **pp = &l->head, *prev = NULL;
		while (*pp) {
			struct job *j = *pp;
			if (j->id == id) {
				*pp = j->next;
				if (l->tail == j)
					l->tail = prev;
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

void workers_free(struct workers *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	for (int i = 0; i < LANE_COUNT; i++) {
		if (w->lanes[i].running)
			atomic_store(&w->lanes[i].running->cancel, true);
	}
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	for (int i = 0; i < LANE_COUNT; i++)
		if (w->lanes[i].started)
			pthread_join(w->lanes[i].thread, NULL);
	for (int i = 0; i < LANE_COUNT; i++) {
		while (w->lanes[i].head) {
			struct job *j = w->lanes[i].head;
			w->lanes[i].head = j->next;
			job_free(j);
		}
	}
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w->routes);
	free(w);
}
