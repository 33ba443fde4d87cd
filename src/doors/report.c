/* pscope doors --report: the doors of this machine as a Markdown handout. */
#include "doors/report.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/save.h"
#include "util.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum row_state { ROW_OPEN, ROW_LIMITED, ROW_CLOSED };

static const char *state_word(enum row_state s)
{
	switch (s) {
	case ROW_OPEN: return _("open");
	case ROW_LIMITED: return _("limited");
	default: return _("CLOSED");
	}
}

/* door_tool_expect()'s words, as the reader reads them. */
static const char *expect_word(const char *w)
{
	if (!strcmp(w, "open"))
		return _("open");
	if (!strcmp(w, "closed"))
		return _("CLOSED");
	if (!strcmp(w, "user space only"))
		return _("user space only");
	if (!strcmp(w, "descendants only"))
		return _("descendants only");
	return w;
}

/* A hostile string made safe for a Markdown table cell: escaped, and no
 * '|' (the cell separator) or backquote. */
static void cell(FILE *f, const char *s)
{
	for (const char *p = esc(s); *p; p++) {
		if (*p == '|')
			fputs("\\|", f);
		else if (*p == '`')
			fputs("\\`", f);
		else
			fputc(*p, f);
	}
}

/* Our own text in a table cell: only '|' needs a backslash there. */
static void text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

static bool have(const struct door_report *r, int c)
{
	return (r->self.cap_eff >> c) & 1;
}

const char *door_tool_expect_pod(const struct door_tool *t, const struct door_report *r)
{
	struct door_report pod = *r;

	/* No capabilities at all, and perf_event_open refused whatever the
	 * sysctl says (the runtime's seccomp profile): as Debian's paranoid 3. */
	pod.self.cap_eff = pod.self.cap_prm = 0;
	pod.sys.k.perf_paranoid = 3;
	pod.sys.debian_kernel = true;
	return door_tool_expect(t, &pod, false);
}

/* One door: its state for pscope as it runs and, when that differs, for a
 * user without capabilities (what the students will meet). */
static void row2(FILE *f, const char *door, enum row_state s, enum row_state user, const char *here,
		 const char *blocks, const char *open)
{
	fprintf(f, "| `%s` | **%s**: ", door, state_word(s));
	cell(f, here);
	if (user != s)
		fprintf(f, _("; for users without capabilities: **%s**"), state_word(user));
	fputs(" | ", f);
	text(f, blocks);
	fputs(" | ", f);
	text(f, open);
	fputs(" |\n", f);
}

static void row(FILE *f, const char *door, enum row_state s, const char *here, const char *blocks, const char *open)
{
	row2(f, door, s, s, here, blocks, open);
}

static enum row_state scope_state(long scope, bool ptrace_cap)
{
	if (scope <= 0)
		return ROW_OPEN;
	if (scope >= 3)
		return ROW_CLOSED;
	return ptrace_cap ? ROW_OPEN : scope == 1 ? ROW_LIMITED : ROW_CLOSED;
}

static enum row_state paranoid_state(long p, bool debian, bool perfmon)
{
	if (perfmon || p <= 1)
		return ROW_OPEN;
	return p == 2 || (p >= 3 && !debian) ? ROW_LIMITED : ROW_CLOSED;
}

static enum row_state kptr_state(long k, bool syslog)
{
	return k <= 0 || (k == 1 && syslog) ? ROW_OPEN : ROW_CLOSED;
}

