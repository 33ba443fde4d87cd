/* Where a core goes: the default name and the destination's directory. */
#include "core/core.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void core_default_name(const char *comm, pid_t pid, char *buf, size_t size)
{
	char c[32], ts[32];
	size_t k = 0;
	time_t now = time(NULL);
	struct tm tm;

	for (const char *p = comm; *p && k < 16; p++) {
		bool keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			    *p == '-' || *p == '_' || (*p == '.' && k > 0);
		c[k++] = keep ? *p : '_';
	}
	if (!k)
		c[k++] = '_';
	c[k] = '\0';
	localtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, size, "core.%s.%d.%s", c, (int)pid, ts);
}

static int dest_error(struct ps_error *e, int err, const char *fix, const char *what, const char *path)
{
	ps_error_set(e, err, "%s%s: %s", what, path ? path : "", strerror(err));
	if (e && fix) {
		e->door = DOOR_FILESYSTEM;
		strlcpy_ps(e->fix, fix, sizeof(e->fix));
	}
	return -err;
}

/* Split the destination into a directory and a file name. */
int core_dest_split(const char *path, const char *comm, pid_t pid, char *dir, size_t dsz, char *base,
			size_t bsz, struct ps_error *e)
{
	struct stat sb;
	char name[NAME_MAX + 1];

	core_default_name(comm, pid, name, sizeof(name));
	if (!path || !*path) {
		if (!getcwd(dir, dsz))
			return dest_error(e, errno, NULL, _("cannot find the current directory"), NULL);
		strlcpy_ps(base, name, bsz);
		return 0;
	}
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		strlcpy_ps(dir, path, dsz);
		strlcpy_ps(base, name, bsz);
		return 0;
	}
	const char *slash = strrchr(path, '/');
	const char *file = slash ? slash + 1 : path;
	if (!*file)
		return dest_error(e, ENOENT, _("create the directory first"), _("no such directory "), path);
	if (!slash) {
		strlcpy_ps(dir, ".", dsz);
	} else if (slash == path) {
		strlcpy_ps(dir, "/", dsz);
	} else {
		size_t l = (size_t)(slash - path);
		if (l >= dsz)
			return dest_error(e, ENAMETOOLONG, NULL, _("destination too long"), NULL);
		memcpy(dir, path, l);
		dir[l] = '\0';
	}
	if (strlen(file) >= bsz || strlen(file) > NAME_MAX - 24)
		return dest_error(e, ENAMETOOLONG, NULL, _("file name too long"), NULL);
	strlcpy_ps(base, file, bsz);
	return 0;
}


const char *core_phase_name(enum core_phase ph)
{
	static const char *const names[] = {
		[CORE_PHASE_STOP] = N_("stopping threads"),
		[CORE_PHASE_COPY] = N_("copying memory (process stopped)"),
		[CORE_PHASE_WRITE] = N_("writing"),
		[CORE_PHASE_SYNC] = N_("syncing to disk"),
		[CORE_PHASE_SNAPSHOT] = N_("fork snapshot (process stopped)"),
		[CORE_PHASE_STREAM] = N_("writing memory (process stopped)"),
		[CORE_PHASE_READ] = N_("writing from the snapshot (process running)"),
	};
	return (unsigned)ph < sizeof(names) / sizeof(names[0]) ? _(names[ph]) : "?";
}

const char *core_method_name(enum core_method m)
{
	static const char *const names[] = {
		[CORE_METHOD_AUTO] = "auto", [CORE_METHOD_FORK] = "fork",
		[CORE_METHOD_STOP] = "stop", [CORE_METHOD_COPY] = "copy",
	};
	return (unsigned)m < sizeof(names) / sizeof(names[0]) ? names[m] : "?";
}

const char *core_pause_part_name(enum core_pause_part p)
{
	static const char *const names[] = {
		[CORE_PAUSE_STOP] = "stop", [CORE_PAUSE_MAPS] = "maps", [CORE_PAUSE_NOTES] = "notes",
		[CORE_PAUSE_WATCHDOG] = "watchdog", [CORE_PAUSE_PREPARE] = "prepare", [CORE_PAUSE_CLONE] = "clone",
		[CORE_PAUSE_CHILD] = "child", [CORE_PAUSE_RESTORE] = "restore", [CORE_PAUSE_COPY] = "copy",
		[CORE_PAUSE_RELEASE] = "release",
	};
	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}

/* Ready to paste into a shell: each path one word (quoted when it holds
 * a space, a quote, ...). */
const char *core_gdb_command(const struct core_result *r, char *buf, size_t size)
{
	char exe[2 * PATH_MAX + 64], core[2 * PATH_MAX + 16], full[PATH_MAX + 64];

	shell_word(r->path, core, sizeof(core));
	if (r->root_other && r->exe[0]) {
		snprintf(full, sizeof(full), "/proc/%d/root%s", (int)r->pid, r->exe);
		snprintf(buf, size, "gdb -ex 'set sysroot /proc/%d/root' %s %s", (int)r->pid,
			 shell_word(full, exe, sizeof(exe)), core);
	} else {
		snprintf(buf, size, "gdb %s %s", r->exe[0] ? shell_word(r->exe, exe, sizeof(exe)) : "EXE", core);
	}
	return buf;
}

const char *core_pscope_command(const struct core_result *r, char *buf, size_t size)
{
	char core[2 * PATH_MAX + 16];

	shell_word(r->path, core, sizeof(core));
	if (r->root_other)
		snprintf(buf, size, "pscope stack --core %s --sysroot /proc/%d/root", core, (int)r->pid);
	else
		snprintf(buf, size, "pscope -c %s", core);
	return buf;
}

int core_method_parse(const char *s)
{
	for (int m = CORE_METHOD_AUTO; m <= CORE_METHOD_COPY; m++)
		if (!strcmp(s, core_method_name((enum core_method)m)))
			return m;
	return -1;
}

const char *core_progress_text(const struct core_progress *p, char *buf, size_t size)
{
	char done[16], total[16], rate[16];
	int n = snprintf(buf, size, "%s", core_phase_name(p->phase));

	if (p->total && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " %s/%s", human_bytes(p->done, done, sizeof(done)),
			      human_bytes(p->total, total, sizeof(total)));
	if (p->rate > 0 && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " %s/s", human_bytes((unsigned long long)p->rate, rate, sizeof(rate)));
	if (p->eta_s >= 0 && p->total && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, _(" ETA %.0fs"), p->eta_s);
	return buf;
}
