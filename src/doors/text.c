/* Doors as text: the tool -> door table and the report's lines, shared by
 * `pscope doors` (which escapes them) and the Doors screen (which draws
 * them through draw.c). */
#include "doors/doors.h"
#include "i18n.h"
#include "out/escape.h"
#include "util.h"

#include <linux/capability.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <time.h>

/* What a tool needs, to judge it against the facts. */
enum {
	NEED_NONE = 0,
	NEED_PTRACE_READ = 1u << 0,  /* PTRACE_MODE_READ: /proc/PID/{fd,maps,...} */
	NEED_PTRACE_ATTACH = 1u << 1, /* PTRACE_MODE_ATTACH: ptrace, process_vm_readv (+ Yama) */
	NEED_PERF_TASK = 1u << 2,    /* perf_event_open on a process, user space */
	NEED_PERF_KERNEL = 1u << 3,  /* ... with kernel frames */
	NEED_PERF_CPU = 1u << 4,     /* CPU-wide events */
	NEED_BPF = 1u << 5,          /* bpf(2) + kprobes/uprobes */
	NEED_KILL = 1u << 6,
	NEED_FILE = 1u << 7,         /* a writable output directory */
};

const struct door_tool door_tools[] = {
	{ N_("pscope list, status pane"), "read /proc/PID/stat, /proc/PID/status",
	  N_("none: world-readable"), NEED_NONE },
	{ N_("pscope fd, maps, memory panes"), "open /proc/PID/fd, maps, smaps_rollup",
	  N_("ptrace read access: same uid and dumpable, or CAP_SYS_PTRACE"), NEED_PTRACE_READ },
	{ N_("pscope I/O rate columns"), "read /proc/PID/io",
	  N_("ptrace read access: same uid and dumpable, or CAP_SYS_PTRACE"), NEED_PTRACE_READ },
	{ N_("pscope memory reads (lock owners)"), "process_vm_readv",
	  N_("ptrace attach access: same uid and dumpable, or CAP_SYS_PTRACE; Yama ptrace_scope"), NEED_PTRACE_ATTACH },
	{ N_("pscope stack dump"), "ptrace(PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_GETREGSET), process_vm_readv",
	  N_("ptrace attach access (as above); the target not traced by another tool"), NEED_PTRACE_ATTACH },
	{ N_("pscope core"), N_("ptrace (as the stack dump), process_vm_readv, open(O_EXCL|O_NOFOLLOW)"),
	  N_("ptrace attach access, and a writable directory with room for the memory"), NEED_PTRACE_ATTACH | NEED_FILE },
	{ N_("pscope hot functions"), N_("perf_event_open per thread (cycles, else cpu-clock), mmap of its ring buffer"),
	  N_("kernel.perf_event_paranoid <= 2 (user space) or <= 1 (kernel frames), or CAP_PERFMON; ptrace read access to the target"),
	  NEED_PERF_TASK | NEED_PTRACE_READ },
	{ N_("pscope hot functions, CPython"), N_("process_vm_readv of the interpreter's frames; no perf_event_open, no stop"),
	  N_("ptrace attach access (the memory read check): same uid and dumpable, or CAP_SYS_PTRACE; Yama ptrace_scope; "
	  "perf_event_paranoid does not matter"), NEED_PTRACE_ATTACH },
	{ N_("pscope kill"), "kill(2) / pidfd_send_signal", N_("same uid, or CAP_KILL"), NEED_KILL },
	{ "py-spy dump / record", N_("process_vm_readv; ptrace to pause the target (not with --nonblocking)"),
	  N_("ptrace attach access; Yama ptrace_scope"), NEED_PTRACE_ATTACH },
	{ "perf record -p PID / perf top -p", N_("perf_event_open per thread"),
	  N_("kernel.perf_event_paranoid <= 2 (user space), <= 1 (kernel), or CAP_PERFMON; ptrace read access"),
	  NEED_PERF_TASK | NEED_PTRACE_READ },
	{ "perf record -a / perf top", N_("perf_event_open per CPU"),
	  N_("kernel.perf_event_paranoid <= 0, or CAP_PERFMON; kernel.kptr_restrict for kernel symbols"), NEED_PERF_CPU },
	{ "gdb -p PID, gcore", N_("ptrace(PTRACE_ATTACH) (stops the target), /proc/PID/mem"),
	  N_("ptrace attach access; Yama ptrace_scope; the target not traced by another tool"), NEED_PTRACE_ATTACH },
	{ "strace -p PID", "ptrace(PTRACE_SEIZE)", N_("ptrace attach access; Yama ptrace_scope"), NEED_PTRACE_ATTACH },
	{ "bpftrace", "bpf(2), perf_event_open (kprobes, uprobes, tracepoints)",
	  N_("CAP_BPF and CAP_PERFMON (in practice root); kernel.unprivileged_bpf_disabled does not help"), NEED_BPF },
};
const size_t door_tools_count = ARRAY_SIZE(door_tools);

