/* /proc/PID/io: pure parser. Reading it needs ptrace read access. */
#ifndef PS_PROC_IO_H
#define PS_PROC_IO_H

#include <stddef.h>

struct proc_io {
	unsigned long long rchar, wchar, syscr, syscw, read_bytes, write_bytes, cancelled_write_bytes;
};

/* Returns 0, or -EINVAL when read_bytes or write_bytes is missing. */
int proc_io_parse(const char *buf, size_t len, struct proc_io *out);

#endif
