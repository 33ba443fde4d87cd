/* pscope show PID [--pane status|fd|maps|mem|threads|all] [--json]: one
 * snapshot of the detail panes, as text or JSON. */
#include "cmd/cmd.h"
#include "i18n.h"
#include "doors.h"
#include "out/escape.h"
#include "proc/actions.h"
#include "out/json.h"
#include "proc/caps.h"
#include "proc/fd.h"
#include "proc/info.h"
#include "proc/maps.h"
#include "proc/net.h"
#include "proc/rollup.h"
#include "proc/task.h"
#include "target.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { P_STATUS = 1, P_FD = 2, P_MAPS = 4, P_MEM = 8, P_THREADS = 16, P_ALL = 31 };

struct show {
	struct target t;
	int panes;
	bool json, smaps;
	double interval;
	int repeat;
	bool kthread;                  /* no address space: maps/mem are empty */
	struct json_object *jpanes;
	int failed;
	char *cmdline;                 /* the whole command line, or NULL (then cut: see cmdline_cut) */
	bool cmdline_cut;
};

/* Print a hostile string of any length, escaped (esc() stops at 4 KiB). */
static void print_escaped(const char *s)
{
	size_t len = strlen(s), cap = len * 6 + 16;
	char *buf = malloc(cap);

	if (!buf) {
		fputs(esc(s), stdout);
		return;
	}
	esc_display(s, len, buf, cap);
	fputs(buf, stdout);
	free(buf);
}

/* A pane that could not be read: the door sentence (text) or an error
 * object (JSON). */
static void section(const struct show *s, const char *title, const char *source);

static void pane_error(struct show *s, const char *pane, int err, const char *file)
{
	struct ps_error e;
	char what[96], buf[1024];

	ps_error_clear(&e);
	snprintf(what, sizeof(what), "read /proc/%d/%s", (int)s->t.id.pid, file);
	door_refused(&e, PS_OP_READ_PROC, s->t.id.pid, err, what);
	s->failed = 1;
	if (s->json) {
		struct json_object *o = json_object_new_object(), *eo = json_object_new_object();
		out_json_str(eo, "message", e.msg);
		out_json_str(eo, "door", e.door ? door_name(e.door) : NULL);
		out_json_str(eo, "fix", e.fix[0] ? e.fix : NULL);
		json_object_object_add(o, "error", eo);
		json_object_object_add(s->jpanes, pane, o);
	} else {
		char src[64];
		snprintf(src, sizeof(src), "/proc/PID/%s", file);
		section(s, pane, src);
		printf("refused: %s\n", esc(ps_error_str(&e, buf, sizeof(buf))));
	}
}

static void section(const struct show *s, const char *title, const char *source)
{
	if (!s->json)
		printf("\n== %s  (source: %s)\n", title, source);
}

static double ms_since(uint64_t t0)
{
	return (double)(now_ns() - t0) / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* --repeat: time n re-reads with read_once, print min/median to stderr. */
static void report_times(const char *pane, double *t, int n, size_t items, const char *unit)
{
	if (n <= 0)
		return;
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	fprintf(stderr, "pscope show: %s refresh: min %.2f ms, median %.2f ms, max %.2f ms over %d reads (%zu %s)\n",
		pane, t[0], t[n / 2], t[n - 1], n, items, unit);
}

static void caps_json(struct json_object *o, const char *key, uint64_t set)
{
	char hex[32];
	struct json_object *arr = json_object_new_array();
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)set);
	out_json_str(o, key, hex);
	for (int b = 0; b < 64; b++)
		if (set >> b & 1) {
			const char *n = proc_cap_name(b);
			char tmp[16];
			if (!n) {
				snprintf(tmp, sizeof(tmp), "cap_%d", b);
				n = tmp;
			}
			json_object_array_add(arr, json_object_new_string(n));
		}
	char nk[40];
	snprintf(nk, sizeof(nk), "%s_names", key);
	json_object_object_add(o, nk, arr);
}

static const char *seccomp_name(int m)
{
	return m == 0 ? "disabled" : m == 1 ? "strict" : m == 2 ? "filter" : "unknown";
}

static void kb_json(struct json_object *o, const char *key, long kb)
{
	if (kb >= 0)
		out_json_int(o, key, kb);
	else
		json_object_object_add(o, key, NULL);
}

static void kb_text(const char *label, long kb)
{
	char h[32];
	if (kb >= 0)
		printf("%-16s %10ld kB  %s\n", label, kb, human_bytes((unsigned long long)kb * 1024, h, sizeof(h)));
}

