/* pscope list: one snapshot of the process table, like `top -b -n 1`. */
#include "cmd/cmd.h"
#include "cmd/rec-out.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/json.h"
#include "proc/ptable.h"
#include "proc/sysinfo.h"
#include "record/record.h"
#include "source/source.h"
#include "settings.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void tree_prefix(const struct proc_view_row *r, char *buf, size_t size)
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

struct list_args {
	int key;
	bool tree, threads, json, kthreads;
	double interval;
	int cols[PSORT_COUNT], ncols; /* -o; 0: pscoperc's (the screen's) columns */
	const char *recording, *at; /* -r FILE --at TIME: a recorded interval */
};

/* Rows hidden (kernel threads, unless --kthreads). */
static bool keep_row(const struct proc_row *r, void *arg)
{
	const struct list_args *a = arg;
	return a->kthreads || !r->is_kthread;
}

/* The PX_* reads the chosen columns need (JSON always has shr_kb). */
static unsigned extras(const struct list_args *a)
{
	unsigned px = a->json ? PX_SHR : 0;
	for (int i = 0; i < a->ncols; i++)
		px |= proc_sort_extra((enum proc_sort)a->cols[i]);
	return px;
}

/* Column i's width: a last left-aligned one is not padded (nothing is
 * ever cut); COMMAND elsewhere than last is padded to 32. */
static int col_width(const struct list_args *a, int i)
{
	const struct proc_col *pc = &proc_cols[a->cols[i]];

	if (i == a->ncols - 1 && (pc->left || !pc->width))
		return 0;
	return pc->width ? pc->width : 32;
}

/* A recorded interval's short-lived processes: started and exited in it. */
static void print_exits_text(const struct snap_list *s)
{
	if (!s->rec.exits_on) {
		printf("%s\n", _("(short-lived processes were not recorded: pscope record ran without CAP_NET_ADMIN)"));
		return;
	}
	if (!s->nexits)
		return;
	printf(P_("%zu short-lived process (started and exited in this interval):\n",
		  "%zu short-lived processes (started and exited in this interval):\n", (unsigned long)s->nexits),
	       s->nexits);
	printf("    PID    PPID COMMAND          %s\n", _("LIFETIME     CPU  EXIT"));
	for (size_t i = 0; i < s->nexits; i++) {
		const struct snap_exit *x = &s->exits[i];
		char st[32];
		if (x->status & 0x7f)
			snprintf(st, sizeof(st), "SIG%d", x->status & 0x7f);
		else
			snprintf(st, sizeof(st), "%d", (x->status >> 8) & 0xff);
		printf("%7d %7d %-16s %7.3fs %6.3fs  %s\n", (int)x->pid, (int)x->ppid, esc(x->comm), x->end - x->start, x->cpu,
		       st);
	}
}

