/* The fork snapshot: the checks before choosing it, the clone injected
 * into one stopped thread, the child read through /proc/CHILD/mem, killed
 * and reaped from inside the target (see core.h, inject.h, reaper.h). */
#include "core/cw.h"
#include "i18n.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CGROOT "/sys/fs/cgroup"

struct snap {
	struct inject_site site;
	struct inject ij;
	bool injected;
	struct reaper reaper;
	bool suspend_seccomp;
	pid_t tid;
	pid_t child, child_ns;
	struct target_id child_id;      /* pinned at birth */
	bool child_dead;
	int mem_fd, pagemap_fd;
	uint64_t t_fork;
};

/* ---- checks (nothing stopped yet) ---- */

static bool have_cap_sys_admin(void)
{
	char buf[4096], *p;

	if (read_file_at(AT_FDCWD, "/proc/self/status", buf, sizeof(buf)) <= 0 || !(p = strstr(buf, "\nCapEff:")))
		return false;
	return (strtoull(p + 8, NULL, 16) >> 21) & 1;
}

/* One thread: in vfork (it never stops)? its seccomp mode. */
static bool thread_in_vfork(struct cw *c, long tid, int *seccomp)
{
	char path[96], buf[4096], *end;
	ssize_t n;

	snprintf(path, sizeof(path), "task/%ld/syscall", tid);
	n = read_file_at(c->t.dirfd, path, buf, sizeof(buf));
	long nr = n > 0 ? strtol(buf, &end, 10) : -1;
	unsigned long flags = nr == SYS_clone && n > 0 ? strtoul(end, NULL, 16) : 0;
	bool vfork = nr == SYS_vfork || (nr == SYS_clone && (flags & 0x4000 /* CLONE_VFORK */));
	snprintf(path, sizeof(path), "task/%ld/wchan", tid);
	if (read_file_at(c->t.dirfd, path, buf, sizeof(buf)) > 0 && strstr(buf, "vfork"))
		vfork = true;
	snprintf(path, sizeof(path), "task/%ld/status", tid);
	if (read_file_at(c->t.dirfd, path, buf, sizeof(buf)) > 0) {
		char *q = strstr(buf, "\nSeccomp:");
		if (q && atoi(q + 9) > *seccomp)
			*seccomp = atoi(q + 9);
	}
	return vfork;
}

