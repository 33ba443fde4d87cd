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
#include <sched.h>
#include <string.h>
#include <time.h>

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

static void readable_ms(struct ring *r, int ms)
{
	struct pollfd p = { .fd = ring_fd(r), .events = POLLIN };
	poll(&p, 1, ms);
}

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
		unsigned id = workers_submit(w, i % 2 ? LANE_ATTACH : LANE_LONG, NULL, job_run, NULL, NULL, NULL);
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

/* Long jobs: many at once on the long lane (more than it runs at once),
 * each publishing until cancelled and sleeping in job_wait, woken and
 * cancelled from another thread while short jobs run on both lanes. */
enum { LONG_JOBS = WORKERS_LONG_MAX + 4 };
static atomic_int long_running, long_peak, long_wakes;

static void long_run(struct job *j)
{
	int now = atomic_fetch_add(&long_running, 1) + 1;
	for (int peak = atomic_load(&long_peak); now > peak && !atomic_compare_exchange_weak(&long_peak, &peak, now);)
		;
	while (!job_cancelled(j)) {
		int *p = malloc(sizeof(int));
		*p = (int)j->id;
		atomic_fetch_add(&payloads_live, 1);
		job_snapshot(j, p, pfree);
		if (job_wait(j, j->arg ? *(uint64_t *)j->arg : 200 * 1000000ull))
			atomic_fetch_add(&long_wakes, 1);
	}
	atomic_fetch_sub(&long_running, 1);
}

struct poker {
	struct workers *w;
	unsigned *ids;
	int n;
};

static uint64_t mono_ms(void);

/* Wakes every long job over and over (200 rounds, and until one of them
 * was woken out of its wait, a minute at the most), then cancels them
 * one by one. */
static void *poke(void *p)
{
	struct poker *k = p;
	uint64_t t0 = mono_ms();
	for (int round = 0; round < 200 || (!atomic_load(&long_wakes) && mono_ms() - t0 < 60000); round++) {
		for (int i = 0; i < k->n; i++)
			workers_wake(k->w, k->ids[i]);
		if (round >= 200) {
			struct timespec ts = { 0, 1000000 };
			nanosleep(&ts, NULL);
		}
	}
	for (int i = 0; i < k->n; i++)
		workers_cancel(k->w, k->ids[i]);
	return NULL;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

struct tally {
	unsigned char done[LONG_JOBS + 64];
	int dones, bad, shorts, snaps;
};

static void count(struct ring_msg *out, size_t n, struct tally *t)
{
	for (size_t m = 0; m < n; m++) {
		unsigned id = out[m].job_id;
		if (id == 0 || id >= sizeof(t->done)) {
			t->bad++;
		} else if (out[m].kind == RING_DONE) {
			if (t->done[id]++)
				t->bad++;
			t->dones++;
		} else if (out[m].kind == RING_RESULT) {
			t->shorts++;
		} else if (out[m].kind == RING_SNAPSHOT) {
			t->snaps++;
			if (t->done[id])
				t->bad++;
		}
		ring_msg_release(&out[m]);
	}
}

static void test_long_jobs(void)
{
	struct ring *r = ring_new(32);
	struct workers *w = workers_new(r);
	unsigned ids[LONG_JOBS];
	struct tally t = { 0 };

	atomic_store(&payloads_live, 0);
	for (int i = 0; i < LONG_JOBS; i++)
		ids[i] = workers_submit(w, LANE_LONG, NULL, long_run, NULL, NULL, NULL);
	/* Short jobs behind them on both lanes still run. */
	for (int i = 0; i < 8; i++)
		workers_submit(w, i % 2 ? LANE_ATTACH : LANE_LONG, NULL, job_run, NULL, NULL, NULL);
	/* Every message is counted from the start: the short jobs of the
	 * attach lane may be done before the long ones all run. */
	/* The first WORKERS_LONG_MAX run together. */
	uint64_t t0 = mono_ms();
	while (atomic_load(&long_peak) < WORKERS_LONG_MAX && mono_ms() - t0 < 30000) {
		struct ring_msg out[32];
		size_t n = ring_drain(r, out, 32);
		count(out, n, &t);
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	is_int(atomic_load(&long_peak), WORKERS_LONG_MAX, "%d long jobs run at once on the long lane", WORKERS_LONG_MAX);
	struct poker k = { w, ids, LONG_JOBS };
	pthread_t th;
	pthread_create(&th, NULL, poke, &k);
	for (int idle = 0; t.dones < LONG_JOBS + 8 && idle < 3000;) {
		struct pollfd p = { .fd = ring_fd(r), .events = POLLIN };
		poll(&p, 1, 10);
		struct ring_msg out[32];
		size_t n = ring_drain(r, out, 32);
		idle = n ? 0 : idle + 1;
		count(out, n, &t);
	}
	pthread_join(th, NULL);
	is_int(t.dones, LONG_JOBS + 8, "every long and short job ends with one DONE");
	is_int(t.shorts, 8, "the short jobs queued behind the long ones ran");
	ok(t.snaps > 0, "the long jobs published (%d snapshots)", t.snaps);
	ok(atomic_load(&long_wakes) > 0, "workers_wake ends a job_wait (%d)", atomic_load(&long_wakes));
	is_int(t.bad, 0, "no duplicate DONE, unknown id or snapshot after DONE");
	/* A job in job_wait ends at its cancel, not at its timeout (a minute:
	 * the cap below is half of it). */
	static uint64_t minute = 60ull * 1000000000ull;
	unsigned id = workers_submit(w, LANE_LONG, NULL, long_run, &minute, NULL, NULL);
	while (atomic_load(&long_running) == 0)
		sched_yield();
	t0 = mono_ms();
	workers_cancel(w, id);
	for (bool got = false; !got && mono_ms() - t0 < 30000;) {
		struct ring_msg out[32];
		readable_ms(r, 10);
		size_t n = ring_drain(r, out, 32);
		for (size_t m = 0; m < n; m++) {
			got |= out[m].kind == RING_DONE && out[m].job_id == id;
			ring_msg_release(&out[m]);
		}
	}
	uint64_t t_cancel = mono_ms() - t0;
	ok(t_cancel < 30000, "a cancel ends job_wait at once (%llu ms; its timeout is 60 s)", (unsigned long long)t_cancel);
	workers_free(w);
	ring_free(r);
	is_int(atomic_load(&payloads_live), 0, "every snapshot freed exactly once");
}

int main(void)
{
	test_flood();
	test_jobs();
	test_long_jobs();
	return tap_done();
}
