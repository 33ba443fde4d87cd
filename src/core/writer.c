/* The core writer: the sequence of one dump (see core.h for the methods).
 * The file is out.c's, the memory mem.c's, the fork snapshot snap.c's,
 * the estimate and the choice of method plan.c's. */
#include "core/cw.h"
#include "doors/doors.h"
#include "freeze.h"
#include "i18n.h"
#include "proc/info.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- progress ---- */

void cw_progress(struct cw *c, bool force)
{
	struct core_progress p;
	uint64_t now = now_ns();

	if (!c->o->progress || (!force && now - c->last_progress < 100000000ull))
		return;
	c->last_progress = now;
	memset(&p, 0, sizeof(p));
	p.phase = c->phase;
	p.done = c->done;
	p.total = c->total;
	p.elapsed_s = (double)(now - c->t0) / 1e9;
	double dt = (double)(now - c->phase_t0) / 1e9;
	p.rate = dt > 0.05 ? (double)(c->done - c->phase_done0) / dt : 0;
	p.eta_s = p.rate > 0 && c->total >= c->done ? (double)(c->total - c->done) / p.rate : -1;
	c->o->progress(c->o->progress_arg, &p);
}

void cw_phase(struct cw *c, enum core_phase ph, uint64_t total)
{
	c->phase = ph;
	c->phase_t0 = now_ns();
	c->done = c->phase_done0 = 0;
	c->total = total;
	cw_progress(c, true);
}

void cw_mark(struct cw *c, enum core_pause_part part)
{
	uint64_t now = now_ns();

	if (c->mark_ns && now > c->mark_ns)
		c->res->pause_part_ms[part] += (double)(now - c->mark_ns) / 1e6;
	c->mark_ns = now;
}

bool cw_cancelled(struct cw *c)
{
	return c->o->cancel && atomic_load(c->o->cancel);
}

static int gone_error(struct cw *c)
{
	return door_refused(c->e, PS_OP_CORE, c->pid, ESRCH,
			    _("finish the core (the process exited while it was copied; no file was written)"));
}

static int cancel_error(struct cw *c)
{
	return ps_error_set(c->e, ECANCELED, _("cancelled: no file written, process %d runs on"), (int)c->pid);
}

static int check_space(struct cw *c, const struct core_estimate *est)
{
	char need[32], have[32];
	/* The estimate plus 1 MiB for the ELF headers, notes and filesystem metadata. */
	unsigned long long needed = est->disk_bytes + (1u << 20);

	if (c->o->force || needed <= est->free_bytes)
		return 0;
	ps_error_set(c->e, ENOSPC, _("not enough space in %s: the core needs about %s on disk (with 1 MiB of headroom), %s is free"),
		     c->dir, human_bytes(needed, need, sizeof(need)), human_bytes(est->free_bytes, have, sizeof(have)));
	if (c->e) {
		c->e->door = DOOR_FILESYSTEM;
		strlcpy_ps(c->e->fix, _("free some space, choose another destination (-o FILE), or --force if the filesystem compresses"),
			   sizeof(c->e->fix));
	}
	return -ENOSPC;
}

static char *read_at(int dirfd, const char *path, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = read_file_alloc_at(dirfd, path, &buf, &cap);

	if (n < 0) {
		free(buf);
		*len = 0;
		return NULL;
	}
	*len = (size_t)n;
	return buf;
}

/* Everything from /proc that goes into the notes. Without tasks, the
 * per-thread times and signal masks (two /proc files per thread: a
 * quarter of a second for 1000 threads) are left out: that build, while
 * stopped, fixes the layout; the full one is made after the release. */
