/* The BPF tier (root, or CAP_BPF with CAP_PERFMON; kernel BTF): the
 * object built from time.bpf.c and embedded by its bpftool skeleton,
 * loaded with libbpf -- opened at the first use (dlopen), so pscope runs
 * and degrades to the lower tiers without it. The programs' links live in
 * file descriptors of this process only (no pinning): however pscope
 * ends, even by SIGKILL, the kernel detaches them and frees the maps. */
#include "config.h"

#include "time/tpriv.h"
#include "doors/doors.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef HAVE_BPF

int tm_bpf_check(struct ps_error *e)
{
	return ps_error_set(e, ENOTSUP, _("this pscope was built without BPF (./configure --enable-bpf, with clang, "
					  "bpftool and libbpf-dev)"));
}

static int bpf_open(struct tm_session *s, struct ps_error *e)
{
	return tm_bpf_check(e);
}

static int bpf_fill(struct tm_session *s, struct tm_snapshot *snap, uint64_t now)
{
	return -ENOTSUP;
}

const struct tm_tier_ops tm_tier_bpf = { .tier = TM_TIER_BPF, .open = bpf_open, .fill = bpf_fill };

#else /* HAVE_BPF */

#include <pthread.h>
#include <stdarg.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "proc/status.h"
#include "time/tbpf.h"

/* libbpf, opened at the first BPF session. The skeleton's calls go to
 * these pointers (the defines below), so nothing links against it. */
static struct {
	int (*open_skeleton)(struct bpf_object_skeleton *s, const struct bpf_object_open_opts *opts);
	int (*load_skeleton)(struct bpf_object_skeleton *s);
	int (*attach_skeleton)(struct bpf_object_skeleton *s);
	void (*detach_skeleton)(struct bpf_object_skeleton *s);
	void (*destroy_skeleton)(struct bpf_object_skeleton *s);
	int (*set_autoload)(struct bpf_program *prog, bool autoload);
	int (*set_max_entries)(struct bpf_map *map, __u32 max_entries);
	int (*prog_fd)(const struct bpf_program *prog);
	const char *(*prog_name)(const struct bpf_program *prog);
	int (*map_fd)(const struct bpf_map *map);
	int (*get_next_key)(int fd, const void *key, void *next_key);
	int (*lookup)(int fd, const void *key, void *value);
	int (*enable_stats)(enum bpf_stats_type type);
	int (*info_by_fd)(int fd, void *info, __u32 *len);
	libbpf_print_fn_t (*set_print)(libbpf_print_fn_t fn);
} lb;
static const struct lazy_sym lb_syms[] = {
	{ "bpf_object__open_skeleton", (void **)&lb.open_skeleton },
	{ "bpf_object__load_skeleton", (void **)&lb.load_skeleton },
	{ "bpf_object__attach_skeleton", (void **)&lb.attach_skeleton },
	{ "bpf_object__detach_skeleton", (void **)&lb.detach_skeleton },
	{ "bpf_object__destroy_skeleton", (void **)&lb.destroy_skeleton },
	{ "bpf_program__set_autoload", (void **)&lb.set_autoload },
	{ "bpf_map__set_max_entries", (void **)&lb.set_max_entries },
	{ "bpf_program__fd", (void **)&lb.prog_fd },
	{ "bpf_program__name", (void **)&lb.prog_name },
	{ "bpf_map__fd", (void **)&lb.map_fd },
	{ "bpf_map_get_next_key", (void **)&lb.get_next_key },
	{ "bpf_map_lookup_elem", (void **)&lb.lookup },
	{ "bpf_enable_stats", (void **)&lb.enable_stats },
	{ "bpf_obj_get_info_by_fd", (void **)&lb.info_by_fd },
	{ "libbpf_set_print", (void **)&lb.set_print },
	{ NULL, NULL }
};
static struct lazy_lib lb_lib = { .soname = "libbpf.so.1", .package = "libbpf1", .syms = lb_syms,
				  .lock = PTHREAD_MUTEX_INITIALIZER };