static void time_str(double epoch, char *buf, size_t size)
{
	time_t t = (time_t)epoch;
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%d %H:%M:%S %z", &tm);
}

static const char *link_text(const char *path, int err)
{
	if (err == -ENOENT)
		return "(none: kernel thread or exited)";
	if (err)
		return "(unreadable: needs ptrace-read access)";
	return esc(path);
}

static void show_status(struct show *s)
{
	struct proc_info a, b;
	struct proc_info_rates r;
	bool rates = false;
	int err;

	err = proc_info_read(s->t.dirfd, &b);
	if (!err && s->interval > 0) {
		a = b;
		struct timespec ts = { (time_t)s->interval, (long)((s->interval - (long)s->interval) * 1e9) };
		nanosleep(&ts, NULL);
		err = proc_info_read(s->t.dirfd, &b);
		if (!err) {
			proc_info_rates(&a, &b, &r);
			rates = true;
		}
	}
	if (err) {
		pane_error(s, "status", err, "status");
		return;
	}
	const struct proc_status *st = &b.status;
	char start[64], caps[1024];
	time_str(b.start_epoch, start, sizeof(start));
	if (s->json) {
		struct json_object *o = json_object_new_object(), *ns = json_object_new_object();
		char st_s[2] = { b.stat.state, 0 };
		out_json_str(o, "state", st_s);
		out_json_str(o, "state_name", proc_state_name(b.stat.state));
		out_json_int(o, "ppid", st->ppid);
		out_json_int(o, "uid", st->uid_real);
		out_json_int(o, "euid", st->uid_eff);
		out_json_str(o, "user", b.user);
		out_json_int(o, "gid", st->gid_real);
		out_json_int(o, "egid", st->gid_eff);
		out_json_str(o, "group", b.group);
		out_json_int(o, "threads", st->threads);
		kb_json(o, "vm_peak_kb", st->vm_peak);
		kb_json(o, "vm_size_kb", st->vm_size);
		kb_json(o, "vm_rss_kb", st->vm_rss);
		kb_json(o, "rss_anon_kb", st->rss_anon);
		kb_json(o, "rss_file_kb", st->rss_file);
		kb_json(o, "rss_shmem_kb", st->rss_shmem);
		kb_json(o, "vm_swap_kb", st->vm_swap);
		out_json_int(o, "voluntary_ctxt_switches", (long long)st->voluntary_ctxt);
		out_json_int(o, "nonvoluntary_ctxt_switches", (long long)st->nonvoluntary_ctxt);
		out_json_int(o, "minor_faults", (long long)b.stat.minflt);
		out_json_int(o, "major_faults", (long long)b.stat.majflt);
		if (rates) {
			struct json_object *ro = json_object_new_object();
			out_json_double(ro, "interval_s", b.when - a.when);
			out_json_double(ro, "cpu_pct", r.cpu_pct);
			out_json_double(ro, "voluntary_ctxt_switches_per_s", r.vol_ctxt_s);
			out_json_double(ro, "nonvoluntary_ctxt_switches_per_s", r.nonvol_ctxt_s);
			out_json_double(ro, "minor_faults_per_s", r.minflt_s);
			out_json_double(ro, "major_faults_per_s", r.majflt_s);
			json_object_object_add(o, "rates", ro);
		}
		caps_json(o, "cap_eff", st->cap_eff);
		caps_json(o, "cap_prm", st->cap_prm);
		caps_json(o, "cap_inh", st->cap_inh);
		caps_json(o, "cap_bnd", st->cap_bnd);
		caps_json(o, "cap_amb", st->cap_amb);
		out_json_int(o, "seccomp", st->seccomp);
		out_json_str(o, "seccomp_mode", seccomp_name(st->seccomp));
		out_json_int(o, "no_new_privs", st->no_new_privs);
		out_json_int(o, "tracer_pid", st->tracer_pid);
		out_json_str(o, "tracer_name", st->tracer_pid > 0 ? b.tracer_comm : NULL);
		out_json_str(o, "cpus_allowed_list", st->cpus_allowed_list);
		if (b.oom_score != INT_MIN)
			out_json_int(o, "oom_score", b.oom_score);
		if (b.oom_score_adj != INT_MIN)
			out_json_int(o, "oom_score_adj", b.oom_score_adj);
		struct json_object *cg = json_object_new_array();
		for (const char *l = b.cgroup; *l;) {
			size_t ll = strcspn(l, "\n");
			char line[512];
			snprintf(line, sizeof(line), "%.*s", (int)ll, l);
			json_object_array_add(cg, json_object_new_string(utf8_valid(line, ll) ? line : esc(line)));
			l += ll + (l[ll] == '\n');
		}
		json_object_object_add(o, "cgroup", cg);
		for (int i = 0; i < PROC_NS_COUNT; i++)
			if (b.ns[i].ino)
				out_json_int(ns, b.ns[i].name, (long long)b.ns[i].ino);
		json_object_object_add(o, "namespaces", ns);
		out_json_str(o, "start_time", start);
		out_json_double(o, "start_epoch", b.start_epoch);
		out_json_double(o, "uptime_s", b.uptime_s);
		out_json_str(o, "cwd", b.cwd_err ? NULL : b.cwd);
		out_json_str(o, "exe", b.exe_err ? NULL : b.exe);
		out_json_str(o, "cmdline", s->cmdline ? s->cmdline : b.cmdline);
		json_object_object_add(s->jpanes, "status", o);
		return;
	}
	section(s, "status", "/proc/PID/status, stat, cgroup, ns/*, oom_score, cwd, exe");
	printf("%-16s %c (%s)\n", "State", b.stat.state, proc_state_name(b.stat.state));
	printf("%-16s %d\n", "PPid", (int)st->ppid);
	printf("%-16s %u (%s) euid %u\n", "Uid", st->uid_real, esc(b.user), st->uid_eff);
	printf("%-16s %u (%s) egid %u\n", "Gid", st->gid_real, esc(b.group), st->gid_eff);
	printf("%-16s %ld\n", "Threads", st->threads);
	kb_text("VmPeak", st->vm_peak);
	kb_text("VmSize", st->vm_size);
	kb_text("VmRSS", st->vm_rss);
	kb_text("RssAnon", st->rss_anon);
	kb_text("RssFile", st->rss_file);
	kb_text("RssShmem", st->rss_shmem);
	kb_text("VmSwap", st->vm_swap);
	printf("%-16s %lu%s", "Voluntary csw", st->voluntary_ctxt, rates ? "" : "\n");
	if (rates)
		printf("  (%.1f/s)\n", r.vol_ctxt_s);
	printf("%-16s %lu%s", "Involuntary csw", st->nonvoluntary_ctxt, rates ? "" : "\n");
	if (rates)
		printf("  (%.1f/s)\n", r.nonvol_ctxt_s);
	printf("%-16s %lu%s", "Minor faults", b.stat.minflt, rates ? "" : "\n");
	if (rates)
		printf("  (%.1f/s)\n", r.minflt_s);
	printf("%-16s %lu%s", "Major faults", b.stat.majflt, rates ? "" : "\n");
	if (rates)
		printf("  (%.1f/s)\n", r.majflt_s);
	if (rates)
		printf("%-16s %.1f%%\n", "CPU", r.cpu_pct);
	proc_caps_str(st->cap_eff, caps, sizeof(caps));
	printf("%-16s %s\n", "CapEff", caps);
	proc_caps_str(st->cap_prm, caps, sizeof(caps));
	printf("%-16s %s\n", "CapPrm", caps);
	proc_caps_str(st->cap_inh, caps, sizeof(caps));
	printf("%-16s %s\n", "CapInh", caps);
	proc_caps_str(st->cap_bnd, caps, sizeof(caps));
	printf("%-16s %s\n", "CapBnd", caps);
	proc_caps_str(st->cap_amb, caps, sizeof(caps));
	printf("%-16s %s\n", "CapAmb", caps);
	printf("%-16s %d (%s), %d filters\n", "Seccomp", st->seccomp, seccomp_name(st->seccomp), st->seccomp_filters);
	printf("%-16s %d\n", "NoNewPrivs", st->no_new_privs);
	if (st->tracer_pid > 0)
		printf("%-16s %d (%s)\n", "TracerPid", (int)st->tracer_pid, esc(b.tracer_comm));
	else
		printf("%-16s 0 (not traced)\n", "TracerPid");
	printf("%-16s %s\n", "Cpus allowed", esc(st->cpus_allowed_list));
	if (b.oom_score != INT_MIN)
		printf("%-16s %d (adj %d)\n", "oom_score", b.oom_score, b.oom_score_adj);
	for (const char *l = b.cgroup, *label = "Cgroup"; *l; label = "") {
		size_t ll = strcspn(l, "\n");
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)ll, l);
		printf("%-16s %s\n", label, esc(line));
		l += ll + (l[ll] == '\n');
	}
	for (int i = 0; i < PROC_NS_COUNT; i++)
		if (b.ns[i].ino)
			printf("%-16s %s:[%llu]\n", i ? "" : "Namespaces", b.ns[i].name, b.ns[i].ino);
	printf("%-16s %s (up %.0f s)\n", "Started", start, b.uptime_s);
	printf("%-16s %s\n", "Cwd", link_text(b.cwd, b.cwd_err));
	printf("%-16s %s\n", "Exe", link_text(b.exe, b.exe_err));
}