static int check_threads(struct cw *c, struct snap *s, char *why, size_t size)
{
	int fd = openat(c->t.dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int seccomp = 0;
	long vf = 0;
	DIR *d;
	struct dirent *de;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (!vf && (de = readdir(d))) {
		long tid = atol(de->d_name);
		if (tid > 0 && thread_in_vfork(c, tid, &seccomp))
			vf = tid;
	}
	closedir(d);
	if (vf) {
		snprintf(why, size, _("thread %ld is in vfork (it cannot be stopped until its child execs or exits)"), vf);
		return -1;
	}
	if (seccomp) {
		if (!have_cap_sys_admin()) {
			snprintf(why, size,
				 _("the process runs under seccomp (a filter may kill it on clone) and suspending it "
				 "needs CAP_SYS_ADMIN"));
			return -1;
		}
		s->suspend_seccomp = true;
		snprintf(why, size, _("a seccomp filter is suspended for the injected calls (PTRACE_O_SUSPEND_SECCOMP)"));
	}
	return 0;
}

static bool read_u64_file(const char *dir, const char *name, uint64_t *v)
{
	char path[PATH_MAX + 64], buf[64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (read_file_at(AT_FDCWD, path, buf, sizeof(buf)) <= 0)
		return false;
	*v = !strncmp(buf, "max", 3) ? UINT64_MAX : strtoull(buf, NULL, 10);
	if (*v >= (1ull << 62)) /* v1's "unlimited" */
		*v = UINT64_MAX;
	return true;
}

struct cg_files {
	const char *root;               /* where the hierarchy is mounted */
	const char *pids_max, *pids_cur, *mem_max, *mem_cur;
};

/* One hierarchy, from the process's group up to the root. */
static int check_cgroup(const struct cg_files *f, const char *path, uint64_t need, char *why, size_t size)
{
	char dir[PATH_MAX], hb[16], nb[16];
	size_t rl = strlen(f->root);

	if (snprintf(dir, sizeof(dir), "%s%s", f->root, path) >= (int)sizeof(dir))
		return 0;
	while (strlen(dir) >= rl) {
		uint64_t lim, cur;
		if (f->pids_max && read_u64_file(dir, f->pids_max, &lim) && lim != UINT64_MAX &&
		    read_u64_file(dir, f->pids_cur, &cur) && cur >= lim) {
			snprintf(why, size, _("cgroup %s reached its pids limit (%llu tasks): clone would fail"),
				 dir[rl] ? dir + rl : "/", (unsigned long long)lim);
			return -1;
		}
		if (f->mem_max && read_u64_file(dir, f->mem_max, &lim) && lim != UINT64_MAX &&
		    read_u64_file(dir, f->mem_cur, &cur)) {
			uint64_t head = lim > cur ? lim - cur : 0;
			if (head < need) {
				snprintf(why, size,
					 _("memory cgroup %s has %s of headroom; the copy-on-write of a fork snapshot "
					 "could need %s"),
					 dir[rl] ? dir + rl : "/", human_bytes(head, hb, sizeof(hb)),
					 human_bytes(need, nb, sizeof(nb)));
				return -1;
			}
		}
		char *slash = strrchr(dir, '/');
		if (!slash || (size_t)(slash - dir) < rl)
			break;
		*slash = '\0';
	}
	return 0;
}

/* The pids and memory limits of cgroup v2, or of v1's pids and memory
 * hierarchies, on the way up from the process's groups. */
static int check_cgroups(struct cw *c, uint64_t need, char *why, size_t size)
{
	static const struct cg_files v2 = { CGROOT, "pids.max", "pids.current", "memory.max", "memory.current" };
	static const struct cg_files v2u = { CGROOT "/unified", "pids.max", "pids.current", "memory.max",
					     "memory.current" };
	static const struct cg_files v1p = { CGROOT "/pids", "pids.max", "pids.current", NULL, NULL };
	static const struct cg_files v1m = { CGROOT "/memory", NULL, NULL, "memory.limit_in_bytes",
					     "memory.usage_in_bytes" };
	char buf[4096], probe[64];

	if (read_file_at(c->t.dirfd, "cgroup", buf, sizeof(buf)) <= 0)
		return 0;
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;
		if (!path)
			continue;
		*path++ = '\0';
		ctl++;
		const struct cg_files *f = NULL;
		if (!*ctl)
			f = read_file_at(AT_FDCWD, CGROOT "/cgroup.controllers", probe, sizeof(probe)) > 0 ? &v2 : &v2u;
		else if (!strcmp(ctl, "pids"))
			f = &v1p;
		else if (!strcmp(ctl, "memory"))
			f = &v1m;
		if (f && check_cgroup(f, path, need, why, size) < 0)
			return -1;
	}
	return 0;
}

int snap_check(struct cw *c, char *why, size_t size)
{
	struct snap *s = calloc(1, sizeof(*s));
	const char *w = NULL;
	uint64_t anon = 0, avail = cw_mem_available();
	char ab[16], nb[16];

	if (!s) {
		snprintf(why, size, _("out of memory"));
		return -1;
	}
	s->mem_fd = s->pagemap_fd = -1;
	c->snap = s;
	why[0] = '\0';
	if (check_threads(c, s, why, size) < 0)
		return -1;
	/* What the process could rewrite while the child lives: assume a
	 * quarter of its private writable memory, plus the page tables. */
	for (size_t i = 0; i < c->maps.n; i++)
		if (c->maps.v[i].w && !c->maps.v[i].shared)
			anon += c->maps.v[i].anon;
	uint64_t need = anon / 4 + (16u << 20);
	if (avail && avail < need) {
		snprintf(why, size, _("MemAvailable is %s; the copy-on-write of a fork snapshot could need %s"),
			 human_bytes(avail, ab, sizeof(ab)), human_bytes(need, nb, sizeof(nb)));
		return -1;
	}
	if (check_cgroups(c, need, why, size) < 0)
		return -1;
	if (inject_find_site(c->pid, &c->maps, &s->site, &w) < 0) {
		snprintf(why, size, "%s", w);
		return -1;
	}
	return 0;
}

/* ---- the fork, while frozen ---- */

static struct frozen_thread *pick_thread(struct cw *c)
{
	struct frozen_thread *best = NULL;

	for (size_t i = 0; i < c->fz.n; i++) {
		struct frozen_thread *t = &c->fz.threads[i];
		if (!t->stopped || t->skipped || !t->seized || t->resume_sig)
			continue;
		if (!best || t->tid == c->pid)
			best = t;
	}
	return best;
}

static uint64_t stack_floor(const struct cw *c, uint64_t sp)
{
	for (size_t i = 0; i < c->maps.n; i++) {
		const struct core_map *m = &c->maps.v[i];
		if (sp > m->start && sp <= m->end && m->w && !m->shared)
			return m->start + c->page;
	}
	return UINT64_MAX;
}

static void kill_child(struct snap *s)
{
	int st;

	if (!s->child || s->child_dead)
		return;
	target_signal(&s->child_id, SIGKILL, NULL);
	for (;;) {
		pid_t w = waitpid(s->child, &st, __WALL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || WIFEXITED(st) || WIFSIGNALED(st))
			break;
	}
	s->child_dead = true;
}

int snap_fork(struct cw *c, char *why, size_t size)
{
	struct snap *s = c->snap;
	struct ps_error e;
	struct frozen_thread *t = pick_thread(c);
	char path[64];
	long ret = 0;
	int st, r;

	ps_error_clear(&e);
	if (!t) {
		snprintf(why, size, _("no stopped thread without a pending signal to make the fork"));
		return -1;
	}
	uint64_t lo = stack_floor(c, t->regs.rsp);
	if (lo == UINT64_MAX) {
		snprintf(why, size, _("thread %d's stack pointer is not in a private writable mapping"), (int)t->tid);
		return -1;
	}
	s->tid = t->tid;
	if (reaper_start(&s->reaper, &c->t, s->tid, &s->site, &e) < 0)
		goto fail;
	cw_mark(c, CORE_PAUSE_WATCHDOG);
	if (inject_begin(&s->ij, s->tid, &s->site, lo, s->suspend_seccomp, &e) < 0)
		goto fail;
	s->injected = true;
	cw_mark(c, CORE_PAUSE_PREPARE);
	/* Exit signal 0: no SIGCHLD to the process and invisible to its
	 * waitpid(-1); the child starts on the frame that exits. */
	uint64_t args[6] = { 0, s->ij.child_frame, 0, 0, 0, 0 };
	s->t_fork = now_ns();
	r = inject_syscall(&s->ij, SYS_clone, args, &ret, &s->child, &e);
	cw_mark(c, CORE_PAUSE_CLONE);
	if (r == 0 && ret > 0 && !s->child)
		s->child = (pid_t)ret; /* same pid namespace */
	if (s->child) {
		s->child_ns = ret > 0 ? (pid_t)ret : 0;
		reaper_child(&s->reaper, s->child, s->child_ns);
	}
	if (r < 0 || ret < 0) {
		if (r == 0)
			snprintf(why, size, _("clone failed in the process: %s%s"), strerror((int)-ret),
				 ret == -EAGAIN ? _(" (RLIMIT_NPROC or pids.max reached)") : "");
		else
			snprintf(why, size, "%s", e.msg);
		goto undo;
	}
	/* The child: stopped under us at birth; killed if pscope dies; the
	 * first the OOM killer takes if copy-on-write runs out of memory. */
	while (waitpid(s->child, &st, __WALL) < 0 && errno == EINTR)
		;
	target_id_of(s->child, &s->child_id, NULL);
	ptrace(PTRACE_SETOPTIONS, s->child, NULL, (void *)(long)PTRACE_O_EXITKILL);
	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)s->child);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1000", 4) != 4) {
			/* Not fatal: the child is still killed first on pscope's exit. */
		}
		close(fd);
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)s->child);
	s->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)s->child);
	s->pagemap_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->mem_fd < 0) {
		snprintf(why, size, _("cannot open /proc/%d/mem of the snapshot: %s"), (int)s->child, strerror(errno));
		goto undo;
	}
	cw_mark(c, CORE_PAUSE_CHILD);
	if (inject_end(&s->ij) < 0) {
		/* The thread could not be put back: the target is not usable as
		 * it is, keep going but say so. */
		snprintf(why, size, _("restoring thread %d failed"), (int)s->tid);
	}
	cw_mark(c, CORE_PAUSE_RESTORE);
	return 0;
