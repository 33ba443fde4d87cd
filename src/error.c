#include "error.h"
#include "i18n.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const door_names[DOOR_COUNT] = {
	[DOOR_NONE] = "none",
	[DOOR_PROC_READ] = N_("ptrace read access to /proc/PID"),
	[DOOR_PTRACE_UID] = N_("CAP_SYS_PTRACE (process of another user)"),
	[DOOR_PTRACE_SCOPE] = "kernel.yama.ptrace_scope",
	[DOOR_PTRACE_TRACED] = N_("already traced"),
	[DOOR_DUMPABLE] = N_("target not dumpable"),
	[DOOR_PERF_PARANOID] = "kernel.perf_event_paranoid",
	[DOOR_PERF_CAP] = "CAP_PERFMON",
	[DOOR_SECCOMP] = "seccomp",
	[DOOR_SIGNAL] = N_("CAP_KILL (signal to another user's process)"),
	[DOOR_FILESYSTEM] = N_("filesystem"),
	[DOOR_PERF_MLOCK] = N_("kernel.perf_event_mlock_kb (perf buffer memory)"),
	[DOOR_LSM] = N_("security module or sandbox policy"),
	[DOOR_TRACEFS] = N_("tracefs (/sys/kernel/tracing, root only)"),
	[DOOR_BPF] = N_("CAP_BPF and CAP_PERFMON (BPF programs)"),
	[DOOR_BTF] = N_("kernel BTF (/sys/kernel/btf/vmlinux)"),
};

const char *door_name(enum ps_door d)
{
	return (unsigned)d < DOOR_COUNT && door_names[d] ? door_names[d] : "?";
}

const char *door_label(enum ps_door d)
{
	return _(door_name(d));
}

int ps_error_set(struct ps_error *e, int code, const char *fmt, ...)
{
	if (code < 0)
		code = -code;
	if (e) {
		va_list ap;
		e->code = code;
		e->door = DOOR_NONE;
		e->fix[0] = '\0';
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -code;
}

void ps_error_clear(struct ps_error *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}

const char *ps_error_str(const struct ps_error *e, char *buf, size_t size)
{
	if (e->door != DOOR_NONE && e->fix[0])
		snprintf(buf, size, _("%s (door: %s; fix: %s)"), e->msg, door_label(e->door), e->fix);
	else if (e->door != DOOR_NONE)
		snprintf(buf, size, _("%s (door: %s)"), e->msg, door_label(e->door));
	else
		snprintf(buf, size, "%s", e->msg);
	return buf;
}