/* One read of the FDs pane's data. The pane reads fdinfo only for the rows
 * on screen (info_rows of them) and reuses its previous read; the batch
 * output reads everything afresh. */
static int read_fds(struct show *s, struct proc_fd_list *l, struct proc_net *net, bool all_info, size_t info_rows)
{
	int err = proc_fd_read(s->t.dirfd, l, all_info ? PROC_FD_INFO : PROC_FD_CACHED);
	if (err)
		return err;
	for (size_t i = 0; !all_info && i < l->n && i < info_rows; i++)
		proc_fd_read_info(s->t.dirfd, &l->v[i]);
	proc_fd_read_net(s->t.dirfd, l, net);
	return 0;
}

static void time_fds(struct show *s, struct proc_fd_list *l, struct proc_net *net, bool all_info, const char *label)
{
	double *times = calloc((size_t)s->repeat, sizeof(double));
	if (!times)
		return;
	for (int i = 0; i < s->repeat; i++) {
		uint64_t t0 = now_ns();
		read_fds(s, l, net, all_info, 50);
		times[i] = ms_since(t0);
	}
	report_times(label, times, s->repeat, l->n, "fds");
	free(times);
	proc_fd_list_free(l); /* the next reader starts afresh */
	proc_net_free(net);
}

static void show_fd(struct show *s)
{
	struct proc_fd_list l = { 0 };
	struct proc_net net = { 0 };
	int err;

	if (s->repeat) {
		time_fds(s, &l, &net, false, "fd pane (links, types, sockets; fdinfo of 50 visible rows)");
		time_fds(s, &l, &net, true, "fd with every fdinfo (batch output)");
	}
	err = read_fds(s, &l, &net, true, 0);
	if (err) {
		pane_error(s, "fd", err, "fd");
		goto out;
	}
	if (s->json) {
		struct json_object *o = json_object_new_object(), *cnt = json_object_new_object();
		struct json_object *arr = json_object_new_array();
		out_json_int(o, "count", (long long)l.n);
		for (int t = 0; t < FDT_COUNT; t++)
			if (l.count[t])
				out_json_int(cnt, proc_fd_type_name((enum proc_fd_type)t), (long long)l.count[t]);
		json_object_object_add(o, "by_type", cnt);
		for (size_t i = 0; i < l.n; i++) {
			const struct proc_fd *f = &l.v[i];
			struct json_object *e = json_object_new_object();
			char fl[128], desc[512];
			out_json_int(e, "fd", f->fd);
			out_json_str(e, "type", proc_fd_type_name(f->type));
			out_json_str(e, "target", f->target);
			out_json_str(e, "description", proc_fd_describe(f, &net, desc, sizeof(desc)));
			out_json_bool(e, "deleted", f->deleted);
			if (!f->info_err) {
				out_json_str(e, "flags", proc_fd_flags_str(f->info.flags, fl, sizeof(fl)));
				out_json_int(e, "flags_raw", f->info.flags);
				out_json_int(e, "pos", (long long)f->info.pos);
				out_json_int(e, "mnt_id", f->info.mnt_id);
				if (f->info.extra[0])
					out_json_str(e, "extra", f->info.extra);
			}
			const struct proc_sock *sk = f->type == FDT_SOCKET ? proc_net_find(&net, f->ino) : NULL;
			if (f->ino)
				out_json_int(e, "inode", (long long)f->ino);
			if (sk) {
				struct json_object *so = json_object_new_object();
				out_json_str(so, "proto", proc_net_proto_name(sk->proto));
				if (sk->proto == NET_NETLINK)
					out_json_str(so, "netlink_family", proc_netlink_family(sk));
				if (sk->proto == NET_UNIX) {
					out_json_str(so, "unix_type", proc_sock_unix_type(sk));
					if (sk->peer_ino)
						out_json_int(so, "peer_inode", (long long)sk->peer_ino);
					if (sk->peer_fd >= 0)
						out_json_int(so, "peer_fd", sk->peer_fd);
				}
				out_json_str(so, "local", sk->local);
				out_json_str(so, "peer", sk->peer[0] ? sk->peer : NULL);
				out_json_str(so, "state", sk->proto == NET_NETLINK ? NULL : proc_sock_state(sk));
				json_object_object_add(e, "socket", so);
			}
			json_object_array_add(arr, e);
		}
		json_object_object_add(o, "fds", arr);
		json_object_object_add(s->jpanes, "fd", o);
		goto out;
	}
	section(s, "fd", "/proc/PID/fd + fdinfo, net/{unix,udp,udp6,netlink,tcp,tcp6}; needs ptrace-read access");
	printf("%5s %-8s %-22s %12s  %s\n", "FD", "TYPE", "FLAGS", "POS", "TARGET");
	for (size_t i = 0; i < l.n; i++) {
		const struct proc_fd *f = &l.v[i];
		char fl[128], desc[512];
		printf("%5d %-8s %-22s %12llu  %s\n", f->fd, proc_fd_type_name(f->type),
		       f->info_err ? "?" : proc_fd_flags_str(f->info.flags, fl, sizeof(fl)), f->info.pos,
		       esc(proc_fd_describe(f, &net, desc, sizeof(desc))));
	}
	printf("%zu fds:", l.n);
	for (int t = 0; t < FDT_COUNT; t++)
		if (l.count[t])
			printf(" %s %zu", proc_fd_type_name((enum proc_fd_type)t), l.count[t]);
	printf("\n");
out:
	proc_fd_list_free(&l);
	proc_net_free(&net);
}