static int collect_notes(struct cw *c, bool tasks)
{
	struct core_proc_info pi;
	size_t sl, stl, cl, n = 0;
	char *stat = read_at(c->t.dirfd, "stat", &sl);
	char *status = read_at(c->t.dirfd, "status", &stl);
	char *cmd = read_at(c->t.dirfd, "cmdline", &cl);
	const struct frozen_thread **th = calloc(c->fz.n + 1, sizeof(*th));
	char **tstat = calloc(c->fz.n + 1, sizeof(char *)), **tstatus = calloc(c->fz.n + 1, sizeof(char *));
	int r = -ENOMEM;

	memset(&pi, 0, sizeof(pi));
	if (!th || !tstat || !tstatus)
		goto out;
	core_prpsinfo_fill(&pi.psinfo, stat, sl, status, stl, cmd, cl);
	/* The state before pscope stopped it, not the tracing stop. */
	for (size_t i = 0; i < c->fz.n; i++)
		if (c->fz.threads[i].tid == c->pid && c->fz.threads[i].state) {
			const char *s = strchr("RSDTZW", c->fz.threads[i].state);
			pi.psinfo.pr_sname = c->fz.threads[i].state;
			pi.psinfo.pr_state = s ? (char)(s - "RSDTZW") : 0;
		}
	pi.ppid = pi.psinfo.pr_ppid;
	pi.pgrp = pi.psinfo.pr_pgrp;
	pi.sid = pi.psinfo.pr_sid;
	pi.auxv = (unsigned char *)read_at(c->t.dirfd, "auxv", &pi.auxv_len);
	/* The main thread first (gdb takes the first as the current one). */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < c->fz.n; i++) {
			const struct frozen_thread *f = &c->fz.threads[i];
			if (!f->stopped || f->skipped || (f->tid == c->pid) != (pass == 0))
				continue;
			char p[64];
			size_t l;
			if (tasks) {
				snprintf(p, sizeof(p), "task/%d/stat", (int)f->tid);
				tstat[n] = read_at(c->t.dirfd, p, &l);
				snprintf(p, sizeof(p), "task/%d/status", (int)f->tid);
				tstatus[n] = read_at(c->t.dirfd, p, &l);
			}
			th[n++] = f;
		}
	c->res->threads = (unsigned)n;
	c->res->threads_missed = (unsigned)(c->fz.n - n);
	if (n == 0) {
		r = door_refused(c->e, PS_OP_CORE, c->pid, ESRCH, _("stop any thread"));
		goto out;
	}
	r = core_notes_build(&c->notes, th, n, &pi, &c->maps, c->page, tstat, tstatus);
	if (r < 0)
		ps_error_set(c->e, -r, _("out of memory building the notes"));
out:
	for (size_t i = 0; i < n; i++) {
		free(tstat[i]);
		free(tstatus[i]);
	}
	free(tstat);
	free(tstatus);
	free(th);
	free(pi.auxv);
	free(stat);
	free(status);
	free(cmd);
	return r;
}

/* Shared mappings are live in a fork child, MADV_DONTFORK ones missing,
 * MADV_WIPEONFORK ones zero: those come from the process itself. */
static bool not_frozen_by_fork(const struct cw *c, const struct core_map *m)
{
	(void)c;
	return m->shared || (m->vmflags & (CORE_VMF_SH | CORE_VMF_DC | CORE_VMF_WF));
}

static bool frozen_by_fork(const struct cw *c, const struct core_map *m)
{
	return !not_frozen_by_fork(c, m);
}

/* ---- while stopped (on the freeze's tracer thread) ---- */

static bool same_layout(const struct core_maps *a, const struct core_maps *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct core_map *x = &a->v[i], *y = &b->v[i];
		if (x->start != y->start || x->end != y->end || x->offset != y->offset || x->inode != y->inode ||
		    x->r != y->r || x->w != y->w || x->x != y->x || x->shared != y->shared || strcmp(x->path, y->path))
			return false;
	}
	return true;
}

/* The mapping table while stopped. smaps walks the page tables (30 ms for
 * 2 GiB here, all of it pause): read the cheap maps instead, and keep the
 * smaps read just before the stop when the layout is the same. */
static int stopped_maps(struct cw *c)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = read_file_alloc_at(c->t.dirfd, "maps", &buf, &cap);
	struct core_maps now;
	bool same = false;

	memset(&now, 0, sizeof(now));
	if (n > 0 && c->pre.n && core_maps_parse(buf, (size_t)n, &now) == 0)
		same = same_layout(&now, &c->pre);
	free(buf);
	core_maps_free(&now);
	if (same) {
		c->maps = c->pre;
		memset(&c->pre, 0, sizeof(c->pre));
		return 0;
	}
	core_maps_free(&c->pre);
	return cw_read_smaps(&c->t, &c->maps, c->e);
}

