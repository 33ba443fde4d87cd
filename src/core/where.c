/* core_pattern read back: where cores go and which are there. */
#include "core/where.h"
#include "core/read.h"
#include "doors/doors.h"
#include "i18n.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* The fnmatch pattern of the names a core_pattern file part makes: each
 * %-specifier matches anything, the rest literally. */
static void name_glob(const char *t, bool add_pid, char *out, size_t size)
{
	size_t o = 0;

	for (; *t && o + 4 < size; t++) {
		if (*t == '%' && t[1]) {
			t++;
			if (*t == '%') {
				out[o++] = '%';
			} else if (!o || out[o - 1] != '*') {
				out[o++] = '*';
			}
			continue;
		}
		if (strchr("*?[]\\", *t))
			out[o++] = '\\';
		out[o++] = *t;
	}
	if (add_pid && o + 3 < size) {
		out[o++] = '.';
		out[o++] = '*';
	}
	out[o] = '\0';
}

/* A file name that differs from one crash to the next: it holds the PID
 * (%p, %P), the TID (%i, %I) or the time (%t). */
static bool unique_name(const char *file)
{
	for (const char *p = strchr(file, '%'); p && p[1]; p = strchr(p + 2, '%'))
		if (strchr("pPiIt", p[1]))
			return true;
	return false;
}

void core_where_parse(const char *pattern, bool uses_pid, const char *dir, struct core_where *w)
{
	memset(w, 0, sizeof(*w));
	strlcpy_ps(w->pattern, pattern, sizeof(w->pattern));
	size_t l = strlen(w->pattern);
	while (l && w->pattern[l - 1] == '\n')
		w->pattern[--l] = '\0';
	if (!l) {
		w->kind = CORE_WHERE_NONE;
		return;
	}
	if (w->pattern[0] == '|') {
		const char *p = w->pattern + 1;
		size_t n = strcspn(p, " \t");
		snprintf(w->handler, sizeof(w->handler), "%.*s", (int)n, p);
		const char *b = base_name(w->handler);
		if (!strcmp(b, "systemd-coredump")) {
			w->kind = CORE_WHERE_SYSTEMD;
			strlcpy_ps(w->dir, dir ? dir : "/var/lib/systemd/coredump", sizeof(w->dir));
			strlcpy_ps(w->glob, "core.*", sizeof(w->glob));
		} else if (!strcmp(b, "apport")) {
			w->kind = CORE_WHERE_APPORT;
			strlcpy_ps(w->dir, dir ? dir : "/var/lib/apport/coredump", sizeof(w->dir));
			strlcpy_ps(w->glob, "core.*", sizeof(w->glob));
		} else {
			w->kind = CORE_WHERE_PIPE;
		}
		return;
	}
	w->kind = CORE_WHERE_FILE;
	const char *slash = strrchr(w->pattern, '/');
	const char *file = slash ? slash + 1 : w->pattern;
	if (slash) {
		snprintf(w->dir, sizeof(w->dir), "%.*s", slash == w->pattern ? 1 : (int)(slash - w->pattern), w->pattern);
		w->dir_varies = memchr(w->pattern, '%', (size_t)(slash - w->pattern)) != NULL;
	}
	if (w->pattern[0] != '/') {
		w->dir_relative = true;
		char rel[PATH_MAX + 8];
		if (snprintf(rel, sizeof(rel), "%s%s%s", dir ? dir : ".", slash ? "/" : "", slash ? w->dir : "") >=
		    (int)sizeof(w->dir))
			rel[sizeof(w->dir) - 1] = '\0';
		strlcpy_ps(w->dir, rel, sizeof(w->dir));
	} else if (dir) {
		strlcpy_ps(w->dir, dir, sizeof(w->dir));
		w->dir_varies = false;
	}
	name_glob(file, uses_pid && !strstr(file, "%p"), w->glob, sizeof(w->glob));
	w->overwrites = !uses_pid && !w->dir_varies && !unique_name(file);
}

/* systemd: core.COMM.UID.BOOTID.PID.USEC[.zst|.lz4|.xz] */
static void systemd_name(const char *name, struct core_found *f)
{
	char buf[512];
	char *part[8] = { 0 };
	int n = 0;

	strlcpy_ps(buf, name, sizeof(buf));
	for (char *s = buf, *tok; n < 8 && (tok = strsep(&s, ".")); )
		part[n++] = tok;
	if (n >= 6) {
		strlcpy_ps(f->program, part[1], sizeof(f->program));
		f->pid = atoi(part[4]);
	}
}