#define bpf_object__open_skeleton(s, o) lb.open_skeleton(s, o)
#define bpf_object__load_skeleton(s) lb.load_skeleton(s)
#define bpf_object__attach_skeleton(s) lb.attach_skeleton(s)
#define bpf_object__detach_skeleton(s) lb.detach_skeleton(s)
#define bpf_object__destroy_skeleton(s) lb.destroy_skeleton(s)
#include "time/time.skel.h"

/* libbpf's messages: kept (the last warning explains a refusal), never
 * printed over the screen. One loader at a time. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static char lb_msg[256];

static int lb_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[256];

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	if (line[0])
		strlcpy_ps(lb_msg, line, sizeof(lb_msg));
	return 0;
}

struct bpf_tier {
	struct time_bpf *skel;
	int stats_fd;             /* bpf_enable_stats: run time counted while open */
	unsigned variant;
	bool faults;              /* fentry/fexit on faults: their counts and time */
	bool syscalls;            /* the syscall programs run */
	char sched_why[160];      /* raw_tp: why not tp_btf ("" on tp_btf) */
};

/* What each attempt loads, best first: tp_btf (typed arguments) or raw_tp
 * for the scheduler; fentry/fexit on handle_mm_fault (counts and time of
 * faults), else the page_fault_user tracepoint (blocked-in-fault only). */
enum { FAULT_FENTRY, FAULT_TP, FAULT_NONE };
static const struct {
	bool btf;
	int faults;
} variants[] = {
	{ true, FAULT_FENTRY },
	{ true, FAULT_TP },
	{ false, FAULT_TP },
	{ false, FAULT_NONE },
};

/* What the figures of a variant come from, for the header. */
static void source_of(const struct bpf_tier *bt, char *buf, size_t size)
{
	bool btf = variants[bt->variant].btf;
	int f = variants[bt->variant].faults;

	char sched[256];

	if (btf)
		snprintf(sched, sizeof(sched), "tp_btf");
	else /* a fallback: said, with the refusal */
		snprintf(sched, sizeof(sched), _("raw_tp (tp_btf refused: %s)"), bt->sched_why);
	snprintf(buf, size, _("BPF: %s sched_switch, sched_wakeup, sched_wakeup_new, sched_process_exit; %s; %s"),
		 sched,
		 bt->syscalls ? "raw_tp sys_enter, sys_exit"
		 : btf        ? _("no syscall programs (--no-syscalls): the syscall a thread blocks in from its registers")
			      : _("no syscall programs (--no-syscalls): why a thread blocks is not known on raw_tp"),
		 f == FAULT_FENTRY ? "fentry/fexit handle_mm_fault"
		 : f == FAULT_TP   ? _("tracepoint page_fault_user (fentry refused: fault counts from /proc, their time unknown)")
				   : _("no fault programs (fault counts from /proc, their time unknown)"));
}

int tm_bpf_check(struct ps_error *e)
{
	if (!(geteuid() == 0 || door_have_cap(CAP_SYS_ADMIN) || (door_have_cap(CAP_BPF) && door_have_perfmon()))) {
		ps_error_set(e, EPERM, _("loading BPF programs needs root, or CAP_BPF with CAP_PERFMON"));
		e->door = DOOR_BPF;
		snprintf(e->fix, sizeof(e->fix), "%s", _("run pscope as root, or `setcap cap_bpf,cap_perfmon+ep pscope`"));
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK) < 0) {
		int err = errno;
		ps_error_set(e, err, _("the kernel has no BTF type information (/sys/kernel/btf/vmlinux: %s)"), strerror(err));
		e->door = DOOR_BTF;
		snprintf(e->fix, sizeof(e->fix), "%s", _("a kernel built with CONFIG_DEBUG_INFO_BTF=y (Debian's is)"));
		return -err;
	}
	if (!lazy_lib_open(&lb_lib))
		return ps_error_set(e, ENOENT, _("BPF needs libbpf: %s (apt-get install libbpf1)"), lb_lib.why);
	return 0;
}