static bool cap(const struct door_report *r, int c)
{
	return (r->self.cap_eff >> c) & 1;
}

static bool perfmon(const struct door_report *r)
{
	return cap(r, CAP_PERFMON) || cap(r, CAP_SYS_ADMIN);
}

/* The paranoid level that applies to users on this kernel (3 is 2 except on
 * Debian/Ubuntu kernels). */
static long paranoid(const struct door_report *r)
{
	long p = r->sys.k.perf_paranoid;
	return p >= 3 && !r->sys.debian_kernel ? 2 : p;
}

const char *door_tool_expect(const struct door_tool *t, const struct door_report *r, bool other_user)
{
	bool ptrace_cap = cap(r, CAP_SYS_PTRACE);
	long scope = r->sys.k.ptrace_scope;
	const char *limit = NULL;

	if ((t->need & (NEED_PTRACE_READ | NEED_PTRACE_ATTACH)) && other_user && !ptrace_cap)
		return N_("closed");
	if (t->need & NEED_PTRACE_ATTACH) {
		if (scope >= 3)
			return N_("closed");
		if (scope == 2 && !ptrace_cap)
			return N_("closed");
		if (scope == 1 && !ptrace_cap)
			limit = N_("descendants only");
	}
	if (t->need & (NEED_PERF_TASK | NEED_PERF_KERNEL | NEED_PERF_CPU)) {
		long p = paranoid(r);
		if (!perfmon(r)) {
			if (p >= 3)
				return N_("closed");
			if ((t->need & NEED_PERF_CPU) && p > 0)
				return N_("closed");
			if ((t->need & NEED_PERF_KERNEL) && p > 1)
				return N_("closed");
			if ((t->need & NEED_PERF_TASK) && p == 2)
				limit = N_("user space only");
		}
	}
	if ((t->need & NEED_BPF) && !cap(r, CAP_SYS_ADMIN) && !(cap(r, CAP_BPF) && cap(r, CAP_PERFMON)))
		return N_("closed");
	if ((t->need & NEED_KILL) && other_user && !cap(r, CAP_KILL))
		return N_("closed");
	return limit ? limit : N_("open");
}

const char *door_state_word(enum door_state s)
{
	switch (s) {
	case DOOR_OPEN: return _("open");
	case DOOR_CLOSED: return _("CLOSED");
	default: return _("n/a");
	}
}

/* ---- lines ---- */

#define KEYW 37 /* the value column */

struct renderer {
	struct door_lines *out;
	int width;
	int err;
};

static void push(struct renderer *rd, enum door_line_kind kind, const char *text)
{
	struct door_lines *l = rd->out;

	if (rd->err)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct door_line *v = realloc(l->v, cap * sizeof(*v));
		if (!v) {
			rd->err = -1;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].kind = kind;
	l->v[l->n].text = strdup(text);
	if (!l->v[l->n].text) {
		rd->err = -1;
		return;
	}
	for (size_t len = strlen(text); len > 0 && text[len - 1] == ' '; len--)
		l->v[l->n].text[len - 1] = '\0';
	l->n++;
}

/* Add a line; wrap it at spaces past rd->width, continuing at column
 * `indent`. */