static void print_text(const struct snap_list *s, const struct proc_view *v, double interval, const struct list_args *a,
		       const struct rec_out *rec)
{
	const struct sys_snapshot *sys = &s->sys;
	struct ptable_counts c = s->counts;
	char x[32], y[32], up[64];

	if (rec)
		rec_out_line(rec);
	/* The Tasks line (its message ends the line: the hidden count goes
	 * before that end). */
	char tasks[512];
	int tl = snprintf(tasks, sizeof(tasks), _("Tasks: %d, %d thr, %d kthr; %d running   Load average: %.2f %.2f %.2f   Uptime: %s\n"),
			  c.procs, c.threads, c.kthreads, ptable_running(&c, sys->ncpu), sys->load.load[0], sys->load.load[1],
			  sys->load.load[2], sys_fmt_uptime(sys->uptime, up, sizeof(up)));
	if (tl > 0 && (size_t)tl < sizeof(tasks) && tasks[tl - 1] == '\n')
		tasks[tl - 1] = '\0';
	fputs(tasks, stdout);
	if (!a->kthreads && c.kthreads)
		printf(P_("   (%d kernel thread hidden: --kthreads)", "   (%d kernel threads hidden: --kthreads)",
			  (unsigned long)c.kthreads),
		       c.kthreads);
	printf("\n");
	printf(_("Mem: %s used of %s"), human_kib(sys->mem.used, x, sizeof(x)), human_kib(sys->mem.total, y, sizeof(y)));
	unsigned long long sused = sys->mem.swap_total - sys->mem.swap_free; /* as the screen: less SwapCached */
	printf(_("   Swap: %s used of %s"), human_kib(sused > sys->mem.swap_cached ? sused - sys->mem.swap_cached : 0, x, sizeof(x)),
	       human_kib(sys->mem.swap_total, y, sizeof(y)));
	if (interval > 0)
		printf(P_("   CPU: %.1f%% busy over %.1f s (%d CPU)\n", "   CPU: %.1f%% busy over %.1f s (%d CPUs)\n", sys->ncpu), sys->total.busy * 100, interval, sys->ncpu);
	else
		printf(_("   CPUs: %d\n"), sys->ncpu);
	/* Titles and cells in the columns' widths (col_width). */
	for (int i = 0; i < a->ncols; i++) {
		const struct proc_col *pc = &proc_cols[a->cols[i]];
		int w = col_width(a, i);
		printf("%s%*s", i ? " " : "", pc->left ? -w : w, proc_sort_title((enum proc_sort)a->cols[i]));
	}
	printf("\n");
	for (size_t k = 0; k < v->n; k++) {
		const struct proc_row *r = v->v[k].r;
		for (int i = 0; i < a->ncols; i++) {
			enum proc_sort col = (enum proc_sort)a->cols[i];
			const struct proc_col *pc = &proc_cols[col];
			int w = col_width(a, i);
			char b[4200], pfx[256] = "", u9[64];
			const char *t = proc_row_cell(&s->times, r, col, b, sizeof(b));
			if (col == PSORT_USER) {
				t = user9(r->user, u9);
			} else if (col == PSORT_COMMAND) {
				/* whole (esc() stops at 4 KiB), with the cut mark */
				static char e[4 * sizeof(b)];
				proc_row_command_shown(r, b, sizeof(b));
				esc_display(b, strlen(b), e, sizeof(e));
				t = e;
				tree_prefix(&v->v[k], pfx, sizeof(pfx));
			} else {
				t = esc(t);
			}
			printf("%s%s%*s", i ? " " : "", pfx, pc->left ? -w : w, t);
		}
		printf("\n");
	}
	if (rec)
		print_exits_text(s);
}

static double round1(double x)
{
	return round(x * 10) / 10;
}