static void show_maps(struct show *s)
{
	struct proc_maps m = { 0 };
	struct proc_map_agg *agg = NULL;
	size_t nagg = 0;
	double *times = s->repeat ? calloc((size_t)s->repeat, sizeof(double)) : NULL;
	int err = 0;

	for (int i = 0; i <= s->repeat; i++) {
		uint64_t t0 = now_ns();
		err = proc_maps_read(s->t.dirfd, s->smaps, &m);
		if (i && times)
			times[i - 1] = ms_since(t0);
	}
	if (err) {
		pane_error(s, "maps", err, s->smaps ? "smaps" : "maps");
		goto out;
	}
	if (times)
		report_times(s->smaps ? "maps (smaps)" : "maps", times, s->repeat, m.n, "mappings");
	if (proc_maps_aggregate(&m, &agg, &nagg) < 0)
		nagg = 0;
	if (s->json) {
		struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
		struct json_object *files = json_object_new_array();
		out_json_int(o, "count", (long long)m.n);
		out_json_bool(o, "smaps", m.smaps);
		for (size_t i = 0; i < m.n; i++) {
			const struct proc_map *p = &m.v[i];
			struct json_object *e = json_object_new_object();
			char b[32];
			snprintf(b, sizeof(b), "%llx", p->start);
			out_json_str(e, "start", b);
			snprintf(b, sizeof(b), "%llx", p->end);
			out_json_str(e, "end", b);
			out_json_str(e, "perms", p->perms);
			out_json_int(e, "offset", (long long)p->offset);
			snprintf(b, sizeof(b), "%02x:%02x", p->dev_major, p->dev_minor);
			out_json_str(e, "dev", b);
			out_json_int(e, "inode", (long long)p->inode);
			out_json_str(e, "path", p->path);
			out_json_bool(e, "deleted", p->deleted);
			out_json_int(e, "size_kb", (long long)((p->end - p->start) / 1024));
			if (m.smaps) {
				kb_json(e, "rss_kb", p->rss_kb);
				kb_json(e, "pss_kb", p->pss_kb);
				kb_json(e, "swap_kb", p->swap_kb);
				kb_json(e, "dirty_kb", p->dirty_kb);
			}
			json_object_array_add(arr, e);
		}
		json_object_object_add(o, "maps", arr);
		for (size_t i = 0; i < nagg; i++) {
			struct json_object *e = json_object_new_object();
			out_json_str(e, "path", agg[i].path);
			out_json_int(e, "mappings", (long long)agg[i].count);
			out_json_int(e, "size_kb", (long long)agg[i].size_kb);
			if (m.smaps) {
				kb_json(e, "rss_kb", agg[i].rss_kb);
				kb_json(e, "pss_kb", agg[i].pss_kb);
				kb_json(e, "swap_kb", agg[i].swap_kb);
				kb_json(e, "dirty_kb", agg[i].dirty_kb);
			}
			json_object_array_add(files, e);
		}
		json_object_object_add(o, "files", files);
		json_object_object_add(s->jpanes, "maps", o);
		goto out;
	}
	section(s, "maps", m.smaps ? "/proc/PID/smaps; needs ptrace-read access" : "/proc/PID/maps; needs ptrace-read access");
	printf("%-33s %-4s %8s %5s %10s %9s", "RANGE", "PERM", "OFFSET", "DEV", "INODE", "SIZE_KB");
	if (m.smaps)
		printf(" %8s %8s %8s", "RSS_KB", "PSS_KB", "SWAP_KB");
	printf("  PATH\n");
	for (size_t i = 0; i < m.n; i++) {
		const struct proc_map *p = &m.v[i];
		printf("%016llx-%016llx %-4s %08llx %02x:%02x %10llu %9llu", p->start, p->end, p->perms, p->offset,
		       p->dev_major, p->dev_minor, p->inode, (p->end - p->start) / 1024);
		if (m.smaps)
			printf(" %8ld %8ld %8ld", p->rss_kb, p->pss_kb, p->swap_kb);
		printf("  %s\n", esc(proc_map_name(p)));
	}
	printf("%zu mappings\n\nPer file (like pmap -x):\n%9s %9s", m.n, "MAPPINGS", "SIZE_KB");
	if (m.smaps)
		printf(" %8s %8s %8s %8s", "RSS_KB", "PSS_KB", "SWAP_KB", "DIRTY_KB");
	printf("  PATH\n");
	for (size_t i = 0; i < nagg; i++) {
		printf("%9zu %9llu", agg[i].count, agg[i].size_kb);
		if (m.smaps)
			printf(" %8ld %8ld %8ld %8ld", agg[i].rss_kb, agg[i].pss_kb, agg[i].swap_kb, agg[i].dirty_kb);
		printf("  %s\n", esc(agg[i].path));
	}
out:
	free(times);
	free(agg);
	proc_maps_free(&m);
}