static int frozen_work(struct cw *c)
{
	int r;

	c->mark_ns = c->fz.t_first_interrupt_ns;
	cw_mark(c, CORE_PAUSE_STOP);
	if ((r = stopped_maps(c)) < 0)
		return cw_target_gone(c) ? gone_error(c) : r;
	core_maps_decide(&c->maps, cw_read_filter(&c->t), c->o->all_mappings);
	c->pagemap_fd = openat(c->t.dirfd, "pagemap", O_RDONLY | O_CLOEXEC);
	cw_mark(c, CORE_PAUSE_MAPS);
	if ((r = collect_notes(c, false)) < 0 || (r = cw_plan(c)) < 0)
		return r;
	cw_mark(c, CORE_PAUSE_NOTES);
	if (c->method == CORE_METHOD_FORK) {
		char why[sizeof(c->res->method_why)];
		cw_phase(c, CORE_PHASE_SNAPSHOT, 0);
		if (snap_fork(c, why, sizeof(why)) == 0) {
			/* The mappings the child does not freeze, from the process. */
			if ((r = cw_copy(c, not_frozen_by_fork)) < 0)
				return r;
			close(c->pagemap_fd);
			c->pagemap_fd = dup(snap_pagemap_fd(c));
			cw_mark(c, CORE_PAUSE_COPY);
			return 0;
		}
		/* The process is as it was: fall back while it is stopped. */
		if (c->o->method == CORE_METHOD_FORK)
			return cw_forced_fork_error(c, why);
		c->method = CORE_METHOD_STOP;
		snprintf(c->res->method_why, sizeof(c->res->method_why), "%s", why);
	}
	/* Long work: not at the tracer's real-time priority. */
	struct sched_param sp = { 0 };
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	cw_phase(c, c->method == CORE_METHOD_COPY ? CORE_PHASE_COPY : CORE_PHASE_STREAM, c->total);
	r = cw_copy(c, NULL);
	cw_mark(c, CORE_PAUSE_COPY);
	if (r == -ESRCH || (r == 0 && cw_target_gone(c)))
		return gone_error(c);
	return r;
}

static void on_frozen(struct freeze *fz, void *arg)
{
	struct cw *c = arg;
	char comm[64];

	/* An exec after the maps were read: the core would mix two programs. */
	if (target_execd(fz->target, comm, sizeof(comm)) == 1) {
		c->rc = target_exec_error(fz->target, _("core dump"), comm, c->e);
		return;
	}
	c->rc = frozen_work(c);
}

/* ---- the dump ---- */

static void cleanup(struct cw *c)
{
	snap_free(c);
	freeze_release(&c->fz);
	if (c->fd >= 0)
		close(c->fd);
	if (c->dfd >= 0)
		close(c->dfd);
	c->of.fd = -1;
	out_file_abort(&c->of, c->dirfd); /* its temporary name, if any */
	if (c->dirfd >= 0)
		close(c->dirfd);
	if (c->pagemap_fd >= 0)
		close(c->pagemap_fd);
	cw_mem_free(c);
	core_notes_free(&c->notes);
	core_maps_free(&c->maps);
	core_maps_free(&c->pre);
	freeze_free(&c->fz);
	if (c->have_target)
		target_close(&c->t);
}