static void set_variant(struct time_bpf *k, unsigned v)
{
	struct bpf_program *btf[] = { k->progs.ps_t_switch, k->progs.ps_t_wakeup, k->progs.ps_t_wakeup_new, k->progs.ps_t_exit };
	struct bpf_program *raw[] = { k->progs.ps_r_switch, k->progs.ps_r_wakeup, k->progs.ps_r_wakeup_new, k->progs.ps_r_exit };

	for (size_t i = 0; i < ARRAY_SIZE(btf); i++) {
		lb.set_autoload(btf[i], variants[v].btf);
		lb.set_autoload(raw[i], !variants[v].btf);
	}
	lb.set_autoload(k->progs.ps_fault_enter, variants[v].faults == FAULT_FENTRY);
	lb.set_autoload(k->progs.ps_fault_exit, variants[v].faults == FAULT_FENTRY);
	lb.set_autoload(k->progs.ps_t_fault, variants[v].faults == FAULT_TP && variants[v].btf);
	lb.set_autoload(k->progs.ps_r_fault, variants[v].faults == FAULT_TP && !variants[v].btf);
}

static uint32_t clamp_u32(uint64_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (uint32_t)v;
}

/* Load and attach one variant; 0, or -errno with lb_msg saying why. The
 * maps are preallocated, sized to the threads there are now with room
 * for as many again (a full map counts its drops). */
static int try_variant(struct bpf_tier *bt, pid_t tgid, size_t nthreads, unsigned v, bool syscalls, uint64_t *t0)
{
	struct time_bpf *k = time_bpf__open();
	int r;

	if (!k)
		return -errno;
	k->rodata->target_tgid = (__u32)tgid;
	lb.set_max_entries(k->maps.ps_threads, clamp_u32(2 * (uint64_t)nthreads + 128, TB_MAX_THREADS, 65536));
	lb.set_max_entries(k->maps.ps_sys, clamp_u32(24 * (uint64_t)nthreads + 512, TB_MAX_SYS, 262144));
	set_variant(k, v);
	lb.set_autoload(k->progs.ps_sys_enter, syscalls);
	lb.set_autoload(k->progs.ps_sys_exit, syscalls);
	if ((r = time_bpf__load(k)) < 0) {
		time_bpf__destroy(k);
		return r;
	}
	*t0 = now_ns();
	k->bss->t0 = *t0;
	if ((r = time_bpf__attach(k)) < 0) {
		time_bpf__destroy(k);
		return r;
	}
	bt->skel = k;
	bt->variant = v;
	bt->faults = variants[v].faults == FAULT_FENTRY;
	bt->syscalls = syscalls;
	return 0;
}

static size_t count_threads(int dirfd)
{
	struct proc_status st;
	return proc_status_read(dirfd, &st) == 0 && st.threads > 0 ? (size_t)st.threads : 1;
}

