/* Ring and workers: ordering, coalescing, drops counted, results never
 * dropped, payloads freed exactly once, eventfd wakeups, job lifecycle and
 * cancellation. */
#include "tap.h"
#include "ring.h"
#include "worker.h"

#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_int freed;

static void count_free(void *p)
{
	atomic_fetch_add(&freed, 1);
	free(p);
}

static void post(struct ring *r, enum ring_kind k, unsigned job, int seq)
{
	struct ring_msg m;
	memset(&m, 0, sizeof(m));
	m.kind = k;
	m.job_id = job;
	int *p = malloc(sizeof(int));
	*p = seq;
	m.payload = p;
	m.payload_free = count_free;
	snprintf(m.text, sizeof(m.text), "step %d", seq);
	ring_post(r, &m);
}

static bool readable(struct ring *r, int ms)
{
	struct pollfd p = { .fd = ring_fd(r), .events = POLLIN };
	return poll(&p, 1, ms) == 1;
}

static void test_order_and_coalesce(void)
{
	struct ring *r = ring_new(8);
	struct ring_msg out[16];
	struct ring_stats s;

	ok(!readable(r, 0), "empty ring: eventfd not readable");
	post(r, RING_PROGRESS, 1, 1);
	post(r, RING_RESULT, 2, 10);
	post(r, RING_PROGRESS, 1, 2);
	post(r, RING_PROGRESS, 1, 3);
	ok(readable(r, 0), "after a post: eventfd readable");
	size_t n = ring_drain(r, out, 16);
	is_int(n, 2, "progress of one job coalesced into one message");
	is_int(out[0].kind, RING_PROGRESS, "first in, first out");
	is_str(out[0].text, "step 3", "coalesced progress keeps the newest text");
	is_int(*(int *)out[1].payload, 10, "result kept");
	is_int(atomic_load(&freed), 2, "replaced progress payloads freed");
	for (size_t i = 0; i < n; i++)
		ring_msg_release(&out[i]);
	ok(!readable(r, 0), "drained: eventfd not readable");
	ring_get_stats(r, &s);
	is_int(s.posted, 4, "posted counted");
	is_int(s.coalesced, 2, "coalesced counted");
	is_int(s.delivered, 2, "delivered counted");
	ring_free(r);
}

static void test_full(void)
{
	struct ring *r = ring_new(4);
	struct ring_msg out[4];
	struct ring_stats s;
	int seen[20], nseen = 0;

	atomic_store(&freed, 0);
	for (int i = 0; i < 4; i++)
		post(r, RING_RESULT, 1, i);
	post(r, RING_SNAPSHOT, 2, 100); /* full: dropped */
	post(r, RING_PROGRESS, 3, 101); /* full: dropped */
	for (int i = 4; i < 10; i++)
		post(r, RING_RESULT, 1, i); /* full: kept past the ring */
	post(r, RING_ERROR, 1, 10);
	is_int(atomic_load(&freed), 2, "dropped snapshot/progress payloads freed");
	ring_get_stats(r, &s);
	is_int(s.dropped, 2, "drops counted");
	is_int(s.overflowed, 7, "results and errors past the capacity are kept");
	size_t n;
	while ((n = ring_drain(r, out, 4)) > 0) {
		for (size_t i = 0; i < n; i++) {
			if (nseen < 20)
				seen[nseen++] = *(int *)out[i].payload;
			ring_msg_release(&out[i]);
		}
	}
	is_int(nseen, 11, "every result and the error delivered");
	int inorder = 1;
	for (int i = 0; i < nseen; i++)
		inorder &= seen[i] == i;
	ok(inorder, "in the order they were posted");
	ring_get_stats(r, &s);
	is_int(s.posted, s.delivered + s.coalesced + s.dropped, "posted = delivered + coalesced + dropped");
	/* Undelivered payloads are freed with the ring. */
	post(r, RING_RESULT, 1, 0);
	post(r, RING_PROGRESS, 1, 0);
	atomic_store(&freed, 0);
	ring_free(r);
	is_int(atomic_load(&freed), 2, "ring_free frees undelivered payloads");
}

/* ---- workers ---- */

static atomic_bool gate, started;

static void job_body(struct job *j)
{
	for (int i = 0; i < 5; i++)
		job_progress(j, i / 5.0, "step %d", i);
	int *p = malloc(sizeof(int));
	*p = (int)j->id;
	job_result(j, p, NULL);
}

static void job_blocking(struct job *j)
{
	atomic_store(&started, true);
	while (!atomic_load(&gate) && !job_cancelled(j)) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	if (job_cancelled(j)) {
		struct ps_error e = { 0 };
		ps_error_set(&e, 125, "cancelled");
		job_error(j, &e);
	}
}