static void line(struct renderer *rd, enum door_line_kind kind, int indent, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void line(struct renderer *rd, enum door_line_kind kind, int indent, const char *fmt, ...)
{
	char buf[2048], out[2048];
	va_list ap;
	const char *p;
	bool first = true;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (rd->width <= 0 || text_width(buf) <= rd->width || indent >= rd->width - 10) {
		push(rd, kind, buf);
		return;
	}
	p = buf;
	while (*p) {
		int lead = first ? 0 : indent;
		int room = rd->width - lead;
		int len = (int)strlen(p), cut = (int)text_fit(p, room);

		/* Measured in columns (Hangul takes two): cut at the last space
		 * that fits, or inside one long word at a character boundary. */
		if (cut < len) {
			int fit = cut;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = fit ? fit : 1;
		}
		snprintf(out, sizeof(out), "%*s%.*s", lead, "", cut, p);
		push(rd, first ? kind : (kind == DL_HEAD ? DL_TEXT : kind), out);
		p += cut;
		while (*p == ' ')
			p++;
		first = false;
	}
}

static void kv(struct renderer *rd, enum door_line_kind kind, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void kv(struct renderer *rd, enum door_line_kind kind, const char *key, const char *fmt, ...)
{
	char val[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	if (rd->width > 0 && rd->width < 80) {
		/* Narrow: the value under its key. */
		line(rd, kind, 2, "  %s", key);
		line(rd, DL_TEXT, 6, "      %s", val);
		return;
	}
	line(rd, kind, KEYW, "  %s%s", pad(key, KEYW - 2), val);
}

static const char *user_name(uid_t uid, char *buf, size_t size)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];

	if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) == 0 && res)
		snprintf(buf, size, "%u (%s)", (unsigned)uid, res->pw_name);
	else
		snprintf(buf, size, "%u", (unsigned)uid);
	return buf;
}

static void caps_text(unsigned long long caps, char *buf, size_t size)
{
	int have = 0, all = DOOR_CAP_LAST + 1;
	size_t off = 0;

	for (int c = 0; c <= DOOR_CAP_LAST; c++)
		have += (caps >> c) & 1;
	buf[0] = '\0';
	if (have == 0) {
		snprintf(buf, size, "%s", _("none"));
		return;
	}
	if (have == all) {
		snprintf(buf, size, _("all %d"), all);
		return;
	}
	if (have > all / 2) {
		char missing[512];
		missing[0] = '\0';
		for (int c = 0; c <= DOOR_CAP_LAST && off < sizeof(missing); c++)
			if (!((caps >> c) & 1))
				off += (size_t)snprintf(missing + off, sizeof(missing) - off, "%s%s", off ? " " : "",
							door_cap_name(c));
		/* one message, so that a language puts the list where it goes */
		snprintf(buf, size, _("all but %s (%d of %d)"), missing, have, all);
		return;
	}
	for (int c = 0; c <= DOOR_CAP_LAST && off < size; c++)
		if ((caps >> c) & 1)
			off += (size_t)snprintf(buf + off, size - off, "%s%s", off ? " " : "", door_cap_name(c));
}

static const char *const cdf_bits[] = {
	"anon-private", "anon-shared", "file-private", "file-shared", "elf-headers",
	"hugetlb-private", "hugetlb-shared", "dax-private", "dax-shared",
};

/* What perf_event_open(cycles) said when there is no PMU, by its name: the
 * errno's text ("No such file or directory" for ENOENT) reads as if a file
 * were missing, where the kernel means "no such event here". */
static const char *pmu_errno(int e)
{
	switch (e) {
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EINVAL: return "EINVAL";
	default: return strerror(e);
	}
}