static int bpf_open(struct tm_session *s, struct ps_error *e)
{
	struct bpf_tier *bt = calloc(1, sizeof(*bt));
	int r = -ENOTSUP;
	uint64_t t0 = 0;

	if (!bt)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	bt->stats_fd = -1;
	pthread_mutex_lock(&load_lock);
	lb_msg[0] = '\0';
	libbpf_print_fn_t old = lb.set_print(lb_print);
	/* Test hook: PSCOPE_TEST_BPF_NO_TP_BTF=1 skips the tp_btf variants,
	 * as on a kernel that refuses them (the raw_tp fallback tested). */
	bool no_btf = getenv("PSCOPE_TEST_BPF_NO_TP_BTF") && *getenv("PSCOPE_TEST_BPF_NO_TP_BTF") == '1';
	if (no_btf)
		snprintf(bt->sched_why, sizeof(bt->sched_why), "%s", "PSCOPE_TEST_BPF_NO_TP_BTF=1");
	for (unsigned v = 0; v < ARRAY_SIZE(variants); v++) {
		if (no_btf && variants[v].btf)
			continue;
		if ((r = try_variant(bt, s->t.id.pid, count_threads(s->t.dirfd), v, !s->o.no_syscalls, &t0)) == 0)
			break;
		if (variants[v].btf) /* the last tp_btf refusal: what raw_tp says */
			snprintf(bt->sched_why, sizeof(bt->sched_why), "%s", lb_msg[0] ? lb_msg : strerror(-r));
	}
	lb.set_print(old);
	char msg[256];
	strlcpy_ps(msg, lb_msg, sizeof(msg));
	pthread_mutex_unlock(&load_lock);
	if (r < 0) {
		free(bt);
		if (r == -EPERM || r == -EACCES) {
			ps_error_set(e, -r, _("the kernel refused the BPF programs (%s) although pscope holds the capabilities"),
				     msg[0] ? msg : strerror(-r));
			e->door = DOOR_LSM;
			snprintf(e->fix, sizeof(e->fix), "%s",
				 _("kernel lockdown or a security module refuses bpf(2): see its denials in the kernel log"));
			return r;
		}
		return ps_error_set(e, -r, _("the BPF programs did not load: %s"), msg[0] ? msg : strerror(-r));
	}
	/* The per-event cost figure, asked for: while the fd is open the
	 * kernel times every BPF program; refused without CAP_SYS_ADMIN. */
	bt->stats_fd = s->o.bpf_stats ? lb.enable_stats(BPF_STATS_RUN_TIME) : -1;
	s->tier = bt;
	s->start_ns = t0;
	return 0;
}

static void add_cost(struct tm_snapshot *snap, const struct bpf_program *p)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = lb.prog_fd(p);

	memset(&info, 0, sizeof(info));
	if (fd < 0 || snap->ncost >= ARRAY_SIZE(snap->cost) || lb.info_by_fd(fd, &info, &len) < 0)
		return;
	struct tm_cost *c = &snap->cost[snap->ncost++];
	strlcpy_ps(c->name, lb.prog_name(p), sizeof(c->name));
	c->run_ns = info.run_time_ns;
	c->run_cnt = info.run_cnt;
}

static uint64_t since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* A thread's kernel figures into t (which holds its /proc ones). */
static void from_kernel(struct tm_thread *t, const struct tb_thread *k, const struct tm_pthread *p, bool faults,
			uint64_t now)
{
	t->oncpu_ns = k->oncpu_ns;
	t->runq_ns = k->runq_ns;
	t->stopped_ns = k->stopped_ns;
	t->blocked_ns[TM_R_OTHER] += k->blocked_nosys_ns;
	t->blocked_ns[TM_R_FAULT] += k->blocked_fault_ns;
	/* Blocked since before the window: why, the thread's registers said
	 * at its wakeup, else /proc at the start. */
	if (k->early_nr >= 0)
		t->blocked_ns[tm_reason_of(k->early_nr, k->early_flags & TB_F_IOWAIT ? TM_H_IOWAIT : 0)] +=
			k->blocked_early_ns;
	else if (p && (p->base.state == 'T' || p->base.state == 't'))
		t->stopped_ns += k->blocked_early_ns;
	else
		t->blocked_ns[p ? tm_pread_reason(&p->base) : TM_R_OTHER] += k->blocked_early_ns;
	/* The stretch in progress. */
	uint64_t d = since(now, k->since_ns);
	switch (k->state) {
	case TB_ST_UNKNOWN: /* no switch since the start: it ran all along */
	case TB_ST_ONCPU:
		t->oncpu_ns += d;
		break;
	case TB_ST_RUNQ:
		t->runq_ns += d;
		break;
	case TB_ST_STOPPED:
		t->stopped_ns += d;
		break;
	case TB_ST_BLOCKED: {
		unsigned h = (k->flags & TB_F_IOWAIT ? TM_H_IOWAIT : 0) | (k->flags & TB_F_FAULT ? TM_H_FAULT : 0);
		t->blocked_ns[tm_reason_of(k->sys_nr, h)] += d;
		break;
	}
	default:
		t->exited = true;
		break;
	}
	t->vol = k->vol;
	t->invol = k->invol;
	t->migrations = k->migrations;
	if (faults) {
		t->minflt = k->minflt;
		t->majflt = k->majflt;
		t->fault_ns = k->fault_ns;
	}
	t->runq_count = k->runq_count;
	for (int i = 0; i < TB_HIST && i < TM_HIST; i++)
		t->runq_hist.b[i] = k->runq_hist[i];
	for (int i = 0; i < TB_WORST && k->worst[i].ns; i++) {
		struct tm_wait w = { .ns = k->worst[i].ns, .tid = t->tid, .ran_tid = (pid_t)k->worst[i].ran_tid,
				     .cpu = (int)k->worst[i].cpu };
		memcpy(w.ran_comm, k->worst[i].ran_comm, sizeof(w.ran_comm));
		w.ran_comm[sizeof(w.ran_comm) - 1] = '\0';
		tm_worst_add(t->worst, &t->nworst, &w);
	}
	if (!t->comm[0]) {
		memcpy(t->comm, k->comm, sizeof(k->comm));
		t->comm[sizeof(k->comm)] = '\0';
	}
	uint64_t span = t->oncpu_ns + t->runq_ns + t->stopped_ns + tm_blocked_sum(t);
	if (!p || p->born || t->exited)
		t->span_ns = span;
}

