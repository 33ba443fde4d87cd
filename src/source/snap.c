/* Snapshots: references, a table copied into one, lookups, and the rates
 * made of two of them. */
#include "source/snap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct snap_head *snap_get(struct snap_head *h)
{
	if (h)
		atomic_fetch_add(&h->refs, 1);
	return h;
}

void snap_put(struct snap_head *h)
{
	if (h && atomic_fetch_sub(&h->refs, 1) == 1)
		h->free(h);
}

void snap_put_void(void *h)
{
	snap_put(h);
}

static void list_free(struct snap_head *h)
{
	struct snap_list *s = (struct snap_list *)h;

	for (size_t i = 0; i < s->n; i++)
		proc_row_put(s->rows[i]);
	ptable_users_put(s->users);
	pid_index_free(&s->ix);
	free(s->exits);
	free(s->cpu_hist);
	free(s->meter_hist);
	free(s);
}

struct snap_list *snap_list_alloc(size_t n, int ncpu)
{
	size_t off_rows = (sizeof(struct snap_list) + 15) & ~(size_t)15;
	size_t off_cpu = (off_rows + n * sizeof(struct proc_row *) + 15) & ~(size_t)15;
	size_t cpu_bytes = (size_t)ncpu * (sizeof(int) + sizeof(struct sys_cpu_times) + sizeof(struct sys_cpu_usage));
	char *b = malloc(off_cpu + cpu_bytes + 1);

	if (!b)
		return NULL;
	struct snap_list *s = (struct snap_list *)b;
	memset(s, 0, sizeof(*s));
	atomic_init(&s->h.refs, 1);
	s->h.free = list_free;
	s->rows = (const struct proc_row **)(void *)(b + off_rows);
	if (pid_index_build(&s->ix, NULL, 0) < 0) {
		free(b);
		return NULL;
	}
	struct sys_snapshot *y = &s->sys;
	char *c = b + off_cpu;
	y->ncpu = ncpu;
	y->cpu_t = (struct sys_cpu_times *)(void *)c;
	y->cpu = (struct sys_cpu_usage *)(void *)(c + (size_t)ncpu * sizeof(struct sys_cpu_times));
	y->cpu_id = (int *)(void *)(c + (size_t)ncpu * (sizeof(struct sys_cpu_times) + sizeof(struct sys_cpu_usage)));
	memset(c, 0, cpu_bytes);
	return s;
}

int snap_list_index(struct snap_list *s)
{
	return pid_index_build(&s->ix, s->rows, s->n);
}

struct snap_list *snap_list_of(struct ptable *pt, bool threads, uint64_t t_ns, double wall,
			      const struct sys_snapshot *sys)
{
	size_t n = ptable_size(pt);
	int ncpu = sys ? sys->ncpu : 0;
	struct snap_list *s = snap_list_alloc(n, ncpu);

	if (!s)
		return NULL;
	s->h.t_ns = t_ns;
	s->h.wall = wall;
	s->threads = threads;
	s->times.hz = proc_hz();
	s->times.btime = ptable_btime(pt);
	s->times.wall = wall;
	ptable_counts(pt, &s->counts);
	/* The rows themselves are shared: the table writes a copy of a row
	 * from now on. */
	for (size_t i = 0; i < n; i++)
		s->rows[i] = proc_row_get(ptable_row(pt, i));
	s->n = n;
	s->users = ptable_users_get(pt);
	if (sys) {
		struct sys_snapshot *y = &s->sys;
		s->have_sys = true;
		memcpy(y->cpu_t, sys->cpu_t, (size_t)ncpu * sizeof(*y->cpu_t));
		memcpy(y->cpu_id, sys->cpu_id, (size_t)ncpu * sizeof(*y->cpu_id));
		y->total_t = sys->total_t;
		y->mem = sys->mem;
		y->load = sys->load;
		y->uptime = sys->uptime;
	}
	if (snap_list_index(s) < 0) {
		list_free(&s->h);
		return NULL;
	}
	return s;
}

const struct proc_row *snap_list_find(const struct snap_list *s, pid_t pid)
{
	long i = pid_index_find(&s->ix, s->rows, pid);
	return i >= 0 ? s->rows[i] : NULL;
}

int snap_list_order(const struct snap_list *s, enum proc_sort key, bool desc, bool tree,
		    bool (*keep)(const struct proc_row *r, void *arg), void *arg, struct proc_view *out)
{
	return proc_rows_order(s->rows, s->n, &s->ix, key, desc, tree, keep, arg, out);
}

/* Per second between two reads of a counter; 0 when it went back (a new
 * process under an old pid) or no time passed. */
static double per_s(unsigned long long cur, unsigned long long prev, uint64_t now, uint64_t then)
{
	if (!then || now <= then || cur < prev)
		return 0;
	return (double)(cur - prev) * 1e9 / (double)(now - then);
}