static void show_mem(struct show *s)
{
	struct proc_rollup r;
	int err = proc_rollup_read(s->t.dirfd, &r);

	if (err && s->kthread) {
		if (s->json)
			json_object_object_add(s->jpanes, "mem", json_object_new_object());
		else
			section(s, "mem", "/proc/PID/smaps_rollup"), printf("kernel thread: no user address space\n");
		return;
	}
	if (err) {
		pane_error(s, "mem", err, "smaps_rollup");
		return;
	}
	if (s->json) {
		struct json_object *o = json_object_new_object();
		for (int i = 0; i < RU_COUNT; i++)
			kb_json(o, proc_rollup_json((enum proc_rollup_field)i), r.kb[i]);
		json_object_object_add(s->jpanes, "mem", o);
		return;
	}
	section(s, "mem", "/proc/PID/smaps_rollup; needs ptrace-read access");
	for (int i = 0; i < RU_COUNT; i++)
		kb_text(proc_rollup_key((enum proc_rollup_field)i), r.kb[i]);
}

static void show_threads(struct show *s)
{
	struct proc_threads a = { 0 }, b = { 0 };
	int err = proc_threads_read(s->t.dirfd, &b);
	bool rates = false;

	if (!err && s->interval > 0) {
		struct proc_threads tmp = a;
		a = b;
		b = tmp;
		struct timespec ts = { (time_t)s->interval, (long)((s->interval - (long)s->interval) * 1e9) };
		nanosleep(&ts, NULL);
		err = proc_threads_read(s->t.dirfd, &b);
		if (!err) {
			proc_threads_rates(&a, &b);
			rates = true;
		}
	}
	if (err) {
		pane_error(s, "threads", err, "task");
		goto out;
	}
	if (s->json) {
		struct json_object *arr = json_object_new_array();
		for (size_t i = 0; i < b.n; i++) {
			const struct proc_thread *t = &b.v[i];
			struct json_object *e = json_object_new_object();
			char st[2] = { t->state, 0 }, buf[96];
			out_json_int(e, "tid", t->tid);
			out_json_str(e, "name", t->comm);
			out_json_str(e, "state", st);
			if (rates)
				out_json_double(e, "cpu_pct", t->cpu_pct);
			out_json_int(e, "cpu", t->processor);
			out_json_str(e, "wchan", t->wchan[0] ? t->wchan : NULL);
			out_json_str(e, "syscall", proc_thread_syscall_str(t, buf, sizeof(buf)));
			if (t->syscall_nr >= 0) {
				out_json_int(e, "syscall_nr", t->syscall_nr);
				snprintf(buf, sizeof(buf), "0x%llx", t->syscall_args[0]);
				out_json_str(e, "syscall_arg0", buf);
			}
			out_json_int(e, "voluntary_ctxt_switches", (long long)t->vol_ctxt);
			out_json_int(e, "nonvoluntary_ctxt_switches", (long long)t->nonvol_ctxt);
			if (t->have_schedstat) {
				out_json_int(e, "run_ns", (long long)t->run_ns);
				out_json_int(e, "runqueue_wait_ns", (long long)t->wait_ns);
				if (rates)
					out_json_double(e, "runqueue_wait_ms_per_s", t->wait_ms_per_s);
			}
			json_object_array_add(arr, e);
		}
		json_object_object_add(s->jpanes, "threads", arr);
		goto out;
	}
	section(s, "threads", "/proc/PID/task/TID/{stat,status,syscall,wchan,schedstat}");
	printf("%7s %-16s %s %6s %3s %-20s %-28s %9s %9s %8s\n", "TID", "NAME", "S", "CPU%", "CPU", "WCHAN", "SYSCALL",
	       "VOLCSW", "INVOLCSW", "RQ_MS/S");
	for (size_t i = 0; i < b.n; i++) {
		const struct proc_thread *t = &b.v[i];
		char sc[96];
		printf("%7d %-16s %c %6.1f %3d %-20s %-28s %9lu %9lu %8.1f\n", (int)t->tid, esc(t->comm), t->state,
		       t->cpu_pct, t->processor, t->wchan[0] ? esc(t->wchan) : "-",
		       proc_thread_syscall_str(t, sc, sizeof(sc)), t->vol_ctxt, t->nonvol_ctxt, t->wait_ms_per_s);
	}
	printf("%zu threads\n", b.n);
out:
	proc_threads_free(&a);
	proc_threads_free(&b);
}