/* The snapshot's first nproc threads are /proc's, by tid; the rest are
 * the kernel's own (gone before the end). */
static struct tm_thread *thread_of(struct tm_snapshot *snap, size_t nproc, pid_t tid)
{
	size_t lo = 0, hi = nproc;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (snap->threads[mid].tid == tid)
			return &snap->threads[mid];
		if (snap->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = nproc; i < snap->nthreads; i++)
		if (snap->threads[i].tid == tid)
			return &snap->threads[i];
	return NULL;
}

static int read_syscalls(struct bpf_tier *bt, struct tm_snapshot *snap, size_t nproc)
{
	int fd = lb.map_fd(bt->skel->maps.ps_sys);
	struct tb_sys_key key, next;
	struct tb_sys v;
	bool first = true;

	while (lb.get_next_key(fd, first ? NULL : &key, &next) == 0) {
		first = false;
		key = next;
		if (lb.lookup(fd, &key, &v) < 0)
			continue;
		struct tm_thread *t = thread_of(snap, nproc, (pid_t)key.tid);
		if (!t)
			continue;
		/* Without the syscall programs an entry holds only the time
		 * blocked in it: the reasons, no table. */
		struct tm_syscall *sc = bt->syscalls ? tm_thread_syscall(t, key.nr) : NULL;
		if (bt->syscalls && !sc)
			return -ENOMEM;
		if (sc) {
			sc->count = v.count;
			sc->errors = v.errors;
			sc->total_ns = v.total_ns;
			sc->min_ns = v.min_ns;
			sc->max_ns = v.max_ns;
			sc->blocked_ns = v.blocked_ns;
			sc->iowait_ns = v.iowait_ns;
			for (int i = 0; i < TB_HIST && i < TM_HIST; i++)
				sc->hist.b[i] = v.hist[i];
		}
		uint64_t io = v.iowait_ns < v.blocked_ns ? v.iowait_ns : v.blocked_ns;
		t->blocked_ns[tm_reason_of(key.nr, TM_H_IOWAIT)] += io;
		t->blocked_ns[tm_reason_of(key.nr, 0)] += v.blocked_ns - io;
	}
	return 0;
}

