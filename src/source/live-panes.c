/* The detail panes' reads of one live process: each pane the screen
 * shows, read at the pane's interval (its pane_desc's refresh_ms), into
 * pane data the snapshots share until the next read. FDs: /proc/PID/fd
 * and the fdinfo of the fds on screen (all of them when sorted by flags
 * or position), the sockets through sock_diag; Maps: maps, or smaps every
 * few seconds while asked; Memory: smaps_rollup; Threads: task/TID/ and,
 * for a thread in futex(), the lock word from the process's memory. */
#include "source/live.h"
#include "doors/doors.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* smaps walks every page table under the target's mmap lock: at most
 * this often, and only while the screen asks for it. */
#define SMAPS_EVERY_NS (5ull * 1000000000ull)

void live_panes_close(struct live_proc *l)
{
	proc_fd_list_free(&l->fds);
	proc_net_free(&l->net);
	if (l->syms)
		sym_proc_free(l->syms);
	hist_free(&l->threads_hist);
}

/* ---- FDs ---- */

static bool has_fd(const struct source_want *w, int fd)
{
	for (int i = 0; i < w->nfds; i++)
		if (w->fds[i] == fd)
			return true;
	return false;
}

/* fdinfo of the fds w wants (on screen, or all) not read yet: true when
 * one was read. */
static bool read_infos(struct live_proc *l, struct proc_fd *v, size_t n, const struct source_want *w)
{
	bool any = false;

	for (size_t i = 0; i < n; i++)
		if (v[i].info_err == -EAGAIN && (w->fd_all || has_fd(w, v[i].fd))) {
			proc_fd_read_info(l->t.dirfd, &v[i]);
			any = true;
		}
	return any;
}

/* The sockets of net that fds name, in net's (inode) order. */
static int net_of(const struct proc_net *net, const struct proc_fd *v, size_t n, struct proc_net *out)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->err, net->err, sizeof(out->err));
	memcpy(out->diag, net->diag, sizeof(out->diag));
	out->ambiguous = net->ambiguous;
	for (size_t i = 0; i < n; i++) {
		const struct proc_sock *s = v[i].type == FDT_SOCKET ? proc_net_find(net, v[i].ino) : NULL;
		if (!s || (out->n && out->v[out->n - 1].ino == s->ino))
			continue;
		if (array_reserve((void **)&out->v, &out->cap, out->n, sizeof(*out->v), 16) < 0)
			return -ENOMEM;
		out->v[out->n++] = *s;
	}
	/* fds are by number, the lookup is by inode */
	for (size_t i = 1; i < out->n; i++)
		for (size_t j = i; j > 0 && out->v[j - 1].ino > out->v[j].ino; j--) {
			struct proc_sock t = out->v[j];
			out->v[j] = out->v[j - 1];
			out->v[j - 1] = t;
		}
	/* the same socket twice (two fds, dup): once */
	size_t o = 0;
	for (size_t i = 0; i < out->n; i++)
		if (!o || out->v[o - 1].ino != out->v[i].ino)
			out->v[o++] = out->v[i];
	out->n = o;
	return 0;
}

static int fds_copy(struct snap_fds *d, const struct proc_fd *v, size_t n, const size_t *count,
		    const struct proc_net *net)
{
	d->v = malloc((n ? n : 1) * sizeof(*d->v));
	if (!d->v)
		return -ENOMEM;
	memcpy(d->v, v, n * sizeof(*v));
	d->n = n;
	memcpy(d->count, count, sizeof(d->count));
	return net_of(net, v, n, &d->net);
}

static int read_fds(struct live_proc *l, struct pane_data *d, const struct source_want *w)
{
	/* fdinfo costs an open/read/close per fd: for the rows on screen
	 * only, unless sorted by flags or position. The links of fds seen
	 * before are re-read in turn (PROC_FD_RECHECK). */
	int r = proc_fd_read(l->t.dirfd, &l->fds, PROC_FD_CACHED | (w->fd_all ? PROC_FD_INFO : 0));

	if (r < 0)
		return r;
	proc_fd_read_net(l->t.dirfd, &l->fds, &l->net);
	read_infos(l, l->fds.v, l->fds.n, w);
	return fds_copy(&d->u.fd, l->fds.v, l->fds.n, l->fds.count, &l->net);
}

/* The last read with the fdinfo w now wants (rows scrolled into view);
 * NULL when it has them all. */
static struct pane_data *more_fds(struct live_proc *l, const struct pane_data *last, const struct source_want *w)
{
	const struct snap_fds *f = &last->u.fd;
	bool missing = false;

	for (size_t i = 0; i < f->n && !missing; i++)
		missing = f->v[i].info_err == -EAGAIN && (w->fd_all || has_fd(w, f->v[i].fd));
	if (!missing)
		return NULL;
	struct pane_data *d = pane_data_new(PANE_ID_fd, last->t_ns);
	if (!d)
		return NULL;
	d->more = true;
	if (fds_copy(&d->u.fd, f->v, f->n, f->count, &f->net) < 0) {
		pane_data_put(d);
		return NULL;
	}
	read_infos(l, d->u.fd.v, d->u.fd.n, w);
	return d;
}

/* ---- Threads ---- */