static void render_sys(struct renderer *rd, const struct door_report *r)
{
	const struct door_facts_sys *s = &r->sys;

	line(rd, DL_HEAD, 0, "%s", _("System"));
	kv(rd, DL_TEXT, _("kernel"), "%s", s->kernel);
	if (s->k.ptrace_scope < 0)
		kv(rd, DL_TEXT, "kernel.yama.ptrace_scope", _("Yama not present: ptrace is limited by uid, dumpable and capabilities only"));
	else
		kv(rd, DL_TEXT, "kernel.yama.ptrace_scope", "%ld: %s", s->k.ptrace_scope,
		   door_ptrace_scope_meaning(s->k.ptrace_scope));
	kv(rd, DL_TEXT, "kernel.perf_event_paranoid", "%ld: %s", s->k.perf_paranoid,
	   door_perf_paranoid_meaning(s->k.perf_paranoid, s->debian_kernel));
	kv(rd, DL_TEXT, "kernel.kptr_restrict", "%ld: %s", s->k.kptr_restrict,
	   door_kptr_restrict_meaning(s->k.kptr_restrict));
	kv(rd, DL_TEXT, "kernel.core_pattern", _("%s  (the kernel's own dumps; pscope core writes its file itself)"),
	   s->core_pattern);
	kv(rd, DL_TEXT, "kernel.perf_event_max_sample_rate", _("%ld Hz: the highest sampling frequency allowed"),
	   s->k.perf_max_sample_rate);
	if (s->perf_mlock_kb >= 0)
		kv(rd, DL_TEXT, "kernel.perf_event_mlock_kb", _("%ld kB: perf ring-buffer memory a user may lock without CAP_IPC_LOCK"),
		   s->perf_mlock_kb);
	if (s->suid_dumpable >= 0)
		kv(rd, DL_TEXT, "fs.suid_dumpable", "%ld: %s", s->suid_dumpable,
		   door_suid_dumpable_meaning(s->suid_dumpable));
	if (s->pmu == 1)
		kv(rd, DL_TEXT, _("hardware PMU"), _("yes: perf_event_open(cycles) opened; sampling uses cycles"));
	else if (s->pmu == 0)
		kv(rd, DL_TEXT, _("hardware PMU"), _("no: perf_event_open(cycles) says %s; sampling falls back to the cpu-clock software event"),
		   pmu_errno(s->pmu_err));
	else
		kv(rd, DL_TEXT, _("hardware PMU"), _("cannot tell: perf_event_open(cycles) was refused (%s)"), strerror(s->pmu_err));
	if (!s->btf_err)
		kv(rd, DL_TEXT, _("kernel BTF"), _("yes: /sys/kernel/btf/vmlinux; pscope time can load its BPF programs (as root, "
						   "or with CAP_BPF and CAP_PERFMON)"));
	else
		kv(rd, DL_TEXT, _("kernel BTF"), _("no: /sys/kernel/btf/vmlinux: %s; pscope time uses tracepoints or /proc"),
		   strerror(s->btf_err));
	if (!s->tracefs_err)
		kv(rd, DL_TEXT, "tracefs", _("mounted at /sys/kernel/tracing (its event ids are root's): the tracepoint tier "
					     "of pscope time"));
	else
		kv(rd, DL_TEXT, "tracefs", _("not mounted at /sys/kernel/tracing (%s): `mount -t tracefs nodev "
					     "/sys/kernel/tracing`"), strerror(s->tracefs_err));
	if (s->task_delayacct == 1)
		kv(rd, DL_TEXT, "kernel.task_delayacct", _("1: delay accounting on (block I/O, swap-in, reclaim waits in "
							  "pscope time), for the tasks started after it was set"));
	else if (s->task_delayacct == 0)
		kv(rd, DL_TEXT, "kernel.task_delayacct", _("0: no delay accounting; `sysctl -w kernel.task_delayacct=1` "
							  "turns it on for the tasks started after it (pscope time then "
							  "shows their block I/O, swap-in and reclaim waits; taskstats "
							  "needs CAP_NET_ADMIN)"));
}