static int dump(struct cw *c)
{
	struct core_estimate est;
	struct freeze_opts fo = {
		.core_regs = true, .cancel = c->o->cancel, .on_frozen = on_frozen, .on_frozen_arg = c,
		.release_early = true, .hold_tracer = true,
	};
	int r;

	if ((r = target_open(&c->t, c->pid, c->want, c->e)) < 0)
		return r;
	c->have_target = true;
	if ((r = core_dest_split(c->o->path, c->t.comm, c->pid, c->dir, sizeof(c->dir), c->base, sizeof(c->base), c->e)) < 0 ||
	    (r = cw_open_dest(c)) < 0)
		return r;
	if (strlen(c->dir) + 1 + strlen(c->base) >= sizeof(c->res->path))
		return cw_fs_error(c->e, ENAMETOOLONG, NULL, _("destination too long"));
	strlcpy_ps(c->res->path, c->dir, sizeof(c->res->path));
	strcat(c->res->path, "/");
	strcat(c->res->path, c->base);
	/* Estimate and choose before stopping anything. */
	if ((r = cw_read_smaps(&c->t, &c->maps, c->e)) < 0)
		return r;
	core_maps_decide(&c->maps, cw_read_filter(&c->t), c->o->all_mappings);
	memset(&est, 0, sizeof(est));
	cw_estimate_from(&c->maps, cw_thread_count(&c->t), c->page, &est);
	if ((r = cw_free_space(c->dir, &est.free_bytes, c->e)) < 0 || (r = check_space(c, &est)) < 0 ||
	    (r = cw_make_temp(c)) < 0)
		return r;
	r = cw_choose(c, &est);
	c->pre = c->maps;
	memset(&c->maps, 0, sizeof(c->maps));
	if (r < 0)
		return r;
	if (c->method == CORE_METHOD_COPY)
		cw_arena_prepare(c, est.disk_bytes);
	char exe[PATH_MAX];
	ssize_t el = readlinkat(c->t.dirfd, "exe", exe, sizeof(exe) - 1);
	if (el > 0) {
		exe[el] = '\0';
		strlcpy_ps(c->res->exe, exe, sizeof(c->res->exe));
	}
	c->res->pid = c->pid;
	c->res->root_other = proc_root_other(c->t.dirfd) == 1;

	ps_test_pause("before-freeze");
	cw_phase(c, CORE_PHASE_STOP, 0);
	if ((r = freeze_stop(&c->fz, &c->t, &fo, c->e)) < 0)
		return r;
	/* The threads run again (the tracer thread holds the child, if any). */
	c->res->pause_ms = freeze_pause_ms(&c->fz);
	if (c->mark_ns && c->fz.t_released_ns > c->mark_ns)
		c->res->pause_part_ms[CORE_PAUSE_RELEASE] = (double)(c->fz.t_released_ns - c->mark_ns) / 1e6;
	c->res->method = c->method;
	if (c->rc == -ECANCELED)
		return cancel_error(c);
	if (c->rc < 0)
		return c->rc;
	cw_progress(c, true);

	if (c->method == CORE_METHOD_FORK) {
		c->src_fd = snap_src_fd(c);
		cw_phase(c, CORE_PHASE_READ, c->total);
		ps_test_pause("read");
		r = cw_copy(c, frozen_by_fork);
		c->src_fd = -1;
		snap_finish(c);
		if (r == -ESRCH)
			return ps_error_set(c->e, ESRCH,
					    _("the snapshot of process %d was killed while it was read (out of memory?); no file written, the process runs on"),
					    (int)c->pid);
		if (r == -ECANCELED)
			return cancel_error(c);
		if (r < 0)
			return r;
	}
	freeze_release(&c->fz);
	/* The notes with the threads' times and signal masks; if the process
	 * is gone by now, the ones made while stopped. */
	struct core_notes stopped = c->notes;
	memset(&c->notes, 0, sizeof(c->notes));
	if (collect_notes(c, true) == 0 && c->notes.len == stopped.len) {
		core_notes_free(&stopped);
	} else {
		core_notes_free(&c->notes);
		c->notes = stopped;
	}
	c->res->staged = c->arena_used > 0;
	if (c->method == CORE_METHOD_COPY && (r = cw_write_arena(c)) < 0)
		return r == -ECANCELED ? cancel_error(c) : r;
	if ((r = cw_write_headers(c)) < 0)
		return r;
	if (cw_cancelled(c))
		return cancel_error(c);
	if ((r = cw_finish_file(c)) < 0)
		return r;
	c->res->mappings = (unsigned)c->nseg;
	return 0;
}

int core_write(pid_t pid, const struct target_id *want, const struct core_opts *o, struct core_result *res,
	       struct ps_error *e)
{
	struct cw c;
	int r;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	c.pid = pid;
	c.o = o;
	c.res = res;
	c.e = e;
	c.page = (uint64_t)sysconf(_SC_PAGESIZE);
	c.t0 = now_ns();
	c.fd = c.dfd = c.dirfd = c.pagemap_fd = c.src_fd = -1;
	c.t.pidfd = c.t.dirfd = -1;
#if !defined(__x86_64__)
	return ps_error_set(e, ENOTSUP, _("core files are written for x86-64 only"));
#endif
	c.want = want;
	r = dump(&c);
	cleanup(&c);
	res->wall_ms = (double)(now_ns() - c.t0) / 1e6;
	if (r < 0)
		core_result_free(res);
	return r;
}

void core_result_free(struct core_result *res)
{
	free(res->skipped);
	res->skipped = NULL;
	res->nskipped = 0;
}
