/* Stress under ThreadSanitizer: producers flood the ring while the consumer
 * drains it, and workers run jobs while others are cancelled; at the end
 * every count reconciles. Built with its own copy of ring.c and worker.c
 * and -fsanitize=thread (tests/stack.mk). */
#include "tap.h"
#include "ring.h"
#include "worker.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define PRODUCERS 6
#define PER_PRODUCER 20000

static struct ring *ring;
static atomic_int payloads_live;

static void pfree(void *p)
{
	atomic_fetch_sub(&payloads_live, 1);
	free(p);
}

static void *producer(void *arg)
{
	unsigned id = (unsigned)(long)arg;
	for (int i = 0; i < PER_PRODUCER; i++) {
		struct ring_msg m;
		memset(&m, 0, sizeof(m));
		/* Every 4th message a result (never dropped), the rest progress
		 * and snapshots (coalesced or dropped). */
		m.kind = i % 4 == 0 ? RING_RESULT : (i % 2 ? RING_PROGRESS : RING_SNAPSHOT);
		m.job_id = id;
		int *p = malloc(sizeof(int));
		*p = i;
		atomic_fetch_add(&payloads_live, 1);
		m.payload = p;
		m.payload_free = pfree;
		ring_post(ring, &m);
	}
	return NULL;
}

static void test_flood(void)
{
	pthread_t th[PRODUCERS];
	int results[PRODUCERS + 1] = { 0 }, last[PRODUCERS + 1];
	unsigned long got = 0;
	int order_ok = 1;

	ring = ring_new(64);
	for (int i = 0; i <= PRODUCERS; i++)
		last[i] = -1;
	for (long i = 0; i < PRODUCERS; i++)
		pthread_create(&th[i], NULL, producer, (void *)(i + 1));
	int want = PRODUCERS * (PER_PRODUCER / 4);
	int nres = 0;
	struct ring_stats s;
	for (int idle = 0; idle < 500;) {
		struct pollfd p = { .fd = ring_fd(ring), .events = POLLIN };
		poll(&p, 1, 10);
		struct ring_msg out[32];
		size_t n = ring_drain(ring, out, 32);
		idle = n ? 0 : idle + 1;
		for (size_t k = 0; k < n; k++) {
			got++;
			if (out[k].kind == RING_RESULT) {
				int seq = *(int *)out[k].payload;
				if (seq <= last[out[k].job_id])
					order_ok = 0;
				last[out[k].job_id] = seq;
				results[out[k].job_id]++;
				nres++;
			}
			ring_msg_release(&out[k]);
		}
		ring_get_stats(ring, &s);
		if (nres == want && s.posted == (unsigned long)PRODUCERS * PER_PRODUCER &&
		    s.posted == s.delivered + s.coalesced + s.dropped)
			break;
	}
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(th[i], NULL);
	ring_get_stats(ring, &s);
	is_int(nres, want, "every result delivered (%d)", want);
	ok(order_ok, "results of each producer in order");
	is_int(s.posted, PRODUCERS * PER_PRODUCER, "every post counted");
	is_int(s.delivered, got, "delivered = messages the consumer saw");
	is_int(s.posted, s.delivered + s.coalesced + s.dropped, "posted = delivered + coalesced + dropped (%lu + %lu + %lu)",
	       s.delivered, s.coalesced, s.dropped);
	ring_free(ring);
	is_int(atomic_load(&payloads_live), 0, "every payload freed exactly once");
}

static atomic_int ran;

static void job_run(struct job *j)
{
	atomic_fetch_add(&ran, 1);
	for (int i = 0; i < 50 && !job_cancelled(j); i++)
		job_progress(j, i / 50.0, "job %u step %d", j->id, i);
	job_result(j, NULL, NULL);
}

static void test_jobs(void)
{
	enum { JOBS = 400 };
	struct ring *r = ring_new(32);
	struct workers *w = workers_new(r);
	static unsigned char done[JOBS + 1], result[JOBS + 1];
	int dones = 0, bad = 0;

	for (int i = 0; i < JOBS; i++) {
		unsigned id = workers_submit(w, i % 2 ? LANE_ATTACH : LANE_SAMPLER, JOB_STACK, NULL, job_run, NULL, NULL, NULL);
		if (id > JOBS)
			bad++;
		if (i % 3 == 0)
			workers_cancel(w, id);
	}
	for (int idle = 0; dones < JOBS && idle < 1000;) {
		struct pollfd p = { .fd = ring_fd(r), .events = POLLIN };
		poll(&p, 1, 10);
		struct ring_msg out[32];
		size_t n = ring_drain(r, out, 32);
		idle = n ? 0 : idle + 1;
		for (size_t k = 0; k < n; k++) {
			unsigned id = out[k].job_id;
			if (id == 0 || id > JOBS) {
				bad++;
			} else if (out[k].kind == RING_DONE) {
				if (done[id]++)
					bad++;
				dones++;
			} else if (out[k].kind == RING_RESULT) {
				if (result[id]++ || done[id])
					bad++;
			}
			ring_msg_release(&out[k]);
		}
	}
	workers_free(w);
	int results = 0;
	for (int i = 1; i <= JOBS; i++)
		results += result[i];
	is_int(dones, JOBS, "every job, run or cancelled, ends with one DONE");
	is_int(results, atomic_load(&ran), "one result per job that ran");
	is_int(bad, 0, "no duplicate, unknown or out-of-order message");
	ring_free(r);
}

int main(void)
{
	test_flood();
	test_jobs();
	return tap_done();
}