static int bpf_fill(struct tm_session *s, struct tm_snapshot *snap, uint64_t now)
{
	struct bpf_tier *bt = s->tier;
	int fd = lb.map_fd(bt->skel->maps.ps_threads);
	__u32 key = 0, next;
	struct tb_thread k;
	bool first = true;
	int r;

	if ((r = tm_procset_scan(&s->ps, now)) < 0)
		return r;
	now = now_ns(); /* the stretches in progress run until the maps are read, not the scan began */
	/* Every thread /proc knows, with its exact counters... */
	size_t nproc = s->ps.n;
	bool *seen = calloc(nproc ? nproc : 1, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	for (size_t i = 0; i < nproc; i++) {
		struct tm_thread *t = tm_snapshot_add(snap);
		if (!t)
			goto nomem;
		tm_thread_from_proc(t, &s->ps.v[i], s->start_ns, now);
	}
	/* ...and what the kernel saw of them, and of those already gone. */
	while (lb.get_next_key(fd, first ? NULL : &key, &next) == 0) {
		first = false;
		key = next;
		if (lb.lookup(fd, &key, &k) < 0)
			continue;
		struct tm_pthread *p = tm_procset_find(&s->ps, (pid_t)key);
		struct tm_thread *t = thread_of(snap, nproc, (pid_t)key);
		if (p)
			seen[p - s->ps.v] = true;
		if (!t) {
			if (!(t = tm_snapshot_add(snap)))
				goto nomem;
			t->tid = (pid_t)key;
			t->exited = true;
		}
		from_kernel(t, &k, p, bt->faults, now);
	}
	/* Threads no event touched: blocked (or running) all along. */
	for (size_t i = 0; i < nproc; i++) {
		struct tm_thread *t = &snap->threads[i];
		const struct tm_pthread *p = &s->ps.v[i];
		if (seen[i])
			continue;
		if (!p->born && !p->gone) /* in one state since before the attach */
			t->span_ns = since(now, s->start_ns);
		uint64_t rest = since(t->span_ns, t->oncpu_ns + t->runq_ns);
		if (p->base.state == 'T' || p->base.state == 't')
			t->stopped_ns = rest;
		else
			t->blocked_ns[tm_pread_reason(&p->base)] += rest;
	}
	free(seen);
	if ((r = read_syscalls(bt, snap, nproc)) < 0)
		return r;
	int cfd = lb.map_fd(bt->skel->maps.ps_counters);
	for (__u32 c = 0; c < TB_C_COUNT; c++) {
		__u64 n = 0;
		if (lb.lookup(cfd, &c, &n) == 0)
			snap->drops += n;
	}
	snap->have = (bt->syscalls ? TM_HAVE_SYSCALLS : 0) | TM_HAVE_RUNQ_HIST | TM_HAVE_WORST | TM_HAVE_MIGR |
		     (bt->faults ? TM_HAVE_FAULT_NS : 0);
	source_of(bt, snap->source, sizeof(snap->source));
	if (bt->stats_fd >= 0) {
		struct time_bpf *k2 = bt->skel;
		struct bpf_program *progs[] = {
			variants[bt->variant].btf ? k2->progs.ps_t_switch : k2->progs.ps_r_switch,
			variants[bt->variant].btf ? k2->progs.ps_t_wakeup : k2->progs.ps_r_wakeup,
			bt->syscalls ? k2->progs.ps_sys_enter : NULL, bt->syscalls ? k2->progs.ps_sys_exit : NULL,
			bt->faults ? k2->progs.ps_fault_enter : NULL, bt->faults ? k2->progs.ps_fault_exit : NULL,
			variants[bt->variant].faults == FAULT_TP
				? (variants[bt->variant].btf ? k2->progs.ps_t_fault : k2->progs.ps_r_fault) : NULL,
		};
		for (size_t i = 0; i < ARRAY_SIZE(progs); i++)
			if (progs[i])
				add_cost(snap, progs[i]);
	}
	return 0;
nomem:
	free(seen);
	return -ENOMEM;
}

static void bpf_close(struct tm_session *s)
{
	struct bpf_tier *bt = s->tier;

	if (!bt)
		return;
	time_bpf__destroy(bt->skel); /* detaches every link, frees the maps */
	if (bt->stats_fd >= 0)
		close(bt->stats_fd);
	free(bt);
	s->tier = NULL;
}

const struct tm_tier_ops tm_tier_bpf = {
	.tier = TM_TIER_BPF,
	.open = bpf_open,
	.fill = bpf_fill,
	.close = bpf_close,
};

#endif /* HAVE_BPF */
