/* A list snapshot as a recorded interval and back: the rows' counters
 * as read (the rates are made again from two intervals), the meters, the
 * user names. Pure. */
#include "record/convert.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void row_of(const struct proc_row *p, bool extra, struct rec_row *r)
{
	uint64_t *f = r->f;

	memset(r, 0, sizeof(*r));
	r->pid = p->pid;
	f[RF_TGID] = (uint64_t)p->tgid;
	f[RF_PPID] = (uint64_t)p->ppid;
	f[RF_START] = p->starttime;
	f[RF_OWNER_START] = p->owner_start;
	f[RF_UID] = p->uid;
	f[RF_STATE] = (uint8_t)p->state;
	f[RF_FLAGS] = (p->is_thread ? 1u : 0) | (p->is_kthread ? 2u : 0) | (p->fresh ? 4u : 0) | (p->cmdline_cut ? 8u : 0);
	f[RF_PRIO] = (uint64_t)p->priority;
	f[RF_NICE] = (uint64_t)p->nice;
	f[RF_NLWP] = (uint64_t)p->nlwp;
	f[RF_VIRT] = p->virt_kb;
	f[RF_RES] = p->res_kb;
	f[RF_SHR] = p->shr_kb;
	f[RF_TICKS] = p->ticks;
	f[RF_READ_NS] = p->read_ns;
	f[RF_CPU_NR] = (uint64_t)(int64_t)p->processor;
	f[RF_PGRP] = (uint64_t)p->pgrp;
	f[RF_SID] = (uint64_t)p->session;
	f[RF_TTY] = (uint64_t)(int64_t)p->tty_nr;
	f[RF_MAJFLT] = p->majflt;
	f[RF_CMDLEN] = p->cmdline_len;
	memcpy(r->comm, p->comm, sizeof(r->comm));
	r->comm[sizeof(r->comm) - 1] = '\0';
	r->cmdline = p->cmdline; /* borrowed */
	if (extra && p->x) {
		const struct proc_extra *x = p->x;
		r->has_x = true;
		r->x = (struct rec_extra){ .io_err = x->io_err, .oom = x->oom, .io_ns = x->io_ns, .ctxt_ns = x->ctxt_ns,
					   .io_rb = x->io_rb, .io_wb = x->io_wb, .ctxt = x->ctxt, .cgroup = x->cgroup };
		memcpy(r->x.container, x->container, sizeof(r->x.container));
		r->x.container[sizeof(r->x.container) - 1] = '\0';
	}
}

