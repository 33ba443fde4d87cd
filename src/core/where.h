/* Where the kernel puts cores: core_pattern read as a file pattern (its
 * directory and the names it makes), systemd-coredump's store, apport's,
 * or a pipe to a handler that keeps nothing pscope can read; and the cores
 * found there, newest first. */
#ifndef PS_CORE_WHERE_H
#define PS_CORE_WHERE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "error.h"
#include "reads.h"

enum core_where_kind {
	CORE_WHERE_FILE,      /* a file pattern: dir + name template */
	CORE_WHERE_SYSTEMD,   /* |systemd-coredump: its store */
	CORE_WHERE_APPORT,    /* |apport: its core directory */
	CORE_WHERE_PIPE,      /* |another handler: nothing readable */
	CORE_WHERE_NONE,      /* empty pattern: no cores at all */
};

struct core_where {
	enum core_where_kind kind;
	char pattern[256];        /* core_pattern as read */
	char dir[PATH_MAX];       /* where to look */
	bool dir_relative;        /* relative pattern: the crashing process's cwd */
	bool dir_varies;          /* the directory has %-specifiers: not listable */
	char glob[512];           /* fnmatch(3) pattern of the file names */
	char handler[256];        /* the pipe's program */
	bool overwrites;          /* one fixed name (no %p/%P/%i/%I/%t, core_uses_pid 0): each core replaces the last */
};

/* Read a core_pattern (pure). uses_pid: kernel.core_uses_pid. dir (may be
 * NULL): the directory for a relative pattern or a store elsewhere. */
void core_where_parse(const char *pattern, bool uses_pid, const char *dir, struct core_where *w);

struct core_found {
	char path[PATH_MAX];
	char program[64];         /* hostile */
	int pid, signo;           /* 0 when unknown */
	uint64_t size;
	time_t mtime;
	long mtime_ns;
	unsigned long long dev, ino; /* which file it was (struct core_file_id) */
	bool compressed;          /* systemd's .zst/.lz4/.xz (the head is decompressed to list it) */
	bool unread;              /* compressed and not readable: named from its file name */
	char error[240];          /* why not (unread) */
	bool truncated;
};

/* List the cores at w, newest first (*out malloc'd). Files that match but
 * are not cores are left out. 0 or -errno (e set: the directory). */
PS_READS int core_where_list(const struct core_where *w, struct core_found **out, size_t *n, struct ps_error *e);

/* Where cores go here: core_pattern (or pattern when not NULL) and
 * kernel.core_uses_pid read, a relative pattern taken relative to dir (NULL:
 * the current directory). 0 or -errno with e set. */
PS_READS int core_where_here(const char *pattern, const char *dir, struct core_where *w, struct ps_error *e);
/* What to do to get cores pscope can read (one paragraph into buf), or
 * NULL when nothing is needed. */
const char *core_where_advice(const struct core_where *w, char *buf, size_t size);
/* `ulimit -c` of this process when it limits cores (a sentence into buf,
 * *val its bytes), or NULL (*val -1): unlimited. */
const char *core_where_ulimit(char *buf, size_t size, long long *val);
/* The warning that each core replaces the last (one fixed name), or NULL. */
const char *core_where_overwrites(const struct core_where *w);

#endif
