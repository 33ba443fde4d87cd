/* pscope doors [PID] [--json]: what the kernel lets pscope do here, and for
 * one process each operation probed for real. */
#include "cmd/cmd.h"
#include "i18n.h"
#include "doors/doors.h"
#include "doors/report.h"
#include "out/escape.h"
#include "out/json.h"
#include "out/save.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct doors_opts {
	bool json;
	const char *report; /* --report FILE */
};

static struct json_object *json_caps(unsigned long long caps)
{
	struct json_object *a = json_object_new_array();

	for (int c = 0; c <= 63; c++)
		if ((caps >> c) & 1)
			json_object_array_add(a, json_object_new_string(door_cap_name(c)));
	return a;
}

/* A knob: its value (null when absent) and its meaning. */
static void json_knob(struct json_object *o, const char *key, long v, bool present, const char *meaning)
{
	struct json_object *k = json_object_new_object();

	if (!present)
		json_object_object_add(k, "value", NULL);
	else
		out_json_int(k, "value", v);
	out_json_str(k, "meaning", meaning);
	json_object_object_add(o, key, k);
}

static struct json_object *json_error(const struct ps_error *e)
{
	struct json_object *o = json_object_new_object();

	out_json_str(o, "message", e->msg);
	out_json_str(o, "door", e->door != DOOR_NONE ? door_name(e->door) : NULL);
	out_json_str(o, "fix", e->fix[0] ? e->fix : NULL);
	return o;
}

static const char *const op_keys[PS_OP_COUNT] = {
	[PS_OP_READ_PROC] = "read_proc", [PS_OP_READ_IO] = "read_io", [PS_OP_READ_MEM] = "read_mem", [PS_OP_ATTACH] = "attach",
	[PS_OP_SAMPLE] = "sample",       [PS_OP_CORE] = "core",         [PS_OP_SIGNAL] = "signal",
};

static int print_json(FILE *f, const struct door_report *r)
{
	struct json_object *root = json_object_new_object(), *sys = json_object_new_object();
	struct json_object *self = json_object_new_object(), *tools = json_object_new_array();
	const struct door_facts_sys *s = &r->sys;

	out_json_str(sys, "kernel", s->kernel);
	out_json_bool(sys, "yama", s->k.ptrace_scope >= 0);
	json_knob(sys, "ptrace_scope", s->k.ptrace_scope, s->k.ptrace_scope >= 0, door_ptrace_scope_meaning(s->k.ptrace_scope));
	json_knob(sys, "perf_event_paranoid", s->k.perf_paranoid, true,
		  door_perf_paranoid_meaning(s->k.perf_paranoid, s->debian_kernel));
	json_knob(sys, "kptr_restrict", s->k.kptr_restrict, s->k.kptr_restrict >= 0, door_kptr_restrict_meaning(s->k.kptr_restrict));
	out_json_str(sys, "core_pattern", s->core_pattern);
	if (s->k.perf_max_sample_rate >= 0)
		out_json_int(sys, "perf_event_max_sample_rate", s->k.perf_max_sample_rate);
	else
		json_object_object_add(sys, "perf_event_max_sample_rate", NULL);
	if (s->perf_mlock_kb >= 0)
		out_json_int(sys, "perf_event_mlock_kb", s->perf_mlock_kb);
	json_knob(sys, "suid_dumpable", s->suid_dumpable, s->suid_dumpable >= 0, door_suid_dumpable_meaning(s->suid_dumpable));
	if (s->pmu >= 0)
		out_json_bool(sys, "hardware_pmu", s->pmu);
	else
		json_object_object_add(sys, "hardware_pmu", NULL);
	out_json_str(sys, "hardware_pmu_probe", s->pmu_err ? strerror(s->pmu_err) : "opened");
	out_json_bool(sys, "debian_kernel", s->debian_kernel);
	json_object_object_add(root, "system", sys);

	out_json_int(self, "pid", r->self.pid);
	out_json_int(self, "uid", r->self.uid);
	out_json_int(self, "euid", r->self.euid);
	out_json_int(self, "gid", r->self.gid);
	json_object_object_add(self, "cap_effective", json_caps(r->self.cap_eff));
	json_object_object_add(self, "cap_permitted", json_caps(r->self.cap_prm));
	out_json_int(self, "seccomp", r->self.seccomp);
	out_json_str(self, "seccomp_meaning", door_seccomp_meaning(r->self.seccomp));
	out_json_int(self, "no_new_privs", r->self.no_new_privs);
	json_object_object_add(root, "self", self);

	if (r->have_target) {
		const struct door_facts_target *t = &r->target;
		struct json_object *tg = json_object_new_object(), *ops = json_object_new_object();

		out_json_int(tg, "pid", t->pid);
		out_json_str(tg, "comm", t->comm);
		out_json_int(tg, "uid", t->uid);
		out_json_int(tg, "euid", t->euid);
		out_json_int(tg, "suid", t->suid);
		out_json_int(tg, "gid", t->gid);
		if (t->dumpable >= 0)
			out_json_bool(tg, "dumpable", t->dumpable);
		else
			json_object_object_add(tg, "dumpable", NULL);
		out_json_int(tg, "tracer_pid", t->tracer_pid);
		out_json_str(tg, "tracer_comm", t->tracer_pid > 0 ? t->tracer_comm : NULL);
		out_json_str(tg, "cgroup", t->cgroup.path[0] ? t->cgroup.path : NULL);
		out_json_str(tg, "systemd_unit", t->cgroup.unit[0] ? t->cgroup.unit : NULL);
		out_json_str(tg, "systemd_slice", t->cgroup.slice[0] ? t->cgroup.slice : NULL);
		if (t->coredump_filter >= 0)
			out_json_int(tg, "coredump_filter", t->coredump_filter);
		else
			json_object_object_add(tg, "coredump_filter", NULL);
		out_json_bool(tg, "user_memory", !t->no_mm);
		json_object_object_add(root, "target", tg);

		for (int op = 0; op < PS_OP_COUNT; op++) {
			const struct door_probe *p = &r->ops[op];
			struct json_object *o = json_object_new_object();

			out_json_str(o, "name", ps_op_name(op));
			out_json_str(o, "state", p->state == DOOR_OPEN ? "open" : p->state == DOOR_CLOSED ? "closed" : "n/a");
			out_json_bool(o, "allowed", p->state == DOOR_OPEN);
			out_json_str(o, "probe", p->how);
			out_json_str(o, "note", p->note[0] ? p->note : NULL);
			json_object_object_add(o, "refused", p->state == DOOR_OPEN ? NULL : json_error(&p->err));
			json_object_object_add(ops, op_keys[op], o);
		}
		json_object_object_add(root, "operations", ops);
		out_json_str(root, "core_dir", r->core_dir);
		if (r->core_dir_free >= 0)
			out_json_int(root, "core_dir_free", r->core_dir_free);
	}
	for (size_t i = 0; i < door_tools_count; i++) {
		struct json_object *o = json_object_new_object();

		out_json_str(o, "tool", door_tools[i].tool);
		out_json_str(o, "syscalls", door_tools[i].syscalls);
		out_json_str(o, "permission", door_tools[i].permission);
		out_json_str(o, "expected_own", door_tool_expect(&door_tools[i], r, false));
		out_json_str(o, "expected_other_users", door_tool_expect(&door_tools[i], r, true));
		json_object_array_add(tools, o);
	}
	json_object_object_add(root, "tools", tools);
	out_json_int(root, "probed_at", r->probed_at);
	return out_json_print(f, root, 1) < 0 || ferror(f) ? -EIO : 0;
}