static void door_rows(FILE *f, const struct door_report *r)
{
	const struct door_facts_sys *s = &r->sys;
	long scope = s->k.ptrace_scope, p = s->k.perf_paranoid, k = s->k.kptr_restrict;
	bool ptrace_cap = have(r, CAP_SYS_PTRACE), perfmon = have(r, CAP_PERFMON) || have(r, CAP_SYS_ADMIN);
	char here[512];

	fprintf(f, "| %s | %s | %s | %s |\n|---|---|---|---|\n", _("door"), _("here"), _("what it blocks"),
		_("how to open it"));

	if (scope < 0)
		snprintf(here, sizeof(here), "%s", _("Yama not present: only uid, dumpable and capabilities count"));
	else
		snprintf(here, sizeof(here), "%ld", scope);
	row2(f, "kernel.yama.ptrace_scope", scope_state(scope, ptrace_cap), scope_state(scope, false), here,
	    _("ptrace attach and process_vm_readv: stacks (s), cores (C), Python stacks and samples, "
	      "py-spy, gdb -p, gcore, strace -p. At 1 only a process's ancestors may attach, "
	      "at 2 only CAP_SYS_PTRACE, at 3 nobody"),
	    _("`sysctl -w kernel.yama.ptrace_scope=0` as root (at 1 and 2 root or CAP_SYS_PTRACE also "
	      "passes; 3 holds until a reboot)"));

	snprintf(here, sizeof(here), "%ld%s", p, p >= 3 && s->debian_kernel ? _(" (Debian/Ubuntu kernel)") : "");
	row2(f, "kernel.perf_event_paranoid", paranoid_state(p, s->debian_kernel, perfmon),
	     paranoid_state(p, s->debian_kernel, false), here,
	    _("perf_event_open: hot functions (h), pscope top, perf record/top. At 2 user space only, "
	      "at 3 (Debian) nothing for users; sampling every CPU (perf top, perf record -a) needs <= 0"),
	    _("`sysctl -w kernel.perf_event_paranoid=1` (0 for a whole machine), or CAP_PERFMON; "
	      "root passes"));

	snprintf(here, sizeof(here), "%ld", k);
	row2(f, "kernel.kptr_restrict", kptr_state(k, have(r, CAP_SYSLOG)), kptr_state(k, false), here,
	    _("kernel addresses in /proc/kallsyms: the names of kernel frames in samples (perf, "
	      "bpftrace kstack, pscope's [kernel] rows)"),
	    _("`sysctl -w kernel.kptr_restrict=0` (at 1, CAP_SYSLOG also passes)"));

	row(f, "kernel.core_pattern", s->core_pattern[0] == '|' ? ROW_LIMITED : ROW_OPEN, s->core_pattern,
	    s->core_pattern[0] == '|'
		    ? _("crash cores go to the program after '|', not to a file: `pscope cores` says where "
			"that handler keeps them (coredumpctl, apport)")
		    : _("crash cores are written as this name in the crashing process's directory, "
			"once `ulimit -c` allows them (it is 0 in most shells)"),
	    /* xgettext:no-c-format */
	    _("`ulimit -c unlimited` in the shell that starts the program; as root "
	      "`sysctl -w kernel.core_pattern=core.%p` for plain files. pscope core does not need it"));

	if (s->suid_dumpable >= 0) {
		snprintf(here, sizeof(here), "%ld", s->suid_dumpable);
		row(f, "fs.suid_dumpable", s->suid_dumpable == 0 ? ROW_CLOSED : ROW_OPEN, here,
		    _("crash cores of setuid programs and of processes that made themselves not dumpable"),
		    _("`sysctl -w fs.suid_dumpable=2` (cores readable by root only)"));
	}
	if (s->perf_mlock_kb >= 0) {
		snprintf(here, sizeof(here), "%ld kB", s->perf_mlock_kb);
		row(f, "kernel.perf_event_mlock_kb", have(r, CAP_IPC_LOCK) ? ROW_OPEN : ROW_LIMITED, here,
		    _("perf ring buffers a user may lock: sampling many threads at once"),
		    _("`sysctl -w kernel.perf_event_mlock_kb=2048`, or CAP_IPC_LOCK"));
	}
	row(f, "CAP_SYS_PTRACE", ptrace_cap ? ROW_OPEN : ROW_CLOSED, ptrace_cap ? _("held") : _("not held"),
	    _("other users' processes and processes that are not dumpable (setuid programs): "
	      "their /proc/PID/fd and maps, stacks, cores, py-spy, gdb"),
	    _("run as root, or `setcap cap_sys_ptrace+ep pscope`; in a pod, "
	      "`securityContext.capabilities.add: [SYS_PTRACE]`"));
	row(f, "CAP_PERFMON", perfmon ? ROW_OPEN : ROW_CLOSED, perfmon ? _("held") : _("not held"),
	    _("perf_event_open past kernel.perf_event_paranoid, and in a container past the runtime's "
	      "seccomp profile"),
	    _("run as root, or `setcap cap_perfmon+ep pscope`; in a pod, add PERFMON"));
	row(f, "CAP_BPF", have(r, CAP_SYS_ADMIN) || (have(r, CAP_BPF) && have(r, CAP_PERFMON)) ? ROW_OPEN : ROW_CLOSED,
	    have(r, CAP_BPF) ? _("held") : _("not held"),
	    _("bpf(2): bpftrace and every BPF tracer (with CAP_PERFMON for its probes)"),
	    _("run as root; in a pod, a privileged container"));
	snprintf(here, sizeof(here), "%d", r->self.seccomp);
	row(f, "seccomp", r->self.seccomp == 2 ? ROW_LIMITED : r->self.seccomp == 1 ? ROW_CLOSED : ROW_OPEN, here,
	    _("a filter on pscope itself (a container's) may refuse ptrace, process_vm_readv, "
	      "perf_event_open and bpf, even to root"),
	    _("run outside the sandbox, or give the container a profile that allows them "
	      "(`seccompProfile: Unconfined`)"));
}