static int parse_panes(const char *arg, int *panes)
{
	char buf[128], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "status"))
			*panes |= P_STATUS;
		else if (!strcmp(tok, "fd") || !strcmp(tok, "fds"))
			*panes |= P_FD;
		else if (!strcmp(tok, "maps"))
			*panes |= P_MAPS;
		else if (!strcmp(tok, "mem") || !strcmp(tok, "memory"))
			*panes |= P_MEM;
		else if (!strcmp(tok, "threads"))
			*panes |= P_THREADS;
		else if (!strcmp(tok, "all"))
			*panes |= P_ALL;
		else
			return -1;
	}
	return 0;
}

static void show_init(void *state)
{
	struct show *s = state;

	s->interval = 0.2;
}

static int show_option(void *state, int opt, const char *arg)
{
	struct show *s = state;
	char *end;

	switch (opt) {
	case 'p':
		if (parse_panes(arg, &s->panes) < 0)
			return cmd_bad_value("show", "unknown pane '%s' (status, fd, maps, mem, threads, all)", arg);
		break;
	case 'j':
		s->json = true;
		break;
	case 'S':
		s->smaps = true;
		break;
	case 'i':
		s->interval = strtod(arg, &end);
		if (*end || end == arg || s->interval < 0 || s->interval > 60)
			return cmd_bad_value("show", "invalid interval '%s' (seconds, 0..60)", arg);
		break;
	case 'r':
		s->repeat = (int)strtol(arg, &end, 10);
		if (*end || end == arg || s->repeat < 0 || s->repeat > 10000)
			return cmd_bad_value("show", "invalid repeat count '%s' (0..10000)", arg);
		break;
	}
	return 0;
}