/* Drain until `want` DONE messages; count kinds per job (up to 16 jobs). */
static void drain_until(struct ring *r, int want, int results[16], int errors[16], int dones[16], int *order_ok)
{
	struct ring_msg out[32];
	int got = 0;
	for (int spins = 0; got < want && spins < 5000; spins++) {
		readable(r, 10);
		size_t n = ring_drain(r, out, 32);
		for (size_t i = 0; i < n; i++) {
			unsigned id = out[i].job_id % 16;
			if (out[i].kind == RING_RESULT) {
				results[id]++;
				if (dones[id])
					*order_ok = 0;
			}
			if (out[i].kind == RING_ERROR)
				errors[id]++;
			if (out[i].kind == RING_DONE) {
				dones[id]++;
				got++;
			}
			ring_msg_release(&out[i]);
		}
	}
}

static void test_workers(void)
{
	struct ring *r = ring_new(16);
	struct workers *w = workers_new(r);
	int results[16] = { 0 }, errors[16] = { 0 }, dones[16] = { 0 }, order_ok = 1;
	struct target_id tid = { 1, 2 };

	unsigned a = workers_submit(w, LANE_ATTACH, &tid, job_body, NULL, NULL, NULL);
	unsigned b = workers_submit(w, LANE_LONG, &tid, job_body, NULL, NULL, NULL);
	ok(a > 0 && b > 0 && a != b, "jobs get distinct ids");
	drain_until(r, 2, results, errors, dones, &order_ok);
	ok(results[a % 16] == 1 && results[b % 16] == 1, "each job's result arrives once");
	ok(dones[a % 16] == 1 && dones[b % 16] == 1, "each job ends with one DONE");
	ok(order_ok, "RESULT comes before DONE");

	/* A running job is cancelled through its flag; a queued one never runs. */
	atomic_store(&gate, false);
	unsigned c = workers_submit(w, LANE_ATTACH, &tid, job_blocking, NULL, NULL, NULL);
	int *arg = malloc(sizeof(int));
	unsigned d = workers_submit(w, LANE_ATTACH, &tid, job_body, arg, free, NULL);
	workers_cancel(w, d);
	for (int i = 0; i < 60000 && !atomic_load(&started); i++) /* a cap, 60 s: a busy machine */
		usleep(1000);
	workers_cancel(w, c);
	drain_until(r, 2, results, errors, dones, &order_ok);
	is_int(errors[c % 16], 1, "the running job saw its cancel flag");
	is_int(results[d % 16], 0, "the cancelled queued job never ran");
	is_int(dones[d % 16], 1, "the cancelled queued job still gets its DONE");
	workers_free(w);
	ring_free(r);
}

/* Routing: each job's messages reach the handler it was submitted with,
 * in order, and nothing reaches a forgotten handler. */
struct heard {
	unsigned id;
	int results, dones, others;
	bool wrong_job, after_done;
};

static bool hear(void *ctx, struct ring_msg *m)
{
	struct heard *h = ctx;

	if (m->job_id != h->id)
		h->wrong_job = true;
	if (h->dones)
		h->after_done = true;
	if (m->kind == RING_RESULT)
		h->results++;
	else if (m->kind == RING_DONE)
		h->dones++;
	else
		h->others++;
	return false;
}

static void test_dispatch(void)
{
	struct ring *r = ring_new(16);
	struct workers *w = workers_new(r);
	struct target_id tid = { 1, 2 };
	struct heard ha = { 0 }, hb = { 0 };
	struct job_handler a = { hear, &ha }, b = { hear, &hb };
	struct ring_msg out[32];
	int unrouted = 0;

	atomic_store(&gate, true);
	ha.id = workers_submit(w, LANE_ATTACH, &tid, job_body, NULL, NULL, &a);
	hb.id = workers_submit(w, LANE_LONG, &tid, job_body, NULL, NULL, &b);
	unsigned c = workers_submit(w, LANE_ATTACH, &tid, job_body, NULL, NULL, &b);
	workers_forget(w, c);
	for (int spins = 0; (ha.dones + hb.dones < 2 || unrouted < 2) && spins < 5000; spins++) {
		readable(r, 10);
		size_t n = ring_drain(r, out, 32);
		for (size_t i = 0; i < n; i++) {
			if (!workers_dispatch(w, &out[i]) && out[i].job_id == c &&
			    (out[i].kind == RING_RESULT || out[i].kind == RING_DONE))
				unrouted++;
			ring_msg_release(&out[i]);
		}
	}
	ok(ha.results == 1 && ha.dones == 1 && !ha.wrong_job, "job a's result and DONE reach a's handler only");
	ok(hb.results == 1 && hb.dones == 1 && !hb.wrong_job, "job b's result and DONE reach b's handler only");
	ok(!ha.after_done && !hb.after_done, "nothing after DONE");
	is_int(unrouted, 2, "a forgotten job's result and DONE reach no handler");
	workers_free(w);
	ring_free(r);
}

int main(void)
{
	test_order_and_coalesce();
	test_full();
	test_workers();
	test_dispatch();
	return tap_done();
}