static void render_self(struct renderer *rd, const struct door_report *r)
{
	const struct door_facts_self *s = &r->self;
	char u[96], caps[768];
	static const struct {
		int cap;
		const char *name;
	} door_caps[] = {
		{ CAP_SYS_PTRACE, "CAP_SYS_PTRACE" }, { CAP_PERFMON, "CAP_PERFMON" },
		{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },   { CAP_KILL, "CAP_KILL" },
		{ 40, "CAP_CHECKPOINT_RESTORE" },     { CAP_SYSLOG, "CAP_SYSLOG" },
		{ CAP_IPC_LOCK, "CAP_IPC_LOCK" },
	};
	size_t off = 0;

	line(rd, DL_TEXT, 0, "%s", "");
	line(rd, DL_HEAD, 0, _("pscope itself (PID %d)"), (int)s->pid);
	if (s->uid == s->euid)
		kv(rd, DL_TEXT, _("uid / gid"), "%s / %u", user_name(s->uid, u, sizeof(u)), (unsigned)s->gid);
	else
		kv(rd, DL_TEXT, _("uid / gid"), _("%s, effective %u / %u"), user_name(s->uid, u, sizeof(u)), (unsigned)s->euid,
		   (unsigned)s->gid);
	caps_text(s->cap_eff, caps, sizeof(caps));
	kv(rd, DL_TEXT, _("effective capabilities"), "%s", caps);
	if (s->cap_prm == s->cap_eff) {
		kv(rd, DL_TEXT, _("permitted capabilities"), _("the same"));
	} else {
		caps_text(s->cap_prm, caps, sizeof(caps));
		kv(rd, DL_TEXT, _("permitted capabilities"), "%s", caps);
	}
	caps[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(door_caps) && off < sizeof(caps); i++)
		off += (size_t)snprintf(caps + off, sizeof(caps) - off, "%s%s %s", i ? ", " : "", door_caps[i].name,
					(s->cap_eff >> door_caps[i].cap) & 1 ? _("yes") : _("no"));
	kv(rd, DL_TEXT, _("door capabilities"), "%s", caps);
	kv(rd, DL_TEXT, "seccomp", "%d: %s", s->seccomp, door_seccomp_meaning(s->seccomp));
	kv(rd, DL_TEXT, "NoNewPrivs", "%d%s", s->no_new_privs,
	   s->no_new_privs == 1 ? _(": file capabilities (setcap) of programs we run are ignored") : "");
}

static const char *state_name(char s)
{
	switch (s) {
	case 'R': return _("running");
	case 'S': return _("sleeping");
	case 'D': return _("uninterruptible sleep");
	case 'T': return _("stopped");
	case 't': return _("stopped by a tracer");
	case 'Z': return _("zombie");
	case 'I': return _("idle kernel thread");
	case 'X': return _("dead");
	default: return _("unknown");
	}
}

static void render_target(struct renderer *rd, const struct door_report *r)
{
	const struct door_facts_target *t = &r->target;
	char u[96];

	line(rd, DL_TEXT, 0, "%s", "");
	line(rd, DL_HEAD, 0, _("Target PID %d (%s)"), (int)t->pid, t->comm);
	if (t->uid == t->euid && t->uid == t->suid)
		kv(rd, DL_TEXT, _("owner"), _("uid %s, gid %u"), user_name(t->uid, u, sizeof(u)), (unsigned)t->gid);
	else
		kv(rd, DL_TEXT, _("owner"), _("uid %s, effective %u, saved %u; gid %u"), user_name(t->uid, u, sizeof(u)),
		   (unsigned)t->euid, (unsigned)t->suid, (unsigned)t->gid);
	if (t->dumpable == 1)
		kv(rd, DL_TEXT, _("dumpable"), _("yes: the files of /proc/%d belong to its uid %u"), (int)t->pid, (unsigned)t->euid);
	else if (t->dumpable == 0)
		kv(rd, DL_TEXT, _("dumpable"), _("no: the files of /proc/%d belong to root though it runs as uid %u (setuid/setgid, or prctl(PR_SET_DUMPABLE, 0))"),
		   (int)t->pid, (unsigned)t->euid);
	else
		kv(rd, DL_TEXT, _("dumpable"), _("cannot tell from outside: it runs as root, so the files of /proc/%d are root's either way"),
		   (int)t->pid);
	if (t->tracer_pid > 0)
		kv(rd, DL_TEXT, "TracerPid", _("%d (%s): already traced; no other tracer can attach"), (int)t->tracer_pid,
		   t->tracer_comm);
	else
		kv(rd, DL_TEXT, "TracerPid", _("0: not traced"));
	if (t->coredump_filter >= 0) {
		char bits[256];
		size_t off = 0;
		bits[0] = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(cdf_bits) && off < sizeof(bits); i++)
			if (t->coredump_filter & (1L << i))
				off += (size_t)snprintf(bits + off, sizeof(bits) - off, "%s%s", off ? " " : "", cdf_bits[i]);
		kv(rd, DL_TEXT, "coredump_filter", "0x%lx: %s", t->coredump_filter, off ? bits : _("nothing"));
	} else {
		kv(rd, DL_TEXT, "coredump_filter", _("unreadable (%s)"), strerror(t->coredump_filter_err));
	}
	if (t->cgroup.unit[0] && t->cgroup.slice[0])
		kv(rd, DL_TEXT, "cgroup", _("%s (systemd unit %s, in %s)"), t->cgroup.path, t->cgroup.unit, t->cgroup.slice);
	else if (t->cgroup.unit[0])
		kv(rd, DL_TEXT, "cgroup", _("%s (systemd unit %s)"), t->cgroup.path, t->cgroup.unit);
	else if (t->cgroup.path[0])
		kv(rd, DL_TEXT, "cgroup", "%s", t->cgroup.path);
	kv(rd, DL_TEXT, _("state"), P_("%c (%s), %ld thread%s", "%c (%s), %ld threads%s", t->threads), t->state,
	   state_name(t->state), t->threads, t->no_mm ? _("; no user memory (kernel thread or zombie)") : "");
}