static int show_exec(void *state, pid_t pid)
{
	struct show s = *(struct show *)state;
	struct ps_error e;
	struct proc_info hdr;

	if (!s.panes)
		s.panes = P_STATUS;
	ps_error_clear(&e);
	if (target_open(&s.t, pid, NULL, &e) < 0)
		return cmd_fail("show", &e);
	int r = proc_info_read(s.t.dirfd, &hdr);
	if (r < 0) {
		char what[64];
		snprintf(what, sizeof(what), "read /proc/%d/status", (int)pid);
		door_refused(&e, PS_OP_READ_PROC, pid, r, what);
		target_close(&s.t);
		return cmd_fail("show", &e);
	}
	/* The whole command line (the header read keeps 4 KiB of it); if it
	 * cannot be read whole, what is shown says it was cut. */
	if (proc_read_nul_list(pid, hdr.stat.starttime, "cmdline", ' ', &s.cmdline, &e) < 0 || !s.cmdline) {
		s.cmdline = NULL;
		s.cmdline_cut = strlen(hdr.cmdline) >= sizeof(hdr.cmdline) - 1;
	}
	ps_error_clear(&e);
	struct json_object *root = NULL;
	if (s.json) {
		root = json_object_new_object();
		s.jpanes = json_object_new_object();
		out_json_int(root, "pid", pid);
		out_json_str(root, "name", hdr.stat.comm);
		out_json_int(root, "starttime_ticks", (long long)hdr.stat.starttime);
		out_json_str(root, "user", hdr.user);
		out_json_str(root, "cmdline", s.cmdline ? s.cmdline : hdr.cmdline);
		if (s.cmdline_cut)
			json_object_object_add(root, "cmdline_truncated", json_object_new_boolean(1));
	} else {
		char rss[32];
		printf("PID %d (%s)  user %s  state %c (%s)  threads %ld  RSS %s  up %.0f s\n", (int)pid,
		       esc(hdr.stat.comm), esc(hdr.user), hdr.stat.state, proc_state_name(hdr.stat.state),
		       hdr.stat.num_threads,
		       human_bytes((unsigned long long)(hdr.status.vm_rss > 0 ? hdr.status.vm_rss : 0) * 1024, rss, sizeof(rss)),
		       hdr.uptime_s);
		const char *cl = s.cmdline ? s.cmdline : hdr.cmdline;
		fputs("Command: ", stdout);
		if (cl[0])
			print_escaped(cl);
		else
			fputs("(none: kernel thread or zombie)", stdout);
		if (s.cmdline_cut)
			printf(" [cut at %zu bytes]", sizeof(hdr.cmdline) - 1);
		putchar('\n');
	}
	s.kthread = hdr.kthread;
	if (s.panes & P_STATUS)
		show_status(&s);
	if (s.panes & P_FD)
		show_fd(&s);
	if (s.panes & P_MAPS)
		show_maps(&s);
	if (s.panes & P_MEM)
		show_mem(&s);
	if (s.panes & P_THREADS)
		show_threads(&s);
	/* The process may have gone (or its PID been reused) while we read:
	 * say so rather than print a mix of two processes. */
	struct proc_info last;
	if (hdr.stat.state != 'Z' &&
	    (proc_info_read(s.t.dirfd, &last) < 0 || last.stat.starttime != hdr.stat.starttime || proc_info_exited(&last))) {
		ps_error_set(&e, ESRCH, "process %d has exited while it was being read", (int)pid);
		target_close(&s.t);
		free(s.cmdline);
		if (root)
			json_object_put(root);
		return cmd_fail("show", &e);
	}
	target_close(&s.t);
	free(s.cmdline);
	if (root) {
		json_object_object_add(root, "panes", s.jpanes);
		out_json_print(stdout, root, 1);
	}
	return s.failed;
}

