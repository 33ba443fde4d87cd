/* pscope list: one snapshot of the process table, like `top -b -n 1`. */
#include "cmd/cmd.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/json.h"
#include "proc/ptable.h"
#include "proc/sysinfo.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void tree_prefix(const struct proc_row *r, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int d = 1; d < r->depth && o + 8 < size; d++)
		o += (size_t)snprintf(buf + o, size - o, "%s",
				      d <= 32 && (r->tree_more & (1u << (d - 1))) ? "\u2502  " : "   ");
	if (r->depth > 0 && o + 8 < size)
		snprintf(buf + o, size - o, "%s", r->tree_last ? "\u2514\u2500 " : "\u251c\u2500 ");
}

/* The escaped user name cut to 9 bytes, never inside a UTF-8 character. */
static const char *user9(const char *user, char *buf)
{
	size_t n = strlcpy_ps(buf, esc(user), 64);

	if (n > 9) {
		n = 9;
		while (n > 0 && ((unsigned char)buf[n] & 0xc0) == 0x80)
			n--;
		buf[n] = '\0';
	}
	return buf;
}

static void print_text(struct ptable *pt, const struct proc_view *v, const struct sys_snapshot *sys,
		       double interval)
{
	struct ptable_counts c;
	char a[32], b[32], up[64];
	long hz = proc_hz();

	ptable_counts(pt, &c);
	printf(_("Tasks: %d, %d thr, %d kthr; %d running   Load average: %.2f %.2f %.2f   Uptime: %s\n"),
	       c.procs, c.threads, c.kthreads, sys->load.running, sys->load.load[0], sys->load.load[1],
	       sys->load.load[2], sys_fmt_uptime(sys->uptime, up, sizeof(up)));
	printf(_("Mem: %s used of %s"), human_bytes(sys->mem.used * 1024, a, sizeof(a)),
	       human_bytes(sys->mem.total * 1024, b, sizeof(b)));
	printf(_("   Swap: %s used of %s"),
	       human_bytes((sys->mem.swap_total - sys->mem.swap_free) * 1024, a, sizeof(a)),
	       human_bytes(sys->mem.swap_total * 1024, b, sizeof(b)));
	if (interval > 0)
		printf(_("   CPU: %.1f%% busy over %.1f s (%d CPUs)\n"), sys->total.busy * 100, interval, sys->ncpu);
	else
		printf(_("   CPUs: %d\n"), sys->ncpu);
	printf("%7s %-9s %3s %3s %5s %5s %5s %s %5s %5s %9s %s\n", "PID", "USER", "PRI", "NI", "VIRT", "RES",
	       "SHR", "S", "CPU%", "MEM%", "TIME+", "COMMAND");
	for (size_t i = 0; i < v->n; i++) {
		struct proc_row *r = v->v[i];
		char virt[16], res[16], shr[16], tm[32], pri[16], pfx[256], cmd[4200], u9[64];
		ptable_fill_shr(pt, r);
		tree_prefix(r, pfx, sizeof(pfx));
		printf("%7d %-9s %3s %3ld %5s %5s %5s %c %5.1f %5.1f %9s %s%s\n", (int)r->pid, user9(r->user, u9),
		       proc_fmt_pri(r->priority, pri, sizeof(pri)), r->nice,
		       proc_fmt_kb(r->virt_kb, virt, sizeof(virt)), proc_fmt_kb(r->res_kb, res, sizeof(res)),
		       proc_fmt_kb(r->shr_kb, shr, sizeof(shr)), r->state, r->cpu, r->mem,
		       proc_fmt_time(r->ticks, hz, tm, sizeof(tm)), pfx, esc(proc_row_command(r, cmd, sizeof(cmd))));
	}
}

static double round1(double x)
{
	return round(x * 10) / 10;
}

static void print_json(struct ptable *pt, const struct proc_view *v, const struct sys_snapshot *sys,
		       double interval, const char *sort, bool tree, bool threads)
{
	struct json_object *root = json_object_new_object(), *o, *arr;
	struct ptable_counts c;
	long hz = proc_hz();

	ptable_counts(pt, &c);
	out_json_double(root, "interval", interval);
	out_json_str(root, "sort", sort);
	out_json_bool(root, "tree", tree);
	out_json_bool(root, "threads", threads);
	out_json_int(root, "cpus", sys->ncpu);
	out_json_double(root, "cpu_busy", round1(sys->total.busy * 100));
	o = json_object_new_object();
	out_json_int(o, "total_kb", (long long)sys->mem.total);
	out_json_int(o, "used_kb", (long long)sys->mem.used);
	out_json_int(o, "available_kb", (long long)sys->mem.available);
	out_json_int(o, "buffers_kb", (long long)sys->mem.buffers);
	out_json_int(o, "cached_kb", (long long)(sys->mem.cached + sys->mem.sreclaimable));
	out_json_int(o, "swap_total_kb", (long long)sys->mem.swap_total);
	out_json_int(o, "swap_used_kb", (long long)(sys->mem.swap_total - sys->mem.swap_free));
	json_object_object_add(root, "memory", o);
	arr = json_object_new_array();
	for (int i = 0; i < 3; i++)
		json_object_array_add(arr, json_object_new_double(sys->load.load[i]));
	json_object_object_add(root, "load", arr);
	out_json_double(root, "uptime", sys->uptime);
	o = json_object_new_object();
	out_json_int(o, "processes", c.procs);
	out_json_int(o, "threads", c.threads);
	out_json_int(o, "kernel_threads", c.kthreads);
	out_json_int(o, "running", sys->load.running);
	json_object_object_add(root, "tasks", o);
	arr = json_object_new_array();
	for (size_t i = 0; i < v->n; i++) {
		struct proc_row *r = v->v[i];
		char cmd[4200], st[2] = { r->state, 0 };
		ptable_fill_shr(pt, r);
		o = json_object_new_object();
		out_json_process(o, r->pid, r->starttime, r->comm, r->user, r->cmdline);
		out_json_int(o, "ppid", r->ppid);
		out_json_int(o, "tgid", r->tgid);
		out_json_bool(o, "thread", r->is_thread);
		out_json_bool(o, "kernel_thread", r->is_kthread);
		out_json_int(o, "uid", r->uid);
		out_json_int(o, "priority", r->priority);
		out_json_int(o, "nice", r->nice);
		out_json_int(o, "virt_kb", (long long)r->virt_kb);
		out_json_int(o, "res_kb", (long long)r->res_kb);
		out_json_int(o, "shr_kb", (long long)r->shr_kb);
		out_json_str(o, "state", st);
		out_json_double(o, "cpu", round1(r->cpu));
		out_json_double(o, "mem", round1(r->mem));
		out_json_double(o, "time", (double)r->ticks / (double)hz);
		out_json_int(o, "nlwp", r->nlwp);
		out_json_str(o, "command", proc_row_command(r, cmd, sizeof(cmd)));
		if (tree)
			out_json_int(o, "depth", r->depth);
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "processes", arr);
	out_json_print(stdout, root, 1);
}

