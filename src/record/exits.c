/* The processes that start and exit between two intervals: taskstats
 * exit messages (every task's, as it exits: its command, parent, wait
 * status, lifetime and CPU), collected by a thread of the recorder and
 * taken once an interval. Needs CAP_NET_ADMIN (root). Taskstats rather
 * than the process connector (CN_PROC): its exit message carries the CPU
 * and the lifetime the connector's does not, so nothing has to be read
 * from /proc of a process already gone. */
#include "record/record.h"
#include "i18n.h"
#include "proc/taskstats.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct rec_exits {
	struct proc_taskstats_sock s;
	pthread_t th;
	atomic_bool stop;
	pthread_mutex_t lock;
	struct snap_exit *v;
	size_t n, cap;
	unsigned long lost;
};

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *listen_thread(void *arg)
{
	struct rec_exits *x = arg;
	unsigned char buf[2048];

	while (!atomic_load(&x->stop)) {
		ssize_t n = recv(x->s.fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == ENOBUFS) {
				pthread_mutex_lock(&x->lock);
				x->lost++;
				pthread_mutex_unlock(&x->lock);
			}
			continue; /* EAGAIN: the timeout, to look at stop */
		}
		struct proc_task_exit t;
		if (proc_taskstats_exit_parse(buf, (size_t)n, &t) < 0 || (t.tgid && t.tgid != t.pid))
			continue; /* not an exit, or a thread other than the main one */
		double end = wall_now();
		struct snap_exit e = {
			.pid = (pid_t)t.pid, .ppid = (pid_t)t.ppid, .uid = (uid_t)t.uid, .end = end,
			.start = end - (double)t.etime_us / 1e6, .cpu = (double)(t.utime_us + t.stime_us) / 1e6,
			.status = (int)t.exitcode,
		};
		strlcpy_ps(e.comm, t.comm, sizeof(e.comm));
		pthread_mutex_lock(&x->lock);
		if (x->n < 100000 && array_reserve((void **)&x->v, &x->cap, x->n, sizeof(*x->v), 64) == 0)
			x->v[x->n++] = e;
		else
			x->lost++;
		pthread_mutex_unlock(&x->lock);
	}
	return NULL;
}

int rec_exits_start(struct rec_exits **out, struct ps_error *e)
{
	struct rec_exits *x = calloc(1, sizeof(*x));
	char mask[32];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int r;

	*out = NULL;
	if (!x)
		return ps_error_set(e, ENOMEM, "%s", _("out of memory"));
	pthread_mutex_init(&x->lock, NULL);
	if ((r = proc_taskstats_open(&x->s)) < 0) {
		free(x);
		return ps_error_set(e, -r, _("taskstats is not there: %s"), strerror(-r));
	}
	snprintf(mask, sizeof(mask), "0-%ld", ncpu > 0 ? ncpu - 1 : 0);
	if ((r = proc_taskstats_listen(&x->s, mask)) < 0) {
		proc_taskstats_close(&x->s);
		free(x);
		if (r == -EPERM || r == -EACCES)
			return ps_error_set(e, -r, "%s", _("listening to exits needs CAP_NET_ADMIN (run pscope record as root)"));
		return ps_error_set(e, -r, _("cannot listen to exits: %s"), strerror(-r));
	}
	struct timeval tv = { 0, 200000 };
	setsockopt(x->s.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if ((r = pthread_create(&x->th, NULL, listen_thread, x)) != 0) {
		proc_taskstats_close(&x->s);
		free(x);
		return ps_error_set(e, r, _("cannot start the exit listener: %s"), strerror(r));
	}
	*out = x;
	return 0;
}

size_t rec_exits_take(struct rec_exits *x, struct snap_exit **out, unsigned long *lost)
{
	pthread_mutex_lock(&x->lock);
	*out = x->v;
	size_t n = x->n;
	*lost = x->lost;
	x->v = NULL;
	x->n = x->cap = 0;
	pthread_mutex_unlock(&x->lock);
	return n;
}

void rec_exits_stop(struct rec_exits *x)
{
	if (!x)
		return;
	atomic_store(&x->stop, true);
	pthread_join(x->th, NULL);
	proc_taskstats_close(&x->s);
	pthread_mutex_destroy(&x->lock);
	free(x->v);
	free(x);
}

void rec_exits_attach(struct rec_exits *x, struct snap_list *s, const struct snap_list *prev,
		      bool (*keep)(const struct snap_exit *x, void *arg), void *arg)
{
	struct snap_exit *v;
	unsigned long lost;
	size_t n = rec_exits_take(x, &v, &lost), o = 0;
	long hz = s->times.hz > 0 ? s->times.hz : 100;

	for (size_t i = 0; i < n; i++) {
		const struct proc_row *r = prev ? snap_list_find(prev, v[i].pid) : NULL;
		double start = r ? (double)s->times.btime + (double)r->starttime / (double)hz : 0;
		if (r && start > v[i].start - 1.5 && start < v[i].start + 1.5)
			continue; /* in the frame before: not short-lived */
		if (!keep || keep(&v[i], arg))
			v[o++] = v[i];
	}
	free(s->exits);
	s->exits = v;
	s->nexits = o;
	s->rec.exits_on = true;
}