static int print_text(const struct door_report *r)
{
	struct door_lines l = { 0 };
	int rc = 0;

	if (door_render(r, 0, &l) < 0) {
		fprintf(stderr, _("pscope doors: out of memory\n"));
		rc = 1;
	}
	for (size_t i = 0; i < l.n; i++)
		printf("%s\n", esc(l.v[i].text));
	door_lines_free(&l);
	return rc;
}

static int doors_option(void *state, int opt, const char *arg)
{
	struct doors_opts *o = state;

	if (opt == 'j')
		o->json = true;
	else if (opt == 'r') {
		if (!arg[0])
			return cmd_bad_value("doors", _("--report needs a file name, not '%s'"), arg);
		o->report = arg;
	}
	return 0;
}

static int write_json(FILE *f, void *arg)
{
	return print_json(f, arg);
}

static int doors_exec(void *state, pid_t pid)
{
	struct doors_opts *o = state;
	struct door_report r;
	struct ps_error e;

	ps_error_clear(&e);
	if (door_report_build(&r, pid, NULL, &e) < 0)
		return cmd_fail("doors", &e);
	if (o->report) {
		if ((o->json ? out_save(o->report, write_json, &r, &e) : door_report_save(o->report, &r, &e)) < 0)
			return cmd_fail("doors", &e);
		printf(_("Doors report written to %s\n"), esc(o->report));
		return 0;
	}
	if (o->json)
		return print_json(stdout, &r) < 0;
	return print_text(&r);
}

static const struct option doors_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "report", required_argument, NULL, 'r' },
	{ NULL, 0, NULL, 0 },
};

const struct cmd_entry cmd_doors_entry = {
	.name = "doors",
	.args = "[PID] [--json] [--report FILE]",
	.help = N_("What the kernel lets pscope do here: the sysctls, capabilities and\n"
		   "seccomp mode that guard ptrace, process_vm_readv and perf_event_open.\n"
		   "With PID, each operation (read /proc, read memory, attach, sample,\n"
		   "write a core, signal) is probed for real, harmlessly, on that process,\n"
		   "and a refusal names the door and the fix.\n"
		   "  -j, --json          print the report as JSON\n"
		   "  -r, --report=FILE   write it to FILE for a classroom, atomically: every door's\n"
		   "                      state, what it blocks and how to open it, which tool needs\n"
		   "                      which door here and in a pod without capabilities\n"
		   "                      (Markdown in the language of the messages; JSON with -j)\n"),
	.shortopts = "jr:",
	.options = doors_options,
	.pid = CMD_PID_OPTIONAL,
	.state_size = sizeof(struct doors_opts),
	.option = doors_option,
	.exec = doors_exec,
};
