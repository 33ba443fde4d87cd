/* /proc/PID/cmdline: NUL-separated arguments. */
#ifndef PS_PROC_CMDLINE_H
#define PS_PROC_CMDLINE_H

#include <stddef.h>

/* Turn the raw bytes into one string: NUL separators become spaces,
 * trailing NULs dropped, truncated to outsz-1. Returns the length. The
 * result is still hostile (escape it when showing it). */
size_t proc_cmdline_parse(const char *buf, size_t len, char *out, size_t outsz);

#endif