/* The chosen columns beyond the fields every process has. */
static void add_columns(struct json_object *o, const struct snap_list *s, const struct proc_row *r,
			const struct list_args *a)
{
	const struct proc_extra *x = proc_row_extra(r);
	char b[64];

	for (int i = 0; i < a->ncols; i++) {
		switch (a->cols[i]) {
		case PSORT_PGRP: out_json_int(o, "pgrp", r->pgrp); break;
		case PSORT_SID: out_json_int(o, "sid", r->session); break;
		case PSORT_TTY: out_json_str(o, "tty", r->tty_nr ? proc_fmt_tty(r->tty_nr, b, sizeof(b)) : NULL); break;
		case PSORT_PROCESSOR: out_json_int(o, "processor", r->processor); break;
		case PSORT_STARTTIME: {
			unsigned long long bt = s->times.btime;
			if (bt)
				out_json_int(o, "start_epoch", (long long)(bt + r->starttime / (unsigned long long)s->times.hz));
			break;
		}
		case PSORT_IO_READ:
			if (!x->io_err)
				out_json_double(o, "io_read_bps", round1(x->io_read_rate));
			break;
		case PSORT_IO_WRITE:
			if (!x->io_err)
				out_json_double(o, "io_write_bps", round1(x->io_write_rate));
			break;
		case PSORT_IO_RATE:
			if (!x->io_err)
				out_json_double(o, "io_bps", round1(x->io_read_rate + x->io_write_rate));
			break;
		case PSORT_IO_RBYTES:
			if (x->io_ns)
				out_json_int(o, "io_read_bytes", (long long)x->io_rb);
			break;
		case PSORT_IO_WBYTES:
			if (x->io_ns)
				out_json_int(o, "io_write_bytes", (long long)x->io_wb);
			break;
		case PSORT_IO_PRIO:
			if (x->ioprio_ok)
				out_json_str(o, "io_priority", proc_fmt_ioprio(r, b, sizeof(b)));
			break;
		case PSORT_MAJFLT: out_json_int(o, "majflt", (long long)r->majflt); break;
		case PSORT_CTXT: out_json_double(o, "ctxt_per_s", round1(x->ctxt_rate)); break;
		case PSORT_OOM:
			if (x->oom >= 0)
				out_json_int(o, "oom_score", x->oom);
			break;
		case PSORT_CGROUP: out_json_str(o, "cgroup", x->cgroup); break;
		case PSORT_CONTAINER: out_json_str(o, "container", x->container[0] ? x->container : NULL); break;
		default: break;
		}
	}
}

static void print_json(const struct snap_list *s, const struct proc_view *v, double interval, const char *sort,
		       const struct list_args *a, const struct rec_out *rec)
{
	bool tree = a->tree, threads = a->threads;
	struct json_object *root = json_object_new_object(), *o, *arr;
	const struct sys_snapshot *sys = &s->sys;
	struct ptable_counts c = s->counts;
	long hz = s->times.hz;

	out_json_double(root, "interval", interval);
	if (rec) {
		json_object_object_add(root, "recording", rec_out_json(rec));
		struct json_object *ex = json_object_new_array();
		for (size_t i = 0; i < s->nexits; i++) {
			const struct snap_exit *x = &s->exits[i];
			struct json_object *q = json_object_new_object();
			out_json_int(q, "pid", x->pid);
			out_json_int(q, "ppid", x->ppid);
			out_json_int(q, "uid", x->uid);
			out_json_str(q, "comm", x->comm);
			out_json_double(q, "start", x->start);
			out_json_double(q, "end", x->end);
			out_json_double(q, "lifetime", x->end - x->start);
			out_json_double(q, "cpu_s", x->cpu);
			if (x->status & 0x7f)
				out_json_int(q, "signal", x->status & 0x7f);
			else
				out_json_int(q, "exit_code", (x->status >> 8) & 0xff);
			json_object_array_add(ex, q);
		}
		json_object_object_add(root, "short_lived", ex);
	}
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
	out_json_int(o, "kernel_threads_hidden", a->kthreads ? 0 : c.kthreads);
	out_json_int(o, "running", ptable_running(&c, sys->ncpu));
	json_object_object_add(root, "tasks", o);
	arr = json_object_new_array();
	for (int i = 0; i < a->ncols; i++)
		json_object_array_add(arr, json_object_new_string(proc_sort_name((enum proc_sort)a->cols[i])));
	json_object_object_add(root, "columns", arr);
	arr = json_object_new_array();
	for (size_t i = 0; i < v->n; i++) {
		const struct proc_row *r = v->v[i].r;
		char cmd[4200], st[2] = { r->state, 0 };
		o = json_object_new_object();
		out_json_process(o, r->pid, r->starttime, r->comm, r->user, r->cmdline);
		if (r->cmdline_cut) { /* as pscope show --json says it */
			out_json_bool(o, "cmdline_truncated", true);
			if (r->cmdline_len)
				out_json_int(o, "cmdline_bytes", (long long)r->cmdline_len);
		}
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
			out_json_int(o, "depth", v->v[i].depth);
		if (rec && r->read_ns) /* when its counters were read (its rates' ends) */
			out_json_double(o, "read_at", s->h.wall + (double)(int64_t)(r->read_ns - s->h.t_ns) / 1e9);
		add_columns(o, s, r, a);
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "processes", arr);
	out_json_print(stdout, root, 1);
}