undo:
	if (s->child) {
		/* Made but unusable: kill it and reap it with the same thread. */
		uint64_t wargs[6] = { (uint64_t)s->child_ns, 0, __WALL | WNOHANG, 0, 0, 0 };
		long wr;
		kill_child(s);
		if (s->child_ns)
			inject_syscall(&s->ij, SYS_wait4, wargs, &wr, NULL, &e);
	}
	inject_end(&s->ij);
	reaper_done(&s->reaper);
	s->child = 0;
	return -1;
fail:
	snprintf(why, size, "%s", e.msg);
	if (s->injected)
		inject_end(&s->ij);
	reaper_done(&s->reaper);
	return -1;
}

void snap_patch(const struct cw *c, uint64_t a, unsigned char *buf, size_t len)
{
	const struct inject *ij = &c->snap->ij;

	if (!inject_overlaps(ij, a, len))
		return;
	uint64_t lo = a > ij->lo ? a : ij->lo;
	uint64_t hi = a + len < ij->lo + ij->len ? a + len : ij->lo + ij->len;
	memcpy(buf + (lo - a), ij->saved + (lo - ij->lo), hi - lo);
}

bool snap_child_gone(const struct cw *c)
{
	struct snap *s = c->snap;
	int st;

	if (!s->child || s->child_dead)
		return true;
	pid_t w = waitpid(s->child, &st, __WALL | WNOHANG);
	if (w == s->child && (WIFEXITED(st) || WIFSIGNALED(st)))
		s->child_dead = true;
	return s->child_dead;
}

int snap_src_fd(const struct cw *c)
{
	return c->snap ? c->snap->mem_fd : -1;
}

int snap_pagemap_fd(const struct cw *c)
{
	return c->snap ? c->snap->pagemap_fd : -1;
}

void snap_finish(struct cw *c)
{
	struct snap *s = c->snap;
	struct ps_error e;

	if (!s)
		return;
	if (s->child) {
		ps_test_pause("kill-child");
		kill_child(s);
		c->res->child_ms = (double)(now_ns() - s->t_fork) / 1e6;
		if (s->child_ns)
			reaper_reap(c->pid, s->tid, &s->site, s->child_ns, &e);
		s->child = 0;
	}
	reaper_done(&s->reaper);
}

void snap_free(struct cw *c)
{
	struct snap *s = c->snap;

	if (!s)
		return;
	snap_finish(c);
	if (s->mem_fd >= 0)
		close(s->mem_fd);
	if (s->pagemap_fd >= 0)
		close(s->pagemap_fd);
	inject_free(&s->ij);
	free(s);
	c->snap = NULL;
}
