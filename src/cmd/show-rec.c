/* pscope show -r FILE [--at TIME] PID: what a recording holds of process
 * PID in one interval: its row of the process list (state, memory, CPU%,
 * I/O and context-switch rates from the interval before, cgroup), its
 * children then, and its children that started and exited within the
 * interval. The live panes that read more than the list (fd, maps, mem,
 * threads, time) are not recorded, and are said to be. */
#include "cmd/show-rec.h"
#include "cmd/cmd.h"
#include "cmd/rec-out.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/json.h"
#include "pane/pane.h"
#include "proc/info.h"
#include "proc/ptable.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static double up_s(const struct snap_list *s, const struct proc_row *r)
{
	return s->times.hz > 0 ? s->sys.uptime - (double)r->starttime / (double)s->times.hz : 0;
}

/* A label padded to 16 columns (of the screen: a Korean one too), as the
 * live status pane's. */
static void label(const char *s)
{
	printf("%s ", pad(s, 16));
}

static void kb_line(const char *name, unsigned long long kb)
{
	char h[32];
	label(name);
	printf("%10llu kB  %s\n", kb, human_bytes(kb * 1024, h, sizeof(h)));
}

static void text(const struct rec_out *ro, const struct proc_row *r, unsigned not_recorded)
{
	const struct snap_list *s = ro->s;
	const struct proc_extra *x = proc_row_extra(r);
	char b[64], c[64];

	printf(_("PID %d (%s)  user %s  state %c (%s)  threads %ld  RSS %s  up %.0f s\n"), (int)r->pid, esc(r->comm),
	       esc(r->user), r->state, _(proc_state_name(r->state)), r->nlwp, human_bytes(r->res_kb * 1024, b, sizeof(b)),
	       up_s(s, r));
	printf("%s%s", _("Command: "), r->cmdline ? esc(r->cmdline) : _("(none: kernel thread or zombie)"));
	if (r->cmdline_cut)
		printf(_(" [cut at %zu bytes of %zu]"), r->cmdline ? strlen(r->cmdline) : 0, r->cmdline_len);
	printf("\n\n== status  %s\n", _("(source: the recording's row of the process list; rates over the interval before)"));
	label(_("State"));
	printf("%c (%s)\n", r->state, _(proc_state_name(r->state)));
	printf("%-16s %d\n", "PPid", (int)r->ppid);
	printf("%-16s %u (%s)\n", "Uid", (unsigned)r->uid, esc(r->user));
	label(_("Threads"));
	printf("%ld\n", r->nlwp);
	label(_("Priority"));
	printf("%s  nice %ld\n", proc_fmt_pri(r->priority, b, sizeof(b)), r->nice);
	kb_line("VmSize", r->virt_kb);
	kb_line("VmRSS", r->res_kb);
	kb_line(_("Shared"), r->shr_kb);
	label(_("Memory"));
	printf("%.1f%%\n", r->mem);
	label(_("Major faults"));
	printf("%lu\n", r->majflt);
	label(_("CPU"));
	if (s->interval > 0)
		printf(_("%.1f%%  (time %s)\n"), r->cpu, proc_fmt_time(r->ticks, s->times.hz, b, sizeof(b)));
	else
		printf(_("- (the first interval: no rates)  (time %s)\n"), proc_fmt_time(r->ticks, s->times.hz, b, sizeof(b)));
	label(_("Last CPU"));
	printf("%d\n", r->processor);
	printf("%-16s %s\n", "TTY", proc_fmt_tty(r->tty_nr, b, sizeof(b)));
	bool rates = s->interval > 0;
	if (r->x && x->ctxt_ns) {
		label(_("Context switches"));
		if (rates)
			printf("%llu  (%.1f/s)\n", x->ctxt, x->ctxt_rate);
		else
			printf("%llu\n", x->ctxt);
	}
	if (r->x && (x->io_err || x->io_ns))
		label(_("Storage I/O"));
	if (r->x && !x->io_err && x->io_ns && rates)
		printf(_("read %s/s  write %s/s  (read_bytes %llu, write_bytes %llu)\n"),
		       proc_fmt_rate(x->io_read_rate, b, sizeof(b)), proc_fmt_rate(x->io_write_rate, c, sizeof(c)), x->io_rb,
		       x->io_wb);
	else if (r->x && !x->io_err && x->io_ns)
		printf("read_bytes %llu, write_bytes %llu\n", x->io_rb, x->io_wb);
	else if (r->x && x->io_err)
		printf(_("not read: %s\n"), strerror(x->io_err < 0 ? -x->io_err : x->io_err));
	if (r->x && x->oom >= 0)
		printf("%-16s %d\n", "oom_score", x->oom);
	if (x->cgroup)
		printf("%-16s %s\n", "Cgroup", esc(x->cgroup));
	if (x->container[0]) {
		label(_("Container"));
		printf("%s\n", esc(x->container));
	}
	if (s->times.btime && s->times.hz > 0) {
		label(_("Started"));
		printf(_("%s (up %.0f s)\n"),
		       rec_fmt_time((double)s->times.btime + (double)r->starttime / (double)s->times.hz, b, sizeof(b)),
		       up_s(s, r));
	}

	printf("\n== %s\n", _("children in this interval"));
	int kids = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct proc_row *k = s->rows[i];
		if (k->ppid == r->pid && !k->is_thread) {
			if (s->interval > 0)
				printf("%7d %c %5.1f%% %s\n", (int)k->pid, k->state, k->cpu, esc(k->cmdline ? k->cmdline : k->comm));
			else
				printf("%7d %c     - %s\n", (int)k->pid, k->state, esc(k->cmdline ? k->cmdline : k->comm));
			kids++;
		}
	}
	if (!kids)
		printf("%s\n", _("(none)"));
	if (!s->rec.exits_on) {
		printf("%s\n", _("(short-lived children were not recorded: pscope record ran without CAP_NET_ADMIN)"));
	} else {
		int n = 0;
		for (size_t i = 0; i < s->nexits; i++)
			n += s->exits[i].ppid == r->pid;
		printf("%s%s\n", _("short-lived (started and exited in this interval):"), n ? "" : _(" none"));
		for (size_t i = 0; i < s->nexits; i++) {
			const struct snap_exit *e = &s->exits[i];
			if (e->ppid != r->pid)
				continue;
			if (e->status & 0x7f)
				snprintf(b, sizeof(b), "SIG%d", e->status & 0x7f);
			else
				snprintf(b, sizeof(b), "%d", (e->status >> 8) & 0xff);
			printf(_("%7d %-16s lifetime %.3f s  CPU %.3f s  exit %s\n"), (int)e->pid, esc(e->comm), e->end - e->start,
			       e->cpu, b);
		}
	}
	if (not_recorded) {
		char names[256] = "";
		for (int i = 0; i < PANE_COUNT; i++)
			if (not_recorded & (1u << i)) {
				if (names[0])
					strncat(names, ", ", sizeof(names) - strlen(names) - 1);
				strncat(names, pane_descs[i]->name, sizeof(names) - strlen(names) - 1);
			}
		printf("\n== %s: %s\n", names, _("not recorded (a recording holds the process list and the short-lived processes)"));
	}
}

