/* threading.Lock waits in the deadlock analysis (pyframes.h,
 * stk_py_locks). A Lock's waiter sleeps in futex() on the lock's sem_t;
 * the Lock object whose sem_t that is sits in the waiter's frames (the
 * lock itself or its bound __exit__). CPython keeps no owner, so the
 * holder is a thread whose frames are inside `with lock:` (the block's
 * __exit__ on the value stack); only threads blocked in a Lock acquire are
 * read (their frames do not move after the thaw), and a lock two of them
 * claim alike gets no holder. */
#include "stack/pyframes.h"
#include "python/python.h"
#include "i18n.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define REFS_MAX 64

struct waiter {
	size_t i;                 /* in d->threads / st */
	struct py_lock_ref refs[REFS_MAX];
	int n;
	int wait;                 /* the ref it waits on, -1 */
};

void stk_py_locks(struct stk_dump *d, const struct stk_snap *st, size_t n, const struct stk_py_in *py, pid_t *wf,
		  uint64_t *addr)
{
	struct waiter *w = NULL;
	size_t nw = 0;

	if (!py || !py->py || !py->snap || !py->mem || d->py_error[0])
		return;
	for (size_t i = 0; i < d->n_threads && i < n; i++) {
		struct stk_thread *th = &d->threads[i];
		if (!th->python || !st[i].futex_ok || !th->idle || strcmp(th->idle, "lock acquire"))
			continue;
		const struct py_raw_thread *rt = stk_py_raw(th, &st[i], py->snap);
		if (!rt)
			continue;
		void *v = realloc(w, (nw + 1) * sizeof(*w));
		if (!v)
			break;
		w = v;
		struct waiter *x = &w[nw];
		x->i = i;
		x->wait = -1;
		x->n = py_lock_refs(py->py, py->mem, rt, x->refs, REFS_MAX);
		if (x->n < 0) {
			th->py_lock_why = x->n == -ENOTSUP ? N_("the Lock is named from CPython 3.11 on")
							  : N_("its frames could not be read");
			continue;
		}
		for (int k = 0; k < x->n; k++)
			if (x->refs[k].sem == st[i].futex_addr && x->wait < 0)
				x->wait = k;
		nw++;
	}
	for (size_t a = 0; a < nw; a++) {
		struct stk_thread *th = &d->threads[w[a].i];
		for (int k = 0; k < w[a].n; k++)
			th->py_held += k != w[a].wait && w[a].refs[k].with && w[a].refs[k].locked;
		if (w[a].wait < 0) {
			/* a lock its frames do not hold: an RLock, a Condition, a C extension's */
			th->py_lock_why = N_("no threading.Lock in its frames sleeps on that futex");
			continue;
		}
		const struct py_lock_ref *r = &w[a].refs[w[a].wait];
		th->py_lock = r->lock;
		if (r->name[0])
			th->py_lock_name = strdup(r->name);
		/* A claim is strong when the thread's frames also hold the lock
		 * itself (`with first:` over an argument or a local): a slot
		 * above a value stack's top may point at another thread's
		 * __exit__ of it, in memory a freed object left. One strong
		 * claim wins; else one weak claim; else the holder is not known. */
		pid_t strong = 0, weak = 0;
		int n_strong = 0, n_weak = 0;
		for (size_t b = 0; b < nw; b++)
			for (int k = 0; k < w[b].n; k++) {
				const struct py_lock_ref *c = &w[b].refs[k];
				if (b == a || k == w[b].wait || c->lock != r->lock || !c->with || !c->locked)
					continue;
				if (c->direct) {
					strong = d->threads[w[b].i].tid;
					n_strong++;
				} else {
					weak = d->threads[w[b].i].tid;
					n_weak++;
				}
			}
		pid_t holder = n_strong == 1 ? strong : !n_strong && n_weak == 1 ? weak : 0;
		if (!holder)
			continue;
		th->py_lock_holder = holder;
		if (!wf[w[a].i]) {
			wf[w[a].i] = holder;
			addr[w[a].i] = r->lock;
		}
	}
	free(w);
}
