#include "proc/task.h"
#include "proc/stat.h"
#include "proc/status.h"
#include "proc/syscalls.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int proc_syscall_parse(const char *buf, size_t len, long *nr, unsigned long long args[6])
{
	char tmp[256];
	char *p, *end;

	copy_cstr(tmp, sizeof(tmp), buf, len);
	memset(args, 0, 6 * sizeof(*args));
	if (!strncmp(tmp, "running", 7)) {
		*nr = PROC_SYSCALL_RUNNING;
		return 0;
	}
	errno = 0;
	*nr = strtol(tmp, &end, 10);
	if (end == tmp || errno)
		return -EINVAL;
	if (*nr < 0) { /* "-1 sp pc": blocked outside a system call */
		*nr = PROC_SYSCALL_NONE;
		return 0;
	}
	p = end;
	for (int i = 0; i < 6; i++) {
		args[i] = strtoull(p, &end, 16);
		if (end == p)
			return -EINVAL;
		p = end;
	}
	return 0;
}

int proc_schedstat_parse(const char *buf, size_t len, unsigned long long *run_ns,
			 unsigned long long *wait_ns, unsigned long long *slices)
{
	char tmp[128];

	copy_cstr(tmp, sizeof(tmp), buf, len);
	return sscanf(tmp, "%llu %llu %llu", run_ns, wait_ns, slices) == 3 ? 0 : -EINVAL;
}

int proc_thread_read(int taskfd, pid_t tid, struct proc_thread *t)
{
	struct proc_stat st;
	struct proc_status ss;
	char buf[512];
	ssize_t n;
	int r;

	memset(t, 0, sizeof(*t));
	t->tid = tid;
	r = proc_stat_read(taskfd, &st);
	if (r < 0)
		return r;
	strlcpy_ps(t->comm, st.comm, sizeof(t->comm));
	t->state = st.state;
	t->utime = st.utime;
	t->stime = st.stime;
	t->processor = st.processor;
	if (proc_status_read(taskfd, &ss) == 0) {
		t->vol_ctxt = ss.voluntary_ctxt;
		t->nonvol_ctxt = ss.nonvoluntary_ctxt;
		t->nstid = ss.nspid_n > 1 ? ss.nspid[ss.nspid_n - 1] : 0;
	}
	t->syscall_nr = PROC_SYSCALL_UNKNOWN;
	n = read_file_at(taskfd, "syscall", buf, sizeof(buf));
	if (n > 0 && proc_syscall_parse(buf, (size_t)n, &t->syscall_nr, t->syscall_args) < 0)
		t->syscall_nr = PROC_SYSCALL_UNKNOWN;
	if (st.flags & PROC_PF_KTHREAD) /* never in a system call */
		t->syscall_nr = PROC_SYSCALL_NONE;
	n = read_file_at(taskfd, "wchan", buf, sizeof(buf));
	if (n > 0 && strcmp(buf, "0"))
		strlcpy_ps(t->wchan, buf, sizeof(t->wchan));
	n = read_file_at(taskfd, "schedstat", buf, sizeof(buf));
	if (n > 0 && proc_schedstat_parse(buf, (size_t)n, &t->run_ns, &t->wait_ns, &t->slices) == 0)
		t->have_schedstat = 1;
	return 0;
}

static int cmp_tid(const void *a, const void *b)
{
	const struct proc_thread *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

int proc_threads_read(int dirfd, struct proc_threads *out)
{
	int tfd = openat(dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *de;

	out->n = 0;
	out->when = now_s();
	if (tfd < 0)
		return -errno;
	d = fdopendir(tfd);
	if (!d) {
		int err = errno;
		close(tfd);
		return -err;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		int fd = openat(tfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue; /* exited since readdir */
		if (out->n == out->cap) {
			size_t nc = out->cap ? out->cap * 2 : 16;
			struct proc_thread *nv = realloc(out->v, nc * sizeof(*nv));
			if (!nv) {
				close(fd);
				closedir(d);
				return -ENOMEM;
			}
			out->v = nv;
			out->cap = nc;
		}
		if (proc_thread_read(fd, (pid_t)atoi(de->d_name), &out->v[out->n]) == 0)
			out->n++;
		close(fd);
	}
	closedir(d);
	if (!out->n)
		return -ESRCH;
	sort_array(out->v, out->n, sizeof(*out->v), cmp_tid);
	return 0;
}

void proc_threads_rates(const struct proc_threads *prev, struct proc_threads *cur)
{
	double dt = cur->when - prev->when;
	long hz = sysconf(_SC_CLK_TCK);
	size_t j = 0;

	if (dt <= 0 || hz <= 0)
		return;
	for (size_t i = 0; i < cur->n; i++) {
		struct proc_thread *t = &cur->v[i];
		while (j < prev->n && prev->v[j].tid < t->tid)
			j++;
		if (j >= prev->n || prev->v[j].tid != t->tid)
			continue;
		const struct proc_thread *p = &prev->v[j];
		if (t->have_schedstat && p->have_schedstat) {
			/* schedstat run time is in ns, finer than ticks */
			t->cpu_pct = (double)(t->run_ns - p->run_ns) / 1e9 / dt * 100;
			t->wait_ms_per_s = (double)(t->wait_ns - p->wait_ns) / 1e6 / dt;
		} else {
			t->cpu_pct = (double)(t->utime + t->stime - p->utime - p->stime) / (double)hz / dt * 100;
		}
	}
}

const char *proc_thread_syscall_str(const struct proc_thread *t, char *buf, size_t size)
{
	const char *name;

	if (t->syscall_nr == PROC_SYSCALL_RUNNING)
		snprintf(buf, size, "running");
	else if (t->syscall_nr == PROC_SYSCALL_UNKNOWN)
		snprintf(buf, size, "?");
	else if (t->syscall_nr < 0)
		snprintf(buf, size, "-"); /* blocked but not in a system call */
	else if ((name = proc_syscall_name(t->syscall_nr)))
		snprintf(buf, size, "%s(0x%llx)", name, t->syscall_args[0]);
	else
		snprintf(buf, size, "syscall_%ld(0x%llx)", t->syscall_nr, t->syscall_args[0]);
	return buf;
}

void proc_threads_free(struct proc_threads *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}