static const struct option show_options[] = {
	{ "pane", required_argument, NULL, 'p' }, { "json", no_argument, NULL, 'j' },
	{ "smaps", no_argument, NULL, 'S' },      { "interval", required_argument, NULL, 'i' },
	{ "repeat", required_argument, NULL, 'r' }, { NULL, 0, NULL, 0 },
};

const struct cmd_entry cmd_show_entry = {
	.name = "show",
	.args = "PID [--pane NAME] [--json] [--smaps] [--interval SEC] [--repeat N]",
	.help = N_("One snapshot of the detail panes of process PID.\n"
		   "  --pane NAME      status, fd, maps, mem, threads or all (default: status);\n"
		   "                   repeatable or comma-separated\n"
		   "  --json           JSON output (field names: man pscope, JSON OUTPUT)\n"
		   "  --smaps          maps: read smaps for per-mapping Rss/Pss/Swap (slow)\n"
		   "  --interval SEC   status/threads: sample twice SEC apart for rates (default 0.2; 0: none)\n"
		   "  --repeat N       re-read the panes N times and print the read times to stderr\n"),
	.shortopts = "p:jSi:r:",
	.options = show_options,
	.pid = CMD_PID_REQUIRED,
	.state_size = sizeof(struct show),
	.init = show_init,
	.option = show_option,
	.exec = show_exec,
};