static int cmp_found(const void *a, const void *b)
{
	const struct core_found *x = a, *y = b;
	if (x->mtime != y->mtime)
		return x->mtime > y->mtime ? -1 : 1;
	if (x->mtime_ns != y->mtime_ns)
		return x->mtime_ns > y->mtime_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

int core_where_list(const struct core_where *w, struct core_found **out, size_t *n, struct ps_error *e)
{
	size_t cap = 0;
	struct core_found *v = NULL;

	*out = NULL;
	*n = 0;
	if (w->kind == CORE_WHERE_PIPE || w->kind == CORE_WHERE_NONE || w->dir_varies)
		return 0;
	DIR *d = opendir(w->dir);
	if (!d)
		return door_file_refused(e, w->dir, errno, _("list the cores in"));
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		char path[PATH_MAX + 256];
		if (de->d_name[0] == '.' || fnmatch(w->glob, de->d_name, FNM_PERIOD))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", w->dir, de->d_name) >= PATH_MAX)
			continue;
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		struct core_found f = { 0 };
		strlcpy_ps(f.path, path, sizeof(f.path));
		f.size = (uint64_t)st.st_size;
		f.mtime = st.st_mtim.tv_sec;
		f.mtime_ns = st.st_mtim.tv_nsec;
		f.dev = (unsigned long long)st.st_dev;
		f.ino = (unsigned long long)st.st_ino;
		const char *ext = strrchr(de->d_name, '.');
		bool packed = ext && (!strcmp(ext, ".zst") || !strcmp(ext, ".lz4") || !strcmp(ext, ".xz"));
		struct core_open_opts co = { .headers_only = true };
		struct core *c;
		struct ps_error ce;
		if (packed) {
			/* Named from the file name; the notes, when the head
			 * of the stream decompresses (a missing library or
			 * damaged data leave the name only). */
			f.compressed = true;
			if (w->kind == CORE_WHERE_SYSTEMD)
				systemd_name(de->d_name, &f);
		}
		if (core_open(path, &co, &c, &ce) == 0) {
			strlcpy_ps(f.program, c->info.fname, sizeof(f.program));
			f.pid = c->info.pid ? c->info.pid : c->info.n_threads ? c->info.threads[0].tid : 0;
			f.signo = core_signal(c);
			f.truncated = !c->compression && c->truncated; /* a listing decompresses the head only */
			f.compressed = c->compression != NULL;
			core_close(c);
		} else if (!packed) {
			continue; /* not a core */
		} else {
			f.unread = true;
			strlcpy_ps(f.error, ce.msg, sizeof(f.error));
		}
		if (array_reserve((void **)&v, &cap, *n, sizeof(*v), 16) < 0) {
			closedir(d);
			free(v);
			*n = 0;
			return ps_error_set(e, ENOMEM, _("out of memory"));
		}
		v[(*n)++] = f;
	}
	closedir(d);
	if (*n)
		sort_array(v, *n, sizeof(*v), cmp_found);
	*out = v;
	return 0;
}

/* What to do to get cores that pscope can read (one paragraph). */
const char *core_where_advice(const struct core_where *w, char *buf, size_t size)
{
	static const char *how = N_("To keep cores as files: sysctl -w kernel.core_pattern=/var/tmp/core.%e.%p "
				    "(and the same line in a file of /etc/sysctl.d/ to keep it after a reboot), "
				    "then `ulimit -c unlimited` in the shell that starts the program.");

	switch (w->kind) {
	case CORE_WHERE_PIPE:
		snprintf(buf, size, _("core_pattern pipes every core to %s, which keeps nothing pscope can read. %s"),
			 w->handler, _(how));
		return buf;
	case CORE_WHERE_NONE:
		snprintf(buf, size, _("core_pattern is empty: the kernel writes no core. %s"), _(how));
		return buf;
	case CORE_WHERE_SYSTEMD:
		snprintf(buf, size, _("systemd-coredump keeps the cores compressed: pscope opens them (decompressed into "
				      "a temporary file under $TMPDIR), or `coredumpctl dump PID -o core.PID` writes a "
				      "plain one."));
		return buf;
	case CORE_WHERE_FILE:
		if (w->dir_varies) {
			snprintf(buf, size, _("the directory of core_pattern depends on the process: pscope cannot list it "
					      "(--dir DIR lists one)."));
			return buf;
		}
		if (w->dir_relative) {
			snprintf(buf, size, _("core_pattern is relative: each core goes to the current directory of the "
					      "program that crashed; this is %s (--dir DIR looks elsewhere)."), w->dir);
			return buf;
		}
		return NULL;
	default:
		return NULL;
	}
}

const char *core_where_ulimit(char *buf, size_t size, long long *val)
{
	struct rlimit rl;

	*val = -1;
	if (getrlimit(RLIMIT_CORE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return NULL;
	*val = (long long)rl.rlim_cur;
	if (rl.rlim_cur == 0)
		snprintf(buf, size, _("`ulimit -c` is 0 here: programs started from this shell write no core "
				      "(`ulimit -c unlimited` lifts it)."));
	else
		snprintf(buf, size, _("`ulimit -c` is %llu bytes here: larger cores are cut short."),
			 (unsigned long long)rl.rlim_cur);
	return buf;
}

const char *core_where_overwrites(const struct core_where *w)
{
	if (w->kind != CORE_WHERE_FILE || !w->overwrites)
		return NULL;
	/* xgettext:no-c-format */
	return _("warning: every core gets the same name (kernel.core_uses_pid is 0 and the pattern has no "
		 "%p, %i or %t): each crash overwrites the last core. "
		 "sysctl -w kernel.core_uses_pid=1 keeps them apart.");
}

int core_where_here(const char *pattern, const char *dir, struct core_where *w, struct ps_error *e)
{
	char pat[256] = "", cwd[PATH_MAX];
	long uses_pid = 0;

	if (pattern) {
		strlcpy_ps(pat, pattern, sizeof(pat));
	} else {
		ssize_t l = read_file_at(AT_FDCWD, "/proc/sys/kernel/core_pattern", pat, sizeof(pat));
		if (l < 0)
			return ps_error_set(e, (int)-l, _("cannot read /proc/sys/kernel/core_pattern: %s"), strerror((int)-l));
	}
	read_long_file("/proc/sys/kernel/core_uses_pid", &uses_pid);
	/* A relative pattern is relative to the crashed program's directory:
	 * here, unless dir says where it ran. */
	if (!dir && pat[0] != '/' && pat[0] != '|' && getcwd(cwd, sizeof(cwd)))
		dir = cwd;
	core_where_parse(pat, uses_pid != 0, dir, w);
	return 0;
}
