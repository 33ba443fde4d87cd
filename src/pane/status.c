/* The Status pane: identity, memory, switches and faults, capabilities,
 * seccomp, tracer, cgroup, namespaces, cwd and exe. */
#include "pane/pane.h"
#include "i18n.h"
#include "out/escape.h"
#include "i18n.h"
#include "util.h"
#include "i18n.h"
#include "proc/caps.h"
#include "proc/info.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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
	return m == 0 ? _("disabled") : m == 1 ? _("strict") : m == 2 ? _("filter") : _("unknown");
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
		return _("(none: kernel thread or exited)");
	if (err)
		return _("(unreadable: needs ptrace-read access)");
	return esc(path);
}

static void show_status(struct pane_show *s)
{
	struct proc_info a, b;
	struct proc_info_rates r;
	bool rates = false;
	int err;

	err = proc_info_read(s->dirfd, &b);
	if (!err && s->interval > 0) {
		a = b;
		pane_sleep(s->interval);
		err = proc_info_read(s->dirfd, &b);
		if (!err) {
			proc_info_rates(&a, &b, &r);
			rates = true;
		}
	}
	if (err) {
		pane_show_error(s, &pane_desc_status, err, "status");
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
		pane_kb_json(o, "vm_peak_kb", st->vm_peak);
		pane_kb_json(o, "vm_size_kb", st->vm_size);
		pane_kb_json(o, "vm_rss_kb", st->vm_rss);
		pane_kb_json(o, "rss_anon_kb", st->rss_anon);
		pane_kb_json(o, "rss_file_kb", st->rss_file);
		pane_kb_json(o, "rss_shmem_kb", st->rss_shmem);
		pane_kb_json(o, "vm_swap_kb", st->vm_swap);
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
	pane_show_section(s, &pane_desc_status, NULL);
	printf("%s %c (%s)\n", pad(_("State"), 16), b.stat.state, _(proc_state_name(b.stat.state)));
	printf("%-16s %d\n", "PPid", (int)st->ppid);
	printf(_("%-16s %u (%s) euid %u\n"), "Uid", st->uid_real, esc(b.user), st->uid_eff);
	printf(_("%-16s %u (%s) egid %u\n"), "Gid", st->gid_real, esc(b.group), st->gid_eff);
	printf("%s %ld\n", pad(_("Threads"), 16), st->threads);
	pane_kb_text("VmPeak", st->vm_peak);
	pane_kb_text("VmSize", st->vm_size);
	pane_kb_text("VmRSS", st->vm_rss);
	pane_kb_text("RssAnon", st->rss_anon);
	pane_kb_text("RssFile", st->rss_file);
	pane_kb_text("RssShmem", st->rss_shmem);
	pane_kb_text("VmSwap", st->vm_swap);
	printf("%s %lu%s", pad(_("Voluntary csw"), 16), st->voluntary_ctxt, rates ? "" : "\n");
	if (rates)
		printf("  (%.1f/s)\n", r.vol_ctxt_s);
	printf("%s %lu%s", pad(_("Involuntary csw"), 16), st->nonvoluntary_ctxt, rates ? "" : "\n");
	if (rates)
		printf("  (%.1f/s)\n", r.nonvol_ctxt_s);
	printf("%s %lu%s", pad(_("Minor faults"), 16), b.stat.minflt, rates ? "" : "\n");
	if (rates)
		printf("  (%.1f/s)\n", r.minflt_s);
	printf("%s %lu%s", pad(_("Major faults"), 16), b.stat.majflt, rates ? "" : "\n");
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
	printf(P_("%-16s %d (%s), %d filter\n", "%-16s %d (%s), %d filters\n", st->seccomp_filters), "Seccomp", st->seccomp,
	       seccomp_name(st->seccomp), st->seccomp_filters);
	printf("%-16s %d\n", "NoNewPrivs", st->no_new_privs);
	if (st->tracer_pid > 0)
		printf("%-16s %d (%s)\n", "TracerPid", (int)st->tracer_pid, esc(b.tracer_comm));
	else
		printf(_("%-16s 0 (not traced)\n"), "TracerPid");
	printf("%s %s\n", pad(_("Cpus allowed"), 16), esc(st->cpus_allowed_list));
	if (b.oom_score != INT_MIN)
		printf(_("%-16s %d (adj %d)\n"), "oom_score", b.oom_score, b.oom_score_adj);
	for (const char *l = b.cgroup, *label = "Cgroup"; *l; label = "") {
		size_t ll = strcspn(l, "\n");
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)ll, l);
		printf("%-16s %s\n", label, esc(line));
		l += ll + (l[ll] == '\n');
	}
	for (int i = 0; i < PROC_NS_COUNT; i++)
		if (b.ns[i].ino)
			printf("%s %s:[%llu]\n", pad(i ? "" : _("Namespaces"), 16), b.ns[i].name, b.ns[i].ino);
	if (st->nspid_n > 1) {
		printf("%s", pad("NSpid", 16));
		for (int i = 0; i < st->nspid_n; i++)
			printf(" %d", (int)st->nspid[i]);
		putchar('\n');
	}
	if (proc_info_in_container(&b)) {
		char ct[256];
		printf("%s %s\n", pad(_("Container"), 16), proc_info_container_text(&b, s->pid, ct, sizeof(ct)));
	}
	printf(_("%s %s (up %.0f s)\n"), pad(_("Started"), 16), start, b.uptime_s);
	printf("%-16s %s\n", "Cwd", link_text(b.cwd, b.cwd_err));
	printf("%-16s %s\n", "Exe", link_text(b.exe, b.exe_err));
}

const struct pane_desc pane_desc_status = {
	.name = "status",
	.title = N_("Status"),
	.summary = N_("identity, memory, switches, faults, capabilities"),
	.source = N_("/proc/PID/{stat,status,cgroup,ns/*,oom_score,cwd,exe}; cwd and exe need ptrace-read access"),
	.file = "status",
	.refresh_ms = 0,
	.help = "pane-status",
	.show = show_status,
};
