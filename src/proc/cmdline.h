/* /proc/PID/cmdline (and environ): NUL-separated arguments. */
#ifndef PS_PROC_CMDLINE_H
#define PS_PROC_CMDLINE_H

#include "reads.h"

#include <stddef.h>
#include <sys/types.h>

/* Turn the raw bytes into one string: NUL separators become spaces,
 * trailing NULs dropped, truncated to outsz-1. Returns the length. The
 * result is still hostile (escape it when showing it). */
size_t proc_cmdline_parse(const char *buf, size_t len, char *out, size_t outsz);

/* The whole of <file> ("cmdline", "environ") under the /proc/PID dirfd,
 * however long, trailing NULs dropped and the other NULs turned into sep;
 * *out is malloc'd (hostile text). Returns its length or -errno. The one
 * reader of a whole command line: `pscope show`, the detail screen, the
 * `w` screen, and the list's length of a command line it cut. */
PS_READS ssize_t proc_nul_list_read_at(int dfd, const char *file, char sep, char **out);

#endif
