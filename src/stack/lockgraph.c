/* Lock graph: who holds the mutex a futex waiter sleeps on, and the cycles
 * of the wait-for graph (deadlocks). */
#include "stack/internal.h"

#include <stdlib.h>
#include <string.h>

#define FUTEX_WAIT 0
#define FUTEX_LOCK_PI 6
#define FUTEX_WAIT_BITSET 9
#define FUTEX_LOCK_PI2 13
#define FUTEX_TID_MASK 0x3fffffffu

/* glibc pthread_mutex_t __kind bits. */
#define KIND_TYPE 3u       /* normal, recursive, errorcheck, adaptive */
#define KIND_ROBUST 16u
#define KIND_PI 32u
#define KIND_PP 64u
#define KIND_ELISION 768u  /* elision flags */
#define KIND_PSHARED 128u

pid_t stk_lock_owner(int op, const uint32_t w[5])
{
	switch (op) {
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
		/* PI mutexes keep the owner's tid in the lock word. */
		return (pid_t)(w[0] & FUTEX_TID_MASK);
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
		if (w[4] & ~(KIND_TYPE | KIND_ROBUST | KIND_PI | KIND_PP | KIND_ELISION | KIND_PSHARED))
			return 0; /* not a mutex: a condition variable, a semaphore... */
		if (w[4] & KIND_ROBUST)
			return (pid_t)(w[0] & FUTEX_TID_MASK);
		/* Normal mutex: the lock word is 1 or 2 (contended) while held,
		 * and __owner (the int at +8) names the holder. */
		if (w[0] == 0 || w[0] > 2)
			return 0;
		return (pid_t)w[2];
	default:
		return 0;
	}
}

size_t stk_lock_cycles(const pid_t *tid, const pid_t *waits_for, size_t n, size_t *cycle_of)
{
	/* Each thread waits for at most one other: follow the arrows from
	 * every thread; a walk that comes back to a node of its own walk has
	 * found a cycle. color: 0 unseen, walk number + 1 while on a walk. */
	size_t *next = malloc(n * sizeof(*next) + 1);
	size_t *color = calloc(n + 1, sizeof(*color));
	size_t cycles = 0;

	memset(cycle_of, 0, n * sizeof(*cycle_of));
	if (!next || !color) {
		free(next);
		free(color);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		next[i] = n; /* none */
		if (!waits_for[i])
			continue;
		for (size_t j = 0; j < n; j++)
			if (tid[j] == waits_for[i]) {
				next[i] = j;
				break;
			}
	}
	for (size_t s = 0; s < n; s++) {
		size_t i = s;
		while (i < n && !color[i]) {
			color[i] = s + 1;
			i = next[i];
		}
		if (i < n && color[i] == s + 1 && !cycle_of[i]) {
			cycles++;
			size_t j = i;
			do {
				cycle_of[j] = cycles;
				j = next[j];
			} while (j != i);
		}
	}
	free(next);
	free(color);
	return cycles;
}

void stk_lock_behind(const pid_t *tid, const pid_t *waits_for, size_t n, const size_t *cycle_of, size_t *behind)
{
	for (size_t i = 0; i < n; i++) {
		size_t cur = i;
		behind[i] = 0;
		if (cycle_of[i])
			continue;
		/* at most n steps: a chain ends outside the process, at a thread
		 * that does not wait, or in a cycle */
		for (size_t steps = 0; steps < n && waits_for[cur]; steps++) {
			size_t nx = n;
			for (size_t j = 0; j < n; j++)
				if (tid[j] == waits_for[cur]) {
					nx = j;
					break;
				}
			if (nx == n)
				break;
			if (cycle_of[nx]) {
				behind[i] = cycle_of[nx];
				break;
			}
			cur = nx;
		}
	}
}