struct list_args {
	int key;
	bool tree, threads, json;
	double interval;
};

static void list_init(void *state)
{
	struct list_args *a = state;

	a->key = PSORT_CPU;
	a->interval = 0.5;
}

static int list_option(void *state, int opt, const char *arg)
{
	struct list_args *a = state;
	char *end;

	switch (opt) {
	case 's':
		a->key = proc_sort_parse(arg);
		if (a->key < 0)
			return cmd_bad_value("list",
					     _("unknown sort key '%s' (pid, user, pri, ni, virt, res, shr, state, cpu, mem, time, command)"),
					     arg);
		break;
	case 't': a->tree = true; break;
	case 'H': a->threads = true; break;
	case 'j': a->json = true; break;
	case 'i':
		errno = 0;
		a->interval = strtod(arg, &end);
		if (errno || end == arg || *end || !(a->interval >= 0 && a->interval <= 60))
			return cmd_bad_value("list", _("invalid interval '%s' (seconds, 0 to 60)"), arg);
		break;
	}
	return 0;
}

static int list_exec(void *state, pid_t pid_unused)
{
	struct list_args *a = state;
	int key = a->key;
	bool tree = a->tree, threads = a->threads, json = a->json;
	double interval = a->interval;
	struct ps_error e;

	(void)pid_unused;
	struct ptable *pt = ptable_new();
	struct sys_snapshot *sys = sys_snapshot_new();
	struct proc_view v = { 0 };
	int rc = 1;

	if (!pt || !sys) {
		ps_error_set(&e, errno ? errno : ENOMEM, _("cannot read /proc: %s"), strerror(errno ? errno : ENOMEM));
		goto out;
	}
	if (ptable_scan(pt, threads, &e) < 0)
		goto out;
	if (sys_snapshot_update(sys) < 0) {
		ps_error_set(&e, EIO, _("cannot read the system counters in /proc"));
		goto out;
	}
	if (interval > 0) {
		struct timespec ts = { (time_t)interval, (long)((interval - (double)(time_t)interval) * 1e9) };
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		if (ptable_scan(pt, threads, &e) < 0)
			goto out;
		if (sys_snapshot_update(sys) < 0) {
			ps_error_set(&e, EIO, _("cannot read the system counters in /proc"));
			goto out;
		}
	}
	ptable_set_mem_total(pt, sys->mem.total);
	if (ptable_order(pt, (enum proc_sort)key, proc_sort_desc_default((enum proc_sort)key), tree, NULL, NULL,
			 &v) < 0) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		goto out;
	}
	if (json)
		print_json(pt, &v, sys, interval > 0 ? ptable_interval(pt) : 0, proc_sort_name((enum proc_sort)key),
			   tree, threads);
	else
		print_text(pt, &v, sys, interval > 0 ? ptable_interval(pt) : 0);
	rc = 0;
out:
	proc_view_free(&v);
	sys_snapshot_free(sys);
	ptable_free(pt);
	return rc ? cmd_fail("list", &e) : 0;
}

static const struct option list_options[] = {
	{ "sort", required_argument, NULL, 's' },   { "tree", no_argument, NULL, 't' },
	{ "threads", no_argument, NULL, 'H' },      { "interval", required_argument, NULL, 'i' },
	{ "json", no_argument, NULL, 'j' },         { NULL, 0, NULL, 0 },
};

const struct cmd_entry cmd_list_entry = {
	.name = "list",
	.args = "[--sort KEY] [--tree] [--threads] [--interval SEC] [--json]",
	.help = N_("Print one snapshot of every process, like `top -b -n 1`.\n"
		   "\n"
		   "  -s, --sort=KEY       pid, user, pri, ni, virt, res, shr, state, cpu (default),\n"
		   "                       mem, time or command; numbers biggest first\n"
		   "  -t, --tree           parents before their children, indented\n"
		   "  -H, --threads        one row per thread as well\n"
		   "  -i, --interval=SEC   measure CPU% over SEC seconds (default 0.5; 0: no CPU%)\n"
		   "      --json           JSON instead of text\n"
		   "  -h, --help           display this help and exit\n"),
	.shortopts = "s:tHi:",
	.options = list_options,
	.pid = CMD_PID_NONE,
	.state_size = sizeof(struct list_args),
	.init = list_init,
	.option = list_option,
	.exec = list_exec,
};