static void list_init(void *state)
{
	struct list_args *a = state;

	a->key = PSORT_CPU;
	a->interval = 0.5;
	a->ncols = -1; /* pscoperc's, at exec */
}

/* Every column name, for the messages. */
static const char *column_names(char *buf, size_t size)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int k = 0; k < PSORT_COUNT && o < size; k++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s", k ? ", " : "", proc_sort_name((enum proc_sort)k));
	return buf;
}

static int list_option(void *state, int opt, const char *arg)
{
	struct list_args *a = state;
	char *end;

	switch (opt) {
	case 's':
		a->key = proc_sort_parse(arg);
		if (a->key < 0) {
			char keys[512], msg[1024];
			proc_sort_list(keys, sizeof(keys), 0, 0);
			snprintf(msg, sizeof(msg), _("unknown sort key '%s' (one of: %s)"), arg, keys);
			return cmd_bad_value("list", "%s", msg);
		}
		break;
	case 'o': {
		char names[512], msg[1024];
		a->ncols = proc_cols_parse(arg, a->cols, PSORT_COUNT);
		if (a->ncols < 0) {
			snprintf(msg, sizeof(msg), _("invalid column list '%s' (each once, of: %s)"), arg,
				 column_names(names, sizeof(names)));
			return cmd_bad_value("list", "%s", msg);
		}
		break;
	}
	case 'k': a->kthreads = true; break;
	case 't': a->tree = true; break;
	case 'H': a->threads = true; break;
	case 'j': a->json = true; break;
	case 'r': a->recording = arg; break;
	case 'a': a->at = arg; break;
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
	struct pscope_config cfg;
	char path[4096];
	double interval = a->interval;
	struct ps_error e;

	(void)pid_unused;
	/* The columns and kernel threads as the screen has them (pscoperc);
	 * a broken file is said on stderr and the defaults are used. */
	cfg_defaults(&cfg);
	if (cfg_path(path, sizeof(path)) == 0) {
		struct ps_error ce;
		ps_error_clear(&ce);
		if (cfg_load(path, &cfg, &ce) < 0)
			fprintf(stderr, _("pscope list: %s (ignored)\n"), ce.msg);
	}
	if (a->ncols < 0) {
		memcpy(a->cols, cfg.columns, sizeof(a->cols));
		a->ncols = cfg.ncolumns;
	}
	if (!cfg.hide_kthreads)
		a->kthreads = true;
	struct source src;
	struct source_want w = { .threads = threads, .px_all = extras(a) };
	static atomic_bool never = false;
	struct source_io io = { .cancel = &never };
	struct snap_head *first = NULL, *second = NULL;
	const struct snap_list *s;
	struct proc_view v = { 0 };
	int rc = 1, r;

	struct rec_out rec = { 0 };

	ps_error_clear(&e);
	memset(&src, 0, sizeof(src));
	if (a->at && !a->recording)
		return cmd_usage_error("list", "%s", _("--at names a time of a recording: give it with -r FILE"));
	if (a->recording) {
		if ((rc = rec_out_open("list", a->recording, a->at, &rec)) != 0)
			return rc;
		second = snap_get(&rec.s->h);
		rc = 1;
		interval = 1;
		goto have;
	}
	if ((r = source_live_list(&src, &ps_clock_live, false)) < 0) {
		ps_error_set(&e, -r, _("cannot read /proc: %s"), strerror(-r));
		goto out;
	}
	/* Two snapshots interval apart: the rates of the second. */
	if (src.ops->read(src.st, &io, &w, NULL, true, &first, &e) < 0)
		goto out;
	second = snap_get(first);
	if (interval > 0) {
		struct timespec ts = { (time_t)interval, (long)((interval - (double)(time_t)interval) * 1e9) };
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		snap_put(second);
		second = NULL;
		if (src.ops->read(src.st, &io, &w, first, true, &second, &e) < 0)
			goto out;
	}
have:
	s = (const struct snap_list *)second;
	if (!s->have_sys) {
		ps_error_set(&e, EIO, _("cannot read the system counters in /proc"));
		goto out;
	}
	if (snap_list_order(s, (enum proc_sort)key, proc_sort_desc_default((enum proc_sort)key), tree, keep_row, a, &v) < 0) {
		ps_error_set(&e, ENOMEM, _("out of memory"));
		goto out;
	}
	if (json)
		print_json(s, &v, interval > 0 ? s->interval : 0, proc_sort_name((enum proc_sort)key), a, rec.f ? &rec : NULL);
	else
		print_text(s, &v, interval > 0 ? s->interval : 0, a, rec.f ? &rec : NULL);
	rc = 0;
out:
	if (rc)
		rc = cmd_fail("list", &e);
	proc_view_free(&v);
	snap_put(first);
	snap_put(second);
	source_close(&src);
	rec_out_close(&rec);
	return rc;
}

/* After --help: the sort keys, from the table they are parsed with. */
static void list_help_more(FILE *f)
{
	char keys[1024];

	proc_sort_list(keys, sizeof(keys), 2, 78);
	fprintf(f, "\n%s\n%s", _("Sort keys (each is also a column name for --columns):"), keys);
}

static const struct option list_options[] = {
	{ "sort", required_argument, NULL, 's' },   { "tree", no_argument, NULL, 't' },
	{ "threads", no_argument, NULL, 'H' },      { "interval", required_argument, NULL, 'i' },
	{ "json", no_argument, NULL, 'j' },         { "columns", required_argument, NULL, 'o' },
	{ "kthreads", no_argument, NULL, 'k' },     { "recording", required_argument, NULL, 'r' },
	{ "at", required_argument, NULL, 'a' },     { NULL, 0, NULL, 0 },
};

const struct cmd_entry cmd_list_entry = {
	.name = "list",
	.args = "[--sort KEY] [--tree] [--threads] [--kthreads] [--columns LIST] [--interval SEC] [--json]\n"
		"[-r FILE [--at TIME]]",
	.help = N_("Print one snapshot of every process, like `top -b -n 1`.\n"
		   "\n"
		   "  -s, --sort=KEY       sort by KEY, one of the keys below (default cpu);\n"
		   "                       numbers biggest first\n"
		   "  -t, --tree           parents before their children, indented\n"
		   "  -H, --threads        one row per thread as well\n"
		   "  -k, --kthreads       list kernel threads too (hidden by default, as on the\n"
		   "                       screen; the Tasks line counts them either way)\n"
		   "  -o, --columns=LIST   the columns, like ps -o: names or titles separated by\n"
		   "                       commas (pid,user,ppid,cpu,io_read_rate,command...);\n"
		   "                       default: the screen's (pscoperc, F2)\n"
		   "  -i, --interval=SEC   measure CPU% over SEC seconds (default 0.5; 0: no CPU%)\n"
		   "      --json           JSON instead of text\n"
		   "  -r, --recording=FILE an interval of a recording (pscope record) instead of\n"
		   "                       now: its rates from the interval before it\n"
		   "  -a, --at=TIME        which one: HH:MM[:SS], YYYY-MM-DD HH:MM[:SS], +30s from\n"
		   "                       the start, -10m from the end (default: the last); the\n"
		   "                       nearest interval is used, and named\n"
		   "  -h, --help           display this help and exit\n"),
	.help_more = list_help_more,
	.shortopts = "s:tHi:o:kr:a:",
	.options = list_options,
	.pid = CMD_PID_NONE,
	.state_size = sizeof(struct list_args),
	.init = list_init,
	.option = list_option,
	.exec = list_exec,
};
