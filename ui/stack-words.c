/* What the rows of a stack dump's body say (stack-rows.h). */
#include "stack-rows.h"
#include "i18n.h"
#include "stack/stack.h"
#include "golang/golang.h"

#include <stdio.h>
#include <string.h>

static const char *thread_name(const struct stk_dump *d, pid_t tid)
{
	for (size_t i = 0; i < d->n_threads; i++)
		if (d->threads[i].tid == tid)
			return d->threads[i].name;
	return "";
}

/* The deadlock's words, in the locale's language or (en) in English:
 * drawn in the first, searched in both, so "/DEADLOCK" from a lab handout
 * finds these rows under LANG=ko too. */
void stack_cycle_msg(const struct stk_dump *d, const struct row *r, bool en, char *buf, size_t size)
{
	size_t n = d->cycles[r->a].n;

	if (n == 1)
		snprintf(buf, size, "%s", T_(en, "DEADLOCK: a thread waits for a lock it holds itself"));
	else
		snprintf(buf, size,
			 TP_(en, "DEADLOCK: %zu thread waits for each other", "DEADLOCK: %zu threads wait for each other", n),
			 n);
}

/* An edge of the cycle in two rows: who waits for which lock (ROW_EDGE),
 * then who holds it and where the waiter waits (ROW_HELD). */
void stack_edge_msg(const struct stk_dump *d, const struct row *r, bool en, char *buf, size_t size)
{
	const struct stk_edge *e = &d->cycles[r->a].edges[r->b];
	char lock[600], where[1200];

	if (r->kind == ROW_HELD) {
		stk_frame_where(e->frame, where, sizeof(where));
		if (e->py_lock)
			snprintf(buf, size, T_(en, "held by TID %d (inside `with` it), in %s"), (int)e->waits_for_tid, where);
		else
			snprintf(buf, size, T_(en, "held by TID %d, in %s"), (int)e->waits_for_tid, where);
		return;
	}
	stk_lock_str(e->lock_addr, e->lock_name, lock, sizeof(lock));
	if (e->py_lock)
		snprintf(buf, size, T_(en, "TID %d \"%s\" waits for threading.Lock %s"), (int)e->tid, thread_name(d, e->tid),
			 lock);
	else
		snprintf(buf, size, T_(en, "TID %d \"%s\" waits for lock %s"), (int)e->tid, thread_name(d, e->tid), lock);
}

/* Why a stack switches to frame pointers (ROW_CFI) or stops (ROW_END),
 * as the batch output says it. */
void stack_stop_msg(const struct stk_dump *d, const struct row *r, bool en, char *buf, size_t size)
{
	const struct stk_thread *t = &d->threads[d->groups[r->group].members[0]];

	if (r->kind == ROW_CFI) {
		const struct sym_info *s = t->frames[r->a - 1].sym;
		snprintf(buf, size, T_(en, "-- no CFI for %s: the frames below follow frame pointers --"),
			 s && s->module ? s->module : "?");
	} else if (t->unwind_end) {
		snprintf(buf, size, T_(en, "unwinding stopped: %s"), T_(en, t->unwind_end));
	} else {
		snprintf(buf, size, "%s", T_(en, "... (more frames: --max-frames)"));
	}
}

/* A group with threads blocked behind the deadlock: how many ("" none). */
void stack_group_behind_msg(const struct stk_dump *d, const struct row *r, bool en, char *buf, size_t size)
{
	const struct stk_group *g = &d->groups[r->group];
	size_t behind = 0;

	for (size_t k = 0; k < g->n; k++)
		behind += d->threads[g->members[k]].behind_cycle != 0;
	buf[0] = '\0';
	if (behind == g->n)
		snprintf(buf, size, "%s", T_(en, "[blocked behind the deadlock] "));
	else if (behind)
		snprintf(buf, size, T_(en, "[%zu blocked behind the deadlock] "), behind);
}

/* A thread blocked behind the deadlock: which cycle, lock and holder. */
void stack_thread_behind_msg(const struct stk_thread *t, bool en, char *buf, size_t size)
{
	char lock[600];

	buf[0] = '\0';
	if (t->py_lock && t->py_lock_holder)
		snprintf(buf, size, T_(en, "  waits for threading.Lock %s held by TID %d"),
			 stk_lock_str(t->py_lock, t->py_lock_name, lock, sizeof(lock)), (int)t->py_lock_holder);
	else if (t->py_lock)
		snprintf(buf, size, T_(en, "  waits for threading.Lock %s (holder not known)"),
			 stk_lock_str(t->py_lock, t->py_lock_name, lock, sizeof(lock)));
	else if (t->py_lock_why)
		snprintf(buf, size, "  (%s)", T_(en, t->py_lock_why));
	else if (t->behind_cycle)
		snprintf(buf, size, T_(en, "  blocked behind deadlock %d (lock %s held by TID %d)"), t->behind_cycle,
			 stk_lock_str(t->wait_lock, t->wait_lock_name, lock, sizeof(lock)), (int)t->waits_for);
}

void stack_go_head_msg(const struct stk_dump *d, bool en, char *buf, size_t size)
{
	const struct go_list *l = d->go;

	if (!l) {
		snprintf(buf, size, T_(en, "Goroutines: %s"), d->go_error[0] ? d->go_error : T_(en, "not read"));
		return;
	}
	snprintf(buf, size,
		 T_(en, "Goroutines: %zu (running %zu, runnable %zu, waiting %zu, in a syscall %zu), read after the freeze"),
		 l->n, l->by_state[2], l->by_state[1], l->by_state[4], l->by_state[3]);
}

void stack_go_group_msg(const struct stk_dump *d, const struct row *r, bool en, char *buf, size_t size)
{
	const struct stk_go_group *gr = &d->go_groups[r->a];
	const struct go_g *g = &d->go->g[gr->first];
	size_t off;

	if (gr->n > 1)
		off = (size_t)snprintf(buf, size, T_(en, "%zu goroutines [%s%s%s]"), gr->n, T_(en, g->state),
				       g->wait[0] ? ": " : "", g->wait);
	else
		off = (size_t)snprintf(buf, size, T_(en, "goroutine %lld [%s%s%s]"), (long long)g->goid, T_(en, g->state),
				       g->wait[0] ? ": " : "", g->wait);
	if (off < size && g->tid)
		off += (size_t)snprintf(buf + off, size - off, T_(en, " on TID %d"), (int)g->tid);
	/* its functions, innermost first, as a thread group's chain */
	for (size_t k = 0; k < g->n && off + 1 < size; k++) {
		const struct sym_info *s = g->sym[k];
		off += (size_t)snprintf(buf + off, size - off, "%s%s", k ? " <- " : ": ", s && s->function ? s->function : "??");
	}
}