static bool wanted(pid_t pid, const pid_t *pids, size_t npids)
{
	for (size_t i = 0; i < npids; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

int rec_interval_of(const struct snap_list *s, const pid_t *pids, size_t npids, uint64_t wall_ns,
		    struct rec_interval *iv)
{
	memset(iv, 0, sizeof(*iv));
	iv->t_ns = s->h.t_ns;
	iv->wall_ns = wall_ns;
	iv->threads = s->threads;
	iv->counts = s->counts;
	iv->rows = calloc(s->n + 1, sizeof(*iv->rows));
	iv->users = calloc(s->n + 1, sizeof(*iv->users));
	if (!iv->rows || !iv->users)
		goto nomem;
	if (s->have_sys) {
		const struct sys_snapshot *y = &s->sys;
		iv->have_sys = true;
		iv->ncpu = y->ncpu;
		iv->cpu_id = malloc(((size_t)y->ncpu + 1) * sizeof(*iv->cpu_id));
		iv->cpu_t = malloc(((size_t)y->ncpu + 1) * sizeof(*iv->cpu_t));
		if (!iv->cpu_id || !iv->cpu_t)
			goto nomem;
		memcpy(iv->cpu_id, y->cpu_id, (size_t)y->ncpu * sizeof(*iv->cpu_id));
		memcpy(iv->cpu_t, y->cpu_t, (size_t)y->ncpu * sizeof(*iv->cpu_t));
		iv->total_t = y->total_t;
		iv->mem = y->mem;
		iv->load = y->load;
		iv->uptime = y->uptime;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct proc_row *p = s->rows[i];
		row_of(p, npids && wanted(p->tgid, pids, npids), &iv->rows[i]);
		bool have = false;
		for (size_t u = 0; u < iv->nusers && !have; u++)
			have = iv->users[u].uid == p->uid;
		if (!have) {
			struct rec_user *u = &iv->users[iv->nusers++];
			u->uid = p->uid;
			strncpy(u->name, p->user, sizeof(u->name) - 1);
		}
	}
	iv->n = s->n;
	return 0;
nomem:
	rec_interval_borrowed_free(iv);
	return -ENOMEM;
}

void rec_interval_borrowed_free(struct rec_interval *iv)
{
	free(iv->rows);
	free(iv->users);
	free(iv->cpu_id);
	free(iv->cpu_t);
	memset(iv, 0, sizeof(*iv));
}

/* A row of the replay. */
static struct proc_row *row_from(const struct rec_row *r, struct ptable_users *users, unsigned long long mem_total)
{
	struct proc_row *p = proc_row_new();
	const uint64_t *f = r->f;

	if (!p)
		return NULL;
	p->pid = r->pid;
	p->tgid = (pid_t)f[RF_TGID];
	p->ppid = (pid_t)f[RF_PPID];
	p->starttime = f[RF_START];
	p->owner_start = f[RF_OWNER_START];
	p->uid = (uid_t)f[RF_UID];
	p->state = (char)f[RF_STATE];
	p->is_thread = f[RF_FLAGS] & 1;
	p->is_kthread = f[RF_FLAGS] & 2;
	p->fresh = f[RF_FLAGS] & 4;
	p->cmdline_cut = f[RF_FLAGS] & 8;
	p->priority = (long)f[RF_PRIO];
	p->nice = (long)f[RF_NICE];
	p->nlwp = (long)f[RF_NLWP];
	p->virt_kb = f[RF_VIRT];
	p->res_kb = f[RF_RES];
	p->shr_kb = f[RF_SHR];
	p->ticks = f[RF_TICKS];
	p->read_ns = f[RF_READ_NS];
	p->processor = (int)f[RF_CPU_NR];
	p->pgrp = (pid_t)f[RF_PGRP];
	p->session = (pid_t)f[RF_SID];
	p->tty_nr = (int)f[RF_TTY];
	p->majflt = (unsigned long)f[RF_MAJFLT];
	p->cmdline_len = (size_t)f[RF_CMDLEN];
	p->mem = mem_total ? (double)p->res_kb * 100.0 / (double)mem_total : 0;
	memcpy(p->comm, r->comm, sizeof(p->comm));
	const char *u = ptable_users_find(users, p->uid);
	p->user = u ? u : "?";
	if (r->cmdline && !(p->cmdline = strdup(r->cmdline)))
		p->cmdline_cut = false;
	if (r->has_x && (p->x = calloc(1, sizeof(*p->x)))) {
		const struct rec_extra *x = &r->x;
		p->x->io_err = x->io_err;
		p->x->oom = x->oom;
		p->x->io_ns = x->io_ns;
		p->x->ctxt_ns = x->ctxt_ns;
		p->x->io_rb = x->io_rb;
		p->x->io_wb = x->io_wb;
		p->x->ctxt = x->ctxt;
		p->x->cgroup = x->cgroup ? strdup(x->cgroup) : NULL;
		memcpy(p->x->container, x->container, sizeof(p->x->container));
	}
	return p;
}

struct snap_list *rec_snap_of(const struct rec_interval *iv, long hz, unsigned long long btime)
{
	struct snap_list *s = snap_list_new(iv->n, iv->have_sys ? iv->ncpu : 0);

	if (!s)
		return NULL;
	s->h.t_ns = iv->t_ns;
	s->h.wall = (double)iv->wall_ns / 1e9;
	s->threads = iv->threads;
	s->times.hz = hz;
	s->times.btime = btime;
	s->times.wall = s->h.wall;
	s->counts = iv->counts;
	if (!(s->users = ptable_users_new()))
		goto nomem;
	for (size_t i = 0; i < iv->nusers; i++)
		ptable_users_add(s->users, iv->users[i].uid, iv->users[i].name);
	if (iv->have_sys) {
		const struct sys_snapshot y = { .ncpu = iv->ncpu, .cpu_id = iv->cpu_id, .total_t = iv->total_t,
						.cpu_t = iv->cpu_t, .mem = iv->mem, .load = iv->load, .uptime = iv->uptime };
		snap_list_set_sys(s, &y);
	}
	for (size_t i = 0; i < iv->n; i++) {
		const struct proc_row *p = row_from(&iv->rows[i], s->users, iv->have_sys ? iv->mem.total : 0);
		if (!p)
			goto nomem;
		s->rows[s->n++] = p;
	}
	if (snap_list_index(s) < 0)
		goto nomem;
	return s;
nomem:
	snap_put(&s->h);
	return NULL;
}