static int read_threads(struct live_proc *l, struct pane_data *d, const struct pane_data *last, uid_t uid)
{
	struct proc_threads cur = { 0 };
	struct snap_threads *t = &d->u.threads;
	int r = proc_threads_read(l->t.dirfd, &cur);

	if (r < 0) {
		proc_threads_free(&cur);
		return r;
	}
	cur.when = (double)d->t_ns / 1e9;
	if (last && !last->err) {
		struct proc_threads prev = { .v = last->u.threads.v, .n = last->u.threads.n, .when = last->u.threads.when };
		proc_threads_rates(&prev, &cur);
	}
	t->v = cur.v;
	t->n = cur.n;
	t->when = cur.when;
	/* Each read is a tick of the threads' history (a thread gone is
	 * forgotten); the pane data holds a copy. */
	for (size_t i = 0; i < cur.n; i++)
		hist_push(&l->threads_hist, (uint64_t)(unsigned)cur.v[i].tid, (float)cur.v[i].cpu_pct);
	hist_end_tick(&l->threads_hist);
	t->cpu_hist = malloc((cur.n + 1) * HIST_LEN * sizeof(float));
	for (size_t i = 0; t->cpu_hist && i < cur.n; i++)
		hist_copy(&l->threads_hist, (uint64_t)(unsigned)cur.v[i].tid, t->cpu_hist + i * HIST_LEN);
	t->locks = calloc(cur.n + 1, sizeof(*t->locks));
	for (size_t i = 0; t->locks && i < cur.n; i++) {
		const struct proc_thread *th = &cur.v[i];
		if (th->syscall_nr < 0)
			continue;
		if (!l->syms)
			l->syms = sym_proc_live(l->t.id.pid, uid, 0);
		if (stk_wait_lock(l->t.id.pid, l->t.dirfd, l->syms, th->syscall_nr, th->syscall_args, &t->locks[i]) ==
		    -ESRCH)
			t->locks[i].addr = 0; /* gone: nothing to show */
	}
	return 0;
}

/* ---- the pane shown ---- */

static int read_pane(struct live_proc *l, const struct snap_proc *s, struct pane_data *d, const struct source_want *w,
		     bool smaps)
{
	const struct pane_data *last = s->pane[d->id];

	switch (d->id) {
	case PANE_ID_fd:
		return read_fds(l, d, w);
	case PANE_ID_maps:
		return proc_maps_read(l->t.dirfd, smaps, &d->u.maps);
	case PANE_ID_mem:
		/* A kernel thread has no address space: nothing to read. */
		return s->info.kthread ? 0 : proc_rollup_read(l->t.dirfd, &d->u.mem);
	case PANE_ID_threads:
		return read_threads(l, d, last, s->info.status.uid_real);
	default:
		return 0;
	}
}

bool live_pane_read(struct live_proc *l, struct snap_proc *s, const struct source_want *w, bool tick)
{
	enum pane_id k = w->pane;
	const struct pane_desc *desc = (unsigned)k < PANE_COUNT ? pane_descs[k] : NULL;
	struct pane_data *last = (unsigned)k < PANE_COUNT ? s->pane[k] : NULL;
	uint64_t now = clock_mono_ns(l->clk);
	bool forced = w->tick_now != l->tick_now;

	l->tick_now = w->tick_now;
	if (!desc || k == PANE_ID_status) /* the status pane is the header */
		return false;
	/* Read on a tick when due, when never read, on F5; between ticks
	 * when switched to (and due), or when smaps was switched on or off. */
	bool switched = k != l->pane, toggled = k == PANE_ID_maps && w->smaps != l->smaps_on;
	l->pane = k;
	if (k == PANE_ID_maps)
		l->smaps_on = w->smaps;
	bool time_due = !last || now - l->read_ns[k] >= (uint64_t)desc->refresh_ms * 1000000ull;
	bool due = !last || forced || toggled || (tick ? time_due : switched && time_due);
	bool smaps = false;
	if (k == PANE_ID_maps && w->smaps) {
		/* smaps at most every few seconds; between, maps is not read
		 * again (the last read keeps its Rss/Pss/Swap). */
		smaps = toggled || !last || last->err || !last->u.maps.smaps || now - l->smaps_ns >= SMAPS_EVERY_NS;
		if (!smaps)
			due = false;
	}
	if (!due) {
		/* Between reads: only what the screen newly asks for. */
		struct pane_data *more = k == PANE_ID_fd && last && !last->err ? more_fds(l, last, w) : NULL;
		if (!more)
			return false;
		pane_data_put(s->pane[k]);
		s->pane[k] = more;
		return true;
	}
	struct pane_data *d = pane_data_new(k, now);
	if (!d)
		return false;
	int r = read_pane(l, s, d, w, smaps);
	l->read_ns[k] = now;
	if (smaps && r == 0)
		l->smaps_ns = now;
	if (r < 0) {
		/* Gone? Then say how it ended, and keep the last data. */
		live_proc_info(l, s);
		if (s->frozen) {
			pane_data_put(d);
			return true;
		}
		char what[96];
		snprintf(what, sizeof(what), _("read /proc/%d/%s"), (int)l->t.id.pid, desc->file);
		d->err = r;
		door_refused(&d->e, PS_OP_READ_PROC, l->t.id.pid, r, what);
	}
	pane_data_put(s->pane[k]);
	s->pane[k] = d;
	return true;
}
