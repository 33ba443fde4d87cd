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
	bool compressed;          /* systemd's .zst/.lz4/.xz (the head is decompressed to list it) */
	bool unread;              /* compressed and not readable: named from its file name */
	char error[240];          /* why not (unread) */
	bool truncated;
};

/* List the cores at w, newest first (*out malloc'd). Files that match but
 * are not cores are left out. 0 or -errno (e set: the directory). */
int core_where_list(const struct core_where *w, struct core_found **out, size_t *n, struct ps_error *e);

#endif