static void tool_rows(FILE *f, const struct door_report *r)
{
	fprintf(f, "| %s | %s | %s | %s | %s | %s |\n|---|---|---|---|---|---|\n", _("tool"), _("kernel calls"),
		_("door"), _("your processes"), _("other users'"), _("pod without capabilities"));
	for (size_t i = 0; i < door_tools_count; i++) {
		const struct door_tool *t = &door_tools[i];

		fputs("| ", f);
		text(f, _(t->tool));
		fputs(" | ", f);
		text(f, _(t->syscalls));
		fputs(" | ", f);
		text(f, _(t->permission));
		fprintf(f, " | %s | %s | %s |\n", expect_word(door_tool_expect(t, r, false)),
			expect_word(door_tool_expect(t, r, true)), expect_word(door_tool_expect_pod(t, r)));
	}
}

static void target_rows(FILE *f, const struct door_report *r)
{
	const struct door_facts_target *t = &r->target;

	fprintf(f, "\n## %s %d (", _("Process"), (int)t->pid);
	cell(f, t->comm);
	fprintf(f, ")\n\n");
	fputs(_("Each operation was tried on it, harmlessly: the process was never stopped.\n\n"), f);
	fprintf(f, "| %s | %s | %s | %s | %s |\n|---|---|---|---|---|\n", _("operation"), _("result"), _("why"), _("door"),
		_("how to open it"));
	for (int op = 0; op < PS_OP_COUNT; op++) {
		const struct door_probe *p = &r->ops[op];

		fprintf(f, "| %s | **%s** ", _(ps_op_name(op)),
			p->state == DOOR_OPEN ? _("open") : p->state == DOOR_CLOSED ? _("CLOSED") : _("n/a"));
		if (p->note[0]) {
			fputs("(", f);
			cell(f, p->note);
			fputs(") ", f);
		}
		fputs("| ", f);
		if (p->state != DOOR_OPEN)
			cell(f, p->err.msg);
		fputs(" | ", f);
		if (p->state != DOOR_OPEN && p->err.door != DOOR_NONE)
			cell(f, _(door_name(p->err.door)));
		fputs(" | ", f);
		if (p->state != DOOR_OPEN)
			cell(f, p->err.fix);
		fputs(" |\n", f);
	}
}

int door_report_markdown(FILE *f, const struct door_report *r, const char *host)
{
	char when[64];
	time_t tt = (time_t)r->probed_at;
	struct tm tm;

	localtime_r(&tt, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
	fprintf(f, "# %s\n\n", _("pscope doors report"));
	if (host) {
		fprintf(f, "- %s: ", _("machine"));
		cell(f, host);
		fputc('\n', f);
	}
	fprintf(f, "- %s: ", _("kernel"));
	cell(f, r->sys.kernel);
	fprintf(f, "\n- %s: %s\n", _("probed"), when);
	fprintf(f, _("- pscope ran as uid %u; effective capabilities: %d of %d\n"), (unsigned)r->self.euid,
		__builtin_popcountll(r->self.cap_eff & ((2ull << DOOR_CAP_LAST) - 1)), DOOR_CAP_LAST + 1);
	fprintf(f, "- %s: %s\n\n", _("hardware PMU"),
		r->sys.pmu == 1 ? _("yes: sampling counts cycles")
		: r->sys.pmu == 0 ? _("no: sampling uses the cpu-clock software event")
				  : _("cannot tell"));
	fputs(_("A door is a kernel check every inspecting tool goes through. **open**: "
		     "pscope, run like this, passes it; **limited**: it passes in part; **CLOSED**: "
		     "it is refused. Run the report again as the students' user to see what they "
		     "will meet.\n\n"), f);
	/* the glossary's 문 in Korean, where the TUI's D key reads 권한 */
	fprintf(f, "## %s\n\n", C_("report heading", "Doors"));
	door_rows(f, r);
	fprintf(f, "\n## %s\n\n", _("Which tool needs which door"));
	fputs(_("Expected from the doors above (not tried). A pod without capabilities: "
		     "`capabilities: drop: [ALL]` and the runtime's default seccomp profile "
		     "(RuntimeDefault), on this machine's sysctls; it sees only its own "
		     "processes. That profile refuses perf_event_open and bpf: perf and bpftrace "
		     "fail there, while reading memory (pscope stack, the CPython sampler, py-spy) "
		     "still works on the pod's own processes.\n\n"), f);
	tool_rows(f, r);
	if (r->have_target)
		target_rows(f, r);
	return ferror(f) ? -EIO : 0;
}

static int write_markdown(FILE *f, void *arg)
{
	char host[256];

	if (gethostname(host, sizeof(host)) < 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	return door_report_markdown(f, arg, host[0] ? host : NULL);
}

int door_report_save(const char *path, const struct door_report *r, struct ps_error *e)
{
	return out_save(path, write_markdown, (void *)r, e);
}