static void extra_rates(const struct proc_extra *p, struct proc_extra *x)
{
	if (!x->io_ns || x->io_err)
		x->io_read_rate = x->io_write_rate = 0;
	else if (p && x->io_ns == p->io_ns) {
		x->io_read_rate = p->io_read_rate; /* not read again since */
		x->io_write_rate = p->io_write_rate;
	} else if (p && p->io_ns && !p->io_err) {
		x->io_read_rate = per_s(x->io_rb, p->io_rb, x->io_ns, p->io_ns);
		x->io_write_rate = per_s(x->io_wb, p->io_wb, x->io_ns, p->io_ns);
	} else {
		x->io_read_rate = x->io_write_rate = 0; /* the first read */
	}
	if (!x->ctxt_ns)
		x->ctxt_rate = 0;
	else if (p && x->ctxt_ns == p->ctxt_ns)
		x->ctxt_rate = p->ctxt_rate;
	else if (p && p->ctxt_ns)
		x->ctxt_rate = per_s(x->ctxt, p->ctxt, x->ctxt_ns, p->ctxt_ns);
	else
		x->ctxt_rate = 0;
}

void snap_list_rates(const struct snap_list *prev, struct snap_list *cur)
{
	long hz = cur->times.hz > 0 ? cur->times.hz : 100;

	cur->interval = 0;
	if (prev)
		cur->interval = cur->h.t_ns > prev->h.t_ns ? (double)(cur->h.t_ns - prev->h.t_ns) / 1e9 : prev->interval;
	for (size_t i = 0; i < cur->n; i++) {
		const struct proc_row *p = prev ? snap_list_find(prev, cur->rows[i]->pid) : NULL;
		if (p == cur->rows[i])
			continue; /* the row prev shares: its rates as they were */
		/* A row of cur alone (and of the table that made it): its rates
		 * are written once, before cur is posted. */
		struct proc_row *r = (struct proc_row *)(uintptr_t)cur->rows[i];
		if (p && (p->starttime != r->starttime || p->is_thread != r->is_thread))
			p = NULL; /* another process (or thread) under the same pid */
		r->cpu = 0;
		if (p && r->read_ns == p->read_ns)
			r->cpu = p->cpu; /* not read again since (idle, skipped) */
		else if (p && p->read_ns && r->read_ns > p->read_ns && r->ticks >= p->ticks)
			r->cpu = (double)(r->ticks - p->ticks) * 100.0 / (double)hz / ((double)(r->read_ns - p->read_ns) / 1e9);
		if (r->x)
			extra_rates(p ? p->x : NULL, r->x);
	}
	if (!cur->have_sys)
		return;
	if (prev && prev->have_sys && prev->h.t_ns == cur->h.t_ns && prev->sys.ncpu == cur->sys.ncpu) {
		/* The same reading (rows scrolled into view): the same usage. */
		cur->sys.total = prev->sys.total;
		memcpy(cur->sys.cpu, prev->sys.cpu, (size_t)cur->sys.ncpu * sizeof(*cur->sys.cpu));
	} else {
		sys_snapshot_usage(prev && prev->have_sys ? &prev->sys : NULL, &cur->sys);
	}
}

/* ---- one process ---- */

struct pane_data *pane_data_new(enum pane_id id, uint64_t t_ns)
{
	struct pane_data *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	atomic_init(&d->refs, 1);
	d->id = id;
	d->t_ns = t_ns;
	return d;
}

struct pane_data *pane_data_get(struct pane_data *d)
{
	if (d)
		atomic_fetch_add(&d->refs, 1);
	return d;
}

void pane_data_put(struct pane_data *d)
{
	if (!d || atomic_fetch_sub(&d->refs, 1) != 1)
		return;
	switch (d->id) {
	case PANE_ID_fd:
		free(d->u.fd.v);
		proc_net_free(&d->u.fd.net);
		break;
	case PANE_ID_maps:
		proc_maps_free(&d->u.maps);
		break;
	case PANE_ID_threads:
		free(d->u.threads.v);
		free(d->u.threads.locks);
		free(d->u.threads.cpu_hist);
		break;
	default:
		break;
	}
	free(d);
}

static void proc_free(struct snap_head *h)
{
	struct snap_proc *s = (struct snap_proc *)h;

	for (int k = 0; k < PANE_COUNT; k++)
		pane_data_put(s->pane[k]);
	snap_core_put(s->core);
	free(s->cmdline);
	free(s);
}

struct snap_proc *snap_proc_next(const struct snap_proc *last)
{
	struct snap_proc *s = malloc(sizeof(*s));

	if (!s)
		return NULL;
	if (last) {
		*s = *last;
		s->cmdline = last->cmdline ? strdup(last->cmdline) : NULL;
		for (int k = 0; k < PANE_COUNT; k++)
			pane_data_get(s->pane[k]);
		s->core = snap_core_get(last->core);
	} else {
		memset(s, 0, sizeof(*s));
	}
	atomic_init(&s->h.refs, 1);
	s->h.free = proc_free;
	s->h.seq = 0;
	return s;
}