static void render_ops(struct renderer *rd, const struct door_report *r)
{
	char when[32];
	time_t tt = (time_t)r->probed_at;
	struct tm tm;

	localtime_r(&tt, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	line(rd, DL_TEXT, 0, "%s", "");
	line(rd, DL_HEAD, 0, _("Operations on PID %d (probed at %s)"), (int)r->target.pid, when);
	for (int op = 0; op < PS_OP_COUNT; op++) {
		const struct door_probe *p = &r->ops[op];
		enum door_line_kind k = p->state == DOOR_OPEN ? DL_OPEN : p->state == DOOR_CLOSED ? DL_CLOSED : DL_NA;

		line(rd, k, 36, "  %s %s %s", pad(ps_op_name(op), 25), pad(door_state_word(p->state), 7), p->note);
		line(rd, DL_DIM, 10, _("      probe: %s"), p->how);
		if (p->state == DOOR_OPEN)
			continue;
		line(rd, DL_DETAIL, 12, _("      why:   %s"), p->err.msg);
		if (p->err.door != DOOR_NONE)
			line(rd, DL_DETAIL, 12, _("      door:  %s"), door_label(p->err.door));
		if (p->err.fix[0])
			line(rd, DL_DETAIL, 12, _("      fix:   %s"), p->err.fix);
	}
	if (r->core_dir_free >= 0) {
		char h[32];
		line(rd, DL_DIM, 10, _("  a core of PID %d would go to %s (%s free)"), (int)r->target.pid, r->core_dir,
		     human_bytes((unsigned long long)r->core_dir_free, h, sizeof(h)));
	}
}

static void render_tools(struct renderer *rd, const struct door_report *r)
{
	line(rd, DL_TEXT, 0, "%s", "");
	line(rd, DL_HEAD, 0, _("Tool -> door (expected here from the facts above, for your processes / other users')"));
	for (size_t i = 0; i < door_tools_count; i++) {
		const struct door_tool *t = &door_tools[i];
		const char *own = door_tool_expect(t, r, false), *oth = door_tool_expect(t, r, true);
		enum door_line_kind k = strcmp(own, "closed") ? DL_OPEN : DL_CLOSED;

		line(rd, k, 0, _("  %s yours: %s others: %s"), pad(_(t->tool), 36), pad(_(own), 18), _(oth));
		line(rd, DL_DIM, 18, _("      syscalls:   %s"), _(t->syscalls));
		line(rd, DL_DIM, 18, _("      permission: %s"), _(t->permission));
	}
}

int door_render(const struct door_report *r, int width, struct door_lines *out)
{
	struct renderer rd = { .out = out, .width = width };

	render_sys(&rd, r);
	render_self(&rd, r);
	if (r->have_target) {
		render_target(&rd, r);
		render_ops(&rd, r);
	} else {
		line(&rd, DL_TEXT, 0, "%s", "");
		line(&rd, DL_DIM, 0, _("No process chosen: `pscope doors PID` (or p on the Doors screen) probes each operation on one."));
	}
	render_tools(&rd, r);
	return rd.err;
}

void door_lines_free(struct door_lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].text);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