static struct json_object *json(const struct rec_out *ro, const struct proc_row *r, unsigned not_recorded)
{
	const struct snap_list *s = ro->s;
	const struct proc_extra *x = proc_row_extra(r);
	struct json_object *root = json_object_new_object(), *st = json_object_new_object(), *a;
	bool rates = s->interval > 0;

	out_json_process(root, r->pid, r->starttime, r->comm, r->user, r->cmdline ? r->cmdline : "");
	json_object_object_add(root, "recording", rec_out_json(ro));
	out_json_str(st, "state", (char[]){ r->state, 0 });
	out_json_str(st, "state_name", proc_state_name(r->state));
	out_json_int(st, "ppid", r->ppid);
	out_json_int(st, "uid", r->uid);
	out_json_str(st, "user", r->user);
	out_json_int(st, "threads", r->nlwp);
	out_json_int(st, "priority", r->priority);
	out_json_int(st, "nice", r->nice);
	out_json_int(st, "vm_size_kb", (long long)r->virt_kb);
	out_json_int(st, "vm_rss_kb", (long long)r->res_kb);
	out_json_int(st, "shared_kb", (long long)r->shr_kb);
	out_json_double(st, "mem_pct", r->mem);
	out_json_int(st, "major_faults", (long long)r->majflt);
	out_json_int(st, "cpu_ticks", (long long)r->ticks);
	if (rates)
		out_json_double(st, "cpu_pct", r->cpu);
	else
		json_object_object_add(st, "cpu_pct", NULL);
	out_json_int(st, "processor", r->processor);
	out_json_int(st, "tty_nr", r->tty_nr);
	out_json_bool(st, "cmdline_cut", r->cmdline_cut);
	if (r->x && x->ctxt_ns) {
		out_json_int(st, "ctxt_switches", (long long)x->ctxt);
		if (rates)
			out_json_double(st, "ctxt_switches_per_s", x->ctxt_rate);
	}
	if (r->x && !x->io_err && x->io_ns) {
		out_json_int(st, "read_bytes", (long long)x->io_rb);
		out_json_int(st, "write_bytes", (long long)x->io_wb);
		if (rates) {
			out_json_double(st, "read_bytes_per_s", x->io_read_rate);
			out_json_double(st, "write_bytes_per_s", x->io_write_rate);
		}
	}
	if (r->x && x->oom >= 0)
		out_json_int(st, "oom_score", x->oom);
	if (x->cgroup)
		out_json_str(st, "cgroup", x->cgroup);
	if (x->container[0])
		out_json_str(st, "container", x->container);
	out_json_double(st, "up_s", up_s(s, r));
	a = json_object_new_array();
	for (size_t i = 0; i < s->n; i++)
		if (s->rows[i]->ppid == r->pid && !s->rows[i]->is_thread)
			json_object_array_add(a, json_object_new_int(s->rows[i]->pid));
	json_object_object_add(st, "children", a);
	if (s->rec.exits_on) {
		a = json_object_new_array();
		for (size_t i = 0; i < s->nexits; i++) {
			const struct snap_exit *e = &s->exits[i];
			if (e->ppid != r->pid)
				continue;
			struct json_object *q = json_object_new_object();
			out_json_int(q, "pid", e->pid);
			out_json_str(q, "comm", e->comm);
			out_json_double(q, "lifetime", e->end - e->start);
			out_json_double(q, "cpu_s", e->cpu);
			if (e->status & 0x7f)
				out_json_int(q, "signal", e->status & 0x7f);
			else
				out_json_int(q, "exit_code", (e->status >> 8) & 0xff);
			json_object_array_add(a, q);
		}
		json_object_object_add(st, "short_lived_children", a);
	}
	struct json_object *panes = json_object_new_object();
	json_object_object_add(panes, "status", st);
	json_object_object_add(root, "panes", panes);
	a = json_object_new_array();
	for (int i = 0; i < PANE_COUNT; i++)
		if (not_recorded & (1u << i))
			json_object_array_add(a, json_object_new_string(pane_descs[i]->name));
	json_object_object_add(root, "not_recorded", a);
	return root;
}

int show_recorded(const char *path, const char *at, pid_t pid, unsigned panes, bool as_json)
{
	struct rec_out ro;
	struct ps_error e;
	int rc = rec_out_open("show", path, at, &ro);

	if (rc)
		return rc;
	const struct proc_row *r = snap_list_find(ro.s, pid);
	if (!r) {
		char t[64];
		ps_error_set(&e, ESRCH, _("process %d is not in the recording's interval %zu (%s)"), (int)pid, ro.i + 1,
			     rec_fmt_time(ro.s->h.wall, t, sizeof(t)));
		rec_out_close(&ro);
		return cmd_fail("show", &e);
	}
	unsigned not_recorded = panes & ~(1u << PANE_ID_status);
	if (as_json) {
		out_json_print(stdout, json(&ro, r, not_recorded), 1);
	} else {
		rec_out_line(&ro);
		text(&ro, r, not_recorded);
	}
	rec_out_close(&ro);
	return 0;
}
